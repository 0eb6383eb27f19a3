//! The error type of the XZ layer.

use std::fmt;
use std::io;
use std::sync::Arc;

use lzflow_core::{into_io_error, CoderError, Culprit, LimitExceeded};
use lzflow_filters::FilterError;
use lzflow_lzma::LzmaError;

use crate::Check;

/// Everything that can go wrong while reading or writing `.xz` data.
///
/// Variants are grouped by [`Culprit`]; [`CoderError::culprit`] tells them
/// apart programmatically and decides the [`io::ErrorKind`] on conversion.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub enum XzError {
    // --- Corrupt -----------------------------------------------------------
    /// The input does not start with the XZ magic bytes.
    NotXz,
    /// After a stream comes data that is neither stream padding (zero bytes)
    /// nor the start of another XZ stream.
    TrailingGarbage {
        /// Offset of the first such byte from the start of the input.
        offset: u64,
    },
    /// The CRC32 of the Stream Header flags is wrong.
    StreamHeaderCrc {
        /// CRC32 stored in the file.
        stored: u32,
        /// CRC32 computed over the flags.
        computed: u32,
    },
    /// The Stream Footer does not end with the magic bytes `YZ`.
    StreamFooterMagic,
    /// The CRC32 in the Stream Footer is wrong.
    StreamFooterCrc {
        /// CRC32 stored in the file.
        stored: u32,
        /// CRC32 computed over Backward Size and flags.
        computed: u32,
    },
    /// The Stream Footer's flags differ from the Stream Header's.
    StreamFlagsMismatch {
        /// Check ID in the Stream Header.
        header_check: u8,
        /// Check ID in the Stream Footer.
        footer_check: u8,
    },
    /// The Stream Footer's Backward Size is not the Index's size.
    BackwardSizeMismatch {
        /// Index size according to the footer.
        footer: u64,
        /// Actual Index size.
        index: u64,
    },
    /// Stream padding whose length is not a multiple of four.
    StreamPadding {
        /// Number of padding bytes found.
        len: u64,
    },
    /// The CRC32 of a Block Header is wrong.
    BlockHeaderCrc {
        /// CRC32 stored in the file.
        stored: u32,
        /// CRC32 computed over the header.
        computed: u32,
    },
    /// A Block Header field is malformed.
    BlockHeader {
        /// What is wrong.
        reason: &'static str,
    },
    /// A Block Header holds a variable-length integer that is not minimally
    /// encoded, is longer than nine bytes or runs past the header.
    BlockHeaderVli {
        /// The field that holds it.
        field: &'static str,
    },
    /// A Block's compressed data did not end where its header's Compressed
    /// Size said it would.
    CompressedSizeMismatch {
        /// Compressed Size from the Block Header.
        declared: u64,
    },
    /// A Block decoded to a different size than its header's Uncompressed
    /// Size.
    UncompressedSizeMismatch {
        /// Uncompressed Size from the Block Header.
        declared: u64,
        /// Bytes the Block produced (when larger: the first byte too many).
        actual: u64,
    },
    /// A Block Padding byte is not zero.
    BlockPadding,
    /// A Block's integrity check does not match its data.
    CheckMismatch {
        /// Which check.
        check: Check,
        /// Block number in its stream, from 1.
        block: u64,
        /// Input offset of the Block (its header's first byte).
        offset: u64,
    },
    /// A size or count exceeds what the format allows (2^63 - 1).
    SizeOverflow {
        /// Which quantity.
        what: &'static str,
    },
    /// The Index lists a different number of records than there were
    /// Blocks.
    IndexRecordCount {
        /// Number of Blocks in the stream.
        expected: u64,
        /// Number of Records in the Index.
        found: u64,
    },
    /// An Index Record does not match the Block it describes.
    IndexRecordMismatch {
        /// Record number, from 1.
        record: u64,
        /// `"unpadded size"` or `"uncompressed size"`.
        field: &'static str,
        /// The value the Block had.
        expected: u64,
        /// The value the Index records.
        found: u64,
    },
    /// The Index is malformed.
    IndexInvalid {
        /// What is wrong.
        reason: &'static str,
    },
    /// An Index Padding byte is not zero.
    IndexPadding,
    /// The CRC32 of the Index is wrong.
    IndexCrc {
        /// CRC32 stored in the file.
        stored: u32,
        /// CRC32 computed over the Index.
        computed: u32,
    },

    // --- Truncated ---------------------------------------------------------
    /// The input ended before the XZ stream did.
    Truncated {
        /// Where it ended ("stream header", "block data", ...).
        during: &'static str,
    },

    // --- Unsupported -------------------------------------------------------
    /// Stream Flags set bits that this version of the format reserves.
    UnsupportedStreamFlags {
        /// The two flag bytes.
        flags: [u8; 2],
    },
    /// A check ID that the format reserves (see [`Check`]).
    UnsupportedCheck {
        /// The check ID.
        id: u8,
    },
    /// A Block Header uses reserved flag bits or non-zero Header Padding,
    /// which may mean a newer format feature.
    UnsupportedBlockHeader {
        /// What was found.
        reason: &'static str,
    },
    /// A filter ID that lzflow does not implement.
    UnsupportedFilter {
        /// The Filter ID.
        id: u64,
    },
    /// A filter chain lzflow cannot run (LZMA2 must be last and only last).
    UnsupportedFilterChain {
        /// What is wrong with it.
        reason: &'static str,
    },

    // --- Usage -------------------------------------------------------------
    /// A check ID above 15 was passed to [`Check::from_id`].
    InvalidCheckId {
        /// The ID.
        id: u8,
    },
    /// Encoder or decoder options are out of range.
    InvalidOptions {
        /// What is wrong.
        reason: &'static str,
    },

    /// The LZMA2 encoder options are out of range (e.g. lc + lp > 4).
    InvalidLzmaOptions(LzmaError),

    // --- Limit -------------------------------------------------------------
    /// A memory or output limit would be exceeded.
    Limit(LimitExceeded),

    // --- Wrapped layers ----------------------------------------------------
    /// The LZMA2 data inside a Block is bad (culprit from the LZMA layer).
    Lzma {
        /// Input offset of the Block (its header's first byte), when the
        /// data was inside one.
        block_offset: Option<u64>,
        /// What the LZMA layer found.
        source: LzmaError,
    },
    /// A filter's properties are bad (culprit from the filter layer).
    Filter(FilterError),
    /// Reading or seeking the underlying file failed.
    Io(Arc<io::Error>),
}

impl fmt::Display for XzError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        use XzError::*;
        match self {
            NotXz => f.write_str("not an XZ file: the input does not start with the XZ magic bytes"),
            TrailingGarbage { offset } => write!(
                f,
                "XZ data is followed by bytes at offset {offset} that are neither stream padding nor another XZ stream (trailing garbage, or a corrupt stream header)"
            ),
            StreamHeaderCrc { stored, computed } => write!(
                f,
                "XZ stream header is corrupt: CRC32 of its flags is {computed:#010x}, the file says {stored:#010x}"
            ),
            StreamFooterMagic => f.write_str("XZ stream footer is corrupt: it does not end with the magic bytes \"YZ\""),
            StreamFooterCrc { stored, computed } => write!(
                f,
                "XZ stream footer is corrupt: its CRC32 is {computed:#010x}, the file says {stored:#010x}"
            ),
            StreamFlagsMismatch { header_check, footer_check } => write!(
                f,
                "XZ stream is corrupt: the header names check {header_check:#04x} but the footer names {footer_check:#04x}"
            ),
            BackwardSizeMismatch { footer, index } => write!(
                f,
                "XZ stream footer is corrupt: it gives the index size as {footer} bytes, the index has {index}"
            ),
            StreamPadding { len } => write!(
                f,
                "XZ stream padding is {len} bytes, which is not a multiple of four: the file is corrupt or has trailing zero bytes"
            ),
            BlockHeaderCrc { stored, computed } => write!(
                f,
                "XZ block header is corrupt: its CRC32 is {computed:#010x}, the file says {stored:#010x}"
            ),
            BlockHeader { reason } => write!(f, "XZ block header is corrupt: {reason}"),
            BlockHeaderVli { field } => write!(
                f,
                "XZ block header is corrupt: the {field} is not a valid variable-length integer"
            ),
            CompressedSizeMismatch { declared } => write!(
                f,
                "XZ block is corrupt: its compressed data does not end at the {declared} bytes its header declares"
            ),
            UncompressedSizeMismatch { declared, actual } => {
                if actual > declared {
                    write!(f, "XZ block is corrupt: it decodes to more than the {declared} bytes its header declares")
                } else {
                    write!(f, "XZ block is corrupt: it decodes to {actual} bytes, its header declares {declared}")
                }
            }
            BlockPadding => f.write_str("XZ block is corrupt: a block padding byte is not zero"),
            CheckMismatch { check, block, offset } => write!(
                f,
                "XZ data is corrupt: the {check} check of block {block} (at input offset {offset}) does not match the decoded data"
            ),
            SizeOverflow { what } => write!(f, "XZ data is corrupt: the {what} exceeds the format's maximum of 2^63 - 1"),
            IndexRecordCount { expected, found } => write!(
                f,
                "XZ index does not match blocks: expected {expected} records, found {found}"
            ),
            IndexRecordMismatch { record, field, expected, found } => write!(
                f,
                "XZ index does not match blocks: record {record} gives {field} {found}, the block has {expected}"
            ),
            IndexInvalid { reason } => write!(f, "XZ index is corrupt: {reason}"),
            IndexPadding => f.write_str("XZ index is corrupt: an index padding byte is not zero"),
            IndexCrc { stored, computed } => write!(
                f,
                "XZ index is corrupt: its CRC32 is {computed:#010x}, the file says {stored:#010x}"
            ),
            Truncated { during } => write!(
                f,
                "XZ input is truncated: it ended inside the {during} (the file is incomplete)"
            ),
            UnsupportedStreamFlags { flags } => write!(
                f,
                "XZ stream flags {:02x} {:02x} use reserved bits: the file needs a newer XZ decoder",
                flags[0], flags[1]
            ),
            UnsupportedCheck { id } => write!(
                f,
                "XZ check ID {id:#04x} is reserved by the format; lzflow cannot verify it"
            ),
            UnsupportedBlockHeader { reason } => write!(
                f,
                "XZ block header uses a feature lzflow does not know ({reason}); the file may need a newer decoder"
            ),
            UnsupportedFilter { id } => write!(
                f,
                "XZ block uses filter ID {id:#x}, which lzflow does not support"
            ),
            UnsupportedFilterChain { reason } => write!(f, "XZ filter chain is not supported: {reason}"),
            InvalidCheckId { id } => write!(f, "check ID {id} is out of range (0..=15)"),
            InvalidOptions { reason } => write!(f, "invalid XZ options: {reason}"),
            InvalidLzmaOptions(_) => f.write_str("invalid LZMA2 options for XZ"),
            // Transparent: the limit says it all.
            Limit(e) => e.fmt(f),
            // The source says what is wrong; each layer names its own part.
            Lzma {
                block_offset: Some(at),
                ..
            } => write!(f, "XZ block data (the block at input offset {at})"),
            Lzma { .. } => f.write_str("XZ block data"),
            Filter(_) => f.write_str("XZ block header"),
            Io(_) => f.write_str("reading XZ file"),
        }
    }
}

// Defined here rather than in `check`, beside the two errors it returns:
// `XzError` names `Check`, so `check` stays below this module.
impl Check {
    /// The check of a Stream Flags check ID.
    ///
    /// Errors: [`XzError::UnsupportedCheck`] for the reserved IDs 0..=15
    /// other than 0x00, 0x01, 0x04 and 0x0A; [`XzError::InvalidCheckId`]
    /// above 15.
    pub fn from_id(id: u8) -> Result<Check, XzError> {
        match id {
            0x00 => Ok(Check::None),
            0x01 => Ok(Check::Crc32),
            0x04 => Ok(Check::Crc64),
            0x0A => Ok(Check::Sha256),
            id if id <= 15 => Err(XzError::UnsupportedCheck { id }),
            _ => Err(XzError::InvalidCheckId { id }),
        }
    }
}

impl std::error::Error for XzError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            // Transparent, as its Display.
            XzError::Limit(e) => e.source(),
            XzError::Lzma { source: e, .. } | XzError::InvalidLzmaOptions(e) => Some(e),
            XzError::Filter(e) => Some(e),
            XzError::Io(e) => Some(&**e),
            _ => None,
        }
    }
}

impl CoderError for XzError {
    fn culprit(&self) -> Culprit {
        use XzError::*;
        match self {
            Truncated { .. } => Culprit::Truncated,
            UnsupportedStreamFlags { .. }
            | UnsupportedCheck { .. }
            | UnsupportedBlockHeader { .. }
            | UnsupportedFilter { .. }
            | UnsupportedFilterChain { .. } => Culprit::Unsupported,
            InvalidCheckId { .. } | InvalidOptions { .. } | InvalidLzmaOptions(_) => Culprit::Usage,
            Limit(_) => Culprit::Limit,
            Lzma { source, .. } => source.culprit(),
            Filter(e) => e.culprit(),
            Io(_) => Culprit::Io,
            _ => Culprit::Corrupt,
        }
    }
}

impl From<LimitExceeded> for XzError {
    fn from(e: LimitExceeded) -> Self {
        XzError::Limit(e)
    }
}

impl From<LzmaError> for XzError {
    fn from(e: LzmaError) -> Self {
        // Keep limit errors at this layer so callers match one variant.
        match e {
            LzmaError::Limit(l) => XzError::Limit(l),
            e => XzError::Lzma {
                block_offset: None,
                source: e,
            },
        }
    }
}

impl From<lzflow_methods::MethodError> for XzError {
    fn from(e: lzflow_methods::MethodError) -> Self {
        use lzflow_methods::MethodError as M;
        match e {
            M::Limit(l) => XzError::Limit(l),
            M::Lzma(e) => e.into(),
            M::Filter(e) => e.into(),
            // The registry is asked only about LZMA2 and the filters here;
            // anything else would be a chain XZ cannot hold.
            _ => XzError::UnsupportedFilterChain {
                reason: "a method XZ cannot hold",
            },
        }
    }
}

impl From<FilterError> for XzError {
    fn from(e: FilterError) -> Self {
        match e {
            FilterError::UnsupportedFilter(id) => XzError::UnsupportedFilter { id },
            e => XzError::Filter(e),
        }
    }
}

impl From<io::Error> for XzError {
    fn from(e: io::Error) -> Self {
        // An XzError that went through io::Error comes back unchanged.
        if e.get_ref().is_some_and(|inner| inner.is::<XzError>()) {
            let inner = e.into_inner().expect("checked above");
            return *inner.downcast::<XzError>().expect("checked above");
        }
        XzError::Io(Arc::new(e))
    }
}

impl From<XzError> for io::Error {
    fn from(e: XzError) -> Self {
        match e {
            XzError::Io(inner) => match Arc::try_unwrap(inner) {
                Ok(inner) => inner,
                Err(shared) => io::Error::new(shared.kind(), XzError::Io(shared)),
            },
            e => into_io_error(e),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn culprits_and_io_kinds() {
        let e = XzError::IndexRecordCount {
            expected: 3,
            found: 2,
        };
        assert_eq!(
            e.to_string(),
            "XZ index does not match blocks: expected 3 records, found 2"
        );
        assert_eq!(e.culprit(), Culprit::Corrupt);
        let io: io::Error = XzError::Truncated { during: "index" }.into();
        assert_eq!(io.kind(), io::ErrorKind::UnexpectedEof);
        assert!(matches!(
            XzError::from(io),
            XzError::Truncated { during: "index" }
        ));
        assert_eq!(
            XzError::UnsupportedFilter { id: 0x7F }.culprit(),
            Culprit::Unsupported
        );
        assert_eq!(
            XzError::from(LzmaError::Truncated).culprit(),
            Culprit::Truncated
        );
        let limit = LimitExceeded::Output { limit: 5 };
        assert!(matches!(
            XzError::from(LzmaError::Limit(limit)),
            XzError::Limit(LimitExceeded::Output { limit: 5 })
        ));
    }

    #[test]
    fn reserved_and_invalid_check_ids() {
        assert!(matches!(
            Check::from_id(2),
            Err(XzError::UnsupportedCheck { id: 2 })
        ));
        assert!(matches!(
            Check::from_id(16),
            Err(XzError::InvalidCheckId { id: 16 })
        ));
    }
}
