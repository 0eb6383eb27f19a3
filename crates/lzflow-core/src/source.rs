//! The byte sources and sinks every poll-style container core talks to.
//!
//! A container (7z, random access into `.xz`, zip) owns one core written
//! against these traits, in poll style. Each runtime supplies one adapter
//! per trait (the facade's `tokio::source` and `futures::source`); std
//! readers and writers are wrapped in [`Blocking`], which is never pending,
//! and the std faces drive the same core with [`block_on`].

use std::future::Future;
use std::io::{self, Read, Seek, SeekFrom, Write};
use std::pin::pin;
use std::task::{Context, Poll, Waker};

/// A pollable byte source that cannot seek (the data of one file to add).
pub trait PollRead {
    /// Reads into `buf`; `Ok(0)` at the end.
    fn poll_read(&mut self, cx: &mut Context<'_>, buf: &mut [u8]) -> Poll<io::Result<usize>>;
    /// Asked before each decoding step: `Pending`, with the task's wake-up
    /// arranged, if the task should let others run first. The tokio
    /// adapter asks tokio's cooperative budget; by default the answer is
    /// `Ready`.
    fn poll_proceed(&mut self, _cx: &mut Context<'_>) -> Poll<()> {
        Poll::Ready(())
    }
    /// The step allowed by the last `poll_proceed` is over.
    fn step_done(&mut self) {}
    /// True for a source that is never pending ([`Blocking`]): a core over
    /// it may block the thread (wait for its worker threads) where over
    /// an async source it must return `Pending` instead.
    fn blocks_thread(&self) -> bool {
        false
    }
}

/// A pollable, seekable byte source: the one thing a runtime face supplies
/// to a reading core.
pub trait PollSource: PollRead {
    /// Seeks to `pos`. After `Pending` it is called again with the same
    /// `pos` (or, if the future was dropped, with a new one).
    fn poll_seek(&mut self, cx: &mut Context<'_>, pos: SeekFrom) -> Poll<io::Result<u64>>;
}

/// A pollable, seekable byte sink: what a runtime face supplies to a
/// writing core.
pub trait PollSink {
    /// Writes some of `buf`; `Ok(0)` means the sink takes no more.
    fn poll_write(&mut self, cx: &mut Context<'_>, buf: &[u8]) -> Poll<io::Result<usize>>;
    /// Seeks to `pos`. After `Pending` it is called again with the same
    /// `pos` (or, if the future was dropped, with a new one).
    fn poll_seek(&mut self, cx: &mut Context<'_>, pos: SeekFrom) -> Poll<io::Result<u64>>;
    /// Flushes buffered bytes to their destination.
    fn poll_flush(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<()>>;
    /// Asked before each piece of work, as [`PollRead::poll_proceed`].
    fn poll_proceed(&mut self, _cx: &mut Context<'_>) -> Poll<()> {
        Poll::Ready(())
    }
    /// The piece of work allowed by the last `poll_proceed` is over.
    fn step_done(&mut self) {}
}

/// A pollable byte sink that may be able to seek: what a writing core
/// that works either way talks to (the zip writer streams data descriptors
/// into a sink that cannot seek, and patches local headers in one that
/// can). Std writers are wrapped in [`StdSink`].
pub trait PollWrite {
    /// Writes some of `buf`; `Ok(0)` means the sink takes no more.
    fn poll_write(&mut self, cx: &mut Context<'_>, buf: &[u8]) -> Poll<io::Result<usize>>;
    /// Flushes buffered bytes to their destination.
    fn poll_flush(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<()>>;
    /// Whether [`poll_seek`](Self::poll_seek) works.
    fn can_seek(&self) -> bool {
        false
    }
    /// Seeks to `pos`, where [`can_seek`](Self::can_seek). After `Pending`
    /// it is called again with the same `pos`.
    fn poll_seek(&mut self, _cx: &mut Context<'_>, _pos: SeekFrom) -> Poll<io::Result<u64>> {
        Poll::Ready(Err(io::ErrorKind::Unsupported.into()))
    }
    /// Asked before each piece of work, as [`PollRead::poll_proceed`].
    fn poll_proceed(&mut self, _cx: &mut Context<'_>) -> Poll<()> {
        Poll::Ready(())
    }
    /// The piece of work allowed by the last `poll_proceed` is over.
    fn step_done(&mut self) {}
}

/// A std writer as a [`PollWrite`], never pending, that seeks when it was
/// made with [`seekable`](Self::seekable): one type for both, so a writer
/// face built on it is one type whichever its sink is.
pub struct StdSink<W> {
    inner: W,
    seek: Option<fn(&mut W, SeekFrom) -> io::Result<u64>>,
}

impl<W> std::fmt::Debug for StdSink<W> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StdSink")
            .field("seekable", &self.seek.is_some())
            .finish_non_exhaustive()
    }
}

impl<W: Write> StdSink<W> {
    /// A sink that does not seek (a pipe, a socket, stdout).
    pub fn streaming(inner: W) -> Self {
        StdSink { inner, seek: None }
    }

    /// The writer.
    pub fn get_ref(&self) -> &W {
        &self.inner
    }

    /// The writer, mutably.
    pub fn get_mut(&mut self) -> &mut W {
        &mut self.inner
    }

    /// Gives back the writer.
    pub fn into_inner(self) -> W {
        self.inner
    }
}

impl<W: Write + Seek> StdSink<W> {
    /// A sink that seeks (a file, a `Cursor`).
    pub fn seekable(inner: W) -> Self {
        StdSink {
            inner,
            seek: Some(|w, pos| w.seek(pos)),
        }
    }
}

impl<W: Write> PollWrite for StdSink<W> {
    fn poll_write(&mut self, _: &mut Context<'_>, buf: &[u8]) -> Poll<io::Result<usize>> {
        loop {
            match self.inner.write(buf) {
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                r => return Poll::Ready(r),
            }
        }
    }

    fn poll_flush(&mut self, _: &mut Context<'_>) -> Poll<io::Result<()>> {
        Poll::Ready(self.inner.flush())
    }

    fn can_seek(&self) -> bool {
        self.seek.is_some()
    }

    fn poll_seek(&mut self, _: &mut Context<'_>, pos: SeekFrom) -> Poll<io::Result<u64>> {
        Poll::Ready(match self.seek {
            Some(seek) => seek(&mut self.inner, pos),
            None => Err(io::ErrorKind::Unsupported.into()),
        })
    }
}

/// A runtime's adapter around its reader or writer (the facade's
/// `TokioSource<R>`, `FuturesSink<W>`, …): what lets one generic face
/// build itself for any runtime, so that the faces of two runtimes differ
/// only in their adapter and their runtime's I/O traits.
pub trait Adapter {
    /// The runtime's reader or writer.
    type Inner;
    /// The same runtime's adapter of a plain reader (the data of a file to
    /// add, a source to copy).
    type Reader<R>;
    /// Adapts `inner`.
    fn new(inner: Self::Inner) -> Self;
    /// Gives back the reader or writer.
    fn into_inner(self) -> Self::Inner;
    /// Adapts a plain reader of the same runtime.
    fn reader<R>(reader: R) -> Self::Reader<R>;
}

/// A std reader or writer as a source or sink that is never pending.
#[derive(Debug, Default)]
pub struct Blocking<T>(pub T);

impl<R: Read> PollRead for Blocking<R> {
    fn poll_read(&mut self, _: &mut Context<'_>, buf: &mut [u8]) -> Poll<io::Result<usize>> {
        loop {
            match self.0.read(buf) {
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                r => return Poll::Ready(r),
            }
        }
    }

    fn blocks_thread(&self) -> bool {
        true
    }
}

impl<R: Read + Seek> PollSource for Blocking<R> {
    fn poll_seek(&mut self, _: &mut Context<'_>, pos: SeekFrom) -> Poll<io::Result<u64>> {
        Poll::Ready(self.0.seek(pos))
    }
}

impl<W: Write + Seek> PollSink for Blocking<W> {
    fn poll_write(&mut self, _: &mut Context<'_>, buf: &[u8]) -> Poll<io::Result<usize>> {
        loop {
            match self.0.write(buf) {
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                r => return Poll::Ready(r),
            }
        }
    }

    fn poll_seek(&mut self, _: &mut Context<'_>, pos: SeekFrom) -> Poll<io::Result<u64>> {
        Poll::Ready(self.0.seek(pos))
    }

    fn poll_flush(&mut self, _: &mut Context<'_>) -> Poll<io::Result<()>> {
        Poll::Ready(self.0.flush())
    }
}

/// Runs a future of a core over [`Blocking`] sources and sinks to its end.
/// Such a future is never pending, so it completes on the first poll; a
/// future that is pending anyway (a core that waits on something else)
/// gets a `WouldBlock` error rather than a spin.
pub fn block_on<T, E: From<io::Error>>(f: impl Future<Output = Result<T, E>>) -> Result<T, E> {
    let mut cx = Context::from_waker(Waker::noop());
    match pin!(f).poll(&mut cx) {
        Poll::Ready(r) => r,
        Poll::Pending => Err(io::Error::new(
            io::ErrorKind::WouldBlock,
            "lzflow: a blocking face was asked to wait",
        )
        .into()),
    }
}

/// [`block_on`] for one poll function.
pub fn block_on_poll<T, E: From<io::Error>>(
    f: impl FnMut(&mut Context<'_>) -> Poll<Result<T, E>>,
) -> Result<T, E> {
    block_on(std::future::poll_fn(f))
}
