//! Normal mode: optimal parsing. From the current position the encoder
//! prices every way to reach each of the next positions (literal, short
//! rep, reps, matches, and the two-step "match or rep, literal, rep0"
//! combinations) with the current probabilities, keeps the cheapest way to
//! each position, and then walks back from where the search stopped to get
//! the symbols.

use crate::encoder_state::{LzmaCore, NO_DIST};
use crate::match_finder::common_len;
use crate::model::{
    is_literal_state, state_after_literal, state_after_match, state_after_rep,
    state_after_short_rep, DIST_STATES, MATCH_LEN_MAX, POS_STATES_MAX, STATES,
};
use crate::price::INFINITY;
use crate::search_table::{Opt, Step, OPTS};

/// Common length of `buf[a..]` and `buf[b..]` up to `limit` when it is at
/// least 2 (all a trailing rep0 can use), else 0: most candidates differ in
/// the first two bytes, which one compare settles.
#[inline(always)]
fn tail_len(buf: &[u8], a: usize, b: usize, limit: usize) -> usize {
    if limit >= 2 && buf[a..a + 2] == buf[b..b + 2] {
        common_len(buf, a, b, 2, limit)
    } else {
        0
    }
}

#[inline(always)]
fn rep_moved_to_front(reps: [u32; 4], index: usize) -> [u32; 4] {
    let mut r = reps;
    let d = r[index];
    r.copy_within(0..index, 1);
    r[0] = d;
    r
}

impl LzmaCore {
    /// Grows the search table to hold index `reach` (and then some).
    #[cold]
    #[inline(never)]
    fn grow_opts(&mut self, reach: usize) {
        let len = (reach + 1).max(self.opts.len() * 2).min(OPTS + 1);
        self.opts.resize(len);
    }

    /// Extends the search's end to `at` (< OPTS), pricing the new
    /// positions as unreachable so far.
    #[inline(always)]
    fn extend_search(&mut self, len_end: &mut usize, at: usize) {
        if !self.opts.holds(at) {
            self.grow_opts(at);
        }
        while *len_end < at {
            *len_end += 1;
            self.opts.set_price(*len_end, INFINITY);
        }
    }

    /// The position state of `pos`. `pos_mask` is below 16 already; masking
    /// again lets the compiler drop the bounds checks on per-position-state
    /// tables.
    #[inline(always)]
    fn pos_state(&self, pos: u64) -> usize {
        (pos as u32 & self.pos_mask) as usize & (POS_STATES_MAX - 1)
    }

    #[inline(always)]
    fn is_match_price(&self, state: u32, pos_state: usize, bit: u32) -> u32 {
        self.bp.bit(self.is_match[state as usize][pos_state], bit)
    }

    #[inline(always)]
    fn is_rep_price(&self, state: u32, bit: u32) -> u32 {
        self.bp.bit(self.is_rep[state as usize], bit)
    }

    /// Full price of rep0 of `len` at a position in `state`.
    #[inline(always)]
    fn rep0_price(&self, state: u32, pos_state: usize, len: u32) -> u32 {
        self.is_match_price(state, pos_state, 1)
            + self.is_rep_price(state, 1)
            + self.pure_rep_price(0, state, pos_state)
            + self.rep_len.price(len, pos_state)
    }

    /// Offers a match of `dist` from `cur` for lengths `lo..=hi` (`lo` >=
    /// 2), `normal` being the price of its is_match/is_rep bits from `cur`;
    /// returns the price of length `hi`.
    #[inline(always)]
    fn relax_match(
        &mut self,
        cur: usize,
        normal: u32,
        dist: u32,
        pos_state: usize,
        lo: usize,
        hi: usize,
    ) -> u32 {
        let step = Step::Match(dist);
        let lens = self.match_len.prices(pos_state);
        let mut len = lo;
        // The distance is priced by min(len - 2, 3): lengths up to 4 each
        // have their own, one serves every length from 5 on.
        let far = if lo <= DIST_STATES {
            let dp = self.dist_prices_all(dist);
            let short_hi = hi.min(DIST_STATES);
            while len <= short_hi {
                let p = normal + dp[len - 2] + lens[len - 2];
                self.opts.relax(cur + len, p, cur, step);
                len += 1;
            }
            if len > hi {
                return normal + dp[hi - 2] + lens[hi - 2];
            }
            normal + dp[DIST_STATES - 1]
        } else {
            normal + self.dist_price(dist, DIST_STATES - 1)
        };
        self.opts
            .relax_run(cur + len, far, &lens[len - 2..hi - 1], cur, step);
        far + lens[hi - 2]
    }

    /// Decides the next symbols from `self.pos` and queues them.
    pub(crate) fn decide_normal(&mut self) {
        self.refresh_prices();
        let end = self.search();
        self.backtrack(end);
    }

    /// Runs the search; returns where the chosen path ends.
    fn search(&mut self) -> usize {
        self.matches_at_pos();
        let p0 = self.pos;
        let idx0 = self.idx(p0);
        let bytes = (self.mf.end() - p0) as usize;
        let single_lit = |core: &mut Self| {
            core.opts.set_from_step(1, 0, Step::Lit);
            1
        };
        if bytes < 2 {
            return single_lit(self);
        }
        let limit = bytes.min(MATCH_LEN_MAX as usize);
        let nice = self.nice_len as usize;
        let buf = &self.mf.buf;

        let mut rep_lens = [0usize; 4];
        let mut rep_best = 0;
        for i in 0..4 {
            let d = self.reps[i];
            if u64::from(d) >= p0 {
                continue;
            }
            let back = idx0 - d as usize - 1;
            if buf[back] != buf[idx0] || buf[back + 1] != buf[idx0 + 1] {
                continue;
            }
            rep_lens[i] = common_len(buf, back, idx0, 2, limit);
            if rep_lens[i] > rep_lens[rep_best] {
                rep_best = i;
            }
        }
        if rep_lens[rep_best] >= nice {
            self.opts.set_reps(0, self.reps);
            self.opts.set(
                rep_lens[rep_best],
                Opt {
                    price: 0,
                    from: 0,
                    step: Step::Rep(rep_best as u8),
                    ..Opt::default()
                },
            );
            return rep_lens[rep_best];
        }
        let main_len = self.matches.last().map_or(0, |m| m.len as usize);
        if main_len >= nice {
            let d = self.matches.last().expect("a match").dist;
            self.opts.set(
                main_len,
                Opt {
                    price: 0,
                    from: 0,
                    step: Step::Match(d),
                    ..Opt::default()
                },
            );
            return main_len;
        }

        let cur_byte = buf[idx0];
        let rep0_ok = u64::from(self.reps[0]) < p0;
        let match_byte = if rep0_ok {
            buf[idx0 - self.reps[0] as usize - 1]
        } else {
            !cur_byte
        };
        if main_len < 2 && rep_lens[rep_best] < 2 && match_byte != cur_byte {
            return single_lit(self);
        }

        let state = self.state;
        let pos_state = self.pos_state(p0);
        let prev = if p0 == 0 { 0 } else { buf[idx0 - 1] };
        self.opts.set_state(0, state);
        self.opts.set_reps(0, self.reps);
        self.opts.set_price(0, 0);

        let lit = self.is_match_price(state, pos_state, 0)
            + self.literal_price(p0, prev, state, match_byte, cur_byte);
        self.opts.set(
            1,
            Opt {
                price: lit,
                from: 0,
                step: Step::Lit,
                ..Opt::default()
            },
        );
        let match_price = self.is_match_price(state, pos_state, 1);
        let rep_match_price = match_price + self.is_rep_price(state, 1);
        if match_byte == cur_byte {
            let p = rep_match_price + self.short_rep_price(state, pos_state);
            self.opts.relax(1, p, 0, Step::ShortRep);
        }
        let len_end = main_len.max(rep_lens[rep_best]);
        if len_end < 2 {
            return 1;
        }
        for i in 2..=len_end {
            self.opts.set_price(i, INFINITY);
        }
        for (i, &rl) in rep_lens.iter().enumerate() {
            if rl < 2 {
                continue;
            }
            let base = rep_match_price + self.pure_rep_price(i, state, pos_state);
            let lens = &self.rep_len.prices(pos_state)[..rl - 1];
            self.opts.relax_run(2, base, lens, 0, Step::Rep(i as u8));
        }
        let normal = match_price + self.is_rep_price(state, 0);
        let start = (rep_lens[0] + 1).max(2);
        if start <= main_len {
            let first = self.matches.partition_point(|m| (m.len as usize) < start);
            let mut len = start;
            for mi in first..self.matches.len() {
                let m = self.matches[mi];
                self.relax_match(0, normal, m.dist, pos_state, len, m.len as usize);
                len = m.len as usize + 1;
            }
        }

        self.forward(p0, idx0, len_end)
    }

    /// Extends the search position by position until it reaches `len_end`
    /// (which grows) or finds a nice_len match.
    fn forward(&mut self, p0: u64, idx0: usize, mut len_end: usize) -> usize {
        let nice = self.nice_len as usize;
        let mut cur = 1;
        while cur < len_end {
            let pos = p0 + cur as u64;
            let idx = idx0 + cur;
            Self::find_matches(&mut self.mf, self.nice_len, &mut self.matches);
            if self.matches.last().is_some_and(|m| m.len as usize >= nice) {
                self.cached_at = Some(pos);
                break;
            }
            let (state, reps) = self.state_at(cur);
            let cur_price = self.opts.price(cur);
            let pos_state = self.pos_state(pos);
            let buf = &self.mf.buf;
            let cur_byte = buf[idx];
            let match_byte = buf[idx - reps[0] as usize - 1];
            let prev = buf[idx - 1];

            let lit = cur_price
                + self.is_match_price(state, pos_state, 0)
                + self.literal_price(pos, prev, state, match_byte, cur_byte);
            let mut next_is_lit = false;
            if lit < self.opts.price(cur + 1) {
                self.opts.set_price(cur + 1, lit);
                self.opts.set_from_step(cur + 1, cur, Step::Lit);
                next_is_lit = true;
            }
            let match_price = cur_price + self.is_match_price(state, pos_state, 1);
            let rep_match_price = match_price + self.is_rep_price(state, 1);
            if match_byte == cur_byte {
                let p = rep_match_price + self.short_rep_price(state, pos_state);
                self.opts.relax(cur + 1, p, cur, Step::ShortRep);
            }

            let bytes = (self.mf.end() - pos) as usize;
            let avail_full = bytes.min(OPTS - 1 - cur);
            if avail_full < 2 {
                cur += 1;
                continue;
            }
            let limit = avail_full.min(nice);

            // A literal, then rep0.
            if !next_is_lit && match_byte != cur_byte {
                let buf = &self.mf.buf;
                let back = idx - reps[0] as usize;
                let l2 = tail_len(buf, back, idx + 1, (avail_full - 1).min(nice));
                if l2 >= 2 {
                    let s2 = state_after_literal(state);
                    let ps2 = self.pos_state(pos + 1);
                    let p = lit + self.rep0_price(s2, ps2, l2 as u32);
                    let at = cur + 1 + l2;
                    self.extend_search(&mut len_end, at);
                    self.opts.relax(at, p, cur, Step::LitRep0);
                }
            }

            let mut start = 2;
            let head: [u8; 2] = self.mf.buf[idx..idx + 2].try_into().expect("two bytes");
            for (i, &d) in reps.iter().enumerate() {
                let buf = &self.mf.buf;
                let back = idx - d as usize - 1;
                if buf[back..back + 2] != head {
                    continue;
                }
                let rl = common_len(buf, back, idx, 2, limit);
                self.extend_search(&mut len_end, cur + rl);
                let base = rep_match_price + self.pure_rep_price(i, state, pos_state);
                let lens = &self.rep_len.prices(pos_state)[..rl - 1];
                self.opts
                    .relax_run(cur + 2, base, lens, cur, Step::Rep(i as u8));
                if i == 0 {
                    start = rl + 1;
                }
                // Rep, literal, rep0.
                if rl + 1 < avail_full {
                    let buf = &self.mf.buf;
                    let lim2 = (avail_full - rl - 1).min(nice);
                    let l2 = tail_len(buf, back + rl + 1, idx + rl + 1, lim2);
                    if l2 >= 2 {
                        let p = base + self.rep_len.price(rl as u32, pos_state);
                        let p = self.after_sym_lit_rep0(
                            p,
                            state_after_rep(state),
                            pos + rl as u64,
                            idx + rl,
                            d,
                            l2,
                        );
                        let at = cur + rl + 1 + l2;
                        self.extend_search(&mut len_end, at);
                        self.opts.relax(
                            at,
                            p,
                            cur,
                            Step::SymLitRep0 {
                                back: i as u32,
                                len1: rl as u32,
                            },
                        );
                    }
                }
            }

            // Normal matches, cut to what this search may still cover.
            while self
                .matches
                .last()
                .is_some_and(|m| m.len as usize > avail_full)
            {
                let n = self.matches.len();
                if n >= 2 && self.matches[n - 2].len as usize >= avail_full {
                    self.matches.pop();
                } else {
                    self.matches[n - 1].len = avail_full as u32;
                }
            }
            let main_len = self.matches.last().map_or(0, |m| m.len as usize);
            if main_len >= start {
                let normal = match_price + self.is_rep_price(state, 0);
                self.extend_search(&mut len_end, cur + main_len);
                let first = self.matches.partition_point(|m| (m.len as usize) < start);
                let mut len = start;
                for mi in first..self.matches.len() {
                    let m = self.matches[mi];
                    let m_len = m.len as usize;
                    let p = self.relax_match(cur, normal, m.dist, pos_state, len, m_len);
                    len = m_len + 1;
                    // Match, literal, rep0.
                    if m_len + 1 < avail_full {
                        let buf = &self.mf.buf;
                        let back = idx - m.dist as usize - 1;
                        let lim2 = (avail_full - m_len - 1).min(nice);
                        let l2 = tail_len(buf, back + m_len + 1, idx + m_len + 1, lim2);
                        if l2 >= 2 {
                            let p = self.after_sym_lit_rep0(
                                p,
                                state_after_match(state),
                                pos + m_len as u64,
                                idx + m_len,
                                m.dist,
                                l2,
                            );
                            let at = cur + m_len + 1 + l2;
                            self.extend_search(&mut len_end, at);
                            self.opts.relax(
                                at,
                                p,
                                cur,
                                Step::SymLitRep0 {
                                    back: m.dist + 4,
                                    len1: m_len as u32,
                                },
                            );
                        }
                    }
                }
            }
            cur += 1;
        }
        cur
    }

    /// `price` of a first symbol ending at `pos` (window index `idx`) in
    /// `state` with rep0 = `dist`, plus a literal and rep0 of `l2`.
    #[inline]
    fn after_sym_lit_rep0(
        &self,
        price: u32,
        state: u32,
        pos: u64,
        idx: usize,
        dist: u32,
        l2: usize,
    ) -> u32 {
        let buf = &self.mf.buf;
        let ps = self.pos_state(pos);
        let lit = self.is_match_price(state, ps, 0)
            + self.literal_price(
                pos,
                buf[idx - 1],
                state,
                buf[idx - dist as usize - 1],
                buf[idx],
            );
        let s2 = state_after_literal(state);
        let ps2 = self.pos_state(pos + 1);
        price + lit + self.rep0_price(s2, ps2, l2 as u32)
    }

    /// Computes (and stores) the state and reps after reaching `cur`.
    fn state_at(&mut self, cur: usize) -> (u32, [u32; 4]) {
        let o = self.opts.get(cur);
        let from = self.opts.get(o.from as usize);
        let (mut s, mut reps) = (from.state, from.reps);
        match o.step {
            Step::Lit => s = state_after_literal(s),
            Step::ShortRep => s = state_after_short_rep(s),
            Step::Rep(i) => {
                s = state_after_rep(s);
                reps = rep_moved_to_front(reps, i as usize);
            }
            Step::Match(d) => {
                s = state_after_match(s);
                reps = [d, reps[0], reps[1], reps[2]];
            }
            Step::LitRep0 => s = state_after_rep(state_after_literal(s)),
            Step::SymLitRep0 { back, .. } => {
                if back < 4 {
                    s = state_after_rep(s);
                    reps = rep_moved_to_front(reps, back as usize);
                } else {
                    s = state_after_match(s);
                    reps = [back - 4, reps[0], reps[1], reps[2]];
                }
                s = state_after_rep(state_after_literal(s));
            }
        }
        debug_assert!(
            (s as usize) < STATES && (!is_literal_state(s) || matches!(o.step, Step::Lit))
        );
        self.opts.set_state(cur, s);
        self.opts.set_reps(cur, reps);
        (s, reps)
    }

    /// Walks back from `end` and queues the symbols in order.
    fn backtrack(&mut self, end: usize) {
        self.path.clear();
        let mut at = end;
        while at > 0 {
            let o = self.opts.get(at);
            let from = o.from as usize;
            let reps = self.opts.reps(from);
            let span = (at - from) as u32;
            match o.step {
                Step::Lit => self.path.push((1, NO_DIST)),
                Step::ShortRep => self.path.push((1, reps[0])),
                Step::Rep(i) => self.path.push((span, reps[i as usize])),
                Step::Match(d) => self.path.push((span, d)),
                Step::LitRep0 => {
                    self.path.push((span - 1, reps[0]));
                    self.path.push((1, NO_DIST));
                }
                Step::SymLitRep0 { back, len1 } => {
                    let d = if back < 4 {
                        reps[back as usize]
                    } else {
                        back - 4
                    };
                    self.path.push((span - len1 - 1, d));
                    self.path.push((1, NO_DIST));
                    self.path.push((len1, d));
                }
            }
            at = from;
        }
        self.queue.extend(self.path.iter().rev().copied());
    }
}
