//! Fast mode: take the longest match at each position, but prefer a
//! repeated distance or a slightly shorter match at a much smaller distance,
//! and emit a literal instead when the next position starts a better match
//! (one step of lazy evaluation).

use crate::encoder_state::{LzmaCore, NO_DIST};
use crate::match_finder::common_len;
use crate::model::MATCH_LEN_MAX;

/// True when `big` is so much further than `small` that one byte of extra
/// length is not worth it.
#[inline]
fn much_closer(small: u32, big: u32) -> bool {
    (big >> 7) > small
}

impl LzmaCore {
    /// Decides the symbol at `self.pos`: (length, encoded distance) with
    /// `NO_DIST` for a literal.
    pub(crate) fn decide_fast(&mut self) -> (u32, u32) {
        self.matches_at_pos();
        let pos = self.pos;
        let avail = (self.mf.end() - pos) as usize;
        if avail < 2 {
            return (1, NO_DIST);
        }
        let limit = avail.min(MATCH_LEN_MAX as usize);
        let idx = self.idx(pos);
        let buf = &self.mf.buf;

        let mut rep_len = 0usize;
        let mut rep_dist = 0u32;
        for &d in &self.reps {
            if u64::from(d) >= pos {
                continue;
            }
            let back = idx - d as usize - 1;
            if buf[back] != buf[idx] || buf[back + 1] != buf[idx + 1] {
                continue;
            }
            let len = common_len(buf, back, idx, 2, limit);
            if len >= self.nice_len as usize {
                return (len as u32, d);
            }
            if len > rep_len {
                rep_len = len;
                rep_dist = d;
            }
        }

        let Some(&longest) = self.matches.last() else {
            if rep_len >= 2 {
                return (rep_len as u32, rep_dist);
            }
            return (1, NO_DIST);
        };
        let mut main_len = longest.len;
        let mut main_dist = longest.dist;
        if main_len >= self.nice_len {
            return (main_len, main_dist);
        }
        // Step down to a one-byte-shorter match that is far closer.
        let mut n = self.matches.len();
        while n > 1 {
            let prev = self.matches[n - 2];
            if main_len != prev.len + 1 || !much_closer(prev.dist, main_dist) {
                break;
            }
            n -= 1;
            main_len = prev.len;
            main_dist = prev.dist;
        }
        if main_len == 2 && main_dist >= 0x80 {
            // A far two-byte match costs more than two literals.
            main_len = 1;
        }
        let rep_len32 = rep_len as u32;
        if rep_len >= 2
            && (rep_len32 + 1 >= main_len
                || (rep_len32 + 2 >= main_len && main_dist > (1 << 9))
                || (rep_len32 + 3 >= main_len && main_dist > (1 << 15)))
        {
            return (rep_len32, rep_dist);
        }
        if main_len < 2 || avail <= 2 {
            return (1, NO_DIST);
        }

        // Lazy step: look at the matches starting one byte later.
        Self::find_matches(&mut self.mf, self.nice_len, &mut self.next_matches);
        if let Some(&next) = self.next_matches.last() {
            if (next.len >= main_len && next.dist < main_dist)
                || (next.len == main_len + 1 && !much_closer(main_dist, next.dist))
                || next.len > main_len + 1
                || (next.len + 1 >= main_len && main_len >= 3 && much_closer(next.dist, main_dist))
            {
                return self.literal_keeping_next();
            }
        }
        // A rep at the next position nearly as long also favours a literal.
        let next_idx = idx + 1;
        let want = (main_len - 1).max(2) as usize;
        if avail > want {
            let buf = &self.mf.buf;
            for &d in &self.reps {
                if u64::from(d) > pos {
                    continue;
                }
                let back = next_idx - d as usize - 1;
                if common_len(buf, back, next_idx, 0, want) == want {
                    return self.literal_keeping_next();
                }
            }
        }
        (main_len, main_dist)
    }

    /// A literal now; the matches already found at the next position are
    /// kept for the next decision.
    fn literal_keeping_next(&mut self) -> (u32, u32) {
        std::mem::swap(&mut self.matches, &mut self.next_matches);
        self.cached_at = Some(self.pos + 1);
        (1, NO_DIST)
    }
}
