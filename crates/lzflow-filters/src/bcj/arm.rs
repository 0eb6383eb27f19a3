//! ARM (32-bit, little endian) BCJ: the 24-bit word offset of `BL`
//! (condition "always", opcode byte `0xEB`) is made absolute. The program
//! counter reads 8 bytes ahead of the instruction.

use super::convert;
use crate::Filter;

pub(crate) struct Arm {
    pos: u32,
    encode: bool,
}

impl Arm {
    pub(crate) fn new(pos: u32, encode: bool) -> Self {
        Arm { pos, encode }
    }
}

impl Filter for Arm {
    fn filter(&mut self, buf: &mut [u8]) -> usize {
        let done = buf.len() & !3;
        for (n, ins) in buf[..done].chunks_exact_mut(4).enumerate() {
            if ins[3] != 0xEB {
                continue;
            }
            let pc = self.pos.wrapping_add((n as u32) << 2).wrapping_add(8);
            let off = u32::from_le_bytes([ins[0], ins[1], ins[2], 0]) << 2;
            let dest = convert(off, pc, self.encode) >> 2;
            ins[..3].copy_from_slice(&dest.to_le_bytes()[..3]);
        }
        self.pos = self.pos.wrapping_add(done as u32);
        done
    }
}
