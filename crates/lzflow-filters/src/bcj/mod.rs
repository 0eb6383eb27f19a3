//! Branch/Call/Jump converters: they turn relative branch targets in machine
//! code into absolute ones (and back), so that repeated calls to the same
//! function become repeated byte strings that LZMA compresses well.
//!
//! Each converter is the one XZ Utils defines for its architecture, so that
//! streams are interchangeable with xz and 7-Zip.

pub(crate) mod arm;
pub(crate) mod arm64;
pub(crate) mod armthumb;
pub(crate) mod ia64;
pub(crate) mod powerpc;
pub(crate) mod riscv;
pub(crate) mod sparc;
pub(crate) mod x86;

/// Adds `pc` to an address when encoding and subtracts it when decoding.
#[inline(always)]
fn convert(addr: u32, pc: u32, encode: bool) -> u32 {
    if encode {
        addr.wrapping_add(pc)
    } else {
        addr.wrapping_sub(pc)
    }
}
