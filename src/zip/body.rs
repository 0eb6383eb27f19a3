//! A zip archive as a stream of `Bytes`, for HTTP response bodies: one
//! task writes entries into an [`AsyncZipWriter`] over a [`BodySink`],
//! and the response streams the [`ZipBody`] as it is made, through a
//! bounded pipe (the writer waits while the body is full).
//!
//! The body ends when [`finish`](AsyncZipWriter::finish) has written the
//! end records; a writer dropped before that ends the body with an error, so an HTTP server aborts the response rather than
//! sending an archive that looks complete; a body dropped makes the
//! writer's next write fail with `BrokenPipe`.

use std::collections::VecDeque;
use std::io;
use std::pin::Pin;
use std::sync::{Arc, Mutex, MutexGuard};
use std::task::{Context, Poll, Waker};

use bytes::Bytes;
use futures_core::Stream;
use lzflow_core::source::PollWrite;
use lzflow_zip::{ZipError, ZipWriterOptions};

use super::write_face::AsyncZipWriter;

/// Bytes of one chunk of the body.
const CHUNK: usize = 64 << 10;

#[derive(Debug, Default)]
struct Pipe {
    chunks: VecDeque<Bytes>,
    queued: usize,
    capacity: usize,
    /// The writer finished (the body ends after the queue).
    finished: bool,
    /// The writer is gone without finishing.
    abandoned: bool,
    /// The body is gone.
    closed: bool,
    body_waker: Option<Waker>,
    sink_waker: Option<Waker>,
}

fn lock(pipe: &Mutex<Pipe>) -> MutexGuard<'_, Pipe> {
    pipe.lock().unwrap_or_else(|e| e.into_inner())
}

/// The writing end: a [`PollWrite`] that cannot seek (zip entries get
/// data descriptors past what the writer holds in memory).
#[derive(Debug)]
pub struct BodySink {
    pipe: Arc<Mutex<Pipe>>,
    /// Bytes gathered into the next chunk.
    pending: Vec<u8>,
}

/// The reading end: the archive's bytes as they are made.
#[derive(Debug)]
pub struct ZipBody {
    pipe: Arc<Mutex<Pipe>>,
}

/// A zip writer whose archive is streamed by the returned body, holding
/// at most `capacity` bytes (at least 64 KiB) between them.
pub fn body_stream(
    options: ZipWriterOptions,
    capacity: usize,
) -> Result<(AsyncZipWriter<BodySink>, ZipBody), ZipError> {
    let pipe = Arc::new(Mutex::new(Pipe {
        capacity: capacity.max(CHUNK),
        ..Pipe::default()
    }));
    let sink = BodySink {
        pipe: pipe.clone(),
        pending: Vec::new(),
    };
    Ok((AsyncZipWriter::from_sink(sink, options)?, ZipBody { pipe }))
}

impl BodySink {
    /// Moves the pending bytes into the pipe when there is room.
    fn poll_push(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        if self.pending.is_empty() {
            return Poll::Ready(Ok(()));
        }
        let mut pipe = lock(&self.pipe);
        if pipe.closed {
            return Poll::Ready(Err(io::Error::new(
                io::ErrorKind::BrokenPipe,
                "the zip body was dropped",
            )));
        }
        if pipe.queued + self.pending.len() > pipe.capacity && pipe.queued > 0 {
            pipe.sink_waker = Some(cx.waker().clone());
            return Poll::Pending;
        }
        pipe.queued += self.pending.len();
        pipe.chunks
            .push_back(Bytes::from(std::mem::take(&mut self.pending)));
        if let Some(w) = pipe.body_waker.take() {
            w.wake();
        }
        Poll::Ready(Ok(()))
    }
}

impl PollWrite for BodySink {
    fn poll_write(&mut self, cx: &mut Context<'_>, buf: &[u8]) -> Poll<io::Result<usize>> {
        if self.pending.len() >= CHUNK {
            std::task::ready!(self.poll_push(cx))?;
        }
        let n = buf.len().min(CHUNK - self.pending.len());
        self.pending.extend_from_slice(&buf[..n]);
        Poll::Ready(Ok(n))
    }

    /// The zip writer flushes its sink once, as the last step of
    /// `finish`: the body ends after these bytes.
    fn poll_flush(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        std::task::ready!(self.poll_push(cx))?;
        let mut pipe = lock(&self.pipe);
        pipe.finished = true;
        if let Some(w) = pipe.body_waker.take() {
            w.wake();
        }
        Poll::Ready(Ok(()))
    }
}

impl Drop for BodySink {
    fn drop(&mut self) {
        let mut pipe = lock(&self.pipe);
        if !pipe.finished {
            pipe.abandoned = true;
        }
        if let Some(w) = pipe.body_waker.take() {
            w.wake();
        }
    }
}

impl Drop for ZipBody {
    fn drop(&mut self) {
        let mut pipe = lock(&self.pipe);
        pipe.closed = true;
        if let Some(w) = pipe.sink_waker.take() {
            w.wake();
        }
    }
}

impl Stream for ZipBody {
    type Item = io::Result<Bytes>;

    fn poll_next(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        let mut pipe = lock(&self.pipe);
        if let Some(chunk) = pipe.chunks.pop_front() {
            pipe.queued -= chunk.len();
            if let Some(w) = pipe.sink_waker.take() {
                w.wake();
            }
            return Poll::Ready(Some(Ok(chunk)));
        }
        if pipe.finished {
            return Poll::Ready(None);
        }
        if pipe.abandoned {
            // Once: the next poll ends the stream.
            pipe.finished = true;
            return Poll::Ready(Some(Err(io::Error::new(
                io::ErrorKind::UnexpectedEof,
                "the zip writer stopped before finishing the archive",
            ))));
        }
        pipe.body_waker = Some(cx.waker().clone());
        Poll::Pending
    }
}
