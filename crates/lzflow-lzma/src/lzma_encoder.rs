//! The LZMA encoder: the probability model, symbol coding (literals,
//! matches, repeated matches, the end marker), the loop that turns the
//! window into symbols, and the raw LZMA1 [`LzmaEncoder`].

use std::collections::VecDeque;

use lzflow_core::{Encode, OutBuf, Progress};

use crate::encoder_options::{LzmaOptions, Mode};
use crate::length_encoder::LengthEncoder;
use crate::match_finder::{self, common_len, Finder, Match};
use crate::model::{
    dist_footer_bits, dist_slot, dist_slot_base, is_literal_state, state_after_literal,
    state_after_match, state_after_rep, state_after_short_rep, ALIGN_BITS, ALIGN_SIZE,
    DIST_MODEL_END, DIST_MODEL_START, DIST_SLOTS, DIST_SLOT_BITS, DIST_SPECIAL_PROBS, DIST_STATES,
    END_MARKER_DIST, FULL_DISTANCES, LEN_SYMBOLS, LITERAL_CODER_SIZE, MATCH_LEN_MAX, MATCH_LEN_MIN,
    POS_STATES_MAX, STATES,
};
use crate::optimum::{Opts, INITIAL_OPTS, OPTS};
use crate::price::{direct_bits_price, BitPrices};
use crate::range_coder::PROB_INIT;
use crate::range_encoder::RangeEncoder;
use crate::LzmaError;

/// A literal in the decision queue.
pub(crate) const NO_DIST: u32 = u32::MAX;
/// Refresh distance prices after this many matches, align prices after
/// this many aligned distances.
const DIST_PRICE_INTERVAL: u32 = 128;
const ALIGN_PRICE_INTERVAL: u32 = 16;
/// Bytes one symbol can add to the range coder at most (about 40), with
/// room to spare; keeps LZMA2 chunks within their 64 KiB.
const MAX_SYMBOL_BYTES: usize = 64;
/// Lookahead the encoder waits for before coding, so that its choices do
/// not depend on how the input was split: the optimizer's reach plus a
/// longest match.
pub(crate) const KEEP_AFTER: usize = OPTS + MATCH_LEN_MAX as usize + 8;

/// Where a coding run stopped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Stop {
    /// Needs more input before coding more (never when finishing).
    NeedInput,
    /// The chunk (or output batch) limit was reached.
    ChunkFull,
    /// Everything in the window is coded (only when finishing).
    Done,
}

/// Limits of one coding run.
#[derive(Debug, Clone, Copy)]
pub(crate) struct RunLimit {
    /// Code up to the end of the data instead of waiting for lookahead.
    pub(crate) finishing: bool,
    /// Absolute position the chunk must not pass.
    pub(crate) max_pos: u64,
    /// Most range coder bytes (including what a flush would add) in the
    /// chunk: a hard limit, checked before each symbol.
    pub(crate) max_compressed: usize,
    /// Stop once this many settled bytes are waiting to be handed out (a
    /// soft batch size; after they are drained the run always progresses).
    pub(crate) batch_bytes: usize,
}

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
    dist_slot: [[u16; DIST_SLOTS]; DIST_STATES],
    dist_special: [u16; DIST_SPECIAL_PROBS],
    align: [u16; ALIGN_SIZE],
    literal: lzflow_core::Lease<u16>,
    pub(crate) match_len: LengthEncoder,
    pub(crate) rep_len: LengthEncoder,
    pub(crate) state: u32,
    pub(crate) reps: [u32; 4],
    // Parameters.
    pub(crate) lc: u32,
    pub(crate) lp_mask: u32,
    pub(crate) pos_mask: u32,
    pub(crate) nice_len: u32,
    mode: Mode,
    // Prices (normal mode).
    dist_slot_prices: [[u32; DIST_SLOTS]; DIST_STATES],
    dist_prices: [[u32; FULL_DISTANCES as usize]; DIST_STATES],
    align_prices: [u32; ALIGN_SIZE],
    match_price_count: u32,
    align_price_count: u32,
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
            h.max(crate::lzma2_encoder::CHUNK_UNCOMPRESSED_MAX as usize)
        } else {
            h
        }
    }

    fn window_size(opts: &LzmaOptions, lzma2: bool) -> usize {
        let reserve = (opts.dict_size as usize / 2).max(1 << 20);
        Self::history(opts, lzma2) + KEEP_AFTER + reserve
    }

    /// Bytes allocated at most, for the documentation of `memory_usage`.
    pub(crate) fn memory_usage(opts: &LzmaOptions, lzma2: bool) -> u64 {
        let window = Self::window_size(opts, lzma2);
        let mf = match_finder::memory_usage(opts.mf, opts.dict_size, window);
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
        let mf = Finder::new(
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
    fn literal_probs_offset(&self, pos: u64, prev: u8) -> usize {
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

    // ---- symbol coding ---------------------------------------------------

    fn encode_literal(&mut self, pos_state: usize) {
        let i = self.idx(self.pos);
        let byte = self.mf.buf[i];
        let prev = if self.pos == 0 { 0 } else { self.mf.buf[i - 1] };
        let s = self.state as usize;
        self.rc.bit(&mut self.is_match[s][pos_state], 0);
        let off = self.literal_probs_offset(self.pos, prev);
        let probs = &mut self.literal[off..off + LITERAL_CODER_SIZE];
        if is_literal_state(self.state) {
            self.rc.bit_tree(probs, 8, u32::from(byte));
        } else {
            let match_byte = u32::from(self.mf.buf[i - self.reps[0] as usize - 1]);
            let byte = u32::from(byte);
            let mut sym = 1usize;
            let mut matched = true;
            for k in (0..8).rev() {
                let b = (byte >> k) & 1;
                if matched {
                    let mb = ((match_byte >> k) & 1) as usize;
                    self.rc.bit(&mut probs[((1 + mb) << 8) + sym], b);
                    matched = mb as u32 == b;
                } else {
                    self.rc.bit(&mut probs[sym], b);
                }
                sym = (sym << 1) | b as usize;
            }
        }
        self.state = state_after_literal(self.state);
    }

    fn encode_dist(&mut self, dist: u32, len: u32) {
        let ls = ((len - MATCH_LEN_MIN) as usize).min(DIST_STATES - 1);
        let slot = dist_slot(dist);
        self.rc
            .bit_tree(&mut self.dist_slot[ls], DIST_SLOT_BITS, slot);
        if slot >= DIST_MODEL_START {
            let footer = dist_footer_bits(slot);
            let base = dist_slot_base(slot);
            let reduced = dist - base;
            if slot < DIST_MODEL_END {
                self.rc.bit_tree_reverse(
                    &mut self.dist_special[(base - slot) as usize..],
                    footer,
                    reduced,
                );
            } else {
                self.rc
                    .direct_bits(reduced >> ALIGN_BITS, footer - ALIGN_BITS);
                self.rc.bit_tree_reverse(
                    &mut self.align,
                    ALIGN_BITS,
                    reduced & (ALIGN_SIZE as u32 - 1),
                );
                self.align_price_count += 1;
            }
        }
        self.match_price_count += 1;
    }

    fn encode_match(&mut self, dist: u32, len: u32, pos_state: usize) {
        let s = self.state as usize;
        self.rc.bit(&mut self.is_match[s][pos_state], 1);
        self.rc.bit(&mut self.is_rep[s], 0);
        self.match_len
            .encode(&mut self.rc, len - MATCH_LEN_MIN, pos_state, &self.bp);
        self.encode_dist(dist, len);
        self.reps = [dist, self.reps[0], self.reps[1], self.reps[2]];
        self.state = state_after_match(self.state);
    }

    fn encode_rep(&mut self, index: usize, len: u32, pos_state: usize) {
        let s = self.state as usize;
        self.rc.bit(&mut self.is_match[s][pos_state], 1);
        self.rc.bit(&mut self.is_rep[s], 1);
        if index == 0 {
            self.rc.bit(&mut self.is_rep0[s], 0);
            self.rc
                .bit(&mut self.is_rep0_long[s][pos_state], u32::from(len != 1));
        } else {
            self.rc.bit(&mut self.is_rep0[s], 1);
            if index == 1 {
                self.rc.bit(&mut self.is_rep1[s], 0);
            } else {
                self.rc.bit(&mut self.is_rep1[s], 1);
                self.rc.bit(&mut self.is_rep2[s], (index - 2) as u32);
            }
            let d = self.reps[index];
            self.reps.copy_within(0..index, 1);
            self.reps[0] = d;
        }
        if len == 1 {
            self.state = state_after_short_rep(self.state);
        } else {
            self.rep_len
                .encode(&mut self.rc, len - MATCH_LEN_MIN, pos_state, &self.bp);
            self.state = state_after_rep(self.state);
        }
    }

    /// Codes the end-of-payload marker: a match at distance 2^32.
    pub(crate) fn encode_end_marker(&mut self) {
        let pos_state = (self.pos as u32 & self.pos_mask) as usize;
        let s = self.state as usize;
        self.rc.bit(&mut self.is_match[s][pos_state], 1);
        self.rc.bit(&mut self.is_rep[s], 0);
        self.match_len.encode(&mut self.rc, 0, pos_state, &self.bp);
        self.encode_dist(END_MARKER_DIST, MATCH_LEN_MIN);
    }

    /// Codes one decided symbol at `pos`. Decisions carry distances rather
    /// than rep indices so that they stay valid across an LZMA2 state reset:
    /// a distance that is one of the reps is coded as that rep.
    fn encode_decision(&mut self, len: u32, dist: u32) {
        let pos_state = (self.pos as u32 & self.pos_mask) as usize;
        if len == 1 {
            if dist != NO_DIST && dist == self.reps[0] && u64::from(dist) < self.pos {
                self.encode_rep(0, 1, pos_state);
            } else {
                self.encode_literal(pos_state);
            }
        } else if let Some(i) = self.reps.iter().position(|&r| r == dist) {
            self.encode_rep(i, len, pos_state);
        } else {
            self.encode_match(dist, len, pos_state);
        }
        self.pos += u64::from(len);
        // The finder indexes every position, also those inside matches.
        let mf_pos = self.mf.pos();
        if mf_pos < self.pos {
            self.mf.skip((self.pos - mf_pos) as usize);
        }
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

    /// Codes symbols until the window runs low (unless finishing), the
    /// chunk is full, or the data is all coded.
    pub(crate) fn run(&mut self, limit: RunLimit) -> Stop {
        loop {
            if self.queue.is_empty() {
                let avail = self.mf.end() - self.pos;
                if avail == 0 {
                    return if limit.finishing {
                        Stop::Done
                    } else {
                        Stop::NeedInput
                    };
                }
                if !limit.finishing && avail < KEEP_AFTER as u64 {
                    return Stop::NeedInput;
                }
            }
            if self.rc.pending_size() + MAX_SYMBOL_BYTES > limit.max_compressed
                || self.rc.out.len() >= limit.batch_bytes
            {
                return Stop::ChunkFull;
            }
            if self.queue.is_empty() {
                match self.mode {
                    Mode::Fast => {
                        let d = self.decide_fast();
                        self.queue.push_back(d);
                    }
                    Mode::Normal => self.decide_normal(),
                }
            }
            let (len, dist) = *self.queue.front().expect("a decision");
            if self.pos + u64::from(len) > limit.max_pos {
                return Stop::ChunkFull;
            }
            self.queue.pop_front();
            self.encode_decision(len, dist);
        }
    }
}

/// Where an [`LzmaEncoder`] stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    Running,
    Finished,
}

/// Raw LZMA1 encoder (no header): what 7z's LZMA coder and the .lzma
/// container carry.
///
/// LZMA1 has no way to make data decodable mid-stream: [`Encode::flush`]
/// codes all input given so far and hands out every settled byte, but the
/// last few bytes stay in the range coder until [`Encode::finish`]. A
/// flush also changes the output (the encoder cannot look past it).
#[derive(Debug)]
pub struct LzmaEncoder {
    core: LzmaCore,
    end_marker: bool,
    out_pos: usize,
    phase: Phase,
}

/// Range-coder bytes gathered before they are handed out.
const LZMA1_BATCH: usize = 32 << 10;

impl LzmaEncoder {
    /// An encoder for `opts`; `end_marker` ends the stream with the
    /// end-of-payload marker (needed when the size is not stored elsewhere).
    pub fn new(opts: &LzmaOptions, end_marker: bool) -> Result<Self, LzmaError> {
        Self::build(opts, end_marker, None)
    }

    /// An encoder for an input of about `size` bytes: the dictionary is
    /// fitted to it ([`LzmaOptions::fitted_to`]; callers must store
    /// [`dict_size`](Self::dict_size) in the properties) and the window
    /// starts at that size. More input than `size` is still encoded
    /// correctly, with the smaller dictionary.
    pub fn with_size_hint(
        opts: &LzmaOptions,
        end_marker: bool,
        size: u64,
    ) -> Result<Self, LzmaError> {
        Self::build(&opts.fitted_to(size), end_marker, Some(size))
    }

    fn build(
        opts: &LzmaOptions,
        end_marker: bool,
        size_hint: Option<u64>,
    ) -> Result<Self, LzmaError> {
        Ok(LzmaEncoder {
            core: LzmaCore::new(opts, false, size_hint)?,
            end_marker,
            out_pos: 0,
            phase: Phase::Running,
        })
    }

    /// Bytes the encoder allocates at most for `opts`.
    pub fn memory_usage(opts: &LzmaOptions) -> u64 {
        LzmaCore::memory_usage(opts, false)
    }

    /// The dictionary size in use (fitted by
    /// [`with_size_hint`](Self::with_size_hint)).
    pub fn dict_size(&self) -> u32 {
        self.core.dict_size
    }

    /// Starts a new independent stream, keeping allocations.
    pub fn reset(&mut self) {
        self.core.reset();
        self.out_pos = 0;
        self.phase = Phase::Running;
    }

    /// Uncompressed bytes taken so far.
    pub fn total_in(&self) -> u64 {
        self.core.mf.end()
    }

    /// Hands out settled bytes; true when none are left.
    fn drain(&mut self, output: &mut OutBuf<'_>) -> bool {
        let out = &self.core.rc.out;
        self.out_pos += output.push(&out[self.out_pos..]);
        if self.out_pos == out.len() {
            self.core.rc.out.clear();
            self.out_pos = 0;
            true
        } else {
            false
        }
    }

    fn limit(finishing: bool) -> RunLimit {
        RunLimit {
            finishing,
            max_pos: u64::MAX,
            // The range coder may hold back any number of bytes (a carry
            // can still ripple through them), so only settled bytes count.
            max_compressed: usize::MAX,
            batch_bytes: LZMA1_BATCH,
        }
    }
}

impl Encode for LzmaEncoder {
    type Error = LzmaError;

    fn encode(
        &mut self,
        input: &mut lzflow_core::InBuf<'_>,
        output: &mut OutBuf<'_>,
    ) -> Result<Progress, LzmaError> {
        if self.phase == Phase::Finished {
            return Err(LzmaError::Usage("encode() called after finish()"));
        }
        loop {
            if !self.drain(output) {
                return Ok(Progress::OutputFull);
            }
            let keep = self.core.keep_from(self.core.pos);
            let n = self.core.mf.fill(input.remaining(), keep);
            input.advance(n);
            let before = self.core.pos;
            match self.core.run(Self::limit(false)) {
                Stop::ChunkFull => {}
                _ if input.is_empty() => return Ok(Progress::NeedInput),
                // Neither room for input nor anything to code: a bug, but
                // an error beats a caller spinning forever.
                _ if n == 0 && self.core.pos == before => {
                    return Err(LzmaError::Usage("encoder window is full"))
                }
                _ => {}
            }
        }
    }

    fn flush(&mut self, output: &mut OutBuf<'_>) -> Result<Progress, LzmaError> {
        if self.phase == Phase::Finished {
            return Ok(Progress::NeedInput);
        }
        loop {
            if !self.drain(output) {
                return Ok(Progress::OutputFull);
            }
            if self.core.run(Self::limit(true)) == Stop::Done {
                return Ok(if self.drain(output) {
                    Progress::NeedInput
                } else {
                    Progress::OutputFull
                });
            }
        }
    }

    fn finish(&mut self, output: &mut OutBuf<'_>) -> Result<Progress, LzmaError> {
        loop {
            if !self.drain(output) {
                return Ok(Progress::OutputFull);
            }
            if self.phase == Phase::Finished {
                return Ok(Progress::StreamEnd);
            }
            if self.core.run(Self::limit(true)) == Stop::Done {
                if self.end_marker {
                    self.core.encode_end_marker();
                }
                self.core.rc.flush();
                self.phase = Phase::Finished;
            }
        }
    }
}
