//! The lzip layer's error type.

use std::fmt;
use std::io;

use lzflow_core::{into_io_error, CoderError, Culprit};
use lzflow_lzma::LzmaError;

/// Everything that can go wrong reading or writing an lzip file.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum LzipError {
    /// The input does not start with the "LZIP" ID string.
    NotLzip,
    /// A member of a version newer than 1.
    UnsupportedVersion(u8),
    /// The coded dictionary size is outside 4 KiB..=512 MiB.
    InvalidDictSize(u8),
    /// The CRC32 of the decoded data differs from the trailer's.
    CrcMismatch {
        /// CRC32 in the trailer.
        stored: u32,
        /// CRC32 of the decoded data.
        computed: u32,
        /// Input offset of the member (its ID string).
        member_offset: u64,
    },
    /// The decoded size differs from the trailer's data size.
    DataSizeMismatch {
        /// Data size in the trailer.
        stored: u64,
        /// Bytes decoded.
        decoded: u64,
        /// Input offset of the member (its ID string).
        member_offset: u64,
    },
    /// The member's length differs from the trailer's member size.
    MemberSizeMismatch {
        /// Member size in the trailer.
        stored: u64,
        /// The member's real length.
        actual: u64,
        /// Input offset of the member (its ID string).
        member_offset: u64,
    },
    /// The input ended inside a member.
    Truncated,
    /// Listing from the end found no member ending at this offset: the
    /// file is damaged there (decoding it tells where).
    NoMemberEndsAt(u64),
    /// The LZMA data of a member is corrupt (culprit from the LZMA layer).
    MemberData {
        /// Input offset of the member (its ID string).
        member_offset: u64,
        /// What the LZMA layer found.
        source: LzmaError,
    },
    /// The LZMA layer refused otherwise: a limit was hit, or bad options.
    Lzma(LzmaError),
}

impl fmt::Display for LzipError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LzipError::NotLzip => f.write_str("not an lzip file (no LZIP ID string)"),
            LzipError::UnsupportedVersion(v) => {
                write!(f, "unsupported lzip member version {v} (0 and 1 are known)")
            }
            LzipError::InvalidDictSize(b) => write!(
                f,
                "invalid lzip dictionary size byte {b:#04x} (must code 4 KiB to 512 MiB)"
            ),
            LzipError::CrcMismatch {
                stored,
                computed,
                member_offset,
            } => write!(
                f,
                "lzip CRC32 mismatch in the member at input offset {member_offset}: the trailer says {stored:08x}, the data has {computed:08x}"
            ),
            LzipError::DataSizeMismatch {
                stored,
                decoded,
                member_offset,
            } => write!(
                f,
                "lzip data size mismatch in the member at input offset {member_offset}: the trailer says {stored} bytes, {decoded} were decoded"
            ),
            LzipError::MemberSizeMismatch {
                stored,
                actual,
                member_offset,
            } => write!(
                f,
                "lzip member size mismatch in the member at input offset {member_offset}: the trailer says {stored} bytes, the member has {actual}"
            ),
            // Each layer names its own part; the source says what is wrong.
            LzipError::MemberData { member_offset, .. } => {
                write!(f, "lzip member data (the member at input offset {member_offset})")
            }
            LzipError::Truncated => f.write_str("lzip file is truncated"),
            LzipError::NoMemberEndsAt(end) => write!(
                f,
                "no lzip member ends at byte {end}: the file is damaged"
            ),
            // Transparent: the LZMA layer says what is wrong.
            LzipError::Lzma(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for LzipError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            LzipError::Lzma(e) => e.source(),
            LzipError::MemberData { source, .. } => Some(source),
            _ => None,
        }
    }
}

impl CoderError for LzipError {
    fn culprit(&self) -> Culprit {
        match self {
            LzipError::NotLzip
            | LzipError::InvalidDictSize(_)
            | LzipError::CrcMismatch { .. }
            | LzipError::DataSizeMismatch { .. }
            | LzipError::MemberSizeMismatch { .. }
            | LzipError::NoMemberEndsAt(_) => Culprit::Corrupt,
            LzipError::UnsupportedVersion(_) => Culprit::Unsupported,
            LzipError::Truncated => Culprit::Truncated,
            LzipError::Lzma(e) | LzipError::MemberData { source: e, .. } => e.culprit(),
        }
    }
}

impl From<LzmaError> for LzipError {
    fn from(e: LzmaError) -> Self {
        match e {
            LzmaError::Truncated => LzipError::Truncated,
            other => LzipError::Lzma(other),
        }
    }
}

impl From<LzipError> for io::Error {
    fn from(e: LzipError) -> Self {
        into_io_error(e)
    }
}
