//! The LZMA encoder: symbol coding (literals, matches, repeated matches,
//! the end marker) on the [`LzmaCore`] state, the loop that has `greedy`
//! or `optimum` decide symbols and codes them, and the raw LZMA1
//! [`LzmaEncoder`].

use lzflow_core::{Encode, OutBuf, Progress};

use crate::encoder_options::{LzmaOptions, Mode};
use crate::encoder_state::{LzmaCore, KEEP_AFTER, NO_DIST};
use crate::model::{
    dist_footer_bits, dist_slot, dist_slot_base, is_literal_state, state_after_literal,
    state_after_match, state_after_rep, state_after_short_rep, ALIGN_BITS, ALIGN_SIZE,
    DIST_MODEL_END, DIST_MODEL_START, DIST_SLOT_BITS, DIST_STATES, END_MARKER_DIST,
    LITERAL_CODER_SIZE, MATCH_LEN_MIN,
};
use crate::LzmaError;

/// Bytes one symbol can add to the range coder at most (about 40), with
/// room to spare; keeps LZMA2 chunks within their 64 KiB.
const MAX_SYMBOL_BYTES: usize = 64;

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

impl LzmaCore {
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

    /// Codes symbols until the window runs low (unless finishing), the
    /// chunk is full, or the data is all coded.
    pub(crate) fn run(&mut self, limit: RunLimit) -> Stop {
        if limit.finishing {
            // The lookahead ends at the end of the data from here on.
            self.mf.mark_final();
        }
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
