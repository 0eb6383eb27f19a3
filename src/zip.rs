//! Zip archives, read two ways.
//!
//! * Through the central directory, with random access: [`ZipArchive`]
//!   (from `lzflow-zip`) over any `Read + Seek` (a file, a
//!   `Cursor<&[u8]>`); with the `tokio` feature, [`AsyncZipArchive`] over a
//!   tokio `AsyncRead + AsyncSeek` source; with `futures-io`,
//!   [`futures::AsyncZipArchive`]. All three run one poll-style core
//!   ([`PollZipArchive`]).
//! * Forward-only, entry by entry, from any reader that cannot seek (an
//!   upload body, a socket, stdin): [`ZipStreamReader`] over `Read`,
//!   [`AsyncZipStreamReader`] over tokio's `AsyncRead`,
//!   [`futures::AsyncZipStreamReader`] over futures-io's; one core
//!   ([`PollZipStream`]). Entries with data descriptors are read too,
//!   Stored ones included.
//!
//! ```no_run
//! # async fn demo() -> Result<(), lzflow::zip::ZipError> {
//! use lzflow::zip::{AsyncZipArchive, ZipOptions};
//! use tokio::io::AsyncReadExt;
//! let file = tokio::fs::File::open("upload.zip").await?;
//! let mut zip = AsyncZipArchive::open_with(file, ZipOptions::new().with_password("pw")).await?;
//! for i in 0..zip.len() {
//!     let name = zip.directory().get(i).map(|e| e.name().into_owned());
//!     let mut data = Vec::new();
//!     zip.reader(i).await?.read_to_end(&mut data).await?;
//!     println!("{name:?}: {} bytes", data.len());
//! }
//! # Ok(()) }
//! ```

pub use lzflow_zip::{
    set_idle_decompressors, AesStrength, CentralDirectory, CentralEntry, DirectoryLocator,
    Encryption, EntryKind, EntryOptions, ExtractOptions, LocalEntry, PollZipArchive,
    PollZipEntryReader, PollZipStream, PollZipWriter, WriteMethod, ZipArchive, ZipEntryReader,
    ZipError, ZipOptions, ZipStreamEntry, ZipStreamReader, ZipWriter, ZipWriterOptions,
    DEFAULT_IDLE_DECOMPRESSORS, HOLD, MAX_LOOK_AHEAD, STORE_CHECK_LIMIT,
};

#[cfg(any(feature = "tokio", feature = "futures-io"))]
mod body;
#[cfg(any(feature = "tokio", feature = "futures-io"))]
pub mod face;
#[cfg(any(feature = "tokio", feature = "futures-io"))]
pub mod write_face;
#[cfg(any(feature = "tokio", feature = "futures-io"))]
pub use body::{body_stream, BodySink, ZipBody};
#[cfg(feature = "futures-io")]
pub mod futures;
#[cfg(feature = "tokio")]
mod tokio_face;

#[cfg(feature = "tokio")]
pub use self::tokio_face::{
    AsyncZipArchive, AsyncZipEntryReader, AsyncZipStreamEntry, AsyncZipStreamReader, AsyncZipWriter,
    ZipEntryStream,
};
#[cfg(any(feature = "tokio", feature = "futures-io"))]
pub use face::StreamedEntry;
