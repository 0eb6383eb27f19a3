//! SPARC BCJ: the 30-bit word displacement of `CALL` is made absolute. Only
//! calls whose displacement fits 23 bits (sign included) are converted, and
//! the result is stored sign-extended the same way.

use super::convert;
use crate::Filter;

pub(crate) struct Sparc {
    pos: u32,
    encode: bool,
}

impl Sparc {
    pub(crate) fn new(pos: u32, encode: bool) -> Self {
        Sparc { pos, encode }
    }
}

impl Filter for Sparc {
    fn filter(&mut self, buf: &mut [u8]) -> usize {
        let done = buf.len() & !3;
        for (n, ins) in buf[..done].chunks_exact_mut(4).enumerate() {
            let small_forward = ins[0] == 0x40 && ins[1] & 0xC0 == 0x00;
            let small_backward = ins[0] == 0x7F && ins[1] & 0xC0 == 0xC0;
            if !small_forward && !small_backward {
                continue;
            }
            let word = u32::from_be_bytes([ins[0], ins[1], ins[2], ins[3]]);
            let pc = self.pos.wrapping_add((n as u32) << 2);
            let dest = convert(word << 2, pc, self.encode) >> 2;
            // Sign-extend bit 22 up to bit 29 and put the CALL opcode back.
            let sign = 0u32.wrapping_sub((dest >> 22) & 1) << 22;
            let out = (sign & 0x3FFF_FFFF) | (dest & 0x003F_FFFF) | 0x4000_0000;
            ins.copy_from_slice(&out.to_be_bytes());
        }
        self.pos = self.pos.wrapping_add(done as u32);
        done
    }
}
