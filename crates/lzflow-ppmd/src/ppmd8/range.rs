//! The range coder of PPMd var. I: Dmitry Subbotin's carryless coder.
//!
//! Unlike 7z's coder (`crate::range`) it never propagates a carry: when
//! the range gets small while its ends still differ in the top byte, the
//! range is cut down to the part below the next multiple of 2^15, so that
//! the top byte of `low` is settled and can go out.

use crate::range::Source;

/// Below this, the top byte of the range's ends may be shifted out.
const TOP: u32 = 1 << 24;
/// The smallest range after normalisation.
const BOT: u32 = 1 << 15;
/// Most bytes one normalisation moves (see `normalize`).
pub(crate) const MAX_NORM_BYTES: usize = 4;

/// Whether a normalisation step is due, cutting the range if it must.
///
/// `low + range` never passes 2^32 (both sides keep every interval inside
/// the previous one), so the loop ends after at most 4 steps: a cut can
/// only come in the first two (later `low` has 16 low zero bits and the
/// cut would be empty), and a range of 2^16 or more reaches 2^24 in one
/// more step, after which the ends differ in the top byte.
#[inline(always)]
fn norm_step(low: u32, range: &mut u32) -> bool {
    if (low ^ low.wrapping_add(*range)) < TOP {
        return true;
    }
    if *range < BOT {
        *range = low.wrapping_neg() & (BOT - 1);
        return true;
    }
    false
}

/// The decoder's half.
#[derive(Debug, Clone, Copy)]
pub(crate) struct RangeDecoder {
    pub(crate) range: u32,
    pub(crate) code: u32,
    low: u32,
}

impl RangeDecoder {
    /// From the four init bytes; `None` when they cannot start a stream.
    pub(crate) fn new(init: [u8; 4]) -> Option<Self> {
        let code = u32::from_be_bytes(init);
        (code != u32::MAX).then_some(RangeDecoder {
            range: u32::MAX,
            code,
            low: 0,
        })
    }

    /// Scales the range to `total` and returns the count the code is at.
    #[inline]
    pub(crate) fn threshold(&mut self, total: u32) -> u32 {
        self.range /= total;
        self.code / self.range
    }

    /// Narrows to `[start, start + size)` of the scaled range.
    #[inline]
    pub(crate) fn decode(&mut self, start: u32, size: u32) {
        let start = start.wrapping_mul(self.range);
        self.low = self.low.wrapping_add(start);
        self.code = self.code.wrapping_sub(start);
        self.range = self.range.wrapping_mul(size);
    }

    /// A binary context's hit: the part below `bound`.
    #[inline]
    pub(crate) fn decode_below(&mut self, bound: u32) {
        self.range = bound;
    }

    /// A binary context's escape: the part above `bound`, with the range
    /// first rounded down to the probabilities' scale.
    #[inline]
    pub(crate) fn decode_above(&mut self, bound: u32, scale: u32) {
        self.low = self.low.wrapping_add(bound);
        self.code = self.code.wrapping_sub(bound);
        self.range = (self.range & !(scale - 1)).wrapping_sub(bound);
    }

    /// Reads bytes until the range is normal again (at most
    /// [`MAX_NORM_BYTES`]).
    #[inline]
    pub(crate) fn normalize(&mut self, src: &mut Source<'_>) {
        while norm_step(self.low, &mut self.range) {
            self.code = (self.code << 8) | src.next();
            self.range <<= 8;
            self.low <<= 8;
        }
    }
}

/// The encoder's half; bytes go to `out`, which its owner drains.
#[derive(Debug)]
pub(crate) struct RangeEncoder {
    low: u32,
    pub(crate) range: u32,
    pub(crate) out: Vec<u8>,
}

impl RangeEncoder {
    pub(crate) fn new() -> Self {
        RangeEncoder {
            low: 0,
            range: u32::MAX,
            out: Vec::with_capacity(1 << 13),
        }
    }

    /// Codes `[start, start + size)` of `total`.
    #[inline]
    pub(crate) fn encode(&mut self, start: u32, size: u32, total: u32) {
        self.range /= total;
        self.low = self.low.wrapping_add(start.wrapping_mul(self.range));
        self.range = self.range.wrapping_mul(size);
    }

    /// A binary context's hit: the part below `bound`.
    #[inline]
    pub(crate) fn encode_below(&mut self, bound: u32) {
        self.range = bound;
    }

    /// A binary context's escape: the part above `bound`.
    #[inline]
    pub(crate) fn encode_above(&mut self, bound: u32, scale: u32) {
        self.low = self.low.wrapping_add(bound);
        self.range = (self.range & !(scale - 1)).wrapping_sub(bound);
    }

    #[inline]
    pub(crate) fn normalize(&mut self) {
        while norm_step(self.low, &mut self.range) {
            self.out.push((self.low >> 24) as u8);
            self.range <<= 8;
            self.low <<= 8;
        }
    }

    /// The last bytes: all of `low`.
    pub(crate) fn flush(&mut self) {
        self.out.extend_from_slice(&self.low.to_be_bytes());
        self.low = 0;
    }
}
