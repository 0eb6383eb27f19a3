//! Multi-threaded encoding: input is cut into Blocks as by `XzEncoder`, and
//! each Block is compressed by a worker thread with its own LZMA2 encoder;
//! the Blocks are written in order, so the output is byte-for-byte what
//! `XzEncoder` writes.

use std::collections::VecDeque;
use std::sync::mpsc::{self, Receiver, Sender, TryRecvError};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;

use lzflow_core::{Encode, InBuf, Lease, OutBuf, Pool, Progress};

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
    /// Worker threads; 0 means one per available CPU.
    pub threads: usize,
}

type Compressed = Result<(Lease<u8>, IndexRecord), XzError>;

struct Job {
    input: Lease<u8>,
    reply: Sender<Compressed>,
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
/// its compressed output; every worker has its own LZMA2 encoder (see
/// [`memory_usage`](Self::memory_usage)). `encode`, `flush` and `finish`
/// block the calling thread when they can do nothing but wait for a worker.
pub struct MtXzEncoder {
    opts: Arc<XzEncoderOptions>,
    threads: usize,
    block_size: u64,
    flags: StreamFlags,
    /// Input of the Block being collected.
    input: Lease<u8>,
    jobs: Option<Sender<Job>>,
    workers: Vec<JoinHandle<()>>,
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
            jobs: None,
            workers: Vec::new(),
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

    fn start_workers(&mut self) {
        let (tx, rx) = mpsc::channel::<Job>();
        let rx = Arc::new(Mutex::new(rx));
        for _ in 0..self.threads {
            let rx = Arc::clone(&rx);
            let opts = Arc::clone(&self.opts);
            self.workers
                .push(std::thread::spawn(move || worker(&rx, &opts)));
        }
        self.jobs = Some(tx);
    }

    /// Sends the collected input off as a Block.
    fn dispatch(&mut self) {
        if self.jobs.is_none() {
            self.start_workers();
        }
        let cap = self.block_size.min(1 << 20) as usize;
        let input = std::mem::replace(&mut self.input, Pool::<u8>::global().lease(cap));
        let (reply, rx) = mpsc::channel();
        // Workers exit only once the sender is dropped.
        let _ = self
            .jobs
            .as_ref()
            .expect("started")
            .send(Job { input, reply });
        self.queue.push_back(rx);
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
            let Some(front) = self.queue.front() else {
                return Ok(true);
            };
            let result = if wait {
                wait = false;
                front.recv().ok()
            } else {
                match front.try_recv() {
                    Ok(r) => Some(r),
                    Err(TryRecvError::Empty) => return Ok(false),
                    Err(TryRecvError::Disconnected) => None,
                }
            };
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
            self.drain(output, true)?;
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

    fn sticky<T>(&mut self, res: Result<T, XzError>) -> Result<T, XzError> {
        if let Err(e) = &res {
            self.error = Some(e.clone());
        }
        res
    }
}

impl Drop for MtXzEncoder {
    fn drop(&mut self) {
        self.jobs = None;
        for w in self.workers.drain(..) {
            let _ = w.join();
        }
    }
}

/// A worker: compresses whole Blocks with its own, reused encoder.
fn worker(jobs: &Mutex<Receiver<Job>>, opts: &XzEncoderOptions) {
    let mut encoder: Option<BlockEncoder> = None;
    loop {
        let job = {
            let rx = jobs.lock().unwrap_or_else(|e| e.into_inner());
            rx.recv()
        };
        let Ok(job) = job else { return };
        let _ = job.reply.send(compress(&mut encoder, opts, &job.input));
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
        let res = self.finish_inner(output);
        self.sticky(res)
    }
}
