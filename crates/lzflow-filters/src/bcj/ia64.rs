//! IA-64 (Itanium) BCJ: code comes in 16-byte bundles of a 5-bit template
//! and three 41-bit slots. For the slots the template marks as branch units,
//! the 21-bit bundle offset of an IP-relative branch (opcode 5, btype 0) is
//! made absolute.

use super::convert;
use crate::Filter;

/// For each template, a bit per slot that may hold a branch.
const BRANCH_SLOTS: [u8; 32] = [
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, //
    4, 4, 6, 6, 0, 0, 7, 7, 4, 4, 0, 0, 4, 4, 0, 0,
];

pub(crate) struct Ia64 {
    pos: u32,
    encode: bool,
}

impl Ia64 {
    pub(crate) fn new(pos: u32, encode: bool) -> Self {
        Ia64 { pos, encode }
    }
}

impl Filter for Ia64 {
    fn filter(&mut self, buf: &mut [u8]) -> usize {
        let done = buf.len() & !15;
        for (n, bundle) in buf[..done].chunks_exact_mut(16).enumerate() {
            let slots = BRANCH_SLOTS[usize::from(bundle[0] & 0x1F)];
            if slots == 0 {
                continue;
            }
            let pc = self.pos.wrapping_add((n as u32) << 4);
            for slot in 0..3 {
                if (slots >> slot) & 1 != 0 {
                    self.convert_slot(bundle, 5 + 41 * slot, pc);
                }
            }
        }
        self.pos = self.pos.wrapping_add(done as u32);
        done
    }
}

impl Ia64 {
    /// Converts the slot starting at bit `bit` of the bundle if it holds an
    /// IP-relative branch.
    fn convert_slot(&self, bundle: &mut [u8], bit: usize, pc: u32) {
        // The 41-bit slot lies within 6 bytes starting at bit / 8.
        let at = bit / 8;
        let shift = bit % 8;
        let mut raw = [0u8; 8];
        raw[..6].copy_from_slice(&bundle[at..at + 6]);
        let bytes = u64::from_le_bytes(raw);
        let mut ins = bytes >> shift;
        if (ins >> 37) & 0xF != 0x5 || (ins >> 9) & 0x7 != 0 {
            return;
        }
        // imm20b in bits 13-32, sign in bit 36; counts bundles.
        let imm = (((ins >> 13) & 0xF_FFFF) | (((ins >> 36) & 1) << 20)) as u32;
        let dest = convert(imm << 4, pc, self.encode) >> 4;
        ins &= !(0x8F_FFFFu64 << 13);
        ins |= u64::from(dest & 0xF_FFFF) << 13;
        ins |= u64::from(dest & 0x10_0000) << (36 - 20);
        let merged = (bytes & ((1u64 << shift) - 1)) | (ins << shift);
        bundle[at..at + 6].copy_from_slice(&merged.to_le_bytes()[..6]);
    }
}
