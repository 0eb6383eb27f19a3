//! Constants of the range coder, shared by the range decoder
//! (`range_decoder.rs`) and the range encoder (`range_encoder.rs`).

/// Bits of a probability: the chance of a 0 bit is `prob / 2^11`.
pub(crate) const BIT_MODEL_TOTAL_BITS: u32 = 11;
/// The probability of certainty: 2^11.
pub(crate) const BIT_MODEL_TOTAL: u32 = 1 << BIT_MODEL_TOTAL_BITS;
/// A probability of one half (2^11 / 2 = 1024): what every model starts at.
pub(crate) const PROB_INIT: u16 = (BIT_MODEL_TOTAL / 2) as u16;
/// Adaptation speed: after each bit a probability moves 1/2^5 of the way
/// towards 0 or `BIT_MODEL_TOTAL`.
pub(crate) const MOVE_BITS: u32 = 5;
/// The range is renormalized (a byte shifted in or out) when it drops
/// below 2^24, so that `(range >> 11) * prob` keeps 13 bits or more.
pub(crate) const TOP: u32 = 1 << 24;
/// Bytes at the start of a range-coded stream: a zero byte and the 32-bit
/// code the decoder reads before the first bit; the encoder's flush
/// writes as many (its held-back byte and the four of `low`).
pub(crate) const INIT_BYTES: usize = 5;
