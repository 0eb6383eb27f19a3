//! 7z archive reading and writing for lzflow.
//!
//! # Organization
//! The crate follows the shape every lzflow container has: sans-I/O
//! parsers and coder graph, then one poll-style core over
//! `lzflow_core::source`'s [`PollSource`](lzflow_core::source::PollSource)
//! / [`PollSink`](lzflow_core::source::PollSink), which the std face here
//! drives over a [`Blocking`](lzflow_core::source::Blocking) source and the
//! facade's tokio and futures-io faces drive over their adapters. Methods
//! (IDs, properties, memory use, the single-input decoders) come from the
//! one registry, `lzflow-methods`.
//!
//! `read/`:
//! * Format records, one file each, named after 7zFormat.txt:
//!   [`signature_header`], `property_id`, `pack_info`, `folder`,
//!   `substreams`, `files_info`, and `header` (the model, including the
//!   encoded-header indirection); `byte_reader` under them.
//! * `coder_graph`: a folder's coders as one sans-I/O decoder
//!   ([`FolderDecoder`]) that asks for packed bytes by offset
//!   ([`PackRequest`]); the single-input coders come from the method
//!   registry, BCJ2 (`bcj2`) and AES-256 (`aes`) are built here. The
//!   memory limit is checked once per folder, by the registry.
//! * `archive_index`: [`IndexBuilder`] / [`ArchiveIndex`], opening without
//!   I/O; `entry`: [`Entry`] and its CRC check.
//! * `poll_archive`: [`PollArchive`], the one reading core (open, folder
//!   pumping, skipping, the entry walk, one wrong-password rule in
//!   `error.rs`); `archive`: [`Archive`], its `Read + Seek` face;
//!   `extract`: the one extraction walk, under [`ExtractOptions`] with the
//!   rules every lzflow container shares (`lzflow_core::extract`);
//!   `folder_prefetch`: the folders after the current one decoded side by
//!   side on lzflow-core's `OrderedPool`, handed to the core in order.
//! * [`multi_volume`]: split archives (`name.7z.001`, …) as one stream
//!   ([`Archive::open_volumes`]); [`spool`]: non-seekable sources copied to
//!   memory, then to a temporary file ([`Archive::open_spooled`]).
//!
//! `write/`:
//! * [`Writer`]: the writer state machine (`writer`). Entries are
//!   compressed into folders as they arrive (`folder_encoder`, on
//!   `folder_workers` when folders go in parallel; LZMA2, LZMA, PPMd,
//!   Deflate, BZip2 or Copy, optional BCJ/Delta, or BCJ2 (`bcj2_encoder`: four packed streams),
//!   with the branch filter picked by machine in `x86_executable`,
//!   AES-256 by `aes_encoder`) and go out through `sink`. Folders are recorded by
//!   `folder_record`, entries (`entry_name`, `entry_fields`) by column in
//!   `file_table`; times convert through `filetime`. `finish` writes the
//!   `header_tail` (the `header_writer` header, compressed and encrypted
//!   as `writer_options` say) and then patches the start header.
//! * `poll_writer`: [`PollWriter`], the writer over a pollable sink: the
//!   same state machine writes into an `output_spool` drained to the sink
//!   after every piece, or runs on a `writer_thread` when compressing
//!   threads would make its calls wait.
//!
//! `secret_buf`: pooled buffers for plaintext (to and from AES), wiped
//! before they are reused.
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
pub use lzflow_core::extract::{ExtractError, ExtractOptions, Overwrite, PathPolicy, Select};
pub use lzflow_core::{LimitExceeded, Limits};
pub use read::archive::{Archive, EntryReader};
pub use read::archive_index::{ArchiveIndex, ArchiveOptions, HeaderStep, IndexBuilder};
pub use read::coder_graph::{FolderDecoder, FolderStep, PackRequest};
pub use read::entry::{Entry, EntryCheck, ATTR_DIRECTORY, ATTR_READONLY, ATTR_UNIX_EXTENSION};
pub use read::extract::Extraction;
pub use read::multi_volume::MultiVolume;
pub use read::poll_archive::{PollArchive, PollEntries, PollEntryReader, WalkState};
pub use read::signature_header::SignatureHeader;
pub use read::spool::{SpoolOptions, SpoolWriter, Spooled};
pub use read::{multi_volume, signature_header, spool};
pub use write::entry_name::check_entry_name;
pub use write::poll_writer::PollWriter;
pub use write::writer::Writer;
pub use write::writer_options::{level_options, EntryMeta, Method, Solid, WriterOptions};
