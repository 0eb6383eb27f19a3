//! The encoder state shared by LZMA1 and LZMA2 and by both parsers
//! ([`LzmaCore`]): the probability model, the price tables computed from
//! it, the match finder and range encoder, and the parsing buffers. Lowest
//! layer of the encoder: `greedy` and `optimum` decide symbols on it,
//! `lzma_encoder` codes them, `lzma2_encoder` cuts the output into chunks.

use std::collections::VecDeque;

use crate::encoder_options::{LzmaOptions, Mode};
use crate::length_encoder::LengthEncoder;
use crate::match_finder::{self, common_len, Finder, Match};
use crate::model::{
    dist_footer_bits, dist_slot, dist_slot_base, is_literal_state, ALIGN_BITS, ALIGN_SIZE,
    DIST_MODEL_END, DIST_MODEL_START, DIST_SLOTS, DIST_SLOT_BITS, DIST_SPECIAL_PROBS, DIST_STATES,
    FULL_DISTANCES, LEN_SYMBOLS, LITERAL_CODER_SIZE, MATCH_LEN_MAX, POS_STATES_MAX, STATES,
};
use crate::price::{direct_bits_price, BitPrices};
use crate::range_coder::PROB_INIT;
use crate::range_encoder::RangeEncoder;
use crate::search_table::{Opts, INITIAL_OPTS, OPTS};
use crate::LzmaError;

/// A literal in the decision queue.
pub(crate) const NO_DIST: u32 = u32::MAX;
/// Refresh distance prices after this many matches, align prices after
/// this many aligned distances.
const DIST_PRICE_INTERVAL: u32 = 128;
const ALIGN_PRICE_INTERVAL: u32 = 16;
/// Lookahead the encoder waits for before coding, so that its choices do
/// not depend on how the input was split: the optimizer's reach plus a
/// longest match.
pub(crate) const KEEP_AFTER: usize = OPTS + MATCH_LEN_MAX as usize + 8;
/// Most uncompressed bytes in one LZMA chunk of LZMA2: `lzma2_encoder`
/// cuts chunks there, and the window keeps a whole chunk of history (a
/// chunk that does not shrink is re-sent uncompressed).
pub(crate) const CHUNK_UNCOMPRESSED_MAX: u64 = 2 << 20;

/// The encoder state shared by LZMA1 and LZMA2.
#[derive(Debug)]
pub(crate) struct LzmaCore {
    pub(crate) rc: RangeEncoder,
    pub(crate) mf: Finder,
    pub(crate) bp: BitPrices,
    // Probability model.
    pub(crate) is_match: [[u16; POS_STATES_MAX]; STATES],
    pub(crate) is_rep: [u16; STATES],
    pub(crate) is_rep0: [u16; STATES],
    pub(crate) is_rep1: [u16; STATES],
    pub(crate) is_rep2: [u16; STATES],
    pub(crate) is_rep0_long: [[u16; POS_STATES_MAX]; STATES],
    pub(crate) dist_slot: [[u16; DIST_SLOTS]; DIST_STATES],
    pub(crate) dist_special: [u16; DIST_SPECIAL_PROBS],
    pub(crate) align: [u16; ALIGN_SIZE],
    pub(crate) literal: lzflow_core::Lease<u16>,
    pub(crate) match_len: LengthEncoder,
    pub(crate) rep_len: LengthEncoder,
    pub(crate) state: u32,
    pub(crate) reps: [u32; 4],
    // Parameters.
    pub(crate) lc: u32,
    pub(crate) lp_mask: u32,
    pub(crate) pos_mask: u32,
    pub(crate) nice_len: u32,
    pub(crate) mode: Mode,
    // Prices (normal mode).
    dist_slot_prices: [[u32; DIST_SLOTS]; DIST_STATES],
    dist_prices: [[u32; FULL_DISTANCES as usize]; DIST_STATES],
    align_prices: [u32; ALIGN_SIZE],
    pub(crate) match_price_count: u32,
    pub(crate) align_price_count: u32,
    // Parsing.
    /// Absolute position of the next byte to code.
    pub(crate) pos: u64,
    /// Matches found at `cached_at` (the finder is already past it).
    pub(crate) matches: Vec<Match>,
    pub(crate) next_matches: Vec<Match>,
    pub(crate) cached_at: Option<u64>,
    /// Decided symbols not coded yet: (length, encoded distance or NO_DIST).
    pub(crate) queue: VecDeque<(u32, u32)>,
    pub(crate) opts: Opts,
    pub(crate) path: Vec<(u32, u32)>,
    /// History kept behind the coding position.
    history: usize,
    /// The dictionary size coded for.
    pub(crate) dict_size: u32,
}

impl LzmaCore {
    /// Bytes of history the window keeps for a dictionary, and for LZMA2
    /// also for a whole chunk (which may be re-sent uncompressed).
    fn history(opts: &LzmaOptions, lzma2: bool) -> usize {
        let h = opts.dict_size as usize + 1;
        if lzma2 {
            h.max(CHUNK_UNCOMPRESSED_MAX as usize)
        } else {
            h
        }
    }

    fn window_size(opts: &LzmaOptions, lzma2: bool) -> usize {
        let reserve = if Self::threaded(opts) {
            // Less room, more moves: the encoder's thread has time to spare
            // while the finder's thread walks trees (and the finder keeps a
            // second window).
            match_finder::encoder_room(opts.dict_size)
        } else {
            (opts.dict_size as usize / 2).max(1 << 20)
        };
        Self::history(opts, lzma2) + KEEP_AFTER + reserve
    }

    /// Whether the match finder runs on a thread of its own.
    fn threaded(opts: &LzmaOptions) -> bool {
        opts.match_finder_thread && opts.mf.is_binary_tree()
    }

    /// Bytes allocated at most, for the documentation of `memory_usage`.
    pub(crate) fn memory_usage(opts: &LzmaOptions, lzma2: bool) -> u64 {
        let window = Self::window_size(opts, lzma2);
        let mut mf = match_finder::memory_usage(opts.mf, opts.dict_size, window);
        if Self::threaded(opts) {
            // The finder thread's own window, and the batches in flight.
            let tree = match_finder::tree_window(opts.dict_size, opts.nice_len);
            mf += (tree + match_finder::in_flight(opts.effective_depth())) as u64;
        }
        let literal = (LITERAL_CODER_SIZE << (opts.lc + opts.lp)) as u64 * 2;
        let parse = if opts.mode == Mode::Normal {
            ((OPTS + 1) * 40) as u64 + 2 * 2 * (POS_STATES_MAX * LEN_SYMBOLS) as u64 * 4
        } else {
            0
        };
        // Range coder buffer and the LZMA2 chunk being written.
        mf + literal + parse + 2 * (64 << 10) + 4096
    }

    /// A core for `opts`; with `size_hint` (the expected input size) the
    /// window starts at that size instead of its largest.
    pub(crate) fn new(
        opts: &LzmaOptions,
        lzma2: bool,
        size_hint: Option<u64>,
    ) -> Result<Self, LzmaError> {
        opts.validate(lzma2)?;
        let normal = opts.mode == Mode::Normal;
        let window = Self::window_size(opts, lzma2);
        let initial = size_hint.map_or(window, |h| usize::try_from(h).unwrap_or(window));
        let finder = if opts.match_finder_thread {
            Finder::threaded
        } else {
            Finder::new
        };
        let mf = finder(
            opts.mf,
            opts.dict_size,
            opts.nice_len,
            opts.effective_depth(),
            window,
            initial,
        )?;
        let mut literal =
            lzflow_core::Pool::<u16>::global().lease(LITERAL_CODER_SIZE << (opts.lc + opts.lp));
        literal.resize(LITERAL_CODER_SIZE << (opts.lc + opts.lp), PROB_INIT);
        let bp = BitPrices::new();
        let mut core = LzmaCore {
            rc: RangeEncoder::new(),
            mf,
            bp,
            is_match: [[PROB_INIT; POS_STATES_MAX]; STATES],
            is_rep: [PROB_INIT; STATES],
            is_rep0: [PROB_INIT; STATES],
            is_rep1: [PROB_INIT; STATES],
            is_rep2: [PROB_INIT; STATES],
            is_rep0_long: [[PROB_INIT; POS_STATES_MAX]; STATES],
            dist_slot: [[PROB_INIT; DIST_SLOTS]; DIST_STATES],
            dist_special: [PROB_INIT; DIST_SPECIAL_PROBS],
            align: [PROB_INIT; ALIGN_SIZE],
            literal,
            match_len: LengthEncoder::new(opts.nice_len - 1, normal),
            rep_len: LengthEncoder::new(opts.nice_len - 1, normal),
            state: 0,
            reps: [0; 4],
            lc: opts.lc,
            lp_mask: (1 << opts.lp) - 1,
            pos_mask: (1 << opts.pb) - 1,
            nice_len: opts.nice_len,
            mode: opts.mode,
            dist_slot_prices: [[0; DIST_SLOTS]; DIST_STATES],
            dist_prices: [[0; FULL_DISTANCES as usize]; DIST_STATES],
            align_prices: [0; ALIGN_SIZE],
            match_price_count: 0,
            align_price_count: 0,
            pos: 0,
            matches: Vec::with_capacity(MATCH_LEN_MAX as usize + 1),
            next_matches: Vec::with_capacity(MATCH_LEN_MAX as usize + 1),
            cached_at: None,
            // The queue, the path and the search table grow to what the
            // input needs (at most OPTS entries).
            queue: VecDeque::new(),
            opts: Opts::new(if normal { INITIAL_OPTS } else { 0 }),
            path: Vec::new(),
            history: Self::history(opts, lzma2),
            dict_size: opts.dict_size,
        };
        core.reset_state();
        Ok(core)
    }

    /// Resets the probability model, state and reps (LZMA2 state reset);
    /// the window and pending decisions stay.
    pub(crate) fn reset_state(&mut self) {
        self.is_match = [[PROB_INIT; POS_STATES_MAX]; STATES];
        self.is_rep = [PROB_INIT; STATES];
        self.is_rep0 = [PROB_INIT; STATES];
        self.is_rep1 = [PROB_INIT; STATES];
        self.is_rep2 = [PROB_INIT; STATES];
        self.is_rep0_long = [[PROB_INIT; POS_STATES_MAX]; STATES];
        self.dist_slot = [[PROB_INIT; DIST_SLOTS]; DIST_STATES];
        self.dist_special = [PROB_INIT; DIST_SPECIAL_PROBS];
        self.align = [PROB_INIT; ALIGN_SIZE];
        self.literal.fill(PROB_INIT);
        let pos_states = self.pos_mask as usize + 1;
        self.match_len.reset(pos_states, &self.bp);
        self.rep_len.reset(pos_states, &self.bp);
        self.state = 0;
        self.reps = [0; 4];
        if self.mode == Mode::Normal {
            self.update_dist_prices();
            self.update_align_prices();
        }
    }

    /// Starts a new independent stream, keeping allocations.
    pub(crate) fn reset(&mut self) {
        self.mf.reset();
        self.rc.reset();
        self.rc.out.clear();
        self.pos = 0;
        self.cached_at = None;
        self.queue.clear();
        self.reset_state();
    }

    /// Oldest absolute position the window must keep, given the start of
    /// the chunk being built (which may have to be re-sent raw).
    pub(crate) fn keep_from(&self, chunk_start: u64) -> u64 {
        self.pos
            .saturating_sub(self.history as u64)
            .min(chunk_start)
    }

    /// Index in the window of an absolute position.
    #[inline(always)]
    pub(crate) fn idx(&self, pos: u64) -> usize {
        (pos - self.mf.base) as usize
    }

    // ---- prices ----------------------------------------------------------

    pub(crate) fn update_dist_prices(&mut self) {
        let bp = &self.bp;
        for ls in 0..DIST_STATES {
            for slot in 0..DIST_SLOTS as u32 {
                let mut p = bp.bit_tree(&self.dist_slot[ls], DIST_SLOT_BITS, slot);
                if slot >= DIST_MODEL_END {
                    p += direct_bits_price(dist_footer_bits(slot) - ALIGN_BITS);
                }
                self.dist_slot_prices[ls][slot as usize] = p;
            }
            for d in 0..DIST_MODEL_START {
                self.dist_prices[ls][d as usize] = self.dist_slot_prices[ls][d as usize];
            }
        }
        for d in DIST_MODEL_START..FULL_DISTANCES {
            let slot = dist_slot(d);
            let footer = dist_footer_bits(slot);
            let base = dist_slot_base(slot);
            let p = bp.bit_tree_reverse(
                &self.dist_special[(base - slot) as usize..],
                footer,
                d - base,
            );
            for ls in 0..DIST_STATES {
                self.dist_prices[ls][d as usize] = p + self.dist_slot_prices[ls][slot as usize];
            }
        }
        self.match_price_count = 0;
    }

    pub(crate) fn update_align_prices(&mut self) {
        for i in 0..ALIGN_SIZE as u32 {
            self.align_prices[i as usize] = self.bp.bit_tree_reverse(&self.align, ALIGN_BITS, i);
        }
        self.align_price_count = 0;
    }

    /// Refreshes the distance and align prices when they are due.
    pub(crate) fn refresh_prices(&mut self) {
        if self.match_price_count >= DIST_PRICE_INTERVAL {
            self.update_dist_prices();
        }
        if self.align_price_count >= ALIGN_PRICE_INTERVAL {
            self.update_align_prices();
        }
    }

    /// Price of the distance of a normal match whose length has
    /// length-to-distance state `ls` (min(len - 2, 3)).
    #[inline(always)]
    pub(crate) fn dist_price(&self, dist: u32, ls: usize) -> u32 {
        if dist < FULL_DISTANCES {
            self.dist_prices[ls][dist as usize]
        } else {
            self.dist_slot_prices[ls][dist_slot(dist) as usize]
                + self.align_prices[(dist & (ALIGN_SIZE as u32 - 1)) as usize]
        }
    }

    /// [`dist_price`](Self::dist_price) for every length-to-distance state.
    #[inline(always)]
    pub(crate) fn dist_prices_all(&self, dist: u32) -> [u32; DIST_STATES] {
        if dist < FULL_DISTANCES {
            let d = dist as usize;
            // By reference: `map` on the table itself would copy all of it.
            let t = &self.dist_prices;
            [t[0][d], t[1][d], t[2][d], t[3][d]]
        } else {
            let slot = dist_slot(dist) as usize;
            let align = self.align_prices[(dist & (ALIGN_SIZE as u32 - 1)) as usize];
            let t = &self.dist_slot_prices;
            [t[0][slot], t[1][slot], t[2][slot], t[3][slot]].map(|p| p + align)
        }
    }

    /// Price of choosing rep `index` (the is_rep0.. bits, without
    /// is_match/is_rep and without the length).
    #[inline(always)]
    pub(crate) fn pure_rep_price(&self, index: usize, state: u32, pos_state: usize) -> u32 {
        let s = state as usize;
        let bp = &self.bp;
        match index {
            0 => bp.zero(self.is_rep0[s]) + bp.one(self.is_rep0_long[s][pos_state]),
            1 => bp.one(self.is_rep0[s]) + bp.zero(self.is_rep1[s]),
            i => {
                bp.one(self.is_rep0[s])
                    + bp.one(self.is_rep1[s])
                    + bp.bit(self.is_rep2[s], (i - 2) as u32)
            }
        }
    }

    /// Price of a short rep (rep0, length 1) without is_match/is_rep.
    #[inline(always)]
    pub(crate) fn short_rep_price(&self, state: u32, pos_state: usize) -> u32 {
        let s = state as usize;
        self.bp.zero(self.is_rep0[s]) + self.bp.zero(self.is_rep0_long[s][pos_state])
    }

    #[inline(always)]
    pub(crate) fn literal_probs_offset(&self, pos: u64, prev: u8) -> usize {
        let ctx = (((pos as u32) & self.lp_mask) << self.lc) + (u32::from(prev) >> (8 - self.lc));
        ctx as usize * LITERAL_CODER_SIZE
    }

    /// Price of coding `byte` as a literal at `pos` after `prev`; in a
    /// state after a match the literal is coded against `match_byte`.
    #[inline]
    pub(crate) fn literal_price(
        &self,
        pos: u64,
        prev: u8,
        state: u32,
        match_byte: u8,
        byte: u8,
    ) -> u32 {
        let off = self.literal_probs_offset(pos, prev);
        let probs = &self.literal[off..off + LITERAL_CODER_SIZE];
        let bp = &self.bp;
        // `sym` is the byte under a marker bit, shifted left once per coded
        // bit: its bits from 8 up are the tree node, bit 7 the next bit.
        let mut sym = u32::from(byte) | 0x100;
        let mut price = 0;
        if is_literal_state(state) {
            for _ in 0..8 {
                price += bp.bit(probs[(sym >> 8) as usize], (sym >> 7) & 1);
                sym <<= 1;
            }
            return price;
        }
        // While the bits so far equal the match byte's, `offs` is 0x100 and
        // the match bit (bit 8 of the shifted `match_byte`) picks one of the
        // two upper trees; after the first difference it is 0 and the plain
        // tree is used: no branches.
        let mut match_byte = u32::from(match_byte);
        let mut offs = 0x100u32;
        for _ in 0..8 {
            match_byte <<= 1;
            let node = offs + (match_byte & offs) + (sym >> 8);
            price += bp.bit(probs[node as usize], (sym >> 7) & 1);
            sym <<= 1;
            // Bit 8 of `sym` is now the bit just priced.
            offs &= !(match_byte ^ sym);
        }
        price
    }

    /// Finds matches at the finder's position into `into`, extending a
    /// nice_len match as far as it goes (up to 273).
    pub(crate) fn find_matches(mf: &mut Finder, nice_len: u32, into: &mut Vec<Match>) {
        let avail = mf.avail();
        let cur = mf.read_pos;
        mf.find(into);
        if let Some(last) = into.last_mut() {
            if last.len == nice_len && (nice_len as usize) < avail {
                let limit = avail.min(MATCH_LEN_MAX as usize);
                let back = cur - last.dist as usize - 1;
                last.len = common_len(&mf.buf, back, cur, nice_len as usize, limit) as u32;
            }
        }
    }

    /// Makes `self.matches` hold the matches at `self.pos`.
    pub(crate) fn matches_at_pos(&mut self) {
        if self.cached_at == Some(self.pos) {
            self.cached_at = None;
            return;
        }
        debug_assert_eq!(self.mf.pos(), self.pos);
        self.cached_at = None;
        Self::find_matches(&mut self.mf, self.nice_len, &mut self.matches);
    }
}
