//! Encoder options and the xz-compatible presets 0-9 and 0e-9e.

use crate::model::{MATCH_LEN_MAX, MATCH_LEN_MIN};
use crate::{LzmaError, LzmaProps};

/// Smallest dictionary the encoder accepts (what LZMA2 can describe).
pub const DICT_SIZE_MIN: u32 = 4096;
/// Largest dictionary the encoder accepts: 1.5 GiB, as xz.
pub const DICT_SIZE_MAX: u32 = (1 << 30) + (1 << 29);

/// How the encoder chooses between literals and matches.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Mode {
    /// Greedy matching with one step of lookahead: fast, a little larger.
    Fast,
    /// Optimal parsing over up to 4 KiB with price tables: slower, smaller.
    Normal,
}

/// The match finder: how earlier occurrences of the upcoming bytes are found.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum MatchFinder {
    /// Hash chain over 3-byte hashes (with a 2-byte table).
    Hc3,
    /// Hash chain over 4-byte hashes (with 2- and 3-byte tables).
    Hc4,
    /// Binary tree over 2-byte hashes.
    Bt2,
    /// Binary tree over 3-byte hashes (with a 2-byte table).
    Bt3,
    /// Binary tree over 4-byte hashes (with 2- and 3-byte tables).
    Bt4,
}

impl MatchFinder {
    /// Bytes hashed by the main table: also the shortest match the chain or
    /// tree itself finds.
    pub fn hash_bytes(self) -> u32 {
        match self {
            MatchFinder::Bt2 => 2,
            MatchFinder::Hc3 | MatchFinder::Bt3 => 3,
            MatchFinder::Hc4 | MatchFinder::Bt4 => 4,
        }
    }

    /// True for the binary-tree finders.
    pub fn is_binary_tree(self) -> bool {
        matches!(self, MatchFinder::Bt2 | MatchFinder::Bt3 | MatchFinder::Bt4)
    }
}

/// Options of the LZMA and LZMA2 encoders; the fields mean what they mean
/// to xz (`--lzma2=dict=..,lc=..,lp=..,pb=..,mode=..,nice=..,mf=..,depth=..`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct LzmaOptions {
    /// Dictionary size in bytes: how far back matches may reach
    /// ([`DICT_SIZE_MIN`]..=[`DICT_SIZE_MAX`]).
    pub dict_size: u32,
    /// Literal context bits (0..=8; LZMA2 needs lc + lp <= 4).
    pub lc: u32,
    /// Literal position bits (0..=4).
    pub lp: u32,
    /// Position bits (0..=4).
    pub pb: u32,
    /// Fast (greedy) or normal (optimal parsing).
    pub mode: Mode,
    /// A match at least this long is taken at once (2..=273).
    pub nice_len: u32,
    /// The match finder.
    pub mf: MatchFinder,
    /// Most candidates the match finder visits per position; 0 picks
    /// automatically (4 + nice_len / 4 for hash chains, 16 + nice_len / 2
    /// for binary trees).
    pub depth: u32,
    /// Run the binary-tree match finder on a thread of its own, so that one
    /// stream encodes on two cores with the same output as on one (7-Zip's
    /// `-mmt=2` for a single LZMA stream). Costs a second copy of the
    /// dictionary (at preset 6, 7 % more peak memory than one thread).
    /// Ignored for hash chains, whose finder is cheap. An encoder
    /// call waits for the finder thread where it would otherwise search
    /// itself, so the work per call stays as bounded as on one thread.
    pub match_finder_thread: bool,
}

impl Default for LzmaOptions {
    /// Preset 6, xz's default.
    fn default() -> Self {
        LzmaOptions::preset(6).expect("preset 6 exists")
    }
}

impl LzmaOptions {
    /// The options of xz's preset `level` (0..=9).
    ///
    /// Dictionaries are 2^{18,20,21,22,22,23,23,24,25,26} bytes (256 KiB to
    /// 64 MiB). Levels 0-3 are fast mode (hc3 for 0, hc4 otherwise) with
    /// nice_len 128 for 0-1 and 273 for 2-3 and depths 4, 8, 24, 48; levels
    /// 4-9 are normal mode with bt4, nice_len 16, 32 and then 64, automatic
    /// depth. lc=3, lp=0, pb=2 throughout.
    pub fn preset(level: u32) -> Result<Self, LzmaError> {
        const DICT_POW2: [u8; 10] = [18, 20, 21, 22, 22, 23, 23, 24, 25, 26];
        const FAST_DEPTH: [u32; 4] = [4, 8, 24, 48];
        if level > 9 {
            return Err(LzmaError::Usage("preset level must be 0..=9"));
        }
        let dict_size = 1u32 << DICT_POW2[level as usize];
        let (mode, mf, nice_len, depth) = if level <= 3 {
            let mf = if level == 0 {
                MatchFinder::Hc3
            } else {
                MatchFinder::Hc4
            };
            let nice = if level <= 1 { 128 } else { 273 };
            (Mode::Fast, mf, nice, FAST_DEPTH[level as usize])
        } else {
            let nice = match level {
                4 => 16,
                5 => 32,
                _ => 64,
            };
            (Mode::Normal, MatchFinder::Bt4, nice, 0)
        };
        Ok(LzmaOptions {
            dict_size,
            lc: 3,
            lp: 0,
            pb: 2,
            mode,
            nice_len,
            mf,
            depth,
            match_finder_thread: false,
        })
    }

    /// The options of xz's extreme preset `level`e (`xz -0e` .. `-9e`):
    /// the dictionary of `level`, normal mode with bt4, and nice_len 192 with
    /// automatic depth for 3e and 5e (so they differ from 4e and 6e, which
    /// share their dictionaries), nice_len 273 with depth 512 otherwise.
    pub fn preset_extreme(level: u32) -> Result<Self, LzmaError> {
        let mut o = LzmaOptions::preset(level)?;
        o.mode = Mode::Normal;
        o.mf = MatchFinder::Bt4;
        if level == 3 || level == 5 {
            o.nice_len = 192;
            o.depth = 0;
        } else {
            o.nice_len = 273;
            o.depth = 512;
        }
        Ok(o)
    }

    /// These options with the dictionary fitted to an input of `size`
    /// bytes, as 7-Zip and xz do: `size` rounded up to 2^n or 3·2^(n-1)
    /// (sizes both LZMA and LZMA2 properties state exactly), at least
    /// [`DICT_SIZE_MIN`], never above `dict_size`. The match finder's
    /// tables follow the dictionary, so a small input gets small tables.
    /// A stream encoded with fitted options is valid whatever its real
    /// size; only matches are limited to the smaller dictionary.
    pub fn fitted_to(mut self, size: u64) -> Self {
        let mut fit = u64::from(DICT_SIZE_MIN);
        while fit < size && fit < u64::from(self.dict_size) {
            // 2^n -> 3·2^(n-1) -> 2^(n+1)
            fit = if fit.is_power_of_two() {
                fit / 2 * 3
            } else {
                fit / 3 * 4
            };
        }
        self.dict_size = self.dict_size.min(fit as u32).max(DICT_SIZE_MIN);
        self
    }

    /// The lc/lp/pb properties.
    pub fn props(&self) -> LzmaProps {
        LzmaProps {
            lc: self.lc,
            lp: self.lp,
            pb: self.pb,
        }
    }

    /// The depth actually used: `depth`, or the automatic choice for 0.
    pub fn effective_depth(&self) -> u32 {
        if self.depth != 0 {
            self.depth
        } else if self.mf.is_binary_tree() {
            16 + self.nice_len / 2
        } else {
            4 + self.nice_len / 4
        }
    }

    /// Checks every field; `lzma2` adds the rule lc + lp <= 4.
    pub fn validate(&self, lzma2: bool) -> Result<(), LzmaError> {
        let props = LzmaProps::new(self.lc, self.lp, self.pb)?;
        if lzma2 {
            props.check_lzma2()?;
        }
        if !(DICT_SIZE_MIN..=DICT_SIZE_MAX).contains(&self.dict_size) {
            return Err(LzmaError::Usage(
                "dict_size must be between 4 KiB and 1.5 GiB",
            ));
        }
        if !(MATCH_LEN_MIN..=MATCH_LEN_MAX).contains(&self.nice_len) {
            return Err(LzmaError::Usage("nice_len must be between 2 and 273"));
        }
        if self.nice_len < self.mf.hash_bytes() {
            return Err(LzmaError::Usage(
                "nice_len must be at least the match finder's hash length",
            ));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn presets_match_xz() {
        let p0 = LzmaOptions::preset(0).unwrap();
        assert_eq!(
            (p0.dict_size, p0.mode, p0.mf, p0.nice_len, p0.depth),
            (256 << 10, Mode::Fast, MatchFinder::Hc3, 128, 4)
        );
        let p6 = LzmaOptions::preset(6).unwrap();
        assert_eq!(
            (p6.dict_size, p6.mode, p6.mf, p6.nice_len, p6.depth),
            (8 << 20, Mode::Normal, MatchFinder::Bt4, 64, 0)
        );
        assert_eq!(p6.effective_depth(), 48);
        let p9e = LzmaOptions::preset_extreme(9).unwrap();
        assert_eq!(
            (p9e.dict_size, p9e.nice_len, p9e.depth),
            (64 << 20, 273, 512)
        );
        let p5e = LzmaOptions::preset_extreme(5).unwrap();
        assert_eq!((p5e.nice_len, p5e.depth), (192, 0));
        assert_eq!(
            LzmaOptions::preset(10),
            Err(LzmaError::Usage("preset level must be 0..=9"))
        );
        assert_eq!(p6.props().to_byte(), 0x5D);
    }

    #[test]
    fn dictionaries_fit_small_inputs() {
        let p5 = LzmaOptions::preset(5).unwrap();
        let fit = |n| p5.fitted_to(n).dict_size;
        assert_eq!(fit(0), 4096);
        assert_eq!(fit(4096), 4096);
        assert_eq!(fit(4097), 6144);
        assert_eq!(fit(6145), 8192);
        assert_eq!(fit(269_000), 384 << 10);
        assert_eq!(fit(300 << 10), 384 << 10);
        assert_eq!(fit(600 << 10), 768 << 10);
        assert_eq!(fit(8 << 20), 8 << 20);
        assert_eq!(fit(u64::MAX), 8 << 20, "never above the preset");
        for n in [1u64, 5000, 100_000, 3 << 20] {
            let d = fit(n);
            assert_eq!(
                crate::lzma2_dict_size(crate::lzma2_props_byte(d)).unwrap(),
                d
            );
            assert!(u64::from(d) >= n.min(8 << 20));
        }
        let mut odd = p5;
        odd.dict_size = 5000;
        assert_eq!(odd.fitted_to(1 << 20).dict_size, 5000);
        assert_eq!(odd.fitted_to(10).dict_size, 4096);
    }

    #[test]
    fn validation_rejects_bad_fields() {
        let mut o = LzmaOptions::preset(1).unwrap();
        o.lc = 4;
        o.lp = 1;
        assert!(o.validate(false).is_ok());
        assert_eq!(
            o.validate(true),
            Err(LzmaError::InvalidLcLpPb {
                lc: 4,
                lp: 1,
                pb: 2
            })
        );
        let mut o = LzmaOptions::preset(1).unwrap();
        o.dict_size = 100;
        assert!(matches!(o.validate(true), Err(LzmaError::Usage(_))));
        o.dict_size = 1 << 20;
        o.nice_len = 3;
        assert!(matches!(o.validate(true), Err(LzmaError::Usage(_))));
    }
}
