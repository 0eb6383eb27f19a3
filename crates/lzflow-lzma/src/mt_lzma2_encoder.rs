//! Multi-threaded LZMA2 encoding: the input is cut into pieces of a fixed
//! size, each compressed on a worker thread as an independent LZMA2 stream
//! (its first chunk resets the dictionary), and the streams are joined in
//! order without their end markers. The result is one valid LZMA2 stream:
//! a decoder sees a dictionary reset at each piece boundary.
//!
//! Pieces depend only on `piece_size`, never on the thread count or on how
//! the caller splits its input, so the output is the same for any number of
//! threads. Each piece starts with an empty dictionary, so a piece should be
//! several dictionaries long ([`MtLzma2Encoder::default_piece_size`]).

use std::collections::VecDeque;
use std::sync::mpsc::{self, Receiver, Sender, TryRecvError};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;

use lzflow_core::{encode_to_end, Encode, InBuf, OutBuf, Progress};

use crate::{Lzma2Encoder, LzmaError, LzmaOptions};

/// The LZMA2 end-of-stream control byte.
const CONTROL_END: u8 = 0x00;

/// A piece to compress; `out` is a recycled buffer for the result.
struct Job {
    input: Vec<u8>,
    out: Vec<u8>,
    reply: Sender<Done>,
}

/// A compressed piece (or the error), with its input buffer to recycle.
struct Done {
    input: Vec<u8>,
    out: Result<Vec<u8>, LzmaError>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    Running,
    /// `finish` queued the last piece; the end marker is still to come.
    Finishing,
    Finished,
}

/// Multi-threaded LZMA2 encoder with the [`Encode`] contract of
/// [`Lzma2Encoder`].
///
/// `threads` workers each own an [`Lzma2Encoder`], so memory is about
/// `threads` × [`Lzma2Encoder::memory_usage`] plus up to two pieces of
/// input and output per thread. When that many pieces are in flight,
/// `encode` blocks until the oldest is done: this encoder is for blocking
/// callers (threads, `spawn_blocking`), not for polling on an async runtime.
pub struct MtLzma2Encoder {
    piece_size: usize,
    max_in_flight: usize,
    /// Input gathered for the next piece.
    piece: Vec<u8>,
    /// Replies of the pieces dispatched, oldest first.
    in_flight: VecDeque<Receiver<Done>>,
    /// Compressed bytes of the oldest finished piece, being written.
    out: Vec<u8>,
    out_pos: usize,
    /// Emptied buffers for the next pieces.
    spare_inputs: Vec<Vec<u8>>,
    spare_outputs: Vec<Vec<u8>>,
    jobs: Option<Sender<Job>>,
    workers: Vec<JoinHandle<()>>,
    phase: Phase,
    error: Option<LzmaError>,
}

impl std::fmt::Debug for MtLzma2Encoder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MtLzma2Encoder")
            .field("piece_size", &self.piece_size)
            .field("threads", &self.workers.len())
            .field("in_flight", &self.in_flight.len())
            .field("phase", &self.phase)
            .finish_non_exhaustive()
    }
}

impl MtLzma2Encoder {
    /// Three dictionaries, at least 1 MiB: as xz cuts blocks for `-T`, so
    /// the ratio lost to dictionary resets stays small.
    pub fn default_piece_size(opts: &LzmaOptions) -> usize {
        (opts.dict_size as usize).saturating_mul(3).max(1 << 20)
    }

    /// An encoder for `opts` on `threads` worker threads (at least one),
    /// cutting the input into pieces of `piece_size` bytes (at least 1 MiB
    /// is sensible; 0 picks [`default_piece_size`](Self::default_piece_size)).
    pub fn new(opts: &LzmaOptions, threads: usize, piece_size: usize) -> Result<Self, LzmaError> {
        opts.validate(true)?;
        let threads = threads.max(1);
        let piece_size = match piece_size {
            0 => Self::default_piece_size(opts),
            n => n,
        };
        let (tx, rx) = mpsc::channel::<Job>();
        let rx = Arc::new(Mutex::new(rx));
        let mut workers = Vec::with_capacity(threads);
        for i in 0..threads {
            let rx = Arc::clone(&rx);
            let opts = *opts;
            let handle = std::thread::Builder::new()
                .name(format!("lzflow-lzma2-{i}"))
                .spawn(move || worker(&rx, &opts))
                .map_err(|_| LzmaError::Usage("could not start an encoder thread"))?;
            workers.push(handle);
        }
        Ok(MtLzma2Encoder {
            piece_size,
            max_in_flight: 2 * threads,
            piece: Vec::new(),
            in_flight: VecDeque::new(),
            out: Vec::new(),
            out_pos: 0,
            spare_inputs: Vec::new(),
            spare_outputs: Vec::new(),
            jobs: Some(tx),
            workers,
            phase: Phase::Running,
            error: None,
        })
    }

    /// Bytes this encoder may hold at most: each thread's encoder and two
    /// pieces of input and output per thread.
    pub fn memory_usage(opts: &LzmaOptions, threads: usize, piece_size: usize) -> u64 {
        let threads = threads.max(1) as u64;
        let piece = match piece_size {
            0 => Self::default_piece_size(opts),
            n => n,
        } as u64;
        threads * (Lzma2Encoder::memory_usage(opts) + 4 * piece)
    }

    /// Starts a new independent stream after [`finish`](Encode::finish)
    /// (or an error), keeping the threads and buffers.
    pub fn reset(&mut self) {
        // Replies still in flight belong to the old stream: drop them.
        self.in_flight.clear();
        self.piece.clear();
        self.out.clear();
        self.out_pos = 0;
        self.phase = Phase::Running;
        self.error = None;
    }

    /// Sends the gathered piece to the workers.
    fn dispatch(&mut self) -> Result<(), LzmaError> {
        let input = std::mem::take(&mut self.piece);
        let out = self.spare_outputs.pop().unwrap_or_default();
        let (reply, rx) = mpsc::channel();
        let jobs = self
            .jobs
            .as_ref()
            .ok_or(LzmaError::Usage("encoder closed"))?;
        jobs.send(Job { input, out, reply })
            .map_err(|_| LzmaError::Usage("encoder threads are gone"))?;
        self.in_flight.push_back(rx);
        self.piece = self.spare_inputs.pop().unwrap_or_default();
        Ok(())
    }

    /// Writes pending compressed bytes; when they are all out, takes the
    /// next finished piece (waiting for the first one if `wait`, so the
    /// workers stay busy with the rest). Returns false when the output is
    /// full.
    fn drain(&mut self, output: &mut OutBuf<'_>, mut wait: bool) -> Result<bool, LzmaError> {
        loop {
            if self.out_pos < self.out.len() {
                self.out_pos += output.push(&self.out[self.out_pos..]);
                if self.out_pos < self.out.len() {
                    return Ok(false);
                }
            }
            let Some(rx) = self.in_flight.front() else {
                return Ok(true);
            };
            let done = if wait {
                rx.recv().ok()
            } else {
                match rx.try_recv() {
                    Ok(d) => Some(d),
                    Err(TryRecvError::Empty) => return Ok(true),
                    Err(TryRecvError::Disconnected) => None,
                }
            };
            self.in_flight.pop_front();
            wait = false;
            let done = done.ok_or(LzmaError::Usage("an encoder thread panicked"))?;
            let mut input = done.input;
            input.clear();
            self.spare_inputs.push(input);
            let old = std::mem::replace(&mut self.out, done.out?);
            self.spare_outputs.push(old);
            self.out_pos = 0;
        }
    }

    fn encode_inner(
        &mut self,
        input: &mut InBuf<'_>,
        output: &mut OutBuf<'_>,
    ) -> Result<Progress, LzmaError> {
        if self.phase != Phase::Running {
            return Err(LzmaError::Usage("encode() called after finish()"));
        }
        loop {
            if !self.drain(output, false)? {
                return Ok(Progress::OutputFull);
            }
            if input.is_empty() {
                return Ok(Progress::NeedInput);
            }
            if self.piece.capacity() == 0 {
                self.piece.reserve_exact(self.piece_size);
            }
            let n = (self.piece_size - self.piece.len()).min(input.len());
            self.piece.extend_from_slice(input.take(n));
            if self.piece.len() == self.piece_size {
                // Bounded memory: wait for the oldest piece before adding
                // one more.
                while self.in_flight.len() >= self.max_in_flight {
                    if !self.drain(output, true)? {
                        // The piece stays gathered; it goes out next call.
                        return Ok(Progress::OutputFull);
                    }
                }
                self.dispatch()?;
            }
        }
    }

    /// Sends what is gathered and writes every piece in flight.
    fn flush_inner(&mut self, output: &mut OutBuf<'_>) -> Result<bool, LzmaError> {
        if !self.piece.is_empty() {
            if self.in_flight.len() >= self.max_in_flight && !self.drain(output, true)? {
                return Ok(false);
            }
            self.dispatch()?;
        }
        while !self.in_flight.is_empty() || self.out_pos < self.out.len() {
            if !self.drain(output, true)? {
                return Ok(false);
            }
        }
        Ok(true)
    }

    fn finish_inner(&mut self, output: &mut OutBuf<'_>) -> Result<Progress, LzmaError> {
        if self.phase == Phase::Running {
            self.phase = Phase::Finishing;
        }
        if self.phase == Phase::Finishing {
            if !self.flush_inner(output)? {
                return Ok(Progress::OutputFull);
            }
            if output.push(&[CONTROL_END]) == 0 {
                return Ok(Progress::OutputFull);
            }
            self.phase = Phase::Finished;
        }
        Ok(Progress::StreamEnd)
    }

    fn sticky<T>(&mut self, r: Result<T, LzmaError>) -> Result<T, LzmaError> {
        if let Err(e) = &r {
            self.error = Some(e.clone());
        }
        r
    }

    fn check_error(&self) -> Result<(), LzmaError> {
        match &self.error {
            Some(e) => Err(e.clone()),
            None => Ok(()),
        }
    }
}

impl Drop for MtLzma2Encoder {
    fn drop(&mut self) {
        // Closing the queue ends the workers after their current piece.
        self.jobs = None;
        for w in self.workers.drain(..) {
            let _ = w.join();
        }
    }
}

/// A worker: compresses pieces until the queue closes.
fn worker(jobs: &Mutex<Receiver<Job>>, opts: &LzmaOptions) {
    let mut enc: Option<Lzma2Encoder> = None;
    loop {
        let job = match jobs.lock() {
            Ok(rx) => rx.recv(),
            Err(_) => return,
        };
        let Ok(Job { input, out, reply }) = job else {
            return;
        };
        let result = compress(&mut enc, opts, &input, out);
        // The encoder may have been dropped; nobody is waiting then.
        let _ = reply.send(Done { input, out: result });
    }
}

/// One piece as an LZMA2 stream without its end marker.
fn compress(
    enc: &mut Option<Lzma2Encoder>,
    opts: &LzmaOptions,
    input: &[u8],
    mut out: Vec<u8>,
) -> Result<Vec<u8>, LzmaError> {
    let enc = match enc {
        Some(e) => {
            e.reset();
            e
        }
        None => enc.insert(Lzma2Encoder::new(opts)?),
    };
    out.clear();
    encode_to_end(enc, input, &mut out, &mut [0u8; 16 << 10])?;
    // Joined pieces end only once, after the last.
    if out.pop() != Some(CONTROL_END) {
        return Err(LzmaError::Usage("LZMA2 stream without its end marker"));
    }
    Ok(out)
}

impl Encode for MtLzma2Encoder {
    type Error = LzmaError;

    fn encode(
        &mut self,
        input: &mut InBuf<'_>,
        output: &mut OutBuf<'_>,
    ) -> Result<Progress, LzmaError> {
        self.check_error()?;
        let r = self.encode_inner(input, output);
        self.sticky(r)
    }

    /// Ends the current piece and writes everything compressed so far
    /// (waiting for the workers). The next input starts a new piece.
    fn flush(&mut self, output: &mut OutBuf<'_>) -> Result<Progress, LzmaError> {
        self.check_error()?;
        let r = self.flush_inner(output);
        match self.sticky(r)? {
            true => Ok(Progress::NeedInput),
            false => Ok(Progress::OutputFull),
        }
    }

    fn finish(&mut self, output: &mut OutBuf<'_>) -> Result<Progress, LzmaError> {
        self.check_error()?;
        let r = self.finish_inner(output);
        self.sticky(r)
    }
}
