//! Stream Header and Stream Footer (spec sections 2.1.1 and 2.1.2), and the
//! Stream Flags they both carry.

use crate::check::size_of_id;
use crate::{Check, XzError};

/// Magic bytes that open every stream.
pub const HEADER_MAGIC: [u8; 6] = [0xFD, b'7', b'z', b'X', b'Z', 0x00];
/// Magic bytes that close every stream.
pub const FOOTER_MAGIC: [u8; 2] = *b"YZ";
/// Size of the Stream Header and of the Stream Footer.
pub const STREAM_HEADER_SIZE: usize = 12;

/// Largest Backward Size a footer can express (2^34 bytes).
pub(crate) const BACKWARD_SIZE_MAX: u64 = 1 << 34;

/// The decoded Stream Flags: only the check ID is defined.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct StreamFlags {
    /// Check ID, 0..=15; not necessarily one lzflow can compute.
    pub(crate) check_id: u8,
}

impl StreamFlags {
    pub(crate) fn new(check: Check) -> Self {
        StreamFlags {
            check_id: check.id(),
        }
    }

    /// The check, if it is one lzflow implements.
    pub(crate) fn check(self) -> Option<Check> {
        Check::from_id(self.check_id).ok()
    }

    /// Size of each Block's Check field.
    pub(crate) fn check_size(self) -> usize {
        size_of_id(self.check_id)
    }

    fn decode(bytes: [u8; 2]) -> Result<Self, XzError> {
        if bytes[0] != 0 || bytes[1] & 0xF0 != 0 {
            return Err(XzError::UnsupportedStreamFlags { flags: bytes });
        }
        Ok(StreamFlags { check_id: bytes[1] })
    }

    fn encode(self) -> [u8; 2] {
        [0, self.check_id]
    }
}

/// Parses a Stream Header whose magic bytes the caller has already matched.
pub(crate) fn decode_header(buf: &[u8; STREAM_HEADER_SIZE]) -> Result<StreamFlags, XzError> {
    debug_assert_eq!(buf[..6], HEADER_MAGIC);
    let stored = u32::from_le_bytes([buf[8], buf[9], buf[10], buf[11]]);
    let computed = crc32fast::hash(&buf[6..8]);
    if stored != computed {
        return Err(XzError::StreamHeaderCrc { stored, computed });
    }
    StreamFlags::decode([buf[6], buf[7]])
}

/// Parses a Stream Footer; returns its flags and the Backward Size (the
/// Index size in bytes).
pub(crate) fn decode_footer(buf: &[u8; STREAM_HEADER_SIZE]) -> Result<(StreamFlags, u64), XzError> {
    if buf[10..12] != FOOTER_MAGIC {
        return Err(XzError::StreamFooterMagic);
    }
    let stored = u32::from_le_bytes([buf[0], buf[1], buf[2], buf[3]]);
    let computed = crc32fast::hash(&buf[4..10]);
    if stored != computed {
        return Err(XzError::StreamFooterCrc { stored, computed });
    }
    let flags = StreamFlags::decode([buf[8], buf[9]])?;
    let backward = u32::from_le_bytes([buf[4], buf[5], buf[6], buf[7]]);
    Ok((flags, (u64::from(backward) + 1) * 4))
}

/// Serializes a Stream Header.
pub(crate) fn encode_header(flags: StreamFlags) -> [u8; STREAM_HEADER_SIZE] {
    let mut buf = [0; STREAM_HEADER_SIZE];
    buf[..6].copy_from_slice(&HEADER_MAGIC);
    buf[6..8].copy_from_slice(&flags.encode());
    let crc = crc32fast::hash(&buf[6..8]);
    buf[8..].copy_from_slice(&crc.to_le_bytes());
    buf
}

/// Serializes a Stream Footer for an Index of `index_size` bytes (a multiple
/// of four, at most 2^34).
pub(crate) fn encode_footer(flags: StreamFlags, index_size: u64) -> [u8; STREAM_HEADER_SIZE] {
    debug_assert!(index_size.is_multiple_of(4) && (4..=BACKWARD_SIZE_MAX).contains(&index_size));
    let mut buf = [0; STREAM_HEADER_SIZE];
    buf[4..8].copy_from_slice(&((index_size / 4 - 1) as u32).to_le_bytes());
    buf[8..10].copy_from_slice(&flags.encode());
    let crc = crc32fast::hash(&buf[4..10]);
    buf[..4].copy_from_slice(&crc.to_le_bytes());
    buf[10..].copy_from_slice(&FOOTER_MAGIC);
    buf
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn header_matches_xz_utils_bytes() {
        // The header and footer of good-0-empty.xz (CRC32, 8-byte Index).
        let flags = StreamFlags::new(Check::Crc32);
        let header = encode_header(flags);
        assert_eq!(
            header,
            [0xFD, 0x37, 0x7A, 0x58, 0x5A, 0x00, 0x00, 0x01, 0x69, 0x22, 0xDE, 0x36]
        );
        assert_eq!(decode_header(&header).unwrap().check(), Some(Check::Crc32));
        let footer = encode_footer(flags, 8);
        assert_eq!(
            footer,
            [0x90, 0x42, 0x99, 0x0D, 0x01, 0x00, 0x00, 0x00, 0x00, 0x01, 0x59, 0x5A]
        );
    }

    #[test]
    fn footer_round_trips_and_rejects() {
        let flags = StreamFlags::new(Check::Sha256);
        let mut footer = encode_footer(flags, 16);
        assert_eq!(decode_footer(&footer).unwrap(), (flags, 16));
        footer[10] = b'Z';
        assert!(matches!(
            decode_footer(&footer),
            Err(XzError::StreamFooterMagic)
        ));
        let mut footer = encode_footer(flags, 16);
        footer[5] ^= 1;
        assert!(matches!(
            decode_footer(&footer),
            Err(XzError::StreamFooterCrc { .. })
        ));
    }

    #[test]
    fn reserved_bits_are_unsupported() {
        let mut header = encode_header(StreamFlags::new(Check::None));
        header[7] = 0x10;
        let crc = crc32fast::hash(&header[6..8]);
        header[8..].copy_from_slice(&crc.to_le_bytes());
        assert!(matches!(
            decode_header(&header),
            Err(XzError::UnsupportedStreamFlags { flags: [0, 0x10] })
        ));
        let mut bad_crc = encode_header(StreamFlags::new(Check::None));
        bad_crc[8] ^= 0xFF;
        assert!(matches!(
            decode_header(&bad_crc),
            Err(XzError::StreamHeaderCrc { .. })
        ));
    }
}
