//! The LZMA range decoder over an in-memory slice.
//!
//! Reads past the end of the slice yield zero bytes while the position keeps
//! counting, so the bit decoders need no "is there more input" branch: the
//! caller checks `pos` once per symbol and treats an overrun as corrupt data
//! (LZMA2) or never lets it happen (LZMA1 keeps a margin of real bytes).
//!
//! On x86-64 the adaptive bit trees run as inline assembly where enough
//! input is left (`range_decoder/x86_64.rs`); the Rust here is its twin,
//! bit for bit, and decodes everywhere else.

use crate::model::LITERAL_CODER_SIZE;
use crate::range_coder::{BIT_MODEL_TOTAL, BIT_MODEL_TOTAL_BITS, INIT_BYTES, MOVE_BITS, TOP};

// The bit trees in assembly where there is some (see its
// module docs); elsewhere, and with the `safe` feature, a module whose
// functions decline so that the Rust below decodes.
#[cfg(all(target_arch = "x86_64", not(feature = "safe"), not(miri)))]
#[allow(unsafe_code)]
#[path = "range_decoder/x86_64.rs"]
mod fast;
#[cfg(not(all(target_arch = "x86_64", not(feature = "safe"), not(miri))))]
#[path = "range_decoder/portable.rs"]
mod fast;

/// Longest reverse bit tree (distance slots 12 and 13 have 5 bits).
const REVERSE_MAX_BITS: u32 = 5;

/// Each 5-bit index with its bits in reverse order.
const REVERSED: [u8; 32] = {
    let mut t = [0u8; 32];
    let mut i = 0;
    while i < 32 {
        t[i] = ((i as u32).reverse_bits() >> (32 - REVERSE_MAX_BITS)) as u8;
        i += 1;
    }
    t
};

/// Range decoder state plus the slice it reads from.
#[derive(Debug, Clone, Copy)]
pub(crate) struct RangeDecoder<'a> {
    /// Width of the current interval.
    pub range: u32,
    /// Offset of the coded value inside the interval.
    pub code: u32,
    /// Input bytes.
    pub buf: &'a [u8],
    /// Bytes consumed from `buf` (may pass `buf.len()` on corrupt data).
    pub pos: usize,
}

impl<'a> RangeDecoder<'a> {
    /// Resumes a decoder whose `range` and `code` were saved earlier.
    #[inline(always)]
    pub fn resume(range: u32, code: u32, buf: &'a [u8]) -> Self {
        RangeDecoder {
            range,
            code,
            buf,
            pos: 0,
        }
    }

    /// Initialises from the first five bytes of `buf`; `None` if the first
    /// byte is not zero (every encoder writes a zero there).
    pub fn init(buf: &'a [u8]) -> Option<Self> {
        let mut rc = RangeDecoder::resume(u32::MAX, 0, buf);
        if rc.next_byte() != 0 {
            return None;
        }
        for _ in 1..INIT_BYTES {
            rc.code = (rc.code << 8) | rc.next_byte();
        }
        Some(rc)
    }

    /// Initial state from five separately gathered bytes.
    pub fn init_state(bytes: [u8; INIT_BYTES]) -> Option<(u32, u32)> {
        let rc = RangeDecoder::init(&bytes)?;
        Some((rc.range, rc.code))
    }

    #[inline(always)]
    fn next_byte(&mut self) -> u32 {
        let b = match self.buf.get(self.pos) {
            Some(&b) => b,
            None => 0,
        };
        self.pos += 1;
        u32::from(b)
    }

    /// Shifts in a byte when the range got small. Every bit decoder calls
    /// this first (so the compare that decides a bit stays next to the
    /// moves that use its flags), and the symbol loop once after each
    /// symbol: since it is idempotent, the coder's state between symbols
    /// is the same as with a normalization after every bit.
    #[inline(always)]
    pub fn normalize(&mut self) {
        if self.range < TOP {
            self.range <<= 8;
            self.code = (self.code << 8) | self.next_byte();
        }
    }

    /// Decodes one bit with probability `*p`; adapts `*p` when `UPDATE`
    /// (a dry run to count input bytes passes false).
    #[inline(always)]
    pub fn bit<const UPDATE: bool>(&mut self, p: &mut u16) -> u32 {
        self.normalize();
        self.bit_normalized::<UPDATE>(p)
    }

    /// [`bit`](Self::bit) without the leading normalization, for the first
    /// bit of a symbol: the symbol loops normalize after every symbol (and a
    /// decoder starts at `u32::MAX`), so the range is at least `TOP` there.
    #[inline(always)]
    pub fn bit_normalized<const UPDATE: bool>(&mut self, p: &mut u16) -> u32 {
        debug_assert!(self.range >= TOP);
        let prob = u32::from(*p);
        let bound = (self.range >> BIT_MODEL_TOTAL_BITS) * prob;
        let bit;
        if self.code < bound {
            self.range = bound;
            if UPDATE {
                *p = (prob + ((BIT_MODEL_TOTAL - prob) >> MOVE_BITS)) as u16;
            }
            bit = 0;
        } else {
            self.range -= bound;
            self.code -= bound;
            if UPDATE {
                *p = (prob - (prob >> MOVE_BITS)) as u16;
            }
            bit = 1;
        }
        bit
    }

    /// One branch-free bit with the probability already loaded; returns
    /// the bit and stores the adapted probability in `*slot`.
    #[inline(always)]
    fn bit_with<const UPDATE: bool>(&mut self, prob: u32, slot: &mut u16) -> usize {
        self.normalize();
        let bound = (self.range >> BIT_MODEL_TOTAL_BITS) * prob;
        let bit = u32::from(self.code >= bound);
        let mask = bit.wrapping_neg();
        let rest = self.range - bound;
        self.range = if bit != 0 { rest } else { bound };
        self.code -= bound & mask;
        if UPDATE {
            let target = (!mask & (BIT_MODEL_TOTAL - 31)) as i32;
            let prob = prob as i32;
            *slot = (prob - ((prob - target) >> MOVE_BITS)) as u16;
        }
        bit as usize
    }

    /// Decodes a plain literal (8 bits through `probs[1..0x100]`).
    ///
    /// Both children's probabilities are loaded before the bit is known, so
    /// the load latency is off the critical path. The decoder goes in and
    /// comes back by value, so the symbol loop can keep it in registers
    /// (inlined: 6% fewer instructions than an out-of-line call on binary
    /// data).
    #[inline(always)]
    pub fn literal<const UPDATE: bool>(self, probs: &mut [u16; LITERAL_CODER_SIZE]) -> (Self, u32) {
        let mut rc = self;
        if UPDATE {
            if let Some(m) = fast::bittree(&mut rc, probs, 8) {
                return (rc, m as u32 - 0x100);
            }
        }
        rc.literal_in_rust::<UPDATE>(probs)
    }

    /// [`literal`](Self::literal) without the assembly.
    #[inline(always)]
    fn literal_in_rust<const UPDATE: bool>(
        self,
        probs: &mut [u16; LITERAL_CODER_SIZE],
    ) -> (Self, u32) {
        let mut rc = self;
        let mut sym = 1usize;
        let mut prob = u32::from(probs[1]);
        for _ in 0..7 {
            let p0 = u32::from(probs[2 * sym]);
            let p1 = u32::from(probs[2 * sym + 1]);
            let bit = rc.bit_with::<UPDATE>(prob, &mut probs[sym]);
            sym = 2 * sym + bit;
            prob = if bit != 0 { p1 } else { p0 };
        }
        let bit = rc.bit_with::<UPDATE>(prob, &mut probs[sym]);
        sym = 2 * sym + bit;
        (rc, sym as u32 - 0x100)
    }

    /// Decodes a literal after a match: the bits of `match_byte` select the
    /// probabilities until the first bit that differs from it.
    ///
    /// Always eight bits, so the loop unrolls; `offset` is `0x100` while the
    /// decoded bits still equal the match byte's and 0 after the first
    /// difference, which turns the choice of probability into arithmetic.
    /// (Loading both children ahead, as `literal` does, costs more in spilled
    /// registers here than it saves.)
    #[inline(always)]
    pub fn literal_matched<const UPDATE: bool>(
        self,
        probs: &mut [u16; LITERAL_CODER_SIZE],
        match_byte: u32,
    ) -> (Self, u32) {
        let mut rc = self;
        if UPDATE {
            if let Some(sym) = fast::literal_matched(&mut rc, probs, match_byte) {
                return (rc, sym);
            }
        }
        rc.literal_matched_in_rust::<UPDATE>(probs, match_byte)
    }

    /// [`literal_matched`](Self::literal_matched) without the assembly.
    #[inline(always)]
    fn literal_matched_in_rust<const UPDATE: bool>(
        self,
        probs: &mut [u16; LITERAL_CODER_SIZE],
        match_byte: u32,
    ) -> (Self, u32) {
        let mut rc = self;
        let mut match_byte = match_byte;
        let mut offset = 0x100u32;
        let mut sym = 1u32;
        for _ in 0..8 {
            match_byte <<= 1;
            let match_bit = match_byte & offset;
            // offset + match_bit + sym < 0x100 + 0x100 + 0x100.
            let idx = (offset + match_bit + sym) as usize;
            let prob = u32::from(probs[idx]);
            let bit = rc.bit_with::<UPDATE>(prob, &mut probs[idx]) as u32;
            sym = (sym << 1) | bit;
            // Bit 1 keeps `match_bit`, bit 0 keeps its complement.
            offset &= match_bit ^ bit.wrapping_sub(1);
        }
        (rc, sym - 0x100)
    }

    /// Decodes `bits` bits MSB first through the binary tree `probs[1..]`
    /// (`1 << bits <= N`), loading both children's probabilities before
    /// each bit is known.
    #[inline(always)]
    pub fn bittree<const UPDATE: bool, const N: usize>(
        &mut self,
        probs: &mut [u16; N],
        bits: u32,
    ) -> u32 {
        if UPDATE {
            if let Some(m) = fast::bittree(self, probs, bits) {
                return m as u32 - (1 << bits);
            }
        }
        self.bittree_in_rust::<UPDATE, N>(probs, bits)
    }

    /// [`bittree`](Self::bittree) without the assembly.
    #[inline(always)]
    fn bittree_in_rust<const UPDATE: bool, const N: usize>(
        &mut self,
        probs: &mut [u16; N],
        bits: u32,
    ) -> u32 {
        let mut m = 1usize;
        let mut prob = u32::from(probs[1]);
        for k in 0..bits {
            let (p0, p1) = if k + 1 < bits {
                (u32::from(probs[2 * m]), u32::from(probs[2 * m + 1]))
            } else {
                (0, 0)
            };
            let b = self.bit_with::<UPDATE>(prob, &mut probs[m]);
            m = 2 * m + b;
            prob = if b != 0 { p1 } else { p0 };
        }
        m as u32 - (1 << bits)
    }

    /// Decodes `bits` bits LSB first through the binary tree `probs[1..]`
    /// (`bits <= log2(N)`, `N` a power of two).
    ///
    /// Indices are masked to `N - 1`: a no-op for the nodes of the tree, it
    /// removes the bounds checks, and lets the children's probabilities be
    /// loaded ahead without asking whether the bit is the last (the extra
    /// loads after it are unused).
    #[inline(always)]
    pub fn bittree_reverse<const UPDATE: bool, const N: usize>(
        &mut self,
        probs: &mut [u16; N],
        bits: u32,
    ) -> u32 {
        const { assert!(N.is_power_of_two()) };
        if UPDATE && bits <= REVERSE_MAX_BITS {
            if let Some(m) = fast::bittree(self, probs, bits) {
                // The same nodes as a forward tree; the symbol is the bits
                // of the path in reverse order (the leading 1 of `m` lands
                // below bit 0 and is shifted out).
                return u32::from(REVERSED[m & 31]) >> (REVERSE_MAX_BITS - bits);
            }
        }
        self.bittree_reverse_in_rust::<UPDATE, N>(probs, bits)
    }

    /// [`bittree_reverse`](Self::bittree_reverse) without the assembly.
    #[inline(always)]
    fn bittree_reverse_in_rust<const UPDATE: bool, const N: usize>(
        &mut self,
        probs: &mut [u16; N],
        bits: u32,
    ) -> u32 {
        let mut m = 1usize;
        let mut sym = 0;
        let mut prob = u32::from(probs[1]);
        for i in 0..bits {
            let p0 = u32::from(probs[(2 * m) & (N - 1)]);
            let p1 = u32::from(probs[(2 * m + 1) & (N - 1)]);
            let b = self.bit_with::<UPDATE>(prob, &mut probs[m & (N - 1)]);
            m = 2 * m + b;
            sym |= (b as u32) << i;
            prob = if b != 0 { p1 } else { p0 };
        }
        sym
    }

    /// Decodes `count` bits of probability one half.
    #[inline(always)]
    pub fn direct(&mut self, count: u32) -> u32 {
        let mut res = 0u32;
        for _ in 0..count {
            self.normalize();
            self.range >>= 1;
            // Branch-free: subtract, then add back if that went negative.
            self.code = self.code.wrapping_sub(self.range);
            let t = 0u32.wrapping_sub(self.code >> 31);
            self.code = self.code.wrapping_add(self.range & t);
            res = (res << 1).wrapping_add(t.wrapping_add(1));
        }
        res
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::range_coder::PROB_INIT;

    #[test]
    fn init_needs_zero_first_byte() {
        assert!(RangeDecoder::init(&[1, 0, 0, 0, 0]).is_none());
        let rc = RangeDecoder::init(&[0, 0x12, 0x34, 0x56, 0x78]).unwrap();
        assert_eq!((rc.range, rc.code, rc.pos), (u32::MAX, 0x1234_5678, 5));
    }

    #[test]
    fn branch_free_bit_matches_branchy_bit() {
        let data: Vec<u8> = (0..4000u32)
            .map(|i| (i.wrapping_mul(2654435761) >> 13) as u8)
            .collect();
        let mut buf = vec![0u8];
        buf.extend_from_slice(&data);
        let mut a = RangeDecoder::init(&buf).unwrap();
        let mut b = a;
        let (mut pa, mut pb) = ([PROB_INIT; 8], [PROB_INIT; 8]);
        for i in 0..20_000 {
            let k = i % 8;
            let prob = u32::from(pb[k]);
            assert_eq!(
                a.bit::<true>(&mut pa[k]) as usize,
                b.bit_with::<true>(prob, &mut pb[k])
            );
            assert_eq!((a.range, a.code, a.pos, pa), (b.range, b.code, b.pos, pb));
        }
    }

    #[test]
    fn reads_past_the_end_are_zero_and_counted() {
        let mut rc = RangeDecoder::init(&[0, 0, 0, 0]).unwrap();
        assert_eq!(rc.pos, 5);
        assert_eq!(rc.code, 0);
        let mut p = PROB_INIT;
        for _ in 0..64 {
            assert_eq!(rc.bit::<true>(&mut p), 0);
        }
        assert!(rc.pos > 5);
    }

    /// A small deterministic generator for the tests below.
    struct Lcg(u64);

    impl Lcg {
        fn next(&mut self) -> u32 {
            self.0 = self
                .0
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            (self.0 >> 33) as u32
        }
    }

    fn array<const N: usize>(probs: &mut [u16; 0x300]) -> &mut [u16; N] {
        (&mut probs[..N]).try_into().unwrap()
    }

    /// Every tree decoded with the assembly (where the target has it) gives
    /// the same symbol, coder state and probabilities as the Rust, on random
    /// input and random probabilities, up to and past the end of the input
    /// (where the assembly declines).
    #[test]
    fn assembly_and_rust_trees_decode_alike() {
        let mut g = Lcg(7);
        let mut checked = 0;
        for _ in 0..40 {
            let len = 8 + (g.next() % 3000) as usize;
            let mut buf = vec![0u8];
            buf.extend((0..len).map(|_| g.next() as u8));
            let mut a = RangeDecoder::init(&buf).unwrap();
            let mut b = a;
            let mut pa = [0u16; 0x300];
            pa.iter_mut().for_each(|p| *p = (g.next() % 2048) as u16);
            let mut pb = pa;
            while a.pos < buf.len() + 16 {
                let (x, y) = match g.next() % 6 {
                    0 => {
                        let bits = [1, 2, 3, 4, 5, 6, 8][(g.next() % 7) as usize];
                        (
                            a.bittree::<true, 256>(array(&mut pa), bits),
                            b.bittree_in_rust::<true, 256>(array(&mut pb), bits),
                        )
                    }
                    1 => {
                        let bits = 1 + g.next() % 5;
                        (
                            a.bittree_reverse::<true, 32>(array(&mut pa), bits),
                            b.bittree_reverse_in_rust::<true, 32>(array(&mut pb), bits),
                        )
                    }
                    2 => (
                        a.bittree_reverse::<true, 16>(array(&mut pa), 4),
                        b.bittree_reverse_in_rust::<true, 16>(array(&mut pb), 4),
                    ),
                    3 => {
                        let (x, y);
                        (a, x) = a.literal::<true>(&mut pa);
                        (b, y) = b.literal_in_rust::<true>(&mut pb);
                        (x, y)
                    }
                    4 => {
                        let m = g.next() & 0xFF;
                        let (x, y);
                        (a, x) = a.literal_matched::<true>(&mut pa, m);
                        (b, y) = b.literal_matched_in_rust::<true>(&mut pb, m);
                        (x, y)
                    }
                    _ => {
                        let k = (g.next() % 0x300) as usize;
                        (a.bit::<true>(&mut pa[k]), b.bit::<true>(&mut pb[k]))
                    }
                };
                assert_eq!(x, y);
                assert_eq!((a.range, a.code, a.pos), (b.range, b.code, b.pos));
                assert_eq!(pa, pb);
                checked += 1;
            }
        }
        assert!(checked > 10_000, "{checked}");
    }

    /// The assembly is live on the targets that have it, and declines when
    /// fewer input bytes are left than it would decode bits, or the tree
    /// does not fit.
    #[test]
    fn assembly_runs_only_within_its_bounds() {
        let buf = [0u8; 13];
        let rc = RangeDecoder::init(&buf).unwrap();
        let has_asm = cfg!(all(
            target_arch = "x86_64",
            not(feature = "safe"),
            not(miri)
        ));
        let mut probs = [PROB_INIT; 256];
        assert_eq!(
            fast::bittree(&mut rc.clone(), &mut probs, 8).is_some(),
            has_asm
        );
        assert!(fast::bittree(&mut rc.clone(), &mut probs, 7).is_none());
        assert!(fast::bittree(&mut rc.clone(), &mut [PROB_INIT; 8], 4).is_none());
        let mut short = rc;
        short.pos += 1;
        assert!(fast::bittree(&mut short, &mut probs, 8).is_none());
        assert!(fast::literal_matched(&mut short, &mut [PROB_INIT; 0x300], 0).is_none());
        assert_eq!(short.pos, 6, "a declined call reads nothing");
        short.pos = 11;
        assert!(fast::bittree(&mut short, &mut probs, 3).is_none());
        short.pos = 100;
        assert!(fast::bittree(&mut short, &mut probs, 3).is_none());
        let mut lits = [PROB_INIT; 0x300];
        assert_eq!(
            fast::literal_matched(&mut rc.clone(), &mut lits, 0x5A).is_some(),
            has_asm
        );
    }
}
