//! FilesInfo: the per-file records (names, empty-stream flags, times,
//! attributes).

use crate::read::byte_reader::ByteReader;
use crate::read::property_id as id;
use crate::SevenZError;

/// One file record as stored, before it is joined with its data stream.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FileRecord {
    /// The stored path.
    pub name: String,
    /// True when the file has no data stream (directory or empty file).
    pub empty_stream: bool,
    /// For an empty stream: true for an empty file, false for a directory.
    pub empty_file: bool,
    /// An anti-item (marks a deletion in update archives).
    pub anti: bool,
    /// Creation time as a FILETIME (100 ns ticks since 1601-01-01 UTC).
    pub ctime: Option<u64>,
    /// Access time as a FILETIME.
    pub atime: Option<u64>,
    /// Modification time as a FILETIME.
    pub mtime: Option<u64>,
    /// Windows attributes; unix mode in the high 16 bits when bit 0x8000 is
    /// set.
    pub attributes: Option<u32>,
    /// Start position (multi-volume leftovers).
    pub start_pos: Option<u64>,
}

/// Parses the record after its `kFilesInfo` ID.
pub(crate) fn parse_files_info(
    r: &mut ByteReader<'_>,
    max_entries: usize,
    max_name_len: usize,
) -> Result<Vec<FileRecord>, SevenZError> {
    let n = r.count("file")?;
    if n > max_entries {
        return Err(SevenZError::Limit(lzflow_core::LimitExceeded::Entries {
            count: n as u64,
            limit: max_entries as u64,
        }));
    }
    let mut files = vec![FileRecord::default(); n];
    let mut empty_streams: Vec<usize> = Vec::new();
    loop {
        let prop = r.id()?;
        if prop == id::END {
            break;
        }
        let size = r.number()?;
        let mut p = ByteReader::new(r.bytes(size)?);
        match prop {
            id::EMPTY_STREAM => {
                let bits = p.bits(n)?;
                empty_streams.clear();
                for (i, (f, b)) in files.iter_mut().zip(bits).enumerate() {
                    f.empty_stream = b;
                    // An empty stream is a directory unless kEmptyFile
                    // says so, and no anti-item unless kAnti does.
                    f.empty_file = false;
                    f.anti = false;
                    if b {
                        empty_streams.push(i);
                    }
                }
            }
            id::EMPTY_FILE | id::ANTI => {
                let bits = p.bits(empty_streams.len())?;
                for (&i, b) in empty_streams.iter().zip(bits) {
                    if prop == id::EMPTY_FILE {
                        files[i].empty_file = b;
                    } else {
                        files[i].anti = b;
                    }
                }
            }
            id::NAME => {
                if p.byte()? != 0 {
                    return Err(SevenZError::UnsupportedFeature("external file names"));
                }
                let raw = p.bytes(p.remaining() as u64)?;
                parse_names(raw, &mut files, max_name_len)?;
            }
            id::CTIME | id::ATIME | id::MTIME | id::START_POS => {
                let defined = p.defined(n)?;
                if p.byte()? != 0 {
                    return Err(SevenZError::UnsupportedFeature("external file times"));
                }
                for (f, d) in files.iter_mut().zip(defined) {
                    if !d {
                        continue;
                    }
                    let v = Some(p.u64_le()?);
                    match prop {
                        id::CTIME => f.ctime = v,
                        id::ATIME => f.atime = v,
                        id::MTIME => f.mtime = v,
                        _ => f.start_pos = v,
                    }
                }
            }
            id::WIN_ATTRIBUTES => {
                let defined = p.defined(n)?;
                if p.byte()? != 0 {
                    return Err(SevenZError::UnsupportedFeature("external attributes"));
                }
                for (f, d) in files.iter_mut().zip(defined) {
                    if d {
                        f.attributes = Some(p.u32_le()?);
                    }
                }
            }
            // Padding: 7-Zip reports a header error unless it is all zero.
            id::DUMMY => {
                if p.bytes(p.remaining() as u64)?.iter().any(|&b| b != 0) {
                    return Err(SevenZError::corrupt("kDummy padding is not zero"));
                }
            }
            // A comment (kComment), or a property from a newer writer:
            // nothing a reader needs (7-Zip skips these with a warning).
            _ => continue,
        }
        if p.remaining() != 0 {
            return Err(SevenZError::corrupt(format!(
                "{} bytes left over in file property 0x{prop:02x}",
                p.remaining()
            )));
        }
    }
    Ok(files)
}

/// Splits NUL-terminated UTF-16LE names, one per file; bytes after the
/// last name (an extra name, or a NUL inside one) are an error, as in
/// 7-Zip. Unpaired surrogates become U+FFFD.
fn parse_names(
    raw: &[u8],
    files: &mut [FileRecord],
    max_name_len: usize,
) -> Result<(), SevenZError> {
    let mut units = raw
        .chunks_exact(2)
        .map(|c| u16::from_le_bytes([c[0], c[1]]));
    for f in files.iter_mut() {
        let mut name: Vec<u16> = Vec::new();
        loop {
            match units.next() {
                None => return Err(SevenZError::corrupt("file names end early")),
                Some(0) => break,
                Some(u) => {
                    if name.len() >= max_name_len {
                        return Err(SevenZError::corrupt(format!(
                            "a file name is longer than the configured maximum of {max_name_len}"
                        )));
                    }
                    name.push(u);
                }
            }
        }
        f.name = String::from_utf16_lossy(&name);
    }
    if units.next().is_some() || !raw.len().is_multiple_of(2) {
        return Err(SevenZError::corrupt(
            "bytes follow the last file name (a NUL inside a name?)",
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn utf16z(names: &[&str]) -> Vec<u8> {
        let mut out = vec![0u8]; // not external
        for n in names {
            for u in n.encode_utf16() {
                out.extend_from_slice(&u.to_le_bytes());
            }
            out.extend_from_slice(&[0, 0]);
        }
        out
    }

    #[test]
    fn parses_names_flags_times_and_attributes() {
        let names = utf16z(&["dir", "a😀.txt", "empty"]);
        let mut h = vec![3u8];
        h.push(id::NAME);
        h.push(names.len() as u8);
        h.extend_from_slice(&names);
        h.extend_from_slice(&[id::EMPTY_STREAM, 1, 0b1010_0000]);
        h.extend_from_slice(&[id::EMPTY_FILE, 1, 0b0100_0000]);
        h.extend_from_slice(&[id::DUMMY, 2, 0, 0]);
        // mtime defined for file 1 only
        h.extend_from_slice(&[id::MTIME, 11, 0, 0b0100_0000, 0]);
        h.extend_from_slice(&7u64.to_le_bytes());
        h.extend_from_slice(&[id::WIN_ATTRIBUTES, 14, 1, 0]);
        for a in [0x10u32, 0x8000 | (0o100644 << 16), 0x20] {
            h.extend_from_slice(&a.to_le_bytes());
        }
        h.push(id::END);
        let files = parse_files_info(&mut ByteReader::new(&h), 100, 100).unwrap();
        assert_eq!(files[1].name, "a😀.txt");
        assert!(files[0].empty_stream && !files[0].empty_file);
        assert!(!files[1].empty_stream);
        assert!(files[2].empty_stream && files[2].empty_file);
        assert_eq!(files[1].mtime, Some(7));
        assert_eq!(files[0].mtime, None);
        assert_eq!(files[1].attributes, Some(0x8000 | (0o100644 << 16)));
    }

    #[test]
    fn limits_entries_and_name_length() {
        let names = utf16z(&["abcdef"]);
        let mut h = vec![1u8, id::NAME, names.len() as u8];
        h.extend_from_slice(&names);
        h.push(id::END);
        assert!(parse_files_info(&mut ByteReader::new(&h), 100, 5).is_err());
        assert!(parse_files_info(&mut ByteReader::new(&h), 0, 100).is_err());
        assert_eq!(
            parse_files_info(&mut ByteReader::new(&h), 1, 6).unwrap()[0].name,
            "abcdef"
        );
    }
}
