//! The data descriptor (APPNOTE 4.3.9): CRC-32 and sizes after an entry's
//! data, for writers that could not seek back to the local header (flag
//! bit 3). The signature `PK\x07\x08` before it is optional, and the sizes
//! are 8 bytes each when the entry is Zip64 (its local header has a Zip64
//! extra field), else 4.

use super::little_endian::FieldReader;
use crate::ZipError;

/// A data descriptor's values.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DataDescriptor {
    /// CRC-32 of the uncompressed data (0 for WinZip AE-2).
    pub crc32: u32,
    /// The compressed size.
    pub compressed_size: u64,
    /// The uncompressed size.
    pub uncompressed_size: u64,
}

impl DataDescriptor {
    /// `PK\x07\x08`, the optional signature.
    pub const SIGNATURE: u32 = 0x0807_4b50;

    /// The encoded length: 12 bytes, 4 more with the signature, 8 more
    /// with 8-byte sizes.
    pub const fn encoded_len(signature: bool, zip64: bool) -> usize {
        let sizes = if zip64 { 16 } else { 8 };
        if signature {
            8 + sizes
        } else {
            4 + sizes
        }
    }

    /// Reads the descriptor at the start of `bytes`, with 8-byte sizes if
    /// `zip64`; returns it and its encoded length. Leading `PK\x07\x08` is
    /// taken as the signature: a CRC-32 of that value is read wrongly here
    /// (once in 2^32), which [`recognize`](Self::recognize) avoids when
    /// the CRC is known.
    pub fn parse(bytes: &[u8], zip64: bool) -> Result<(Self, usize), ZipError> {
        let signature = FieldReader::new(bytes).u32() == Some(Self::SIGNATURE);
        Self::parse_as(bytes, signature, zip64)
            .map(|d| (d, Self::encoded_len(signature, zip64)))
            .ok_or(ZipError::Truncated)
    }

    fn parse_as(bytes: &[u8], signature: bool, zip64: bool) -> Option<Self> {
        let mut r = FieldReader::new(bytes);
        if signature {
            r.take(4)?;
        }
        let crc32 = r.u32()?;
        let (compressed_size, uncompressed_size) = if zip64 {
            (r.u64()?, r.u64()?)
        } else {
            (u64::from(r.u32()?), u64::from(r.u32()?))
        };
        Some(DataDescriptor {
            crc32,
            compressed_size,
            uncompressed_size,
        })
    }

    /// Whether `bytes` start with a descriptor (with or without its
    /// signature) holding exactly `expected`; its encoded length if so.
    ///
    /// For a forward-only reader of a Stored entry with flag bit 3, whose
    /// data length nothing gives: at each candidate end of the data it
    /// checks the bytes after against the CRC-32 and size of the data so
    /// far (for Stored data, both sizes are that size).
    pub fn recognize(bytes: &[u8], zip64: bool, expected: &DataDescriptor) -> Option<usize> {
        [true, false].into_iter().find_map(|signature| {
            if signature && FieldReader::new(bytes).u32() != Some(Self::SIGNATURE) {
                return None;
            }
            (Self::parse_as(bytes, signature, zip64)? == *expected)
                .then_some(Self::encoded_len(signature, zip64))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn encode(d: &DataDescriptor, signature: bool, zip64: bool) -> Vec<u8> {
        let mut out = Vec::new();
        if signature {
            out.extend_from_slice(&DataDescriptor::SIGNATURE.to_le_bytes());
        }
        out.extend_from_slice(&d.crc32.to_le_bytes());
        if zip64 {
            out.extend_from_slice(&d.compressed_size.to_le_bytes());
            out.extend_from_slice(&d.uncompressed_size.to_le_bytes());
        } else {
            out.extend_from_slice(&(d.compressed_size as u32).to_le_bytes());
            out.extend_from_slice(&(d.uncompressed_size as u32).to_le_bytes());
        }
        out
    }

    const D: DataDescriptor = DataDescriptor {
        crc32: 0xD638_9BD6,
        compressed_size: 14,
        uncompressed_size: 12,
    };

    #[test]
    fn all_four_forms() {
        for signature in [false, true] {
            for zip64 in [false, true] {
                let mut bytes = encode(&D, signature, zip64);
                let len = bytes.len();
                assert_eq!(len, DataDescriptor::encoded_len(signature, zip64));
                bytes.extend_from_slice(b"PK\x03\x04 next header");
                assert_eq!(DataDescriptor::parse(&bytes, zip64).unwrap(), (D, len));
                assert_eq!(DataDescriptor::recognize(&bytes, zip64, &D), Some(len));
                for short in 0..len {
                    assert!(matches!(
                        DataDescriptor::parse(&bytes[..short], zip64),
                        Err(ZipError::Truncated)
                    ));
                    assert_eq!(DataDescriptor::recognize(&bytes[..short], zip64, &D), None);
                }
            }
        }
    }

    #[test]
    fn recognize_stored_data_end() {
        let data = b"stored bytes";
        let d = DataDescriptor {
            crc32: crc32fast::hash(data),
            compressed_size: 12,
            uncompressed_size: 12,
        };
        let after = encode(&d, true, false);
        assert_eq!(DataDescriptor::recognize(&after, false, &d), Some(16));
        let other = DataDescriptor {
            compressed_size: 11,
            uncompressed_size: 11,
            ..d
        };
        assert_eq!(DataDescriptor::recognize(&after, false, &other), None);
        assert_eq!(DataDescriptor::recognize(&after, true, &d), None);
        // Empty stored entry: the empty descriptor right after the header.
        let empty = DataDescriptor {
            crc32: 0,
            compressed_size: 0,
            uncompressed_size: 0,
        };
        let bytes = [b'P', b'K', 7, 8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0];
        assert_eq!(DataDescriptor::recognize(&bytes, false, &empty), Some(16));
    }

    #[test]
    fn a_crc_equal_to_the_signature() {
        let d = DataDescriptor {
            crc32: DataDescriptor::SIGNATURE,
            compressed_size: 3,
            uncompressed_size: 3,
        };
        let bytes = encode(&d, false, false);
        // Read as signature + CRC 3 + ... by `parse`; `recognize` knows better.
        assert_eq!(DataDescriptor::recognize(&bytes, false, &d), Some(12));
    }
}
