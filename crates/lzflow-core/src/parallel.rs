//! Independent pieces of work done on worker threads and handed back in
//! order: [`OrderedPool`], the pool the multi-threaded coders share,
//! whatever their pieces are (XZ Blocks and lzip members to compress,
//! LZMA2 segments between dictionary resets and 7z folders to decode, zip
//! entries to compress); and on top of it [`ParallelEncoder`], which cuts
//! input into fixed-size pieces and hands out their compressed bytes
//! between the container's own.
//!
//! Pieces start in the order they were queued, or, queued with weights,
//! the costliest first ([`OrderedPool::submit_weighted`]).
//!
//! Two pools are not this one, for what it does not do: the XZ
//! multi-threaded decoder's has its calling thread start the Block it is
//! due to hand out and its workers the largest (measured 0.53× of one
//! thread against 0.58× in order), and the 7z writer's folder
//! workers stream a folder's input in and its output out while it is
//! compressed, where this pool takes and gives whole pieces.
//!
//! By default a caller that can do nothing but wait for a worker blocks,
//! and rather than idle it does a queued piece itself: `threads` working
//! threads are the caller plus `threads - 1` workers. In
//! [non-blocking](OrderedPool::set_nonblocking) mode (async faces) there
//! are `threads` workers, calls return without progress instead of
//! waiting, and [`Readiness`] says when to call again.

use std::collections::VecDeque;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::mpsc::{self, Receiver, Sender, TryRecvError};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::task::{Context, Poll};
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

/// A piece's work panicked: it has no output. The thread that ran it
/// lives on with a fresh state.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WorkerDied;

struct Job<W: PieceWorker> {
    input: W::Input,
    reply: Sender<W::Output>,
    /// What the piece costs, about ([`OrderedPool::submit_weighted`]).
    weight: u64,
}

impl<W: PieceWorker> Job<W> {
    /// Does the piece with `state` and sends its output. A panic drops the
    /// reply, which the taker sees as [`WorkerDied`], and the state, which
    /// the panic may have left half-updated.
    fn run(self, state: &mut Option<W>, config: &W::Config) {
        let Job { input, reply, .. } = self;
        match catch_unwind(AssertUnwindSafe(|| W::run(state, config, input))) {
            // The taker may be gone (the pool was dropped): fine.
            Ok(output) => drop(reply.send(output)),
            Err(_) => *state = None,
        }
    }
}

/// Pieces dispatched but not started, shared by the workers and the
/// calling thread (which does one instead of idling).
struct JobQueue<W: PieceWorker> {
    jobs: VecDeque<Job<W>>,
    /// Some piece came with a weight: start the costliest first.
    weighted: bool,
    closed: bool,
}

impl<W: PieceWorker> JobQueue<W> {
    /// The piece to start next: the oldest of the costliest queued ones,
    /// costs compared by their power of two (pieces within a factor of
    /// about two of each other are taken in order, so that outputs are
    /// ready in order and the caller hands them out as it goes); simply
    /// the oldest when no piece has a weight.
    fn take(&mut self) -> Option<Job<W>> {
        if !self.weighted {
            return self.jobs.pop_front();
        }
        let class = |job: &Job<W>| u64::BITS - job.weight.leading_zeros();
        let mut best = 0;
        for (i, job) in self.jobs.iter().enumerate() {
            if class(job) > class(&self.jobs[best]) {
                best = i;
            }
        }
        self.jobs.remove(best)
    }
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
                weighted: false,
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

    /// Queues a piece. Pieces start in the order they are queued, unless
    /// some came through [`submit_weighted`](Self::submit_weighted).
    pub fn submit(&mut self, input: W::Input) {
        self.queue_job(input, 0, false);
    }

    /// Queues a piece that costs about `weight` (in any unit, the same
    /// for every piece of this pool). A thread free to start a piece
    /// starts the costliest one queued: with costs that differ, the last
    /// long piece then does not start when the others are done, and all
    /// end sooner (a solid 7z of 7-Zip's, text then x86 code: 0.58× of
    /// one thread's time on 2 threads, against 0.62× in order). Outputs
    /// still come back in the order the pieces were queued.
    pub fn submit_weighted(&mut self, input: W::Input, weight: u64) {
        self.queue_job(input, weight, true);
    }

    fn queue_job(&mut self, input: W::Input, weight: u64, weighted: bool) {
        let shared = match &self.shared {
            Some(s) => Arc::clone(s),
            None => self.start_workers(),
        };
        let (reply, rx) = mpsc::channel();
        let mut q = shared.lock();
        q.weighted |= weighted;
        q.jobs.push_back(Job {
            input,
            reply,
            weight,
        });
        drop(q);
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
            let job = self.shared.as_ref().and_then(|s| s.lock().take());
            if let Some(job) = job {
                job.run(&mut self.local, &self.config);
                continue;
            }
            let got = self.queue.front()?.recv().map_err(|_| WorkerDied);
            self.queue.pop_front();
            return Some(got);
        }
    }

    /// The oldest piece's output, waited for, for a poll-style caller:
    /// blocking, as [`next`](Self::next) with `wait`; non-blocking,
    /// `Pending` until a worker finishes, with `cx` woken then. `None`
    /// when nothing is in flight. Each attempt is a call of its own
    /// ([`begin_call`](Self::begin_call)), so [`stalled`](Self::stalled)
    /// and the readiness say how the last one went.
    pub fn poll_next(
        &mut self,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<W::Output, WorkerDied>>> {
        loop {
            self.begin_call();
            if let Some(got) = self.next(true) {
                return Poll::Ready(Some(got));
            }
            if self.queue.is_empty() {
                return Poll::Ready(None);
            }
            // Stalled: `next` recorded the wait.
            if self.readiness.poll_ready(cx).is_pending() {
                return Poll::Pending;
            }
        }
    }
}

impl<W: PieceWorker> Drop for OrderedPool<W> {
    fn drop(&mut self) {
        // Closed, the queue lets each worker finish its piece and exit;
        // pieces not started are dropped.
        if let Some(shared) = &self.shared {
            let mut q = shared.lock();
            q.closed = true;
            q.jobs.clear();
            drop(q);
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
                if let Some(job) = q.take() {
                    break job;
                }
                if q.closed {
                    return;
                }
                q = shared.queued.wait(q).unwrap_or_else(|e| e.into_inner());
            }
        };
        job.run(&mut state, config);
        // Also after a panic: the taker must see the dropped reply.
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

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::task::Waker;

    /// Squares its input after its gate (if any) opens; panics on 13.
    /// Its state counts the pieces it did; the config counts all pieces.
    struct Square(usize);

    impl PieceWorker for Square {
        type Config = Arc<AtomicUsize>;
        type Input = (usize, Option<Receiver<()>>);
        type Output = (usize, usize);

        fn run(
            state: &mut Option<Self>,
            done: &Arc<AtomicUsize>,
            input: Self::Input,
        ) -> (usize, usize) {
            let (n, gate) = input;
            if let Some(gate) = gate {
                let _ = gate.recv();
            }
            assert!(n != 13, "a piece that panics");
            done.fetch_add(1, Ordering::SeqCst);
            let seen = state.get_or_insert(Square(0));
            seen.0 += 1;
            (n * n, seen.0)
        }
    }

    fn pool(threads: usize, nonblocking: bool) -> OrderedPool<Square> {
        let mut p = OrderedPool::new(Arc::new(AtomicUsize::new(0)), threads);
        p.set_nonblocking(nonblocking);
        p
    }

    #[test]
    fn blocking_outputs_come_in_order_whatever_the_threads() {
        for threads in [1, 2, 4] {
            let mut p = pool(threads, false);
            // Not 13, which panics.
            for i in 100..150 {
                p.submit((i, None));
            }
            for i in 100..150 {
                assert_eq!(p.next(true).unwrap().unwrap().0, i * i);
            }
            assert!(p.next(true).is_none());
        }
    }

    #[test]
    fn nonblocking_waits_without_working_and_survives_a_panic() {
        let mut p = pool(1, true);
        let mut cx = Context::from_waker(Waker::noop());
        let (go, gate) = mpsc::channel();
        p.submit((7, Some(gate)));
        assert!(p.poll_next(&mut cx).is_pending());
        assert!(p.next(false).is_none());
        go.send(()).unwrap();
        let first = loop {
            if let Poll::Ready(r) = p.poll_next(&mut cx) {
                break r;
            }
            std::thread::yield_now();
        };
        assert_eq!(first, Some(Ok((49, 1))));

        // The panic is the piece's error; the thread goes on, with a fresh
        // state.
        p.submit((13, None));
        p.submit((3, None));
        let mut got = Vec::new();
        while got.len() < 2 {
            if let Poll::Ready(r) = p.poll_next(&mut cx) {
                got.push(r.unwrap());
            } else {
                std::thread::yield_now();
            }
        }
        assert_eq!(got, [Err(WorkerDied), Ok((9, 1))]);
        assert_eq!(p.poll_next(&mut cx), Poll::Ready(None));
    }

    #[test]
    fn blocking_caller_reports_a_panic_in_a_piece_it_does() {
        let mut p = pool(1, false);
        p.submit((13, None));
        p.submit((2, None));
        assert_eq!(p.next(true), Some(Err(WorkerDied)));
        assert_eq!(p.next(true), Some(Ok((4, 1))));
    }

    /// Records the order pieces start in.
    struct Record;

    impl PieceWorker for Record {
        type Config = Mutex<Vec<usize>>;
        type Input = usize;
        type Output = usize;

        fn run(_: &mut Option<Self>, started: &Mutex<Vec<usize>>, n: usize) -> usize {
            started.lock().unwrap().push(n);
            n
        }
    }

    #[test]
    fn the_costliest_piece_starts_first_and_outputs_stay_in_order() {
        // One thread: the caller does every piece, in the pool's order.
        let mut p = OrderedPool::<Record>::new(Mutex::new(Vec::new()), 1);
        // Weights 1, 100, 3, 1000, 2, 70: powers of two 1, 7, 2, 10, 2, 7.
        for (i, w) in [1, 100, 3, 1000, 2, 70].into_iter().enumerate() {
            p.submit_weighted(i, w);
        }
        let outputs: Vec<usize> = (0..6).map(|_| p.next(true).unwrap().unwrap()).collect();
        assert_eq!(outputs, [0, 1, 2, 3, 4, 5]);
        // Costliest first; within a power of two, the older first. The
        // oldest piece (weight 1) is started last although it is due
        // first.
        assert_eq!(*p.config().lock().unwrap(), [3, 1, 5, 2, 4, 0]);

        // Without weights, in order.
        let mut p = OrderedPool::<Record>::new(Mutex::new(Vec::new()), 1);
        for i in 0..6 {
            p.submit(i);
        }
        for i in 0..6 {
            assert_eq!(p.next(true), Some(Ok(i)));
        }
        assert_eq!(*p.config().lock().unwrap(), [0, 1, 2, 3, 4, 5]);
    }

    #[test]
    fn dropping_drops_the_pieces_not_started() {
        let done = Arc::new(AtomicUsize::new(0));
        let mut p = OrderedPool::<Square>::new(Arc::clone(&done), 1);
        p.set_nonblocking(true);
        let (go, gate) = mpsc::channel();
        p.submit((1, Some(gate)));
        for i in 0..100 {
            p.submit((i, None));
        }
        let opener = std::thread::spawn(move || {
            std::thread::sleep(std::time::Duration::from_millis(50));
            let _ = go.send(());
        });
        drop(p);
        opener.join().unwrap();
        // At most the piece the worker had taken.
        assert!(done.load(Ordering::SeqCst) <= 1);
    }
}
