//! The zip layer's error type, grouped by culprit.

use std::fmt;
use std::io;

use lzflow_core::extract::ExtractError;
use lzflow_core::extract_thread::CallError;
use lzflow_core::{into_io_error, CoderError, Culprit, LimitExceeded};

/// Everything that can go wrong reading a zip archive.
#[derive(Debug)]
#[non_exhaustive]
pub enum ZipError {
    /// No end of central directory record: not a zip archive.
    NotZip,
    /// The archive is malformed; the text says where.
    Corrupt(String),
    /// The archive ends before the data it describes.
    Truncated,
    /// A compression method lzflow does not implement.
    UnsupportedMethod {
        /// The zip method number.
        method: u16,
        /// Its name when known.
        name: &'static str,
    },
    /// A format feature lzflow does not implement (e.g. multi-disk
    /// archives, strong encryption).
    UnsupportedFeature(&'static str),
    /// The entry is encrypted and no password was given.
    PasswordRequired,
    /// The password given does not decrypt the entry.
    WrongPassword,
    /// An entry's data does not match its stored CRC-32.
    DataCrc {
        /// The entry's name.
        entry: String,
    },
    /// A WinZip AES entry's authentication code does not match: the data
    /// was altered.
    Authentication {
        /// The entry's name.
        entry: String,
    },
    /// A configured limit would be exceeded.
    Limit(LimitExceeded),
    /// A method's decoder rejected its data or properties.
    Method(lzflow_methods::MethodError),
    /// An XZ entry's data (method 95) is invalid.
    Xz(lzflow_xz::XzError),
    /// Extraction could not write an entry; the same error for every
    /// container.
    Extract(ExtractError),
    /// The caller asked for an entry that does not exist.
    NoSuchEntry,
    /// The writer was asked for something the format cannot hold or the
    /// caller's own data contradicts (a duplicate or oversized name, a
    /// comment over 65,535 bytes, data that does not match the size and
    /// CRC-32 given ahead, a writer used after it failed or finished).
    Usage(String),
    /// Reading failed.
    Io(io::Error),
}

impl ZipError {
    pub(crate) fn corrupt(what: impl Into<String>) -> Self {
        ZipError::Corrupt(what.into())
    }
}

impl fmt::Display for ZipError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ZipError::NotZip => f.write_str("not a zip archive (no end of central directory)"),
            ZipError::Corrupt(what) => write!(f, "corrupt zip archive: {what}"),
            ZipError::Truncated => f.write_str("zip archive is truncated"),
            ZipError::UnsupportedMethod { method, name: "" } => {
                write!(f, "unsupported zip compression method {method}")
            }
            ZipError::UnsupportedMethod { method, name } => {
                write!(f, "unsupported zip compression method {method} ({name})")
            }
            ZipError::UnsupportedFeature(what) => write!(f, "unsupported zip feature: {what}"),
            ZipError::PasswordRequired => {
                f.write_str("the zip entry is encrypted: a password is required")
            }
            ZipError::WrongPassword => f.write_str("wrong password for the zip entry"),
            ZipError::DataCrc { entry } => {
                write!(f, "CRC mismatch in {entry}: the data is corrupt")
            }
            ZipError::Authentication { entry } => write!(
                f,
                "authentication code mismatch in {entry}: the data was altered"
            ),
            // Transparent: these say it all.
            ZipError::Limit(e) => e.fmt(f),
            ZipError::Extract(e) => e.fmt(f),
            ZipError::Method(_) => f.write_str("zip entry data is corrupt"),
            ZipError::Xz(_) => f.write_str("zip entry's XZ data is invalid"),
            ZipError::NoSuchEntry => f.write_str("no such entry in the zip archive"),
            ZipError::Usage(what) => write!(f, "zip writer: {what}"),
            ZipError::Io(_) => f.write_str("I/O error on the zip archive"),
        }
    }
}

impl std::error::Error for ZipError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            ZipError::Method(e) => Some(e),
            ZipError::Xz(e) => Some(e),
            ZipError::Io(e) => Some(e),
            _ => None,
        }
    }
}

impl CoderError for ZipError {
    fn culprit(&self) -> Culprit {
        match self {
            ZipError::NotZip
            | ZipError::Corrupt(_)
            | ZipError::DataCrc { .. }
            | ZipError::Authentication { .. } => Culprit::Corrupt,
            ZipError::Truncated => Culprit::Truncated,
            ZipError::UnsupportedMethod { .. } | ZipError::UnsupportedFeature(_) => {
                Culprit::Unsupported
            }
            ZipError::PasswordRequired | ZipError::WrongPassword => Culprit::Password,
            ZipError::Limit(_) => Culprit::Limit,
            ZipError::Method(e) => e.culprit(),
            ZipError::Xz(e) => e.culprit(),
            ZipError::Extract(e) => e.culprit(),
            ZipError::NoSuchEntry | ZipError::Usage(_) => Culprit::Usage,
            ZipError::Io(_) => Culprit::Io,
        }
    }
}

impl From<LimitExceeded> for ZipError {
    fn from(e: LimitExceeded) -> Self {
        ZipError::Limit(e)
    }
}

impl From<lzflow_methods::MethodError> for ZipError {
    fn from(e: lzflow_methods::MethodError) -> Self {
        match e {
            lzflow_methods::MethodError::Limit(l) => ZipError::Limit(l),
            e => ZipError::Method(e),
        }
    }
}

impl From<lzflow_xz::XzError> for ZipError {
    fn from(e: lzflow_xz::XzError) -> Self {
        match e {
            lzflow_xz::XzError::Limit(l) => ZipError::Limit(l),
            e => ZipError::Xz(e),
        }
    }
}

impl From<ExtractError> for ZipError {
    fn from(e: ExtractError) -> Self {
        ZipError::Extract(e)
    }
}

impl From<CallError> for ZipError {
    /// An extraction step's error: the entry's data (read or written) or
    /// the extractor's.
    fn from(e: CallError) -> Self {
        e.into_error()
    }
}

impl From<io::Error> for ZipError {
    /// Recovers a `ZipError` that travelled through `io::Error` (from an
    /// entry reader); wraps any other I/O error.
    fn from(e: io::Error) -> Self {
        let kind = e.kind();
        if !e.get_ref().is_some_and(|inner| inner.is::<ZipError>()) {
            return if kind == io::ErrorKind::UnexpectedEof {
                ZipError::Truncated
            } else {
                ZipError::Io(e)
            };
        }
        match e.into_inner().map(|b| b.downcast::<ZipError>()) {
            Some(Ok(inner)) => *inner,
            Some(Err(other)) => ZipError::Io(io::Error::new(kind, other)),
            None => ZipError::Io(io::Error::from(kind)),
        }
    }
}

impl From<ZipError> for io::Error {
    fn from(e: ZipError) -> Self {
        match e {
            ZipError::Io(inner) => inner,
            other => into_io_error(other),
        }
    }
}
