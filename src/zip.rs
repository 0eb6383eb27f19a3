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
//! Written and read back, blocking and async (feature `tokio`; files,
//! sockets and HTTP bodies work the same way):
//! ```
//! use std::io::{Cursor, Read};
//! use lzflow::zip::{EntryOptions, WriteMethod, ZipArchive, ZipStreamReader, ZipWriter};
//!
//! # fn main() -> Result<(), lzflow::zip::ZipError> {
//! let deflate = EntryOptions::default().with_method(WriteMethod::Deflate, 6);
//!
//! // Blocking writer, into any `Write + Seek` (`new_streaming` for a
//! // `Write` that cannot seek).
//! let mut writer = ZipWriter::new(Cursor::new(Vec::new()))?;
//! writer.add_file("a.txt", &b"zip, zip, zip"[..], &deflate)?;
//! let file = writer.finish()?.into_inner();
//!
//! // Blocking reader, through the central directory…
//! let mut zip = ZipArchive::open(Cursor::new(&file))?;
//! assert_eq!(zip.directory().get(0).unwrap().name(), "a.txt");
//! let mut text = String::new();
//! zip.reader(0)?.read_to_string(&mut text)?;
//! assert_eq!(text, "zip, zip, zip");
//!
//! // …or forward-only, from a reader that cannot seek.
//! let mut stream = ZipStreamReader::new(&file[..]);
//! let mut entry = stream.next_entry()?.expect("one entry");
//! assert_eq!(entry.name(), "a.txt");
//! text.clear();
//! entry.read_to_string(&mut text)?;
//! assert_eq!(text, "zip, zip, zip");
//!
//! # #[cfg(feature = "tokio")]
//! tokio::runtime::Builder::new_current_thread().build()?.block_on(async {
//!     use lzflow::zip::{AsyncZipArchive, AsyncZipWriter};
//!     use tokio::io::AsyncReadExt;
//!
//!     let mut writer = AsyncZipWriter::new(Cursor::new(Vec::new()))?;
//!     writer.add_file("b.txt", &b"async zip"[..], &deflate).await?;
//!     writer.finish().await?;
//!     let file = writer.into_inner().into_inner();
//!
//!     let mut zip = AsyncZipArchive::open(Cursor::new(file)).await?;
//!     let mut data = Vec::new();
//!     zip.reader(0).await?.read_to_end(&mut data).await?;
//!     assert_eq!(data, b"async zip");
//!     Ok::<_, lzflow::zip::ZipError>(())
//! })?;
//! # Ok(()) }
//! ```

pub use lzflow_zip::{
    set_idle_decompressors, AesExtra, AesStrength, AesVendorVersion, CentralDirectory,
    CentralDirectoryLocation, CentralDirectoryReader, CentralEntry, DirectoryLocator, Encryption,
    EntryKind, EntryOptions, ExtractOptions, LocalEntry, PollCentralDirectoryReader,
    PollZipArchive, PollZipEntryReader, PollZipStream, PollZipWriter, WriteMethod, ZipArchive,
    ZipEntryReader, ZipError, ZipOptions, ZipStreamEntry, ZipStreamReader, ZipWriter,
    ZipWriterOptions, DEFAULT_IDLE_DECOMPRESSORS, HOLD, MAX_LOOK_AHEAD, STORE_CHECK_LIMIT,
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
    AsyncCentralDirectoryReader, AsyncZipArchive, AsyncZipEntryReader, AsyncZipStreamEntry,
    AsyncZipStreamReader, AsyncZipWriter, ZipEntryStream,
};
#[cfg(any(feature = "tokio", feature = "futures-io"))]
pub use face::StreamedEntry;
