//! Byte sizes on the command line (`64MiB`, `1G`, `max`) and in listings.

/// Parses a size the way xz's `--memlimit` does: a decimal number with an
/// optional binary suffix (`k`/`KiB`/`KB`, `M`/`MiB`/`MB`, `G`/`GiB`/`GB`,
/// all powers of 1024), or `max` / `0` for no limit (`u64::MAX`).
pub fn parse_size(text: &str) -> Result<u64, String> {
    let t = text.trim();
    if t.eq_ignore_ascii_case("max") || t == "0" {
        return Ok(u64::MAX);
    }
    parse_bytes(t)
}

/// A byte count or offset with an optional binary suffix (`4096`, `64KiB`,
/// `1G`); unlike [`parse_size`], 0 means zero.
pub fn parse_bytes(text: &str) -> Result<u64, String> {
    let t = text.trim();
    let digits_end = t.find(|c: char| !c.is_ascii_digit()).unwrap_or(t.len());
    let (digits, suffix) = t.split_at(digits_end);
    if digits.is_empty() {
        return Err(format!(
            "invalid size `{text}`: expected a number like 64MiB"
        ));
    }
    let number: u64 = digits
        .parse()
        .map_err(|_| format!("invalid size `{text}`: number too large"))?;
    let shift = match suffix.trim() {
        "" | "B" => 0,
        "k" | "K" | "KB" | "kB" | "KiB" => 10,
        "m" | "M" | "MB" | "MiB" => 20,
        "g" | "G" | "GB" | "GiB" => 30,
        other => {
            return Err(format!(
                "invalid size `{text}`: unknown suffix `{other}` (use KiB, MiB or GiB)"
            ))
        }
    };
    number
        .checked_mul(1u64 << shift)
        .ok_or_else(|| format!("invalid size `{text}`: too large"))
}

/// Formats a size for `lzflow l` exactly as `xz -l` does: bytes below
/// 10000, otherwise one decimal in the smallest unit that keeps the number
/// below 10000 ("11.2 KiB", "1024.0 KiB").
pub fn human(n: u64) -> String {
    const UNITS: [&str; 4] = ["KiB", "MiB", "GiB", "TiB"];
    if n < 10000 {
        return format!("{n} B");
    }
    let mut value = n as f64 / 1024.0;
    let mut unit = 0;
    while value >= 9999.95 && unit + 1 < UNITS.len() {
        value /= 1024.0;
        unit += 1;
    }
    format!("{value:.1} {}", UNITS[unit])
}

/// Compressed / uncompressed as xz prints it: three decimals, `---` when
/// there is nothing to compare with.
pub fn ratio(compressed: u64, uncompressed: u64) -> String {
    if uncompressed == 0 {
        return "---".to_string();
    }
    let r = compressed as f64 / uncompressed as f64;
    if r > 9.999 {
        "---".to_string()
    } else {
        format!("{r:.3}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_suffixes_and_max() {
        assert_eq!(parse_size("64MiB"), Ok(64 << 20));
        assert_eq!(parse_size("64M"), Ok(64 << 20));
        assert_eq!(parse_size("1GiB"), Ok(1 << 30));
        assert_eq!(parse_size("100k"), Ok(100 << 10));
        assert_eq!(parse_size("12345"), Ok(12345));
        assert_eq!(parse_size("max"), Ok(u64::MAX));
        assert_eq!(parse_size("0"), Ok(u64::MAX));
    }

    #[test]
    fn rejects_garbage_with_a_reason() {
        assert!(parse_size("MiB").unwrap_err().contains("expected a number"));
        assert!(parse_size("5 parsecs")
            .unwrap_err()
            .contains("unknown suffix"));
        assert!(parse_size("99999999999999999999")
            .unwrap_err()
            .contains("too large"));
        assert!(parse_size("17179869184GiB")
            .unwrap_err()
            .contains("too large"));
    }

    #[test]
    fn formats_like_xz_list() {
        assert_eq!(human(100), "100 B");
        assert_eq!(human(6396), "6396 B");
        assert_eq!(human(1 << 20), "1024.0 KiB");
        assert_eq!(human(20 << 30), "20.0 GiB");
        assert_eq!(human(9000 << 10), "9000.0 KiB");
        assert_eq!(human(11428), "11.2 KiB");
        assert_eq!(human(35149), "34.3 KiB");
        assert_eq!(human(204800), "200.0 KiB");
        assert_eq!(ratio(11428, 35149), "0.325");
        assert_eq!(ratio(60, 1), "---");
        assert_eq!(ratio(32, 0), "---");
    }
}
