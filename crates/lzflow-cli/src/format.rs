//! Telling .xz, .lzma, .lz and .7z apart by their first bytes.

use std::fmt;

/// The container formats `lzflow` recognises.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// The .xz container.
    Xz,
    /// LZMA-alone (.lzma): a 13-byte header and LZMA1 data.
    Lzma,
    /// lzip (.lz): members of LZMA1 data with a CRC32 trailer.
    Lzip,
}

impl fmt::Display for Format {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Format::Xz => "xz",
            Format::Lzma => "lzma",
            Format::Lzip => "lz",
        })
    }
}

/// What the first bytes of a file say.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Detected {
    /// A format `d` and `t` handle.
    Known(Format),
    /// A 7z archive (extracted by `lzflow x`, not `d`).
    SevenZ,
    /// Nothing we recognise.
    Unknown,
}

/// Bytes needed to decide: the LZMA-alone header is the longest at 13.
pub const SNIFF_LEN: usize = lzflow::detect::DETECT_LEN;

/// Classifies a file from its first [`SNIFF_LEN`] bytes (fewer if the file
/// is shorter), by the library's [`lzflow::detect()`]. A zip archive is
/// `Unknown` here: `d` and `t` do not take it, the archive commands find it.
pub fn detect(head: &[u8]) -> Detected {
    match lzflow::detect(head) {
        Some(lzflow::Format::Xz) => Detected::Known(Format::Xz),
        Some(lzflow::Format::Lzma) => Detected::Known(Format::Lzma),
        Some(lzflow::Format::Lzip) => Detected::Known(Format::Lzip),
        Some(lzflow::Format::SevenZ) => Detected::SevenZ,
        _ => Detected::Unknown,
    }
}

/// The output name for decompressing `name`: the suffix stripped (`.xz`,
/// `.lzma`, `.lz`... ) or mapped (`.txz` and `.tlz` become `.tar`), or the
/// caller's own suffix (xz's `--suffix`) whatever the format. None when
/// the name has none of them, so the caller must ask for -o.
pub fn strip_suffix(name: &str, format: Format, own: Option<&str>) -> Option<String> {
    if let Some(stem) = own.and_then(|own| name.strip_suffix(own)) {
        if !stem.is_empty() && !stem.ends_with('/') {
            return Some(stem.to_string());
        }
    }
    let pairs: &[(&str, &str)] = match format {
        Format::Xz => &[(".xz", ""), (".txz", ".tar")],
        Format::Lzma => &[(".lzma", ""), (".tlz", ".tar")],
        Format::Lzip => &[(".lz", "")],
    };
    for (suffix, replacement) in pairs {
        if let Some(stem) = name.strip_suffix(suffix) {
            if !stem.is_empty() && !stem.ends_with('/') {
                return Some(format!("{stem}{replacement}"));
            }
        }
    }
    None
}

/// xz's `--suffix` value: not empty, and a name's ending, not a path's.
pub fn parse_suffix(text: &str) -> Result<String, String> {
    if text.is_empty() || text.contains('/') {
        return Err(format!(
            "{text:?}: a suffix must be a non-empty file name ending"
        ));
    }
    Ok(text.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn detects_by_magic_not_name() {
        assert_eq!(
            detect(&[0xFD, b'7', b'z', b'X', b'Z', 0, 0, 4]),
            Detected::Known(Format::Xz)
        );
        assert_eq!(
            detect(&[b'7', b'z', 0xBC, 0xAF, 0x27, 0x1C, 0, 4]),
            Detected::SevenZ
        );
        assert_eq!(detect(b"LZIP"), Detected::Known(Format::Lzip));
        assert_eq!(
            strip_suffix("a.tar.lz", Format::Lzip, None).as_deref(),
            Some("a.tar")
        );
        // lc=3 lp=0 pb=2, 8 MiB dictionary, unknown size: what xz --format=lzma writes.
        let alone = [
            0x5D, 0, 0, 0x80, 0, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,
        ];
        assert_eq!(detect(&alone), Detected::Known(Format::Lzma));
        // 3 MiB = 2^21 + 2^20 is a valid LZMA-alone dictionary too.
        let mut three = alone;
        three[1..5].copy_from_slice(&(3u32 << 20).to_le_bytes());
        assert_eq!(detect(&three), Detected::Known(Format::Lzma));
        // ... but 5 MiB is not, and neither is text.
        let mut five = alone;
        five[1..5].copy_from_slice(&(5u32 << 20).to_le_bytes());
        assert_eq!(detect(&five), Detected::Unknown);
        assert_eq!(detect(b"hello, world!\n"), Detected::Unknown);
        assert_eq!(detect(b""), Detected::Unknown);
    }

    #[test]
    fn output_names() {
        assert_eq!(strip_suffix("a.xz", Format::Xz, None).as_deref(), Some("a"));
        assert_eq!(
            strip_suffix("dir/a.txz", Format::Xz, None).as_deref(),
            Some("dir/a.tar")
        );
        assert_eq!(
            strip_suffix("a.lzma", Format::Lzma, None).as_deref(),
            Some("a")
        );
        assert_eq!(strip_suffix("a.lzma", Format::Xz, None), None);
        assert_eq!(strip_suffix(".xz", Format::Xz, None), None);
        assert_eq!(strip_suffix("dir/.xz", Format::Xz, None), None);
        assert_eq!(strip_suffix("a.gz", Format::Xz, None), None);
        // --suffix: any format, besides the usual ones.
        assert_eq!(
            strip_suffix("a.gz", Format::Xz, Some(".gz")).as_deref(),
            Some("a")
        );
        assert_eq!(
            strip_suffix("a.xz", Format::Xz, Some(".gz")).as_deref(),
            Some("a")
        );
        assert_eq!(strip_suffix("dir/.gz", Format::Lzip, Some(".gz")), None);
    }
}
