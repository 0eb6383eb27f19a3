//! The range decoder's adaptive bit trees in x86-64 assembly.
//!
//! Why: in Rust, LLVM decodes a branch-free bit in about 26 instructions,
//! because the instructions between the compare and the moves that use its
//! flags clobber them, so the compare is repeated (up to four times a bit).
//! Here one `sub` yields both the decremented code and, in the carry flag,
//! the inverted bit; the range and the next probability are `cmov`s on that
//! flag, and one `sbb` turns it into a mask from which plain ALU
//! instructions form the code fix-up, the next node and the adapted
//! probability: 21 instructions a bit and the normalization check. The loop
//! is bound by the ports that take shifts, `cmov` and `sbb` (ports 0 and 6
//! on recent Intel cores: two extra rotates a bit cost 5% time), so one
//! mask `sbb` replaces three of them (8 to 6 a bit: 2 to 8% less time on
//! binary data, neutral on text). With all of this module, decoding takes
//! 8% less time on text, 10% less on mixed binary data and 11% less on data
//! of small independent chunks than with the Rust alone (each measured
//! against the other in one process). A literal after a match also loads
//! the next bit's two candidate probabilities ahead, which Rust's register
//! allocation could not keep: 5% less time again on data of small
//! independent chunks. That literal is bound by instruction throughput
//! rather than latency (six extra ALU instructions a bit cost 3% on such
//! data), so its bit is kept to 37 instructions, using all 13 free
//! registers: the code fix-up of a 0 bit adds back the bound instead of
//! keeping the old code in a register, and the match byte has its own
//! register instead of sharing the symbol's (43 instructions before, 4%
//! more time). The Rust in `range_decoder.rs` is the safe twin: the `safe`
//! feature, Miri and other targets use it, and so does the dry run (no
//! adaptation).
//!
//! # Invariants every block relies on
//! 1. **Input.** Each bit shifts in at most one byte, so a call that
//!    decodes `n` bits reads only from `buf[pos..pos + n]`. Each function
//!    checks that those bytes exist before its block runs, and returns
//!    `None` otherwise (the Rust then decodes, with its zero-past-the-end
//!    reads).
//! 2. **Probabilities.** A tree of `bits` bits over `probs: &mut [u16; N]`
//!    with `1 << bits <= N` (checked) reads and writes node `m` for
//!    `1 <= m < 1 << bits`, and preloads the children `2m` and `2m + 1`
//!    only while `m < 1 << (bits - 1)`: every access lies inside `probs`.
//!    A matched literal reads and writes `off + m + sym`, where `off` and
//!    `m` are 0 or 0x100 and `sym < 0x100`, and preloads the two candidates
//!    of the next bit, of the same form with `sym < 0x100` as long as a
//!    next bit exists: all below 0x300, the length of its array.
//! 3. **Registers.** Every register a block writes is an output operand,
//!    the flags are clobbered (the default), memory is read and written
//!    only through the two pointers above (no `nomem`), and no block
//!    touches the stack (`nostack`).

use core::arch::asm;

use super::RangeDecoder;

/// Added to a probability before the shift of its update after a 0 bit.
/// `(p + 2^21 - 2017) >> 5` is `2^16 - ceil((2017 - p) / 32)`, which equals
/// `2^16 - ((2048 - p) >> 5)`, so `p` minus it is `p + ((2048 - p) >> 5)`
/// in the low 16 bits that are stored. After a 1 bit the `cmov` picks `p`
/// itself: `p - (p >> 5)`. One `lea` (no flags) forms it.
const OFFSET_0: u32 = (1 << 21) - 2017;

/// The pointer to the next input byte, if `bits` bytes follow it.
#[inline(always)]
fn input(rc: &RangeDecoder<'_>, bits: u32) -> Option<*const u8> {
    let rest = rc.buf.get(rc.pos..)?;
    (rest.len() >= bits as usize).then_some(rest.as_ptr())
}

/// The register operand named `$p` (`"p0"`, `"p1"`, ...) with modifier
/// `$w` (`e`: 32 bits, `r`: 64 bits, `x`: 16 bits).
macro_rules! reg {
    ($p:literal, $w:literal) => {
        concat!("{", $p, ":", $w, "}")
    };
}

/// Normalization: when `range < 2^24`, shift a byte into `code`.
/// (`shl` clears the low byte of `code`, so the byte moves in directly.)
macro_rules! normalize {
    () => {
        concat!(
            "cmp {range:e}, 0x1000000\n",
            "jae 2f\n",
            "shl {code:e}, 8\n",
            "mov {code:l}, byte ptr [{ptr}]\n",
            "shl {range:e}, 8\n",
            "inc {ptr}\n",
            "2:\n",
        )
    };
}

/// Bound, code and range of one bit with probability `$p`; leaves the
/// inverted bit in CF and the range minus the bound in `t0`, and has
/// already picked the range. With CF set (bit 0) the code has gone below
/// zero by the bound, which is then the range: the caller adds it back.
macro_rules! split {
    ($p:literal) => {
        concat!(
            "mov {t0:e}, {range:e}\n",
            "shr {range:e}, 11\n",
            "imul {range:e}, ",
            reg!($p, "e"),
            "\n",
            "sub {t0:e}, {range:e}\n",
            "sub {code:e}, {range:e}\n",
            "cmovae {range:e}, {t0:e}\n",
        )
    };
}

/// One bit of a tree at node `m` with its probability in `$p`. With
/// `next`, the probability of the child it goes to is loaded into `$n`
/// (both children are loaded before the bit is known).
macro_rules! tree_bit {
    ($p:literal, $n:literal, next) => {
        concat!(
            "movzx ", reg!($n, "e"), ", word ptr [{base} + {m}*4]\n",
            normalize!(),
            split!($p),
            "movzx {t0:e}, word ptr [{base} + {m}*4 + 2]\n",
            "lea {m}, [{m} + {m} + 1]\n",
            "cmovae ", reg!($n, "e"), ", {t0:e}\n",
            tree_bit!(@tail $p),
        )
    };
    ($p:literal, last) => {
        concat!(
            normalize!(),
            split!($p),
            "lea {m}, [{m} + {m} + 1]\n",
            tree_bit!(@tail $p),
        )
    };
    // The bit as a mask (`t2`: all ones for a 0 bit), then with plain ALU
    // operations: `m = 2m + 1 + mask`, the code fix-up (a 0 bit adds the
    // bound, now the range, back) and the adapted probability, stored at
    // the old node (byte offset `2m`, one below what `m` held before).
    (@tail $p:literal) => {
        concat!(
            "sbb {t2}, {t2}\n",
            "mov {t1}, {m}\n",
            "add {m}, {t2}\n",
            "mov {t0:e}, {offset_0}\n",
            "and {t0:e}, {t2:e}\n",
            "add {t0:e}, ", reg!($p, "e"), "\n",
            "and {t2:e}, {range:e}\n",
            "add {code:e}, {t2:e}\n",
            "shr {t0:e}, 5\n",
            "sub ", reg!($p, "e"), ", {t0:e}\n",
            "mov word ptr [{base} + {t1} - 1], ", reg!($p, "x"), "\n",
        )
    };
}

/// The bits of a tree, alternating the two probability registers.
macro_rules! tree_text {
    (1) => { tree_bit!("p0", last) };
    (2) => { concat!(tree_bit!("p0", "p1", next), tree_bit!("p1", last)) };
    (3) => { concat!(tree_bit!("p0", "p1", next), tree_bit!("p1", "p0", next), tree_bit!("p0", last)) };
    (4) => { concat!(tree_text!(3 next), tree_bit!("p1", last)) };
    (5) => { concat!(tree_text!(4 next), tree_bit!("p0", last)) };
    (6) => { concat!(tree_text!(4 next), tree_bit!("p0", "p1", next), tree_bit!("p1", last)) };
    (8) => {
        concat!(
            tree_text!(4 next),
            tree_bit!("p0", "p1", next),
            tree_bit!("p1", "p0", next),
            tree_bit!("p0", "p1", next),
            tree_bit!("p1", last),
        )
    };
    // Four bits that end where they started (in "p0"), all with `next`.
    (4 next) => {
        concat!(
            tree_bit!("p0", "p1", next),
            tree_bit!("p1", "p0", next),
            tree_bit!("p0", "p1", next),
            tree_bit!("p1", "p0", next),
        )
    };
    // Three bits with `next`, ending in "p1".
    (3 next) => {
        concat!(
            tree_bit!("p0", "p1", next),
            tree_bit!("p1", "p0", next),
            tree_bit!("p0", "p1", next),
        )
    };
}

/// Runs the bits of `$text` from node 1; returns the final node.
macro_rules! run_tree {
    ($rc:ident, $probs:ident, $ptr:ident, $text:expr) => {{
        let mut m: usize = 1;
        let mut p0 = u32::from($probs[1]);
        // SAFETY: invariants 1-3 of the module: the caller checked the
        // input (`$ptr`) and the tree size against `$probs`.
        unsafe {
            asm!(
                $text,
                range = inout(reg) $rc.range,
                code = inout(reg) $rc.code,
                ptr = inout(reg) $ptr,
                m = inout(reg) m,
                p0 = inout(reg) p0,
                p1 = out(reg) _,
                t0 = out(reg) _,
                t1 = out(reg) _,
                t2 = out(reg) _,
                base = in(reg) $probs.as_mut_ptr(),
                offset_0 = const OFFSET_0,
                options(nostack),
            );
        }
        let _ = p0;
        m
    }};
}

/// Decodes `bits` (1 to 6, or 8) bits MSB first through the tree
/// `probs[1..1 << bits]`; returns the final node (`1 << bits` plus the
/// symbol). `None` when the input or the array is too short, or `bits` is
/// another count: the caller decodes in Rust then.
#[inline(always)]
pub(super) fn bittree<const N: usize>(
    rc: &mut RangeDecoder<'_>,
    probs: &mut [u16; N],
    bits: u32,
) -> Option<usize> {
    if !(1..=8).contains(&bits) || N < 1 << bits {
        return None;
    }
    let start = input(rc, bits)?;
    let mut ptr = start;
    let m = match bits {
        1 => run_tree!(rc, probs, ptr, concat!("/* {p1} */", tree_text!(1))),
        2 => run_tree!(rc, probs, ptr, tree_text!(2)),
        3 => run_tree!(rc, probs, ptr, tree_text!(3)),
        4 => run_tree!(rc, probs, ptr, tree_text!(4)),
        5 => run_tree!(rc, probs, ptr, tree_text!(5)),
        6 => run_tree!(rc, probs, ptr, tree_text!(6)),
        8 => run_tree!(rc, probs, ptr, tree_text!(8)),
        _ => return None,
    };
    rc.pos += ptr as usize - start as usize;
    Some(m)
}

/// One bit of a literal decoded against the match byte, with both
/// candidate probabilities of the next bit loaded before this bit is known.
///
/// `mb` is the match byte shifted so that the current bit's match bit is
/// its bit 8 (`mb & 0x100`); `off` is 0x100 while the decoded bits equal
/// the match byte's and 0 after the first difference; `m = mb & off`; the
/// probability index is `off + m + sym`. After bit `b`, `off` becomes `m`
/// for `b = 1` and `off ^ m` for `b = 0`.
macro_rules! matched_bit {
    (next) => {
        concat!(
            matched_bit!(@index),
            // The next bit's match bit; `off` as after a 0 bit.
            "add {mb:e}, {mb:e}\n",
            "xor {off:e}, {m:e}\n",
            // Its two candidate indices (after a 0 bit, after a 1 bit)
            // and their probabilities.
            "mov {q0:e}, {mb:e}\n",
            "and {q0:e}, {off:e}\n",
            "add {q0:e}, {off:e}\n",
            "lea {q0:e}, [{q0:r} + {s:r}*2]\n",
            "mov {q1:e}, {mb:e}\n",
            "and {q1:e}, {m:e}\n",
            "add {q1:e}, {m:e}\n",
            "lea {q1:e}, [{q1:r} + {s:r}*2 + 1]\n",
            "movzx {q0:e}, word ptr [{base} + {q0:r}*2]\n",
            "movzx {q1:e}, word ptr [{base} + {q1:r}*2]\n",
            normalize!(),
            split!("p"),
            // The next probability and `off`, by this bit.
            "cmovae {q0:e}, {q1:e}\n",
            "cmovae {off:e}, {m:e}\n",
            matched_bit!(@tail),
            "mov {p:e}, {q0:e}\n",
        )
    };
    (last) => {
        concat!(
            matched_bit!(@index),
            normalize!(),
            split!("p"),
            matched_bit!(@tail)
        )
    };
    // This bit's match bit `m` and probability index.
    (@index) => {
        concat!(
            "mov {m:e}, {mb:e}\n",
            "and {m:e}, {off:e}\n",
            "lea {idx:e}, [{m:r} + {off:r}]\n",
            "add {idx:e}, {s:e}\n",
        )
    };
    // The adapted probability (in `q1`), `sym = 2 sym + bit`, the code
    // fix-up (`sbb` keeps CF), and the store at the current index.
    (@tail) => {
        concat!(
            "lea {q1:e}, [{p:r} + {offset_0}]\n",
            "cmovae {q1:e}, {p:e}\n",
            "sbb {t0:e}, {t0:e}\n",
            "lea {s:e}, [{s:r} + {s:r}]\n",
            "sbb {s:e}, -1\n",
            "and {t0:e}, {range:e}\n",
            "add {code:e}, {t0:e}\n",
            "shr {q1:e}, 5\n",
            "sub {p:e}, {q1:e}\n",
            "mov word ptr [{base} + {idx:r}*2], {p:x}\n",
        )
    };
}

/// Decodes a literal after a match (eight bits against `match_byte`);
/// returns the byte, or `None` when the input is too short.
#[inline(always)]
pub(super) fn literal_matched(
    rc: &mut RangeDecoder<'_>,
    probs: &mut [u16; 0x300],
    match_byte: u32,
) -> Option<u32> {
    let start = input(rc, 8)?;
    let mut ptr = start;
    let mb = (match_byte & 0xFF) << 1;
    let mut s: u32 = 1;
    let p = u32::from(probs[0x100 + (mb & 0x100) as usize + 1]);
    // SAFETY: invariants 1-3 of the module: eight input bytes exist, and
    // every index is `off + m + sym` with `off` and `m` 0 or 0x100 and
    // `sym < 0x100`: below 0x300.
    unsafe {
        asm!(
            matched_bit!(next),
            matched_bit!(next),
            matched_bit!(next),
            matched_bit!(next),
            matched_bit!(next),
            matched_bit!(next),
            matched_bit!(next),
            matched_bit!(last),
            range = inout(reg) rc.range,
            code = inout(reg) rc.code,
            ptr = inout(reg) ptr,
            s = inout(reg) s,
            mb = inout(reg) mb => _,
            off = inout(reg) 0x100u32 => _,
            p = inout(reg) p => _,
            idx = out(reg) _,
            m = out(reg) _,
            q0 = out(reg) _,
            q1 = out(reg) _,
            t0 = out(reg) _,
            base = in(reg) probs.as_mut_ptr(),
            offset_0 = const OFFSET_0,
            options(nostack),
        );
    }
    rc.pos += ptr as usize - start as usize;
    Some(s & 0xFF)
}
