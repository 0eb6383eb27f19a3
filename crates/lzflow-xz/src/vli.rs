//! Variable-length integers (spec section 1.2): seven bits per byte, least
//! significant first, high bit set on every byte but the last, at most nine
//! bytes, no superfluous trailing zero byte.

/// Largest value a VLI can hold (2^63 - 1).
pub const VLI_MAX: u64 = u64::MAX / 2;

/// Most bytes one VLI may take.
pub const VLI_BYTES_MAX: usize = 9;

/// Why a VLI could not be read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum VliError {
    /// The bytes ended before the last byte of the integer.
    Incomplete,
    /// More than nine bytes, or a non-minimal encoding (trailing 0x00).
    Invalid,
}

/// Reads one VLI from the start of `buf`; returns the value and its length.
pub(crate) fn decode(buf: &[u8]) -> Result<(u64, usize), VliError> {
    let mut reader = VliReader::default();
    for (i, &b) in buf.iter().enumerate() {
        if let Some(v) = reader.push(b)? {
            return Ok((v, i + 1));
        }
    }
    Err(VliError::Incomplete)
}

/// Appends the encoding of `value` (which must be at most [`VLI_MAX`]).
pub(crate) fn encode(mut value: u64, out: &mut Vec<u8>) {
    debug_assert!(value <= VLI_MAX);
    while value >= 0x80 {
        out.push((value as u8) | 0x80);
        value >>= 7;
    }
    out.push(value as u8);
}

/// Number of bytes [`encode`] writes for `value`.
pub(crate) fn encoded_len(value: u64) -> usize {
    let bits = 64 - (value | 1).leading_zeros() as usize;
    bits.div_ceil(7)
}

/// Byte-at-a-time VLI reader, for fields that may be split across inputs.
#[derive(Debug, Default, Clone, Copy)]
pub(crate) struct VliReader {
    value: u64,
    len: usize,
}

impl VliReader {
    /// Feeds one byte; returns the value once its last byte has been seen.
    pub(crate) fn push(&mut self, byte: u8) -> Result<Option<u64>, VliError> {
        if self.len == VLI_BYTES_MAX {
            return Err(VliError::Invalid);
        }
        self.value |= u64::from(byte & 0x7F) << (7 * self.len);
        self.len += 1;
        if byte & 0x80 != 0 {
            return if self.len == VLI_BYTES_MAX {
                // The ninth byte must be the last one.
                Err(VliError::Invalid)
            } else {
                Ok(None)
            };
        }
        // A zero final byte after others means the encoding was not minimal.
        if byte == 0 && self.len > 1 {
            return Err(VliError::Invalid);
        }
        let value = self.value;
        *self = VliReader::default();
        Ok(Some(value))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_boundaries() {
        for v in [0, 1, 0x7F, 0x80, 0x3FFF, 0x4000, 1 << 56, VLI_MAX] {
            let mut buf = Vec::new();
            encode(v, &mut buf);
            assert_eq!(buf.len(), encoded_len(v), "length of {v}");
            assert_eq!(decode(&buf), Ok((v, buf.len())));
        }
        let mut buf = Vec::new();
        encode(VLI_MAX, &mut buf);
        assert_eq!(buf, [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x7F]);
    }

    #[test]
    fn rejects_bad_encodings() {
        // 1 encoded in two bytes.
        assert_eq!(decode(&[0x81, 0x00]), Err(VliError::Invalid));
        // Ten bytes.
        assert_eq!(decode(&[0xFF; 10]), Err(VliError::Invalid));
        // Nine bytes with the continuation bit on the last one.
        assert_eq!(decode(&[0x80; 9]), Err(VliError::Invalid));
        assert_eq!(decode(&[0x80, 0x80]), Err(VliError::Incomplete));
        assert_eq!(decode(&[]), Err(VliError::Incomplete));
        // A lone zero is fine.
        assert_eq!(decode(&[0x00, 0xAA]), Ok((0, 1)));
    }
}
