//! Prices: estimated cost in 1/16 bit of encoding a bit with a given
//! probability, used by the optimal parser to compare choices.

use std::sync::LazyLock;

use crate::range_coder::BIT_MODEL_TOTAL_BITS;

/// Prices are in units of 1/16 bit.
pub(crate) const PRICE_SHIFT: u32 = 4;
/// Probabilities are looked up with this many low bits dropped.
const REDUCE_BITS: u32 = 4;
/// Entries of the price table: one per 16 probabilities.
const PRICE_ENTRIES: usize = 1 << (BIT_MODEL_TOTAL_BITS - REDUCE_BITS);
/// "Impossible" price; large but safe to add a few prices to.
pub(crate) const INFINITY: u32 = 1 << 30;

/// `-log2(p) * 16` for p at the middle of each bucket of 16 probabilities.
static BIT_PRICES: LazyLock<[u32; PRICE_ENTRIES]> = LazyLock::new(|| {
    let mut t = [0u32; PRICE_ENTRIES];
    for (i, slot) in t.iter_mut().enumerate() {
        let p = ((i << REDUCE_BITS) + (1 << (REDUCE_BITS - 1))) as f64
            / f64::from(1u32 << BIT_MODEL_TOTAL_BITS);
        *slot = (-p.log2() * f64::from(1u32 << PRICE_SHIFT)).round() as u32;
    }
    t
});

/// A copy of the price table, held by each encoder so lookups need no sync.
#[derive(Debug, Clone)]
pub(crate) struct BitPrices {
    table: [u32; PRICE_ENTRIES],
}

impl BitPrices {
    pub(crate) fn new() -> Self {
        BitPrices { table: *BIT_PRICES }
    }

    /// Price of a 0 bit with probability `prob`.
    ///
    /// Probabilities stay in 31..=2017, so the index mask is a no-op that
    /// spares the bounds check.
    #[inline(always)]
    pub(crate) fn zero(&self, prob: u16) -> u32 {
        self.table[(prob >> REDUCE_BITS) as usize & (PRICE_ENTRIES - 1)]
    }

    /// Price of a 1 bit with probability `prob`.
    #[inline(always)]
    pub(crate) fn one(&self, prob: u16) -> u32 {
        self.zero((1u16 << BIT_MODEL_TOTAL_BITS) - prob)
    }

    /// Price of `bit` with probability `prob`, without a branch on `bit`.
    #[inline(always)]
    pub(crate) fn bit(&self, prob: u16, bit: u32) -> u32 {
        let p = if bit == 0 {
            prob
        } else {
            (1u16 << BIT_MODEL_TOTAL_BITS) - prob
        };
        self.zero(p)
    }

    /// Price of `value` through a bit tree, most significant bit first.
    pub(crate) fn bit_tree(&self, probs: &[u16], bits: u32, value: u32) -> u32 {
        let mut price = 0;
        let mut m = 1usize;
        for i in (0..bits).rev() {
            let b = (value >> i) & 1;
            price += self.bit(probs[m], b);
            m = (m << 1) | b as usize;
        }
        price
    }

    /// Price of `value` through a reverse bit tree.
    pub(crate) fn bit_tree_reverse(&self, probs: &[u16], bits: u32, value: u32) -> u32 {
        let mut price = 0;
        let mut m = 1usize;
        for i in 0..bits {
            let b = (value >> i) & 1;
            price += self.bit(probs[m], b);
            m = (m << 1) | b as usize;
        }
        price
    }
}

/// Price of `count` bits coded with probability one half.
#[inline]
pub(crate) fn direct_bits_price(count: u32) -> u32 {
    count << PRICE_SHIFT
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn half_costs_one_bit_and_prices_fall_with_probability() {
        let p = BitPrices::new();
        assert_eq!(p.zero(1024), 16);
        assert_eq!(p.one(1024), 16);
        assert!(p.zero(2000) < p.zero(1000));
        assert!(p.one(2000) > p.one(1000));
        assert_eq!(direct_bits_price(3), 48);
    }
}
