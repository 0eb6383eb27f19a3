//! The range encoder: turns bits with adaptive probabilities into bytes.
//!
//! `low` is kept in 33 bits so that a carry out of the 32-bit window can be
//! propagated into bytes that were held back (`cache` plus a run of 0xFF).

use crate::range_coder::{BIT_MODEL_TOTAL_BITS, INIT_BYTES, MOVE_BITS, TOP};

/// Capacity the output buffer starts with: an LZMA2 chunk's worth.
const OUT_CAPACITY: usize = (64 << 10) + 64;

/// LZMA's range encoder (adaptive binary probabilities of 11 bits, moved by
/// 1/32 per bit), writing into a growable byte buffer. Public for the other
/// coders that code bits this way (7z's BCJ2 flag stream).
#[derive(Debug)]
pub struct RangeEncoder {
    low: u64,
    range: u32,
    cache: u8,
    /// Bytes held back: `cache` and `cache_size - 1` bytes of 0xFF.
    cache_size: u64,
    /// Bytes already settled (leased from the global byte pool).
    pub(crate) out: lzflow_core::Lease<u8>,
}

impl Default for RangeEncoder {
    fn default() -> Self {
        Self::new()
    }
}

impl RangeEncoder {
    /// An encoder at the start of a range-coded stream.
    pub fn new() -> Self {
        RangeEncoder {
            low: 0,
            range: u32::MAX,
            cache: 0,
            cache_size: 1,
            out: lzflow_core::Pool::<u8>::global().lease(OUT_CAPACITY),
        }
    }

    /// Starts a new range-coded stream; settled bytes are left in `out`.
    pub(crate) fn reset(&mut self) {
        self.low = 0;
        self.range = u32::MAX;
        self.cache = 0;
        self.cache_size = 1;
    }

    /// Bytes this stream occupies so far, including what a flush would add.
    #[inline]
    pub(crate) fn pending_size(&self) -> usize {
        self.out.len() + self.cache_size as usize + 4
    }

    #[inline]
    fn shift_low(&mut self) {
        if (self.low as u32) < 0xFF00_0000 || (self.low >> 32) != 0 {
            let carry = (self.low >> 32) as u8;
            let mut byte = self.cache;
            loop {
                self.out.push(byte.wrapping_add(carry));
                byte = 0xFF;
                self.cache_size -= 1;
                if self.cache_size == 0 {
                    break;
                }
            }
            self.cache = (self.low >> 24) as u8;
        }
        self.cache_size += 1;
        self.low = (self.low & 0x00FF_FFFF) << 8;
    }

    /// Encodes `bit` with the adaptive probability `prob` (of a zero;
    /// start from 1024, one half).
    #[inline(always)]
    pub fn bit(&mut self, prob: &mut u16, bit: u32) {
        let bound = (self.range >> BIT_MODEL_TOTAL_BITS) * u32::from(*prob);
        if bit == 0 {
            self.range = bound;
            *prob += ((1 << BIT_MODEL_TOTAL_BITS) - *prob) >> MOVE_BITS;
        } else {
            self.low += u64::from(bound);
            self.range -= bound;
            *prob -= *prob >> MOVE_BITS;
        }
        while self.range < TOP {
            self.range <<= 8;
            self.shift_low();
        }
    }

    /// Encodes the low `count` bits of `value`, most significant first, each
    /// with probability one half.
    pub(crate) fn direct_bits(&mut self, value: u32, count: u32) {
        for i in (0..count).rev() {
            self.range >>= 1;
            if (value >> i) & 1 != 0 {
                self.low += u64::from(self.range);
            }
            while self.range < TOP {
                self.range <<= 8;
                self.shift_low();
            }
        }
    }

    /// Encodes `value` (of `bits` bits) with a bit tree, most significant bit
    /// first.
    #[inline]
    pub(crate) fn bit_tree(&mut self, probs: &mut [u16], bits: u32, value: u32) {
        let mut m = 1usize;
        for i in (0..bits).rev() {
            let b = (value >> i) & 1;
            self.bit(&mut probs[m], b);
            m = (m << 1) | b as usize;
        }
    }

    /// Encodes `value` with a bit tree, least significant bit first.
    #[inline]
    pub(crate) fn bit_tree_reverse(&mut self, probs: &mut [u16], bits: u32, value: u32) {
        let mut m = 1usize;
        for i in 0..bits {
            let b = (value >> i) & 1;
            self.bit(&mut probs[m], b);
            m = (m << 1) | b as usize;
        }
    }

    /// Moves the settled bytes to the end of `dst` (bytes a carry may still
    /// change stay held back).
    pub fn take_output(&mut self, dst: &mut Vec<u8>) {
        dst.extend_from_slice(&self.out);
        self.out.clear();
    }

    /// Writes out everything held back, ending the range-coded stream.
    pub fn flush(&mut self) {
        for _ in 0..INIT_BYTES {
            self.shift_low();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::range_coder::PROB_INIT;

    #[test]
    fn empty_stream_is_five_zero_bytes() {
        let mut rc = RangeEncoder::new();
        rc.flush();
        assert_eq!(rc.out[..], [0, 0, 0, 0, 0]);
    }

    #[test]
    fn carry_propagates_through_held_back_bytes() {
        // Many 1-bits with a probability near one push `low` up until it
        // carries; decoding by hand is done in the LZMA round-trip tests, here
        // we only check the stream starts with the mandatory zero byte and
        // that pending_size bounds the final length.
        let mut rc = RangeEncoder::new();
        let mut p = PROB_INIT;
        for i in 0..10_000u32 {
            rc.bit(&mut p, u32::from(i % 7 != 0));
        }
        let bound = rc.pending_size();
        rc.flush();
        assert_eq!(rc.out[0], 0);
        assert!(rc.out.len() <= bound);
    }
}
