//! PowerPC (big endian) BCJ: the 24-bit word offset of a relative branch
//! with link (`bl`: primary opcode 18, AA = 0, LK = 1) is made absolute.

use super::convert;
use crate::Filter;

pub(crate) struct PowerPc {
    pos: u32,
    encode: bool,
}

impl PowerPc {
    pub(crate) fn new(pos: u32, encode: bool) -> Self {
        PowerPc { pos, encode }
    }
}

impl Filter for PowerPc {
    fn filter(&mut self, buf: &mut [u8]) -> usize {
        let done = buf.len() & !3;
        for (n, ins) in buf[..done].chunks_exact_mut(4).enumerate() {
            if ins[0] >> 2 != 0x12 || ins[3] & 3 != 1 {
                continue;
            }
            let word = u32::from_be_bytes([ins[0], ins[1], ins[2], ins[3]]);
            let pc = self.pos.wrapping_add((n as u32) << 2);
            let dest = convert(word & 0x03FF_FFFC, pc, self.encode);
            // The link bits are kept; the rest of the low byte comes from `dest`.
            let out = 0x4800_0000 | (dest & 0x03FF_FFFF) | (word & 3);
            ins.copy_from_slice(&out.to_be_bytes());
        }
        self.pos = self.pos.wrapping_add(done as u32);
        done
    }
}
