//! Which entries look like x86 executables, for automatic BCJ
//! ([`WriterOptions::auto_bcj`](crate::WriterOptions::auto_bcj)): by name,
//! as 7-Zip decides, or by an ELF or PE header in the first data.

/// Extensions 7-Zip treats as x86 executables.
const EXE_EXTENSIONS: [&str; 10] = [
    "exe", "dll", "sys", "ocx", "cpl", "scr", "drv", "efi", "so", "ko",
];

/// True for names with an executable extension (`.so.1` counts) and for
/// data starting with an x86 ELF or PE header.
pub(crate) fn looks_like_x86_executable(name: &str, head: &[u8]) -> bool {
    let base = name.rsplit('/').next().unwrap_or(name).to_ascii_lowercase();
    let mut parts = base.split('.').skip(1);
    if parts.any(|ext| EXE_EXTENSIONS.contains(&ext) && (ext == "so" || base.ends_with(ext))) {
        return true;
    }
    if head.len() >= 20 && head.starts_with(b"\x7fELF") {
        let machine = u16::from_le_bytes([head[18], head[19]]);
        return machine == 3 || machine == 62;
    }
    if head.len() >= 0x40 && head.starts_with(b"MZ") {
        let pe = u32::from_le_bytes([head[0x3C], head[0x3D], head[0x3E], head[0x3F]]) as usize;
        if let Some(h) = head.get(pe..pe + 6) {
            let machine = u16::from_le_bytes([h[4], h[5]]);
            return h.starts_with(b"PE\0\0") && (machine == 0x14C || machine == 0x8664);
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn executables_are_recognised() {
        assert!(looks_like_x86_executable("a/b/setup.EXE", b""));
        assert!(looks_like_x86_executable("libz.so.1", b""));
        assert!(looks_like_x86_executable("libz.so", b""));
        assert!(!looks_like_x86_executable("notes.exe.txt", b""));
        assert!(!looks_like_x86_executable(
            "readme",
            b"plain text here......"
        ));
        let mut elf = b"\x7fELF".to_vec();
        elf.resize(20, 0);
        elf[18] = 62;
        assert!(looks_like_x86_executable("prog", &elf));
        elf[18] = 40; // ARM
        assert!(!looks_like_x86_executable("prog", &elf));
        let mut pe = vec![0u8; 0x100];
        pe[..2].copy_from_slice(b"MZ");
        pe[0x3C] = 0x80;
        pe[0x80..0x84].copy_from_slice(b"PE\0\0");
        pe[0x84..0x86].copy_from_slice(&0x8664u16.to_le_bytes());
        assert!(looks_like_x86_executable("prog", &pe));
    }
}
