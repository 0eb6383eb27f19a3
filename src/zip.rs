//! Zip archives (reading; issue 23 is adding the forward-only stream
//! reader and extraction).
//!
//! The blocking reader is [`ZipArchive`] (from `lzflow-zip`) over any
//! `Read + Seek` (a file, a `Cursor<&[u8]>`). With the `tokio` feature,
//! [`AsyncZipArchive`] reads a tokio `AsyncRead + AsyncSeek` source; with
//! `futures-io`, [`futures::AsyncZipArchive`] reads a futures-io one. All
//! three run one poll-style core ([`PollZipArchive`]).
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
    CentralDirectory, CentralEntry, PollZipArchive, PollZipEntryReader, ZipArchive, ZipEntryReader,
    ZipError, ZipOptions,
};

#[cfg(any(feature = "tokio", feature = "futures-io"))]
pub mod face;
#[cfg(feature = "futures-io")]
pub mod futures;
#[cfg(feature = "tokio")]
mod tokio_face;

#[cfg(feature = "tokio")]
pub use self::tokio_face::{AsyncZipArchive, AsyncZipEntryReader};
