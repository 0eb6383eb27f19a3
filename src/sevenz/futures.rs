//! The futures-io face: [`AsyncArchive`] over `futures_io::AsyncRead +
//! AsyncSeek` (async-std, smol, `futures::io::AllowStdIo`, …):
//! constructors and `AsyncRead` impls over the generic face, twin of the
//! tokio face.

use std::io;
use std::pin::Pin;
use std::task::{Context, Poll};

use futures_io::{AsyncRead, AsyncSeek};

use super::{face, AsyncSpooled};
use crate::futures::source::FuturesSource;
use lzflow_7z::{ArchiveOptions, PollArchive, SevenZError, SpoolOptions};

/// A 7z archive over a futures-io `AsyncRead + AsyncSeek` source.
pub type AsyncArchive<R> = face::AsyncArchive<FuturesSource<R>>;
/// Reads one entry's data (from [`AsyncArchive::reader`]).
pub type AsyncEntryReader<'a, R> = face::AsyncEntryReader<'a, FuturesSource<R>>;
/// Sequential access to every entry ([`AsyncArchive::entries_stream`]).
pub type AsyncEntries<'a, R> = face::AsyncEntries<'a, FuturesSource<R>>;

impl<R: AsyncRead + AsyncSeek + Unpin> AsyncArchive<R> {
    /// Opens an archive with default options.
    pub async fn open(reader: R) -> Result<Self, SevenZError> {
        Self::open_with(reader, ArchiveOptions::default()).await
    }

    /// Opens an archive: reads and verifies the signature header and the
    /// header (decoding and decrypting it when packed).
    pub async fn open_with(reader: R, options: ArchiveOptions) -> Result<Self, SevenZError> {
        let core = PollArchive::open(FuturesSource { inner: reader }, options).await?;
        Ok(face::AsyncArchive { core })
    }

    /// Gives back the source.
    pub fn into_inner(self) -> R {
        self.core.into_source().inner
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
        reader: S,
        spool: SpoolOptions,
        options: ArchiveOptions,
    ) -> Result<Self, SevenZError> {
        let mut src = FuturesSource { inner: reader };
        let copy = lzflow_7z::spool::spool_from(&mut src, spool).await?;
        Self::open_with(AsyncSpooled(copy), options).await
    }
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

impl<R: AsyncRead + AsyncSeek + Unpin> AsyncRead for AsyncEntries<'_, R> {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut [u8],
    ) -> Poll<io::Result<usize>> {
        self.get_mut().inner.poll_read(cx, buf)
    }
}
