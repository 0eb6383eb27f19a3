//! Field reads for the APPNOTE records, which store every number low byte
//! first (APPNOTE 4.4.1.1). Every read is bounds-checked and answers
//! `None` past the end, so no record parser indexes out of range.

use crate::ZipError;

/// A cursor over a record's fields, read in order.
#[derive(Debug, Clone)]
pub(crate) struct FieldReader<'a> {
    bytes: &'a [u8],
    pos: usize,
}

impl<'a> FieldReader<'a> {
    /// Starts at the first byte of `bytes`.
    pub(crate) fn new(bytes: &'a [u8]) -> Self {
        FieldReader { bytes, pos: 0 }
    }

    /// The next `n` bytes, or `None` (and no move) when fewer are left.
    pub(crate) fn take(&mut self, n: usize) -> Option<&'a [u8]> {
        let end = self.pos.checked_add(n)?;
        let taken = self.bytes.get(self.pos..end)?;
        self.pos = end;
        Some(taken)
    }

    /// The next `N` bytes as an array.
    fn array<const N: usize>(&mut self) -> Option<[u8; N]> {
        self.take(N).and_then(|b| b.try_into().ok())
    }

    /// The next byte.
    pub(crate) fn u8(&mut self) -> Option<u8> {
        self.array::<1>().map(|[b]| b)
    }

    /// The next 16-bit field.
    pub(crate) fn u16(&mut self) -> Option<u16> {
        self.array().map(u16::from_le_bytes)
    }

    /// The next 32-bit field.
    pub(crate) fn u32(&mut self) -> Option<u32> {
        self.array().map(u32::from_le_bytes)
    }

    /// The next 64-bit field.
    pub(crate) fn u64(&mut self) -> Option<u64> {
        self.array().map(u64::from_le_bytes)
    }

    /// Reads a record's 32-bit signature: `Truncated` when the bytes end
    /// first, `mismatch()` when it is another.
    pub(crate) fn signature(
        &mut self,
        want: u32,
        mismatch: impl FnOnce() -> ZipError,
    ) -> Result<(), ZipError> {
        match self.u32() {
            Some(got) if got == want => Ok(()),
            Some(_) => Err(mismatch()),
            None => Err(ZipError::Truncated),
        }
    }

    /// The bytes not read yet.
    pub(crate) fn rest(&self) -> &'a [u8] {
        self.bytes.get(self.pos..).unwrap_or(&[])
    }
}

/// The 16-bit field at `pos`.
#[inline]
pub(crate) fn u16_at(bytes: &[u8], pos: usize) -> Option<u16> {
    let end = pos.checked_add(2)?;
    bytes.get(pos..end)?.try_into().ok().map(u16::from_le_bytes)
}

/// The 32-bit field at `pos`.
#[inline]
pub(crate) fn u32_at(bytes: &[u8], pos: usize) -> Option<u32> {
    let end = pos.checked_add(4)?;
    bytes.get(pos..end)?.try_into().ok().map(u32::from_le_bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_stop_at_the_end() {
        let bytes = [1, 2, 3, 4, 5, 6, 7];
        let mut r = FieldReader::new(&bytes);
        assert_eq!(r.u8(), Some(1));
        assert_eq!(r.u16(), Some(0x0302));
        assert_eq!(r.u64(), None);
        assert_eq!(r.u32(), Some(0x0706_0504));
        assert_eq!(r.u8(), None);
        assert!(r.rest().is_empty());
        assert_eq!(u16_at(&bytes, 6), None);
        assert_eq!(u32_at(&bytes, 3), Some(0x0706_0504));
        assert_eq!(u32_at(&bytes, usize::MAX), None);
    }
}
