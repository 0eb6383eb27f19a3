//! Binary-tree match finder: each hash bucket heads a binary search tree of
//! earlier positions ordered by the bytes that follow them. Inserting the
//! current position walks the tree from the newest node, re-linking it so
//! the current position becomes the root, and every node visited on the way
//! is a candidate match, so lookups and insertion are one pass.

use super::{common_len_of, cyclic_slot, Finder, Match};

impl Finder {
    /// Inserts the position at `cur` under the tree whose root is `head`;
    /// with `FIND`, records matches longer than `best` into `matches`.
    /// Unless `CHECKED` (or the `safe` feature), through the walk without
    /// bounds checks in `unchecked.rs`.
    #[inline(always)]
    pub(super) fn bt_search<const FIND: bool, const CHECKED: bool>(
        &mut self,
        cur: usize,
        head: u32,
        len_limit: usize,
        best: usize,
        matches: &mut Vec<Match>,
    ) {
        #[cfg(not(feature = "safe"))]
        if !CHECKED {
            return self.bt_search_unchecked::<FIND>(cur, head, len_limit, best, matches);
        }
        self.bt_search_checked::<FIND>(cur, head, len_limit, best, matches)
    }

    /// [`bt_search`](Self::bt_search) with slices.
    ///
    /// Both byte strings are cut to `len_limit` bytes up front (one length,
    /// so one bounds check per compare) and skipping is a separate instance
    /// without the match bookkeeping, which keeps the walk's state in
    /// registers.
    #[inline(always)]
    pub(super) fn bt_search_checked<const FIND: bool>(
        &mut self,
        cur: usize,
        head: u32,
        len_limit: usize,
        mut best: usize,
        matches: &mut Vec<Match>,
    ) {
        let cyc = self.cyclic_size;
        let cpos = self.cyclic_pos;
        let pos32 = self.pos32;
        // Slots still to be filled: where the next smaller and the next
        // larger node hang below the current position.
        let mut smaller_slot = cpos as usize * 2;
        let mut larger_slot = smaller_slot + 1;
        // Bytes known to be shared with everything below each slot.
        let mut len_smaller = 0usize;
        let mut len_larger = 0usize;
        let mut cand = head;
        let mut depth = self.depth;
        let buf = &self.buf[..cur + len_limit];
        let here = &buf[cur..];
        let son = &mut self.son[..];
        loop {
            let delta = pos32.wrapping_sub(cand);
            // (`delta <= cur` always holds; checked as in the unchecked twin.)
            if depth == 0 || delta >= cyc || delta as usize > cur {
                son[smaller_slot] = 0;
                son[larger_slot] = 0;
                return;
            }
            depth -= 1;
            let cand_cyc = cyclic_slot(cpos, delta, cyc);
            let pair = cand_cyc as usize * 2;
            let there = &buf[cur - delta as usize..][..len_limit];
            let mut len = len_smaller.min(len_larger);
            if there[len] == here[len] {
                len = common_len_of(there, here, len + 1);
                if FIND && len > best {
                    best = len;
                    matches.push(Match {
                        len: len as u32,
                        dist: delta - 1,
                    });
                }
                if len == len_limit {
                    // Equal as far as we look: the candidate's subtrees
                    // become ours and the candidate drops out.
                    son[smaller_slot] = son[pair];
                    son[larger_slot] = son[pair + 1];
                    return;
                }
            }
            if there[len] < here[len] {
                son[smaller_slot] = cand;
                smaller_slot = pair + 1;
                cand = son[smaller_slot];
                len_smaller = len;
            } else {
                son[larger_slot] = cand;
                larger_slot = pair;
                cand = son[larger_slot];
                len_larger = len;
            }
        }
    }
}
