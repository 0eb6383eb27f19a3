//! xz's LZMA option strings (`--lzma2=preset=6e,dict=32MiB,lc=3,…`), as
//! `lzflow c --lzma2` and the xz-style line take them.

use lzflow_lzma::{LzmaOptions, MatchFinder, Mode};

use crate::size::parse_bytes;

/// Parses `spec`, comma-separated `name=value` pairs applied in order to
/// preset 6 (xz's default): `preset=N` or `Ne` (resets every field),
/// `dict=SIZE`, `lc`, `lp`, `pb`, `mode=fast|normal`, `nice=N`,
/// `mf=hc3|hc4|bt2|bt3|bt4`, `depth=N`. The result is checked as LZMA2
/// needs it (lc + lp <= 4), also for `.lzma`, which xz reads no other way.
pub fn parse(spec: &str) -> Result<LzmaOptions, String> {
    let mut opts = LzmaOptions::default();
    for pair in spec.split(',').filter(|p| !p.is_empty()) {
        let (name, value) = pair
            .split_once('=')
            .ok_or_else(|| format!("{pair}: expected NAME=VALUE"))?;
        let number = || {
            value
                .parse::<u32>()
                .map_err(|_| format!("{name}={value}: not a number"))
        };
        match name {
            "preset" => {
                let (level, extreme) = match value.strip_suffix('e') {
                    Some(level) => (level, true),
                    None => (value, false),
                };
                let level = level
                    .parse::<u32>()
                    .map_err(|_| format!("preset={value}: expected 0 to 9, or 0e to 9e"))?;
                let preset = match extreme {
                    true => LzmaOptions::preset_extreme(level),
                    false => LzmaOptions::preset(level),
                };
                opts = preset.map_err(|e| format!("preset={value}: {e}"))?;
            }
            "dict" => {
                let bytes = parse_bytes(value)?;
                opts.dict_size =
                    u32::try_from(bytes).map_err(|_| format!("dict={value}: at most 1.5 GiB"))?;
            }
            "lc" => opts.lc = number()?,
            "lp" => opts.lp = number()?,
            "pb" => opts.pb = number()?,
            "nice" => opts.nice_len = number()?,
            "depth" => opts.depth = number()?,
            "mode" => {
                opts.mode = match value {
                    "fast" => Mode::Fast,
                    "normal" => Mode::Normal,
                    _ => return Err(format!("mode={value}: expected fast or normal")),
                }
            }
            "mf" => {
                opts.mf = match value {
                    "hc3" => MatchFinder::Hc3,
                    "hc4" => MatchFinder::Hc4,
                    "bt2" => MatchFinder::Bt2,
                    "bt3" => MatchFinder::Bt3,
                    "bt4" => MatchFinder::Bt4,
                    _ => return Err(format!("mf={value}: expected hc3, hc4, bt2, bt3 or bt4")),
                }
            }
            _ => {
                return Err(format!(
                    "{name}: not an LZMA option (preset, dict, lc, lp, pb, mode, nice, mf, depth)"
                ))
            }
        }
    }
    opts.validate(true).map_err(|e| format!("{spec}: {e}"))?;
    Ok(opts)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn options_apply_in_order_to_preset_6() {
        assert_eq!(parse("").unwrap(), LzmaOptions::preset(6).unwrap());
        let o = parse("dict=32MiB,lc=2,lp=1,pb=0,mode=fast,nice=100,mf=hc4,depth=9").unwrap();
        assert_eq!(
            (
                o.dict_size,
                o.lc,
                o.lp,
                o.pb,
                o.mode,
                o.nice_len,
                o.mf,
                o.depth
            ),
            (32 << 20, 2, 1, 0, Mode::Fast, 100, MatchFinder::Hc4, 9)
        );
        // A preset resets what came before it, not what follows.
        let o = parse("lc=1,preset=9e,dict=1MiB").unwrap();
        let mut want = LzmaOptions::preset_extreme(9).unwrap();
        want.dict_size = 1 << 20;
        assert_eq!(o, want);
        assert_eq!(parse("preset=1").unwrap(), LzmaOptions::preset(1).unwrap());
    }

    #[test]
    fn bad_options_are_named() {
        for (spec, says) in [
            ("dict", "expected NAME=VALUE"),
            ("lc=x", "lc=x: not a number"),
            ("preset=10", "preset=10"),
            ("mode=slow", "expected fast or normal"),
            ("mf=bt5", "expected hc3"),
            ("size=1", "not an LZMA option"),
            ("dict=4GiB", "at most 1.5 GiB"),
            ("dict=2GiB", "1.5 GiB"),
            ("dict=1KiB", "between 4 KiB"),
            ("lc=4,lp=1", "lc + lp <= 4"),
            ("nice=3,mf=bt4", "hash length"),
        ] {
            let e = parse(spec).unwrap_err();
            assert!(e.contains(says), "{spec}: {e}");
        }
    }
}
