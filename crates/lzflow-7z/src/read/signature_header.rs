//! The 32-byte signature header at the start of every 7z archive.

use crate::SevenZError;

/// The six signature bytes `'7' 'z' BC AF 27 1C`.
pub const SIGNATURE: [u8; 6] = [b'7', b'z', 0xBC, 0xAF, 0x27, 0x1C];

/// Size of the signature header; pack positions count from its end.
pub const SIGNATURE_HEADER_SIZE: u64 = 32;

/// The start header: where the (next) header lies and its CRC.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SignatureHeader {
    /// Format major version (0).
    pub major: u8,
    /// Format minor version (2 to 4 in the wild).
    pub minor: u8,
    /// Offset of the header, counted from the end of the signature header.
    pub next_header_offset: u64,
    /// Size of the header in bytes.
    pub next_header_size: u64,
    /// CRC32 of the header bytes.
    pub next_header_crc: u32,
}

impl SignatureHeader {
    /// Parses and verifies the 32 bytes at the start of an archive.
    pub fn parse(bytes: &[u8; 32]) -> Result<Self, SevenZError> {
        if bytes[..6] != SIGNATURE {
            return Err(SevenZError::NotSevenZ);
        }
        let (major, minor) = (bytes[6], bytes[7]);
        if major != 0 {
            return Err(SevenZError::UnsupportedVersion { major, minor });
        }
        let stored_crc = u32::from_le_bytes([bytes[8], bytes[9], bytes[10], bytes[11]]);
        if crc32fast::hash(&bytes[12..32]) != stored_crc {
            return Err(SevenZError::HeaderCrc);
        }
        let le64 = |at: usize| {
            let mut a = [0u8; 8];
            a.copy_from_slice(&bytes[at..at + 8]);
            u64::from_le_bytes(a)
        };
        Ok(SignatureHeader {
            major,
            minor,
            next_header_offset: le64(12),
            next_header_size: le64(20),
            next_header_crc: u32::from_le_bytes([bytes[28], bytes[29], bytes[30], bytes[31]]),
        })
    }

    /// Absolute file offset of the header, or an error when it overflows.
    pub fn header_position(&self) -> Result<u64, SevenZError> {
        SIGNATURE_HEADER_SIZE
            .checked_add(self.next_header_offset)
            .and_then(|p| p.checked_add(self.next_header_size).map(|_| p))
            .ok_or_else(|| SevenZError::corrupt("header offset out of range"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn make(offset: u64, size: u64, crc: u32) -> [u8; 32] {
        let mut b = [0u8; 32];
        b[..6].copy_from_slice(&SIGNATURE);
        b[7] = 4;
        b[12..20].copy_from_slice(&offset.to_le_bytes());
        b[20..28].copy_from_slice(&size.to_le_bytes());
        b[28..32].copy_from_slice(&crc.to_le_bytes());
        let c = crc32fast::hash(&b[12..32]);
        b[8..12].copy_from_slice(&c.to_le_bytes());
        b
    }

    #[test]
    fn parses_and_checks_crc() {
        let b = make(100, 20, 0xDEADBEEF);
        let h = SignatureHeader::parse(&b).unwrap();
        assert_eq!((h.next_header_offset, h.next_header_size), (100, 20));
        assert_eq!(h.next_header_crc, 0xDEADBEEF);
        assert_eq!(h.header_position().unwrap(), 132);
        let mut bad = b;
        bad[13] ^= 1;
        assert!(matches!(
            SignatureHeader::parse(&bad),
            Err(SevenZError::HeaderCrc)
        ));
        bad = b;
        bad[0] = b'8';
        assert!(matches!(
            SignatureHeader::parse(&bad),
            Err(SevenZError::NotSevenZ)
        ));
        let huge = make(u64::MAX - 10, 20, 0);
        assert!(SignatureHeader::parse(&huge)
            .unwrap()
            .header_position()
            .is_err());
    }
}
