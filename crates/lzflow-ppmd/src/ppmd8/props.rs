//! The properties of a zip PPMd entry: the 2 bytes before its stream.

use super::model::RestoreMethod;
use crate::PpmdError;

/// The lowest model order of var. I.
pub const PPMD8_MIN_ORDER: u8 = 2;
/// The highest model order of var. I (4 bits in the zip header).
pub const PPMD8_MAX_ORDER: u8 = 16;
/// The smallest model memory a zip entry can have, in MiB.
pub const PPMD8_MIN_MEM_MIB: u16 = 1;
/// The largest model memory a zip entry can have, in MiB.
pub const PPMD8_MAX_MEM_MIB: u16 = 256;

/// The parameters of a PPMd var. I stream as zip (method 98) stores them:
/// a little-endian `u16` before the range-coded data, with the order minus
/// one in bits 0-3, the memory size in MiB minus one in bits 4-11 and the
/// restoration method in bits 12-15.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Ppmd8Props {
    /// The model order, [`PPMD8_MIN_ORDER`]..=[`PPMD8_MAX_ORDER`].
    pub order: u8,
    /// The model memory in MiB, [`PPMD8_MIN_MEM_MIB`]..=[`PPMD8_MAX_MEM_MIB`].
    pub mem_mib: u16,
    /// What the model does when its memory is full.
    pub restore: RestoreMethod,
}

impl Ppmd8Props {
    /// Checked properties.
    pub fn new(order: u8, mem_mib: u16, restore: RestoreMethod) -> Result<Self, PpmdError> {
        if !(PPMD8_MIN_ORDER..=PPMD8_MAX_ORDER).contains(&order) {
            return Err(PpmdError::InvalidProperties(format!(
                "order {order} is outside {PPMD8_MIN_ORDER}..={PPMD8_MAX_ORDER}"
            )));
        }
        if !(PPMD8_MIN_MEM_MIB..=PPMD8_MAX_MEM_MIB).contains(&mem_mib) {
            return Err(PpmdError::InvalidProperties(format!(
                "memory size {mem_mib} MiB is outside {PPMD8_MIN_MEM_MIB}..={PPMD8_MAX_MEM_MIB}"
            )));
        }
        Ok(Ppmd8Props {
            order,
            mem_mib,
            restore,
        })
    }

    /// Parses the 2 header bytes. As 7-Zip: order 1 is refused, and so are
    /// restoration methods above 1 (2, "freeze", is the one 7-Zip knows
    /// but does not support; it is refused as unsupported here too).
    pub fn parse(bytes: [u8; 2]) -> Result<Self, PpmdError> {
        let val = u16::from_le_bytes(bytes);
        let order = (val & 0xF) as u8 + 1;
        let mem_mib = ((val >> 4) & 0xFF) + 1;
        let restore = match val >> 12 {
            0 => RestoreMethod::Restart,
            1 => RestoreMethod::CutOff,
            2 => {
                return Err(PpmdError::InvalidProperties(
                    "restoration method 2 (freeze) is not supported".into(),
                ))
            }
            r => {
                return Err(PpmdError::InvalidProperties(format!(
                    "restoration method {r} is unknown"
                )))
            }
        };
        Self::new(order, mem_mib, restore)
    }

    /// The 2 header bytes.
    pub fn to_bytes(&self) -> [u8; 2] {
        let restore = match self.restore {
            RestoreMethod::Restart => 0u16,
            RestoreMethod::CutOff => 1,
        };
        let val = (u16::from(self.order) - 1) | ((self.mem_mib - 1) << 4) | (restore << 12);
        val.to_le_bytes()
    }

    /// The model memory in bytes.
    pub fn mem_size(&self) -> u32 {
        u32::from(self.mem_mib) << 20
    }

    /// 7-Zip's zip defaults for compression level `level` (`-mx`; 0 counts
    /// as 1 and anything above 9 as 9): order `3 + level`, `2^(level - 1)`
    /// MiB, and cut-off from level 7 on, restart below.
    pub fn for_level(level: u32) -> Self {
        let level = level.clamp(1, 9);
        Ppmd8Props {
            order: 3 + level as u8,
            mem_mib: 1 << (level - 1),
            restore: if level < 7 {
                RestoreMethod::Restart
            } else {
                RestoreMethod::CutOff
            },
        }
    }

    /// As 7-Zip for an input of known size: the memory cut down to the
    /// smallest power of two MiB of which the input is at most 1/16.
    pub fn reduced_for_size(mut self, size: u64) -> Self {
        // 7-Zip takes sizes from 4 GiB - 1 on as unknown.
        if size >= u64::from(u32::MAX) {
            return self;
        }
        let mut m = 1u16;
        while m < self.mem_mib {
            if size <= (u64::from(m) << 20) / 16 {
                self.mem_mib = m;
                break;
            }
            m <<= 1;
        }
        self
    }
}

/// Bytes a PPMd var. I coder with `props` uses: the model memory, its
/// fixed tables and the coder's buffers.
pub fn ppmd8_memory_usage(props: &Ppmd8Props) -> u64 {
    /// The probability and SEE tables (about 7 KiB), the coder's input or
    /// output buffer (at most 8 KiB held between calls), rounded up.
    const FIXED: u64 = 32 << 10;
    u64::from(props.mem_size()) + FIXED
}
