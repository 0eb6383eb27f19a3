//! The poll loops that move bytes between a [`Driver`] and the caller's
//! reader or writer. They are written once, in `poll` style, and used by
//! every face: tokio and futures-io wrap their runtime's traits in
//! [`Source`]/[`Sink`]; the std faces use sources that are never pending.
//!
//! Cancellation safety comes from where state lives: input taken by the
//! coder is the coder's, produced-but-unwritten output waits in an
//! [`OutQueue`] inside the face, so a dropped future loses nothing.

use std::io;
use std::task::{ready, Context, Poll};

use lzflow_core::{Decode, Encode, Progress};

use crate::driver::Driver;

/// A buffered byte source (`BufRead`, `AsyncBufRead`).
pub(crate) trait Source {
    /// The buffered bytes; empty at end of input.
    fn poll_fill(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<&[u8]>>;
    /// Marks `n` buffered bytes as used.
    fn consume(&mut self, n: usize);
}

/// A byte sink (`Write`, `AsyncWrite`).
pub(crate) trait Sink {
    /// Writes some of `buf`.
    fn poll_write(&mut self, cx: &mut Context<'_>, buf: &[u8]) -> Poll<io::Result<usize>>;
    /// Flushes the sink.
    fn poll_flush(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<()>>;
    /// Shuts the sink down (async faces) or flushes it (std).
    #[cfg_attr(not(any(feature = "tokio", feature = "futures-io")), allow(dead_code))]
    fn poll_close(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<()>>;
}

/// How a face shares its thread. Every poll loop asks
/// [`poll_step`](Budget::poll_step) before each coder step and calls
/// [`step_done`](Budget::step_done) after it; a face passes a fresh budget
/// to each poll. The std and futures-io faces use [`Steps`]; the tokio
/// faces add tokio's cooperative budget (`crate::tokio::coop`).
pub(crate) trait Budget {
    /// `Ready` if one more coder step may run in this poll; `Pending`,
    /// with the task's wake-up arranged, if the poll must end here. Only
    /// asked before work, so a poll that produced output never ends in
    /// `Pending` because of it.
    fn poll_step(&mut self, cx: &mut Context<'_>) -> Poll<()>;
    /// The most input one encoding step takes: encoding costs 3 to 100
    /// times more per byte than decoding, so this is what bounds it.
    fn encode_input(&self) -> usize;
    /// The step allowed by the last `poll_step` is over.
    fn step_done(&mut self);
}

/// A number of coder steps per poll, after which the poll yields (waking
/// its task first): refills without output on a read face, queue-fulls of
/// output on a write face. The whole budget of the std and futures-io
/// faces, and the per-poll part of the tokio faces'.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Steps {
    left: usize,
    encode_input: usize,
}

impl Budget for Steps {
    fn poll_step(&mut self, cx: &mut Context<'_>) -> Poll<()> {
        if self.left == 0 {
            return yield_now(cx);
        }
        self.left -= 1;
        Poll::Ready(())
    }

    fn encode_input(&self) -> usize {
        self.encode_input
    }

    fn step_done(&mut self) {}
}

/// The async faces' bound on one poll: 32 steps, encoding steps of at
/// most [`ENCODE_STEP`] bytes of input. Bounds the work of a poll on a
/// source or sink that is always ready (megabytes of stream padding, a
/// highly compressible body, one large write into an encoder), so a task
/// never holds its executor thread for long at a time.
#[cfg_attr(not(any(feature = "tokio", feature = "futures-io")), allow(dead_code))]
pub(crate) const ASYNC_BUDGET: Steps = Steps {
    left: ASYNC_STEPS,
    encode_input: ENCODE_STEP,
};

/// Coder steps in one poll of an async face.
pub(crate) const ASYNC_STEPS: usize = 32;

/// Std faces never yield: they run until done, and take a write whole.
pub(crate) const BLOCKING_BUDGET: Steps = Steps {
    left: usize::MAX,
    encode_input: usize::MAX,
};

/// Input of one encoding step in an async face: 0.1-0.4 ms of xz preset 6
/// on text, 15 µs at preset 0 (a 16 KiB decoding batch takes 0.07-0.15
/// ms). Steps this small cost the encoder nothing measurable.
#[cfg_attr(not(any(feature = "tokio", feature = "futures-io")), allow(dead_code))]
pub(crate) const ENCODE_STEP: usize = 512;

/// Size of the queue between a coder and a sink.
pub(crate) const QUEUE_SIZE: usize = 32 << 10;

/// Decodes from `src` into `out`; `Ready(Ok(0))` means the stream ended
/// (or `out` is empty).
pub(crate) fn poll_read_decoded<D, S>(
    driver: &mut Driver<D>,
    src: &mut S,
    cx: &mut Context<'_>,
    out: &mut [u8],
    mut budget: impl Budget,
) -> Poll<io::Result<usize>>
where
    D: Decode,
    D::Error: Into<io::Error>,
    S: Source,
{
    if out.is_empty() {
        return Poll::Ready(Ok(0));
    }
    loop {
        if driver.is_ended() {
            return Poll::Ready(Ok(0));
        }
        ready!(budget.poll_step(cx));
        let input = ready!(src.poll_fill(cx))?;
        let last = input.is_empty();
        let step = driver.decode(input, last, out)?;
        src.consume(step.consumed);
        budget.step_done();
        if step.produced > 0 {
            return Poll::Ready(Ok(step.produced));
        }
    }
}

/// Encodes from `src` into `out`, finishing the stream at end of input;
/// `Ready(Ok(0))` means the compressed stream is complete.
pub(crate) fn poll_read_encoded<E, S>(
    driver: &mut Driver<E>,
    src: &mut S,
    cx: &mut Context<'_>,
    out: &mut [u8],
    mut budget: impl Budget,
) -> Poll<io::Result<usize>>
where
    E: Encode,
    E::Error: Into<io::Error>,
    S: Source,
{
    if out.is_empty() {
        return Poll::Ready(Ok(0));
    }
    loop {
        if driver.is_ended() {
            return Poll::Ready(Ok(0));
        }
        ready!(budget.poll_step(cx));
        let input = ready!(src.poll_fill(cx))?;
        let step = if input.is_empty() {
            driver.finish(out)?
        } else {
            let input = &input[..input.len().min(budget.encode_input())];
            driver.encode(input, out)?
        };
        src.consume(step.consumed);
        budget.step_done();
        if step.produced > 0 {
            return Poll::Ready(Ok(step.produced));
        }
    }
}

/// Gives the executor back the thread, asking to be polled again.
fn yield_now<T>(cx: &mut Context<'_>) -> Poll<T> {
    cx.waker().wake_by_ref();
    Poll::Pending
}

/// Output a coder produced that the sink has not taken yet.
#[derive(Debug)]
pub(crate) struct OutQueue {
    buf: Box<[u8]>,
    start: usize,
    end: usize,
    phase: Phase,
}

/// Where an encoder behind a writer face stands. A flush or finish that
/// was started is carried on to its end before anything else, because an
/// encoder must not be handed new input halfway through either.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    /// Taking input.
    Writing,
    /// A flush was started and has not completed.
    Flushing,
    /// The last flush completed and nothing was written since, so a
    /// repeated or resumed flush does not ask the coder again.
    Flushed,
    /// The end of the stream was requested; no more input is accepted.
    Finishing,
}

impl OutQueue {
    /// An empty queue of [`QUEUE_SIZE`] bytes.
    pub(crate) fn new() -> Self {
        OutQueue {
            buf: vec![0; QUEUE_SIZE].into_boxed_slice(),
            start: 0,
            end: 0,
            phase: Phase::Writing,
        }
    }

    /// Room for the coder; only called when the queue is empty.
    fn spare(&mut self) -> &mut [u8] {
        debug_assert_eq!(self.start, self.end);
        self.start = 0;
        self.end = 0;
        &mut self.buf[..]
    }

    /// Records that the coder wrote `n` bytes into [`spare`](Self::spare).
    fn filled(&mut self, n: usize) {
        self.end = n;
    }

    /// Writes queued bytes to `sink` until the queue is empty.
    fn poll_drain<S: Sink>(&mut self, sink: &mut S, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        while self.start < self.end {
            let n = ready!(sink.poll_write(cx, &self.buf[self.start..self.end]))?;
            if n == 0 {
                return Poll::Ready(Err(io::Error::new(
                    io::ErrorKind::WriteZero,
                    "the underlying writer accepted no bytes",
                )));
            }
            self.start += n;
        }
        Poll::Ready(Ok(()))
    }
}

/// Feeds `data` to a decoder whose output goes to `sink`. Returns how many
/// bytes of `data` the decoder took; `Ready(Ok(0))` for non-empty `data`
/// means the stream has ended and takes no more.
pub(crate) fn poll_write_decoded<D, S>(
    driver: &mut Driver<D>,
    queue: &mut OutQueue,
    sink: &mut S,
    cx: &mut Context<'_>,
    mut budget: impl Budget,
    data: &[u8],
) -> Poll<io::Result<usize>>
where
    D: Decode,
    D::Error: Into<io::Error>,
    S: Sink,
{
    if data.is_empty() {
        return Poll::Ready(Ok(0));
    }
    loop {
        ready!(budget.poll_step(cx));
        ready!(queue.poll_drain(sink, cx))?;
        if driver.is_ended() {
            return Poll::Ready(Ok(0));
        }
        let step = driver.decode(data, false, queue.spare())?;
        queue.filled(step.produced);
        budget.step_done();
        if step.consumed > 0 {
            // Taken: the output waits in the queue for the next call.
            return Poll::Ready(Ok(step.consumed));
        }
    }
}

/// Writes out everything the decoder can produce from the input so far,
/// then flushes `sink`.
pub(crate) fn poll_flush_decoded<D, S>(
    driver: &mut Driver<D>,
    queue: &mut OutQueue,
    sink: &mut S,
    cx: &mut Context<'_>,
    mut budget: impl Budget,
) -> Poll<io::Result<()>>
where
    D: Decode,
    D::Error: Into<io::Error>,
    S: Sink,
{
    loop {
        ready!(budget.poll_step(cx));
        ready!(queue.poll_drain(sink, cx))?;
        if driver.is_ended() || driver.is_fresh() {
            break;
        }
        let step = driver.decode(&[], false, queue.spare())?;
        queue.filled(step.produced);
        budget.step_done();
        if step.produced == 0 {
            break;
        }
    }
    sink.poll_flush(cx)
}

/// Tells the decoder the input is complete, writes the rest of its output
/// and requires the stream to be complete (a truncated stream is an
/// `UnexpectedEof` error). Does not touch the sink beyond writing.
pub(crate) fn poll_finish_decoded<D, S>(
    driver: &mut Driver<D>,
    queue: &mut OutQueue,
    sink: &mut S,
    cx: &mut Context<'_>,
    mut budget: impl Budget,
) -> Poll<io::Result<()>>
where
    D: Decode,
    D::Error: Into<io::Error>,
    S: Sink,
{
    loop {
        ready!(budget.poll_step(cx));
        ready!(queue.poll_drain(sink, cx))?;
        if driver.is_ended() {
            return Poll::Ready(Ok(()));
        }
        let step = driver.decode(&[], true, queue.spare())?;
        queue.filled(step.produced);
        budget.step_done();
    }
}

/// Feeds `data` to an encoder whose output goes to `sink`; returns how many
/// bytes the encoder took.
pub(crate) fn poll_write_encoded<E, S>(
    driver: &mut Driver<E>,
    queue: &mut OutQueue,
    sink: &mut S,
    cx: &mut Context<'_>,
    mut budget: impl Budget,
    data: &[u8],
) -> Poll<io::Result<usize>>
where
    E: Encode,
    E::Error: Into<io::Error>,
    S: Sink,
{
    if data.is_empty() {
        return Poll::Ready(Ok(0));
    }
    let data = &data[..data.len().min(budget.encode_input())];
    loop {
        ready!(budget.poll_step(cx));
        ready!(queue.poll_drain(sink, cx))?;
        match queue.phase {
            Phase::Finishing => {
                return Poll::Ready(Err(io::Error::new(
                    io::ErrorKind::InvalidInput,
                    "cannot write to an encoder after shutting it down",
                )))
            }
            Phase::Flushing => flush_step(driver, queue)?,
            Phase::Writing | Phase::Flushed => {
                let step = driver.encode(data, queue.spare())?;
                queue.filled(step.produced);
                if step.consumed > 0 {
                    budget.step_done();
                    queue.phase = Phase::Writing;
                    return Poll::Ready(Ok(step.consumed));
                }
            }
        }
        budget.step_done();
    }
}

/// One call of the encoder's flush into the empty queue.
fn flush_step<E>(driver: &mut Driver<E>, queue: &mut OutQueue) -> io::Result<()>
where
    E: Encode,
    E::Error: Into<io::Error>,
{
    queue.phase = Phase::Flushing;
    let step = driver.flush(queue.spare())?;
    queue.filled(step.produced);
    if step.progress == Progress::NeedInput {
        queue.phase = Phase::Flushed;
    }
    Ok(())
}

/// Makes all input so far decodable from what reached `sink`, then flushes
/// `sink`. Resuming after `Pending` (or a dropped future) continues where it
/// stopped; the coder is flushed once per batch of writes.
pub(crate) fn poll_flush_encoded<E, S>(
    driver: &mut Driver<E>,
    queue: &mut OutQueue,
    sink: &mut S,
    cx: &mut Context<'_>,
    mut budget: impl Budget,
) -> Poll<io::Result<()>>
where
    E: Encode,
    E::Error: Into<io::Error>,
    S: Sink,
{
    loop {
        ready!(budget.poll_step(cx));
        ready!(queue.poll_drain(sink, cx))?;
        if matches!(queue.phase, Phase::Flushed | Phase::Finishing) || driver.is_ended() {
            break;
        }
        flush_step(driver, queue)?;
        budget.step_done();
    }
    sink.poll_flush(cx)
}

/// Ends the compressed stream and writes all of it to `sink` (not closing
/// the sink). Repeating it, or resuming it after a dropped future, writes
/// each byte exactly once.
pub(crate) fn poll_finish_encoded<E, S>(
    driver: &mut Driver<E>,
    queue: &mut OutQueue,
    sink: &mut S,
    cx: &mut Context<'_>,
    mut budget: impl Budget,
) -> Poll<io::Result<()>>
where
    E: Encode,
    E::Error: Into<io::Error>,
    S: Sink,
{
    loop {
        ready!(budget.poll_step(cx));
        ready!(queue.poll_drain(sink, cx))?;
        if driver.is_ended() {
            return Poll::Ready(Ok(()));
        }
        if queue.phase == Phase::Flushing {
            flush_step(driver, queue)?;
        } else {
            queue.phase = Phase::Finishing;
            let step = driver.finish(queue.spare())?;
            queue.filled(step.produced);
        }
        budget.step_done();
    }
}
