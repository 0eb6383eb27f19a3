//! ARM64 BCJ: the 26-bit word offset of `BL` is made absolute, and so is the
//! page offset of `ADRP` when it lies within +/-512 MiB (an 18-bit page
//! count, sign included); other ADRPs are left alone so that unrelated data
//! is disturbed less.

use crate::Filter;

pub(crate) struct Arm64 {
    pos: u32,
    encode: bool,
}

impl Arm64 {
    pub(crate) fn new(pos: u32, encode: bool) -> Self {
        Arm64 { pos, encode }
    }
}

impl Filter for Arm64 {
    fn filter(&mut self, buf: &mut [u8]) -> usize {
        let done = buf.len() & !3;
        for (n, ins) in buf[..done].chunks_exact_mut(4).enumerate() {
            let word = u32::from_le_bytes([ins[0], ins[1], ins[2], ins[3]]);
            let pc = self.pos.wrapping_add((n as u32) << 2);
            let out = if word >> 26 == 0x25 {
                // BL: imm26 counts words.
                let delta = self.signed(pc >> 2);
                0x9400_0000 | (word.wrapping_add(delta) & 0x03FF_FFFF)
            } else if word & 0x9F00_0000 == 0x9000_0000 {
                // ADRP: immlo in bits 29-30, immhi in bits 5-23; together a
                // 21-bit page count of which only +/-2^17 are converted.
                let pages = ((word >> 29) & 3) | ((word >> 3) & 0x001F_FFFC);
                if pages.wrapping_add(0x0002_0000) & 0x001C_0000 != 0 {
                    continue;
                }
                let dest = pages.wrapping_add(self.signed(pc >> 12));
                (word & 0x9000_001F)
                    | ((dest & 3) << 29)
                    | ((dest & 0x0003_FFFC) << 3)
                    | (0u32.wrapping_sub(dest & 0x0002_0000) & 0x00E0_0000)
            } else {
                continue;
            };
            ins.copy_from_slice(&out.to_le_bytes());
        }
        self.pos = self.pos.wrapping_add(done as u32);
        done
    }
}

impl Arm64 {
    /// The amount to add: `+pc` when encoding, `-pc` when decoding.
    #[inline(always)]
    fn signed(&self, pc: u32) -> u32 {
        if self.encode {
            pc
        } else {
            0u32.wrapping_sub(pc)
        }
    }
}
