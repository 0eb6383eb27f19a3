//! The futures-io adapters of the container cores' source and sink
//! ([`PollSource`], [`PollSink`]). The futures-io container faces are the generic faces
//! over it (e.g. `lzflow::sevenz::futures::AsyncArchive<R>` is
//! `lzflow::sevenz::face::AsyncArchive<FuturesSource<R>>`).

use std::io::{self, SeekFrom};
use std::pin::Pin;
use std::task::{Context, Poll};

use futures_io::{AsyncRead, AsyncSeek, AsyncWrite};

pub use lzflow_core::source::{Adapter, PollRead, PollSink, PollSource, PollWrite};

/// A futures-io `AsyncRead + AsyncSeek` as a [`PollSource`].
#[derive(Debug)]
pub struct FuturesSource<R> {
    pub(crate) inner: R,
}

impl<R> FuturesSource<R> {
    /// Adapts `inner`.
    pub fn new(inner: R) -> Self {
        FuturesSource { inner }
    }
}

impl<R: AsyncRead + Unpin> PollRead for FuturesSource<R> {
    fn poll_read(&mut self, cx: &mut Context<'_>, buf: &mut [u8]) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.inner).poll_read(cx, buf)
    }
}

impl<R: AsyncRead + AsyncSeek + Unpin> PollSource for FuturesSource<R> {
    fn poll_seek(&mut self, cx: &mut Context<'_>, pos: SeekFrom) -> Poll<io::Result<u64>> {
        Pin::new(&mut self.inner).poll_seek(cx, pos)
    }
}

impl<R> FuturesSource<R> {
    /// Gives back the reader.
    pub fn into_inner(self) -> R {
        self.inner
    }
}

/// A futures-io `AsyncWrite + AsyncSeek` as a [`PollSink`].
#[derive(Debug)]
pub struct FuturesSink<W> {
    inner: W,
}

impl<W> FuturesSink<W> {
    /// Adapts `inner`.
    pub fn new(inner: W) -> Self {
        FuturesSink { inner }
    }

    /// Gives back the writer.
    pub fn into_inner(self) -> W {
        self.inner
    }
}

impl<W: AsyncWrite + AsyncSeek + Unpin> PollSink for FuturesSink<W> {
    fn poll_write(&mut self, cx: &mut Context<'_>, buf: &[u8]) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.inner).poll_write(cx, buf)
    }

    fn poll_seek(&mut self, cx: &mut Context<'_>, pos: SeekFrom) -> Poll<io::Result<u64>> {
        Pin::new(&mut self.inner).poll_seek(cx, pos)
    }

    fn poll_flush(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_flush(cx)
    }
}

/// Seeks a futures-io writer.
type SeekFn<W> = fn(&mut W, &mut Context<'_>, SeekFrom) -> Poll<io::Result<u64>>;

/// A futures-io `AsyncWrite` as a [`PollWrite`]: one that seeks when made
/// with [`seekable`](Self::seekable), one that does not when made with
/// [`streaming`](Self::streaming).
pub struct FuturesWriter<W> {
    inner: W,
    seek: Option<SeekFn<W>>,
}

impl<W> std::fmt::Debug for FuturesWriter<W> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FuturesWriter")
            .field("seekable", &self.seek.is_some())
            .finish_non_exhaustive()
    }
}

impl<W: AsyncWrite + Unpin> FuturesWriter<W> {
    /// Adapts a writer that cannot seek.
    pub fn streaming(inner: W) -> Self {
        FuturesWriter { inner, seek: None }
    }

    /// Gives back the writer.
    pub fn into_inner(self) -> W {
        self.inner
    }
}

impl<W: AsyncWrite + AsyncSeek + Unpin> FuturesWriter<W> {
    /// Adapts a writer that seeks.
    pub fn seekable(inner: W) -> Self {
        FuturesWriter {
            inner,
            seek: Some(|w, cx, pos| Pin::new(w).poll_seek(cx, pos)),
        }
    }
}

impl<W: AsyncWrite + Unpin> PollWrite for FuturesWriter<W> {
    fn poll_write(&mut self, cx: &mut Context<'_>, buf: &[u8]) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.inner).poll_write(cx, buf)
    }

    fn poll_flush(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_flush(cx)
    }

    fn can_seek(&self) -> bool {
        self.seek.is_some()
    }

    fn poll_seek(&mut self, cx: &mut Context<'_>, pos: SeekFrom) -> Poll<io::Result<u64>> {
        match self.seek {
            Some(seek) => seek(&mut self.inner, cx, pos),
            None => Poll::Ready(Err(io::ErrorKind::Unsupported.into())),
        }
    }
}

impl<R> Adapter for FuturesSource<R> {
    type Inner = R;
    type Reader<T> = FuturesSource<T>;
    fn new(inner: R) -> Self {
        FuturesSource::new(inner)
    }
    fn into_inner(self) -> R {
        FuturesSource::into_inner(self)
    }
    fn reader<T>(reader: T) -> FuturesSource<T> {
        FuturesSource::new(reader)
    }
}

/// As an [`Adapter`], a writer is taken as one that cannot seek
/// ([`streaming`](FuturesWriter::streaming)); a face that wants seeking
/// makes it with [`seekable`](FuturesWriter::seekable).
impl<W: AsyncWrite + Unpin> Adapter for FuturesWriter<W> {
    type Inner = W;
    type Reader<T> = FuturesSource<T>;
    fn new(inner: W) -> Self {
        FuturesWriter::streaming(inner)
    }
    fn into_inner(self) -> W {
        FuturesWriter::into_inner(self)
    }
    fn reader<T>(reader: T) -> FuturesSource<T> {
        FuturesSource::new(reader)
    }
}

impl<W> Adapter for FuturesSink<W> {
    type Inner = W;
    type Reader<T> = FuturesSource<T>;
    fn new(inner: W) -> Self {
        FuturesSink::new(inner)
    }
    fn into_inner(self) -> W {
        FuturesSink::into_inner(self)
    }
    fn reader<T>(reader: T) -> FuturesSource<T> {
        FuturesSource::new(reader)
    }
}
