//! The futures-io face: [`AsyncZipArchive`] over futures-io's `AsyncRead`
//! and `AsyncSeek`, the generic face with the futures-io adapter, and
//! futures-io's `AsyncRead` for its entry reader.

use std::io;
use std::pin::Pin;
use std::task::{Context, Poll};

use futures_io::{AsyncRead, AsyncSeek, AsyncWrite};

use super::face;
use crate::futures::source::{FuturesSource, FuturesWriter};

/// A zip archive over a futures-io `AsyncRead + AsyncSeek` source.
pub type AsyncZipArchive<R> = face::AsyncZipArchive<FuturesSource<R>>;
/// A zip archive read forward-only from a futures-io `AsyncRead`.
pub type AsyncZipStreamReader<R> = face::AsyncZipStreamReader<FuturesSource<R>>;
/// One entry of an [`AsyncZipStreamReader`], readable as it arrives.
pub type AsyncZipStreamEntry<'a, R> = face::AsyncZipStreamEntry<'a, FuturesSource<R>>;
/// The owned stream of entries and their data
/// ([`AsyncZipStreamReader::into_entries`]).
pub type ZipEntryStream<R> = face::ZipEntryStream<FuturesSource<R>>;
/// The entries of an archive listed from its central directory one at a
/// time, without holding the directory.
pub type AsyncCentralDirectoryReader<R> = face::AsyncCentralDirectoryReader<FuturesSource<R>>;
/// Reads one entry's data (from [`AsyncZipArchive::reader`]).
pub type AsyncZipEntryReader<'a, R> = face::AsyncZipEntryReader<'a, FuturesSource<R>>;

impl<R: AsyncRead + AsyncSeek + Unpin> AsyncRead for AsyncZipEntryReader<'_, R> {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut [u8],
    ) -> Poll<io::Result<usize>> {
        self.get_mut().inner.poll_read(cx, buf)
    }
}

impl<R: AsyncRead + Unpin> AsyncRead for AsyncZipStreamEntry<'_, R> {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut [u8],
    ) -> Poll<io::Result<usize>> {
        self.get_mut().core.poll_read(cx, buf)
    }
}

/// A zip archive being written into a futures-io `AsyncWrite`.
pub type AsyncZipWriter<W> = super::write_face::AsyncZipWriter<FuturesWriter<W>>;

impl<W: AsyncWrite + AsyncSeek + Unpin> AsyncZipWriter<W> {
    /// A writer into a sink that seeks: local headers rewritten with
    /// sizes, no data descriptors.
    pub fn new(sink: W) -> Result<Self, lzflow_zip::ZipError> {
        Self::new_with(sink, lzflow_zip::ZipWriterOptions::new())
    }

    /// [`new`](Self::new) with options (the comment, compressing
    /// threads: with more than one, entries are compressed on worker
    /// threads and no poll waits for them).
    pub fn new_with(
        sink: W,
        options: lzflow_zip::ZipWriterOptions,
    ) -> Result<Self, lzflow_zip::ZipError> {
        Self::from_sink(FuturesWriter::seekable(sink), options)
    }
}

/// The current entry's data; closing finishes the archive.
impl<S: lzflow_core::source::PollWrite + Unpin> AsyncWrite
    for super::write_face::AsyncZipWriter<S>
{
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        self.get_mut().core.poll_write(cx, buf)
    }

    fn poll_flush(self: Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Poll::Ready(Ok(()))
    }

    fn poll_close(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        self.get_mut().core.poll_finish(cx).map_err(io::Error::from)
    }
}
