//! The model's memory: one byte arena, addressed by 32-bit offsets, holding
//! the records both variants share.
//!
//! Var. H and var. I lay their records out alike (7-Zip's layout):
//! * a state is 6 bytes: `symbol u8 @0, freq u8 @1, successor u32 @2`;
//! * a context is 12 bytes (one unit): its symbol count @0 (each variant
//!   reads it its own way), `summ_freq u16 @2, stats u32 @4,
//!   suffix u32 @8`; a one-symbol context keeps its state inline @2.
//!
//! Multi-byte fields are little-endian; offsets are the variants' own
//! (var. I's arena starts with its alignment bytes).

/// The bytes of the model.
pub(crate) struct Arena {
    mem: Vec<u8>,
}

impl Arena {
    /// `len` zeroed bytes (the allocator takes them lazily from the OS).
    pub(crate) fn new(len: usize) -> Self {
        Arena { mem: vec![0; len] }
    }

    // ---- raw access -------------------------------------------------------

    #[inline(always)]
    pub(crate) fn byte(&self, at: u32) -> u32 {
        u32::from(self.mem[at as usize])
    }

    #[inline(always)]
    pub(crate) fn set_byte(&mut self, at: u32, v: u32) {
        self.mem[at as usize] = v as u8;
    }

    #[inline(always)]
    pub(crate) fn u16_at(&self, at: u32) -> u32 {
        let a = at as usize;
        u32::from(u16::from_le_bytes([self.mem[a], self.mem[a + 1]]))
    }

    #[inline(always)]
    pub(crate) fn set_u16(&mut self, at: u32, v: u32) {
        let a = at as usize;
        self.mem[a..a + 2].copy_from_slice(&(v as u16).to_le_bytes());
    }

    #[inline(always)]
    pub(crate) fn u32_at(&self, at: u32) -> u32 {
        let a = at as usize;
        let b: [u8; 4] = self.mem[a..a + 4].try_into().expect("4 bytes");
        u32::from_le_bytes(b)
    }

    #[inline(always)]
    pub(crate) fn set_u32(&mut self, at: u32, v: u32) {
        let a = at as usize;
        self.mem[a..a + 4].copy_from_slice(&v.to_le_bytes());
    }

    /// Asks for the cache line at `at` ahead of its use (a hint: see
    /// [`lzflow_core::prefetch`]).
    #[inline(always)]
    pub(crate) fn prefetch(&self, at: u32) {
        lzflow_core::prefetch(&self.mem, at as usize);
    }

    /// Copies `len` bytes from `from` to `to` (the ranges may overlap).
    pub(crate) fn copy(&mut self, to: u32, from: u32, len: u32) {
        let from = from as usize;
        self.mem.copy_within(from..from + len as usize, to as usize);
    }

    // ---- contexts ---------------------------------------------------------

    /// A context record, read at once.
    #[inline(always)]
    pub(crate) fn context(&self, ctx: u32) -> [u8; 12] {
        let a = ctx as usize;
        self.mem[a..a + 12].try_into().expect("12 bytes")
    }

    #[inline(always)]
    pub(crate) fn summ_freq(&self, ctx: u32) -> u32 {
        self.u16_at(ctx + 2)
    }
    #[inline(always)]
    pub(crate) fn set_summ_freq(&mut self, ctx: u32, v: u32) {
        self.set_u16(ctx + 2, v);
    }
    #[inline(always)]
    pub(crate) fn stats(&self, ctx: u32) -> u32 {
        self.u32_at(ctx + 4)
    }
    #[inline(always)]
    pub(crate) fn set_stats(&mut self, ctx: u32, v: u32) {
        self.set_u32(ctx + 4, v);
    }
    #[inline(always)]
    pub(crate) fn suffix(&self, ctx: u32) -> u32 {
        self.u32_at(ctx + 8)
    }
    #[inline(always)]
    pub(crate) fn set_suffix(&mut self, ctx: u32, v: u32) {
        self.set_u32(ctx + 8, v);
    }
    /// The inline state of a one-symbol context.
    #[inline(always)]
    pub(crate) fn one_state(ctx: u32) -> u32 {
        ctx + 2
    }

    // ---- states -----------------------------------------------------------

    #[inline(always)]
    pub(crate) fn symbol(&self, s: u32) -> u32 {
        self.byte(s)
    }
    #[inline(always)]
    pub(crate) fn freq(&self, s: u32) -> u32 {
        self.byte(s + 1)
    }
    #[inline(always)]
    pub(crate) fn set_freq(&mut self, s: u32, v: u32) {
        self.set_byte(s + 1, v);
    }
    #[inline(always)]
    pub(crate) fn successor(&self, s: u32) -> u32 {
        self.u32_at(s + 2)
    }
    #[inline(always)]
    pub(crate) fn set_successor(&mut self, s: u32, v: u32) {
        self.set_u32(s + 2, v);
    }

    pub(crate) fn read_state(&self, s: u32) -> [u8; 6] {
        let a = s as usize;
        self.mem[a..a + 6].try_into().expect("6 bytes")
    }

    pub(crate) fn write_state(&mut self, s: u32, st: [u8; 6]) {
        let a = s as usize;
        self.mem[a..a + 6].copy_from_slice(&st);
    }

    /// Swaps the state at `s` with the one before it.
    #[inline]
    pub(crate) fn swap_with_previous(&mut self, s: u32) {
        let a = s as usize;
        let pair: &mut [u8; 12] = (&mut self.mem[a - 6..a + 6]).try_into().expect("12 bytes");
        let (lo, hi) = pair.split_at_mut(6);
        lo.swap_with_slice(hi);
    }

    /// Swaps the states at `a` and `b`.
    pub(crate) fn swap_states(&mut self, a: u32, b: u32) {
        let (sa, sb) = (self.read_state(a), self.read_state(b));
        self.write_state(a, sb);
        self.write_state(b, sa);
    }

    /// The state of `sym` among the `stats` of a context that has it.
    pub(crate) fn find_state(&self, stats: u32, sym: u32) -> u32 {
        let mut s = stats;
        while self.symbol(s) != sym {
            s += 6;
        }
        s
    }

    // ---- walks over a context's states ------------------------------------
    //
    // Each takes the `n` states from `stats` as one slice, so a walk has
    // one bounds check. A `mask` holds 0xFF for a symbol that may still be
    // coded and 0 for one an escape excluded.

    #[inline(always)]
    fn states(&self, stats: u32, n: u32) -> std::slice::ChunksExact<'_, u8> {
        let a = stats as usize;
        self.mem[a..a + 6 * n as usize].chunks_exact(6)
    }

    /// Excludes the symbols of the `n` states from `stats`.
    #[inline]
    pub(crate) fn mask_states(&self, stats: u32, n: u32, mask: &mut [u8; 256]) {
        for st in self.states(stats, n) {
            mask[usize::from(st[0])] = 0;
        }
    }

    /// The first state whose cumulative frequency passes `count`, as
    /// (offset, frequencies before it, its frequency). `Err` holds the
    /// total when `count` is beyond all.
    #[inline]
    pub(crate) fn find_by_count(
        &self,
        stats: u32,
        n: u32,
        count: u32,
    ) -> Result<(u32, u32, u32), u32> {
        let mut lo = 0;
        for (i, st) in self.states(stats, n).enumerate() {
            let f = u32::from(st[1]);
            if count < lo + f {
                return Ok((stats + 6 * i as u32, lo, f));
            }
            lo += f;
        }
        Err(lo)
    }

    /// The state of `symbol` (any value above 255 matches none), as
    /// (offset, frequencies before it).
    #[inline]
    pub(crate) fn find_by_symbol(&self, stats: u32, n: u32, symbol: u32) -> (Option<u32>, u32) {
        let mut lo = 0;
        for (i, st) in self.states(stats, n).enumerate() {
            if u32::from(st[0]) == symbol {
                return (Some(stats + 6 * i as u32), lo);
            }
            lo += u32::from(st[1]);
        }
        (None, lo)
    }

    /// The frequencies of the unmasked states.
    #[inline]
    pub(crate) fn masked_sum(&self, stats: u32, n: u32, mask: &[u8; 256]) -> u32 {
        self.states(stats, n)
            .map(|st| u32::from(st[1]) & u32::from(mask[usize::from(st[0])]))
            .sum()
    }

    /// [`find_by_count`](Self::find_by_count) over the unmasked states.
    #[inline]
    pub(crate) fn find_masked_by_count(
        &self,
        stats: u32,
        n: u32,
        count: u32,
        mask: &[u8; 256],
    ) -> Option<(u32, u32)> {
        let mut lo = 0;
        for (i, st) in self.states(stats, n).enumerate() {
            let f = u32::from(st[1]) & u32::from(mask[usize::from(st[0])]);
            if count < lo + f {
                return Some((stats + 6 * i as u32, lo));
            }
            lo += f;
        }
        None
    }

    /// [`find_by_symbol`](Self::find_by_symbol) over the unmasked states,
    /// also returning the total of the unmasked frequencies.
    #[inline]
    pub(crate) fn find_masked_by_symbol(
        &self,
        stats: u32,
        n: u32,
        symbol: u32,
        mask: &[u8; 256],
    ) -> (Option<(u32, u32)>, u32) {
        let masked = |st: &[u8]| u32::from(st[1]) & u32::from(mask[usize::from(st[0])]);
        let mut lo = 0;
        let mut states = self.states(stats, n).enumerate();
        for (i, st) in &mut states {
            if u32::from(st[0]) == symbol {
                let found = (stats + 6 * i as u32, lo);
                let total = lo + masked(st) + states.map(|(_, st)| masked(st)).sum::<u32>();
                return (Some(found), total);
            }
            lo += masked(st);
        }
        (None, lo)
    }
}
