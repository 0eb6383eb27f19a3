//! The registry layer's error type.

use std::fmt;

use lzflow_core::{CoderError, Culprit, LimitExceeded};
use lzflow_filters::FilterError;
use lzflow_lzma::LzmaError;

use crate::Method;

/// What can go wrong looking up a method, parsing its properties or
/// decoding with it.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub enum MethodError {
    /// A method lzflow does not implement (or not in this role).
    Unsupported {
        /// The method: its ID and name when known, e.g. `030401 (PPMd)`.
        method: String,
    },
    /// A method lzflow implements, but whose codec this build leaves out:
    /// lzflow-methods was built without the feature that carries it.
    Disabled {
        /// The method's name, e.g. `BZip2`.
        method: &'static str,
        /// The lzflow-methods feature that builds its codec, e.g. `bzip2`.
        feature: &'static str,
    },
    /// A method's properties are malformed.
    Properties {
        /// The method's name.
        method: &'static str,
        /// What is wrong.
        reason: &'static str,
    },
    /// The data of a method that has no error type of its own (Deflate,
    /// Deflate64, BZip2, Zstandard) is corrupt.
    Data {
        /// The method's name.
        method: &'static str,
        /// What is wrong.
        reason: String,
    },
    /// The data of a method that has no error type of its own ends before
    /// its stream does.
    Truncated {
        /// The method's name.
        method: &'static str,
    },
    /// LZMA or LZMA2 data or properties.
    Lzma(LzmaError),
    /// A BCJ or Delta filter.
    Filter(FilterError),
    /// PPMd data or properties.
    #[cfg(feature = "ppmd")]
    Ppmd(lzflow_ppmd::PpmdError),
    /// A coder chain would use more memory than allowed.
    Limit(LimitExceeded),
}

impl fmt::Display for MethodError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            MethodError::Unsupported { method } => {
                write!(f, "compression method {method} is not supported")
            }
            MethodError::Disabled { method, feature } => write!(
                f,
                "compression method {method} is not built in: lzflow-methods' `{feature}` feature is off"
            ),
            MethodError::Properties { method, reason } => {
                write!(f, "{method} properties: {reason}")
            }
            MethodError::Data { method, reason } => write!(f, "{method} data: {reason}"),
            MethodError::Truncated { method } => write!(f, "{method} data ends early"),
            MethodError::Lzma(_) => f.write_str("LZMA data or properties are invalid"),
            MethodError::Filter(_) => f.write_str("a filter rejected its data or properties"),
            #[cfg(feature = "ppmd")]
            MethodError::Ppmd(_) => f.write_str("PPMd data or properties are invalid"),
            MethodError::Limit(_) => f.write_str("the coder chain exceeds a limit"),
        }
    }
}

impl std::error::Error for MethodError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            MethodError::Lzma(e) => Some(e),
            MethodError::Filter(e) => Some(e),
            #[cfg(feature = "ppmd")]
            MethodError::Ppmd(e) => Some(e),
            MethodError::Limit(e) => Some(e),
            _ => None,
        }
    }
}

impl CoderError for MethodError {
    fn culprit(&self) -> Culprit {
        match self {
            MethodError::Unsupported { .. } | MethodError::Disabled { .. } => Culprit::Unsupported,
            MethodError::Properties { .. } | MethodError::Data { .. } => Culprit::Corrupt,
            MethodError::Truncated { .. } => Culprit::Truncated,
            MethodError::Lzma(e) => e.culprit(),
            MethodError::Filter(e) => e.culprit(),
            #[cfg(feature = "ppmd")]
            MethodError::Ppmd(e) => e.culprit(),
            MethodError::Limit(_) => Culprit::Limit,
        }
    }
}

impl MethodError {
    /// The [`MethodError::Disabled`] error for `method` when this build
    /// leaves its codec out; `None` when it is built in, or is not one of
    /// the optional codecs.
    pub(crate) fn disabled(method: Method) -> Option<MethodError> {
        let (feature, on) = match method {
            Method::Deflate => ("deflate", cfg!(feature = "deflate")),
            Method::Deflate64 => ("deflate64", cfg!(feature = "deflate64")),
            Method::BZip2 => ("bzip2", cfg!(feature = "bzip2")),
            Method::Zstd => ("zstd", cfg!(feature = "zstd")),
            Method::Ppmd => ("ppmd", cfg!(feature = "ppmd")),
            _ => return None,
        };
        (!on).then(|| MethodError::Disabled {
            method: method.name(),
            feature,
        })
    }
}

impl From<LzmaError> for MethodError {
    fn from(e: LzmaError) -> Self {
        MethodError::Lzma(e)
    }
}

impl From<FilterError> for MethodError {
    fn from(e: FilterError) -> Self {
        MethodError::Filter(e)
    }
}

#[cfg(feature = "ppmd")]
impl From<lzflow_ppmd::PpmdError> for MethodError {
    fn from(e: lzflow_ppmd::PpmdError) -> Self {
        MethodError::Ppmd(e)
    }
}

impl From<LimitExceeded> for MethodError {
    fn from(e: LimitExceeded) -> Self {
        MethodError::Limit(e)
    }
}

impl From<MethodError> for std::io::Error {
    fn from(e: MethodError) -> Self {
        lzflow_core::into_io_error(e)
    }
}
