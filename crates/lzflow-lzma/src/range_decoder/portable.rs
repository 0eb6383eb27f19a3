//! Targets without an assembly range decoder (and the `safe` feature):
//! every function declines, so the Rust bit decoders do all the work.

use super::RangeDecoder;

/// Declines: the Rust bit tree decodes.
#[inline(always)]
pub(super) fn bittree<const N: usize>(
    _rc: &mut RangeDecoder<'_>,
    _probs: &mut [u16; N],
    _bits: u32,
) -> Option<usize> {
    None
}

/// Declines: the Rust matched-literal decoder decodes.
#[inline(always)]
pub(super) fn literal_matched(
    _rc: &mut RangeDecoder<'_>,
    _probs: &mut [u16; 0x300],
    _match_byte: u32,
) -> Option<u32> {
    None
}
