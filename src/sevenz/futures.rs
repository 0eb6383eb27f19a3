//! The futures-io face: [`AsyncArchive`] over `futures_io::AsyncRead +
//! AsyncSeek` (async-std, smol, `futures::io::AllowStdIo`, …). A thin
//! adapter over the runtime-free core, twin of the tokio face.

use std::io;
use std::pin::Pin;
use std::task::{Context, Poll};

use futures_io::{AsyncRead, AsyncSeek};

use super::async_core::{spool_from, Core, CoreEntries, CoreEntryReader};
use super::AsyncSpooled;
use crate::futures::source::FuturesSource;
use lzflow_7z::{ArchiveIndex, ArchiveOptions, Entry, SevenZError, SpoolOptions};

type Source<R> = FuturesSource<R>;

/// A 7z archive over a futures-io `AsyncRead + AsyncSeek` source.
#[derive(Debug)]
pub struct AsyncArchive<R> {
    core: Core<Source<R>>,
}

impl<R: AsyncRead + AsyncSeek + Unpin> AsyncArchive<R> {
    /// Opens an archive with default options.
    pub async fn open(reader: R) -> Result<Self, SevenZError> {
        Self::open_with(reader, ArchiveOptions::default()).await
    }

    /// Opens an archive: reads and verifies the signature header and the
    /// header (decoding and decrypting it when packed).
    pub async fn open_with(reader: R, options: ArchiveOptions) -> Result<Self, SevenZError> {
        let src = FuturesSource { inner: reader };
        Ok(AsyncArchive {
            core: Core::open_with(src, options).await?,
        })
    }

    /// Every entry, in archive order.
    pub fn entries(&self) -> &[Entry] {
        self.core.index.entries()
    }

    /// The parsed header.
    pub fn index(&self) -> &ArchiveIndex {
        &self.core.index
    }

    /// Gives back the source.
    pub fn into_inner(self) -> R {
        self.core.src.inner
    }

    /// An `AsyncRead` of entry `index`'s data; in a solid folder the
    /// entries before it are decoded and discarded first.
    pub async fn reader(&mut self, index: usize) -> Result<AsyncEntryReader<'_, R>, SevenZError> {
        Ok(AsyncEntryReader {
            inner: self.core.reader(index).await?,
        })
    }

    /// Extracts every entry below `dir` (created if missing) with the
    /// default [`ExtractOptions`](lzflow_7z::ExtractOptions): existing
    /// files are refused before anything is written.
    pub async fn extract_to(
        &mut self,
        dir: impl AsRef<std::path::Path>,
    ) -> Result<(), SevenZError> {
        self.extract_to_with(dir, &lzflow_7z::ExtractOptions::default())
            .await
    }

    /// Extracts every entry below `dir` under `options`, with the same
    /// rules and steps as the sync
    /// [`Archive::extract_to_with`](lzflow_7z::Archive::extract_to_with)
    /// (one [`Extraction`](lzflow_7z::Extraction)). The archive is read
    /// asynchronously; files are written with `std::fs` calls from this
    /// task, 64 KiB at a time.
    pub async fn extract_to_with(
        &mut self,
        dir: impl AsRef<std::path::Path>,
        options: &lzflow_7z::ExtractOptions,
    ) -> Result<(), SevenZError> {
        self.core.extract_to_with(dir.as_ref(), options).await
    }

    /// Walks the entries in archive order, decoding each folder once;
    /// see [`AsyncEntries::next_entry`].
    pub fn entries_stream(&mut self) -> AsyncEntries<'_, R> {
        AsyncEntries {
            inner: self.core.entries_stream(),
        }
    }
}

impl AsyncArchive<AsyncSpooled> {
    /// Opens an archive from a source that cannot seek (a socket, a pipe,
    /// an upload body): the whole source is copied first, into memory up to
    /// `spool.memory_limit` bytes and beyond that into an anonymous
    /// temporary file in `spool.temp_dir`, then opened from the copy.
    pub async fn open_spooled<S: AsyncRead + Unpin>(
        reader: S,
        spool: SpoolOptions,
    ) -> Result<Self, SevenZError> {
        Self::open_spooled_with(reader, spool, ArchiveOptions::default()).await
    }

    /// [`open_spooled`](Self::open_spooled) with archive options.
    pub async fn open_spooled_with<S: AsyncRead + Unpin>(
        mut reader: S,
        spool: SpoolOptions,
        options: ArchiveOptions,
    ) -> Result<Self, SevenZError> {
        let copy = spool_from(|cx, buf| Pin::new(&mut reader).poll_read(cx, buf), spool).await?;
        Self::open_with(AsyncSpooled(copy), options).await
    }
}

/// Reads one entry's data (from [`AsyncArchive::reader`]); ends with an
/// error if the data does not match the entry's CRC.
#[derive(Debug)]
pub struct AsyncEntryReader<'a, R> {
    inner: CoreEntryReader<'a, Source<R>>,
}

impl<R: AsyncRead + AsyncSeek + Unpin> AsyncRead for AsyncEntryReader<'_, R> {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut [u8],
    ) -> Poll<io::Result<usize>> {
        self.get_mut().inner.poll_read(cx, buf)
    }
}

/// Sequential access to every entry: call
/// [`next_entry`](Self::next_entry), then read the entry's data from
/// `self` (it implements `AsyncRead`). Data left unread is decoded and its
/// CRC verified when moving on.
#[derive(Debug)]
pub struct AsyncEntries<'a, R> {
    inner: CoreEntries<'a, Source<R>>,
}

impl<R: AsyncRead + AsyncSeek + Unpin> AsyncEntries<'_, R> {
    /// Finishes the current entry (verifying its CRC) and moves to the
    /// next one; `None` after the last.
    pub async fn next_entry(&mut self) -> Result<Option<Entry>, SevenZError> {
        self.inner.next_entry().await
    }
}

impl<R: AsyncRead + AsyncSeek + Unpin> AsyncRead for AsyncEntries<'_, R> {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut [u8],
    ) -> Poll<io::Result<usize>> {
        self.get_mut().inner.poll_read(cx, buf)
    }
}
