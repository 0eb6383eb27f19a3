//! x86 BCJ: the rel32 operand of `CALL` (`E8`) and `JMP` (`E9`) is made
//! absolute when its top byte is `00` or `FF` (a near target). A small
//! history of recent `E8`/`E9` bytes (`prev_mask`) skips opcodes that are
//! more likely operand bytes of an earlier instruction than real branches,
//! and keeps conversion reversible when converted bytes themselves look like
//! branch opcodes.

use crate::Filter;

/// Bytes an `E8`/`E9` instruction spans: opcode plus rel32.
const INSN: usize = 5;

/// History bits that survive ageing by 0..=4 bytes after the shift.
const AGE_KEEP: [u32; 5] = [0xFF, 0xEE, 0xCC, 0x88, 0x00];

pub(crate) struct X86 {
    /// Stream position of `buf[0]` on the next call.
    pos: u32,
    encode: bool,
    /// Bit k set: the byte k+1 positions before the last `E8`/`E9` seen was
    /// also an unconverted `E8`/`E9` (bit 4 and up: its operand top byte
    /// looked near).
    prev_mask: u32,
    /// Stream position of the last `E8`/`E9` seen.
    prev_pos: u32,
}

impl X86 {
    pub(crate) fn new(pos: u32, encode: bool) -> Self {
        X86 {
            pos,
            encode,
            prev_mask: 0,
            prev_pos: pos.wrapping_sub(INSN as u32),
        }
    }
}

/// A top operand byte that makes a near target.
#[inline(always)]
fn is_near(b: u8) -> bool {
    b == 0x00 || b == 0xFF
}

/// Each byte of a word set to `b`.
const fn splat(b: u8) -> u64 {
    u64::from_ne_bytes([b; 8])
}

/// Index of the first `E8` or `E9` byte in `s`.
///
/// Eight bytes at a time: `(w | 01..) ^ E9..` has a zero byte exactly where
/// `w` has `E8` or `E9`, and the lowest bit the zero-byte test sets marks the
/// first such byte (borrows only create false hits above a real one). A
/// byte-by-byte scan costs more than twice the instructions.
#[inline(always)]
fn find_branch(s: &[u8]) -> Option<usize> {
    let mut words = s.chunks_exact(8);
    let mut base = 0;
    for w in &mut words {
        let w = u64::from_le_bytes(w.try_into().expect("8 bytes"));
        let x = (w | splat(0x01)) ^ splat(0xE9);
        let zero = x.wrapping_sub(splat(0x01)) & !x & splat(0x80);
        if zero != 0 {
            return Some(base + (zero.trailing_zeros() / 8) as usize);
        }
        base += 8;
    }
    words
        .remainder()
        .iter()
        .position(|&b| b & 0xFE == 0xE8)
        .map(|k| base + k)
}

impl Filter for X86 {
    fn filter(&mut self, buf: &mut [u8]) -> usize {
        if buf.len() < INSN {
            return 0;
        }
        let now = self.pos;
        let mut mask = self.prev_mask;
        let mut prev_pos = self.prev_pos;
        // Far-away history means nothing; clamping keeps the distance from
        // wrapping.
        if now.wrapping_sub(prev_pos) > INSN as u32 {
            prev_pos = now.wrapping_sub(INSN as u32);
        }
        let limit = buf.len() - INSN;
        let mut i = 0;
        while i <= limit {
            // Most bytes are not E8/E9: scan for the next one in a tight loop.
            match find_branch(&buf[i..=limit]) {
                Some(k) => i += k,
                None => {
                    i = limit + 1;
                    break;
                }
            }
            let here = now.wrapping_add(i as u32);
            let gap = here.wrapping_sub(prev_pos);
            prev_pos = here;
            // Age the history by `gap` bytes; bits older than 4 bytes fall
            // off (the same as shifting by one `gap` times and dropping
            // bits 3 and 7 before each shift).
            mask = if gap <= 4 {
                (mask << gap) & AGE_KEEP[gap as usize]
            } else {
                0
            };
            // The rel32 operand after the opcode.
            let op: &mut [u8; 4] = (&mut buf[i + 1..i + INSN]).try_into().expect("4 bytes");
            let top = op[3];
            let hist = mask >> 1;
            if !is_near(top) || hist == 3 || hist > 4 {
                i += 1;
                mask |= 1;
                if is_near(top) {
                    mask |= 0x10;
                }
                continue;
            }
            let mut src = u32::from_le_bytes(*op);
            let next = here.wrapping_add(INSN as u32);
            let dest = loop {
                let dest = if self.encode {
                    src.wrapping_add(next)
                } else {
                    src.wrapping_sub(next)
                };
                if mask == 0 {
                    break dest;
                }
                // hist is 1, 2 or 4 here: the byte of the result that an
                // earlier E8/E9 would see as its top operand byte.
                let k = match hist {
                    1 => 1,
                    2 => 2,
                    _ => 3,
                };
                if !is_near((dest >> (24 - 8 * k)) as u8) {
                    break dest;
                }
                src = dest ^ ((1u32 << (32 - 8 * k)) - 1);
            };
            // Store the target sign-extended from 25 bits (one word store).
            *op = (((dest << 7) as i32 >> 7) as u32).to_le_bytes();
            i += INSN;
            mask = 0;
        }
        self.prev_mask = mask;
        self.prev_pos = prev_pos;
        self.pos = now.wrapping_add(i as u32);
        i
    }
}

#[cfg(test)]
mod tests {
    use super::find_branch;

    /// The word scan finds the same first `E8`/`E9` as a byte scan, wherever
    /// it sits relative to the words and whatever bytes (near misses, bytes
    /// that borrow) surround it.
    #[test]
    fn find_branch_matches_byte_scan() {
        let bytes = [0x00, 0x01, 0xE7, 0xE8, 0xE9, 0xEA, 0xFF, 0x68, 0x69];
        let mut x = 1u32;
        for len in 0..40 {
            for _ in 0..300 {
                let s: Vec<u8> = (0..len)
                    .map(|_| {
                        x ^= x << 13;
                        x ^= x >> 17;
                        x ^= x << 5;
                        bytes[(x % 9) as usize]
                    })
                    .collect();
                let want = s.iter().position(|&b| b & 0xFE == 0xE8);
                assert_eq!(find_branch(&s), want, "{s:02x?}");
            }
        }
    }
}
