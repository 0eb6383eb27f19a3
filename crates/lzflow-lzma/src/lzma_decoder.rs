//! The LZMA decoder: probability model, symbol decoding and the match copy
//! loop shared by LZMA1 and LZMA2, plus the raw LZMA1 stream decoder.

use lzflow_core::{Decode, InBuf, Lease, Limits, OutBuf, Pool, Progress};

use crate::model::{
    dist_footer_bits, dist_slot_base, is_literal_state, state_after_literal, state_after_match,
    state_after_rep, state_after_short_rep, ALIGN_BITS, ALIGN_SIZE, DIST_MODEL_END,
    DIST_MODEL_START, DIST_SLOTS, DIST_SLOT_BITS, DIST_SPECIAL_PROBS, DIST_STATES, END_MARKER_DIST,
    LEN_HIGH_BITS, LEN_HIGH_SYMBOLS, LEN_LOW_BITS, LEN_LOW_SYMBOLS, LEN_MID_BITS, LEN_MID_SYMBOLS,
    LITERAL_CODER_SIZE, MATCH_LEN_MIN, POS_BITS_MAX, POS_STATES_MAX, STATES,
};
use crate::range_coder::{INIT_BYTES, PROB_INIT};
use crate::range_decoder::RangeDecoder;
use crate::window::{Window, MIN_DICT};
use crate::{DecoderOptions, LzmaError, LzmaProps};

// Layout of the probability table (one pooled `Vec<u16>`); the sizes come
// from the model.
const IS_MATCH: usize = 0;
const IS_REP: usize = IS_MATCH + STATES * POS_STATES_MAX;
const IS_REP0: usize = IS_REP + STATES;
const IS_REP1: usize = IS_REP0 + STATES;
const IS_REP2: usize = IS_REP1 + STATES;
const IS_REP0_LONG: usize = IS_REP2 + STATES;
const POS_SLOT: usize = IS_REP0_LONG + STATES * POS_STATES_MAX;
/// Distance slots 4..14 use reverse bit trees indexed from `dist - slot`.
const POS_SPECIAL: usize = POS_SLOT + DIST_STATES * DIST_SLOTS;
const ALIGN: usize = POS_SPECIAL + DIST_SPECIAL_PROBS;
const LEN_MATCH: usize = ALIGN + ALIGN_SIZE;
const LEN_REP: usize = LEN_MATCH + LEN_PROBS;
const LITERAL: usize = LEN_REP + LEN_PROBS;
// Inside a length coder.
const LEN_CHOICE: usize = 0;
const LEN_CHOICE2: usize = 1;
const LEN_LOW: usize = 2;
const LEN_MID: usize = LEN_LOW + POS_STATES_MAX * LEN_LOW_SYMBOLS;
const LEN_HIGH: usize = LEN_MID + POS_STATES_MAX * LEN_MID_SYMBOLS;
const LEN_PROBS: usize = LEN_HIGH + LEN_HIGH_SYMBOLS;
/// Shortest match, as the `usize` lengths are kept in here.
const LEN_MIN: usize = MATCH_LEN_MIN as usize;

/// Input bytes one symbol can consume at most is 49 (one per decoded bit of
/// the longest match); with this many bytes left a symbol always fits.
pub(crate) const SYMBOL_MARGIN: usize = 64;

/// Number of probabilities for given lc + lp.
fn prob_count(lc_lp: u32) -> usize {
    LITERAL + (LITERAL_CODER_SIZE << lc_lp)
}

/// What [`LzmaCore::decode_partial`] may assume about the input after the
/// bytes it is given.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Partial {
    /// More will follow.
    Arriving,
    /// None will.
    Ended,
    /// None will, and the last symbol already took a stand-in byte.
    Exhausted,
}

/// Why a decoding run stopped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Stop {
    /// The output limit of the run was reached.
    Limit,
    /// The input limit (or symbol count) of the run was reached.
    Input,
    /// An end-of-payload marker was decoded.
    EndMarker,
}

/// A decoded symbol, before it touches the window.
enum Symbol {
    Literal(u8),
    /// A match of this length at distance `reps[0] + 1`.
    Match(usize),
    EndMarker,
}

/// LZMA model state: probabilities, state machine, repeat distances and an
/// unfinished match. Shared by the LZMA1 and LZMA2 decoders.
#[derive(Debug)]
pub(crate) struct LzmaCore {
    probs: Lease<u16>,
    props: LzmaProps,
    /// Literal coder of a byte: `((position << 8 | prev) & lit_mask) >> lit_shift`,
    /// that is `(position & lp_mask) << lc | prev >> (8 - lc)`.
    lit_mask: usize,
    lit_shift: u32,
    pb_mask: usize,
    state: usize,
    reps: [u32; 4],
    /// Bytes of the last match not yet copied (output limit hit mid-match).
    pub pending: usize,
}

impl LzmaCore {
    /// A model for `props`; the table has room for up to `max_lc_lp`.
    pub fn new(props: LzmaProps, max_lc_lp: u32, pool: &Pool<u16>) -> Self {
        let mut probs = pool.lease(prob_count(max_lc_lp));
        probs.resize(prob_count(props.lc + props.lp), PROB_INIT);
        let mut core = LzmaCore {
            probs,
            props,
            lit_mask: 0,
            lit_shift: 0,
            pb_mask: 0,
            state: 0,
            reps: [0; 4],
            pending: 0,
        };
        core.reset(props);
        core
    }

    /// Resets the state and probabilities and sets `props` (the table must
    /// have been sized for them).
    pub fn reset(&mut self, props: LzmaProps) {
        self.props = props;
        self.lit_mask = ((1 << props.lp) - 1) << 8 | 0xFF;
        self.lit_shift = 8 - props.lc;
        self.pb_mask = (1 << props.pb) - 1;
        let n = prob_count(props.lc + props.lp);
        self.probs.clear();
        self.probs.resize(n, PROB_INIT);
        self.state = 0;
        self.reps = [0; 4];
        self.pending = 0;
    }

    /// The current properties.
    pub fn props(&self) -> LzmaProps {
        self.props
    }

    /// Bytes of memory the model needs for these properties.
    pub fn memory_usage(lc_lp: u32) -> u64 {
        (prob_count(lc_lp) * 2) as u64
    }

    /// Decodes one symbol. With `UPDATE` false nothing in `self` changes
    /// (state and reps are passed in), which gives a dry run that tells how
    /// many input bytes the symbol needs.
    ///
    /// Indices into the fixed part of the table are masked to the sizes of
    /// their dimensions (`state < 12 <= 16`, `pos_state < 16`): a no-op on
    /// the values that occur, and it lets the compiler drop every bounds
    /// check in this hot function.
    #[inline(always)]
    fn symbol<const UPDATE: bool>(
        probs: &mut Probs<'_>,
        rc: &mut RangeDecoder<'_>,
        state: &mut usize,
        reps: &mut [u32; 4],
        ctx: &SymbolCtx<'_>,
    ) -> Symbol {
        let fixed = &mut *probs.fixed;
        let pos_state = ctx.position & ctx.pb_mask & (POS_STATES_MAX - 1);
        let s = *state;
        let s_pos = ((s & 15) << POS_BITS_MAX) + pos_state;
        // Between symbols the range is normalized.
        if rc.bit_normalized::<UPDATE>(&mut fixed[IS_MATCH + s_pos]) == 0 {
            // lc <= 8 and lp <= 4: below 2^12, so `base` cannot overflow.
            let lit_state = (((ctx.position << 8 | usize::from(ctx.prev)) & ctx.lit_mask)
                >> ctx.lit_shift)
                & 0xFFF;
            let base = LITERAL_CODER_SIZE * lit_state;
            let lits = &mut probs.literals[base..base + LITERAL_CODER_SIZE];
            let lits: &mut [u16; LITERAL_CODER_SIZE] = lits.try_into().expect("literal coder size");
            let (next, sym) = if is_literal_state(s) {
                rc.literal::<UPDATE>(lits)
            } else {
                rc.literal_matched::<UPDATE>(lits, u32::from(ctx.match_byte(reps[0])))
            };
            *rc = next;
            *state = state_after_literal(s);
            return Symbol::Literal(sym as u8);
        }
        if rc.bit::<UPDATE>(&mut fixed[IS_REP + (s & 15)]) == 0 {
            // A new distance.
            *state = state_after_match(s);
            let len = Self::length::<UPDATE>(fixed, rc, LEN_MATCH, pos_state);
            let len_state = (len - LEN_MIN).min(DIST_STATES - 1);
            let slot = rc.bittree::<UPDATE, _>(
                sub::<DIST_SLOTS>(
                    fixed,
                    POS_SLOT + ((len_state & (DIST_STATES - 1)) << DIST_SLOT_BITS),
                ),
                DIST_SLOT_BITS,
            );
            let dist = if slot < DIST_MODEL_START {
                slot
            } else {
                let direct = dist_footer_bits(slot);
                let mut dist = dist_slot_base(slot);
                if slot < DIST_MODEL_END {
                    // dist - slot is at most 83 (slot 13, a 5-bit tree
                    // ending at the table's 115th entry): the mask is a no-op.
                    let base = POS_SPECIAL + ((dist - slot) as usize & 127);
                    dist += rc.bittree_reverse::<UPDATE, 32>(sub::<32>(fixed, base), direct);
                } else {
                    dist += rc.direct(direct - ALIGN_BITS) << ALIGN_BITS;
                    dist += rc.bittree_reverse::<UPDATE, ALIGN_SIZE>(
                        sub::<ALIGN_SIZE>(fixed, ALIGN),
                        ALIGN_BITS,
                    );
                }
                dist
            };
            reps[3] = reps[2];
            reps[2] = reps[1];
            reps[1] = reps[0];
            reps[0] = dist;
            if dist == END_MARKER_DIST {
                return Symbol::EndMarker;
            }
            return Symbol::Match(len);
        }
        if rc.bit::<UPDATE>(&mut fixed[IS_REP0 + (s & 15)]) == 0 {
            if rc.bit::<UPDATE>(&mut fixed[IS_REP0_LONG + s_pos]) == 0 {
                // Short rep: one byte at rep0.
                *state = state_after_short_rep(s);
                return Symbol::Match(1);
            }
        } else {
            let dist;
            if rc.bit::<UPDATE>(&mut fixed[IS_REP1 + (s & 15)]) == 0 {
                dist = reps[1];
            } else {
                if rc.bit::<UPDATE>(&mut fixed[IS_REP2 + (s & 15)]) == 0 {
                    dist = reps[2];
                } else {
                    dist = reps[3];
                    reps[3] = reps[2];
                }
                reps[2] = reps[1];
            }
            reps[1] = reps[0];
            reps[0] = dist;
        }
        *state = state_after_rep(s);
        Symbol::Match(Self::length::<UPDATE>(fixed, rc, LEN_REP, pos_state))
    }

    #[inline(always)]
    fn length<const UPDATE: bool>(
        fixed: &mut [u16; LITERAL],
        rc: &mut RangeDecoder<'_>,
        base: usize,
        pos_state: usize,
    ) -> usize {
        let probs = sub::<LEN_PROBS>(fixed, base);
        if rc.bit::<UPDATE>(&mut probs[LEN_CHOICE]) == 0 {
            let o = LEN_LOW + (pos_state << LEN_LOW_BITS);
            let tree = sub::<LEN_LOW_SYMBOLS>(probs, o);
            LEN_MIN + rc.bittree::<UPDATE, _>(tree, LEN_LOW_BITS) as usize
        } else if rc.bit::<UPDATE>(&mut probs[LEN_CHOICE2]) == 0 {
            let o = LEN_MID + (pos_state << LEN_MID_BITS);
            let tree = sub::<LEN_MID_SYMBOLS>(probs, o);
            LEN_MIN + LEN_LOW_SYMBOLS + rc.bittree::<UPDATE, _>(tree, LEN_MID_BITS) as usize
        } else {
            let tree = sub::<LEN_HIGH_SYMBOLS>(probs, LEN_HIGH);
            LEN_MIN
                + LEN_LOW_SYMBOLS
                + LEN_MID_SYMBOLS
                + rc.bittree::<UPDATE, _>(tree, LEN_HIGH_BITS) as usize
        }
    }

    /// True when the next symbol can be decoded from the bytes `rc` has
    /// (a dry run: nothing changes).
    pub fn fits(&mut self, rc: &RangeDecoder<'_>, win: &Window) -> bool {
        let mut rc = *rc;
        let mut state = self.state;
        let mut reps = self.reps;
        let ctx = SymbolCtx::new(self, win, win.pos);
        let mut probs = Probs::new(&mut self.probs);
        let _ = Self::symbol::<false>(&mut probs, &mut rc, &mut state, &mut reps, &ctx);
        rc.normalize();
        rc.pos <= rc.buf.len()
    }

    /// Decodes the symbols `data` holds, up to `out_limit`, one at a time:
    /// for input that stops inside a chunk or a stream.
    ///
    /// With [`Partial::Arriving`] more input will follow: only symbols
    /// that fit whole (their trailing normalization included) are decoded,
    /// so decoding resumes exactly where it stopped. With
    /// [`Partial::Ended`] none will: every symbol whose bits the bytes hold
    /// is decoded, which is what xz delivers (it normalizes the range
    /// before a bit, this decoder after a symbol, so a symbol may take one
    /// byte more here than xz needs; that byte is given as a stand-in,
    /// whose value only matters to the next symbol, which then is not
    /// decoded).
    ///
    /// Returns the stop (`Limit` when output room ran out first; `Input`
    /// when no further symbol can be decoded), the range state, the bytes
    /// of `data` used, and whether the stand-in was taken (then only an
    /// unfinished match may still be copied: pass [`Partial::Exhausted`]
    /// next time).
    pub fn decode_partial(
        &mut self,
        range: u32,
        code: u32,
        data: &[u8],
        win: &mut Window,
        out_limit: usize,
        partial: Partial,
    ) -> (Result<Stop, LzmaError>, u32, u32, usize, bool) {
        let mut padded = Vec::new();
        let buf = if partial == Partial::Ended {
            padded.reserve_exact(data.len() + 1);
            padded.extend_from_slice(data);
            padded.push(0);
            &padded[..]
        } else {
            data
        };
        let mut rc = RangeDecoder::resume(range, code, buf);
        let stop = loop {
            if self.pending > 0 {
                match self.run(&mut rc, win, out_limit, 0, usize::MAX, 0) {
                    Ok(Stop::Input) => {}
                    other => break other,
                }
            }
            if win.pos >= out_limit {
                break Ok(Stop::Limit);
            }
            let fits = match partial {
                Partial::Arriving => self.fits(&rc, win),
                // Once a stand-in byte was taken xz needs the real one.
                Partial::Ended if rc.pos <= data.len() => {
                    self.fits_lazily(&RangeDecoder { buf: data, ..rc }, win)
                }
                _ => false,
            };
            if !fits {
                break Ok(Stop::Input);
            }
            match self.run(&mut rc, win, out_limit, usize::MAX, usize::MAX, 1) {
                Ok(Stop::Input) => {}
                // xz normalizes after an end marker before it checks that
                // the range coder ended: that byte must be a real one.
                Ok(Stop::EndMarker) if rc.pos > data.len() => break Ok(Stop::Input),
                other => break other,
            }
        };
        let exhausted = partial == Partial::Exhausted || rc.pos > data.len();
        (stop, rc.range, rc.code, rc.pos.min(data.len()), exhausted)
    }

    /// [`fits`](Self::fits) without the normalization after the symbol:
    /// true when the bytes hold every bit of the next symbol, which is when
    /// xz (normalizing before each bit) delivers it.
    fn fits_lazily(&mut self, rc: &RangeDecoder<'_>, win: &Window) -> bool {
        let mut rc = *rc;
        let mut state = self.state;
        let mut reps = self.reps;
        let ctx = SymbolCtx::new(self, win, win.pos);
        let mut probs = Probs::new(&mut self.probs);
        let _ = Self::symbol::<false>(&mut probs, &mut rc, &mut state, &mut reps, &ctx);
        rc.pos <= rc.buf.len()
    }

    /// Decodes into `win` until `win.pos` reaches `out_limit`, `rc.pos`
    /// passes `in_limit` (checked before each symbol), `max_symbols` symbols
    /// are done, or an end marker appears. A symbol that read past
    /// `hard_end` is corrupt data: it is not written and the run fails with
    /// [`LzmaError::ChunkSizeMismatch`]. An unfinished match is kept in
    /// `pending` and finished first next time. `out_limit` must not exceed
    /// the window's contiguous room. Bytes written before an error stay in
    /// the window (past `start`) so the caller can deliver them first.
    pub fn run(
        &mut self,
        rc: &mut RangeDecoder<'_>,
        win: &mut Window,
        out_limit: usize,
        in_limit: usize,
        hard_end: usize,
        max_symbols: usize,
    ) -> Result<Stop, LzmaError> {
        if in_limit == hard_end && max_symbols == usize::MAX {
            // A whole LZMA2 chunk: the check after each symbol is the only
            // input check needed, and the loop has two fewer live values.
            if self.props == LzmaProps::default() {
                // What nearly every stream uses: the literal and position
                // masks become constants, three fewer live values.
                self.run_loop::<true, true>(rc, win, out_limit, in_limit, hard_end, max_symbols)
            } else {
                self.run_loop::<true, false>(rc, win, out_limit, in_limit, hard_end, max_symbols)
            }
        } else {
            self.run_loop::<false, false>(rc, win, out_limit, in_limit, hard_end, max_symbols)
        }
    }

    /// [`run`](Self::run); with `CHUNK`, `in_limit == hard_end` and
    /// `max_symbols` is unlimited; with `DEFAULT_PROPS`, the properties
    /// are lc=3, lp=0, pb=2.
    #[inline(always)]
    fn run_loop<const CHUNK: bool, const DEFAULT_PROPS: bool>(
        &mut self,
        rc: &mut RangeDecoder<'_>,
        win: &mut Window,
        out_limit: usize,
        in_limit: usize,
        hard_end: usize,
        mut max_symbols: usize,
    ) -> Result<Stop, LzmaError> {
        let start = win.pos;
        let full0 = win.full;
        let dict_max = win.dict_max.min(win.buf.len());
        // position (for lp/pb) = pos + offset, modulo a power of two.
        let offset = (win.total as usize).wrapping_sub(start);
        // History before `pos` is `history_base + pos`, capped at the dictionary.
        let history_base = full0.wrapping_sub(start);
        let buf: &mut [u8] = &mut win.buf[..];
        // A no-op (callers stay within the room); lets the compiler drop
        // the bounds check of each literal's store.
        let out_limit = out_limit.min(buf.len());
        let mut pos = start;
        let mut state = self.state;
        let mut reps = self.reps;
        let mut probs = Probs::new(&mut self.probs);
        // A local copy keeps range, code and position in registers.
        let mut local = *rc;
        let rc_out = rc;
        let rc = &mut local;

        let (lit_mask, lit_shift, pb_mask) = if DEFAULT_PROPS {
            debug_assert_eq!(self.props, LzmaProps::default());
            (0xFF, 5, 3)
        } else {
            (self.lit_mask, self.lit_shift, self.pb_mask)
        };

        let mut prev = prev_byte(buf, pos, full0);
        let result = 'outer: {
            if self.pending > 0 {
                let n = self.pending.min(out_limit - pos);
                copy_match(buf, pos, reps[0] as usize + 1, n);
                pos += n;
                if n > 0 {
                    prev = buf[pos - 1];
                }
                self.pending -= n;
                if self.pending > 0 {
                    break 'outer Ok(Stop::Limit);
                }
            }
            if CHUNK && pos < out_limit && rc.pos > in_limit {
                // Only needed on entry: inside the loop, every symbol that
                // read past `hard_end` (== `in_limit`) has failed already.
                break 'outer Ok(Stop::Input);
            }
            loop {
                if pos >= out_limit {
                    break Ok(Stop::Limit);
                }
                if !CHUNK {
                    if rc.pos > in_limit || max_symbols == 0 {
                        break Ok(Stop::Input);
                    }
                    max_symbols -= 1;
                }
                let ctx = SymbolCtx {
                    buf,
                    pos,
                    prev,
                    history_base,
                    dict_max,
                    position: pos.wrapping_add(offset),
                    lit_mask,
                    lit_shift,
                    pb_mask,
                };
                let sym = Self::symbol::<true>(&mut probs, rc, &mut state, &mut reps, &ctx);
                // The check is repeated in each arm so that the literal
                // path does not branch on the symbol kind twice.
                match sym {
                    Symbol::Literal(b) => {
                        if overran(rc, hard_end) {
                            break Err(LzmaError::ChunkSizeMismatch);
                        }
                        buf[pos] = b;
                        pos += 1;
                        prev = b;
                    }
                    Symbol::Match(len) => {
                        if overran(rc, hard_end) {
                            break Err(LzmaError::ChunkSizeMismatch);
                        }
                        let dist = reps[0] as usize + 1;
                        let avail = history(history_base, pos, dict_max);
                        if dist > avail {
                            break Err(LzmaError::DistanceTooFar {
                                distance: dist as u64,
                                available: avail as u64,
                            });
                        }
                        let n = len.min(out_limit - pos);
                        copy_match(buf, pos, dist, n);
                        pos += n;
                        prev = buf[pos - 1];
                        if n < len {
                            self.pending = len - n;
                            break Ok(Stop::Limit);
                        }
                    }
                    Symbol::EndMarker => {
                        if overran(rc, hard_end) {
                            break Err(LzmaError::ChunkSizeMismatch);
                        }
                        break Ok(Stop::EndMarker);
                    }
                }
            }
        };
        *rc_out = local;
        self.state = state;
        self.reps = reps;
        win.advance(pos - start);
        result
    }
}

/// Normalizes after a symbol and tells whether the symbol read past
/// `hard_end` (corrupt data: its output must not be written).
#[inline(always)]
fn overran(rc: &mut RangeDecoder<'_>, hard_end: usize) -> bool {
    rc.normalize();
    rc.pos > hard_end
}

/// The probability table split into its fixed-size part (everything but
/// the literal coders, whose number depends on lc + lp) and the literals.
struct Probs<'a> {
    fixed: &'a mut [u16; LITERAL],
    literals: &'a mut [u16],
}

impl<'a> Probs<'a> {
    fn new(table: &'a mut [u16]) -> Self {
        let (fixed, literals) = table.split_at_mut(LITERAL);
        Probs {
            fixed: fixed.try_into().expect("table holds the fixed part"),
            literals,
        }
    }
}

/// The `N` probabilities of `table` from `start` on, as an array.
#[inline(always)]
fn sub<const N: usize>(table: &mut [u16], start: usize) -> &mut [u16; N] {
    (&mut table[start..start + N])
        .try_into()
        .expect("range of length N")
}

/// What a symbol needs to know about the window. The history length is a
/// method, not a field, so the symbol loop computes it only on the paths
/// that use it; the previous byte is kept up to date by the loop.
struct SymbolCtx<'b> {
    buf: &'b [u8],
    pos: usize,
    /// The byte before `pos` (0 at the start of the history).
    prev: u8,
    /// `history_base + pos` is the number of history bytes before `pos`
    /// (see [`history`]).
    history_base: usize,
    dict_max: usize,
    position: usize,
    lit_mask: usize,
    lit_shift: u32,
    pb_mask: usize,
}

/// The byte before `pos` in the circular buffer, or 0 when there is no
/// history (`full` bytes of it).
fn prev_byte(buf: &[u8], pos: usize, full: usize) -> u8 {
    // No history (a dictionary reset) comes first: a window that is the
    // output resets with bytes of the previous stream before `pos`.
    if full == 0 {
        0
    } else if pos > 0 {
        buf[pos - 1]
    } else {
        buf[buf.len() - 1]
    }
}

/// Bytes of history before `pos`: everything written since the dictionary
/// reset, capped at the dictionary size (and the buffer, via `dict_max`).
#[inline(always)]
fn history(history_base: usize, pos: usize, dict_max: usize) -> usize {
    history_base.wrapping_add(pos).min(dict_max)
}

impl<'b> SymbolCtx<'b> {
    fn new(core: &LzmaCore, win: &'b Window, pos: usize) -> Self {
        SymbolCtx {
            buf: &win.buf[..],
            pos,
            prev: prev_byte(&win.buf, pos, win.full),
            history_base: win.full.wrapping_sub(pos),
            dict_max: win.dict_max.min(win.buf.len()),
            position: win.total as usize,
            lit_mask: core.lit_mask,
            lit_shift: core.lit_shift,
            pb_mask: core.pb_mask,
        }
    }

    /// Bytes of history before `pos`.
    #[inline(always)]
    fn full(&self) -> usize {
        history(self.history_base, self.pos, self.dict_max)
    }

    /// The byte at distance `rep0 + 1`; 0 if that is outside the history
    /// (only possible on corrupt data, which fails at the next match).
    #[inline(always)]
    fn match_byte(&self, rep0: u32) -> u8 {
        let dist = rep0 as usize + 1;
        if dist > self.full() {
            return 0;
        }
        let idx = if dist <= self.pos {
            self.pos - dist
        } else {
            self.pos + self.buf.len() - dist
        };
        self.buf[idx]
    }
}

/// Copies `n` bytes from `dist` back to `pos` (the source may wrap around
/// the circular buffer and may overlap the destination).
///
/// Short copies dominate real data, so where the window has room the copy
/// goes in 16-byte blocks and may write up to 15 bytes past `pos + n`: those
/// bytes are either not written yet or older than the dictionary (the
/// window keeps `WINDOW_SLACK` spare bytes), and are overwritten before
/// anyone reads them.
#[inline(always)]
fn copy_match(buf: &mut [u8], pos: usize, dist: usize, n: usize) {
    const BLOCK: usize = 16;
    if dist <= pos {
        let src = pos - dist;
        if pos + n + BLOCK <= buf.len() {
            if dist >= BLOCK {
                // Each block reads only bytes that are final already.
                // Slicing once up front leaves fewer checks in the loop.
                let w = &mut buf[src..pos + n + BLOCK];
                let mut i = 0;
                while i < n {
                    let mut t = [0u8; BLOCK];
                    t.copy_from_slice(&w[i..i + BLOCK]);
                    w[dist + i..dist + i + BLOCK].copy_from_slice(&t);
                    i += BLOCK;
                }
                return;
            }
            if dist >= n {
                let mut t = [0u8; BLOCK];
                t.copy_from_slice(&buf[src..src + BLOCK]);
                buf[pos..pos + BLOCK].copy_from_slice(&t);
                return;
            }
        }
    }
    copy_match_slow(buf, pos, dist, n);
}

/// The rest of [`copy_match`]: long overlapping copies, copies near the end
/// of the buffer and sources that wrap around it. Out of line, so that the
/// symbol loop keeps its registers.
#[inline(never)]
fn copy_match_slow(buf: &mut [u8], pos: usize, dist: usize, n: usize) {
    const BLOCK: usize = 16;
    if dist <= pos {
        let src = pos - dist;
        if dist >= n {
            buf.copy_within(src..src + n, pos);
        } else if dist == 1 {
            let b = buf[src];
            buf[pos..pos + n].fill(b);
        } else if n < 64 {
            for i in 0..n {
                buf[pos + i] = buf[src + i];
            }
        } else {
            // The copied region is periodic with period `dist`, so each step
            // may copy everything written so far.
            let mut done = 0;
            while done < n {
                let chunk = (dist + done).min(n - done);
                buf.copy_within(src..src + chunk, pos + done);
                done += chunk;
            }
        }
    } else {
        let len = buf.len();
        let mut src = pos + len - dist;
        if src + n + BLOCK <= len && pos + n + BLOCK <= src {
            // The source lies after the destination (wrapped history) and
            // far enough that the blocks never overwrite unread source.
            let mut i = 0;
            while i < n {
                let mut t = [0u8; BLOCK];
                t.copy_from_slice(&buf[src + i..src + i + BLOCK]);
                buf[pos + i..pos + i + BLOCK].copy_from_slice(&t);
                i += BLOCK;
            }
        } else if src + n <= len && pos + n <= src {
            buf.copy_within(src..src + n, pos);
        } else {
            for i in 0..n {
                buf[pos + i] = buf[src];
                src += 1;
                if src == len {
                    src = 0;
                }
            }
        }
    }
}

/// Where an LZMA1 stream stands.
#[derive(Debug)]
enum Phase {
    /// Gathering the range coder's first five bytes.
    Init,
    /// Decoding symbols.
    Run,
    /// The stream ended (marker or known size).
    End,
    /// A sticky error.
    Failed(LzmaError),
}

/// Decoder for a raw LZMA1 stream (7z's LZMA coder, raw `.lzma1` data).
///
/// With a known uncompressed size the stream ends after exactly that many
/// bytes (an end marker right there is accepted too); without one, the end
/// marker is required.
#[derive(Debug)]
pub struct LzmaDecoder {
    core: LzmaCore,
    window: Window,
    phase: Phase,
    range: u32,
    code: u32,
    /// Range coder start bytes, or bytes held across calls when a symbol
    /// straddles two input slices.
    tail: [u8; SYMBOL_MARGIN],
    tail_len: usize,
    size: Option<u64>,
    produced: u64,
    /// Input ended inside a symbol that took a stand-in byte (see
    /// [`LzmaCore::decode_partial`]): nothing more can be decoded.
    tail_exhausted: bool,
    limits: Limits,
    batch: usize,
}

impl LzmaDecoder {
    /// A decoder for a stream with the given properties and dictionary size;
    /// `uncompressed_size` is the known size (`None`: an end marker ends it).
    /// Checks `opts.limits.memory` against [`memory_usage`](Self::memory_usage)
    /// before allocating.
    pub fn new(
        props: LzmaProps,
        dict_size: u32,
        uncompressed_size: Option<u64>,
        opts: &DecoderOptions,
    ) -> Result<Self, LzmaError> {
        let props = LzmaProps::new(props.lc, props.lp, props.pb)?;
        opts.limits
            .check_memory(Self::memory_usage(props, dict_size))?;
        let mut window = Window::new(dict_size, opts.pool.clone());
        window.set_hint(uncompressed_size);
        Ok(LzmaDecoder {
            core: LzmaCore::new(props, props.lc + props.lp, &opts.prob_pool),
            window,
            phase: Phase::Init,
            range: 0,
            code: 0,
            tail: [0; SYMBOL_MARGIN],
            tail_len: 0,
            size: uncompressed_size,
            produced: 0,
            tail_exhausted: false,
            limits: opts.limits,
            batch: opts.batch(),
        })
    }

    /// Bytes of memory a decoder with these parameters may use: the
    /// dictionary (at least 4 KiB) plus the probability tables.
    pub fn memory_usage(props: LzmaProps, dict_size: u32) -> u64 {
        u64::from(dict_size).max(MIN_DICT as u64)
            + LzmaCore::memory_usage(props.lc + props.lp)
            + std::mem::size_of::<Self>() as u64
    }

    /// Total bytes produced so far.
    pub fn total_out(&self) -> u64 {
        self.produced
    }

    fn step(
        &mut self,
        input: &mut InBuf<'_>,
        output: &mut OutBuf<'_>,
    ) -> Result<Progress, LzmaError> {
        let mut budget = self.batch.min(output.available());
        loop {
            match self.phase {
                Phase::End => return Ok(Progress::StreamEnd),
                Phase::Failed(ref e) => return Err(e.clone()),
                Phase::Init => {
                    let want = INIT_BYTES - self.tail_len;
                    let got = input.take(want);
                    self.tail[self.tail_len..self.tail_len + got.len()].copy_from_slice(got);
                    self.tail_len += got.len();
                    if self.tail_len < INIT_BYTES {
                        return need_input(input);
                    }
                    let mut bytes = [0; INIT_BYTES];
                    bytes.copy_from_slice(&self.tail[..INIT_BYTES]);
                    self.tail_len = 0;
                    let (range, code) =
                        RangeDecoder::init_state(bytes).ok_or(LzmaError::BadRangeCoderInit)?;
                    self.range = range;
                    self.code = code;
                    self.phase = Phase::Run;
                }
                Phase::Run => {
                    let size_left = self.size.map_or(u64::MAX, |s| s - self.produced);
                    let marker_only = size_left == 0;
                    if marker_only {
                        if self.core.pending > 0 {
                            return Err(self.size_mismatch());
                        }
                        if self.code == 0 {
                            self.phase = Phase::End;
                            continue;
                        }
                    } else {
                        if budget == 0 {
                            return Ok(Progress::OutputFull);
                        }
                        if self.produced >= self.limits.output {
                            self.limits.check_output(self.produced + 1)?;
                        }
                    }
                    let room = self.window.room();
                    let mut n = room.min(budget);
                    n = n.min(usize::try_from(size_left).unwrap_or(usize::MAX));
                    n = n.min(
                        usize::try_from(self.limits.output - self.produced).unwrap_or(usize::MAX),
                    );
                    // At the known size only an end marker may follow: give
                    // the run one byte of room and fail if it is used.
                    let n = if marker_only { 1 } else { n };
                    let start = self.window.pos;
                    let out_limit = start + n;
                    let (stop, starved) = self.run_input(input, out_limit);
                    if !marker_only {
                        // Deliver what was decoded, even before an error.
                        let produced = self.window.since(start);
                        output.push(produced);
                        budget -= produced.len();
                        self.produced += produced.len() as u64;
                    }
                    let stop = stop?;
                    if marker_only && stop != Stop::EndMarker {
                        if starved {
                            return need_input(input);
                        }
                        return Err(self.size_mismatch());
                    }
                    match stop {
                        Stop::EndMarker => {
                            if self.size.is_some_and(|s| s != self.produced) {
                                return Err(self.size_mismatch());
                            }
                            if self.code != 0 {
                                return Err(LzmaError::Corrupt);
                            }
                            self.phase = Phase::End;
                        }
                        Stop::Limit => {}
                        Stop::Input => {
                            if starved {
                                return need_input(input);
                            }
                        }
                    }
                }
            }
        }
    }

    fn size_mismatch(&self) -> LzmaError {
        LzmaError::SizeMismatch {
            expected: self.size.unwrap_or(0),
        }
    }

    /// One decoding run over the input, fast when at least a margin of
    /// bytes is present, otherwise symbol by symbol with a dry run first.
    /// Returns the stop reason and whether more input is needed.
    fn run_input(
        &mut self,
        input: &mut InBuf<'_>,
        out_limit: usize,
    ) -> (Result<Stop, LzmaError>, bool) {
        if self.tail_exhausted {
            // The input ended inside a symbol: only an unfinished match may
            // still be copied, then the truncation is reported.
            let (stop, ..) = self.core.decode_partial(
                self.range,
                self.code,
                &[],
                &mut self.window,
                out_limit,
                Partial::Exhausted,
            );
            return match stop {
                Ok(Stop::Limit) => (Ok(Stop::Limit), false),
                other => (other, true),
            };
        }
        if self.tail_len == 0 && input.len() >= SYMBOL_MARGIN {
            let data = input.remaining();
            let mut rc = RangeDecoder::resume(self.range, self.code, data);
            let stop = self.core.run(
                &mut rc,
                &mut self.window,
                out_limit,
                data.len() - SYMBOL_MARGIN,
                usize::MAX,
                usize::MAX,
            );
            self.range = rc.range;
            self.code = rc.code;
            input.advance(rc.pos);
            return (stop, false);
        }
        // Slow path: the held tail plus a little of the input.
        let mut scratch = [0u8; 2 * SYMBOL_MARGIN];
        let t = self.tail_len;
        scratch[..t].copy_from_slice(&self.tail[..t]);
        let k = input.len().min(scratch.len() - t);
        scratch[t..t + k].copy_from_slice(&input.remaining()[..k]);
        let n = t + k;
        let more_beyond = input.len() > k;
        let mut rc = RangeDecoder::resume(self.range, self.code, &scratch[..n]);
        let mut starved = false;
        let result = loop {
            if self.core.pending > 0 {
                match self
                    .core
                    .run(&mut rc, &mut self.window, out_limit, 0, usize::MAX, 0)
                {
                    Ok(Stop::Input) => continue,
                    other => break other,
                }
            }
            if self.window.pos >= out_limit {
                break Ok(Stop::Limit);
            }
            if n - rc.pos >= SYMBOL_MARGIN {
                let in_limit = n - SYMBOL_MARGIN;
                match self.core.run(
                    &mut rc,
                    &mut self.window,
                    out_limit,
                    in_limit,
                    usize::MAX,
                    usize::MAX,
                ) {
                    Ok(Stop::Input) => continue,
                    other => break other,
                }
            }
            if more_beyond {
                // Refill the scratch from the input first.
                break Ok(Stop::Input);
            }
            if !self.core.fits(&rc, &self.window) {
                if input.is_last() {
                    // No more input will come: deliver the symbols xz
                    // would before reporting the truncation.
                    let (stop, range, code, used, exhausted) = self.core.decode_partial(
                        rc.range,
                        rc.code,
                        &scratch[rc.pos..n],
                        &mut self.window,
                        out_limit,
                        Partial::Ended,
                    );
                    self.tail_exhausted = exhausted;
                    rc.range = range;
                    rc.code = code;
                    rc.pos += used;
                    match stop {
                        Ok(Stop::Limit) => break Ok(Stop::Limit),
                        Ok(Stop::Input) => {}
                        other => break other,
                    }
                }
                starved = true;
                break Ok(Stop::Input);
            }
            match self.core.run(
                &mut rc,
                &mut self.window,
                out_limit,
                usize::MAX,
                usize::MAX,
                1,
            ) {
                Ok(Stop::Input) => continue,
                other => break other,
            }
        };
        self.range = rc.range;
        self.code = rc.code;
        let used = rc.pos;
        if starved {
            // Everything offered is in the scratch: hold the unused rest.
            let rest = &scratch[used..n];
            self.tail[..rest.len()].copy_from_slice(rest);
            self.tail_len = rest.len();
            input.advance(k);
        } else if used >= t {
            input.advance(used - t);
            self.tail_len = 0;
        } else {
            self.tail.copy_within(used..t, 0);
            self.tail_len = t - used;
        }
        (result, starved)
    }
}

/// `NeedInput`, or the truncation error when no more input will come.
pub(crate) fn need_input(input: &InBuf<'_>) -> Result<Progress, LzmaError> {
    if input.is_last() {
        Err(LzmaError::Truncated)
    } else {
        Ok(Progress::NeedInput)
    }
}

impl Decode for LzmaDecoder {
    type Error = LzmaError;

    fn decode(
        &mut self,
        input: &mut InBuf<'_>,
        output: &mut OutBuf<'_>,
    ) -> Result<Progress, LzmaError> {
        let r = self.step(input, output);
        if let Err(e) = &r {
            if !matches!(self.phase, Phase::Failed(_)) {
                self.phase = Phase::Failed(e.clone());
            }
        }
        r
    }
}
