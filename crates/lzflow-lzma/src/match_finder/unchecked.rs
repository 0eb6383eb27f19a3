//! The binary-tree walk without bounds checks: the only `unsafe` code in
//! lzflow-lzma (lzflow-core has one `madvise`), compiled unless the `safe`
//! feature is on (which selects the checked twin in `binary_tree.rs`; both
//! produce the same trees and matches, which a test in this crate compares
//! position by position).
//!
//! Why: the walk is the encoder's hottest loop. With slices it keeps more
//! values live than x86-64 has registers (buffer and table lengths for the
//! checks), and the spills cost 12 % of all instructions of a 7-Zip -mx5
//! archive of text (callgrind: 3.50 → 3.06 G for 3 MB) and about 5 % of
//! the time.
//!
//! Invariants, each checked where this module relies on it:
//! * `0 < len_limit` and `cur + len_limit <= buf.len()`: asserted on
//!   entry. Every byte read is at `cur + i` or `cur - delta + i` with
//!   `i < len_limit` and `1 <= delta <= cur`, so inside `buf`.
//! * `son.len() >= 2 * cyclic_size` and `cyclic_pos < cyclic_size`:
//!   asserted on entry. A candidate is only followed when
//!   `delta < cyclic_size` (checked each step), which puts its slot
//!   `cand_cyc` below `cyclic_size`, so `2 * cand_cyc + 1 < son.len()`;
//!   the two open slots are always such pair entries (or the current
//!   position's own pair).
//! * `delta <= cur`: checked each step together with the depth and the
//!   dictionary bound (the window keeps a dictionary of history, so the
//!   check never fires; it is there so that safety does not depend on it).

use super::{cyclic_slot, Finder, Match};

impl Finder {
    /// [`bt_search_checked`](Finder::bt_search_checked) with raw pointers.
    #[inline(always)]
    pub(super) fn bt_search_unchecked<const FIND: bool>(
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
        assert!(0 < len_limit && cur + len_limit <= self.buf.len() && cpos < cyc);
        assert!(self.son.len() >= 2 * cyc as usize);
        let mut smaller_slot = cpos as usize * 2;
        let mut larger_slot = smaller_slot + 1;
        let mut len_smaller = 0usize;
        let mut len_larger = 0usize;
        let mut cand = head;
        let mut depth = self.depth;
        // SAFETY: `cur <= buf.len()` (asserted above).
        let here = unsafe { self.buf.as_ptr().add(cur) };
        let son = self.son.as_mut_ptr();
        loop {
            let delta = pos32.wrapping_sub(cand);
            if depth == 0 || delta >= cyc || delta as usize > cur {
                // SAFETY: open slots are pair entries below `2 * cyc`.
                unsafe {
                    *son.add(smaller_slot) = 0;
                    *son.add(larger_slot) = 0;
                }
                return;
            }
            depth -= 1;
            let cand_cyc = cyclic_slot(cpos, delta, cyc);
            let pair = cand_cyc as usize * 2;
            // SAFETY: `delta <= cur` (checked above).
            let there = unsafe { here.sub(delta as usize) };
            let mut len = len_smaller.min(len_larger);
            // SAFETY: `len < len_limit`: both lengths come from compares
            // that stopped before `len_limit` (an equal run returns).
            if unsafe { *there.add(len) == *here.add(len) } {
                // SAFETY: reads stay below `len_limit` bytes from either.
                len = unsafe { common_len(there, here, len + 1, len_limit) };
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
                    // SAFETY: `pair + 1 < 2 * cyc` since `cand_cyc < cyc`.
                    unsafe {
                        *son.add(smaller_slot) = *son.add(pair);
                        *son.add(larger_slot) = *son.add(pair + 1);
                    }
                    return;
                }
            }
            // SAFETY: `len < len_limit` here, and the slots as above.
            unsafe {
                if *there.add(len) < *here.add(len) {
                    *son.add(smaller_slot) = cand;
                    smaller_slot = pair + 1;
                    cand = *son.add(smaller_slot);
                    len_smaller = len;
                } else {
                    *son.add(larger_slot) = cand;
                    larger_slot = pair;
                    cand = *son.add(larger_slot);
                    len_larger = len;
                }
            }
        }
    }
}

/// Length of the common prefix of `x[..limit]` and `y[..limit]`, from
/// `len` known-equal bytes on.
///
/// # Safety
/// `x` and `y` must each be valid for reads of `limit` bytes.
#[inline(always)]
unsafe fn common_len(x: *const u8, y: *const u8, mut len: usize, limit: usize) -> usize {
    while len + 8 <= limit {
        // SAFETY: `len + 8 <= limit` bytes are readable from both.
        let d = unsafe {
            x.add(len).cast::<u64>().read_unaligned() ^ y.add(len).cast::<u64>().read_unaligned()
        };
        if d != 0 {
            return len + (d.to_le().trailing_zeros() / 8) as usize;
        }
        len += 8;
    }
    // SAFETY: `len < limit` bytes are readable from both.
    while len < limit && unsafe { *x.add(len) == *y.add(len) } {
        len += 1;
    }
    len
}
