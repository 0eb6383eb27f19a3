//! The LZMA model shared by the decoder and the encoder: the state
//! machine, the match lengths and the sizes of the probability trees.
//! Names follow the LZMA specification (`lzma-specification.txt` of the
//! LZMA SDK) as xz's liblzma spells them (`lzma_common.h`).
//!
//! Only the numbers live here; each side lays out its probabilities its
//! own way (one flat table in the decoder, named arrays in the encoder).

// ---- State machine ---------------------------------------------------------

/// Number of states. The state remembers the kinds of the last symbols:
/// 7 states after a literal (literal after literal, and literal after a
/// match, rep or short rep, one or two symbols back) and 5 after a match,
/// rep or short rep (each after a literal, plus match and rep after
/// another non-literal; a short rep there counts as a rep).
pub(crate) const STATES: usize = 12;

/// States below this follow a literal.
pub(crate) const LIT_STATES: usize = 7;

/// The integer types a state is kept in: `usize` in the decoder (an index
/// into its flat table) and `u32` in the encoder (packed into the optimal
/// parser's entries). Use the functions below rather than the methods.
pub(crate) trait StateIndex: Copy {
    /// See [`is_literal_state`].
    fn is_literal_state(self) -> bool;
    /// See [`state_after_literal`].
    fn after_literal(self) -> Self;
    /// See [`state_after_match`].
    fn after_match(self) -> Self;
    /// See [`state_after_rep`].
    fn after_rep(self) -> Self;
    /// See [`state_after_short_rep`].
    fn after_short_rep(self) -> Self;
}

/// The transitions, written once and instantiated for each state type with
/// plain integer literals: the code the compiler sees is what a copy per
/// type had (a generic version over `From<u8>` compiled differently).
macro_rules! impl_state_index {
    ($($t:ty),*) => {$(
        impl StateIndex for $t {
            #[inline(always)]
            fn is_literal_state(self) -> bool {
                self < LIT_STATES as $t
            }
            #[inline(always)]
            fn after_literal(self) -> Self {
                if self < 4 {
                    0
                } else if self < 10 {
                    self - 3
                } else {
                    self - 6
                }
            }
            #[inline(always)]
            fn after_match(self) -> Self {
                if self.is_literal_state() {
                    7
                } else {
                    10
                }
            }
            #[inline(always)]
            fn after_rep(self) -> Self {
                if self.is_literal_state() {
                    8
                } else {
                    11
                }
            }
            #[inline(always)]
            fn after_short_rep(self) -> Self {
                if self.is_literal_state() {
                    9
                } else {
                    11
                }
            }
        }
    )*};
}

impl_state_index!(u32, usize);

/// Whether state `s` follows a literal (then a literal is coded on its
/// own; otherwise against the byte at rep0).
#[inline(always)]
pub(crate) fn is_literal_state<S: StateIndex>(s: S) -> bool {
    s.is_literal_state()
}

/// The state after a literal: 0-3 go to 0 (literal after literal), 4-9 go
/// back three (`x, literal` becomes `x, literal, literal`, and
/// `literal, x` becomes `x, literal`), 10-11 go back six (to 4-5).
#[inline(always)]
pub(crate) fn state_after_literal<S: StateIndex>(s: S) -> S {
    s.after_literal()
}

/// The state after a match (with a new distance): 7 after a literal
/// state, 10 otherwise.
#[inline(always)]
pub(crate) fn state_after_match<S: StateIndex>(s: S) -> S {
    s.after_match()
}

/// The state after a rep (a repeated distance, length 2 or more): 8 after
/// a literal state, 11 otherwise.
#[inline(always)]
pub(crate) fn state_after_rep<S: StateIndex>(s: S) -> S {
    s.after_rep()
}

/// The state after a short rep (rep0, length 1): 9 after a literal state,
/// 11 otherwise.
#[inline(always)]
pub(crate) fn state_after_short_rep<S: StateIndex>(s: S) -> S {
    s.after_short_rep()
}

// ---- Position states and literal coders ------------------------------------

/// Largest pb: the position state is the low pb bits of the position.
pub(crate) const POS_BITS_MAX: u32 = 4;
/// Largest number of position states: 2^4 = 16.
pub(crate) const POS_STATES_MAX: usize = 1 << POS_BITS_MAX;

/// Probabilities of one literal coder: a plain 8-bit tree (0x100 nodes)
/// plus, for a literal after a match, two more (one per bit of the match
/// byte) used while the decoded bits equal the match byte's: 3 * 0x100.
pub(crate) const LITERAL_CODER_SIZE: usize = 0x300;

// ---- Match lengths ---------------------------------------------------------

/// Shortest match LZMA can code.
pub const MATCH_LEN_MIN: u32 = 2;

/// The length coder codes `len - MATCH_LEN_MIN` with a choice bit and a
/// second choice bit in front of three trees: the low tree (3 bits, one
/// per position state) for lengths 2..=9, the mid tree (3 bits, one per
/// position state) for 10..=17, the high tree (8 bits) for 18..=273.
pub(crate) const LEN_LOW_BITS: u32 = 3;
/// Bits of the length coder's mid trees.
pub(crate) const LEN_MID_BITS: u32 = 3;
/// Bits of the length coder's high tree.
pub(crate) const LEN_HIGH_BITS: u32 = 8;
/// Lengths of a low tree: 8.
pub(crate) const LEN_LOW_SYMBOLS: usize = 1 << LEN_LOW_BITS;
/// Lengths of a mid tree: 8.
pub(crate) const LEN_MID_SYMBOLS: usize = 1 << LEN_MID_BITS;
/// Lengths of the high tree: 256.
pub(crate) const LEN_HIGH_SYMBOLS: usize = 1 << LEN_HIGH_BITS;
/// Number of codable lengths: 8 + 8 + 256 = 272.
pub(crate) const LEN_SYMBOLS: usize = LEN_LOW_SYMBOLS + LEN_MID_SYMBOLS + LEN_HIGH_SYMBOLS;

/// Longest match LZMA can code: 2 + 272 - 1 = 273.
pub const MATCH_LEN_MAX: u32 = MATCH_LEN_MIN + LEN_SYMBOLS as u32 - 1;

// ---- Distances -------------------------------------------------------------

/// Length-to-distance states: the distance slot tree is picked by
/// `min(len - MATCH_LEN_MIN, 3)` (lengths 2, 3, 4 and 5 or more).
pub(crate) const DIST_STATES: usize = 4;
/// Bits of a distance slot tree.
pub(crate) const DIST_SLOT_BITS: u32 = 6;
/// Distance slots: 2^6 = 64, two per bit length of a 32-bit distance.
pub(crate) const DIST_SLOTS: usize = 1 << DIST_SLOT_BITS;
/// Slots below this are the distance itself (0-3).
pub(crate) const DIST_MODEL_START: u32 = 4;
/// Slots from `DIST_MODEL_START` up to this code their footer bits with a
/// reverse tree of their own; from here on the footer is direct bits
/// followed by the align bits.
pub(crate) const DIST_MODEL_END: u32 = 14;
/// Distances below the first of slot `DIST_MODEL_END`: 2^(14 / 2) = 128.
/// The encoder prices these exactly (slot plus reverse tree).
pub(crate) const FULL_DISTANCES: u32 = 1 << (DIST_MODEL_END / 2);
/// Probabilities of the reverse trees of slots 4..14: the tree of a slot
/// starts at `dist_slot_base(slot) - slot` and is indexed from 1, so the
/// last one (slot 13, 5 bits) ends at `FULL_DISTANCES - DIST_MODEL_END`:
/// 1 + 128 - 14 = 115.
pub(crate) const DIST_SPECIAL_PROBS: usize = 1 + (FULL_DISTANCES - DIST_MODEL_END) as usize;
/// Low bits of large distances coded with the align reverse tree.
pub(crate) const ALIGN_BITS: u32 = 4;
/// Entries of the align tree: 2^4 = 16.
pub(crate) const ALIGN_SIZE: usize = 1 << ALIGN_BITS;

/// The encoded distance (distance - 1) of the end-of-payload marker.
pub(crate) const END_MARKER_DIST: u32 = u32::MAX;

/// The slot of an encoded distance: 0-3 for 0-3, then two slots per power
/// of two (the top bit and the one below it).
#[inline(always)]
pub(crate) fn dist_slot(dist: u32) -> u32 {
    if dist < DIST_MODEL_START {
        dist
    } else {
        let n = 31 - dist.leading_zeros();
        (n << 1) | ((dist >> (n - 1)) & 1)
    }
}

/// Footer bits of a slot from `DIST_MODEL_START` on: the bits of its
/// distances below the top two.
#[inline(always)]
pub(crate) fn dist_footer_bits(slot: u32) -> u32 {
    (slot >> 1) - 1
}

/// The smallest distance of a slot from `DIST_MODEL_START` on: the top two
/// bits (1 and the slot's low bit) above the footer bits.
#[inline(always)]
pub(crate) fn dist_slot_base(slot: u32) -> u32 {
    (2 | (slot & 1)) << dist_footer_bits(slot)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn transitions_are_the_specifications() {
        // UpdateState_Literal / _Match / _Rep / _ShortRep of the spec.
        let lit = [0, 0, 0, 0, 1, 2, 3, 4, 5, 6, 4, 5];
        assert_eq!(lit.len(), STATES);
        for (s, after) in lit.into_iter().enumerate() {
            assert_eq!(state_after_literal(s), after);
            assert_eq!(state_after_literal(s as u32), after as u32);
            let after_lit = s < 7;
            assert_eq!(is_literal_state(s), after_lit);
            assert_eq!(state_after_match(s), if after_lit { 7 } else { 10 });
            assert_eq!(state_after_rep(s as u32), if after_lit { 8 } else { 11 });
            assert_eq!(state_after_short_rep(s), if after_lit { 9 } else { 11 });
        }
    }

    #[test]
    fn derived_sizes() {
        assert_eq!(LEN_SYMBOLS, 272);
        assert_eq!(MATCH_LEN_MAX, 273);
        assert_eq!(FULL_DISTANCES, 128);
        assert_eq!(DIST_SPECIAL_PROBS, 115);
        assert_eq!(DIST_SLOTS, 64);
        // The last slot-13 node lies inside the special probabilities.
        let base = dist_slot_base(DIST_MODEL_END - 1) - (DIST_MODEL_END - 1);
        let nodes = 1 << dist_footer_bits(DIST_MODEL_END - 1);
        assert_eq!(base as usize + nodes, DIST_SPECIAL_PROBS);
    }

    #[test]
    fn slots_and_bases_agree() {
        for dist in (0..4096).chain([u32::MAX - 1, END_MARKER_DIST]) {
            let slot = dist_slot(dist);
            assert!((slot as usize) < DIST_SLOTS);
            if slot >= DIST_MODEL_START {
                let base = dist_slot_base(slot);
                assert!(
                    base <= dist
                        && u64::from(dist) < u64::from(base) + (1u64 << dist_footer_bits(slot))
                );
            } else {
                assert_eq!(slot, dist);
            }
        }
    }
}
