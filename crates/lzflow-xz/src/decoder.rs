//! The front decoders, on top of the single-threaded stream decoder and
//! the worker pool: [`XzDecoder`], a whole `.xz` file, that is one or more
//! streams with Stream Padding (spec section 2.2) between and after them;
//! and [`MtXzDecoder`], the same with Blocks of known size decoded on
//! worker threads.

use lzflow_core::{Decode, InBuf, OutBuf, Progress, Readiness};
use lzflow_lzma::DecoderOptions;

use crate::block_decoder::Coder;
use crate::mt_decoder::MtPool;
use crate::stream_decoder::{BlockDispatch, StreamDecoder};
use crate::{Check, XzError};

/// Options for [`XzDecoder`].
#[derive(Debug, Clone)]
pub struct XzDecoderOptions {
    /// Limits, batch size and buffer pools for the LZMA2 decoder. The
    /// memory limit is checked against each Block's dictionary before it is
    /// allocated; the output limit caps the total decoded size.
    pub lzma: DecoderOptions,
    /// Decode concatenated streams (with Stream Padding) until the input
    /// ends, as `xz -d` does. When false, decoding stops after the first
    /// stream's footer and leaves whatever follows unconsumed.
    pub multi_stream: bool,
    /// Verify each Block's CRC32 / CRC64 / SHA-256. Turning this off skips
    /// computing them (faster, but corruption may go unnoticed).
    pub verify_check: bool,
}

impl Default for XzDecoderOptions {
    fn default() -> Self {
        XzDecoderOptions {
            lzma: DecoderOptions::default(),
            multi_stream: true,
            verify_check: true,
        }
    }
}

impl XzDecoderOptions {
    /// Sets the LZMA2 decoder options (limits, batch size, pools).
    pub fn with_lzma(mut self, lzma: DecoderOptions) -> Self {
        self.lzma = lzma;
        self
    }

    /// Sets whether concatenated streams are decoded.
    pub fn with_multi_stream(mut self, multi_stream: bool) -> Self {
        self.multi_stream = multi_stream;
        self
    }

    /// Sets whether integrity checks are verified.
    pub fn with_verify_check(mut self, verify_check: bool) -> Self {
        self.verify_check = verify_check;
        self
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    Stream,
    /// Zero bytes after a stream; `len` so far.
    Padding {
        len: u64,
    },
    Done,
}

/// Sans-I/O `.xz` decoder.
///
/// LZMA2 writes straight into the caller's output buffer; the integrity
/// check is computed over what was written. Every cross-check the format
/// defines is made: header and footer flags and CRCs, Block Header sizes
/// against the data, Block Padding, the check, every Index Record against
/// its Block, the Backward Size, and Stream Padding.
///
/// Streams whose check ID is reserved (not None, CRC32, CRC64 or SHA-256)
/// are decoded without verifying the check, as `xz` does (it warns);
/// [`unverified_check_id`](Self::unverified_check_id) tells when that
/// happened.
pub struct XzDecoder {
    opts: XzDecoderOptions,
    coder: Option<Coder>,
    stream: StreamDecoder,
    state: State,
    /// Input consumed so far.
    total_in: u64,
    /// Output the limit still allows.
    out_left: u64,
    streams: u64,
    unverified: Option<u8>,
    last_check: Option<Check>,
    /// A fatal error; returned again by every later call.
    error: Option<XzError>,
    /// Worker threads, for [`MtXzDecoder`].
    mt: Option<MtPool>,
}

impl Default for XzDecoder {
    fn default() -> Self {
        Self::new(XzDecoderOptions::default())
    }
}

impl std::fmt::Debug for XzDecoder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("XzDecoder")
            .field("state", &self.state)
            .field("total_in", &self.total_in)
            .field("streams", &self.streams)
            .field("error", &self.error)
            .finish_non_exhaustive()
    }
}

impl XzDecoder {
    /// A decoder with these options. Nothing is allocated until the first
    /// Block Header names its dictionary size.
    pub fn new(opts: XzDecoderOptions) -> Self {
        XzDecoder {
            out_left: opts.lzma.limits.output,
            stream: StreamDecoder::new(true, 0, opts.verify_check),
            opts,
            coder: None,
            state: State::Stream,
            total_in: 0,
            streams: 0,
            unverified: None,
            last_check: None,
            error: None,
            mt: None,
        }
    }

    /// A decoder that hands Blocks with known sizes to `mt`'s workers.
    fn with_mt(opts: XzDecoderOptions, mt: MtPool) -> Self {
        XzDecoder {
            mt: Some(mt),
            ..Self::new(opts)
        }
    }

    /// The worker pool of an [`MtXzDecoder`].
    fn mt_mut(&mut self) -> Option<&mut MtPool> {
        self.mt.as_mut()
    }

    /// Bytes of input consumed so far.
    pub fn total_in(&self) -> u64 {
        self.total_in
    }

    /// Bytes of output produced so far.
    pub fn total_out(&self) -> u64 {
        self.opts.lzma.limits.output - self.out_left
    }

    /// Number of streams completely decoded so far.
    pub fn streams(&self) -> u64 {
        self.streams
    }

    /// The check of the stream being decoded (or of the last one), when it
    /// is one lzflow knows.
    pub fn check(&self) -> Option<Check> {
        self.stream
            .check_id()
            .and_then(|id| Check::from_id(id).ok())
            .or(self.last_check)
    }

    /// The reserved check ID of a stream whose check could not be verified,
    /// if there was one.
    pub fn unverified_check_id(&self) -> Option<u8> {
        self.unverified
    }

    /// Runs the stream decoder; with worker threads, also hands out their
    /// output in order and holds back the parser's errors and the stream's
    /// end until every earlier Block is out.
    fn run_stream(
        &mut self,
        input: &mut InBuf<'_>,
        output: &mut OutBuf<'_>,
    ) -> Result<Progress, XzError> {
        let limit = self.opts.lzma.limits.output;
        loop {
            if let Some(mt) = &mut self.mt {
                mt.deliver(output, &mut self.out_left, limit, false)?;
                if mt.has_pending() && output.is_full() {
                    return Ok(Progress::OutputFull);
                }
                if mt.deferred.is_some() {
                    if !mt.has_pending() {
                        return Err(mt.deferred.take().expect("checked"));
                    }
                    if mt.deliver(output, &mut self.out_left, limit, true)? {
                        // Non-blocking and the worker is not done.
                        return Ok(Progress::OutputFull);
                    }
                    continue;
                }
            }
            let res = self.stream.decode(
                &mut self.coder,
                &self.opts.lzma,
                input,
                output,
                &mut self.out_left,
                self.mt.as_mut(),
            );
            if let Some(id) = self.stream.check_id() {
                if Check::from_id(id).is_err() {
                    self.unverified = Some(id);
                }
            }
            let Some(mt) = self.mt.as_mut().filter(|m| m.has_pending()) else {
                return res;
            };
            match res {
                Err(e) => mt.deferred = Some(e),
                Ok(Progress::NeedInput) if !input.is_last() => return Ok(Progress::NeedInput),
                Ok(_) if output.is_full() => return Ok(Progress::OutputFull),
                // Stalled on a worker, or at the stream's end with Blocks
                // still out: wait for the next one.
                Ok(_) => {
                    if mt.deliver(output, &mut self.out_left, limit, true)? {
                        // Non-blocking and the worker is not done.
                        return Ok(Progress::OutputFull);
                    }
                }
            }
        }
    }

    /// `in_start` is where `input` stood at the start of the call, when
    /// `total_in` bytes had been consumed.
    fn run(
        &mut self,
        input: &mut InBuf<'_>,
        output: &mut OutBuf<'_>,
        in_start: usize,
    ) -> Result<Progress, XzError> {
        loop {
            match &mut self.state {
                State::Stream => {
                    let progress = self.run_stream(input, output)?;
                    if progress != Progress::StreamEnd {
                        return Ok(progress);
                    }
                    self.streams += 1;
                    self.last_check = self.check();
                    if !self.opts.multi_stream {
                        self.state = State::Done;
                        return Ok(Progress::StreamEnd);
                    }
                    self.state = State::Padding { len: 0 };
                }
                State::Padding { len } => {
                    let rem = input.remaining();
                    let zeros = rem.iter().take_while(|&&b| b == 0).count();
                    input.advance(zeros);
                    *len += zeros as u64;
                    if zeros < rem.len() {
                        // Something else: it must be the next stream.
                        if *len % 4 != 0 {
                            return Err(XzError::StreamPadding { len: *len });
                        }
                        let offset = self.total_in + (input.pos() - in_start) as u64;
                        self.stream.reset(false, offset);
                        self.state = State::Stream;
                    } else if input.is_last() {
                        if *len % 4 != 0 {
                            return Err(XzError::StreamPadding { len: *len });
                        }
                        self.state = State::Done;
                    } else {
                        return Ok(Progress::NeedInput);
                    }
                }
                State::Done => return Ok(Progress::StreamEnd),
            }
        }
    }
}

impl Decode for XzDecoder {
    type Error = XzError;

    fn decode(
        &mut self,
        input: &mut InBuf<'_>,
        output: &mut OutBuf<'_>,
    ) -> Result<Progress, XzError> {
        if let Some(e) = &self.error {
            return Err(e.clone());
        }
        let in_start = input.pos();
        let out_start = output.pos();
        let res = self.run(input, output, in_start);
        self.total_in += (input.pos() - in_start) as u64;
        match res {
            Ok(p) => Ok(p),
            Err(e) => {
                self.error = Some(e.clone());
                if output.pos() > out_start {
                    // Deliver what was produced first; the error follows on
                    // the next call.
                    Ok(Progress::OutputFull)
                } else {
                    Err(e)
                }
            }
        }
    }
}

/// Options for [`MtXzDecoder`].
#[derive(Debug, Clone)]
pub struct MtXzDecoderOptions {
    /// Limits, pools, stream and check settings, as for [`XzDecoder`].
    /// The memory limit applies to each worker's dictionary.
    pub base: XzDecoderOptions,
    /// Decoding threads (blocking: the caller and `threads - 1` workers;
    /// non-blocking: `threads` workers); 0 means one per available CPU.
    pub threads: usize,
    /// Most bytes of Blocks in flight (their input plus their output). A
    /// Block larger than this is decoded inline, single-threaded.
    pub memory_budget: u64,
}

impl Default for MtXzDecoderOptions {
    fn default() -> Self {
        MtXzDecoderOptions {
            base: XzDecoderOptions::default(),
            threads: 0,
            memory_budget: 256 << 20,
        }
    }
}

/// Multi-threaded `.xz` decoder with the same [`Decode`] contract and
/// output as [`XzDecoder`].
///
/// Blocks whose headers carry both Compressed and Uncompressed Size (what
/// `xz -T` and [`XzEncoder`](crate::XzEncoder) write) are collected whole
/// and decoded in parallel; output is handed out in order. Blocks without
/// sizes, or larger than
/// [`memory_budget`](MtXzDecoderOptions::memory_budget), are decoded on the
/// calling thread.
///
/// Threads: by default `decode` blocks when it can do nothing but wait for
/// a worker, and rather than idle the calling thread decodes a queued Block
/// itself (the one whose output is due next, else the one with the most
/// input), so `threads` decoding threads are the caller plus
/// `threads - 1` workers, which take the queued Block with the most input
/// first. In [non-blocking](Self::set_nonblocking) mode
/// (async faces) there are `threads` workers and `decode` returns instead
/// of waiting; [`readiness`](Self::readiness) says when to call again.
///
/// Memory: at most `memory_budget` bytes of Blocks in flight (each Block's
/// input plus its output, at most `4 × threads` Blocks), plus one
/// dictionary per decoding thread and one for inline decoding, each within
/// the memory limit.
pub struct MtXzDecoder {
    inner: XzDecoder,
    readiness: Readiness,
}

impl std::fmt::Debug for MtXzDecoder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MtXzDecoder")
            .field("inner", &self.inner)
            .finish()
    }
}

impl MtXzDecoder {
    /// A decoder with these options; threads start with the first Block
    /// that can use them.
    pub fn new(opts: MtXzDecoderOptions) -> Self {
        let threads = match opts.threads {
            0 => std::thread::available_parallelism().map_or(1, |n| n.get()),
            n => n,
        };
        let readiness = Readiness::new();
        let pool = MtPool::new(
            threads,
            opts.memory_budget,
            &opts.base.lzma,
            readiness.clone(),
        );
        MtXzDecoder {
            inner: XzDecoder::with_mt(opts.base, pool),
            readiness,
        }
    }

    /// Switches to non-blocking mode (before the first call): where
    /// `decode` would wait for a worker it returns
    /// [`Progress::OutputFull`], having made what progress it could, and
    /// [`readiness`](Self::readiness) is pending until a worker finishes.
    /// Async faces use this so that the executor thread never blocks.
    pub fn set_nonblocking(&mut self, nonblocking: bool) {
        if let Some(mt) = self.inner.mt_mut() {
            mt.set_nonblocking(nonblocking);
        }
    }

    /// The handle that tells, in non-blocking mode, whether the next call
    /// can make progress, and wakes a task when a worker finishes.
    pub fn readiness(&self) -> &Readiness {
        &self.readiness
    }

    /// The single-threaded decoder state underneath (totals, checks).
    pub fn get_ref(&self) -> &XzDecoder {
        &self.inner
    }
}

impl Default for MtXzDecoder {
    fn default() -> Self {
        Self::new(MtXzDecoderOptions::default())
    }
}

impl Decode for MtXzDecoder {
    type Error = XzError;

    fn decode(
        &mut self,
        input: &mut InBuf<'_>,
        output: &mut OutBuf<'_>,
    ) -> Result<Progress, XzError> {
        // A new call: it stalls again (and says so) only if it must.
        self.readiness.clear();
        self.inner.decode(input, output)
    }
}
