//! Which filters exist. Their IDs in XZ and 7z are in the one method
//! registry (lzflow-methods).

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
