//! 7z archives.
//!
//! The blocking reader is [`Archive`] (from `lzflow-7z`) over any
//! `Read + Seek`. With the `tokio` feature, [`AsyncArchive`] reads a tokio
//! `AsyncRead + AsyncSeek` source; with `futures-io`,
//! [`futures::AsyncArchive`] reads a futures-io one. Both are thin faces on
//! one runtime-free core: the header range is read asynchronously, then
//! each folder's packed streams are read on demand and pushed through the
//! same sans-I/O decode chain ([`FolderDecoder`]). Every read a future
//! makes is held in the reader's state, so dropping a future loses nothing.
//!
//! # Sources that are not files
//! * Split archives (`name.7z.001`, `.002`, …): [`Archive::open_volumes`]
//!   joins the volumes into one seekable stream ([`MultiVolume`]).
//! * Sources that cannot seek (pipes, sockets, upload bodies): the header
//!   is at the end, so [`Archive::open_spooled`] (and
//!   `AsyncArchive::open_spooled` in both async faces) first copies the
//!   source into memory up to [`SpoolOptions::memory_limit`] (64 MiB by
//!   default), beyond that into an anonymous temporary file in
//!   [`SpoolOptions::temp_dir`] that is removed with the archive. Apply
//!   [`ArchiveOptions::with_limits`] as usual: spooling bounds memory, not
//!   disk.
//!
//! # Some entries of a large archive
//! Decoding only what is needed: [`Archive::for_each_entry_where`] (and
//! `entries_stream_where` / `into_entries_where` on the async faces) walk
//! the entries a test picks, never decoding a folder without one;
//! [`ExtractOptions::with_select`] extracts by name the same way; and
//! [`Archive::reader`]s taken in archive order decode a solid folder once.
//!
//! An archive written in memory (see [`sevenz_writer`](crate::sevenz_writer)),
//! read back with [`Archive`], then with [`AsyncArchive`] (feature
//! `tokio`; any `AsyncRead + AsyncSeek`, a `tokio::fs::File` as well):
//! ```
//! use std::io::{Cursor, Read};
//! use lzflow::sevenz::{Archive, ArchiveOptions};
//! use lzflow::sevenz_writer::{EntryMeta, Writer, WriterOptions};
//!
//! # fn main() -> Result<(), lzflow::sevenz::SevenZError> {
//! let options = WriterOptions::default().with_password("pw");
//! let mut writer = Writer::with_options(Cursor::new(Vec::new()), options)?;
//! writer.add_file("notes.txt", &b"seven zip notes"[..], EntryMeta::default())?;
//! let file = writer.finish()?.into_inner();
//!
//! // Blocking, over any `Read + Seek`.
//! let options = ArchiveOptions::default().with_password("pw");
//! let mut archive = Archive::open_with(Cursor::new(&file), options.clone())?;
//! assert_eq!(archive.entries()[0].name, "notes.txt");
//! let mut text = String::new();
//! archive.reader(0)?.read_to_string(&mut text)?;
//! assert_eq!(text, "seven zip notes");
//!
//! // Async, entry after entry.
//! # #[cfg(feature = "tokio")]
//! tokio::runtime::Builder::new_current_thread().build()?.block_on(async {
//!     use tokio::io::AsyncReadExt;
//!     let mut archive = lzflow::sevenz::AsyncArchive::open_with(Cursor::new(&file), options).await?;
//!     let mut entries = archive.entries_stream();
//!     while let Some(entry) = entries.next_entry().await? {
//!         let mut data = Vec::new();
//!         entries.read_to_end(&mut data).await?;
//!         assert_eq!((entry.name.as_str(), &data[..]), ("notes.txt", &b"seven zip notes"[..]));
//!     }
//!     Ok::<_, lzflow::sevenz::SevenZError>(())
//! })?;
//! # Ok(()) }
//! ```

pub use lzflow_7z::Extraction;
pub use lzflow_7z::{
    filetime_to_system_time, Archive, ArchiveIndex, ArchiveOptions, Entry, EntryCheck, EntryReader,
    FolderDecoder, FolderStep, HeaderStep, IndexBuilder, MultiVolume, PackRequest, PollArchive,
    PollEntries, PollEntryReader, SevenZError, SignatureHeader, SpoolOptions, Spooled,
    ATTR_DIRECTORY, ATTR_READONLY, ATTR_UNIX_EXTENSION,
};
pub use lzflow_7z::{multi_volume, signature_header, spool};
pub use lzflow_core::extract::{ExtractError, ExtractOptions, Overwrite, PathPolicy, Select};

#[cfg(any(feature = "tokio", feature = "futures-io"))]
mod async_spooled;
#[cfg(any(feature = "tokio", feature = "futures-io"))]
pub mod face;
#[cfg(feature = "futures-io")]
pub mod futures;
#[cfg(feature = "tokio")]
mod tokio_face;

#[cfg(any(feature = "tokio", feature = "futures-io"))]
pub use self::async_spooled::AsyncSpooled;
#[cfg(any(feature = "tokio", feature = "futures-io"))]
pub use self::face::OwnedEntry;
#[cfg(feature = "tokio")]
pub use self::tokio_face::{AsyncArchive, AsyncEntries, AsyncEntryReader, EntryStream};

#[cfg(all(test, feature = "tokio", feature = "futures-io"))]
mod tests;
