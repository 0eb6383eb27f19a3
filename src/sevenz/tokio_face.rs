//! The tokio face: [`AsyncArchive`] over `tokio::io::AsyncRead +
//! AsyncSeek`: constructors and `AsyncRead` impls over the generic face.

use std::io;
use std::pin::Pin;
use std::task::{ready, Context, Poll};

use ::tokio::io::{AsyncRead, AsyncSeek, ReadBuf};

use super::{face, AsyncSpooled};
use crate::tokio::source::TokioSource;
use lzflow_7z::{ArchiveOptions, PollArchive, SevenZError, SpoolOptions};

/// A 7z archive over a tokio `AsyncRead + AsyncSeek` source (e.g.
/// `tokio::fs::File`).
pub type AsyncArchive<R> = face::AsyncArchive<TokioSource<R>>;
/// Reads one entry's data (from [`AsyncArchive::reader`]).
pub type AsyncEntryReader<'a, R> = face::AsyncEntryReader<'a, TokioSource<R>>;
/// Sequential access to every entry ([`AsyncArchive::entries_stream`]).
pub type AsyncEntries<'a, R> = face::AsyncEntries<'a, TokioSource<R>>;

impl<R: AsyncRead + AsyncSeek + Unpin> AsyncArchive<R> {
    /// Opens an archive with default options.
    pub async fn open(reader: R) -> Result<Self, SevenZError> {
        Self::open_with(reader, ArchiveOptions::default()).await
    }

    /// Opens an archive: reads and verifies the signature header and the
    /// header (decoding and decrypting it when packed).
    pub async fn open_with(reader: R, options: ArchiveOptions) -> Result<Self, SevenZError> {
        let core = PollArchive::open(TokioSource::new(reader), options).await?;
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
        let copy = lzflow_7z::spool::spool_from(&mut TokioSource::new(reader), spool).await?;
        Self::open_with(AsyncSpooled(copy), options).await
    }
}

/// Fills the unfilled part of a tokio `ReadBuf` from a slice reader.
fn fill_read_buf(
    buf: &mut ReadBuf<'_>,
    read: impl FnOnce(&mut [u8]) -> Poll<io::Result<usize>>,
) -> Poll<io::Result<()>> {
    let n = ready!(read(buf.initialize_unfilled()))?;
    buf.advance(n);
    Poll::Ready(Ok(()))
}

impl<R: AsyncRead + AsyncSeek + Unpin> AsyncRead for AsyncEntryReader<'_, R> {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        fill_read_buf(buf, |b| this.inner.poll_read(cx, b))
    }
}

impl<R: AsyncRead + AsyncSeek + Unpin> AsyncRead for AsyncEntries<'_, R> {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        fill_read_buf(buf, |b| this.inner.poll_read(cx, b))
    }
}
