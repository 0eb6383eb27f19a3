//! The filter layer's error type.

use std::fmt;

use lzflow_core::{CoderError, Culprit};

use crate::FilterKind;

/// Why a filter could not be set up.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum FilterError {
    /// The properties stored with a filter in the file are malformed.
    InvalidProperties {
        /// The filter the properties belong to.
        kind: FilterKind,
        /// What is wrong with them.
        reason: &'static str,
    },
    /// The BCJ start offset is not a multiple of the filter's alignment.
    UnalignedStartOffset {
        /// The filter.
        kind: FilterKind,
        /// The offset found.
        offset: u32,
        /// The alignment the filter requires.
        alignment: u32,
    },
    /// The file names a filter ID this crate does not implement.
    UnsupportedFilter(u64),
    /// A [`FilterConfig`](crate::FilterConfig) built by the caller is out of
    /// range (e.g. a Delta distance of 0).
    InvalidConfig {
        /// The filter.
        kind: FilterKind,
        /// What is wrong.
        reason: &'static str,
    },
}

impl fmt::Display for FilterError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FilterError::InvalidProperties { kind, reason } => {
                write!(f, "corrupt {} filter properties: {reason}", kind.name())
            }
            FilterError::UnalignedStartOffset {
                kind,
                offset,
                alignment,
            } => write!(
                f,
                "corrupt {} filter properties: start offset {offset} is not a multiple of {alignment}",
                kind.name()
            ),
            FilterError::UnsupportedFilter(id) => {
                write!(f, "unsupported filter ID {id:#x}")
            }
            FilterError::InvalidConfig { kind, reason } => {
                write!(f, "invalid {} filter options: {reason}", kind.name())
            }
        }
    }
}

impl std::error::Error for FilterError {}

impl CoderError for FilterError {
    fn culprit(&self) -> Culprit {
        match self {
            FilterError::InvalidProperties { .. } | FilterError::UnalignedStartOffset { .. } => {
                Culprit::Corrupt
            }
            FilterError::UnsupportedFilter(_) => Culprit::Unsupported,
            FilterError::InvalidConfig { .. } => Culprit::Usage,
        }
    }
}

impl From<FilterError> for std::io::Error {
    fn from(e: FilterError) -> Self {
        lzflow_core::into_io_error(e)
    }
}
