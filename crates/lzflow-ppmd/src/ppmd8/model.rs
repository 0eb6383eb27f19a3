//! The PPMd var. I rev. 1 context model: its byte arena, the unit
//! allocator with its record stamps, the restoration methods (restart and
//! cut-off) and the updates after each symbol.
//!
//! As for var. H (`crate::model`), the model lives in one byte arena
//! addressed by `u32` offsets with the records laid out as 7-Zip lays them
//! out, because the allocator tells free from used blocks by reading the
//! records' first bytes, and the cut-off walks and moves them: the layout
//! decides the coded bytes. What var. I shares with var. H is only the
//! size classes of the allocator and the SEE context type; its records,
//! free blocks and updates differ.
//!
//! Records (offsets in bytes):
//! * context, one 12-byte unit: `num_stats - 1: u8 @0`, `flags: u8 @1`,
//!   `summ_freq: u16 @2`, `stats: u32 @4`, `suffix: u32 @8`. A context with
//!   one symbol keeps that symbol's state inline at @2 (symbol @2, freq
//!   @3, successor @4).
//! * state, 6 bytes: `symbol @0`, `freq @1`, `successor: u32 @2`.
//! * free block: `stamp: u32 @0` (all ones), `next: u32 @4`, `units: u32
//!   @8`; a stamp of 0 marks the guard at the end of the used units.
//!
//! Offsets count from the arena's start; the text area starts at
//! `align` (7-Zip aligns the arena's end to 4 bytes), and offset 0 serves
//! as null.

use crate::arena::Arena;

use crate::model::{
    i2u, u2b, u2i, See, BIN_SCALE, EXP_ESCAPE, INIT_BIN_ESC, INT_BITS, NUM_INDEXES, PERIOD_BITS,
    UNIT_SIZE,
};

/// Largest frequency a state keeps before its context is rescaled.
const MAX_FREQ: u32 = 124;
/// Highest model order (the zip header has 4 bits for it).
pub(crate) const MAX_ORDER: u32 = 16;
/// The stamp of a free block.
const EMPTY_NODE: u32 = 0xFFFF_FFFF;
/// Rows of SEE contexts, and contexts per row.
const SEE_ROWS: usize = 24;
const SEE_COLS: usize = 32;
/// Index of the dummy SEE context (contexts with all 256 symbols).
pub(crate) const DUMMY_SEE: usize = SEE_ROWS * SEE_COLS;

/// Context flag: the context was rescaled.
const FLAG_RESCALED: u32 = 1 << 2;
/// Context flag: the symbol before the context's symbols was high.
const FLAG_PREV_HIGH: u32 = 1 << 4;

/// Binary-context column offset by the suffix's symbol count (minus one).
const NS2BSINDX: [u8; 256] = {
    let mut t = [6u8; 256];
    t[0] = 0;
    t[1] = 2;
    let mut i = 2;
    while i < 11 {
        t[i] = 4;
        i += 1;
    }
    t
};

/// Rows of the binary and SEE contexts by a symbol count (var. I's table).
const NS2INDX: [u8; 260] = {
    let mut t = [0u8; 260];
    let mut i = 0;
    while i < 5 {
        t[i] = i as u8;
        i += 1;
    }
    let mut m = 5u32;
    let mut k = 1u32;
    while i < 260 {
        t[i] = m as u8;
        k -= 1;
        if k == 0 {
            m += 1;
            k = m - 4;
        }
        i += 1;
    }
    t
};

#[inline]
fn hi_bits_prepare(sym: u32) -> u32 {
    sym + 0xC0
}

#[inline]
fn hi_bits_3(flags: u32) -> u32 {
    (flags >> (8 - 3)) & (1 << 3)
}

#[inline]
fn hi_bits_4(flags: u32) -> u32 {
    (flags >> (8 - 4)) & (1 << 4)
}

#[inline]
fn hi_bits_flag3(sym: u32) -> u32 {
    hi_bits_3(hi_bits_prepare(sym))
}

#[inline]
fn hi_bits_flag4(sym: u32) -> u32 {
    hi_bits_4(hi_bits_prepare(sym))
}

/// What the model does when its memory runs out.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum RestoreMethod {
    /// Start over from the empty model (zip's value 0).
    Restart,
    /// Cut the model down to its lower orders and go on (zip's value 1).
    CutOff,
}

/// One PPMd var. I model.
pub(crate) struct Model {
    pub(crate) arena: Arena,
    size: u32,
    align: u32,
    pub(crate) min_context: u32,
    max_context: u32,
    pub(crate) found_state: u32,
    pub(crate) order_fall: u32,
    pub(crate) init_esc: u32,
    pub(crate) prev_success: u32,
    max_order: u32,
    restore: RestoreMethod,
    pub(crate) run_length: i32,
    init_rl: i32,
    glue_count: u32,
    text: u32,
    units_start: u32,
    lo_unit: u32,
    hi_unit: u32,
    free_list: [u32; NUM_INDEXES],
    stamps: [u32; NUM_INDEXES],
    see: [See; DUMMY_SEE + 1],
    bin_summ: [[u16; 64]; 25],
    /// Per symbol: 0xFF while it may still be coded, 0 once an escape
    /// excluded it (valid only within one symbol, after the first escape).
    pub(crate) mask: [u8; 256],
}

impl Model {
    /// A model of `mem_size` bytes and order 2..=16, started.
    pub(crate) fn new(max_order: u32, mem_size: u32, restore: RestoreMethod) -> Box<Model> {
        let align = 4u32.wrapping_sub(mem_size) & 3;
        let mut m = Box::new(Model {
            arena: Arena::new((align + mem_size) as usize),
            size: mem_size,
            align,
            min_context: 0,
            max_context: 0,
            found_state: 0,
            order_fall: 0,
            init_esc: 0,
            prev_success: 0,
            max_order,
            restore,
            run_length: 0,
            init_rl: 0,
            glue_count: 0,
            text: 0,
            units_start: 0,
            lo_unit: 0,
            hi_unit: 0,
            free_list: [0; NUM_INDEXES],
            stamps: [0; NUM_INDEXES],
            see: [See::default(); DUMMY_SEE + 1],
            bin_summ: [[0; 64]; 25],
            mask: [0xFF; 256],
        });
        m.restart();
        m
    }

    // ---- records (the rest are the arena's) ---------------------------------

    /// Copies `nu` units from `from` to `to`.
    fn copy_units(&mut self, to: u32, from: u32, nu: u32) {
        self.arena.copy(to, from, u2b(nu));
    }

    /// Symbols of a context minus one (0: a binary context).
    #[inline(always)]
    pub(crate) fn num_stats(&self, ctx: u32) -> u32 {
        self.arena.byte(ctx)
    }
    #[inline(always)]
    fn set_num_stats(&mut self, ctx: u32, v: u32) {
        self.arena.set_byte(ctx, v);
    }
    #[inline(always)]
    pub(crate) fn flags(&self, ctx: u32) -> u32 {
        self.arena.byte(ctx + 1)
    }
    #[inline(always)]
    fn set_flags(&mut self, ctx: u32, v: u32) {
        self.arena.set_byte(ctx + 1, v);
    }

    // ---- the allocator ----------------------------------------------------

    fn insert_node(&mut self, node: u32, indx: usize) {
        self.arena.set_u32(node, EMPTY_NODE);
        self.arena.set_u32(node + 4, self.free_list[indx]);
        self.arena.set_u32(node + 8, i2u(indx));
        self.free_list[indx] = node;
        self.stamps[indx] = self.stamps[indx].wrapping_add(1);
    }

    fn remove_node(&mut self, indx: usize) -> u32 {
        let node = self.free_list[indx];
        self.free_list[indx] = self.arena.u32_at(node + 4);
        self.stamps[indx] = self.stamps[indx].wrapping_sub(1);
        node
    }

    /// Frees the tail of a block of class `old` that keeps class `new`.
    fn split_block(&mut self, ptr: u32, old: usize, new: usize) {
        let nu = i2u(old) - i2u(new);
        let ptr = ptr + u2b(i2u(new));
        let mut i = u2i(nu);
        if i2u(i) != nu {
            i -= 1;
            let k = i2u(i);
            self.insert_node(ptr + u2b(k), (nu - k - 1) as usize);
        }
        self.insert_node(ptr, i);
    }

    /// Frees a block of `nu` units cut into size classes.
    fn insert_cut(&mut self, mut node: u32, mut nu: u32) {
        while nu > 128 {
            self.insert_node(node, NUM_INDEXES - 1);
            nu -= 128;
            node += u2b(128);
        }
        let mut i = u2i(nu);
        if i2u(i) != nu {
            i -= 1;
            let k = i2u(i);
            self.insert_node(node + u2b(k), (nu - k - 1) as usize);
        }
        self.insert_node(node, i);
    }

    /// Merges adjacent free blocks and re-sorts them into the free lists.
    fn glue_free_blocks(&mut self) {
        self.glue_count = 1 << 13;
        self.stamps = [0; NUM_INDEXES];
        // A guard: the free gap after the used units is no free block.
        if self.lo_unit != self.hi_unit {
            self.arena.set_u32(self.lo_unit, 0);
        }

        // One list of all free blocks, each absorbing its free right
        // neighbours (which get size 0 and are left out of the list).
        let mut head = 0u32;
        let mut prev: Option<u32> = None;
        for i in 0..NUM_INDEXES {
            let mut next = self.free_list[i];
            self.free_list[i] = 0;
            while next != 0 {
                let node = next;
                let mut nu = self.arena.u32_at(node + 8);
                match prev {
                    None => head = next,
                    Some(p) => self.arena.set_u32(p + 4, next),
                }
                next = self.arena.u32_at(node + 4);
                if nu != 0 {
                    prev = Some(node);
                    loop {
                        let node2 = node.wrapping_add(nu.wrapping_mul(UNIT_SIZE));
                        if self.arena.u32_at(node2) != EMPTY_NODE {
                            break;
                        }
                        nu = nu.wrapping_add(self.arena.u32_at(node2 + 8));
                        self.arena.set_u32(node2 + 8, 0);
                        self.arena.set_u32(node + 8, nu);
                    }
                }
            }
        }
        match prev {
            None => head = 0,
            Some(p) => self.arena.set_u32(p + 4, 0),
        }

        // Back into the lists, cut into classes.
        let mut n = head;
        while n != 0 {
            let node = n;
            let nu = self.arena.u32_at(node + 8);
            n = self.arena.u32_at(node + 4);
            if nu == 0 {
                continue;
            }
            self.insert_cut(node, nu);
        }
    }

    /// The allocator's slow path; 0 when memory is exhausted.
    #[cold]
    fn alloc_units_rare(&mut self, indx: usize) -> u32 {
        if self.glue_count == 0 {
            self.glue_free_blocks();
            if self.free_list[indx] != 0 {
                return self.remove_node(indx);
            }
        }
        let mut i = indx;
        loop {
            i += 1;
            if i == NUM_INDEXES {
                // Last resort: take units from the top of the text area.
                let num_bytes = u2b(i2u(indx));
                self.glue_count = self.glue_count.wrapping_sub(1);
                let us = self.units_start;
                return if us.wrapping_sub(self.text) > num_bytes {
                    self.units_start = us - num_bytes;
                    self.units_start
                } else {
                    0
                };
            }
            if self.free_list[i] != 0 {
                break;
            }
        }
        let block = self.remove_node(i);
        self.split_block(block, i, indx);
        block
    }

    /// A block of class `indx`; 0 when memory is full.
    fn alloc_units(&mut self, indx: usize) -> u32 {
        if self.free_list[indx] != 0 {
            return self.remove_node(indx);
        }
        let num_bytes = u2b(i2u(indx));
        let lo = self.lo_unit;
        if self.hi_unit - lo >= num_bytes {
            self.lo_unit = lo + num_bytes;
            return lo;
        }
        self.alloc_units_rare(indx)
    }

    /// One unit for a context record; 0 when memory is full.
    fn alloc_context(&mut self) -> u32 {
        if self.hi_unit != self.lo_unit {
            self.hi_unit -= UNIT_SIZE;
            self.hi_unit
        } else if self.free_list[0] != 0 {
            self.remove_node(0)
        } else {
            self.alloc_units_rare(0)
        }
    }

    /// A block of `old_nu` units cut down to `new_nu`, moved to a free
    /// block of the smaller class when there is one.
    fn shrink_units(&mut self, old_ptr: u32, old_nu: u32, new_nu: u32) -> u32 {
        let i0 = u2i(old_nu);
        let i1 = u2i(new_nu);
        if i0 == i1 {
            return old_ptr;
        }
        if self.free_list[i1] != 0 {
            let ptr = self.remove_node(i1);
            self.copy_units(ptr, old_ptr, new_nu);
            self.insert_node(old_ptr, i0);
            return ptr;
        }
        self.split_block(old_ptr, i0, i1);
        old_ptr
    }

    fn free_units(&mut self, ptr: u32, nu: u32) {
        self.insert_node(ptr, u2i(nu));
    }

    /// Frees one unit; at the start of the units it goes back to the text.
    fn special_free_unit(&mut self, ptr: u32) {
        if ptr != self.units_start {
            self.insert_node(ptr, 0);
        } else {
            self.units_start += UNIT_SIZE;
        }
    }

    /// Gives the free blocks at the start of the units back to the text
    /// area, taking them out of the free lists.
    fn expand_text_area(&mut self) {
        let mut count = [0u32; NUM_INDEXES];
        if self.lo_unit != self.hi_unit {
            self.arena.set_u32(self.lo_unit, 0);
        }
        let mut node = self.units_start;
        while self.arena.u32_at(node) == EMPTY_NODE {
            let nu = self.arena.u32_at(node + 8);
            self.arena.set_u32(node, 0);
            if nu == 0 {
                // Not a block head (cannot happen in a sound model).
                break;
            }
            count[u2i(nu.min(128))] += 1;
            node += u2b(nu);
        }
        self.units_start = node;

        for (i, &cnt) in count.iter().enumerate() {
            let mut cnt = cnt;
            if cnt == 0 {
                continue;
            }
            self.stamps[i] = self.stamps[i].wrapping_sub(cnt);
            let mut prev: Option<u32> = None;
            let mut n = self.free_list[i];
            while n != 0 {
                let node = n;
                n = self.arena.u32_at(node + 4);
                if self.arena.u32_at(node) != 0 {
                    prev = Some(node);
                    continue;
                }
                match prev {
                    None => self.free_list[i] = n,
                    Some(p) => self.arena.set_u32(p + 4, n),
                }
                cnt -= 1;
                if cnt == 0 {
                    break;
                }
            }
        }
    }

    /// Bytes of the arena in use by records.
    fn used_memory(&self) -> u32 {
        let units = self
            .stamps
            .iter()
            .enumerate()
            .fold(0u32, |v, (i, &n)| v.wrapping_add(n.wrapping_mul(i2u(i))));
        self.size
            .wrapping_sub(self.hi_unit - self.lo_unit)
            .wrapping_sub(self.units_start.wrapping_sub(self.text))
            .wrapping_sub(u2b(units))
    }

    // ---- model (re)start and restoration ------------------------------------

    /// Back to the initial model: the order-0 context with all 256 symbols.
    #[cold]
    fn restart(&mut self) {
        self.free_list = [0; NUM_INDEXES];
        self.stamps = [0; NUM_INDEXES];
        self.text = self.align;
        self.hi_unit = self.text + self.size;
        self.units_start = self.hi_unit - self.size / 8 / UNIT_SIZE * 7 * UNIT_SIZE;
        self.lo_unit = self.units_start;
        self.glue_count = 0;

        self.order_fall = self.max_order;
        self.init_rl = -(self.max_order.min(12) as i32) - 1;
        self.run_length = self.init_rl;
        self.prev_success = 0;

        self.hi_unit -= UNIT_SIZE;
        let mc = self.hi_unit;
        let stats = self.lo_unit;
        self.lo_unit += u2b(256 / 2);
        self.min_context = mc;
        self.max_context = mc;
        self.found_state = stats;
        self.set_num_stats(mc, 255);
        self.set_flags(mc, 0);
        self.arena.set_summ_freq(mc, 256 + 1);
        self.arena.set_stats(mc, stats);
        self.arena.set_suffix(mc, 0);
        for sym in 0..256u32 {
            self.arena
                .write_state(stats + sym * 6, [sym as u8, 1, 0, 0, 0, 0]);
        }

        let mut i = 0usize;
        for (m, row) in self.bin_summ.iter_mut().enumerate() {
            while usize::from(NS2INDX[i]) == m {
                i += 1;
            }
            for (k, &esc) in INIT_BIN_ESC.iter().enumerate() {
                let val = (BIN_SCALE - u32::from(esc) / (i as u32 + 1)) as u16;
                for r in (0..64).step_by(8) {
                    row[k + r] = val;
                }
            }
        }
        let mut i = 0usize;
        for m in 0..SEE_ROWS {
            while usize::from(NS2INDX[i + 3]) == m + 3 {
                i += 1;
            }
            let summ = ((2 * i as u32 + 5) << (PERIOD_BITS - 4)) as u16;
            for see in &mut self.see[m * SEE_COLS..(m + 1) * SEE_COLS] {
                *see = See::new(summ, (PERIOD_BITS - 4) as u8, 7);
            }
        }
        self.see[DUMMY_SEE] = See::new(0, PERIOD_BITS as u8, 64);
    }

    /// Rescales a context after symbols were removed from it (`scale` 1)
    /// or only refits its vector (`scale` 0), recomputing its flags.
    fn refresh(&mut self, ctx: u32, old_nu: u32, scale: u32) {
        let mut i = self.num_stats(ctx);
        let mut s = self.shrink_units(self.arena.stats(ctx), old_nu, (i + 2) >> 1);
        self.arena.set_stats(ctx, s);
        let scale = scale | u32::from(self.arena.summ_freq(ctx) >= 1 << 15);

        let mut flags = hi_bits_prepare(self.arena.symbol(s));
        let mut freq = self.arena.freq(s);
        let mut esc_freq = self.arena.summ_freq(ctx).wrapping_sub(freq);
        freq = (freq + scale) >> scale;
        let mut sum_freq = freq;
        self.arena.set_freq(s, freq);
        while i != 0 {
            s += 6;
            let mut freq = self.arena.freq(s);
            esc_freq = esc_freq.wrapping_sub(freq);
            freq = (freq + scale) >> scale;
            sum_freq += freq;
            self.arena.set_freq(s, freq);
            flags |= hi_bits_prepare(self.arena.symbol(s));
            i -= 1;
        }
        self.arena.set_summ_freq(
            ctx,
            sum_freq.wrapping_add(esc_freq.wrapping_add(scale) >> scale),
        );
        let kept = self.flags(ctx) & (FLAG_PREV_HIGH + FLAG_RESCALED * scale);
        self.set_flags(ctx, kept + hi_bits_3(flags));
    }

    /// Turns a context whose vector holds one state into a binary context.
    fn make_binary(&mut self, ctx: u32, stats: u32) {
        let st = self.arena.read_state(stats);
        let sym = u32::from(st[0]);
        let flags = (self.flags(ctx) & FLAG_PREV_HIGH) + hi_bits_flag3(sym);
        self.set_flags(ctx, flags);
        let freq = (u32::from(st[1]) + 11) >> 3;
        self.arena.write_state(
            Arena::one_state(ctx),
            [st[0], freq as u8, st[2], st[3], st[4], st[5]],
        );
    }

    /// Cuts the context tree below `ctx` (of `order`): drops raw and null
    /// successors above order 0 and contexts left without successors, and
    /// moves state vectors near the text area up. Returns `ctx`, or 0 when
    /// it was removed.
    fn cut_off(&mut self, ctx: u32, order: u32) -> u32 {
        let ns = self.num_stats(ctx) as i32;
        if ns == 0 {
            let s = Arena::one_state(ctx);
            let mut successor = self.arena.successor(s);
            if successor >= self.units_start {
                successor = if order < self.max_order {
                    self.cut_off(successor, order + 1)
                } else {
                    0
                };
                self.arena.set_successor(s, successor);
                if successor != 0 || order <= 9 {
                    return ctx;
                }
            }
            self.special_free_unit(ctx);
            return 0;
        }

        let nu = (ns as u32 + 2) >> 1;
        let indx = u2i(nu);
        let mut stats = self.arena.stats(ctx);
        if stats.wrapping_sub(self.units_start) <= 1 << 14 && stats <= self.free_list[indx] {
            let ptr = self.remove_node(indx);
            self.arena.set_stats(ctx, ptr);
            self.copy_units(ptr, stats, nu);
            if stats != self.units_start {
                self.insert_node(stats, indx);
            } else {
                self.units_start += u2b(i2u(indx));
            }
            stats = ptr;
        }

        let mut ns = ns;
        let mut k = ns;
        while k >= 0 {
            let s = stats + 6 * k as u32;
            let successor = self.arena.successor(s);
            if successor < self.units_start {
                let s2 = stats + 6 * ns as u32;
                ns -= 1;
                if order != 0 {
                    if s != s2 {
                        let st = self.arena.read_state(s2);
                        self.arena.write_state(s, st);
                    }
                } else {
                    self.arena.swap_states(s, s2);
                    self.arena.set_successor(s2, 0);
                }
            } else {
                let v = if order < self.max_order {
                    self.cut_off(successor, order + 1)
                } else {
                    0
                };
                self.arena.set_successor(s, v);
            }
            k -= 1;
        }

        if ns != self.num_stats(ctx) as i32 && order != 0 {
            if ns < 0 {
                self.free_units(stats, nu);
                self.special_free_unit(ctx);
                return 0;
            }
            self.set_num_stats(ctx, ns as u32);
            if ns == 0 {
                self.make_binary(ctx, stats);
                self.free_units(stats, nu);
            } else {
                let scale = u32::from(self.arena.summ_freq(ctx) > 16 * ns as u32);
                self.refresh(ctx, nu, scale);
            }
        }
        ctx
    }

    /// After an allocation failed at context `ctx_error`: undoes the
    /// symbols added above it, then restarts or cuts the model off.
    #[cold]
    fn restore_model(&mut self, ctx_error: u32) {
        self.text = self.align;
        let mut c = self.max_context;
        while c != ctx_error {
            let ns = self.num_stats(c).wrapping_sub(1) & 0xFF;
            self.set_num_stats(c, ns);
            if ns == 0 {
                let s = self.arena.stats(c);
                self.make_binary(c, s);
                self.special_free_unit(s);
            } else {
                self.refresh(c, (ns + 3) >> 1, 0);
            }
            c = self.arena.suffix(c);
        }
        while c != self.min_context {
            let ns = self.num_stats(c);
            if ns == 0 {
                let s = Arena::one_state(c);
                self.arena.set_freq(s, (self.arena.freq(s) + 1) >> 1);
            } else {
                let summ = (self.arena.summ_freq(c) + 4) & 0xFFFF;
                self.arena.set_summ_freq(c, summ);
                if summ > 128 + 4 * ns {
                    self.refresh(c, (ns + 2) >> 1, 1);
                }
            }
            c = self.arena.suffix(c);
        }

        if self.restore == RestoreMethod::Restart || self.used_memory() < self.size >> 1 {
            self.restart();
        } else {
            while self.arena.suffix(self.max_context) != 0 {
                self.max_context = self.arena.suffix(self.max_context);
            }
            loop {
                self.cut_off(self.max_context, 0);
                self.expand_text_area();
                if self.used_memory() <= 3 * (self.size >> 2) {
                    break;
                }
            }
            self.glue_count = 0;
            self.order_fall = self.max_order;
        }
        self.min_context = self.max_context;
    }

    // ---- successors and the model update ----------------------------------

    /// Turns the raw successor of the found state into real contexts, from
    /// the suffixes of `c` up; `s1` is the state already found in the first
    /// suffix, if any. Returns the highest new (or found) context, 0 when
    /// memory ran out.
    fn create_successors(&mut self, skip: bool, mut s1: Option<u32>, mut c: u32) -> u32 {
        let fs = self.found_state;
        let up_branch = self.arena.successor(fs);
        let fs_symbol = self.arena.symbol(fs);
        // More room than the order needs: never a panic.
        let mut ps = [0u32; 2 * MAX_ORDER as usize + 2];
        let mut num_ps = 0;
        if !skip {
            ps[num_ps] = fs;
            num_ps += 1;
        }
        while self.arena.suffix(c) != 0 {
            c = self.arena.suffix(c);
            let s = if let Some(s) = s1.take() {
                s
            } else if self.num_stats(c) != 0 {
                let s = self.arena.find_state(self.arena.stats(c), fs_symbol);
                if self.arena.freq(s) < MAX_FREQ - 9 {
                    self.arena.set_freq(s, self.arena.freq(s) + 1);
                    self.arena.set_summ_freq(c, self.arena.summ_freq(c) + 1);
                }
                s
            } else {
                let s = Arena::one_state(c);
                let bump = u32::from(self.num_stats(self.arena.suffix(c)) == 0)
                    & u32::from(self.arena.freq(s) < 24);
                self.arena.set_freq(s, self.arena.freq(s) + bump);
                s
            };
            let successor = self.arena.successor(s);
            if successor != up_branch {
                c = successor;
                if num_ps == 0 {
                    return c;
                }
                break;
            }
            if num_ps == ps.len() {
                return 0;
            }
            ps[num_ps] = s;
            num_ps += 1;
        }
        if num_ps == 0 {
            return c;
        }

        let new_sym = self.arena.byte(up_branch);
        let up_branch = up_branch + 1;
        let flags = hi_bits_flag4(fs_symbol) + hi_bits_flag3(new_sym);
        let new_freq = if self.num_stats(c) == 0 {
            self.arena.freq(Arena::one_state(c))
        } else {
            let s = self.arena.find_state(self.arena.stats(c), new_sym);
            let cf = self.arena.freq(s).wrapping_sub(1);
            let s0 = self
                .arena
                .summ_freq(c)
                .wrapping_sub(self.num_stats(c))
                .wrapping_sub(cf);
            1u32.wrapping_add(if 2 * cf <= s0 {
                u32::from(5 * cf > s0)
            } else {
                (cf + 2 * s0).wrapping_sub(3) / s0.max(1)
            })
        };

        loop {
            let c1 = self.alloc_context();
            if c1 == 0 {
                return 0;
            }
            self.set_num_stats(c1, 0);
            self.set_flags(c1, flags);
            let st = Arena::one_state(c1);
            self.arena.set_byte(st, new_sym);
            self.arena.set_freq(st, new_freq);
            self.arena.set_successor(st, up_branch);
            self.arena.set_suffix(c1, c);
            num_ps -= 1;
            self.arena.set_successor(ps[num_ps], c1);
            c = c1;
            if num_ps == 0 {
                return c;
            }
        }
    }

    /// The found state has no successor: point it and the suffixes' states
    /// without one at the text, lowering the order, and find the context
    /// to go on in. 0 when memory ran out.
    fn reduce_order(&mut self, mut s1: Option<u32>, mut c: u32) -> u32 {
        let c1 = c;
        let up_branch = self.text;
        let fs = self.found_state;
        let fs_symbol = self.arena.symbol(fs);
        self.arena.set_successor(fs, up_branch);
        self.order_fall += 1;
        let s = loop {
            let s = if let Some(s) = s1.take() {
                c = self.arena.suffix(c);
                s
            } else {
                if self.arena.suffix(c) == 0 {
                    return c;
                }
                c = self.arena.suffix(c);
                if self.num_stats(c) != 0 {
                    let s = self.arena.find_state(self.arena.stats(c), fs_symbol);
                    if self.arena.freq(s) < MAX_FREQ - 9 {
                        self.arena.set_freq(s, self.arena.freq(s) + 2);
                        self.arena.set_summ_freq(c, self.arena.summ_freq(c) + 2);
                    }
                    s
                } else {
                    let s = Arena::one_state(c);
                    self.arena
                        .set_freq(s, self.arena.freq(s) + u32::from(self.arena.freq(s) < 32));
                    s
                }
            };
            if self.arena.successor(s) != 0 {
                break s;
            }
            self.arena.set_successor(s, up_branch);
            self.order_fall += 1;
        };

        if self.arena.successor(s) <= up_branch {
            let s2 = self.found_state;
            self.found_state = s;
            let successor = self.create_successors(false, None, c);
            self.arena.set_successor(s, successor);
            self.found_state = s2;
        }
        let successor = self.arena.successor(s);
        if self.order_fall == 1 && c1 == self.max_context {
            self.arena.set_successor(self.found_state, successor);
            self.text -= 1;
        }
        successor
    }

    /// The model update after a symbol that was not simply found at the
    /// highest order.
    fn update_model(&mut self) {
        let fs = self.found_state;
        let mut min_successor = self.arena.successor(fs);
        let fs_freq = self.arena.freq(fs);
        let fs_symbol = self.arena.symbol(fs);

        let mut s1 = None;
        if fs_freq < MAX_FREQ / 4 && self.arena.suffix(self.min_context) != 0 {
            // Count the symbol in the suffix context too.
            let c = self.arena.suffix(self.min_context);
            if self.num_stats(c) == 0 {
                let s = Arena::one_state(c);
                if self.arena.freq(s) < 32 {
                    self.arena.set_freq(s, self.arena.freq(s) + 1);
                }
                s1 = Some(s);
            } else {
                let mut s = self.arena.stats(c);
                if self.arena.symbol(s) != fs_symbol {
                    s = self.arena.find_state(s + 6, fs_symbol);
                    if self.arena.freq(s) >= self.arena.freq(s - 6) {
                        self.arena.swap_with_previous(s);
                        s -= 6;
                    }
                }
                if self.arena.freq(s) < MAX_FREQ - 9 {
                    self.arena.set_freq(s, self.arena.freq(s) + 2);
                    self.arena.set_summ_freq(c, self.arena.summ_freq(c) + 2);
                }
                s1 = Some(s);
            }
        }

        let mut c = self.max_context;
        if self.order_fall == 0 && min_successor != 0 {
            let cs = self.create_successors(true, s1, self.min_context);
            if cs == 0 {
                self.arena.set_successor(self.found_state, 0);
                self.restore_model(c);
                return;
            }
            self.arena.set_successor(self.found_state, cs);
            self.min_context = cs;
            self.max_context = cs;
            return;
        }

        self.arena
            .set_byte(self.text, self.arena.symbol(self.found_state));
        self.text += 1;
        if self.text >= self.units_start {
            self.restore_model(c);
            return;
        }
        let mut max_successor = self.text;

        if min_successor == 0 {
            let cs = self.reduce_order(s1, self.min_context);
            if cs == 0 {
                self.restore_model(c);
                return;
            }
            min_successor = cs;
        } else if min_successor < self.units_start {
            let cs = self.create_successors(false, s1, self.min_context);
            if cs == 0 {
                self.restore_model(c);
                return;
            }
            min_successor = cs;
        }

        self.order_fall = self.order_fall.wrapping_sub(1);
        if self.order_fall == 0 {
            max_successor = min_successor;
            if self.max_context != self.min_context {
                self.text -= 1;
            }
        }

        let flag = hi_bits_flag3(fs_symbol);
        let mc = self.min_context;
        let ns = self.num_stats(mc);
        let s0 = self
            .arena
            .summ_freq(mc)
            .wrapping_sub(ns)
            .wrapping_sub(fs_freq);

        while c != mc {
            let ns1 = self.num_stats(c);
            let mut sum;
            if ns1 != 0 {
                if ns1 & 1 != 0 {
                    // The vector is full: one more unit.
                    let old_nu = (ns1 + 1) >> 1;
                    let i = u2i(old_nu);
                    if i != u2i(old_nu + 1) {
                        let ptr = self.alloc_units(i + 1);
                        if ptr == 0 {
                            self.restore_model(c);
                            return;
                        }
                        let old = self.arena.stats(c);
                        self.copy_units(ptr, old, old_nu);
                        self.insert_node(old, i);
                        self.arena.set_stats(c, ptr);
                    }
                }
                sum = self.arena.summ_freq(c) + u32::from(3 * ns1 + 1 < ns);
            } else {
                // A one-symbol context becomes a two-symbol one.
                let s = self.alloc_units(0);
                if s == 0 {
                    self.restore_model(c);
                    return;
                }
                let mut st = self.arena.read_state(Arena::one_state(c));
                let mut freq = u32::from(st[1]);
                freq = if freq < MAX_FREQ / 4 - 1 {
                    freq << 1
                } else {
                    MAX_FREQ - 4
                };
                st[1] = freq as u8;
                self.arena.write_state(s, st);
                self.arena.set_stats(c, s);
                sum = freq + self.init_esc + u32::from(ns > 2);
            }

            let s = self.arena.stats(c) + (ns1 + 1) * 6;
            let mut cf = 2u32.wrapping_mul(sum + 6).wrapping_mul(fs_freq);
            let sf = s0.wrapping_add(sum);
            self.arena.set_byte(s, fs_symbol);
            self.set_num_stats(c, ns1 + 1);
            self.arena.set_successor(s, max_successor);
            self.set_flags(c, self.flags(c) | flag);
            if cf < sf.wrapping_mul(6) {
                cf = 1 + u32::from(cf > sf) + u32::from(cf >= sf.wrapping_mul(4));
                sum += 4;
            } else {
                cf = 4
                    + u32::from(cf > sf.wrapping_mul(9))
                    + u32::from(cf > sf.wrapping_mul(12))
                    + u32::from(cf > sf.wrapping_mul(15));
                sum += cf;
            }
            self.arena.set_summ_freq(c, sum);
            self.arena.set_freq(s, cf);
            c = self.arena.suffix(c);
        }
        self.min_context = min_successor;
        self.max_context = min_successor;
    }

    /// Halves the frequencies of the current context (keeping it sorted),
    /// dropping symbols that reach 0 where that is allowed.
    #[cold]
    fn rescale(&mut self) {
        let mc = self.min_context;
        let stats = self.arena.stats(mc);
        let fs = self.found_state;

        // The found state to the front.
        if fs != stats {
            let tmp = self.arena.read_state(fs);
            self.arena.copy(stats + 6, stats, fs - stats);
            self.arena.write_state(stats, tmp);
        }

        let mut sum_freq = self.arena.freq(stats);
        let mut esc_freq = self.arena.summ_freq(mc).wrapping_sub(sum_freq);
        let adder = u32::from(self.order_fall != 0);
        sum_freq = (sum_freq + 4 + adder) >> 1;
        self.arena.set_freq(stats, sum_freq);

        let num_stats = self.num_stats(mc);
        let mut s = stats;
        for _ in 0..num_stats {
            s += 6;
            let mut freq = self.arena.freq(s);
            esc_freq = esc_freq.wrapping_sub(freq);
            freq = (freq + adder) >> 1;
            sum_freq += freq;
            self.arena.set_freq(s, freq);
            if freq > self.arena.freq(s - 6) {
                let tmp = self.arena.read_state(s);
                let mut s1 = s;
                loop {
                    let prev = self.arena.read_state(s1 - 6);
                    self.arena.write_state(s1, prev);
                    s1 -= 6;
                    if s1 == stats || freq <= self.arena.freq(s1 - 6) {
                        break;
                    }
                }
                self.arena.write_state(s1, tmp);
            }
        }

        if self.arena.freq(s) == 0 {
            let mut removed = 0;
            loop {
                removed += 1;
                s -= 6;
                if self.arena.freq(s) != 0 {
                    break;
                }
            }
            esc_freq = esc_freq.wrapping_add(removed);
            let ns_new = num_stats - removed;
            self.set_num_stats(mc, ns_new);
            let n0 = (num_stats + 2) >> 1;
            if ns_new == 0 {
                // Down to one symbol: it moves inline into the context.
                let freq =
                    ((2 * self.arena.freq(stats)).wrapping_add(esc_freq) - 1) / esc_freq.max(1);
                let freq = freq.min(MAX_FREQ / 3);
                let mut st = self.arena.read_state(stats);
                let flags = (self.flags(mc) & FLAG_PREV_HIGH) + hi_bits_flag3(u32::from(st[0]));
                self.set_flags(mc, flags);
                st[1] = freq as u8;
                let one = Arena::one_state(mc);
                self.arena.write_state(one, st);
                self.found_state = one;
                self.insert_node(stats, u2i(n0));
                return;
            }
            let n1 = (ns_new + 2) >> 1;
            if n0 != n1 {
                let ptr = self.shrink_units(stats, n0, n1);
                self.arena.set_stats(mc, ptr);
            }
        }
        self.arena
            .set_summ_freq(mc, sum_freq.wrapping_add(esc_freq - (esc_freq >> 1)));
        self.set_flags(mc, self.flags(mc) | FLAG_RESCALED);
        self.found_state = self.arena.stats(mc);
    }

    /// The SEE context and escape frequency for a context entered after an
    /// escape from one with `num_masked + 1` symbols.
    #[inline]
    pub(crate) fn make_esc_freq(&mut self, num_masked: u32) -> (usize, u32) {
        let mc = self.min_context;
        let ns = self.num_stats(mc);
        if ns == 255 {
            return (DUMMY_SEE, 1);
        }
        let idx = usize::from(NS2INDX[ns as usize + 2]).saturating_sub(3) * SEE_COLS
            + usize::from(self.arena.summ_freq(mc) > 11 * (ns + 1))
            + 2 * usize::from(2 * ns < self.num_stats(self.arena.suffix(mc)) + num_masked)
            + self.flags(mc) as usize;
        (idx, self.see[idx].take_mean())
    }

    #[inline]
    pub(crate) fn see_mut(&mut self, idx: usize) -> &mut See {
        &mut self.see[idx]
    }

    /// The probability cell of the current binary context.
    #[inline(always)]
    pub(crate) fn bin_summ_cell(&self) -> (usize, usize) {
        let mc = self.min_context;
        let freq = self.arena.freq(Arena::one_state(mc)) as usize;
        let suffix_ns = self.num_stats(self.arena.suffix(mc)) as usize;
        let col = self.prev_success
            + ((self.run_length >> 26) & 0x20) as u32
            + u32::from(NS2BSINDX[suffix_ns & 0xFF])
            + self.flags(mc);
        // In range by construction (freq <= 196, col <= 63); the masks only
        // spare a panic on a broken model.
        (
            usize::from(NS2INDX[freq.wrapping_sub(1) & 0xFF]).min(24),
            col as usize & 63,
        )
    }

    #[inline]
    pub(crate) fn bin_prob(&self, cell: (usize, usize)) -> u32 {
        u32::from(self.bin_summ[cell.0][cell.1])
    }

    /// Stores the binary cell's new probability after the symbol was hit.
    #[inline]
    pub(crate) fn bin_hit(&mut self, cell: (usize, usize), pr: u32) {
        self.bin_summ[cell.0][cell.1] = (pr + (1 << INT_BITS)) as u16;
    }

    /// Stores the binary cell's new probability after an escape.
    #[inline]
    pub(crate) fn bin_miss(&mut self, cell: (usize, usize), pr: u32) {
        self.bin_summ[cell.0][cell.1] = pr as u16;
        self.init_esc = u32::from(EXP_ESCAPE[(pr >> 10) as usize]);
        self.prev_success = 0;
    }

    /// Masks every symbol of a context with `num_stats + 1` states.
    #[inline]
    pub(crate) fn mask_context(&mut self, ctx: u32) {
        let stats = self.arena.stats(ctx);
        let n = self.num_stats(ctx) + 1;
        self.arena.mask_states(stats, n, &mut self.mask);
    }

    /// The rest of the model's move to the next context.
    #[inline]
    fn next_context(&mut self) {
        let c = self.arena.successor(self.found_state);
        if self.order_fall == 0 && c >= self.units_start {
            self.min_context = c;
            self.max_context = c;
        } else {
            self.update_model();
        }
    }

    /// After the symbol at the top of a multi-symbol context was coded.
    pub(crate) fn update1_0(&mut self) {
        let s = self.found_state;
        let mc = self.min_context;
        let freq = self.arena.freq(s);
        let summ = self.arena.summ_freq(mc);
        self.prev_success = u32::from(2 * freq >= summ);
        self.run_length += self.prev_success as i32;
        self.arena.set_summ_freq(mc, summ + 4);
        let freq = freq + 4;
        self.arena.set_freq(s, freq);
        if freq > MAX_FREQ {
            self.rescale();
        }
        self.next_context();
    }

    /// After another symbol of a multi-symbol context was coded.
    pub(crate) fn update1(&mut self) {
        let s = self.found_state;
        let mc = self.min_context;
        let freq = self.arena.freq(s) + 4;
        self.arena.set_summ_freq(mc, self.arena.summ_freq(mc) + 4);
        self.arena.set_freq(s, freq);
        if freq > self.arena.freq(s - 6) {
            self.arena.swap_with_previous(s);
            self.found_state = s - 6;
            if freq > MAX_FREQ {
                self.rescale();
            }
        }
        self.next_context();
    }

    /// After a symbol was coded in a context entered by escaping.
    pub(crate) fn update2(&mut self) {
        let s = self.found_state;
        let mc = self.min_context;
        let freq = self.arena.freq(s) + 4;
        self.run_length = self.init_rl;
        self.arena.set_summ_freq(mc, self.arena.summ_freq(mc) + 4);
        self.arena.set_freq(s, freq);
        if freq > MAX_FREQ {
            self.rescale();
        }
        self.update_model();
    }

    /// After the symbol of a binary context was coded.
    pub(crate) fn update_bin(&mut self) {
        let s = Arena::one_state(self.min_context);
        let freq = self.arena.freq(s);
        self.found_state = s;
        self.prev_success = 1;
        self.run_length += 1;
        self.arena.set_freq(s, freq + u32::from(freq < 196));
        self.next_context();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tables_match_the_format() {
        assert_eq!(NS2INDX[..12], [0, 1, 2, 3, 4, 5, 6, 6, 7, 7, 7, 8]);
        assert!(NS2INDX[195] <= 24);
        assert_eq!(usize::from(NS2INDX[257]) - 3, SEE_ROWS - 1);
    }
}
