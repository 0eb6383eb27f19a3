//! The member trailer: CRC32 of the data, data size and (version 1) member
//! size, all little endian.

use crate::LzipError;

/// Trailer bytes of a version-0 member (no member size).
const V0_LEN: usize = 12;
/// Trailer bytes of a version-1 member.
pub(crate) const V1_LEN: usize = 20;

/// Trailer length of a member of `version`.
pub(crate) fn len(version: u8) -> usize {
    if version == 0 {
        V0_LEN
    } else {
        V1_LEN
    }
}

/// What was seen of a member, to hold against its trailer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Observed {
    pub crc32: u32,
    pub data_size: u64,
    /// Header, LZMA stream and trailer.
    pub member_size: u64,
    /// Where the member starts in the input (for errors).
    pub member_offset: u64,
}

/// Checks a trailer (`len(version)` bytes) against what was decoded, in
/// the order xz-utils checks it: CRC, data size, member size.
pub(crate) fn check(trailer: &[u8], version: u8, seen: Observed) -> Result<(), LzipError> {
    let crc = u32::from_le_bytes(trailer[0..4].try_into().expect("4 bytes"));
    if crc != seen.crc32 {
        return Err(LzipError::CrcMismatch {
            stored: crc,
            computed: seen.crc32,
            member_offset: seen.member_offset,
        });
    }
    let data_size = u64::from_le_bytes(trailer[4..12].try_into().expect("8 bytes"));
    if data_size != seen.data_size {
        return Err(LzipError::DataSizeMismatch {
            stored: data_size,
            decoded: seen.data_size,
            member_offset: seen.member_offset,
        });
    }
    if version > 0 {
        let member_size = u64::from_le_bytes(trailer[12..20].try_into().expect("8 bytes"));
        if member_size != seen.member_size {
            return Err(LzipError::MemberSizeMismatch {
                stored: member_size,
                actual: seen.member_size,
                member_offset: seen.member_offset,
            });
        }
    }
    Ok(())
}

/// The trailer of a version-1 member.
pub(crate) fn encode(seen: Observed) -> [u8; V1_LEN] {
    let mut t = [0u8; V1_LEN];
    t[0..4].copy_from_slice(&seen.crc32.to_le_bytes());
    t[4..12].copy_from_slice(&seen.data_size.to_le_bytes());
    t[12..20].copy_from_slice(&seen.member_size.to_le_bytes());
    t
}
