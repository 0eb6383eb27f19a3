//! Reading files on tokio with read-ahead (feature `tokio-fs`).
//!
//! A `tokio::fs::File` runs every read on tokio's blocking pool: one thread
//! hop there and back per fill, each costing tens of microseconds on a busy
//! machine, and nothing is read while the decoder works. [`ReadAheadFile`]
//! reads large buffers instead, starts the next read as soon as the current
//! buffer is handed out (so reading overlaps decoding), and knows the end of
//! the file from a short fill instead of paying one more hop to see it.
//! [`ReadAheadFile::open`] opens the file and reads its first buffer in one
//! hop: a file smaller than the buffer costs one hop in all, where
//! `File::open` and a `BufReader` over it cost three.
//!
//! Waiting on a fill, it keeps its task awake for up to [`SPIN_WAIT`] (it
//! asks to be polled again instead of letting the runtime thread sleep):
//! a sleeping thread takes tens of microseconds to wake, as long as reading
//! a whole buffer from the page cache. Measured on a 2-core VM, a
//! blocking-pool trip costs ~75 µs with the sleep and ~40 µs without it.
//! Past the limit it sleeps as any future does, so a slow disk costs at most
//! [`SPIN_WAIT`] of CPU time per fill waited on; reading ahead means the
//! first fill is usually the only one.

use std::collections::VecDeque;
use std::fs::File;
use std::future::Future;
use std::io::{self, Read};
use std::path::Path;
use std::pin::Pin;
use std::task::{ready, Context, Poll};
use std::time::{Duration, Instant};

use ::tokio::io::{AsyncBufRead, AsyncRead, ReadBuf};
use ::tokio::runtime::Handle;
use ::tokio::task::{JoinError, JoinHandle};
use lzflow_core::{Lease, Pool};

/// The buffer size of [`ReadAheadFile::open`] and friends: 256 KiB, where
/// one blocking-pool hop costs well under a tenth of the time a decoder
/// spends on the data it brings.
pub const DEFAULT_CAPACITY: usize = 256 << 10;

/// How long after a fill starts a reader waiting on it keeps its task
/// awake instead of sleeping (see the [module docs](self)): 200 µs covers
/// one trip to the blocking pool plus a buffer read from the page cache.
pub const SPIN_WAIT: Duration = Duration::from_micros(200);

/// A task on the blocking pool and when it started. Awaited while younger
/// than [`SPIN_WAIT`], a pending poll asks to be polled again.
struct Trip<T> {
    task: JoinHandle<T>,
    started: Instant,
}

impl<T: Send + 'static> Trip<T> {
    fn spawn(handle: &Handle, f: impl FnOnce() -> T + Send + 'static) -> Self {
        Trip {
            task: handle.spawn_blocking(f),
            started: Instant::now(),
        }
    }
}

impl<T> Future for Trip<T> {
    type Output = Result<T, JoinError>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let poll = Pin::new(&mut self.task).poll(cx);
        if poll.is_pending() && self.started.elapsed() < SPIN_WAIT {
            // The runtime polls this task again instead of parking its
            // thread, so the task's end is seen without a thread wake-up.
            cx.waker().wake_by_ref();
        }
        poll
    }
}

/// What one trip to the blocking pool brings back: the file and the buffer
/// it owned while reading, how many bytes it filled and why it stopped.
struct Fill {
    file: File,
    buf: Buffer,
    len: usize,
    end: FillEnd,
}

/// Why a fill stopped.
enum FillEnd {
    /// The buffer is full; the file may hold more.
    Full,
    /// The file ended (a read returned 0) before the buffer was full.
    Eof,
    /// A read failed after `len` bytes.
    Failed(io::Error),
}

/// A read buffer, leased from lzflow's global [`Pool`]: a warm process
/// neither allocates one nor faults its pages in again.
type Buffer = Lease<u8>;

/// No buffer yet; [`fill`] leases one.
fn no_buffer() -> Buffer {
    Lease::unpooled(Vec::new())
}

/// Fills `buf` (leased at `capacity` if smaller) from `file` until it is
/// full or the file ends. Runs on the blocking pool.
fn fill(mut file: File, mut buf: Buffer, capacity: usize) -> Fill {
    if buf.len() < capacity {
        // Old contents are never read: only `buf[..len]` is handed out.
        buf = Pool::<u8>::global().lease_any(capacity);
    }
    let mut len = 0;
    let end = loop {
        if len == buf.len() {
            break FillEnd::Full;
        }
        match file.read(&mut buf[len..]) {
            Ok(0) => break FillEnd::Eof,
            Ok(n) => len += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => break FillEnd::Failed(e),
        }
    };
    Fill {
        file,
        buf,
        len,
        end,
    }
}

/// Starts filling `buf` from `file` on the current runtime's blocking pool;
/// without a runtime the fill waits (as [`Next::Waiting`]) for a poll inside
/// one.
fn start(file: File, buf: Buffer, capacity: usize) -> Next {
    match Handle::try_current() {
        Ok(h) => Next::Running(Trip::spawn(&h, move || fill(file, buf, capacity))),
        Err(_) => Next::Waiting(file, buf),
    }
}

/// The read after the buffer being consumed.
enum Next {
    /// A fill is running on the blocking pool; it owns the file.
    Running(Trip<Fill>),
    /// No fill started yet: there was no tokio runtime when it was due.
    Waiting(File, Buffer),
    /// The file has ended.
    Eof,
    /// A read failed: the error is returned once the bytes before it are
    /// consumed, then a plain error of the same kind on every later poll.
    Failed(io::ErrorKind, Option<io::Error>),
}

/// An `AsyncBufRead` over a file that reads ahead on tokio's blocking pool,
/// one large buffer at a time (see the [module docs](self)). Give it to any
/// `lzflow::tokio::bufread` decoder:
///
/// ```no_run
/// # async fn run() -> std::io::Result<()> {
/// use lzflow::tokio::{bufread::XzDecoder, fs::ReadAheadFile};
/// use tokio::io::AsyncReadExt;
///
/// let file = ReadAheadFile::open("upload.xz").await?;
/// let mut data = Vec::new();
/// XzDecoder::new(file).read_to_end(&mut data).await?;
/// # Ok(()) }
/// ```
///
/// It holds two buffers of its capacity while the file is longer than one,
/// leased from lzflow's global buffer pool and returned to it on drop.
/// Dropping it while a read is running lets that read finish on the pool,
/// which then closes the file. Reads must be polled inside a tokio runtime
/// (one with the blocking pool: any multi-thread or current-thread
/// runtime); polled elsewhere they fail with an error, never a panic.
pub struct ReadAheadFile {
    /// The buffer being consumed: `buf[pos..len]` is unread.
    buf: Buffer,
    pos: usize,
    len: usize,
    capacity: usize,
    next: Next,
}

impl std::fmt::Debug for ReadAheadFile {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ReadAheadFile")
            .field("buffered", &(self.len - self.pos))
            .field("capacity", &self.capacity)
            .finish_non_exhaustive()
    }
}

fn no_runtime() -> io::Error {
    io::Error::other("lzflow ReadAheadFile: polled outside a tokio runtime")
}

impl ReadAheadFile {
    /// Opens `path` and reads its first [`DEFAULT_CAPACITY`] bytes in one
    /// trip to the blocking pool.
    pub async fn open(path: impl AsRef<Path>) -> io::Result<Self> {
        Self::open_with_capacity(DEFAULT_CAPACITY, path).await
    }

    /// [`open`](Self::open) with buffers of `capacity` bytes (at least 1).
    pub async fn open_with_capacity(capacity: usize, path: impl AsRef<Path>) -> io::Result<Self> {
        let (reader, ()) =
            Self::open_first(capacity, path, |p| File::open(p).map(|f| (f, ()))).await?;
        Ok(reader)
    }

    /// Opens the regular file at `path` as
    /// [`open_regular`](lzflow_core::input_file::open_regular) does (no
    /// link followed, no wait on a FIFO, the type checked on the file
    /// opened) and reads its first [`DEFAULT_CAPACITY`] bytes, in one trip
    /// to the blocking pool; with the file's metadata. The writers'
    /// `add_path` read each file so.
    pub async fn open_regular(path: impl AsRef<Path>) -> io::Result<(Self, std::fs::Metadata)> {
        Self::open_first(DEFAULT_CAPACITY, path, |p| {
            lzflow_core::input_file::open_regular(p)
        })
        .await
    }

    /// Opens `path` with `open` and fills the first buffer, in one trip.
    async fn open_first<T: Send + 'static>(
        capacity: usize,
        path: impl AsRef<Path>,
        open: impl FnOnce(&Path) -> io::Result<(File, T)> + Send + 'static,
    ) -> io::Result<(Self, T)> {
        let capacity = capacity.max(1);
        let path = path.as_ref().to_owned();
        let handle = Handle::try_current().map_err(|_| no_runtime())?;
        let first = Trip::spawn(&handle, move || {
            open(&path).map(|(file, extra)| (fill(file, no_buffer(), capacity), extra))
        });
        let (first, extra) = first.await.map_err(io::Error::other)??;
        let mut reader = ReadAheadFile {
            buf: no_buffer(),
            pos: 0,
            len: 0,
            capacity,
            next: Next::Eof,
        };
        reader.take_fill(first);
        Ok((reader, extra))
    }

    /// Reads an open tokio file from its current position (waiting for
    /// any operation still running on it first).
    pub async fn new(file: ::tokio::fs::File) -> Self {
        Self::from_std(file.into_std().await)
    }

    /// Reads `file` from its current position with [`DEFAULT_CAPACITY`]
    /// buffers. The first read starts at once when called inside a tokio
    /// runtime, else at the first poll.
    pub fn from_std(file: File) -> Self {
        Self::with_capacity(DEFAULT_CAPACITY, file)
    }

    /// [`from_std`](Self::from_std) with buffers of `capacity` bytes (at
    /// least 1).
    pub fn with_capacity(capacity: usize, file: File) -> Self {
        let capacity = capacity.max(1);
        ReadAheadFile {
            buf: no_buffer(),
            pos: 0,
            len: 0,
            capacity,
            next: start(file, no_buffer(), capacity),
        }
    }

    /// The size of each of its buffers.
    pub fn capacity(&self) -> usize {
        self.capacity
    }

    /// Makes a finished fill the buffer being consumed and, unless the file
    /// ended or failed, starts the next fill into the buffer just freed.
    fn take_fill(&mut self, done: Fill) {
        let spare = std::mem::replace(&mut self.buf, done.buf);
        self.pos = 0;
        self.len = done.len;
        self.next = match done.end {
            FillEnd::Full => start(done.file, spare, self.capacity),
            FillEnd::Eof => Next::Eof,
            FillEnd::Failed(e) => Next::Failed(e.kind(), Some(e)),
        };
    }
}

impl AsyncBufRead for ReadAheadFile {
    fn poll_fill_buf(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<&[u8]>> {
        let this = self.get_mut();
        while this.pos == this.len {
            match &mut this.next {
                Next::Running(trip) => {
                    match ready!(Pin::new(trip).poll(cx)) {
                        Ok(fill) => this.take_fill(fill),
                        // The task panicked or the runtime is shutting
                        // down: the file went with it.
                        Err(e) => {
                            this.next = Next::Failed(io::ErrorKind::Other, None);
                            return Poll::Ready(Err(io::Error::other(e)));
                        }
                    }
                }
                Next::Waiting(..) => {
                    let Next::Waiting(file, buf) = std::mem::replace(&mut this.next, Next::Eof)
                    else {
                        unreachable!("matched Waiting above")
                    };
                    this.next = start(file, buf, this.capacity);
                    if matches!(this.next, Next::Waiting(..)) {
                        return Poll::Ready(Err(no_runtime()));
                    }
                }
                Next::Eof => break,
                Next::Failed(kind, first) => {
                    let e = first.take().unwrap_or_else(|| {
                        io::Error::new(*kind, "lzflow ReadAheadFile: an earlier read failed")
                    });
                    return Poll::Ready(Err(e));
                }
            }
        }
        Poll::Ready(Ok(&this.buf[this.pos..this.len]))
    }

    fn consume(self: Pin<&mut Self>, amt: usize) {
        let this = self.get_mut();
        this.pos = (this.pos + amt).min(this.len);
    }
}

impl AsyncRead for ReadAheadFile {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        out: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let available = ready!(self.as_mut().poll_fill_buf(cx))?;
        let n = available.len().min(out.remaining());
        out.put_slice(&available[..n]);
        self.consume(n);
        Poll::Ready(Ok(()))
    }
}

/// A walk of a file tree through `tokio::fs`, in the order the writers'
/// `add_path` adds it: depth first, each directory before its children,
/// the children in name order; links are not followed. Each item comes
/// with its archive name, `name/child` below the root's (the root's name
/// trimmed of trailing `/`; below an empty root name, the child's alone).
#[derive(Debug)]
pub struct TreeWalk {
    /// Items still to visit, the next at the front; those listed in a
    /// directory come with their metadata.
    todo: VecDeque<(std::path::PathBuf, String, Option<std::fs::Metadata>)>,
}

impl TreeWalk {
    /// A walk of `path`, named `name` in the archive.
    pub fn new(path: impl AsRef<Path>, name: &str) -> Self {
        let root = (
            path.as_ref().to_path_buf(),
            name.trim_end_matches('/').to_string(),
            None,
        );
        TreeWalk {
            todo: VecDeque::from([root]),
        }
    }

    /// The next item: its path, archive name and metadata (of the link
    /// itself, for a link). A directory's children are listed, with their
    /// metadata, in one trip to the blocking pool when it is returned.
    pub async fn next(
        &mut self,
    ) -> io::Result<Option<(std::path::PathBuf, String, std::fs::Metadata)>> {
        let Some((path, name, md)) = self.todo.pop_front() else {
            return Ok(None);
        };
        let md = match md {
            Some(md) => md,
            None => tokio::fs::symlink_metadata(&path).await?,
        };
        if md.is_dir() {
            let handle = Handle::try_current().map_err(|_| no_runtime())?;
            let dir = path.clone();
            let children = Trip::spawn(&handle, move || list_dir(&dir))
                .await
                .map_err(io::Error::other)??;
            // Next come the children, in name order, before the rest.
            for (child, child_md) in children.into_iter().rev() {
                let child_name = child.to_string_lossy();
                let full = if name.is_empty() {
                    child_name.into_owned()
                } else {
                    format!("{name}/{child_name}")
                };
                self.todo
                    .push_front((path.join(&child), full, Some(child_md)));
            }
        }
        Ok(Some((path, name, md)))
    }
}

/// The children of `dir` in name order, each with its metadata (of the
/// link itself, for a link). Runs on the blocking pool.
fn list_dir(dir: &Path) -> io::Result<Vec<(std::ffi::OsString, std::fs::Metadata)>> {
    let mut children = Vec::new();
    for entry in std::fs::read_dir(dir)? {
        let entry = entry?;
        // Not following links, as `symlink_metadata`.
        children.push((entry.file_name(), entry.metadata()?));
    }
    children.sort_by(|a, b| a.0.cmp(&b.0));
    Ok(children)
}
