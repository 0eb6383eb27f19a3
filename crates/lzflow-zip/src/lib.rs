//! Zip archive reading and writing for lzflow.
//!
//! # Organization
//! The crate follows the shape every lzflow container has: sans-I/O
//! record parsers, then the poll-style cores over `lzflow_core::source`
//! (random access through the central directory over a
//! [`PollSource`](lzflow_core::source::PollSource), forward-only over a
//! [`PollRead`](lzflow_core::source::PollRead)), each driven by the std
//! face here and by the facade's tokio and futures-io faces. Methods come from the one registry, `lzflow-methods`.
//!
//! `error.rs`: [`ZipError`], every layer's failures grouped by culprit.
//!
//! `read/`: `little_endian`, the bounds-checked field reads the records
//! share; the records of PKWARE's APPNOTE, one file each:
//! `end_of_central_directory` (with the Zip64 locator and record),
//! `central_directory` (borrowed entry views), `local_file_header`,
//! `data_descriptor`, `extra_field`, and the entry metadata they carry
//! (`entry_name`, `dos_time`); `zip_crypto` and `winzip_aes`, the
//! decryption coders; `method`, zip methods onto the registry's decoders
//! (and LZMA's zip header); `entry_decoder`, one entry's decryption,
//! decompression and checks as one decoder; `poll_archive`, the reading
//! core ([`PollZipArchive`]); `descriptor_scan`, where a Stored entry
//! with a data descriptor ends; `poll_stream`, the forward-only core
//! ([`PollZipStream`]); `poll_directory`, the listing core that streams
//! the central directory through one window
//! ([`PollCentralDirectoryReader`]); `extract`, the one extraction walk of
//! each core under the rules every lzflow container shares; `archive`,
//! `stream_reader` and `directory_reader`, their std faces
//! ([`ZipArchive`], [`ZipStreamReader`], [`CentralDirectoryReader`]);
//! `zip_options`, the password and limits (`test_archive`, built for
//! tests only, makes archives by hand).
//!
//! `write/`: the same records as written (`local_file_header`,
//! `data_descriptor`, `central_directory`, `end_of_central_directory`
//! with Zip64 decided from the values, `extra_field`); `entry_options`
//! and `writer_options`, what the caller asks for (method, level,
//! encryption, threads, memory budget); `method`, zip methods onto the
//! registry's encoders (and LZMA's zip header); `winzip_aes` and
//! `zip_crypto`, the encryption coders; `entry_encoder`, one entry's
//! compression then encryption; `poll_writer`, the one writing core
//! ([`PollZipWriter`]), which compresses whole entries on lzflow-core's
//! `OrderedPool` when it has threads, and `writer`, its std face
//! ([`ZipWriter`]).
#![forbid(unsafe_code)]

mod error;
mod read;
mod write;

pub use error::ZipError;
pub use lzflow_core::extract::{ExtractError, ExtractOptions, Overwrite, PathPolicy, Select};
pub use lzflow_core::{LimitExceeded, Limits};
pub use lzflow_methods::{set_idle_decompressors, DEFAULT_IDLE_DECOMPRESSORS};
pub use read::archive::{ZipArchive, ZipEntryReader};
pub use read::central_directory::{CentralDirectory, CentralEntry};
pub use read::data_descriptor::DataDescriptor;
pub use read::directory_reader::CentralDirectoryReader;
pub use read::dos_time::DosDateTime;
pub use read::end_of_central_directory::{CentralDirectoryLocation, DirectoryLocator};
pub use read::extra_field::{AesExtra, AesVendorVersion, ExtraField, ExtraFields};
pub use read::local_file_header::LocalFileHeader;
pub use read::poll_archive::{PollZipArchive, PollZipEntryReader};
pub use read::poll_directory::PollCentralDirectoryReader;
pub use read::poll_stream::{LocalEntry, PollZipStream, MAX_LOOK_AHEAD};
pub use read::stream_reader::{ZipStreamEntry, ZipStreamReader};
pub use read::winzip_aes::{AesStrength, WinZipAesDecoder};
pub use read::zip_crypto::ZipCryptoDecoder;
pub use read::zip_options::ZipOptions;
pub use write::entry_options::{Encryption, EntryOptions, WriteMethod};
pub use write::poll_writer::{EntryKind, PollZipWriter, HOLD, STORE_CHECK_LIMIT};
pub use write::writer::ZipWriter;
pub use write::writer_options::{ZipWriterOptions, DEFAULT_MEMORY_BUDGET};
