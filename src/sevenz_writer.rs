//! Writing 7z archives.
//!
//! The blocking writer is [`Writer`] (from `lzflow-7z`) over any
//! `Write + Seek`. [`AsyncWriter`] (feature `tokio`) and
//! [`futures::AsyncWriter`] (feature `futures-io`) write to an async
//! `AsyncWrite + AsyncSeek` sink: the same writer core compresses into a
//! small in-memory spool, which is drained to the sink after every 64 KiB
//! piece; the start header patch at the end is replayed with seeks. With
//! [`WriterOptions::threads`] above 1 the core runs on a thread of its own
//! (its calls wait for the compressing workers, which a poll must not):
//! entry data goes to it through a bounded queue (4 MiB) and the archive
//! comes back through a bounded spool (4 MiB), drained to the sink while
//! the caller waits for queue room; errors of queued work are returned by
//! the next call. Both faces are thin adapters over one runtime-free core.
//!
//! ```
//! use std::io::{Cursor, Read};
//! use lzflow::sevenz::Archive;
//! use lzflow::sevenz_writer::{EntryMeta, Writer, WriterOptions};
//!
//! # fn main() -> Result<(), lzflow::sevenz::SevenZError> {
//! // Blocking, into any `Write + Seek` (a `std::fs::File` as well).
//! let mut writer = Writer::with_options(Cursor::new(Vec::new()), WriterOptions::default())?;
//! writer.add_dir("docs", EntryMeta::default())?;
//! writer.add_file("docs/a.txt", &b"blocking"[..], EntryMeta::default())?;
//! let blocking = writer.finish()?.into_inner();
//!
//! // Async (feature `tokio`), into any `AsyncWrite + AsyncSeek`: the same
//! // bytes for the same entries.
//! # #[cfg(feature = "tokio")]
//! # {
//! let async_file = tokio::runtime::Builder::new_current_thread().build()?.block_on(async {
//!     let mut writer = lzflow::sevenz_writer::AsyncWriter::new(Cursor::new(Vec::new())).await?;
//!     writer.add_dir("docs", EntryMeta::default()).await?;
//!     writer.add_file("docs/a.txt", &b"blocking"[..], EntryMeta::default()).await?;
//!     Ok::<_, lzflow::sevenz::SevenZError>(writer.finish().await?.into_inner())
//! })?;
//! assert_eq!(async_file, blocking);
//! # }
//!
//! let mut archive = Archive::open(Cursor::new(blocking))?;
//! assert_eq!(archive.entries().len(), 2);
//! let mut text = String::new();
//! archive.reader(1)?.read_to_string(&mut text)?;
//! assert_eq!(text, "blocking");
//! # Ok(()) }
//! ```

pub use lzflow_7z::{
    level_options, system_time_to_filetime, EntryMeta, Method, PollWriter, SevenZError, Solid,
    Writer, WriterOptions,
};

#[cfg(any(feature = "tokio", feature = "futures-io"))]
pub mod face;
#[cfg(feature = "futures-io")]
pub mod futures;
#[cfg(feature = "tokio")]
mod tokio_face;

#[cfg(feature = "tokio")]
pub use self::tokio_face::AsyncWriter;
