//! A cursor over header bytes with the 7z number encodings.
//!
//! Every read is bounds-checked; running off the end is a corrupt header
//! (the header's size and CRC were already verified, so it cannot be a
//! truncated file).

use crate::SevenZError;

pub(crate) struct ByteReader<'a> {
    data: &'a [u8],
    pos: usize,
}

fn short() -> SevenZError {
    SevenZError::corrupt("header record ends early")
}

impl<'a> ByteReader<'a> {
    pub(crate) fn new(data: &'a [u8]) -> Self {
        ByteReader { data, pos: 0 }
    }

    pub(crate) fn remaining(&self) -> usize {
        self.data.len() - self.pos
    }

    pub(crate) fn byte(&mut self) -> Result<u8, SevenZError> {
        let b = *self.data.get(self.pos).ok_or_else(short)?;
        self.pos += 1;
        Ok(b)
    }

    pub(crate) fn bytes(&mut self, n: u64) -> Result<&'a [u8], SevenZError> {
        if n > self.remaining() as u64 {
            return Err(short());
        }
        let n = n as usize;
        let out = &self.data[self.pos..self.pos + n];
        self.pos += n;
        Ok(out)
    }

    pub(crate) fn u32_le(&mut self) -> Result<u32, SevenZError> {
        let b = self.bytes(4)?;
        Ok(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }

    pub(crate) fn u64_le(&mut self) -> Result<u64, SevenZError> {
        let b = self.bytes(8)?;
        let mut a = [0u8; 8];
        a.copy_from_slice(b);
        Ok(u64::from_le_bytes(a))
    }

    /// The 7z variable-length UINT64: the count of leading one bits in the
    /// first byte is the number of extra little-endian bytes; the first
    /// byte's remaining bits are the most significant ones.
    pub(crate) fn number(&mut self) -> Result<u64, SevenZError> {
        let first = self.byte()?;
        let extra = first.leading_ones() as usize;
        let mut value: u64 = 0;
        for i in 0..extra {
            value |= u64::from(self.byte()?) << (8 * i);
        }
        if extra < 7 {
            let high = u64::from(first) & ((0x80u64 >> extra) - 1);
            value |= high << (8 * extra);
        }
        Ok(value)
    }

    /// A property ID. IDs are NUMBERs (7-Zip reads them so); one above
    /// 0xFF names no property and reads as 0xFF, unknown as well.
    pub(crate) fn id(&mut self) -> Result<u8, SevenZError> {
        Ok(u8::try_from(self.number()?).unwrap_or(0xFF))
    }

    /// Skips a property of unknown meaning: its size, then that many
    /// bytes.
    pub(crate) fn skip_data(&mut self) -> Result<(), SevenZError> {
        let n = self.number()?;
        self.bytes(n).map(drop)
    }

    /// Reads up to the property `id`, skipping unknown ones on the way as
    /// 7-Zip does; `kEnd` first is an error.
    pub(crate) fn wait_id(&mut self, id: u8, what: &str) -> Result<(), SevenZError> {
        loop {
            match self.id()? {
                got if got == id => return Ok(()),
                crate::read::property_id::END => {
                    return Err(SevenZError::corrupt(format!(
                        "{what} (0x{id:02x}) is missing"
                    )))
                }
                _ => self.skip_data()?,
            }
        }
    }

    /// A count of items that each take at least one header byte, so it can
    /// never exceed what is left: this bounds every allocation by the
    /// header's size.
    pub(crate) fn count(&mut self, what: &str) -> Result<usize, SevenZError> {
        let n = self.number()?;
        if n > self.remaining() as u64 {
            return Err(SevenZError::corrupt(format!(
                "{what} count {n} exceeds the header size"
            )));
        }
        Ok(n as usize)
    }

    /// A count known to be small (coder streams): at most `max`.
    pub(crate) fn small(&mut self, max: u64, what: &str) -> Result<usize, SevenZError> {
        let n = self.number()?;
        if n > max {
            return Err(SevenZError::corrupt(format!("{what} {n} is out of range")));
        }
        Ok(n as usize)
    }

    /// `n` bits, most significant bit of each byte first.
    pub(crate) fn bits(&mut self, n: usize) -> Result<Vec<bool>, SevenZError> {
        let bytes = self.bytes(n.div_ceil(8) as u64)?;
        Ok((0..n)
            .map(|i| bytes[i / 8] & (0x80 >> (i % 8)) != 0)
            .collect())
    }

    /// An "AllAreDefined" byte followed, when zero, by a bit vector.
    pub(crate) fn defined(&mut self, n: usize) -> Result<Vec<bool>, SevenZError> {
        if self.byte()? != 0 {
            Ok(vec![true; n])
        } else {
            self.bits(n)
        }
    }

    /// Digests(n): a defined vector then one CRC32 per defined stream.
    pub(crate) fn digests(&mut self, n: usize) -> Result<Vec<Option<u32>>, SevenZError> {
        let defined = self.defined(n)?;
        defined
            .into_iter()
            .map(|d| if d { self.u32_le().map(Some) } else { Ok(None) })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_decode_every_length() {
        let cases: &[(&[u8], u64)] = &[
            (&[0x7F], 0x7F),
            (&[0x80, 0x80], 0x80),
            (&[0xBF, 0xFF], 0x3FFF),
            (&[0xC1, 0x34, 0x12], 0x011234),
            (&[0xFE, 1, 2, 3, 4, 5, 6, 7], 0x07060504030201),
            (&[0xFF, 1, 2, 3, 4, 5, 6, 7, 8], 0x0807060504030201),
        ];
        for (bytes, want) in cases {
            assert_eq!(ByteReader::new(bytes).number().unwrap(), *want, "{bytes:?}");
        }
        assert!(matches!(
            ByteReader::new(&[0xC1, 0x34]).number(),
            Err(SevenZError::Corrupt(_))
        ));
    }

    #[test]
    fn counts_are_bounded_by_remaining_bytes() {
        assert!(ByteReader::new(&[0x05, 0, 0, 0]).count("files").is_err());
        assert_eq!(ByteReader::new(&[0x03, 0, 0, 0]).count("files").unwrap(), 3);
    }

    #[test]
    fn bits_are_msb_first() {
        let mut r = ByteReader::new(&[0b1010_0000, 0b1000_0000]);
        assert_eq!(
            r.bits(9).unwrap(),
            [true, false, true, false, false, false, false, false, true]
        );
    }
}
