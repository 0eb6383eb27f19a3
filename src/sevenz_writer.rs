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
//! ```no_run
//! # async fn demo() -> Result<(), lzflow::sevenz_writer::SevenZError> {
//! use lzflow::sevenz_writer::{AsyncWriter, EntryMeta, WriterOptions};
//! let file = tokio::fs::File::create("backup.7z").await?;
//! let mut w = AsyncWriter::with_options(file, WriterOptions::default().with_password("pw")).await?;
//! let data = tokio::fs::File::open("notes.txt").await?;
//! w.add_file("notes.txt", data, EntryMeta::default()).await?;
//! w.finish().await?;
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
