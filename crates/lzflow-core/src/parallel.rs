//! Independent pieces of work done on worker threads and handed back in
//! order: [`OrderedPool`], the one pool every multi-threaded coder uses,
//! whatever its pieces are (XZ Blocks and lzip members to compress, LZMA2
//! segments between dictionary resets to decode); and on top of it
//! [`ParallelEncoder`], which cuts input into fixed-size pieces and hands
//! out their compressed bytes between the container's own.
//!
//! By default a caller that can do nothing but wait for a worker blocks,
//! and rather than idle it does a queued piece itself: `threads` working
//! threads are the caller plus `threads - 1` workers. In
//! [non-blocking](OrderedPool::set_nonblocking) mode (async faces) there
//! are `threads` workers, calls return without progress instead of
//! waiting, and [`Readiness`] says when to call again.

use std::collections::VecDeque;
use std::sync::mpsc::{self, Receiver, Sender, TryRecvError};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::thread::JoinHandle;

use crate::{InBuf, Lease, OutBuf, Pool, Progress, Readiness};

/// What a working thread does to one piece; its state (a coder, say) is
/// made on first use and reused from piece to piece.
pub trait PieceWorker: Sized + Send + 'static {
    /// What every thread's state is made from (shared by the threads).
    type Config: Send + Sync + 'static;
    /// A piece of work.
    type Input: Send + 'static;
    /// What comes of a piece.
    type Output: Send + 'static;

    /// Does `input` with this thread's `state` (`None` until made here).
    fn run(state: &mut Option<Self>, config: &Self::Config, input: Self::Input) -> Self::Output;
}

/// A working thread died (it panicked) before answering for its piece.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WorkerDied;

struct Job<W: PieceWorker> {
    input: W::Input,
    reply: Sender<W::Output>,
}

/// Pieces dispatched but not started, shared by the workers and the
/// calling thread (which does one instead of idling).
struct JobQueue<W: PieceWorker> {
    jobs: VecDeque<Job<W>>,
    closed: bool,
}

struct Shared<W: PieceWorker> {
    queue: Mutex<JobQueue<W>>,
    /// Signalled when a job is queued or the queue is closed.
    queued: Condvar,
}

impl<W: PieceWorker> Shared<W> {
    fn lock(&self) -> MutexGuard<'_, JobQueue<W>> {
        self.queue.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// Worker threads doing pieces, whose outputs come back in the order the
/// pieces were submitted. Threads start with the first piece.
pub struct OrderedPool<W: PieceWorker> {
    config: Arc<W::Config>,
    threads: usize,
    shared: Option<Arc<Shared<W>>>,
    workers: Vec<JoinHandle<()>>,
    nonblocking: bool,
    readiness: Readiness,
    /// The last call stopped to wait for a worker (non-blocking mode).
    stalled: bool,
    /// The calling thread's state, for pieces it takes off the queue.
    local: Option<W>,
    queue: VecDeque<Receiver<W::Output>>,
}

impl<W: PieceWorker> std::fmt::Debug for OrderedPool<W> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OrderedPool")
            .field("threads", &self.threads)
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

impl<W: PieceWorker> OrderedPool<W> {
    /// A pool of `threads` working threads (0: one per CPU).
    pub fn new(config: W::Config, threads: usize) -> Self {
        OrderedPool {
            config: Arc::new(config),
            threads: resolve_threads(threads),
            shared: None,
            workers: Vec::new(),
            nonblocking: false,
            readiness: Readiness::new(),
            stalled: false,
            local: None,
            queue: VecDeque::new(),
        }
    }

    /// The shared configuration.
    pub fn config(&self) -> &W::Config {
        &self.config
    }

    /// Working threads.
    pub fn threads(&self) -> usize {
        self.threads
    }

    /// Switches to non-blocking mode (before the first piece is
    /// submitted): where [`next`](Self::next) would wait for a worker it
    /// returns `None` and [`stalled`](Self::stalled) is true, and
    /// [`readiness`](Self::readiness) is pending until a worker finishes.
    pub fn set_nonblocking(&mut self, nonblocking: bool) {
        if self.shared.is_none() {
            self.nonblocking = nonblocking;
        }
    }

    /// Non-blocking mode with `readiness` as the handle (shared with the
    /// face that drives the coder, or with other coders of a chain);
    /// before the first piece is submitted.
    pub fn set_nonblocking_with(&mut self, readiness: Readiness) {
        if self.shared.is_none() {
            self.nonblocking = true;
            self.readiness = readiness;
        }
    }

    /// Whether the pool is in non-blocking mode.
    pub fn is_nonblocking(&self) -> bool {
        self.nonblocking
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

    /// Whether the last [`next`](Self::next) stopped to wait for a worker
    /// (non-blocking mode).
    pub fn stalled(&self) -> bool {
        self.stalled
    }

    /// Pieces submitted whose output has not been taken.
    pub fn in_flight(&self) -> usize {
        self.queue.len()
    }

    /// Blocking, the caller works too (`threads - 1` workers);
    /// non-blocking, an executor thread must not, so all `threads` are
    /// workers.
    fn start_workers(&mut self) -> Arc<Shared<W>> {
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
                worker::<W>(&shared, &config, &readiness)
            }));
        }
        self.shared = Some(Arc::clone(&shared));
        shared
    }

    /// Queues a piece.
    pub fn submit(&mut self, input: W::Input) {
        let shared = match &self.shared {
            Some(s) => Arc::clone(s),
            None => self.start_workers(),
        };
        let (reply, rx) = mpsc::channel();
        shared.lock().jobs.push_back(Job { input, reply });
        shared.queued.notify_one();
        self.queue.push_back(rx);
    }

    /// The oldest piece's output, if it is done; with `wait`, blocking, the
    /// caller does queued pieces itself, then waits. `None` when nothing is
    /// in flight or the output is not done (non-blocking: then
    /// [`stalled`](Self::stalled) is set).
    pub fn next(&mut self, wait: bool) -> Option<Result<W::Output, WorkerDied>> {
        loop {
            // Read before looking, so a result published in between
            // counts as a change (see `Readiness`).
            let generation = self.readiness.generation();
            let got = match self.queue.front()?.try_recv() {
                Ok(r) => Some(Ok(r)),
                Err(TryRecvError::Disconnected) => Some(Err(WorkerDied)),
                Err(TryRecvError::Empty) if !wait => return None,
                Err(TryRecvError::Empty) => None,
            };
            if let Some(got) = got {
                self.queue.pop_front();
                return Some(got);
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
                    .send(W::run(&mut self.local, &self.config, job.input));
                continue;
            }
            let got = self.queue.front()?.recv().map_err(|_| WorkerDied);
            self.queue.pop_front();
            return Some(got);
        }
    }
}

impl<W: PieceWorker> Drop for OrderedPool<W> {
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

/// A worker: does whole pieces with its own, reused state.
fn worker<W: PieceWorker>(shared: &Shared<W>, config: &W::Config, readiness: &Readiness) {
    let mut state: Option<W> = None;
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
        let _ = job.reply.send(W::run(&mut state, config, job.input));
        readiness.notify();
    }
}

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

/// A [`PieceEncoder`] as the pool's worker.
struct Encoding<P>(P);

impl<P: PieceEncoder> PieceWorker for Encoding<P> {
    type Config = P::Config;
    type Input = Lease<u8>;
    type Output = Compressed<P>;

    fn run(state: &mut Option<Self>, config: &P::Config, input: Lease<u8>) -> Compressed<P> {
        if state.is_none() {
            *state = Some(Encoding(P::new(config)?));
        }
        state.as_mut().expect("made above").0.compress(&input)
    }
}

/// The capacity a piece's input buffer is leased with: the whole piece,
/// so that it never grows by copying (a fresh one is only reserved, its
/// pages touched as input arrives), up to 256 MiB.
fn piece_capacity(piece_size: u64) -> usize {
    piece_size.min(256 << 20) as usize
}

/// Pieces in flight per compressing thread before the caller waits for
/// the oldest.
const IN_FLIGHT_PER_THREAD: usize = 2;

/// Cuts input into pieces, compresses them on threads, hands them out in
/// order between the container's own bytes. The container drives it from
/// its `Encode` implementation; `on_meta` receives each piece's
/// [`PieceEncoder::Meta`] as the piece is handed out.
pub struct ParallelEncoder<P: PieceEncoder> {
    pool: OrderedPool<Encoding<P>>,
    piece_size: u64,
    /// Input of the piece being collected.
    input: Lease<u8>,
    /// A compressed piece being handed out.
    current: Option<(Lease<u8>, usize)>,
    /// Container bytes to hand out before the next piece.
    pending: Vec<u8>,
    pending_pos: usize,
}

impl<P: PieceEncoder> std::fmt::Debug for ParallelEncoder<P> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ParallelEncoder")
            .field("threads", &self.pool.threads())
            .field("piece_size", &self.piece_size)
            .field("in_flight", &self.pool.in_flight())
            .finish_non_exhaustive()
    }
}

impl<P: PieceEncoder> ParallelEncoder<P> {
    /// An encoder of pieces of `piece_size` bytes (at least 1) on
    /// `threads` threads (0: one per CPU); threads start with the first
    /// piece.
    pub fn new(config: P::Config, threads: usize, piece_size: u64) -> Self {
        let piece_size = piece_size.max(1);
        ParallelEncoder {
            pool: OrderedPool::new(config, threads),
            piece_size,
            input: Pool::<u8>::global().lease(piece_capacity(piece_size)),
            current: None,
            pending: Vec::new(),
            pending_pos: 0,
        }
    }

    /// The shared configuration.
    pub fn config(&self) -> &P::Config {
        self.pool.config()
    }

    /// Compressing threads.
    pub fn threads(&self) -> usize {
        self.pool.threads()
    }

    /// Switches to non-blocking mode (before the first piece is
    /// dispatched): where a call would wait for a worker it returns having
    /// done what it could, and [`readiness`](Self::readiness) is pending
    /// until a worker finishes.
    pub fn set_nonblocking(&mut self, nonblocking: bool) {
        self.pool.set_nonblocking(nonblocking);
    }

    /// Tells, in non-blocking mode, whether the next call can make
    /// progress, and wakes a task when a worker finishes.
    pub fn readiness(&self) -> &Readiness {
        self.pool.readiness()
    }

    /// Starts a call: it stalls again (and says so) only if it must.
    pub fn begin_call(&mut self) {
        self.pool.begin_call();
    }

    /// Queues container bytes to go out after everything dispatched so far.
    /// Call it only when nothing is in flight (at the start, or after
    /// [`flush`](Self::flush) returned true).
    pub fn push_bytes(&mut self, bytes: &[u8]) {
        debug_assert!(self.pool.in_flight() == 0 && self.current.is_none());
        self.pending.extend_from_slice(bytes);
    }

    /// Sends the collected input off as a piece.
    fn dispatch(&mut self) {
        let cap = piece_capacity(self.piece_size);
        let input = std::mem::replace(&mut self.input, Pool::<u8>::global().lease(cap));
        self.pool.submit(input);
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
            if self.pool.in_flight() == 0 {
                return Ok(true);
            }
            let Some(result) = self.pool.next(wait) else {
                return Ok(false);
            };
            wait = false;
            let (piece, meta) = result.unwrap_or_else(|WorkerDied| Err(P::worker_died()))?;
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
                if self.pool.in_flight() >= IN_FLIGHT_PER_THREAD * self.pool.threads() {
                    // Enough in flight: wait for the oldest piece first.
                    if output.is_full() {
                        return Ok(Progress::OutputFull);
                    }
                    self.drain(output, true, on_meta)?;
                    if self.pool.stalled() {
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
            if self.pool.stalled() {
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
