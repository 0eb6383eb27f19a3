//! The match-length coder (used twice: for matches and for repeated
//! matches) with its cached price table.

use lzflow_core::{Lease, Pool};

use crate::model::{
    LEN_HIGH_BITS, LEN_HIGH_SYMBOLS, LEN_LOW_BITS, LEN_LOW_SYMBOLS, LEN_MID_BITS, LEN_MID_SYMBOLS,
    LEN_SYMBOLS, POS_STATES_MAX,
};
use crate::price::BitPrices;
use crate::range_coder::PROB_INIT;
use crate::range_encoder::RangeEncoder;

// The model's tree sizes as `u32`, the type lengths are coded in here.
const LOW_SYMBOLS: u32 = LEN_LOW_SYMBOLS as u32;
const MID_SYMBOLS: u32 = LEN_MID_SYMBOLS as u32;

#[derive(Debug)]
pub(crate) struct LengthEncoder {
    choice: u16,
    choice2: u16,
    low: [[u16; LEN_LOW_SYMBOLS]; POS_STATES_MAX],
    mid: [[u16; LEN_MID_SYMBOLS]; POS_STATES_MAX],
    high: [u16; LEN_HIGH_SYMBOLS],
    /// prices[pos_state * LEN_SYMBOLS + len - 2] (leased from the global
    /// pool: empty without price tracking).
    prices: Lease<u32>,
    /// Encodings left per position state before its prices are refreshed.
    counters: [u32; POS_STATES_MAX],
    /// How many lengths the prices cover and how often they are refreshed.
    table_size: u32,
    /// Whether prices are kept at all (normal mode only).
    track_prices: bool,
}

impl LengthEncoder {
    pub(crate) fn new(table_size: u32, track_prices: bool) -> Self {
        LengthEncoder {
            choice: PROB_INIT,
            choice2: PROB_INIT,
            low: [[PROB_INIT; LEN_LOW_SYMBOLS]; POS_STATES_MAX],
            mid: [[PROB_INIT; LEN_MID_SYMBOLS]; POS_STATES_MAX],
            high: [PROB_INIT; LEN_HIGH_SYMBOLS],
            prices: if track_prices {
                Pool::<u32>::global().lease_zeroed(LEN_SYMBOLS * POS_STATES_MAX)
            } else {
                Lease::unpooled(Vec::new())
            },
            counters: [0; POS_STATES_MAX],
            table_size: table_size.min(LEN_SYMBOLS as u32),
            track_prices,
        }
    }

    /// Back to the initial probabilities; prices are refreshed for the
    /// first `pos_states` position states.
    pub(crate) fn reset(&mut self, pos_states: usize, bp: &BitPrices) {
        self.choice = PROB_INIT;
        self.choice2 = PROB_INIT;
        self.low = [[PROB_INIT; LEN_LOW_SYMBOLS]; POS_STATES_MAX];
        self.mid = [[PROB_INIT; LEN_MID_SYMBOLS]; POS_STATES_MAX];
        self.high = [PROB_INIT; LEN_HIGH_SYMBOLS];
        if self.track_prices {
            for ps in 0..pos_states {
                self.update_prices(ps, bp);
            }
        }
    }

    /// Codes `len - 2`.
    #[inline]
    pub(crate) fn encode(
        &mut self,
        rc: &mut RangeEncoder,
        len_minus2: u32,
        pos_state: usize,
        bp: &BitPrices,
    ) {
        if len_minus2 < LOW_SYMBOLS {
            rc.bit(&mut self.choice, 0);
            rc.bit_tree(&mut self.low[pos_state], LEN_LOW_BITS, len_minus2);
        } else {
            rc.bit(&mut self.choice, 1);
            let l = len_minus2 - LOW_SYMBOLS;
            if l < MID_SYMBOLS {
                rc.bit(&mut self.choice2, 0);
                rc.bit_tree(&mut self.mid[pos_state], LEN_MID_BITS, l);
            } else {
                rc.bit(&mut self.choice2, 1);
                rc.bit_tree(&mut self.high, LEN_HIGH_BITS, l - MID_SYMBOLS);
            }
        }
        if self.track_prices {
            self.counters[pos_state] -= 1;
            if self.counters[pos_state] == 0 {
                self.update_prices(pos_state, bp);
            }
        }
    }

    /// Recomputes the price table of one position state.
    pub(crate) fn update_prices(&mut self, pos_state: usize, bp: &BitPrices) {
        let a0 = bp.zero(self.choice);
        let a1 = bp.one(self.choice);
        let b0 = a1 + bp.zero(self.choice2);
        let b1 = a1 + bp.one(self.choice2);
        let n = self.table_size as usize;
        let table = &mut self.prices[pos_state * LEN_SYMBOLS..][..LEN_SYMBOLS];
        for (i, p) in table.iter_mut().enumerate().take(n) {
            let i = i as u32;
            *p = if i < LOW_SYMBOLS {
                a0 + bp.bit_tree(&self.low[pos_state], LEN_LOW_BITS, i)
            } else if i < LOW_SYMBOLS + MID_SYMBOLS {
                b0 + bp.bit_tree(&self.mid[pos_state], LEN_MID_BITS, i - LOW_SYMBOLS)
            } else {
                b1 + bp.bit_tree(&self.high, LEN_HIGH_BITS, i - LOW_SYMBOLS - MID_SYMBOLS)
            };
        }
        self.counters[pos_state] = self.table_size;
    }

    /// The price table of `pos_state`: entry `len - 2` prices `len`.
    #[inline(always)]
    pub(crate) fn prices(&self, pos_state: usize) -> &[u32; LEN_SYMBOLS] {
        self.prices[pos_state * LEN_SYMBOLS..][..LEN_SYMBOLS]
            .try_into()
            .expect("a whole table")
    }

    /// Price of coding `len` (2..=table size + 1) in `pos_state`.
    #[inline(always)]
    pub(crate) fn price(&self, len: u32, pos_state: usize) -> u32 {
        self.prices[pos_state * LEN_SYMBOLS + (len - 2) as usize]
    }
}
