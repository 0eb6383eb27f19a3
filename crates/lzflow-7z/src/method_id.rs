//! Coder method IDs as stored in folder records.

/// Copy (stored).
pub const COPY: &[u8] = &[0x00];
/// Delta filter.
pub const DELTA: &[u8] = &[0x03];
/// BCJ x86, 7z's ID.
pub const BCJ_X86: &[u8] = &[0x03, 0x03, 0x01, 0x03];
/// BCJ2 (x86 branch converter with four streams).
pub const BCJ2: &[u8] = &[0x03, 0x03, 0x01, 0x1B];
/// BCJ PowerPC.
pub const BCJ_PPC: &[u8] = &[0x03, 0x03, 0x02, 0x05];
/// BCJ IA-64.
pub const BCJ_IA64: &[u8] = &[0x03, 0x03, 0x04, 0x01];
/// BCJ ARM.
pub const BCJ_ARM: &[u8] = &[0x03, 0x03, 0x05, 0x01];
/// BCJ ARM-Thumb.
pub const BCJ_ARMT: &[u8] = &[0x03, 0x03, 0x07, 0x01];
/// BCJ SPARC.
pub const BCJ_SPARC: &[u8] = &[0x03, 0x03, 0x08, 0x05];
/// BCJ ARM64.
pub const BCJ_ARM64: &[u8] = &[0x0A];
/// BCJ RISC-V.
pub const BCJ_RISCV: &[u8] = &[0x0B];
/// LZMA.
pub const LZMA: &[u8] = &[0x03, 0x01, 0x01];
/// LZMA2.
pub const LZMA2: &[u8] = &[0x21];
/// Deflate.
pub const DEFLATE: &[u8] = &[0x04, 0x01, 0x08];
/// BZip2.
pub const BZIP2: &[u8] = &[0x04, 0x02, 0x02];
/// 7-Zip's AES-256 + SHA-256 key derivation.
pub const AES: &[u8] = &[0x06, 0xF1, 0x07, 0x01];

/// `030401 (PPMd)`: the ID in hex and its name when known, for messages.
pub fn describe(method: &[u8]) -> String {
    let hex: String = method.iter().map(|b| format!("{b:02X}")).collect();
    let name = match method {
        [0x00] => "Copy",
        [0x03] => "Delta",
        [0x04] => "BCJ x86",
        [0x05] => "BCJ PowerPC",
        [0x06] => "BCJ IA-64",
        [0x07] => "BCJ ARM",
        [0x08] => "BCJ ARM-Thumb",
        [0x09] => "BCJ SPARC",
        [0x0A] => "BCJ ARM64",
        [0x0B] => "BCJ RISC-V",
        [0x21] => "LZMA2",
        [0x03, 0x01, 0x01] => "LZMA",
        [0x03, 0x03, 0x01, 0x03] => "BCJ x86",
        [0x03, 0x03, 0x01, 0x1B] => "BCJ2",
        [0x03, 0x03, 0x02, 0x05] => "BCJ PowerPC",
        [0x03, 0x03, 0x04, 0x01] => "BCJ IA-64",
        [0x03, 0x03, 0x05, 0x01] => "BCJ ARM",
        [0x03, 0x03, 0x07, 0x01] => "BCJ ARM-Thumb",
        [0x03, 0x03, 0x08, 0x05] => "BCJ SPARC",
        [0x03, 0x04, 0x01] => "PPMd",
        [0x04, 0x01, 0x08] => "Deflate",
        [0x04, 0x01, 0x09] => "Deflate64",
        [0x04, 0x02, 0x02] => "BZip2",
        [0x04, 0x09, 0x01] => "Rar1",
        [0x04, 0xF7, 0x11, 0x01] => "Zstandard",
        [0x06, 0xF1, 0x07, 0x01] => "7zAES",
        _ => "",
    };
    if name.is_empty() {
        if hex.is_empty() {
            "(empty ID)".to_string()
        } else {
            hex
        }
    } else {
        format!("{hex} ({name})")
    }
}

/// A short method name for listings, `LZMA2:96k` style: the name (or the
/// hex ID when unknown) and, for LZMA and LZMA2, the dictionary size.
pub fn display_name(method: &[u8], props: &[u8]) -> String {
    let full = describe(method);
    let name = match (full.find('('), full.rfind(')')) {
        (Some(a), Some(b)) if a < b => full[a + 1..b].to_string(),
        _ => full,
    };
    let dict = match (method, props) {
        (LZMA, [_, d @ ..]) if d.len() >= 4 => {
            Some(u64::from(u32::from_le_bytes([d[0], d[1], d[2], d[3]])))
        }
        (LZMA2, [b]) if *b <= 40 => Some(if *b == 40 {
            u64::from(u32::MAX)
        } else {
            (2 | u64::from(b & 1)) << (b / 2 + 11)
        }),
        _ => None,
    };
    match dict {
        Some(d) if d >= 1 << 20 && d % (1 << 20) == 0 => format!("{name}:{}m", d >> 20),
        Some(d) if d >= 1 << 10 && d % (1 << 10) == 0 => format!("{name}:{}k", d >> 10),
        Some(d) => format!("{name}:{d}"),
        None => name,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn display_names() {
        assert_eq!(display_name(LZMA2, &[16]), "LZMA2:1m");
        assert_eq!(display_name(LZMA2, &[17]), "LZMA2:1536k");
        assert_eq!(display_name(LZMA, &[0x5D, 0, 0x80, 1, 0]), "LZMA:96k");
        assert_eq!(display_name(AES, &[]), "7zAES");
        assert_eq!(display_name(&[0x7F], &[]), "7F");
    }
}
