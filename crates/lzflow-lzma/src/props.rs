//! LZMA properties (lc, lp, pb) and the LZMA2 dictionary-size byte.

use crate::LzmaError;

/// The literal context bits, literal position bits and position bits of an
/// LZMA stream.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct LzmaProps {
    /// Literal context bits (0..=8): how many high bits of the previous byte
    /// select the literal coder.
    pub lc: u32,
    /// Literal position bits (0..=4).
    pub lp: u32,
    /// Position bits (0..=4).
    pub pb: u32,
}

impl Default for LzmaProps {
    /// lc=3, lp=0, pb=2: what every encoder uses by default.
    fn default() -> Self {
        LzmaProps {
            lc: 3,
            lp: 0,
            pb: 2,
        }
    }
}

impl LzmaProps {
    /// Checks the ranges lc <= 8, lp <= 4, pb <= 4.
    pub fn new(lc: u32, lp: u32, pb: u32) -> Result<Self, LzmaError> {
        if lc > 8 || lp > 4 || pb > 4 {
            return Err(LzmaError::InvalidLcLpPb { lc, lp, pb });
        }
        Ok(LzmaProps { lc, lp, pb })
    }

    /// Decodes the properties byte `(pb * 5 + lp) * 9 + lc`.
    pub fn from_byte(b: u8) -> Result<Self, LzmaError> {
        if b >= 9 * 5 * 5 {
            return Err(LzmaError::InvalidProps(b));
        }
        let b = u32::from(b);
        Ok(LzmaProps {
            lc: b % 9,
            lp: (b / 9) % 5,
            pb: b / 45,
        })
    }

    /// Encodes the properties byte `(pb * 5 + lp) * 9 + lc`.
    pub fn to_byte(self) -> u8 {
        ((self.pb * 5 + self.lp) * 9 + self.lc) as u8
    }

    /// Checks the extra LZMA2 rule lc + lp <= 4.
    pub fn check_lzma2(self) -> Result<Self, LzmaError> {
        if self.lc + self.lp > 4 {
            return Err(LzmaError::InvalidLcLpPb {
                lc: self.lc,
                lp: self.lp,
                pb: self.pb,
            });
        }
        Ok(self)
    }
}

/// The dictionary size an LZMA2 dictionary byte (XZ filter properties, 7z
/// coder properties) stands for: `(2 | (b & 1)) << (b / 2 + 11)`, with 40
/// meaning `u32::MAX`.
pub fn lzma2_dict_size(props_byte: u8) -> Result<u32, LzmaError> {
    match props_byte {
        0..=39 => Ok((2 | u32::from(props_byte & 1)) << (props_byte / 2 + 11)),
        40 => Ok(u32::MAX),
        b => Err(LzmaError::InvalidDictByte(b)),
    }
}

/// The smallest LZMA2 dictionary byte whose size is at least `dict_size`.
pub fn lzma2_props_byte(dict_size: u32) -> u8 {
    (0..40u8)
        .find(|&b| lzma2_dict_size(b).is_ok_and(|s| s >= dict_size))
        .unwrap_or(40)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn props_byte_round_trips() {
        for b in 0..225u8 {
            let p = LzmaProps::from_byte(b).unwrap();
            assert_eq!(p.to_byte(), b);
            assert_eq!(LzmaProps::new(p.lc, p.lp, p.pb), Ok(p));
        }
        assert_eq!(
            LzmaProps::from_byte(0x5D),
            Ok(LzmaProps {
                lc: 3,
                lp: 0,
                pb: 2
            })
        );
        assert_eq!(LzmaProps::from_byte(225), Err(LzmaError::InvalidProps(225)));
        assert!(LzmaProps::new(9, 0, 0).is_err());
        assert!(LzmaProps::new(3, 2, 0).unwrap().check_lzma2().is_err());
    }

    #[test]
    fn lzma2_dict_bytes() {
        assert_eq!(lzma2_dict_size(0), Ok(4096));
        assert_eq!(lzma2_dict_size(1), Ok(6144));
        assert_eq!(lzma2_dict_size(0x10), Ok(1 << 20));
        assert_eq!(lzma2_dict_size(0x14), Ok(4 << 20));
        assert_eq!(lzma2_dict_size(39), Ok(3 << 30));
        assert_eq!(lzma2_dict_size(40), Ok(u32::MAX));
        assert_eq!(lzma2_dict_size(41), Err(LzmaError::InvalidDictByte(41)));
        assert_eq!(lzma2_props_byte(0), 0);
        assert_eq!(lzma2_props_byte(4096), 0);
        assert_eq!(lzma2_props_byte(4097), 1);
        assert_eq!(lzma2_props_byte(1 << 20), 0x10);
        assert_eq!(lzma2_props_byte((1 << 20) + 1), 0x11);
        assert_eq!(lzma2_props_byte(u32::MAX), 40);
        assert_eq!(lzma2_props_byte((3 << 30) + 1), 40);
    }
}
