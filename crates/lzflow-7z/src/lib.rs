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
//! * [`Writer`]: creating archives (`writer`, `file_table`,
//!   `header_writer`, `aes_encoder`, `writer_options`): entries are
//!   compressed into folders as they arrive (LZMA2, LZMA or Copy, optional
//!   BCJ/Delta, AES-256), their records kept by column (`file_table`), and
//!   `finish` writes the header and then patches the start header.
//! * [`multi_volume`]: split archives (`name.7z.001`, …) as one stream
//!   ([`Archive::open_volumes`]).
//! * [`spool`]: non-seekable sources copied to memory, then to a temporary
//!   file ([`Archive::open_spooled`]).
//!
//! Every CRC is verified; a wrong password is reported as
//! [`SevenZError::WrongPassword`], a missing one as
//! [`SevenZError::PasswordRequired`].
#![forbid(unsafe_code)]

mod aes;
mod aes_encoder;
mod archive;
mod archive_index;
mod bcj2;
mod byte_reader;
mod coder_graph;
mod coders;
mod entry;
mod error;
mod extract;
mod file_table;
mod files_info;
mod folder;
mod folder_encoder;
mod folder_workers;
mod header;
mod header_writer;
mod method_id;
pub mod multi_volume;
mod pack_info;
mod property_id;
mod secret_buf;
pub mod signature_header;
pub mod spool;
mod substreams;
mod writer;
mod writer_options;

pub use archive::{Archive, EntryReader};
pub use archive_index::{ArchiveIndex, ArchiveOptions, HeaderStep, IndexBuilder};
pub use coder_graph::{FolderDecoder, FolderStep, PackRequest};
pub use entry::{
    filetime_to_system_time, Entry, EntryCheck, ATTR_DIRECTORY, ATTR_READONLY, ATTR_UNIX_EXTENSION,
};
pub use error::SevenZError;
pub use extract::Extraction;
pub use lzflow_core::extract::{ExtractError, ExtractOptions, Overwrite, PathPolicy};
pub use lzflow_core::{LimitExceeded, Limits};
pub use multi_volume::MultiVolume;
pub use signature_header::SignatureHeader;
pub use spool::{SpoolOptions, SpoolWriter, Spooled};
pub use writer::{check_entry_name, system_time_to_filetime, Writer};
pub use writer_options::{level_options, EntryMeta, Method, Solid, WriterOptions};
