//! Error classification shared by every layer.

use std::fmt;
use std::io;

/// Who is to blame for an error; decides the [`io::ErrorKind`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Culprit {
    /// The data is corrupt (or not of this format).
    Corrupt,
    /// The data ended before the stream did.
    Truncated,
    /// The data is valid but uses a feature lzflow does not implement.
    Unsupported,
    /// A configured limit (memory, output size) would be exceeded.
    Limit,
    /// A password is needed, or the one given is wrong.
    Password,
    /// The caller used the API wrongly (e.g. bad options).
    Usage,
    /// An output exists already and the caller chose not to replace it.
    Exists,
    /// The underlying reader or writer failed.
    Io,
}

impl Culprit {
    /// The `io::ErrorKind` an error of this culprit converts to.
    pub fn io_kind(self) -> io::ErrorKind {
        match self {
            Culprit::Corrupt => io::ErrorKind::InvalidData,
            Culprit::Truncated => io::ErrorKind::UnexpectedEof,
            Culprit::Unsupported => io::ErrorKind::Unsupported,
            Culprit::Limit => io::ErrorKind::OutOfMemory,
            Culprit::Password => io::ErrorKind::PermissionDenied,
            Culprit::Usage => io::ErrorKind::InvalidInput,
            Culprit::Exists => io::ErrorKind::AlreadyExists,
            Culprit::Io => io::ErrorKind::Other,
        }
    }
}

/// Implemented by every layer's error enum.
pub trait CoderError: std::error::Error + Send + Sync + 'static {
    /// Who is to blame.
    fn culprit(&self) -> Culprit;
}

/// Converts a layer error into an `io::Error` of the culprit's kind, keeping
/// the typed error as the source (recover it with `get_ref`/`downcast`).
pub fn into_io_error<E: CoderError>(err: E) -> io::Error {
    io::Error::new(err.culprit().io_kind(), err)
}

/// `err`'s message and every cause below it, joined by `": "` (a cause
/// whose text is already there is left out): what a person reading one
/// line needs, since each layer's `Display` names only its own part.
pub fn error_chain_text(err: &(dyn std::error::Error + 'static)) -> String {
    let mut text = err.to_string();
    let mut source = err.source();
    while let Some(cause) = source {
        let cause_text = cause.to_string();
        if !text.contains(&cause_text) {
            text.push_str(": ");
            text.push_str(&cause_text);
        }
        source = cause.source();
    }
    text
}

/// A configured limit that decoding or encoding would exceed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum LimitExceeded {
    /// Allocating `needed` bytes would pass the memory limit.
    Memory {
        /// Bytes the coder would need.
        needed: u64,
        /// The configured limit.
        limit: u64,
    },
    /// Producing more output would pass the output limit.
    Output {
        /// The configured limit.
        limit: u64,
    },
    /// An archive's header (7z header, zip central directory) is larger
    /// than the configured cap.
    HeaderSize {
        /// The header's size in bytes.
        needed: u64,
        /// The configured cap.
        limit: u64,
    },
    /// An entry's data expands beyond the configured ratio to its stored
    /// bytes (a decompression bomb).
    Ratio {
        /// The configured cap (bytes of data per stored byte).
        limit: u64,
    },
    /// An archive lists more entries than the configured cap.
    Entries {
        /// The number of entries the archive lists.
        count: u64,
        /// The configured cap.
        limit: u64,
    },
}

impl fmt::Display for LimitExceeded {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LimitExceeded::Memory { needed, limit } => write!(
                f,
                "memory limit exceeded: {} needed, {} allowed",
                human(*needed),
                human(*limit)
            ),
            LimitExceeded::Output { limit } => {
                write!(f, "output limit of {} bytes exceeded", limit)
            }
            LimitExceeded::HeaderSize { needed, limit } => write!(
                f,
                "header size limit exceeded: the archive's header is {}, {} allowed",
                human(*needed),
                human(*limit)
            ),
            LimitExceeded::Ratio { limit } => write!(
                f,
                "compression ratio limit exceeded: data expands beyond {limit} times its \
                 stored size"
            ),
            LimitExceeded::Entries { count, limit } => write!(
                f,
                "entry count limit exceeded: the archive lists {count} entries, {limit} allowed"
            ),
        }
    }
}

impl std::error::Error for LimitExceeded {}

impl CoderError for LimitExceeded {
    fn culprit(&self) -> Culprit {
        Culprit::Limit
    }
}

/// Formats a byte count the way a user reads it ("64 MiB (67108864 bytes)").
fn human(n: u64) -> String {
    const UNITS: [(&str, u64); 3] = [("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)];
    for (name, size) in UNITS {
        if n >= size && n.is_multiple_of(size) {
            return format!("{} {name} ({n} bytes)", n / size);
        }
    }
    format!("{n} bytes")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn limit_error_names_both_sizes_and_maps_kind() {
        let e = LimitExceeded::Memory {
            needed: 64 << 20,
            limit: 1000,
        };
        assert_eq!(
            e.to_string(),
            "memory limit exceeded: 64 MiB (67108864 bytes) needed, 1000 bytes allowed"
        );
        assert_eq!(into_io_error(e).kind(), io::ErrorKind::OutOfMemory);
    }
}
