//! The tokio adapters of the container cores' source and sink
//! ([`PollSource`], [`PollSink`]):
//! tokio's two-step seek and its cooperative budget. The tokio container
//! faces are the generic faces over it (e.g.
//! `lzflow::sevenz::AsyncArchive<R>` is
//! `lzflow::sevenz::face::AsyncArchive<TokioSource<R>>`).

use std::io::{self, SeekFrom};
use std::pin::Pin;
use std::task::{ready, Context, Poll};

use ::tokio::io::{AsyncRead, AsyncSeek, AsyncWrite, ReadBuf};

use super::coop::TimedStep;
use super::seek::TwoStepSeek;
pub use lzflow_core::source::{Adapter, PollRead, PollSink, PollSource, PollWrite};

/// A tokio `AsyncRead + AsyncSeek` as a [`PollSource`].
#[derive(Debug)]
pub struct TokioSource<R> {
    pub(crate) inner: R,
    seek: TwoStepSeek,
    step: TimedStep,
}

impl<R> TokioSource<R> {
    /// Adapts `inner`.
    pub fn new(inner: R) -> Self {
        TokioSource {
            inner,
            seek: TwoStepSeek::default(),
            step: TimedStep::default(),
        }
    }
}

impl<R: AsyncRead + Unpin> PollRead for TokioSource<R> {
    fn poll_read(&mut self, cx: &mut Context<'_>, buf: &mut [u8]) -> Poll<io::Result<usize>> {
        let mut rb = ReadBuf::new(buf);
        ready!(Pin::new(&mut self.inner).poll_read(cx, &mut rb))?;
        Poll::Ready(Ok(rb.filled().len()))
    }

    fn poll_proceed(&mut self, cx: &mut Context<'_>) -> Poll<()> {
        self.step.poll_start(cx)
    }

    fn step_done(&mut self) {
        self.step.done();
    }
}

impl<R: AsyncRead + AsyncSeek + Unpin> PollSource for TokioSource<R> {
    fn poll_seek(&mut self, cx: &mut Context<'_>, pos: SeekFrom) -> Poll<io::Result<u64>> {
        self.seek.poll_seek(&mut self.inner, cx, pos)
    }
}

impl<R> TokioSource<R> {
    /// Gives back the reader.
    pub fn into_inner(self) -> R {
        self.inner
    }
}

/// A tokio `AsyncWrite + AsyncSeek` as a [`PollSink`].
#[derive(Debug)]
pub struct TokioSink<W> {
    inner: W,
    seek: TwoStepSeek,
    step: TimedStep,
}

impl<W> TokioSink<W> {
    /// Adapts `inner`.
    pub fn new(inner: W) -> Self {
        TokioSink {
            inner,
            seek: TwoStepSeek::default(),
            step: TimedStep::default(),
        }
    }

    /// Gives back the writer.
    pub fn into_inner(self) -> W {
        self.inner
    }
}

impl<W: AsyncWrite + AsyncSeek + Unpin> PollSink for TokioSink<W> {
    fn poll_write(&mut self, cx: &mut Context<'_>, buf: &[u8]) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.inner).poll_write(cx, buf)
    }

    fn poll_seek(&mut self, cx: &mut Context<'_>, pos: SeekFrom) -> Poll<io::Result<u64>> {
        self.seek.poll_seek(&mut self.inner, cx, pos)
    }

    fn poll_flush(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_flush(cx)
    }

    fn poll_proceed(&mut self, cx: &mut Context<'_>) -> Poll<()> {
        self.step.poll_start(cx)
    }

    fn step_done(&mut self) {
        self.step.done();
    }
}

/// Seeks a tokio writer in its two steps.
type SeekFn<W> = fn(&mut TwoStepSeek, &mut W, &mut Context<'_>, SeekFrom) -> Poll<io::Result<u64>>;

/// A tokio `AsyncWrite` as a [`PollWrite`]: one that seeks when made with
/// [`seekable`](Self::seekable) (a file), one that does not when made with
/// [`streaming`](Self::streaming) (a socket, an HTTP body).
pub struct TokioWriter<W> {
    inner: W,
    seek: Option<SeekFn<W>>,
    two_step: TwoStepSeek,
    step: TimedStep,
}

impl<W> std::fmt::Debug for TokioWriter<W> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TokioWriter")
            .field("seekable", &self.seek.is_some())
            .finish_non_exhaustive()
    }
}

impl<W: AsyncWrite + Unpin> TokioWriter<W> {
    /// Adapts a writer that cannot seek.
    pub fn streaming(inner: W) -> Self {
        TokioWriter {
            inner,
            seek: None,
            two_step: TwoStepSeek::default(),
            step: TimedStep::default(),
        }
    }

    /// Gives back the writer.
    pub fn into_inner(self) -> W {
        self.inner
    }
}

impl<W: AsyncWrite + AsyncSeek + Unpin> TokioWriter<W> {
    /// Adapts a writer that seeks.
    pub fn seekable(inner: W) -> Self {
        TokioWriter {
            seek: Some(|two_step, w, cx, pos| two_step.poll_seek(w, cx, pos)),
            ..TokioWriter::streaming(inner)
        }
    }
}

impl<W: AsyncWrite + Unpin> PollWrite for TokioWriter<W> {
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
            Some(seek) => seek(&mut self.two_step, &mut self.inner, cx, pos),
            None => Poll::Ready(Err(io::ErrorKind::Unsupported.into())),
        }
    }

    fn poll_proceed(&mut self, cx: &mut Context<'_>) -> Poll<()> {
        self.step.poll_start(cx)
    }

    fn step_done(&mut self) {
        self.step.done();
    }
}

impl<R> Adapter for TokioSource<R> {
    type Inner = R;
    type Reader<T> = TokioSource<T>;
    fn new(inner: R) -> Self {
        TokioSource::new(inner)
    }
    fn into_inner(self) -> R {
        TokioSource::into_inner(self)
    }
    fn reader<T>(reader: T) -> TokioSource<T> {
        TokioSource::new(reader)
    }
}

/// As an [`Adapter`], a writer is taken as one that cannot seek
/// ([`streaming`](TokioWriter::streaming)); a face that wants seeking
/// makes it with [`seekable`](TokioWriter::seekable).
impl<W: AsyncWrite + Unpin> Adapter for TokioWriter<W> {
    type Inner = W;
    type Reader<T> = TokioSource<T>;
    fn new(inner: W) -> Self {
        TokioWriter::streaming(inner)
    }
    fn into_inner(self) -> W {
        TokioWriter::into_inner(self)
    }
    fn reader<T>(reader: T) -> TokioSource<T> {
        TokioSource::new(reader)
    }
}

impl<W> Adapter for TokioSink<W> {
    type Inner = W;
    type Reader<T> = TokioSource<T>;
    fn new(inner: W) -> Self {
        TokioSink::new(inner)
    }
    fn into_inner(self) -> W {
        TokioSink::into_inner(self)
    }
    fn reader<T>(reader: T) -> TokioSource<T> {
        TokioSource::new(reader)
    }
}
