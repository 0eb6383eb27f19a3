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
pub const SNIFF_LEN: usize = 13;

const XZ_MAGIC: [u8; 6] = [0xFD, b'7', b'z', b'X', b'Z', 0x00];
const SEVEN_Z_MAGIC: [u8; 6] = [b'7', b'z', 0xBC, 0xAF, 0x27, 0x1C];

/// Classifies a file from its first [`SNIFF_LEN`] bytes (fewer if the file
/// is shorter).
///
/// .lzma has no magic, so it is recognised the way xz does: a valid
/// lc/lp/pb byte, a dictionary size of the form 2^n or 2^n + 2^(n-1), and an
/// uncompressed size that is unknown or below 256 GiB. That rejects almost
/// all other data while accepting every file LZMA Utils and xz write.
pub fn detect(head: &[u8]) -> Detected {
    if head.starts_with(&XZ_MAGIC) {
        return Detected::Known(Format::Xz);
    }
    if head.starts_with(&SEVEN_Z_MAGIC) {
        return Detected::SevenZ;
    }
    if head.starts_with(&lzflow_lzip::MAGIC) {
        return Detected::Known(Format::Lzip);
    }
    if looks_like_lzma_alone(head) {
        return Detected::Known(Format::Lzma);
    }
    Detected::Unknown
}

fn looks_like_lzma_alone(head: &[u8]) -> bool {
    if head.len() < SNIFF_LEN || head[0] >= 9 * 5 * 5 {
        return false;
    }
    let dict = u32::from_le_bytes([head[1], head[2], head[3], head[4]]);
    let size = u64::from_le_bytes([
        head[5], head[6], head[7], head[8], head[9], head[10], head[11], head[12],
    ]);
    let dict_ok = dict == u32::MAX || {
        // 2^n or 2^n + 2^(n-1): at most two set bits, and adjacent.
        let low = dict & dict.wrapping_neg();
        let rest = dict - low;
        dict != 0 && (rest == 0 || rest == low << 1)
    };
    dict_ok && (size == u64::MAX || size < 1 << 38)
}

/// The output name for decompressing `name`: the suffix stripped (`.xz`,
/// `.lzma`, `.lz`... ) or mapped (`.txz` and `.tlz` become `.tar`). None
/// when the name has no suffix of `format`, so the caller must ask for -o.
pub fn strip_suffix(name: &str, format: Format) -> Option<String> {
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
            strip_suffix("a.tar.lz", Format::Lzip).as_deref(),
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
        assert_eq!(strip_suffix("a.xz", Format::Xz).as_deref(), Some("a"));
        assert_eq!(
            strip_suffix("dir/a.txz", Format::Xz).as_deref(),
            Some("dir/a.tar")
        );
        assert_eq!(strip_suffix("a.lzma", Format::Lzma).as_deref(), Some("a"));
        assert_eq!(strip_suffix("a.lzma", Format::Xz), None);
        assert_eq!(strip_suffix(".xz", Format::Xz), None);
        assert_eq!(strip_suffix("dir/.xz", Format::Xz), None);
        assert_eq!(strip_suffix("a.gz", Format::Xz), None);
    }
}
