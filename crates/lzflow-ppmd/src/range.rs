//! The range coder of 7z's PPMd (the one LZMA uses): 32-bit range and
//! code, normalisation a byte at a time below 2^24, carries propagated
//! through a cached byte on the encoder side.

const TOP: u32 = 1 << 24;

/// Where the decoder reads its bytes: first the bytes it held back from
/// earlier calls, then the caller's input. Reading past both sets
/// `overrun` (and yields 0, as 7-Zip's byte reader does); the caller
/// decides whether that is truncation.
pub(crate) struct Source<'a> {
    held: &'a [u8],
    held_pos: usize,
    input: &'a [u8],
    input_pos: usize,
    pub(crate) overrun: bool,
}

impl<'a> Source<'a> {
    pub(crate) fn new(held: &'a [u8], input: &'a [u8]) -> Self {
        Source {
            held,
            held_pos: 0,
            input,
            input_pos: 0,
            overrun: false,
        }
    }

    #[inline]
    pub(crate) fn next(&mut self) -> u32 {
        if let Some(&b) = self.held.get(self.held_pos) {
            self.held_pos += 1;
            u32::from(b)
        } else if let Some(&b) = self.input.get(self.input_pos) {
            self.input_pos += 1;
            u32::from(b)
        } else {
            self.overrun = true;
            0
        }
    }

    /// Bytes not read yet.
    pub(crate) fn available(&self) -> usize {
        self.held.len() - self.held_pos + self.input.len() - self.input_pos
    }

    /// Bytes read from the held bytes and from the input.
    pub(crate) fn used(&self) -> (usize, usize) {
        (self.held_pos, self.input_pos)
    }
}

/// The decoder's half.
#[derive(Debug, Clone, Copy)]
pub(crate) struct RangeDecoder {
    pub(crate) range: u32,
    pub(crate) code: u32,
}

impl RangeDecoder {
    /// From the five init bytes; `None` when they cannot start a stream
    /// (the first byte must be 0 and the code below 0xFFFF_FFFF).
    pub(crate) fn new(init: [u8; 5]) -> Option<Self> {
        let code = u32::from_be_bytes([init[1], init[2], init[3], init[4]]);
        (init[0] == 0 && code != u32::MAX).then_some(RangeDecoder {
            range: u32::MAX,
            code,
        })
    }

    /// Scales the range to `total` and returns the count the code is at.
    #[inline]
    pub(crate) fn threshold(&mut self, total: u32) -> u32 {
        self.range /= total;
        self.code / self.range
    }

    /// Narrows to `[start, start + size)` of the scaled range (no
    /// normalisation: 7z's PPMd normalises at fixed points).
    #[inline]
    pub(crate) fn decode(&mut self, start: u32, size: u32) {
        self.code = self.code.wrapping_sub(start.wrapping_mul(self.range));
        self.range = self.range.wrapping_mul(size);
    }

    /// Up to two bytes, until the range is at least 2^24 again.
    #[inline]
    pub(crate) fn normalize(&mut self, src: &mut Source<'_>) {
        if self.range < TOP {
            self.code = (self.code << 8) | src.next();
            self.range <<= 8;
            if self.range < TOP {
                self.code = (self.code << 8) | src.next();
                self.range <<= 8;
            }
        }
    }

    /// One byte at most: enough after a binary context's hit, whose
    /// probability is never below 2^-8 of the range.
    #[inline]
    pub(crate) fn normalize1(&mut self, src: &mut Source<'_>) {
        if self.range < TOP {
            self.code = (self.code << 8) | src.next();
            self.range <<= 8;
        }
    }
}

/// The encoder's half; bytes go to `out`, which its owner drains.
#[derive(Debug)]
pub(crate) struct RangeEncoder {
    low: u64,
    pub(crate) range: u32,
    cache: u8,
    cache_size: u64,
    pub(crate) out: Vec<u8>,
}

impl RangeEncoder {
    pub(crate) fn new() -> Self {
        RangeEncoder {
            low: 0,
            range: u32::MAX,
            cache: 0,
            cache_size: 1,
            out: Vec::with_capacity(1 << 13),
        }
    }

    /// Moves the top byte of `low` out, holding back 0xFF runs until it
    /// is known whether a carry will reach them.
    fn shift_low(&mut self) {
        let low = self.low as u32;
        let carry = (self.low >> 32) as u8;
        if low < 0xFF00_0000 || carry != 0 {
            let mut temp = self.cache;
            loop {
                self.out.push(temp.wrapping_add(carry));
                temp = 0xFF;
                self.cache_size -= 1;
                if self.cache_size == 0 {
                    break;
                }
            }
            self.cache = (low >> 24) as u8;
        }
        self.cache_size += 1;
        self.low = u64::from(low << 8);
    }

    #[inline]
    pub(crate) fn encode(&mut self, start: u32, size: u32) {
        self.low += u64::from(start.wrapping_mul(self.range));
        self.range = self.range.wrapping_mul(size);
    }

    /// A binary context's escape: the part above `bound`.
    #[inline]
    pub(crate) fn encode_above(&mut self, bound: u32) {
        self.low += u64::from(bound);
        self.range -= bound;
    }

    #[inline]
    pub(crate) fn normalize(&mut self) {
        if self.range < TOP {
            self.range <<= 8;
            self.shift_low();
            if self.range < TOP {
                self.range <<= 8;
                self.shift_low();
            }
        }
    }

    #[inline]
    pub(crate) fn normalize1(&mut self) {
        if self.range < TOP {
            self.range <<= 8;
            self.shift_low();
        }
    }

    /// The last bytes: enough of `low` to pin the code inside the range.
    pub(crate) fn flush(&mut self) {
        for _ in 0..5 {
            self.shift_low();
        }
    }
}
