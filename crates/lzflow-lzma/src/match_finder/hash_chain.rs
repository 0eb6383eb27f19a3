//! Hash-chain match finder: each position links to the previous position
//! with the same hash; a lookup walks the chain newest first.

use super::{common_len, cyclic_slot, Finder, Match};

impl Finder {
    /// Links the position at `cur` in front of `head` and walks the chain,
    /// recording matches longer than `best`.
    pub(super) fn hc_search(
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
        self.son[cpos as usize] = head;
        if best >= len_limit {
            return;
        }
        let buf = &self.buf[..];
        let mut cand = head;
        let mut depth = self.depth;
        loop {
            let delta = pos32.wrapping_sub(cand);
            if depth == 0 || delta >= cyc {
                return;
            }
            depth -= 1;
            let pb = cur - delta as usize;
            // Cheap reject: a longer match must agree at `best` and at 0.
            if buf[pb + best] == buf[cur + best] && buf[pb] == buf[cur] {
                let len = common_len(buf, pb, cur, 1, len_limit);
                if len > best {
                    best = len;
                    matches.push(Match {
                        len: len as u32,
                        dist: delta - 1,
                    });
                    if len == len_limit {
                        return;
                    }
                }
            }
            let cand_cyc = cyclic_slot(cpos, delta, cyc);
            cand = self.son[cand_cyc as usize];
        }
    }
}
