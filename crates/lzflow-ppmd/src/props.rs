//! The 7z coder properties of PPMd: the model order and its memory size.

use crate::PpmdError;

/// The lowest model order.
pub const MIN_ORDER: u8 = 2;
/// The highest model order.
pub const MAX_ORDER: u8 = 64;
/// The smallest model memory 7-Zip accepts (2 KiB).
pub const MIN_MEM_SIZE: u32 = 1 << 11;
/// The largest model memory 7-Zip accepts (4 GiB - 37 bytes).
pub const MAX_MEM_SIZE: u32 = u32::MAX - 12 * 3;

/// The parameters of a PPMd var. H stream, as 7z stores them: 5 bytes, the
/// order and the memory size (little-endian).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Ppmd7Props {
    /// The model order, [`MIN_ORDER`]..=[`MAX_ORDER`].
    pub order: u8,
    /// The model memory in bytes, [`MIN_MEM_SIZE`]..=[`MAX_MEM_SIZE`].
    pub mem_size: u32,
}

impl Ppmd7Props {
    /// Checked properties.
    pub fn new(order: u8, mem_size: u32) -> Result<Self, PpmdError> {
        if !(MIN_ORDER..=MAX_ORDER).contains(&order) {
            return Err(PpmdError::InvalidProperties(format!(
                "order {order} is outside {MIN_ORDER}..={MAX_ORDER}"
            )));
        }
        if !(MIN_MEM_SIZE..=MAX_MEM_SIZE).contains(&mem_size) {
            return Err(PpmdError::InvalidProperties(format!(
                "memory size {mem_size} is outside {MIN_MEM_SIZE}..={MAX_MEM_SIZE}"
            )));
        }
        Ok(Ppmd7Props { order, mem_size })
    }

    /// Parses a 7z coder's property bytes. As 7-Zip, takes the first 5 and
    /// ignores any more.
    pub fn parse(bytes: &[u8]) -> Result<Self, PpmdError> {
        if bytes.len() < 5 {
            return Err(PpmdError::InvalidProperties(format!(
                "{} property bytes, 5 needed",
                bytes.len()
            )));
        }
        let mem_size = u32::from_le_bytes([bytes[1], bytes[2], bytes[3], bytes[4]]);
        Self::new(bytes[0], mem_size)
    }

    /// The 5 property bytes a 7z header stores.
    pub fn to_bytes(&self) -> [u8; 5] {
        let m = self.mem_size.to_le_bytes();
        [self.order, m[0], m[1], m[2], m[3]]
    }
}

/// Bytes a PPMd var. H coder with `mem_size` bytes of model memory uses:
/// the model memory, its fixed tables and the coder's buffers.
pub fn memory_usage(mem_size: u32) -> u64 {
    /// The probability and SEE tables (about 18 KiB), the coder's input
    /// or output buffer (at most 8 KiB held between calls), rounded up.
    const FIXED: u64 = 32 << 10;
    u64::from(mem_size) + FIXED
}
