//! The PPMd layer's error type.

use std::fmt;
use std::io;

use lzflow_core::{into_io_error, CoderError, Culprit, LimitExceeded};

/// Everything that can go wrong decoding or encoding PPMd data.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum PpmdError {
    // The caller's (or the container's) part.
    /// The coder properties are unusable: the reason says which part.
    InvalidProperties(String),
    /// The model's memory would pass the configured memory limit.
    Limit(LimitExceeded),
    /// The caller used the API wrongly (e.g. `encode` after `finish`).
    Usage(&'static str),

    // The data's part.
    /// The compressed data is corrupt; the text says what was found.
    Corrupt(&'static str),
    /// The input ended before the stream did.
    Truncated,
}

impl fmt::Display for PpmdError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PpmdError::InvalidProperties(why) => write!(f, "invalid PPMd properties: {why}"),
            // Transparent: the limit names itself and both sizes.
            PpmdError::Limit(e) => e.fmt(f),
            PpmdError::Usage(msg) => write!(f, "invalid PPMd usage: {msg}"),
            PpmdError::Corrupt(what) => write!(f, "PPMd data is corrupt: {what}"),
            PpmdError::Truncated => {
                f.write_str("PPMd data is truncated: input ended before the stream")
            }
        }
    }
}

impl std::error::Error for PpmdError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            // Transparent, as its Display.
            PpmdError::Limit(e) => e.source(),
            _ => None,
        }
    }
}

impl CoderError for PpmdError {
    fn culprit(&self) -> Culprit {
        match self {
            PpmdError::InvalidProperties(_) | PpmdError::Corrupt(_) => Culprit::Corrupt,
            PpmdError::Limit(_) => Culprit::Limit,
            PpmdError::Usage(_) => Culprit::Usage,
            PpmdError::Truncated => Culprit::Truncated,
        }
    }
}

impl From<LimitExceeded> for PpmdError {
    fn from(e: LimitExceeded) -> Self {
        PpmdError::Limit(e)
    }
}

impl From<PpmdError> for io::Error {
    fn from(e: PpmdError) -> Self {
        into_io_error(e)
    }
}
