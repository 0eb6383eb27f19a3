//! The 7z layer's error type.

use std::fmt;
use std::io;

use lzflow_core::extract::ExtractError;
use lzflow_core::extract_thread::CallError;
use lzflow_core::{into_io_error, CoderError, Culprit, LimitExceeded};

/// Everything that can go wrong reading a 7z archive.
#[derive(Debug)]
#[non_exhaustive]
pub enum SevenZError {
    /// The file does not start with the 7z signature.
    NotSevenZ,
    /// The archive's format version is newer than this reader knows.
    UnsupportedVersion {
        /// Major version byte.
        major: u8,
        /// Minor version byte.
        minor: u8,
    },
    /// The start header or the header has a CRC mismatch.
    HeaderCrc,
    /// The archive is malformed; the text says where.
    Corrupt(String),
    /// The archive ends before the data it describes.
    Truncated,
    /// A coder (compression method) lzflow does not implement.
    Unsupported {
        /// The method ID in hex and its name when known, e.g. `030401 (PPMd)`.
        method: String,
    },
    /// A format feature lzflow does not implement (e.g. external headers).
    UnsupportedFeature(&'static str),
    /// The data or header is encrypted and no password was given.
    PasswordRequired,
    /// The password given does not decrypt the data.
    WrongPassword,
    /// A configured limit would be exceeded.
    Limit(LimitExceeded),
    /// An entry's data does not match its stored CRC.
    DataCrc {
        /// The entry's path (or `folder N` for data outside entries).
        entry: String,
    },
    /// The LZMA or LZMA2 data is corrupt.
    Lzma(lzflow_lzma::LzmaError),
    /// A filter (BCJ, Delta) rejected its data or properties.
    Filter(lzflow_filters::FilterError),
    /// Extraction could not write an entry (a path that would escape the
    /// target, an existing file, a clash); the same error for every
    /// container.
    Extract(ExtractError),
    /// The caller asked for an entry index that does not exist.
    NoSuchEntry(usize),
    /// Reading or writing failed.
    Io(io::Error),
    /// The writer's options are inconsistent; the text says which.
    InvalidWriterOptions(&'static str),
    /// The writer cannot go on (an earlier error left an entry half
    /// written, or the archive is already finished).
    WriterUnusable(&'static str),
    /// An entry name the writer refuses (empty, or holding a NUL).
    InvalidEntryName(String),
    /// A coder's data does not end at its declared size: it stops short,
    /// goes on past it, or leaves packed bytes after its end (7-Zip's
    /// "Data Error" and "There are some data after the end of the payload
    /// data").
    DataSize {
        /// Where: `folder N`, or the archive header.
        folder: String,
        /// What is wrong.
        what: &'static str,
    },
}

impl SevenZError {
    pub(crate) fn corrupt(what: impl Into<String>) -> Self {
        SevenZError::Corrupt(what.into())
    }

    /// The one wrong-password rule, for every reader of decrypted bytes
    /// (entry data, packed streams, an encrypted header): when `decrypted`,
    /// any error that says the bytes make no sense (corrupt or cut-short
    /// coder data, a CRC or size mismatch, a header that parses as
    /// nonsense or as an unknown feature) means the key was wrong, so it
    /// becomes [`WrongPassword`](SevenZError::WrongPassword). The source
    /// ending early and I/O errors are about the source and stay.
    pub(crate) fn after_decryption(self, decrypted: bool) -> Self {
        let garbage = matches!(
            self.culprit(),
            Culprit::Corrupt | Culprit::Truncated | Culprit::Unsupported
        ) && !matches!(self, SevenZError::Truncated | SevenZError::Io(_));
        if decrypted && garbage {
            SevenZError::WrongPassword
        } else {
            self
        }
    }
}

impl fmt::Display for SevenZError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SevenZError::NotSevenZ => f.write_str("not a 7z archive (bad signature)"),
            SevenZError::UnsupportedVersion { major, minor } => {
                write!(f, "unsupported 7z format version {major}.{minor}")
            }
            SevenZError::HeaderCrc => f.write_str("7z header CRC mismatch: the archive is corrupt"),
            SevenZError::Corrupt(what) => write!(f, "corrupt 7z archive: {what}"),
            SevenZError::Truncated => f.write_str("7z archive is truncated"),
            SevenZError::Unsupported { method } => {
                write!(f, "unsupported 7z compression method {method}")
            }
            SevenZError::UnsupportedFeature(what) => write!(f, "unsupported 7z feature: {what}"),
            SevenZError::PasswordRequired => {
                f.write_str("the 7z archive is encrypted: a password is required")
            }
            SevenZError::WrongPassword => f.write_str("wrong password for the 7z archive"),
            // Transparent: the limit says it all.
            SevenZError::Limit(e) => e.fmt(f),
            SevenZError::DataCrc { entry } => {
                write!(f, "CRC mismatch in {entry}: the data is corrupt")
            }
            // The source says what is wrong; each layer names its own part.
            SevenZError::Lzma(_) => f.write_str("7z LZMA data"),
            SevenZError::Filter(_) => f.write_str("7z filter"),
            // Transparent: the extraction error says it all.
            SevenZError::Extract(e) => e.fmt(f),
            SevenZError::NoSuchEntry(i) => write!(f, "no entry with index {i} in the 7z archive"),
            SevenZError::Io(_) => f.write_str("I/O error on the 7z archive"),
            SevenZError::InvalidWriterOptions(what) => {
                write!(f, "invalid 7z writer options: {what}")
            }
            SevenZError::WriterUnusable(why) => write!(f, "the 7z writer cannot continue: {why}"),
            SevenZError::InvalidEntryName(name) => write!(
                f,
                "invalid entry name {name:?}: names must be non-empty and hold no NUL"
            ),
            SevenZError::DataSize { folder, what } => {
                write!(f, "{folder}: {what}: the data is corrupt")
            }
        }
    }
}

impl std::error::Error for SevenZError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            SevenZError::Limit(e) => e.source(),
            SevenZError::Lzma(e) => Some(e),
            SevenZError::Filter(e) => Some(e),
            SevenZError::Io(e) => Some(e),
            SevenZError::Extract(e) => e.source(),
            _ => None,
        }
    }
}

impl CoderError for SevenZError {
    fn culprit(&self) -> Culprit {
        match self {
            SevenZError::NotSevenZ
            | SevenZError::HeaderCrc
            | SevenZError::Corrupt(_)
            | SevenZError::DataCrc { .. }
            | SevenZError::DataSize { .. } => Culprit::Corrupt,
            SevenZError::Extract(e) => e.culprit(),
            SevenZError::Truncated => Culprit::Truncated,
            SevenZError::UnsupportedVersion { .. }
            | SevenZError::Unsupported { .. }
            | SevenZError::UnsupportedFeature(_) => Culprit::Unsupported,
            SevenZError::PasswordRequired | SevenZError::WrongPassword => Culprit::Password,
            SevenZError::Limit(_) => Culprit::Limit,
            SevenZError::Lzma(e) => e.culprit(),
            SevenZError::Filter(e) => e.culprit(),
            SevenZError::NoSuchEntry(_) => Culprit::Usage,
            SevenZError::Io(_) => Culprit::Io,
            SevenZError::InvalidWriterOptions(_)
            | SevenZError::WriterUnusable(_)
            | SevenZError::InvalidEntryName(_) => Culprit::Usage,
        }
    }
}

impl From<LimitExceeded> for SevenZError {
    fn from(e: LimitExceeded) -> Self {
        SevenZError::Limit(e)
    }
}

impl From<lzflow_lzma::LzmaError> for SevenZError {
    fn from(e: lzflow_lzma::LzmaError) -> Self {
        SevenZError::Lzma(e)
    }
}

impl From<lzflow_filters::FilterError> for SevenZError {
    fn from(e: lzflow_filters::FilterError) -> Self {
        SevenZError::Filter(e)
    }
}

impl From<lzflow_methods::MethodError> for SevenZError {
    fn from(e: lzflow_methods::MethodError) -> Self {
        use lzflow_methods::MethodError as M;
        match e {
            M::Unsupported { method } => SevenZError::Unsupported { method },
            M::Lzma(e) => SevenZError::Lzma(e),
            M::Filter(e) => SevenZError::Filter(e),
            M::Limit(e) => SevenZError::Limit(e),
            M::Truncated { .. } => SevenZError::Truncated,
            other => SevenZError::Corrupt(other.to_string()),
        }
    }
}

impl From<ExtractError> for SevenZError {
    fn from(e: ExtractError) -> Self {
        SevenZError::Extract(e)
    }
}

impl From<CallError> for SevenZError {
    /// An extraction step's error: the entry's data (read or written) or
    /// the extractor's.
    fn from(e: CallError) -> Self {
        e.into_error()
    }
}

impl From<io::Error> for SevenZError {
    /// Recovers a `SevenZError` that travelled through `io::Error` (from an
    /// entry reader); wraps any other I/O error.
    fn from(e: io::Error) -> Self {
        let kind = e.kind();
        if !e.get_ref().is_some_and(|inner| inner.is::<SevenZError>()) {
            return if kind == io::ErrorKind::UnexpectedEof {
                SevenZError::Truncated
            } else {
                SevenZError::Io(e)
            };
        }
        match e.into_inner().map(|b| b.downcast::<SevenZError>()) {
            Some(Ok(inner)) => *inner,
            Some(Err(other)) => SevenZError::Io(io::Error::new(kind, other)),
            None => SevenZError::Io(io::Error::from(kind)),
        }
    }
}

impl From<SevenZError> for io::Error {
    fn from(e: SevenZError) -> Self {
        match e {
            SevenZError::Io(inner) => inner,
            SevenZError::Extract(e) => io::Error::new(e.io_kind(), SevenZError::Extract(e)),
            other => into_io_error(other),
        }
    }
}
