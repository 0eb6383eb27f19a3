//! The member header: ID string, version number (VN) and coded dictionary
//! size (DS).

use crate::LzipError;

/// The ID string every member starts with, "LZIP".
pub const MAGIC: [u8; 4] = *b"LZIP";

/// Bytes in a member header.
pub(crate) const HEADER_LEN: usize = 6;

/// The newest member version this crate reads and writes (version 0 lacks
/// the member size in its trailer).
pub(crate) const VERSION: u8 = 1;

/// Smallest dictionary the format allows, 4 KiB (2^12).
const MIN_LOG: u32 = 12;
/// Largest dictionary the format allows, 512 MiB (2^29).
const MAX_LOG: u32 = 29;

/// The dictionary size coded in a DS byte: bits 4-0 are the base-2
/// logarithm of a base size (12..=29), bits 7-5 how many sixteenths of it
/// to subtract. Sizes below 4 KiB (2^12 less anything) are invalid.
pub fn dict_size_from_byte(ds: u8) -> Result<u32, LzipError> {
    let log = u32::from(ds & 0x1F);
    let sixteenths = u32::from(ds >> 5);
    if !(MIN_LOG..=MAX_LOG).contains(&log) || (log == MIN_LOG && sixteenths > 0) {
        return Err(LzipError::InvalidDictSize(ds));
    }
    Ok((1 << log) - (sixteenths << (log - 4)))
}

/// The DS byte of the smallest codable dictionary at least `size` bytes
/// (at least 4 KiB, at most 512 MiB), and that dictionary's size: what
/// lzip stores for a requested dictionary size.
pub fn dict_size_to_byte(size: u32) -> (u8, u32) {
    let size = size.clamp(1 << MIN_LOG, 1 << MAX_LOG);
    // The smallest power of two at least `size`, then as many sixteenths
    // off as still leave room for `size`.
    let log = size.next_power_of_two().trailing_zeros();
    let mut ds = log as u8;
    let mut coded = 1u32 << log;
    if log > MIN_LOG {
        let step = 1u32 << (log - 4);
        let sixteenths = ((coded - size) / step).min(7);
        ds |= (sixteenths as u8) << 5;
        coded -= sixteenths * step;
    }
    (ds, coded)
}

/// What a member header says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct MemberHeader {
    pub version: u8,
    pub dict_size: u32,
}

impl MemberHeader {
    /// Checks the version byte: 0 and 1 are known.
    pub fn check_version(version: u8) -> Result<(), LzipError> {
        if version > VERSION {
            return Err(LzipError::UnsupportedVersion(version));
        }
        Ok(())
    }

    /// Checks the version and dictionary bytes that follow the ID string.
    pub fn parse(version: u8, ds: u8) -> Result<Self, LzipError> {
        Self::check_version(version)?;
        Ok(MemberHeader {
            version,
            dict_size: dict_size_from_byte(ds)?,
        })
    }

    /// The header of a version-1 member with dictionary byte `ds`.
    pub fn encode(ds: u8) -> [u8; HEADER_LEN] {
        [MAGIC[0], MAGIC[1], MAGIC[2], MAGIC[3], VERSION, ds]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn coded_dictionary_sizes() {
        // The manual's example: 0xD3 = 2^19 - 6 * 2^15 = 320 KiB.
        assert_eq!(dict_size_from_byte(0xD3).unwrap(), 320 << 10);
        assert_eq!(dict_size_from_byte(12).unwrap(), 4096);
        assert_eq!(dict_size_from_byte(29).unwrap(), 512 << 20);
        for bad in [11u8, 30, 31, 0x20 | 12, 0] {
            assert!(
                matches!(dict_size_from_byte(bad), Err(LzipError::InvalidDictSize(b)) if b == bad),
                "{bad:#x}"
            );
        }
        // Every valid byte round-trips, and to_byte picks the smallest
        // codable size that holds the request.
        for ds in 0..=255u8 {
            let Ok(size) = dict_size_from_byte(ds) else {
                continue;
            };
            assert_eq!(dict_size_to_byte(size), (ds, size), "{ds:#x}");
            if size < 512 << 20 {
                let (_, up) = dict_size_to_byte(size + 1);
                assert!(up > size, "{ds:#x}");
            }
        }
        assert_eq!(dict_size_to_byte(1), (12, 4096));
        assert_eq!(dict_size_to_byte(u32::MAX), (29, 512 << 20));
        assert_eq!(dict_size_to_byte(3 << 20), (0x80 | 22, 3 << 20));
    }
}
