//! The filter registry: which filters exist and their IDs in XZ and 7z.

use crate::FilterError;

/// One of the filters this crate implements.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FilterKind {
    /// Delta: byte-wise difference at a fixed distance.
    Delta,
    /// BCJ for x86 / x86-64 (CALL and JMP rel32).
    X86,
    /// BCJ for big-endian PowerPC (B with AA=0, LK=1).
    PowerPc,
    /// BCJ for Itanium (IA-64) bundles.
    Ia64,
    /// BCJ for 32-bit little-endian ARM (BL).
    Arm,
    /// BCJ for ARM Thumb (BL instruction pairs).
    ArmThumb,
    /// BCJ for SPARC (CALL).
    Sparc,
    /// BCJ for ARM64 (BL and ADRP).
    Arm64,
    /// BCJ for RISC-V (JAL and AUIPC pairs).
    RiscV,
}

impl FilterKind {
    /// Every filter kind.
    pub const ALL: [FilterKind; 9] = [
        FilterKind::Delta,
        FilterKind::X86,
        FilterKind::PowerPc,
        FilterKind::Ia64,
        FilterKind::Arm,
        FilterKind::ArmThumb,
        FilterKind::Sparc,
        FilterKind::Arm64,
        FilterKind::RiscV,
    ];

    /// The filter with this XZ filter ID, if it is one of ours.
    pub fn from_xz_id(id: u64) -> Option<Self> {
        Self::ALL.into_iter().find(|k| k.xz_id() == id)
    }

    /// Like [`from_xz_id`](Self::from_xz_id), but an error naming the ID.
    pub fn try_from_xz_id(id: u64) -> Result<Self, FilterError> {
        Self::from_xz_id(id).ok_or(FilterError::UnsupportedFilter(id))
    }

    /// The XZ filter ID (xz-file-format 5.3).
    pub fn xz_id(self) -> u64 {
        match self {
            FilterKind::Delta => 0x03,
            FilterKind::X86 => 0x04,
            FilterKind::PowerPc => 0x05,
            FilterKind::Ia64 => 0x06,
            FilterKind::Arm => 0x07,
            FilterKind::ArmThumb => 0x08,
            FilterKind::Sparc => 0x09,
            FilterKind::Arm64 => 0x0A,
            FilterKind::RiscV => 0x0B,
        }
    }

    /// The filter with this 7z method ID (the method ID bytes read as a
    /// big-endian number), if it is one of ours. Both the 4-byte branch
    /// codec IDs 7-Zip writes (`03 03 01 03` for x86, ...) and the 1-byte
    /// aliases shared with XZ (`04` for x86, ...) are accepted.
    pub fn from_7z_id(id: u64) -> Option<Self> {
        Self::ALL
            .into_iter()
            .find(|k| k.sevenz_id() == id || k.xz_id() == id)
    }

    /// The 7z method ID 7-Zip writes, as a big-endian number of the ID bytes
    /// (e.g. x86 BCJ is `03 03 01 03` = `0x0303_0103`; ARM64 is `0A`).
    pub fn sevenz_id(self) -> u64 {
        match self {
            FilterKind::Delta => 0x03,
            FilterKind::X86 => 0x0303_0103,
            FilterKind::PowerPc => 0x0303_0205,
            FilterKind::Ia64 => 0x0303_0401,
            FilterKind::Arm => 0x0303_0501,
            FilterKind::ArmThumb => 0x0303_0701,
            FilterKind::Sparc => 0x0303_0805,
            FilterKind::Arm64 => 0x0A,
            FilterKind::RiscV => 0x0B,
        }
    }

    /// The instruction alignment of a BCJ filter, which its start offset
    /// must be a multiple of; 1 for Delta and x86.
    pub fn alignment(self) -> u32 {
        match self {
            FilterKind::Delta | FilterKind::X86 => 1,
            FilterKind::ArmThumb | FilterKind::RiscV => 2,
            FilterKind::PowerPc | FilterKind::Arm | FilterKind::Sparc | FilterKind::Arm64 => 4,
            FilterKind::Ia64 => 16,
        }
    }

    /// True for the branch-converter (BCJ) filters, false for Delta.
    pub fn is_bcj(self) -> bool {
        self != FilterKind::Delta
    }

    /// The name users know the filter by (as `xz --filters-help` spells it).
    pub fn name(self) -> &'static str {
        match self {
            FilterKind::Delta => "Delta",
            FilterKind::X86 => "x86",
            FilterKind::PowerPc => "PowerPC",
            FilterKind::Ia64 => "IA-64",
            FilterKind::Arm => "ARM",
            FilterKind::ArmThumb => "ARM-Thumb",
            FilterKind::Sparc => "SPARC",
            FilterKind::Arm64 => "ARM64",
            FilterKind::RiscV => "RISC-V",
        }
    }
}

impl std::fmt::Display for FilterKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.pad(self.name())
    }
}
