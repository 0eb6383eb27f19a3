//! Input and output cursors over caller-owned slices.

/// Input handed to a coder: a slice, how much of it was consumed, and whether
/// it is the last input the coder will ever see.
///
/// A coder advances the cursor past every byte it has taken responsibility
/// for; bytes it has not consumed must be offered again on the next call.
#[derive(Debug)]
pub struct InBuf<'a> {
    data: &'a [u8],
    pos: usize,
    last: bool,
}

impl<'a> InBuf<'a> {
    /// Input that may be followed by more input in a later call.
    pub fn new(data: &'a [u8]) -> Self {
        InBuf {
            data,
            pos: 0,
            last: false,
        }
    }

    /// Input after which no more will come (end of file).
    pub fn last(data: &'a [u8]) -> Self {
        InBuf {
            data,
            pos: 0,
            last: true,
        }
    }

    /// Sets whether this is the final input.
    pub fn with_last(mut self, last: bool) -> Self {
        self.last = last;
        self
    }

    /// True when no input follows what this buffer holds.
    pub fn is_last(&self) -> bool {
        self.last
    }

    /// The bytes not consumed yet.
    pub fn remaining(&self) -> &'a [u8] {
        &self.data[self.pos..]
    }

    /// Number of bytes not consumed yet.
    pub fn len(&self) -> usize {
        self.data.len() - self.pos
    }

    /// True when every byte has been consumed.
    pub fn is_empty(&self) -> bool {
        self.pos == self.data.len()
    }

    /// Number of bytes consumed so far.
    pub fn pos(&self) -> usize {
        self.pos
    }

    /// Marks `n` more bytes as consumed.
    ///
    /// # Panics
    /// If `n` exceeds [`len`](Self::len); that is a bug in the coder.
    pub fn advance(&mut self, n: usize) {
        assert!(n <= self.len(), "InBuf::advance past the end");
        self.pos += n;
    }

    /// Consumes and returns up to `n` bytes.
    pub fn take(&mut self, n: usize) -> &'a [u8] {
        let n = n.min(self.len());
        let out = &self.data[self.pos..self.pos + n];
        self.pos += n;
        out
    }

    /// Consumes and returns one byte, if there is one.
    pub fn take_byte(&mut self) -> Option<u8> {
        let b = *self.data.get(self.pos)?;
        self.pos += 1;
        Some(b)
    }
}

/// Output space handed to a coder: a mutable slice and how much of it holds
/// produced bytes.
#[derive(Debug)]
pub struct OutBuf<'a> {
    data: &'a mut [u8],
    pos: usize,
}

impl<'a> OutBuf<'a> {
    /// Output space starting empty.
    pub fn new(data: &'a mut [u8]) -> Self {
        OutBuf { data, pos: 0 }
    }

    /// Number of bytes produced so far.
    pub fn pos(&self) -> usize {
        self.pos
    }

    /// The bytes produced so far.
    pub fn written(&self) -> &[u8] {
        &self.data[..self.pos]
    }

    /// Room left.
    pub fn available(&self) -> usize {
        self.data.len() - self.pos
    }

    /// True when there is no room left.
    pub fn is_full(&self) -> bool {
        self.pos == self.data.len()
    }

    /// The unwritten part, for a coder that writes in place and then calls
    /// [`advance`](Self::advance).
    pub fn spare_mut(&mut self) -> &mut [u8] {
        &mut self.data[self.pos..]
    }

    /// The whole slice and the produced count, for coders that transform
    /// produced bytes in place (filters).
    pub fn parts_mut(&mut self) -> (&mut [u8], usize) {
        (self.data, self.pos)
    }

    /// Marks `n` more bytes as produced.
    ///
    /// # Panics
    /// If `n` exceeds [`available`](Self::available).
    pub fn advance(&mut self, n: usize) {
        assert!(n <= self.available(), "OutBuf::advance past the end");
        self.pos += n;
    }

    /// Un-produces the last `n` bytes (a filter holding back an unfinished
    /// tail).
    ///
    /// # Panics
    /// If `n` exceeds [`pos`](Self::pos).
    pub fn retreat(&mut self, n: usize) {
        assert!(n <= self.pos, "OutBuf::retreat before the start");
        self.pos -= n;
    }

    /// Copies as much of `src` as fits; returns how many bytes were copied.
    pub fn push(&mut self, src: &[u8]) -> usize {
        let n = src.len().min(self.available());
        self.data[self.pos..self.pos + n].copy_from_slice(&src[..n]);
        self.pos += n;
        n
    }

    /// Appends one byte; returns false when there is no room.
    pub fn push_byte(&mut self, b: u8) -> bool {
        if self.is_full() {
            return false;
        }
        self.data[self.pos] = b;
        self.pos += 1;
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cursors_track_positions() {
        let data = [1u8, 2, 3, 4];
        let mut input = InBuf::new(&data);
        assert_eq!(input.take(3), &[1, 2, 3]);
        assert_eq!(input.take_byte(), Some(4));
        assert_eq!(input.take_byte(), None);
        assert!(input.is_empty() && !input.is_last());

        let mut space = [0u8; 3];
        let mut out = OutBuf::new(&mut space);
        assert_eq!(out.push(&data), 3);
        assert!(!out.push_byte(9));
        out.retreat(1);
        assert!(out.push_byte(9));
        assert_eq!(out.written(), &[1, 2, 9]);
    }
}
