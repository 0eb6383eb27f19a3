//! Multi-threaded encoding: input is cut into Blocks as by `XzEncoder`, and
//! each Block is compressed by a worker thread with its own LZMA2 encoder;
//! the Blocks are written in order, so the output is byte-for-byte what
//! `XzEncoder` writes.

use std::collections::VecDeque;
use std::sync::mpsc::{self, Receiver, Sender, TryRecvError};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::thread::JoinHandle;

use lzflow_core::{Encode, InBuf, Lease, OutBuf, Pool, Progress, Readiness};

use crate::block_encoder::BlockEncoder;
use crate::encoder::XzEncoderOptions;
use crate::index::{encode_index, index_size, IndexRecord};
use crate::stream_flags::{encode_footer, encode_header, StreamFlags, BACKWARD_SIZE_MAX};
use crate::XzError;

/// Options for [`MtXzEncoder`]; the default is preset 6, CRC64, one thread
/// per CPU.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct MtXzEncoderOptions {
    /// Compression settings and Block size, as for
    /// [`XzEncoder`](crate::XzEncoder).
    pub base: XzEncoderOptions,
    /// Compressing threads (blocking: the caller and `threads - 1` workers;
    /// non-blocking: `threads` workers); 0 means one per available CPU.
    pub threads: usize,
}

type Compressed = Result<(Lease<u8>, IndexRecord), XzError>;

struct Job {
    input: Lease<u8>,
    reply: Sender<Compressed>,
}

/// Blocks dispatched but not started, shared by the workers and the
/// calling thread (which compresses one instead of idling).
#[derive(Default)]
struct JobQueue {
    jobs: VecDeque<Job>,
    closed: bool,
}

#[derive(Default)]
struct Shared {
    queue: Mutex<JobQueue>,
    /// Signalled when a job is queued or the queue is closed.
    queued: Condvar,
}

impl Shared {
    fn lock(&self) -> MutexGuard<'_, JobQueue> {
        self.queue.lock().unwrap_or_else(|e| e.into_inner())
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    Running,
    Trailer,
    Done,
}

/// Multi-threaded `.xz` encoder with the same [`Encode`] contract and the
/// same output as [`XzEncoder`](crate::XzEncoder) with the same options.
///
/// Up to two Blocks per thread are in flight, each holding its input and
/// its compressed output; every compressing thread has its own LZMA2
/// encoder (see [`memory_usage`](Self::memory_usage)).
///
/// By default `encode`, `flush` and `finish` block when they can do nothing
/// but wait for a worker, and rather than idle the calling thread
/// compresses a queued Block itself: `threads` compressing threads are the
/// caller plus `threads - 1` workers. In
/// [non-blocking](Self::set_nonblocking) mode (async faces) there are
/// `threads` workers, and calls return [`Progress::OutputFull`] instead of
/// waiting; [`readiness`](Self::readiness) says when to call again.
pub struct MtXzEncoder {
    opts: Arc<XzEncoderOptions>,
    threads: usize,
    block_size: u64,
    flags: StreamFlags,
    /// Input of the Block being collected.
    input: Lease<u8>,
    shared: Option<Arc<Shared>>,
    workers: Vec<JoinHandle<()>>,
    nonblocking: bool,
    readiness: Readiness,
    /// The last call stopped to wait for a worker (non-blocking mode).
    stalled: bool,
    /// The calling thread's encoder, for Blocks it takes off the queue.
    encoder: Option<BlockEncoder>,
    queue: VecDeque<Receiver<Compressed>>,
    /// A compressed Block being handed out.
    current: Option<(Lease<u8>, usize)>,
    records: Vec<IndexRecord>,
    pending: Vec<u8>,
    pending_pos: usize,
    state: State,
    error: Option<XzError>,
}

impl std::fmt::Debug for MtXzEncoder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MtXzEncoder")
            .field("threads", &self.threads)
            .field("block_size", &self.block_size)
            .field("blocks", &self.records.len())
            .field("state", &self.state)
            .finish_non_exhaustive()
    }
}

impl MtXzEncoder {
    /// An encoder with these options; checks them and starts the threads on
    /// first use.
    pub fn new(opts: MtXzEncoderOptions) -> Result<Self, XzError> {
        opts.base.validate()?;
        let threads = match opts.threads {
            0 => std::thread::available_parallelism().map_or(1, |n| n.get()),
            n => n,
        };
        let block_size = opts.base.effective_block_size();
        let flags = StreamFlags::new(opts.base.check);
        Ok(MtXzEncoder {
            threads,
            block_size,
            flags,
            input: Pool::<u8>::global().lease(block_size.min(1 << 20) as usize),
            opts: Arc::new(opts.base),
            shared: None,
            workers: Vec::new(),
            nonblocking: false,
            readiness: Readiness::new(),
            stalled: false,
            encoder: None,
            queue: VecDeque::new(),
            current: None,
            records: Vec::new(),
            pending: encode_header(flags).to_vec(),
            pending_pos: 0,
            state: State::Running,
            error: None,
        })
    }

    /// Bytes the encoder may allocate: per thread an LZMA2 encoder and two
    /// Blocks of input and compressed output.
    pub fn memory_usage(opts: &MtXzEncoderOptions) -> u64 {
        let threads = match opts.threads {
            0 => std::thread::available_parallelism().map_or(1, |n| n.get()),
            n => n,
        } as u64;
        let block = opts.base.effective_block_size();
        threads * (crate::XzEncoder::memory_usage(&opts.base) + 4 * block)
    }

    /// Switches to non-blocking mode (before the first Block is
    /// dispatched): where a call would wait for a worker it returns
    /// [`Progress::OutputFull`] having done what it could, and
    /// [`readiness`](Self::readiness) is pending until a worker finishes.
    pub fn set_nonblocking(&mut self, nonblocking: bool) {
        if self.shared.is_none() {
            self.nonblocking = nonblocking;
        }
    }

    /// The handle that tells, in non-blocking mode, whether the next call
    /// can make progress, and wakes a task when a worker finishes.
    pub fn readiness(&self) -> &Readiness {
        &self.readiness
    }

    /// Blocking, the caller compresses too (`threads - 1` workers);
    /// non-blocking, an executor thread must not, so all `threads` are
    /// workers.
    fn start_workers(&mut self) -> Arc<Shared> {
        let shared = Arc::new(Shared::default());
        let count = if self.nonblocking {
            self.threads
        } else {
            self.threads - 1
        };
        for _ in 0..count {
            let shared = Arc::clone(&shared);
            let opts = Arc::clone(&self.opts);
            let readiness = self.readiness.clone();
            self.workers.push(std::thread::spawn(move || {
                worker(&shared, &opts, &readiness)
            }));
        }
        self.shared = Some(Arc::clone(&shared));
        shared
    }

    /// Sends the collected input off as a Block.
    fn dispatch(&mut self) {
        let shared = match &self.shared {
            Some(s) => Arc::clone(s),
            None => self.start_workers(),
        };
        let cap = self.block_size.min(1 << 20) as usize;
        let input = std::mem::replace(&mut self.input, Pool::<u8>::global().lease(cap));
        let (reply, rx) = mpsc::channel();
        shared.lock().jobs.push_back(Job { input, reply });
        shared.queued.notify_one();
        self.queue.push_back(rx);
    }

    /// The first Block's result, if it is done; with `wait`, blocking, it
    /// compresses queued Blocks itself, then waits. `None` means not done
    /// (non-blocking: `stalled` is set); `Some(None)`, its worker died.
    fn next_compressed(&mut self, wait: bool) -> Option<Option<Compressed>> {
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
                    .send(compress(&mut self.encoder, &self.opts, &job.input));
                continue;
            }
            return Some(self.queue.front()?.recv().ok());
        }
    }

    /// Hands out the header, finished Blocks in order, and the trailer.
    /// With `wait`, blocks for the first Block in line once. True when
    /// nothing is left to hand out.
    fn drain(&mut self, output: &mut OutBuf<'_>, mut wait: bool) -> Result<bool, XzError> {
        self.pending_pos += output.push(&self.pending[self.pending_pos..]);
        if self.pending_pos < self.pending.len() {
            return Ok(false);
        }
        self.pending.clear();
        self.pending_pos = 0;
        loop {
            if let Some((block, pos)) = &mut self.current {
                *pos += output.push(&block[*pos..]);
                if *pos < block.len() {
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
            let (block, record) = result.unwrap_or(Err(XzError::InvalidOptions {
                reason: "an encoder worker thread died",
            }))?;
            self.records.push(record);
            self.current = Some((block, 0));
        }
    }

    fn encode_inner(
        &mut self,
        input: &mut InBuf<'_>,
        output: &mut OutBuf<'_>,
    ) -> Result<Progress, XzError> {
        loop {
            self.drain(output, false)?;
            if output.is_full() && (self.pending_pos < self.pending.len() || self.current.is_some())
            {
                return Ok(Progress::OutputFull);
            }
            if input.is_empty() {
                return Ok(Progress::NeedInput);
            }
            let room = (self.block_size - self.input.len() as u64).min(input.len() as u64) as usize;
            self.input.extend_from_slice(input.take(room));
            if self.input.len() as u64 == self.block_size {
                if self.queue.len() >= 2 * self.threads {
                    // Enough in flight: wait for the oldest Block first.
                    if output.is_full() {
                        return Ok(Progress::OutputFull);
                    }
                    self.drain(output, true)?;
                    if self.stalled {
                        return Ok(Progress::OutputFull);
                    }
                    continue;
                }
                self.dispatch();
            }
        }
    }

    /// Ends the Block being collected and hands out everything; `Ok(true)`
    /// when all is out.
    fn flush_blocks(&mut self, output: &mut OutBuf<'_>) -> Result<bool, XzError> {
        if !self.input.is_empty() {
            self.dispatch();
        }
        loop {
            if self.drain(output, false)? {
                return Ok(true);
            }
            if output.is_full() {
                return Ok(false);
            }
            if self.drain(output, true)? {
                return Ok(true);
            }
            if self.stalled {
                return Ok(false);
            }
        }
    }

    fn finish_inner(&mut self, output: &mut OutBuf<'_>) -> Result<Progress, XzError> {
        loop {
            match self.state {
                State::Running => {
                    if !self.flush_blocks(output)? {
                        return Ok(Progress::OutputFull);
                    }
                    let size = index_size(&self.records);
                    if size > BACKWARD_SIZE_MAX {
                        return Err(XzError::SizeOverflow {
                            what: "index (too many blocks for one stream)",
                        });
                    }
                    encode_index(&self.records, &mut self.pending);
                    self.pending
                        .extend_from_slice(&encode_footer(self.flags, size));
                    self.state = State::Trailer;
                }
                State::Trailer => {
                    if !self.drain(output, false)? {
                        return Ok(Progress::OutputFull);
                    }
                    self.state = State::Done;
                }
                State::Done => return Ok(Progress::StreamEnd),
            }
        }
    }

    /// A new call: it stalls again (and says so) only if it must.
    fn begin_call(&mut self) {
        self.stalled = false;
        self.readiness.clear();
    }

    fn sticky<T>(&mut self, res: Result<T, XzError>) -> Result<T, XzError> {
        if let Err(e) = &res {
            self.error = Some(e.clone());
        }
        res
    }
}

impl Drop for MtXzEncoder {
    fn drop(&mut self) {
        // Closing the queue makes the workers finish their Block and exit.
        if let Some(shared) = &self.shared {
            shared.lock().closed = true;
            shared.queued.notify_all();
        }
        for w in self.workers.drain(..) {
            let _ = w.join();
        }
    }
}

/// A worker: compresses whole Blocks with its own, reused encoder.
fn worker(shared: &Shared, opts: &XzEncoderOptions, readiness: &Readiness) {
    let mut encoder: Option<BlockEncoder> = None;
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
        let _ = job.reply.send(compress(&mut encoder, opts, &job.input));
        readiness.notify();
    }
}

fn compress(
    encoder: &mut Option<BlockEncoder>,
    opts: &XzEncoderOptions,
    input: &[u8],
) -> Compressed {
    if encoder.is_none() {
        let cap = opts.effective_block_size().min(1 << 20) as usize;
        *encoder = Some(BlockEncoder::new(
            &opts.lzma,
            &opts.filters,
            opts.check,
            cap,
        )?);
    }
    let enc = encoder.as_mut().expect("created");
    enc.encode(&mut InBuf::new(input))?;
    let record = enc.finish()?;
    let mut block = Pool::<u8>::global().lease(enc.finished().len());
    block.extend_from_slice(enc.finished());
    enc.next_block()?;
    Ok((block, record))
}

impl Encode for MtXzEncoder {
    type Error = XzError;

    fn encode(
        &mut self,
        input: &mut InBuf<'_>,
        output: &mut OutBuf<'_>,
    ) -> Result<Progress, XzError> {
        if let Some(e) = &self.error {
            return Err(e.clone());
        }
        if self.state != State::Running {
            return Err(XzError::InvalidOptions {
                reason: "encode() called after finish()",
            });
        }
        self.begin_call();
        let res = self.encode_inner(input, output);
        self.sticky(res)
    }

    fn flush(&mut self, output: &mut OutBuf<'_>) -> Result<Progress, XzError> {
        if let Some(e) = &self.error {
            return Err(e.clone());
        }
        if self.state != State::Running {
            return Ok(Progress::NeedInput);
        }
        self.begin_call();
        let res = self.flush_blocks(output).map(|done| {
            if done {
                Progress::NeedInput
            } else {
                Progress::OutputFull
            }
        });
        self.sticky(res)
    }

    fn finish(&mut self, output: &mut OutBuf<'_>) -> Result<Progress, XzError> {
        if let Some(e) = &self.error {
            return Err(e.clone());
        }
        self.begin_call();
        let res = self.finish_inner(output);
        self.sticky(res)
    }
}
