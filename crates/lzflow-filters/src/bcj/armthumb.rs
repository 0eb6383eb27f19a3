//! ARM Thumb BCJ: the 22-bit halfword offset split over a `BL` instruction
//! pair (`11110` high part, then `11111` low part, each 16-bit little endian)
//! is made absolute. The program counter reads 4 bytes ahead.

use super::convert;
use crate::Filter;

pub(crate) struct ArmThumb {
    pos: u32,
    encode: bool,
}

impl ArmThumb {
    pub(crate) fn new(pos: u32, encode: bool) -> Self {
        ArmThumb { pos, encode }
    }
}

impl Filter for ArmThumb {
    fn filter(&mut self, buf: &mut [u8]) -> usize {
        if buf.len() < 4 {
            return 0;
        }
        let last = buf.len() - 4;
        let mut i = 0;
        while i <= last {
            if buf[i + 1] & 0xF8 != 0xF0 || buf[i + 3] & 0xF8 != 0xF8 {
                i += 2;
                continue;
            }
            let off = (u32::from(buf[i + 1] & 7) << 19)
                | (u32::from(buf[i]) << 11)
                | (u32::from(buf[i + 3] & 7) << 8)
                | u32::from(buf[i + 2]);
            let pc = self.pos.wrapping_add(i as u32).wrapping_add(4);
            let dest = convert(off << 1, pc, self.encode) >> 1;
            buf[i + 1] = 0xF0 | ((dest >> 19) & 7) as u8;
            buf[i] = (dest >> 11) as u8;
            buf[i + 3] = 0xF8 | ((dest >> 8) & 7) as u8;
            buf[i + 2] = dest as u8;
            // Both halves of the pair are done.
            i += 4;
        }
        self.pos = self.pos.wrapping_add(i as u32);
        i
    }
}
