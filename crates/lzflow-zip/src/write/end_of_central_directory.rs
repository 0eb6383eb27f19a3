//! The end of the archive (APPNOTE 4.3.14-4.3.16): the Zip64 end of
//! central directory record and its locator when a count, size or offset
//! does not fit the classic record, then the classic record with the
//! archive comment.

/// Appends the end records for a central directory of `entries` records
/// and `size` bytes starting at `offset`.
pub(crate) fn encode(entries: u64, size: u64, offset: u64, comment: &[u8], out: &mut Vec<u8>) {
    let zip64 = entries >= 0xFFFF || size >= u64::from(u32::MAX) || offset >= u64::from(u32::MAX);
    if zip64 {
        let record_at = offset + size;
        out.extend_from_slice(&0x0606_4b50u32.to_le_bytes());
        // Size of the rest of the record: 44 bytes.
        out.extend_from_slice(&44u64.to_le_bytes());
        out.extend_from_slice(&((3u16 << 8) | 63).to_le_bytes());
        out.extend_from_slice(&45u16.to_le_bytes());
        out.extend_from_slice(&0u32.to_le_bytes()); // this disk
        out.extend_from_slice(&0u32.to_le_bytes()); // disk of the directory
        out.extend_from_slice(&entries.to_le_bytes());
        out.extend_from_slice(&entries.to_le_bytes());
        out.extend_from_slice(&size.to_le_bytes());
        out.extend_from_slice(&offset.to_le_bytes());
        out.extend_from_slice(&0x0706_4b50u32.to_le_bytes());
        out.extend_from_slice(&0u32.to_le_bytes());
        out.extend_from_slice(&record_at.to_le_bytes());
        out.extend_from_slice(&1u32.to_le_bytes()); // total disks
    }
    let short16 = |v: u64| if v >= 0xFFFF { 0xFFFF } else { v as u16 };
    let short32 = |v: u64| {
        if v >= u64::from(u32::MAX) {
            u32::MAX
        } else {
            v as u32
        }
    };
    out.extend_from_slice(&0x0605_4b50u32.to_le_bytes());
    out.extend_from_slice(&0u16.to_le_bytes());
    out.extend_from_slice(&0u16.to_le_bytes());
    out.extend_from_slice(&short16(entries).to_le_bytes());
    out.extend_from_slice(&short16(entries).to_le_bytes());
    out.extend_from_slice(&short32(size).to_le_bytes());
    out.extend_from_slice(&short32(offset).to_le_bytes());
    out.extend_from_slice(&(comment.len() as u16).to_le_bytes());
    out.extend_from_slice(comment);
}
