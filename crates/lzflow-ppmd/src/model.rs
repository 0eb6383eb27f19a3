//! The PPMd var. H context model: the unit allocator, and the updates
//! after each symbol (shared by the decoder and the encoder).
//!
//! The model lives in one byte arena (`crate::arena`) of exactly the stream's memory size,
//! addressed by `u32` offsets, with the records laid out byte for byte as
//! 7-Zip lays them out (little-endian). That is not only about the size
//! semantics: the allocator's defragmentation ("glue") reads the first two
//! bytes of whatever record follows a free block to tell free from used,
//! and when memory runs out the model restarts. Both decide the coded
//! bytes, so the layout must match for the output to match.
//!
//! Records (offsets in bytes):
//! * context, one 12-byte unit: `num_stats: u16 @0`, `summ_freq: u16 @2`,
//!   `stats: u32 @4`, `suffix: u32 @8`. A context with one symbol keeps
//!   that symbol's state inline at @2 (symbol @2, freq @3, successor @4).
//! * state, 6 bytes (two per unit): `symbol @0`, `freq @1`,
//!   `successor: u32 @2`.
//! * free-list link: the next free block's offset, `u32 @0`; while gluing,
//!   a free block is `stamp: u16 @0` (0), `units: u16 @2`, `next: u32 @4`.
//!
//! Memory map: `[0, text)` holds raw text (the symbols seen, which
//! "raw successors" point into), `[units_start, lo_unit)` state vectors
//! and contexts, `[lo_unit, hi_unit)` is free, `[hi_unit, size)` contexts;
//! the last unit is the order-0 context. Offset 0 is never a record, so it
//! serves as null.

use crate::arena::Arena;

/// Largest frequency a state keeps before its context is rescaled.
const MAX_FREQ: u32 = 124;
/// Bytes of one allocation unit.
pub(crate) const UNIT_SIZE: u32 = 12;
/// Number of block-size classes of the allocator.
pub(crate) const NUM_INDEXES: usize = 38;
/// Fixed-point scale of the binary contexts' probabilities.
pub(crate) const INT_BITS: u32 = 7;
pub(crate) const PERIOD_BITS: u32 = 7;
pub(crate) const BIN_SCALE: u32 = 1 << (INT_BITS + PERIOD_BITS);
/// Index of the dummy SEE context (used in contexts with all 256 symbols).
pub(crate) const DUMMY_SEE: usize = 25 * 16;

/// Escape estimate for a new symbol in a binary context, by probability.
pub(crate) const EXP_ESCAPE: [u8; 16] = [25, 14, 9, 7, 5, 5, 4, 4, 4, 3, 3, 3, 2, 2, 2, 2];
/// Initial escape probabilities of binary contexts.
pub(crate) const INIT_BIN_ESC: [u16; 8] = [
    0x3CDD, 0x1F3F, 0x59BF, 0x48F3, 0x64A1, 0x5ABC, 0x6632, 0x6051,
];

/// Units of each size class: 1..4 by 1, then by 2, 3 and 4 up to 128.
const INDX2UNITS: [u8; NUM_INDEXES] = {
    let mut t = [0u8; NUM_INDEXES];
    let mut i = 0;
    let mut k = 0;
    while i < NUM_INDEXES {
        k += if i >= 12 { 4 } else { (i >> 2) + 1 };
        t[i] = k as u8;
        i += 1;
    }
    t
};

/// The smallest size class holding `n + 1` units.
const UNITS2INDX: [u8; 128] = {
    let mut t = [0u8; 128];
    let mut i = 0;
    let mut n = 0;
    while n < 128 {
        if INDX2UNITS[i] as usize <= n {
            i += 1;
        }
        t[n] = i as u8;
        n += 1;
    }
    t
};

/// Binary-context column offset by the suffix's symbol count.
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

/// SEE row by the number of symbols left after masking.
const NS2INDX: [u8; 256] = {
    let mut t = [0u8; 256];
    t[1] = 1;
    t[2] = 2;
    let mut i = 3;
    let mut m = 3;
    let mut k = 1;
    while i < 256 {
        t[i] = m;
        k -= 1;
        if k == 0 {
            m += 1;
            k = m - 2;
        }
        i += 1;
    }
    t
};

/// Bytes of `nu` units.
#[inline]
pub(crate) fn u2b(nu: u32) -> u32 {
    nu * UNIT_SIZE
}

/// Size class of a block of `nu` (1..=128) units.
#[inline]
pub(crate) fn u2i(nu: u32) -> usize {
    UNITS2INDX[nu as usize - 1] as usize
}

/// Units of size class `indx`.
#[inline]
pub(crate) fn i2u(indx: usize) -> u32 {
    u32::from(INDX2UNITS[indx])
}

#[inline]
fn hi_bits_flag3(sym: u32) -> u32 {
    ((sym + 0xC0) >> (8 - 3)) & (1 << 3)
}

#[inline]
fn hi_bits_flag4(sym: u32) -> u32 {
    ((sym + 0xC0) >> (8 - 4)) & (1 << 4)
}

/// A secondary escape estimation (SEE) context.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct See {
    summ: u16,
    shift: u8,
    count: u8,
}

impl See {
    /// A SEE context with the given starting state.
    pub(crate) const fn new(summ: u16, shift: u8, count: u8) -> Self {
        See { summ, shift, count }
    }

    /// The escape frequency it estimates, adapting towards it (never 0).
    #[inline]
    pub(crate) fn take_mean(&mut self) -> u32 {
        let summ = u32::from(self.summ);
        let r = summ >> self.shift;
        self.summ = (summ - r) as u16;
        r + u32::from(r == 0)
    }

    /// After a symbol was found in a masked context: adapt more slowly.
    #[inline]
    pub(crate) fn update(&mut self) {
        if u32::from(self.shift) < PERIOD_BITS {
            self.count = self.count.wrapping_sub(1);
            if self.count == 0 {
                self.summ = self.summ.wrapping_shl(1);
                self.count = (3u32 << self.shift) as u8;
                self.shift += 1;
            }
        }
    }

    /// After an escape: count the symbols' total towards the estimate.
    #[inline]
    pub(crate) fn add(&mut self, total: u32) {
        self.summ = self.summ.wrapping_add(total as u16);
    }
}

/// One PPMd var. H model.
pub(crate) struct Model {
    pub(crate) arena: Arena,
    size: u32,
    pub(crate) min_context: u32,
    max_context: u32,
    pub(crate) found_state: u32,
    pub(crate) order_fall: u32,
    init_esc: u32,
    pub(crate) prev_success: u32,
    max_order: u32,
    pub(crate) hi_bits_flag: u32,
    run_length: i32,
    init_rl: i32,
    glue_count: u32,
    text: u32,
    units_start: u32,
    lo_unit: u32,
    hi_unit: u32,
    free_list: [u32; NUM_INDEXES],
    see: [See; DUMMY_SEE + 1],
    bin_summ: [[u16; 64]; 128],
    /// Per symbol: 0xFF while it may still be coded, 0 once an escape
    /// excluded it (valid only within one symbol, after the first escape).
    pub(crate) mask: [u8; 256],
}

impl Model {
    /// A model of `mem_size` bytes (2048 or more) and order 2..=64, started.
    pub(crate) fn new(max_order: u32, mem_size: u32) -> Box<Model> {
        let mut m = Box::new(Model {
            // Zeroed: the allocator takes it lazily from the OS.
            arena: Arena::new(mem_size as usize),
            size: mem_size,
            min_context: 0,
            max_context: 0,
            found_state: 0,
            order_fall: 0,
            init_esc: 0,
            prev_success: 0,
            max_order,
            hi_bits_flag: 0,
            run_length: 0,
            init_rl: 0,
            glue_count: 0,
            text: 0,
            units_start: 0,
            lo_unit: 0,
            hi_unit: 0,
            free_list: [0; NUM_INDEXES],
            see: [See::default(); DUMMY_SEE + 1],
            bin_summ: [[0; 64]; 128],
            mask: [0xFF; 256],
        });
        m.restart();
        m
    }

    // ---- records (the rest are the arena's) ---------------------------------

    /// Symbols of a context (1: a binary context).
    #[inline(always)]
    pub(crate) fn num_stats(&self, ctx: u32) -> u32 {
        self.arena.u16_at(ctx)
    }

    // ---- the allocator ----------------------------------------------------

    fn insert_node(&mut self, node: u32, indx: usize) {
        self.arena.set_u32(node, self.free_list[indx]);
        self.free_list[indx] = node;
    }

    fn remove_node(&mut self, indx: usize) -> u32 {
        let node = self.free_list[indx];
        self.free_list[indx] = self.arena.u32_at(node);
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
            // The rest is at most 3 units: its class is its count - 1.
            self.insert_node(ptr + u2b(k), (nu - k - 1) as usize);
        }
        self.insert_node(ptr, i);
    }

    /// Merges adjacent free blocks and re-sorts them into the free lists.
    fn glue_free_blocks(&mut self) {
        self.glue_count = 255;
        // A guard: the free gap after the used units is no free block.
        if self.lo_unit != self.hi_unit {
            self.arena.set_u16(self.lo_unit, 1);
        }

        // One list of all free blocks, each stamped free with its size.
        let mut n = 0u32;
        for i in 0..NUM_INDEXES {
            let nu = i2u(i);
            let mut next = self.free_list[i];
            self.free_list[i] = 0;
            while next != 0 {
                let node = next;
                next = self.arena.u32_at(node);
                self.arena.set_u16(node, 0);
                self.arena.set_u16(node + 2, nu);
                self.arena.set_u32(node + 4, n);
                n = node;
            }
        }

        // Absorb each block's free right neighbours; blocks absorbed get
        // size 0 and drop out of the list when the walk reaches them.
        let mut head = n;
        let mut prev: Option<u32> = None;
        while n != 0 {
            let node = n;
            let mut nu = self.arena.u16_at(node + 2);
            n = self.arena.u32_at(node + 4);
            if nu == 0 {
                match prev {
                    None => head = n,
                    Some(p) => self.arena.set_u32(p + 4, n),
                }
                continue;
            }
            prev = Some(node);
            loop {
                let node2 = node + nu * UNIT_SIZE;
                nu += self.arena.u16_at(node2 + 2);
                if self.arena.u16_at(node2) != 0 || nu >= 0x10000 {
                    break;
                }
                self.arena.set_u16(node + 2, nu);
                self.arena.set_u16(node2 + 2, 0);
            }
        }

        // Back into the lists, cut into classes (the same walk order).
        n = head;
        while n != 0 {
            let mut node = n;
            let mut nu = self.arena.u16_at(node + 2);
            n = self.arena.u32_at(node + 4);
            if nu == 0 {
                continue;
            }
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

    /// A block of class `indx` for a state vector; 0 when memory is full.
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

    // ---- model (re)start --------------------------------------------------

    /// Back to the initial model: the order-0 context with all 256 symbols.
    /// Also what happens whenever memory runs out.
    #[cold]
    fn restart(&mut self) {
        self.free_list = [0; NUM_INDEXES];
        self.text = 0;
        self.hi_unit = self.size;
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
        self.arena.set_u16(mc, 256);
        self.arena.set_summ_freq(mc, 256 + 1);
        self.arena.set_stats(mc, stats);
        self.arena.set_suffix(mc, 0);
        for sym in 0..256u32 {
            self.arena
                .write_state(stats + sym * 6, [sym as u8, 1, 0, 0, 0, 0]);
        }

        for (i, row) in self.bin_summ.iter_mut().enumerate() {
            for (k, &esc) in INIT_BIN_ESC.iter().enumerate() {
                let val = (BIN_SCALE - u32::from(esc) / (i as u32 + 2)) as u16;
                for m in (0..64).step_by(8) {
                    row[k + m] = val;
                }
            }
        }
        for i in 0..25 {
            let summ = ((5 * i as u32 + 10) << (PERIOD_BITS - 4)) as u16;
            for see in &mut self.see[i * 16..i * 16 + 16] {
                *see = See {
                    summ,
                    shift: (PERIOD_BITS - 4) as u8,
                    count: 4,
                };
            }
        }
        self.see[DUMMY_SEE] = See {
            summ: 0,
            shift: PERIOD_BITS as u8,
            count: 64,
        };
    }

    // ---- successors and the model update ----------------------------------

    /// Turns the raw successor of the found state (a position in the text)
    /// into real contexts: one new one-symbol context per order from the
    /// first suffix that already has a real successor up to the current
    /// order. Returns the highest new (or found) context, 0 when memory
    /// ran out.
    fn create_successors(&mut self) -> u32 {
        let mut c = self.min_context;
        let up_branch = self.arena.successor(self.found_state);
        let fs_symbol = self.arena.symbol(self.found_state);
        let mut ps = [0u32; 64];
        let mut num_ps = 0;
        if self.order_fall != 0 {
            ps[num_ps] = self.found_state;
            num_ps += 1;
        }
        while self.arena.suffix(c) != 0 {
            c = self.arena.suffix(c);
            let s = if self.num_stats(c) != 1 {
                self.arena.find_state(self.arena.stats(c), fs_symbol)
            } else {
                Arena::one_state(c)
            };
            let successor = self.arena.successor(s);
            if successor != up_branch {
                c = successor;
                if num_ps == 0 {
                    return c;
                }
                break;
            }
            ps[num_ps] = s;
            num_ps += 1;
        }

        let new_sym = self.arena.byte(up_branch);
        let up_branch = up_branch + 1;
        let new_freq = if self.num_stats(c) == 1 {
            self.arena.freq(Arena::one_state(c))
        } else {
            let s = self.arena.find_state(self.arena.stats(c), new_sym);
            let cf = self.arena.freq(s) - 1;
            let s0 = self
                .arena
                .summ_freq(c)
                .wrapping_sub(self.num_stats(c))
                .wrapping_sub(cf);
            1 + if 2 * cf <= s0 {
                u32::from(5 * cf > s0)
            } else {
                // s0 > 0 here: every other symbol and the escape count.
                (2 * cf + s0 - 1) / (2 * s0).max(1) + 1
            }
        };

        loop {
            let c1 = self.alloc_context();
            if c1 == 0 {
                return 0;
            }
            self.arena.set_u16(c1, 1);
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

    /// The model update after a symbol that was not simply found at the
    /// highest order: add the symbol to every context escaped from, and
    /// move on to the next context.
    fn update_model(&mut self) {
        let fs = self.found_state;
        let fs_symbol = self.arena.symbol(fs);
        let fs_freq = self.arena.freq(fs);

        if fs_freq < MAX_FREQ / 4 && self.arena.suffix(self.min_context) != 0 {
            // Count the symbol in the suffix context too.
            let c = self.arena.suffix(self.min_context);
            if self.num_stats(c) == 1 {
                let s = Arena::one_state(c);
                if self.arena.freq(s) < 32 {
                    self.arena.set_freq(s, self.arena.freq(s) + 1);
                }
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
            }
        }

        if self.order_fall == 0 {
            // At the highest order: the successor is raw, make it real.
            let c = self.create_successors();
            self.min_context = c;
            self.max_context = c;
            if c == 0 {
                self.restart();
                return;
            }
            self.arena.set_successor(self.found_state, c);
            return;
        }

        // Record the symbol in the text; its position is the raw
        // successor of the contexts that get the symbol now.
        self.arena.set_byte(self.text, fs_symbol);
        self.text += 1;
        let mut max_successor = self.text;
        if self.text >= self.units_start {
            self.restart();
            return;
        }

        let mut min_successor = self.arena.successor(self.found_state);
        if min_successor != 0 {
            if min_successor <= max_successor {
                // Raw: make the contexts real.
                let cs = self.create_successors();
                if cs == 0 {
                    self.restart();
                    return;
                }
                min_successor = cs;
            }
            self.order_fall -= 1;
            if self.order_fall == 0 {
                // The next context is of the highest order: it is the
                // successor of both, and this text byte is not needed.
                max_successor = min_successor;
                if self.max_context != self.min_context {
                    self.text -= 1;
                }
            }
        } else {
            // Only the order-0 context has null successors.
            self.arena.set_successor(self.found_state, max_successor);
            min_successor = self.min_context;
        }

        let mc = self.min_context;
        let mut c = self.max_context;
        self.min_context = min_successor;
        self.max_context = min_successor;
        if c == mc {
            return;
        }

        let fs_freq = self.arena.freq(self.found_state);
        let ns = self.num_stats(mc);
        // The escape count of the context the symbol was found in.
        let s0 = self
            .arena
            .summ_freq(mc)
            .wrapping_sub(ns)
            .wrapping_sub(fs_freq - 1);

        loop {
            let ns1 = self.num_stats(c);
            let mut sum;
            if ns1 != 1 {
                if ns1 & 1 == 0 {
                    // The vector is full: one more unit.
                    let old_nu = ns1 >> 1;
                    let i = u2i(old_nu);
                    if i != u2i(old_nu + 1) {
                        let ptr = self.alloc_units(i + 1);
                        if ptr == 0 {
                            self.restart();
                            return;
                        }
                        let old = self.arena.stats(c);
                        self.arena.copy(ptr, old, u2b(old_nu));
                        self.insert_node(old, i);
                        self.arena.set_stats(c, ptr);
                    }
                }
                sum = self.arena.summ_freq(c);
                sum += u32::from(2 * ns1 < ns)
                    + 2 * (u32::from(4 * ns1 <= ns) & u32::from(sum <= 8 * ns1));
            } else {
                // A one-symbol context becomes a two-symbol one.
                let s = self.alloc_units(0);
                if s == 0 {
                    self.restart();
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
                sum = freq + self.init_esc + u32::from(ns > 3);
            }

            let s = self.arena.stats(c) + ns1 * 6;
            let mut cf = 2 * (sum + 6) * fs_freq;
            let sf = s0.wrapping_add(sum);
            self.arena.set_byte(s, fs_symbol);
            self.arena.set_u16(c, ns1 + 1);
            self.arena.set_successor(s, max_successor);
            if cf < 6 * sf {
                cf = 1 + u32::from(cf > sf) + u32::from(cf >= 4 * sf);
                sum += 3;
            } else {
                cf = 4
                    + u32::from(cf >= 9 * sf)
                    + u32::from(cf >= 12 * sf)
                    + u32::from(cf >= 15 * sf);
                sum += cf;
            }
            self.arena.set_summ_freq(c, sum);
            self.arena.set_freq(s, cf);

            c = self.arena.suffix(c);
            if c == mc {
                break;
            }
        }
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
        // Symbols may only disappear from contexts of the highest order.
        let adder = u32::from(self.order_fall != 0);
        sum_freq = (sum_freq + 4 + adder) >> 1;
        self.arena.set_freq(stats, sum_freq);

        let num_stats = self.num_stats(mc);
        let mut s = stats;
        for _ in 1..num_stats {
            s += 6;
            let mut freq = self.arena.freq(s);
            esc_freq = esc_freq.wrapping_sub(freq);
            freq = (freq + adder) >> 1;
            sum_freq += freq;
            self.arena.set_freq(s, freq);
            if freq > self.arena.freq(s - 6) {
                // Insertion: keep the vector sorted by frequency.
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
            self.arena.set_u16(mc, ns_new);
            let n0 = (num_stats + 1) >> 1;
            if ns_new == 1 {
                // Down to one symbol: it moves inline into the context.
                let mut freq = self.arena.freq(stats);
                loop {
                    esc_freq >>= 1;
                    freq = (freq + 1) >> 1;
                    if esc_freq <= 1 {
                        break;
                    }
                }
                let mut st = self.arena.read_state(stats);
                st[1] = freq as u8;
                let one = Arena::one_state(mc);
                self.arena.write_state(one, st);
                self.found_state = one;
                self.insert_node(stats, u2i(n0));
                return;
            }
            let n1 = (ns_new + 1) >> 1;
            if n0 != n1 {
                let (i0, i1) = (u2i(n0), u2i(n1));
                if i0 != i1 {
                    if self.free_list[i1] != 0 {
                        let ptr = self.remove_node(i1);
                        self.arena.set_stats(mc, ptr);
                        self.arena.copy(ptr, stats, u2b(n1));
                        self.insert_node(stats, i0);
                    } else {
                        self.split_block(stats, i0, i1);
                    }
                }
            }
        }
        self.arena
            .set_summ_freq(mc, sum_freq + esc_freq - (esc_freq >> 1));
        self.found_state = self.arena.stats(mc);
    }

    /// The SEE context and escape frequency for a context entered after an
    /// escape from one with `num_masked` symbols.
    #[inline]
    pub(crate) fn make_esc_freq(&mut self, num_masked: u32) -> (usize, u32) {
        let mc = self.min_context;
        let ns = self.num_stats(mc);
        if ns == 256 {
            return (DUMMY_SEE, 1);
        }
        let non_masked = ns - num_masked;
        let suffix_ns = self.num_stats(self.arena.suffix(mc));
        let idx = usize::from(NS2INDX[non_masked as usize - 1]) * 16
            + usize::from(non_masked < suffix_ns.wrapping_sub(ns))
            + 2 * usize::from(self.arena.summ_freq(mc) < 11 * ns)
            + 4 * usize::from(num_masked > non_masked)
            + self.hi_bits_flag as usize;
        (idx, self.see[idx].take_mean())
    }

    #[inline]
    pub(crate) fn see_mut(&mut self, idx: usize) -> &mut See {
        &mut self.see[idx]
    }

    /// The probability cell of the current binary context (and sets the
    /// high-bits flag of the previous symbol, as the cell index uses it).
    #[inline(always)]
    pub(crate) fn bin_summ_cell(&mut self) -> (usize, usize) {
        let c = self.arena.context(self.min_context);
        let (sym, freq) = (u32::from(c[2]), usize::from(c[3]));
        let suffix = u32::from_le_bytes([c[8], c[9], c[10], c[11]]);
        let suffix_ns = self.num_stats(suffix) as usize;
        self.hi_bits_flag = hi_bits_flag3(self.arena.symbol(self.found_state));
        let col = self.prev_success
            + ((self.run_length >> 26) & 0x20) as u32
            + u32::from(NS2BSINDX[(suffix_ns - 1) & 0xFF])
            + hi_bits_flag4(sym)
            + self.hi_bits_flag;
        // Both in range by construction (freq <= 128, col <= 63); the masks
        // only spare the bounds checks.
        ((freq - 1) & 127, col as usize & 63)
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

    /// The high-bits flag of the previous symbol, before the masked contexts.
    #[inline]
    pub(crate) fn set_hi_bits_from_found(&mut self) {
        self.hi_bits_flag = hi_bits_flag3(self.arena.symbol(self.found_state));
    }

    /// Masks every symbol of the current context.
    #[inline]
    pub(crate) fn mask_context(&mut self, ctx: u32) {
        let stats = self.arena.stats(ctx);
        let n = self.num_stats(ctx);
        self.arena.mask_states(stats, n, &mut self.mask);
    }

    /// The rest of the model's move to the next context.
    #[inline]
    fn next_context(&mut self) {
        let c = self.arena.successor(self.found_state);
        if self.order_fall == 0 && c > self.text {
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
        self.prev_success = u32::from(2 * freq > summ);
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
        self.arena.set_freq(s, freq + u32::from(freq < 128));
        self.next_context();
    }
}

/// The binary contexts' probability update on a hit, before the increment.
#[inline]
pub(crate) fn prob_after(pr: u32) -> u32 {
    pr - ((pr + (1 << (PERIOD_BITS - 2))) >> PERIOD_BITS)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tables_match_the_format() {
        assert_eq!(INDX2UNITS[..12], [1, 2, 3, 4, 6, 8, 10, 12, 15, 18, 21, 24]);
        assert_eq!(INDX2UNITS[NUM_INDEXES - 1], 128);
        for n in 1..=128u32 {
            let i = u2i(n);
            assert!(i2u(i) >= n && (i == 0 || i2u(i - 1) < n));
        }
        assert_eq!(NS2INDX[..6], [0, 1, 2, 3, 4, 4]);
        assert_eq!(NS2INDX[255], 24);
    }
}
