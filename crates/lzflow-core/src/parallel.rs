//! Independent pieces of input (XZ Blocks, lzip members) compressed on
//! worker threads and handed out in order: the machinery every
//! multi-threaded encoder shares, whatever its container writes around the
//! pieces.
//!
//! The input is cut into pieces of a fixed size; each goes to a queue that
//! worker threads (each with its own [`PieceEncoder`]) take from. Output is
//! the container's own bytes ([`ParallelEncoder::push_bytes`]: a header, a
//! trailer) and the compressed pieces, in input order, so the result does
//! not depend on the number of threads.
//!
//! By default calls block when they can do nothing but wait for a worker,
//! and rather than idle the calling thread compresses a queued piece
//! itself: `threads` compressing threads are the caller plus `threads - 1`
//! workers. In [non-blocking](ParallelEncoder::set_nonblocking) mode (async
//! faces) there are `threads` workers, calls return without progress
//! instead of waiting, and [`Readiness`] says when to call again.

use std::collections::VecDeque;
use std::sync::mpsc::{self, Receiver, Sender, TryRecvError};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::thread::JoinHandle;

use crate::{InBuf, Lease, OutBuf, Pool, Progress, Readiness};

/// Compresses one whole piece at a time; one per compressing thread,
/// reused from piece to piece.
pub trait PieceEncoder: Sized + Send + 'static {
    /// What every encoder is made from (shared by the threads).
    type Config: Send + Sync + 'static;
    /// What the container learns from each piece (an Index Record, say).
    type Meta: Send + 'static;
    /// The container's error.
    type Error: Clone + Send + 'static;

    /// An encoder for `config`.
    fn new(config: &Self::Config) -> Result<Self, Self::Error>;

    /// Compresses `input`, all of it, as one independent piece.
    fn compress(&mut self, input: &[u8]) -> Result<(Lease<u8>, Self::Meta), Self::Error>;

    /// The error for a worker thread that died.
    fn worker_died() -> Self::Error;
}

type Compressed<P> = Result<(Lease<u8>, <P as PieceEncoder>::Meta), <P as PieceEncoder>::Error>;

struct Job<P: PieceEncoder> {
    input: Lease<u8>,
    reply: Sender<Compressed<P>>,
}

/// Pieces dispatched but not started, shared by the workers and the
/// calling thread (which compresses one instead of idling).
struct JobQueue<P: PieceEncoder> {
    jobs: VecDeque<Job<P>>,
    closed: bool,
}

struct Shared<P: PieceEncoder> {
    queue: Mutex<JobQueue<P>>,
    /// Signalled when a job is queued or the queue is closed.
    queued: Condvar,
}

impl<P: PieceEncoder> Shared<P> {
    fn lock(&self) -> MutexGuard<'_, JobQueue<P>> {
        self.queue.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// Pieces in flight per compressing thread before the caller waits for
/// the oldest.
const IN_FLIGHT_PER_THREAD: usize = 2;

/// Cuts input into pieces, compresses them on threads, hands them out in
/// order between the container's own bytes. The container drives it from
/// its `Encode` implementation; `on_meta` receives each piece's
/// [`PieceEncoder::Meta`] as the piece is handed out.
pub struct ParallelEncoder<P: PieceEncoder> {
    config: Arc<P::Config>,
    threads: usize,
    piece_size: u64,
    /// Input of the piece being collected.
    input: Lease<u8>,
    shared: Option<Arc<Shared<P>>>,
    workers: Vec<JoinHandle<()>>,
    nonblocking: bool,
    readiness: Readiness,
    /// The last call stopped to wait for a worker (non-blocking mode).
    stalled: bool,
    /// The calling thread's encoder, for pieces it takes off the queue.
    encoder: Option<P>,
    queue: VecDeque<Receiver<Compressed<P>>>,
    /// A compressed piece being handed out.
    current: Option<(Lease<u8>, usize)>,
    /// Container bytes to hand out before the next piece.
    pending: Vec<u8>,
    pending_pos: usize,
}

impl<P: PieceEncoder> std::fmt::Debug for ParallelEncoder<P> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ParallelEncoder")
            .field("threads", &self.threads)
            .field("piece_size", &self.piece_size)
            .field("in_flight", &self.queue.len())
            .finish_non_exhaustive()
    }
}

/// `threads`, with 0 meaning one per available CPU.
pub fn resolve_threads(threads: usize) -> usize {
    match threads {
        0 => std::thread::available_parallelism().map_or(1, |n| n.get()),
        n => n,
    }
}

impl<P: PieceEncoder> ParallelEncoder<P> {
    /// An encoder of pieces of `piece_size` bytes (at least 1) on
    /// `threads` threads (0: one per CPU); threads start with the first
    /// piece.
    pub fn new(config: P::Config, threads: usize, piece_size: u64) -> Self {
        let piece_size = piece_size.max(1);
        ParallelEncoder {
            config: Arc::new(config),
            threads: resolve_threads(threads),
            piece_size,
            input: Pool::<u8>::global().lease(piece_size.min(1 << 20) as usize),
            shared: None,
            workers: Vec::new(),
            nonblocking: false,
            readiness: Readiness::new(),
            stalled: false,
            encoder: None,
            queue: VecDeque::new(),
            current: None,
            pending: Vec::new(),
            pending_pos: 0,
        }
    }

    /// The shared configuration.
    pub fn config(&self) -> &P::Config {
        &self.config
    }

    /// Compressing threads.
    pub fn threads(&self) -> usize {
        self.threads
    }

    /// Switches to non-blocking mode (before the first piece is
    /// dispatched): where a call would wait for a worker it returns having
    /// done what it could, and [`readiness`](Self::readiness) is pending
    /// until a worker finishes.
    pub fn set_nonblocking(&mut self, nonblocking: bool) {
        if self.shared.is_none() {
            self.nonblocking = nonblocking;
        }
    }

    /// Tells, in non-blocking mode, whether the next call can make
    /// progress, and wakes a task when a worker finishes.
    pub fn readiness(&self) -> &Readiness {
        &self.readiness
    }

    /// Starts a call: it stalls again (and says so) only if it must.
    pub fn begin_call(&mut self) {
        self.stalled = false;
        self.readiness.clear();
    }

    /// Queues container bytes to go out after everything dispatched so far.
    /// Call it only when nothing is in flight (at the start, or after
    /// [`flush`](Self::flush) returned true).
    pub fn push_bytes(&mut self, bytes: &[u8]) {
        debug_assert!(self.queue.is_empty() && self.current.is_none());
        self.pending.extend_from_slice(bytes);
    }

    /// Blocking, the caller compresses too (`threads - 1` workers);
    /// non-blocking, an executor thread must not, so all `threads` are
    /// workers.
    fn start_workers(&mut self) -> Arc<Shared<P>> {
        let shared = Arc::new(Shared {
            queue: Mutex::new(JobQueue {
                jobs: VecDeque::new(),
                closed: false,
            }),
            queued: Condvar::new(),
        });
        let count = if self.nonblocking {
            self.threads
        } else {
            self.threads - 1
        };
        for _ in 0..count {
            let shared = Arc::clone(&shared);
            let config = Arc::clone(&self.config);
            let readiness = self.readiness.clone();
            self.workers.push(std::thread::spawn(move || {
                worker::<P>(&shared, &config, &readiness)
            }));
        }
        self.shared = Some(Arc::clone(&shared));
        shared
    }

    /// Sends the collected input off as a piece.
    fn dispatch(&mut self) {
        let shared = match &self.shared {
            Some(s) => Arc::clone(s),
            None => self.start_workers(),
        };
        let cap = self.piece_size.min(1 << 20) as usize;
        let input = std::mem::replace(&mut self.input, Pool::<u8>::global().lease(cap));
        let (reply, rx) = mpsc::channel();
        shared.lock().jobs.push_back(Job { input, reply });
        shared.queued.notify_one();
        self.queue.push_back(rx);
    }

    /// The first piece's result, if it is done; with `wait`, blocking, it
    /// compresses queued pieces itself, then waits. `None` means not done
    /// (non-blocking: `stalled` is set); `Some(None)`, its worker died.
    fn next_compressed(&mut self, wait: bool) -> Option<Option<Compressed<P>>> {
        loop {
            // Read before looking, so a result published in between
            // counts as a change (see `Readiness`).
            let generation = self.readiness.generation();
            match self.queue.front()?.try_recv() {
                Ok(r) => return Some(Some(r)),
                Err(TryRecvError::Disconnected) => return Some(None),
                Err(TryRecvError::Empty) if !wait => return None,
                Err(TryRecvError::Empty) => {}
            }
            if self.nonblocking {
                self.readiness.wait_from(generation);
                self.stalled = true;
                return None;
            }
            let job = self.shared.as_ref().and_then(|s| s.lock().jobs.pop_front());
            if let Some(job) = job {
                let _ = job
                    .reply
                    .send(compress(&mut self.encoder, &self.config, &job.input));
                continue;
            }
            return Some(self.queue.front()?.recv().ok());
        }
    }

    /// Hands out pending bytes and finished pieces in order. With `wait`,
    /// blocks for the first piece in line once. True when nothing is left
    /// to hand out.
    pub fn drain(
        &mut self,
        output: &mut OutBuf<'_>,
        mut wait: bool,
        on_meta: &mut impl FnMut(P::Meta),
    ) -> Result<bool, P::Error> {
        self.pending_pos += output.push(&self.pending[self.pending_pos..]);
        if self.pending_pos < self.pending.len() {
            return Ok(false);
        }
        self.pending.clear();
        self.pending_pos = 0;
        loop {
            if let Some((piece, pos)) = &mut self.current {
                *pos += output.push(&piece[*pos..]);
                if *pos < piece.len() {
                    return Ok(false);
                }
                self.current = None;
            }
            if self.queue.is_empty() {
                return Ok(true);
            }
            let Some(result) = self.next_compressed(wait) else {
                return Ok(false);
            };
            wait = false;
            self.queue.pop_front();
            let (piece, meta) = result.unwrap_or_else(|| Err(P::worker_died()))?;
            on_meta(meta);
            self.current = Some((piece, 0));
        }
    }

    /// Takes input, dispatching whole pieces, and hands out what is done.
    pub fn encode(
        &mut self,
        input: &mut InBuf<'_>,
        output: &mut OutBuf<'_>,
        on_meta: &mut impl FnMut(P::Meta),
    ) -> Result<Progress, P::Error> {
        loop {
            self.drain(output, false, on_meta)?;
            if output.is_full() && (self.pending_pos < self.pending.len() || self.current.is_some())
            {
                return Ok(Progress::OutputFull);
            }
            if input.is_empty() {
                return Ok(Progress::NeedInput);
            }
            let room = (self.piece_size - self.input.len() as u64).min(input.len() as u64) as usize;
            self.input.extend_from_slice(input.take(room));
            if self.input.len() as u64 == self.piece_size {
                if self.queue.len() >= IN_FLIGHT_PER_THREAD * self.threads {
                    // Enough in flight: wait for the oldest piece first.
                    if output.is_full() {
                        return Ok(Progress::OutputFull);
                    }
                    self.drain(output, true, on_meta)?;
                    if self.stalled {
                        return Ok(Progress::OutputFull);
                    }
                    continue;
                }
                self.dispatch();
            }
        }
    }

    /// Ends the piece being collected (if any input is in it) and hands out
    /// everything; true when all is out.
    pub fn flush(
        &mut self,
        output: &mut OutBuf<'_>,
        on_meta: &mut impl FnMut(P::Meta),
    ) -> Result<bool, P::Error> {
        if !self.input.is_empty() {
            self.dispatch();
        }
        loop {
            if self.drain(output, false, on_meta)? {
                return Ok(true);
            }
            if output.is_full() {
                return Ok(false);
            }
            if self.drain(output, true, on_meta)? {
                return Ok(true);
            }
            if self.stalled {
                return Ok(false);
            }
        }
    }

    /// [`flush`](Self::flush) answered as `Encode::flush` answers:
    /// `NeedInput` once everything is out, `OutputFull` until then.
    pub fn flush_step(
        &mut self,
        output: &mut OutBuf<'_>,
        on_meta: &mut impl FnMut(P::Meta),
    ) -> Result<Progress, P::Error> {
        Ok(if self.flush(output, on_meta)? {
            Progress::NeedInput
        } else {
            Progress::OutputFull
        })
    }
}

impl<P: PieceEncoder> Drop for ParallelEncoder<P> {
    fn drop(&mut self) {
        // Closing the queue makes the workers finish their piece and exit.
        if let Some(shared) = &self.shared {
            shared.lock().closed = true;
            shared.queued.notify_all();
        }
        for w in self.workers.drain(..) {
            let _ = w.join();
        }
    }
}

/// A worker: compresses whole pieces with its own, reused encoder.
fn worker<P: PieceEncoder>(shared: &Shared<P>, config: &P::Config, readiness: &Readiness) {
    let mut encoder: Option<P> = None;
    loop {
        let job = {
            let mut q = shared.lock();
            loop {
                if let Some(job) = q.jobs.pop_front() {
                    break job;
                }
                if q.closed {
                    return;
                }
                q = shared.queued.wait(q).unwrap_or_else(|e| e.into_inner());
            }
        };
        let _ = job.reply.send(compress(&mut encoder, config, &job.input));
        readiness.notify();
    }
}

fn compress<P: PieceEncoder>(
    encoder: &mut Option<P>,
    config: &P::Config,
    input: &[u8],
) -> Compressed<P> {
    if encoder.is_none() {
        *encoder = Some(P::new(config)?);
    }
    encoder.as_mut().expect("created").compress(input)
}
