//! Which entries look like executables, and for which machine, for
//! automatic branch filters
//! ([`WriterOptions::auto_bcj`](crate::WriterOptions::auto_bcj)): by an ELF
//! or PE header in the first data, as 7-Zip decides (the machine picks the
//! filter), else by name (x86, as 7-Zip does for its executable
//! extensions).

use lzflow_filters::FilterKind;

/// Extensions 7-Zip treats as x86 executables.
const EXE_EXTENSIONS: [&str; 10] = [
    "exe", "dll", "sys", "ocx", "cpl", "scr", "drv", "efi", "so", "ko",
];

/// The branch filter for an entry named `name` whose data starts with
/// `head`: the machine of an ELF or PE header (x86 → x86, ARM64, ARM,
/// ARM-Thumb for Thumb-2 PE, RISC-V, PowerPC and SPARC for big-endian
/// ELF, IA-64 for PE), else x86 for executable extensions (`.so.1`
/// counts), else none.
pub(crate) fn executable_filter(name: &str, head: &[u8]) -> Option<FilterKind> {
    if let Some(kind) = elf_filter(head).or_else(|| pe_filter(head)) {
        return Some(kind);
    }
    let base = name.rsplit('/').next().unwrap_or(name).to_ascii_lowercase();
    let mut parts = base.split('.').skip(1);
    parts
        .any(|ext| EXE_EXTENSIONS.contains(&ext) && (ext == "so" || base.ends_with(ext)))
        .then_some(FilterKind::X86)
}

fn elf_filter(head: &[u8]) -> Option<FilterKind> {
    if head.len() < 20 || !head.starts_with(b"\x7fELF") {
        return None;
    }
    let big_endian = match head[5] {
        1 => false,
        2 => true,
        _ => return None,
    };
    let raw = [head[18], head[19]];
    let machine = if big_endian {
        u16::from_be_bytes(raw)
    } else {
        u16::from_le_bytes(raw)
    };
    Some(match (machine, big_endian) {
        (3 | 6 | 62, _) => FilterKind::X86,
        (2 | 18 | 43, _) => FilterKind::Sparc,
        (20 | 21, true) => FilterKind::PowerPc,
        (40, false) => FilterKind::Arm,
        (183, false) => FilterKind::Arm64,
        (243, false) => FilterKind::RiscV,
        _ => return None,
    })
}

fn pe_filter(head: &[u8]) -> Option<FilterKind> {
    if head.len() < 0x40 || !head.starts_with(b"MZ") {
        return None;
    }
    let pe = u32::from_le_bytes([head[0x3C], head[0x3D], head[0x3E], head[0x3F]]) as usize;
    let h = head.get(pe..pe.checked_add(6)?)?;
    if !h.starts_with(b"PE\0\0") {
        return None;
    }
    Some(match u16::from_le_bytes([h[4], h[5]]) {
        0x014C | 0x8664 => FilterKind::X86,
        0xAA64 => FilterKind::Arm64,
        // 0x01C2 (WinCE "Thumb") files hold mostly ARM code, as 7-Zip
        // notes; 0x01C4 (ARMNT) is Thumb-2.
        0x01C0 | 0x01C2 => FilterKind::Arm,
        0x01C4 => FilterKind::ArmThumb,
        0x5032 | 0x5064 => FilterKind::RiscV,
        0x0200 => FilterKind::Ia64,
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn elf(machine: u16, big_endian: bool) -> Vec<u8> {
        let mut h = b"\x7fELF\x02".to_vec();
        h.push(if big_endian { 2 } else { 1 });
        h.resize(64, 0);
        let m = if big_endian {
            machine.to_be_bytes()
        } else {
            machine.to_le_bytes()
        };
        h[18..20].copy_from_slice(&m);
        h
    }

    fn pe(machine: u16) -> Vec<u8> {
        let mut pe = vec![0u8; 0x100];
        pe[..2].copy_from_slice(b"MZ");
        pe[0x3C] = 0x80;
        pe[0x80..0x84].copy_from_slice(b"PE\0\0");
        pe[0x84..0x86].copy_from_slice(&machine.to_le_bytes());
        pe
    }

    #[test]
    fn executables_are_recognised() {
        let x86 = Some(FilterKind::X86);
        assert_eq!(executable_filter("a/b/setup.EXE", b""), x86);
        assert_eq!(executable_filter("libz.so.1", b""), x86);
        assert_eq!(executable_filter("libz.so", b""), x86);
        assert_eq!(executable_filter("notes.exe.txt", b""), None);
        assert_eq!(executable_filter("readme", b"plain text here......"), None);
        assert_eq!(executable_filter("prog", &elf(62, false)), x86);
        assert_eq!(executable_filter("prog", &elf(3, false)), x86);
        assert_eq!(executable_filter("prog", &pe(0x8664)), x86);
        assert_eq!(executable_filter("prog", &pe(0x14C)), x86);
    }

    #[test]
    fn machines_pick_their_filters() {
        let cases = [
            (elf(183, false), Some(FilterKind::Arm64)),
            (elf(40, false), Some(FilterKind::Arm)),
            (elf(243, false), Some(FilterKind::RiscV)),
            (elf(21, true), Some(FilterKind::PowerPc)),
            (elf(21, false), None),
            (elf(43, true), Some(FilterKind::Sparc)),
            (elf(183, true), None),
            (elf(50, false), None),
            (pe(0xAA64), Some(FilterKind::Arm64)),
            (pe(0x1C0), Some(FilterKind::Arm)),
            (pe(0x1C2), Some(FilterKind::Arm)),
            (pe(0x1C4), Some(FilterKind::ArmThumb)),
            (pe(0x5064), Some(FilterKind::RiscV)),
            (pe(0x200), Some(FilterKind::Ia64)),
            (pe(0x1234), None),
        ];
        for (head, want) in cases {
            assert_eq!(executable_filter("prog", &head), want);
        }
        // The header wins over the name: an ARM64 library is not x86.
        assert_eq!(
            executable_filter("libfoo.so.1", &elf(183, false)),
            Some(FilterKind::Arm64)
        );
    }
}
