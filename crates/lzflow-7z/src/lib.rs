//! 7z archive reading for lzflow.
//!
//! # Organization
//! * Format records, one file each, named after 7zFormat.txt:
//!   [`signature_header`], `property_id`, `pack_info`, `folder`,
//!   `substreams`, `files_info`, and `header` (the model, including the
//!   encoded-header indirection).
//! * `coder_graph`: a folder's coders as one sans-I/O decoder
//!   ([`FolderDecoder`]) that asks for packed bytes by offset
//!   ([`PackRequest`]); coders are Copy, LZMA, LZMA2 (lzflow-lzma), the BCJ
//!   filters and Delta (lzflow-filters), BCJ2 (`bcj2`), AES-256 (`aes`),
//!   Deflate and BZip2.
//! * [`IndexBuilder`] / [`ArchiveIndex`]: opening without I/O.
//! * [`Archive`]: the `Read + Seek` face; [`Archive::extract_to_with`]
//!   writes to disk under [`ExtractOptions`] with the rules every lzflow
//!   container shares (`lzflow_core::extract`; `extract.rs` maps 7z
//!   entries onto it).
//! * [`Writer`]: creating archives. `writer` is the state machine:
//!   entries are compressed into folders as they arrive (`folder_encoder`,
//!   on `folder_workers` when folders go in parallel; LZMA2, LZMA or Copy,
//!   optional BCJ/Delta with x86 BCJ picked by `x86_executable`, AES-256
//!   by `aes_encoder`) and go out through `sink`. Folders are recorded by
//!   `folder_record`, entries (`entry_name`, `entry_fields`) by column in
//!   `file_table`; times convert through `filetime`. `finish` writes the
//!   `header_tail` (the `header_writer` header, compressed and encrypted
//!   as `writer_options` say) and then patches the start header.
//! * [`multi_volume`]: split archives (`name.7z.001`, …) as one stream
//!   ([`Archive::open_volumes`]).
//! * [`spool`]: non-seekable sources copied to memory, then to a temporary
//!   file ([`Archive::open_spooled`]).
//!
//! Every CRC is verified; a wrong password is reported as
//! [`SevenZError::WrongPassword`], a missing one as
//! [`SevenZError::PasswordRequired`].
#![forbid(unsafe_code)]

mod error;
mod filetime;
mod read;
mod secret_buf;
mod write;

pub use error::SevenZError;
pub use filetime::{filetime_to_system_time, system_time_to_filetime};
pub use lzflow_core::extract::{ExtractError, ExtractOptions, Overwrite, PathPolicy};
pub use lzflow_core::{LimitExceeded, Limits};
pub use read::archive::{Archive, EntryReader};
pub use read::archive_index::{ArchiveIndex, ArchiveOptions, HeaderStep, IndexBuilder};
pub use read::coder_graph::{FolderDecoder, FolderStep, PackRequest};
pub use read::entry::{Entry, EntryCheck, ATTR_DIRECTORY, ATTR_READONLY, ATTR_UNIX_EXTENSION};
pub use read::extract::Extraction;
pub use read::multi_volume::MultiVolume;
pub use read::poll_archive::{PollArchive, PollEntries, PollEntryReader};
pub use read::signature_header::SignatureHeader;
pub use read::spool::{SpoolOptions, SpoolWriter, Spooled};
pub use read::{multi_volume, signature_header, spool};
pub use write::entry_name::check_entry_name;
pub use write::poll_writer::PollWriter;
pub use write::writer::Writer;
pub use write::writer_options::{level_options, EntryMeta, Method, Solid, WriterOptions};
