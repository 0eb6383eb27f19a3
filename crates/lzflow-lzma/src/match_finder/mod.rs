//! Match finders: the encoder's window of recent input plus an index over it
//! (hash chains or binary trees) that lists earlier occurrences of the bytes
//! at the current position.
//!
//! Positions are stored in the index as `u32` counters that start at
//! `cyclic_size`, so that 0 (an empty slot) is always out of reach; the
//! counters are rebased before they could wrap.

mod binary_tree;
mod hash_chain;
mod thread;
#[cfg(not(feature = "safe"))]
#[allow(unsafe_code)]
mod unchecked;

pub(crate) use thread::{encoder_room, in_flight, tree_window};

use lzflow_core::{Lease, Pool};

use crate::encoder_options::MatchFinder as Kind;
use crate::LzmaError;

/// One match: `len` bytes at encoded distance `dist` (distance - 1).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) struct Match {
    /// Length in bytes.
    pub(crate) len: u32,
    /// Distance minus one, as LZMA codes it.
    pub(crate) dist: u32,
}

/// Bits of the two-byte side table (small so it stays in cache; the
/// candidates are verified, so collisions only cost a compare).
const HASH2_BITS: u32 = 10;
const HASH2_SIZE: usize = 1 << HASH2_BITS;
/// Entries of Bt2's main table: exact two-byte values.
const BT2_HASH_SIZE: usize = 1 << 16;
/// Bits of the three-byte side table used by the four-byte finders.
const HASH3_BITS: u32 = 16;
/// Multiplier of the multiplicative hashes (2^32 / golden ratio, odd).
const HASH_MUL: u32 = 0x9E37_79B1;

/// Window plus index.
#[derive(Debug)]
pub(crate) struct Finder {
    kind: Kind,
    /// Window: history before `read_pos` and lookahead after it, leased
    /// from the global byte pool so short-lived encoders reuse it.
    pub(crate) buf: Lease<u8>,
    /// Index in `buf` of the next position to be indexed.
    pub(crate) read_pos: usize,
    /// Absolute stream position of `buf[0]`.
    pub(crate) base: u64,
    /// Most bytes `buf` holds.
    max_buf: usize,
    /// Counter of the position at `read_pos`, as stored in the tables.
    pos32: u32,
    /// Slot of the current position in `son`.
    cyclic_pos: u32,
    /// Positions kept in `son`: dictionary size + 1.
    cyclic_size: u32,
    // The tables are leased from the global u32 pool, so an encoder made
    // after another one was dropped reuses its tables.
    hash2: Lease<u32>,
    hash3: Lease<u32>,
    main: Lease<u32>,
    main_shift: u32,
    /// Hash chain links (one per position) or tree children (two).
    son: Lease<u32>,
    nice_len: u32,
    depth: u32,
    /// True once anything was indexed since the tables were last cleared.
    dirty: bool,
    /// With a finder thread, the index lives there and this finder keeps
    /// only the window (its tables are empty).
    thread: Option<Box<thread::FinderThread>>,
}

/// Entries of the main hash table for a dictionary: about half the
/// dictionary rounded up to a power of two, at least 64 Ki, and at most
/// 16 Mi (or exactly 2^24 for three-byte hashes, which then cannot collide).
fn main_hash_size(kind: Kind, dict_size: u32) -> usize {
    if kind == Kind::Bt2 {
        return BT2_HASH_SIZE;
    }
    let mut hs = dict_size - 1;
    hs |= hs >> 1;
    hs |= hs >> 2;
    hs |= hs >> 4;
    hs |= hs >> 8;
    hs |= hs >> 16;
    hs >>= 1;
    hs |= 0xFFFF;
    if hs > (1 << 24) {
        if kind.hash_bytes() == 3 {
            hs = (1 << 24) - 1;
        } else {
            hs >>= 1;
        }
    }
    hs as usize + 1
}

/// Bytes the finder allocates at most for `dict_size` and a window of
/// `max_buf` bytes.
pub(crate) fn memory_usage(kind: Kind, dict_size: u32, max_buf: usize) -> u64 {
    let cyclic = u64::from(dict_size) + 1;
    let son = if kind.is_binary_tree() {
        2 * cyclic
    } else {
        cyclic
    };
    let small = match kind.hash_bytes() {
        2 => 0,
        3 => HASH2_SIZE,
        _ => HASH2_SIZE + (1 << HASH3_BITS),
    } as u64;
    max_buf as u64 + 4 * (small + main_hash_size(kind, dict_size) as u64 + son)
}

/// A zeroed table of `n` entries from the global pool, or an error instead
/// of an abort when the system cannot provide a large one. A new table is
/// calloc'ed, so its pages are only touched when used.
fn zeroed(n: usize) -> Result<Lease<u32>, LzmaError> {
    Pool::<u32>::global().try_lease_zeroed(n).map_err(|_| {
        LzmaError::Usage("not enough memory for the encoder's match finder (see memory_usage)")
    })
}

/// The slot of the position `delta` behind the one in slot `cpos`, in a
/// ring of `cyc` slots (`delta < cyc`).
#[inline(always)]
fn cyclic_slot(cpos: u32, delta: u32, cyc: u32) -> u32 {
    if delta > cpos {
        cpos + cyc - delta
    } else {
        cpos - delta
    }
}

/// Whether the tree walk checks bounds: only with the `safe` feature (see
/// `unchecked.rs`).
const CHECKED: bool = cfg!(feature = "safe");

/// Length of the common prefix of `buf[a..]` and `buf[b..]`, starting from
/// `len` known-equal bytes and stopping at `limit`.
#[inline]
pub(crate) fn common_len(buf: &[u8], a: usize, b: usize, len: usize, limit: usize) -> usize {
    common_len_of(&buf[a..a + limit], &buf[b..b + limit], len)
}

/// Length of the common prefix of `x` and `y` (of equal length), starting
/// from `len` known-equal bytes.
#[inline(always)]
pub(crate) fn common_len_of(x: &[u8], y: &[u8], mut len: usize) -> usize {
    let limit = x.len().min(y.len());
    while len + 8 <= limit {
        let u = u64::from_le_bytes(x[len..len + 8].try_into().expect("8 bytes"));
        let v = u64::from_le_bytes(y[len..len + 8].try_into().expect("8 bytes"));
        let d = u ^ v;
        if d != 0 {
            return len + (d.trailing_zeros() / 8) as usize;
        }
        len += 8;
    }
    while len < limit && x[len] == y[len] {
        len += 1;
    }
    len
}

impl Finder {
    /// A finder of `kind` for `dict_size` whose window holds at most
    /// `max_buf` bytes; `initial_buf` of them are reserved at once (the
    /// window grows up to `max_buf` as data arrives).
    pub(crate) fn new(
        kind: Kind,
        dict_size: u32,
        nice_len: u32,
        depth: u32,
        max_buf: usize,
        initial_buf: usize,
    ) -> Result<Self, LzmaError> {
        Self::build(
            kind,
            dict_size,
            nice_len,
            depth,
            max_buf,
            initial_buf,
            true,
            true,
        )
    }

    /// [`new`](Self::new), with the index on a thread of its own when
    /// `kind` is a binary tree (see `thread.rs`): the same matches, found
    /// while the encoder codes. Without a thread to be had, a plain finder.
    pub(crate) fn threaded(
        kind: Kind,
        dict_size: u32,
        nice_len: u32,
        depth: u32,
        max_buf: usize,
        initial_buf: usize,
    ) -> Result<Self, LzmaError> {
        if !kind.is_binary_tree() {
            return Self::new(kind, dict_size, nice_len, depth, max_buf, initial_buf);
        }
        let build = |max_buf: usize, hash, tree| {
            Self::build(
                kind,
                dict_size,
                nice_len,
                depth,
                max_buf,
                initial_buf,
                hash,
                tree,
            )
        };
        let mut hash_stage = build(max_buf, true, false)?;
        let tree_buf = max_buf.min(tree_window(dict_size, nice_len));
        match thread::FinderThread::start(build(tree_buf, false, true)?) {
            Some(t) => {
                hash_stage.thread = Some(Box::new(t));
                Ok(hash_stage)
            }
            None => Self::new(kind, dict_size, nice_len, depth, max_buf, initial_buf),
        }
    }

    /// A finder with its hash tables, its links (chains or trees), or both
    /// (the two halves of a threaded finder each have one).
    #[allow(clippy::too_many_arguments)]
    fn build(
        kind: Kind,
        dict_size: u32,
        nice_len: u32,
        depth: u32,
        max_buf: usize,
        initial_buf: usize,
        hash_tables: bool,
        links: bool,
    ) -> Result<Self, LzmaError> {
        let table = |n: usize| zeroed(if hash_tables { n } else { 0 });
        let cyclic_size = dict_size + 1;
        let small2 = if kind.hash_bytes() >= 3 {
            HASH2_SIZE
        } else {
            0
        };
        let small3 = if kind.hash_bytes() == 4 {
            1 << HASH3_BITS
        } else {
            0
        };
        let main_size = main_hash_size(kind, dict_size);
        let son_len = cyclic_size as usize * if kind.is_binary_tree() { 2 } else { 1 };
        let initial_buf = initial_buf.min(max_buf);
        if initial_buf >= lzflow_core::PROBE_MIN_BYTES {
            let mut probe: Vec<u8> = Vec::new();
            probe
                .try_reserve_exact(initial_buf)
                .map_err(|_| LzmaError::Usage("not enough memory for the encoder's window"))?;
        }
        // Capacity is only reserved, not touched, until data arrives; the
        // window is read at random, like the tables, so it gets huge pages.
        let mut buf = Pool::<u8>::global().lease(initial_buf);
        lzflow_core::advise_huge_pages(buf.spare_capacity_mut());
        Ok(Finder {
            kind,
            buf,
            read_pos: 0,
            base: 0,
            max_buf,
            pos32: cyclic_size,
            cyclic_pos: 0,
            cyclic_size,
            hash2: table(small2)?,
            hash3: table(small3)?,
            main: table(main_size)?,
            main_shift: 32 - main_size.trailing_zeros(),
            son: zeroed(if links { son_len } else { 0 })?,
            nice_len,
            depth,
            dirty: false,
            thread: None,
        })
    }

    /// Forgets all data, keeping the allocations.
    pub(crate) fn reset(&mut self) {
        self.buf.clear();
        self.read_pos = 0;
        self.base = 0;
        self.cyclic_pos = 0;
        if let Some(t) = &mut self.thread {
            t.reset();
        }
        if !self.dirty {
            // Nothing stored since the tables were last (virtually) cleared.
            return;
        }
        self.dirty = false;
        // Moving the counter a whole cycle ahead puts every stored position
        // out of reach, which is as good as clearing the tables (and much
        // cheaper for small blocks). Clear only when the counter would wrap.
        match self.pos32.checked_add(self.cyclic_size) {
            Some(p) if p < u32::MAX / 2 => self.pos32 = p,
            _ => {
                self.hash2.fill(0);
                self.hash3.fill(0);
                self.main.fill(0);
                self.pos32 = self.cyclic_size;
            }
        }
    }

    /// Bytes after `read_pos` in the window.
    #[inline]
    pub(crate) fn avail(&self) -> usize {
        self.buf.len() - self.read_pos
    }

    /// Absolute position of `read_pos`.
    #[inline]
    pub(crate) fn pos(&self) -> u64 {
        self.base + self.read_pos as u64
    }

    /// Absolute position just after the last byte in the window.
    #[inline]
    pub(crate) fn end(&self) -> u64 {
        self.base + self.buf.len() as u64
    }

    /// Appends as much of `data` as fits, first dropping history before
    /// the absolute position `keep_from` if the window is full. Returns the
    /// number of bytes taken.
    pub(crate) fn fill(&mut self, data: &[u8], keep_from: u64) -> usize {
        if data.is_empty() {
            return 0;
        }
        if self.buf.len() == self.max_buf {
            let discard = (keep_from.saturating_sub(self.base) as usize).min(self.read_pos);
            if discard > 0 {
                self.buf.copy_within(discard.., 0);
                let keep = self.buf.len() - discard;
                self.buf.truncate(keep);
                self.read_pos -= discard;
                self.base += discard as u64;
            }
        }
        let n = data.len().min(self.max_buf - self.buf.len());
        if self.buf.capacity() < self.buf.len() + n {
            // Grow geometrically but never past the bound.
            let want = (self.buf.capacity() * 2)
                .max(self.buf.len() + n)
                .min(self.max_buf);
            let extra = want - self.buf.len();
            self.buf.reserve_exact(extra);
        }
        self.buf.extend_from_slice(&data[..n]);
        if self.thread.is_some() {
            self.hash_ahead();
        }
        n
    }

    /// Says that the encoder now codes to the end of the data in the
    /// window (it flushes or finishes), so that a finder thread finds the
    /// last positions with the lookahead the encoder has.
    pub(crate) fn mark_final(&mut self) {
        if self.thread.is_some() {
            self.hash_final();
        }
    }

    /// The (two-byte, three-byte, main) hash slots of the position at
    /// `cur`; side slots are 0 for finders that do not use them. Four-byte
    /// finders derive all three from one load.
    #[inline(always)]
    fn hashes<const HB: u32>(&self, cur: usize) -> (usize, usize, usize) {
        let b = &self.buf[cur..];
        match HB {
            2 => (0, 0, usize::from(u16::from_le_bytes([b[0], b[1]]))),
            3 => {
                let v2 = u32::from(b[0]) | u32::from(b[1]) << 8;
                let v3 = v2 | u32::from(b[2]) << 16;
                (
                    (v2.wrapping_mul(HASH_MUL) >> (32 - HASH2_BITS)) as usize,
                    0,
                    (v3.wrapping_mul(HASH_MUL) >> self.main_shift) as usize,
                )
            }
            _ => {
                let v = u32::from_le_bytes([b[0], b[1], b[2], b[3]]);
                (
                    ((v & 0xFFFF).wrapping_mul(HASH_MUL) >> (32 - HASH2_BITS)) as usize,
                    ((v & 0xFF_FFFF).wrapping_mul(HASH_MUL) >> (32 - HASH3_BITS)) as usize,
                    (v.wrapping_mul(HASH_MUL) >> self.main_shift) as usize,
                )
            }
        }
    }

    /// Steps to the next position, rebasing the counters before they wrap.
    #[inline(always)]
    fn advance(&mut self) {
        self.read_pos += 1;
        self.advance_counters();
    }

    /// [`advance`](Self::advance) without moving `read_pos` (a threaded
    /// finder's hash stage runs ahead of it).
    #[inline(always)]
    fn advance_counters(&mut self) {
        self.cyclic_pos += 1;
        if self.cyclic_pos == self.cyclic_size {
            self.cyclic_pos = 0;
        }
        self.pos32 += 1;
        if self.pos32 == u32::MAX {
            self.normalize();
        }
    }

    #[cold]
    fn normalize(&mut self) {
        let sub = self.pos32 - self.cyclic_size;
        for t in [
            &mut self.hash2,
            &mut self.hash3,
            &mut self.main,
            &mut self.son,
        ] {
            for v in t.iter_mut() {
                *v = v.saturating_sub(sub);
            }
        }
        self.pos32 -= sub;
    }

    /// Looks up the side tables (two- and three-byte) at `cur`, updates
    /// them, and records their matches. Returns the best length (1 if none).
    #[inline(always)]
    fn side_tables<const HB: u32>(
        &mut self,
        cur: usize,
        (h2, h3): (usize, usize),
        len_limit: usize,
        matches: &mut Vec<Match>,
    ) -> usize {
        let mut best = 1;
        if HB < 3 {
            return best;
        }
        let cyc = self.cyclic_size;
        let d2 = self.pos32 - self.hash2[h2];
        self.hash2[h2] = self.pos32;
        let buf = &self.buf[..];
        // Candidates are checked for 2 or 3 bytes; only the last one
        // recorded is measured in full (an earlier one keeps its shorter,
        // still true, length).
        let mut last = 0;
        if d2 < cyc && buf[cur - d2 as usize..][..2] == buf[cur..][..2] {
            best = 2;
            last = d2;
            matches.push(Match {
                len: 2,
                dist: d2 - 1,
            });
        }
        if HB == 4 {
            let d3 = self.pos32 - self.hash3[h3];
            self.hash3[h3] = self.pos32;
            if d3 < cyc && d3 != d2 && buf[cur - d3 as usize..][..3] == buf[cur..][..3] {
                best = 3;
                last = d3;
                matches.push(Match {
                    len: 3,
                    dist: d3 - 1,
                });
            }
        }
        if last != 0 {
            best = common_len(buf, cur - last as usize, cur, best, len_limit);
            if let Some(m) = matches.last_mut() {
                m.len = best as u32;
            }
        }
        best
    }

    /// Finds the matches at `read_pos` (increasing lengths, each with the
    /// nearest distance found, lengths capped at nice_len and the
    /// lookahead), indexes the position and steps past it.
    pub(crate) fn find(&mut self, matches: &mut Vec<Match>) {
        if self.thread.is_some() {
            self.top_up();
            let t = self.thread.as_mut().expect("a threaded finder");
            t.next(matches);
            self.read_pos += 1;
            return;
        }
        self.find_with::<CHECKED>(matches);
    }

    /// [`find`](Self::find), through the checked tree walk or not.
    fn find_with<const CHECKED: bool>(&mut self, matches: &mut Vec<Match>) {
        // One instance per kind, so the per-position work has no dispatch.
        match self.kind {
            Kind::Hc3 => self.find_as::<3, false, CHECKED>(matches),
            Kind::Hc4 => self.find_as::<4, false, CHECKED>(matches),
            Kind::Bt2 => self.find_as::<2, true, CHECKED>(matches),
            Kind::Bt3 => self.find_as::<3, true, CHECKED>(matches),
            Kind::Bt4 => self.find_as::<4, true, CHECKED>(matches),
        }
    }

    /// [`find`](Self::find) for a finder hashing `HB` bytes, with binary
    /// trees when `BT` (else hash chains).
    #[inline(always)]
    fn find_as<const HB: u32, const BT: bool, const CHECKED: bool>(
        &mut self,
        matches: &mut Vec<Match>,
    ) {
        matches.clear();
        let avail = self.avail();
        if avail < HB as usize {
            // Too close to the end of the data to hash; not indexed.
            self.advance();
            return;
        }
        self.dirty = true;
        let len_limit = avail.min(self.nice_len as usize);
        let cur = self.read_pos;
        let (h2, h3, h) = self.hashes::<HB>(cur);
        let best = self.side_tables::<HB>(cur, (h2, h3), len_limit, matches);
        let head = self.main[h];
        self.main[h] = self.pos32;
        if BT {
            self.bt_search::<true, CHECKED>(cur, head, len_limit, best, matches);
        } else {
            self.hc_search(cur, head, len_limit, best, matches);
        }
        self.advance();
    }

    /// Indexes `n` positions without reporting matches.
    pub(crate) fn skip(&mut self, n: usize) {
        if self.thread.is_some() {
            // In steps, so that the hash stage stays ahead of long skips.
            let mut left = n;
            while left > 0 {
                self.top_up();
                let step = left.min(thread::HASH_AHEAD_STEP);
                let t = self.thread.as_mut().expect("a threaded finder");
                t.skip(step);
                self.read_pos += step;
                left -= step;
            }
            return;
        }
        self.skip_with::<CHECKED>(n);
    }

    /// [`skip`](Self::skip), through the checked tree walk or not.
    fn skip_with<const CHECKED: bool>(&mut self, n: usize) {
        match self.kind {
            Kind::Hc3 => self.skip_as::<3, false, CHECKED>(n),
            Kind::Hc4 => self.skip_as::<4, false, CHECKED>(n),
            Kind::Bt2 => self.skip_as::<2, true, CHECKED>(n),
            Kind::Bt3 => self.skip_as::<3, true, CHECKED>(n),
            Kind::Bt4 => self.skip_as::<4, true, CHECKED>(n),
        }
    }

    /// [`skip`](Self::skip) for one kind, as in [`find_as`](Self::find_as).
    #[inline(always)]
    fn skip_as<const HB: u32, const BT: bool, const CHECKED: bool>(&mut self, n: usize) {
        for _ in 0..n {
            let avail = self.avail();
            if avail < HB as usize {
                self.advance();
                continue;
            }
            self.dirty = true;
            let len_limit = avail.min(self.nice_len as usize);
            let cur = self.read_pos;
            let (h2, h3, h) = self.hashes::<HB>(cur);
            if HB >= 3 {
                self.hash2[h2] = self.pos32;
                if HB == 4 {
                    self.hash3[h3] = self.pos32;
                }
            }
            let head = self.main[h];
            self.main[h] = self.pos32;
            if BT {
                self.bt_search::<false, CHECKED>(cur, head, len_limit, len_limit, &mut Vec::new());
            } else {
                self.son[self.cyclic_pos as usize] = head;
            }
            self.advance();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn brute_longest(buf: &[u8], cur: usize, dict: usize, limit: usize) -> usize {
        let mut best = 0;
        for d in 1..=dict.min(cur) {
            best = best.max(common_len(buf, cur - d, cur, 0, limit));
        }
        best
    }

    #[test]
    fn finders_report_real_matches_and_find_the_longest_with_deep_search() {
        let mut data = Vec::new();
        let mut x = 12345u32;
        for _ in 0..20_000 {
            x = x.wrapping_mul(1_103_515_245).wrapping_add(12345);
            data.push(b"abcab"[(x >> 16) as usize % 5]);
        }
        for (kind, near_wrap) in [Kind::Hc3, Kind::Hc4, Kind::Bt2, Kind::Bt3, Kind::Bt4]
            .into_iter()
            .flat_map(|k| [(k, false), (k, true)])
        {
            let dict = 4096;
            let mut f = Finder::new(kind, dict, 64, 10_000, 1 << 20, 1000).unwrap();
            if near_wrap {
                // Rebasing the position counters must not lose or invent
                // matches.
                f.pos32 = u32::MAX - 7000;
            }
            assert_eq!(f.fill(&data, 0), data.len());
            let mut m = Vec::new();
            for cur in 0..data.len() {
                f.find(&mut m);
                let avail = data.len() - cur;
                let mut prev = 0;
                for (i, mm) in m.iter().enumerate() {
                    assert!(mm.len > prev, "{kind:?}: lengths increase");
                    prev = mm.len;
                    let d = mm.dist as usize + 1;
                    assert!(d <= dict as usize && d <= cur);
                    let real = common_len(&data, cur - d, cur, 0, avail.min(64));
                    // Every reported length is true; the longest is exact.
                    assert!(mm.len as usize <= real, "{kind:?} at {cur}");
                    if i + 1 == m.len() {
                        assert_eq!(real, mm.len as usize, "{kind:?} at {cur}");
                    }
                }
                if kind.is_binary_tree()
                    && (cur % 97 == 0 || (near_wrap && (6950..7100).contains(&cur)))
                    && avail >= 4
                {
                    let want = brute_longest(&data, cur, dict as usize, avail.min(64));
                    let got = m.last().map_or(0, |mm| mm.len as usize);
                    if want >= kind.hash_bytes() as usize {
                        assert_eq!(got, want, "{kind:?} at {cur} (near wrap: {near_wrap})");
                    }
                }
            }
        }
    }

    /// The unchecked tree walk builds the same trees and reports the same
    /// matches as the checked one, through finds and skips, with a window
    /// that drops history and counters that get rebased.
    #[test]
    fn unchecked_walk_matches_checked_walk() {
        // Small enough for Miri, which checks the unchecked walk's accesses.
        let len = if cfg!(miri) { 9_000 } else { 60_000 };
        let mut data = Vec::new();
        let mut x = 99u32;
        for i in 0..len {
            x = x.wrapping_mul(1_103_515_245).wrapping_add(12345);
            // Runs of repeats, near-repeats and noise.
            data.push(if i % 3000 < 1500 {
                b"abcabd"[(x >> 16) as usize % 6]
            } else {
                (x >> 24) as u8
            });
        }
        for kind in [Kind::Bt2, Kind::Bt3, Kind::Bt4] {
            let (dict, nice) = (4096, 48);
            let mk = || {
                let mut f = Finder::new(kind, dict, nice, 24, 3 * dict as usize, 1000).unwrap();
                f.pos32 = u32::MAX - len / 3;
                f
            };
            let (mut a, mut b) = (mk(), mk());
            let (mut ma, mut mb) = (Vec::new(), Vec::new());
            let mut fed = 0;
            let mut step = 0usize;
            while a.pos() < data.len() as u64 {
                if a.avail() < 300 && fed < data.len() {
                    let keep = a.pos().saturating_sub(u64::from(dict));
                    let n = a.fill(&data[fed..], keep);
                    assert_eq!(b.fill(&data[fed..], keep), n);
                    fed += n;
                }
                step += 1;
                if step.is_multiple_of(7) {
                    let n = (step % 13).min(a.avail()).max(1);
                    a.skip_with::<true>(n);
                    b.skip_with::<false>(n);
                } else {
                    a.find_with::<true>(&mut ma);
                    b.find_with::<false>(&mut mb);
                    assert_eq!(ma, mb, "{kind:?} at {}", a.pos());
                }
            }
            assert_eq!(&a.son[..], &b.son[..], "{kind:?}");
            assert_eq!(&a.main[..], &b.main[..], "{kind:?}");
        }
    }

    #[test]
    fn table_sizes_follow_the_dictionary() {
        assert_eq!(main_hash_size(Kind::Bt4, 8 << 20), 4 << 20);
        assert_eq!(main_hash_size(Kind::Bt4, 64 << 20), 16 << 20);
        assert_eq!(main_hash_size(Kind::Hc3, 256 << 10), 128 << 10);
        assert_eq!(main_hash_size(Kind::Bt4, 4096), 64 << 10);
    }

    /// Data arrives in two pieces, the second after the finds came close
    /// to the end of the first; finds and skips interleave.
    #[test]
    fn threaded_finder_reports_what_the_plain_one_does() {
        let mut data = Vec::new();
        let mut x = 12345u32;
        for _ in 0..200_000 {
            x = x.wrapping_mul(1_103_515_245).wrapping_add(12345);
            data.push(b"abcab"[(x >> 16) as usize % 5]);
        }
        let mk = |t: bool| {
            let f = if t { Finder::threaded } else { Finder::new };
            f(Kind::Bt4, 1 << 16, 64, 48, 1 << 20, 1 << 20).unwrap()
        };
        let (mut a, mut b) = (mk(false), mk(true));
        let half = data.len() / 2;
        assert_eq!(a.fill(&data[..half], 0), half);
        assert_eq!(b.fill(&data[..half], 0), half);
        let (mut ma, mut mb) = (Vec::new(), Vec::new());
        for cur in 0..data.len() {
            if cur == half - 300 {
                assert_eq!(a.fill(&data[half..], 0), data.len() - half);
                assert_eq!(b.fill(&data[half..], 0), data.len() - half);
                b.mark_final();
            }
            if cur % 5 == 3 {
                a.skip(1);
                b.skip(1);
                continue;
            }
            a.find(&mut ma);
            b.find(&mut mb);
            assert_eq!(ma, mb, "at {cur}");
        }
    }
}
