//! The error type of the LZMA layer (LZMA1, LZMA2, .lzma).

use std::fmt;
use std::io;

use lzflow_core::{into_io_error, CoderError, Culprit, LimitExceeded};

/// Everything that can go wrong while decoding (or encoding) LZMA data.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum LzmaError {
    /// The lc/lp/pb properties byte is 225 or more.
    InvalidProps(u8),
    /// lc, lp or pb is out of range (lc <= 8, lp <= 4, pb <= 4; LZMA2 also
    /// needs lc + lp <= 4).
    InvalidLcLpPb {
        /// Literal context bits.
        lc: u32,
        /// Literal position bits.
        lp: u32,
        /// Position bits.
        pb: u32,
    },
    /// The LZMA2 dictionary-size byte is above 40.
    InvalidDictByte(u8),
    /// An LZMA2 control byte in 0x03..=0x7F.
    InvalidControlByte(u8),
    /// The first LZMA2 chunk does not reset the dictionary.
    MissingDictReset,
    /// An LZMA chunk that needs properties came before any were set.
    MissingProps,
    /// An LZMA chunk continued the state after an uncompressed chunk without
    /// resetting it. The decoder does not produce this today: like xz it
    /// requires new properties after a dictionary reset and reports
    /// [`LzmaError::MissingProps`].
    MissingStateReset,
    /// The range coder's first byte is not zero.
    BadRangeCoderInit,
    /// A match refers further back than the data decoded so far or than the
    /// dictionary.
    DistanceTooFar {
        /// The match distance (1-based).
        distance: u64,
        /// Bytes of history available.
        available: u64,
    },
    /// An LZMA2 chunk's data did not end exactly at its compressed size, or
    /// the range coder did not finish cleanly.
    ChunkSizeMismatch,
    /// The data decoded to more or fewer bytes than the header declared.
    SizeMismatch {
        /// Declared uncompressed size.
        expected: u64,
    },
    /// An end-of-payload marker where none is allowed.
    UnexpectedEndMarker,
    /// The range coder did not end with code 0, or other corrupt data.
    Corrupt,
    /// The input ended before the stream did.
    Truncated,
    /// A memory or output limit would be exceeded.
    Limit(LimitExceeded),
    /// The caller used the API wrongly (e.g. bad options).
    Usage(&'static str),
}

impl fmt::Display for LzmaError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LzmaError::InvalidProps(b) => {
                write!(f, "invalid LZMA properties byte {b:#04x} (must be below 225)")
            }
            LzmaError::InvalidLcLpPb { lc, lp, pb } => write!(
                f,
                "invalid LZMA properties lc={lc} lp={lp} pb={pb} (lc <= 8, lp <= 4, pb <= 4, and lc + lp <= 4 for LZMA2)"
            ),
            LzmaError::InvalidDictByte(b) => {
                write!(f, "invalid LZMA2 dictionary size byte {b} (must be at most 40)")
            }
            LzmaError::InvalidControlByte(b) => {
                write!(f, "LZMA2 data is corrupt: invalid control byte {b:#04x}")
            }
            LzmaError::MissingDictReset => {
                write!(f, "LZMA2 data is corrupt: the first chunk does not reset the dictionary")
            }
            LzmaError::MissingProps => {
                write!(f, "LZMA2 data is corrupt: LZMA chunk before any properties were set")
            }
            LzmaError::MissingStateReset => write!(
                f,
                "LZMA2 data is corrupt: LZMA chunk after an uncompressed chunk does not reset the state"
            ),
            LzmaError::BadRangeCoderInit => {
                write!(f, "LZMA data is corrupt: range coder does not start with a zero byte")
            }
            LzmaError::DistanceTooFar { distance, available } => write!(
                f,
                "LZMA data is corrupt: match distance {distance} exceeds the {available} bytes of history"
            ),
            LzmaError::ChunkSizeMismatch => write!(
                f,
                "LZMA2 data is corrupt: chunk data does not match its compressed size"
            ),
            LzmaError::SizeMismatch { expected } => write!(
                f,
                "LZMA data is corrupt: it does not decode to the declared {expected} bytes"
            ),
            LzmaError::UnexpectedEndMarker => {
                write!(f, "LZMA data is corrupt: unexpected end-of-payload marker")
            }
            LzmaError::Corrupt => write!(f, "LZMA data is corrupt"),
            LzmaError::Truncated => write!(f, "LZMA data is truncated: input ended before the stream"),
            LzmaError::Limit(e) => e.fmt(f),
            LzmaError::Usage(msg) => write!(f, "invalid LZMA usage: {msg}"),
        }
    }
}

impl std::error::Error for LzmaError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            // Transparent, as its Display.
            LzmaError::Limit(e) => e.source(),
            _ => None,
        }
    }
}

impl CoderError for LzmaError {
    fn culprit(&self) -> Culprit {
        match self {
            LzmaError::Truncated => Culprit::Truncated,
            LzmaError::Limit(_) => Culprit::Limit,
            LzmaError::Usage(_) => Culprit::Usage,
            _ => Culprit::Corrupt,
        }
    }
}

impl From<LimitExceeded> for LzmaError {
    fn from(e: LimitExceeded) -> Self {
        LzmaError::Limit(e)
    }
}

impl From<LzmaError> for io::Error {
    fn from(e: LzmaError) -> Self {
        into_io_error(e)
    }
}
