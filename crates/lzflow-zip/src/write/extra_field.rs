//! Extra-field blocks the writer adds (APPNOTE 4.5): Zip64 extended
//! information (0x0001), Info-ZIP's extended timestamp (0x5455) and
//! WinZip's AES structure (0x9901).

use std::time::{SystemTime, UNIX_EPOCH};

/// Appends a block's header (ID and data size) and data.
fn block(out: &mut Vec<u8>, id: u16, data: &[u8]) {
    out.extend_from_slice(&id.to_le_bytes());
    out.extend_from_slice(&(data.len() as u16).to_le_bytes());
    out.extend_from_slice(data);
}

/// The Zip64 block holding `values` (the saturated fields, in APPNOTE's
/// order: uncompressed size, compressed size, local header offset).
pub(crate) fn zip64(out: &mut Vec<u8>, values: &[u64]) {
    let mut data = [0u8; 24];
    for (i, v) in values.iter().enumerate() {
        data[i * 8..i * 8 + 8].copy_from_slice(&v.to_le_bytes());
    }
    block(out, 0x0001, &data[..values.len() * 8]);
}

/// The extended timestamp block with the modification time, when it is
/// a 32-bit Unix time (the same data in local and central headers, flags
/// bit 0).
pub(crate) fn extended_timestamp(out: &mut Vec<u8>, mtime: SystemTime) {
    let secs = mtime
        .duration_since(UNIX_EPOCH)
        .ok()
        .and_then(|d| u32::try_from(d.as_secs()).ok());
    if let Some(secs) = secs {
        let mut data = [1u8, 0, 0, 0, 0];
        data[1..].copy_from_slice(&secs.to_le_bytes());
        block(out, 0x5455, &data);
    }
}

/// The WinZip AES block: vendor version (1 for AE-1, 2 for AE-2), "AE",
/// the strength byte and the real compression method.
pub(crate) fn winzip_aes(out: &mut Vec<u8>, version: u16, strength: u8, method: u16) {
    let mut data = [0u8; 7];
    data[..2].copy_from_slice(&version.to_le_bytes());
    data[2..4].copy_from_slice(b"AE");
    data[4] = strength;
    data[5..].copy_from_slice(&method.to_le_bytes());
    block(out, 0x9901, &data);
}
