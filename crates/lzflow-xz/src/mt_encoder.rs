//! Multi-threaded encoding: input is cut into Blocks as by `XzEncoder`, and
//! each Block is compressed by a worker thread with its own LZMA2 encoder;
//! the Blocks are written in order, so the output is byte-for-byte what
//! `XzEncoder` writes.

use lzflow_core::parallel::{resolve_threads, ParallelEncoder, PieceEncoder};
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

/// One Block at a time: the [`PieceEncoder`] behind [`MtXzEncoder`].
pub(crate) struct BlockPiece(BlockEncoder);

impl PieceEncoder for BlockPiece {
    type Config = XzEncoderOptions;
    type Meta = IndexRecord;
    type Error = XzError;

    fn new(opts: &XzEncoderOptions) -> Result<Self, XzError> {
        let cap = opts.effective_block_size().min(1 << 20) as usize;
        Ok(BlockPiece(BlockEncoder::new(
            &opts.lzma,
            &opts.filters,
            opts.check,
            cap,
        )?))
    }

    fn compress(&mut self, input: &[u8]) -> Result<(Lease<u8>, IndexRecord), XzError> {
        let enc = &mut self.0;
        enc.encode(&mut InBuf::new(input))?;
        let record = enc.finish()?;
        let mut block = Pool::<u8>::global().lease(enc.finished().len());
        block.extend_from_slice(enc.finished());
        enc.next_block()?;
        Ok((block, record))
    }

    fn worker_died() -> XzError {
        XzError::InvalidOptions {
            reason: "an encoder worker thread died",
        }
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
/// Blocks are compressed by [`ParallelEncoder`] (lzflow-core): up to two
/// Blocks per thread are in flight, each holding its input and its
/// compressed output; every compressing thread has its own LZMA2 encoder
/// (see [`memory_usage`](Self::memory_usage)). This type adds the Stream
/// Header, the Index and the Stream Footer around them.
///
/// By default `encode`, `flush` and `finish` block when they can do nothing
/// but wait for a worker, and rather than idle the calling thread
/// compresses a queued Block itself. In
/// [non-blocking](Self::set_nonblocking) mode (async faces) calls return
/// [`Progress::OutputFull`] instead of waiting;
/// [`readiness`](Self::readiness) says when to call again.
pub struct MtXzEncoder {
    blocks: ParallelEncoder<BlockPiece>,
    flags: StreamFlags,
    records: Vec<IndexRecord>,
    state: State,
    error: Option<XzError>,
}

impl std::fmt::Debug for MtXzEncoder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MtXzEncoder")
            .field("threads", &self.blocks.threads())
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
        let block_size = opts.base.effective_block_size();
        let flags = StreamFlags::new(opts.base.check);
        let mut blocks = ParallelEncoder::new(opts.base, opts.threads, block_size);
        blocks.push_bytes(&encode_header(flags));
        Ok(MtXzEncoder {
            blocks,
            flags,
            records: Vec::new(),
            state: State::Running,
            error: None,
        })
    }

    /// Bytes the encoder may allocate: per thread an LZMA2 encoder and two
    /// Blocks of input and compressed output.
    pub fn memory_usage(opts: &MtXzEncoderOptions) -> u64 {
        let threads = resolve_threads(opts.threads) as u64;
        let block = opts.base.effective_block_size();
        threads * (crate::XzEncoder::memory_usage(&opts.base) + 4 * block)
    }

    /// Switches to non-blocking mode (before the first Block is
    /// dispatched): where a call would wait for a worker it returns
    /// [`Progress::OutputFull`] having done what it could, and
    /// [`readiness`](Self::readiness) is pending until a worker finishes.
    pub fn set_nonblocking(&mut self, nonblocking: bool) {
        self.blocks.set_nonblocking(nonblocking);
    }

    /// The handle that tells, in non-blocking mode, whether the next call
    /// can make progress, and wakes a task when a worker finishes.
    pub fn readiness(&self) -> &Readiness {
        self.blocks.readiness()
    }

    fn finish_inner(&mut self, output: &mut OutBuf<'_>) -> Result<Progress, XzError> {
        loop {
            match self.state {
                State::Running => {
                    let records = &mut self.records;
                    if !self.blocks.flush(output, &mut |r| records.push(r))? {
                        return Ok(Progress::OutputFull);
                    }
                    let size = index_size(&self.records);
                    if size > BACKWARD_SIZE_MAX {
                        return Err(XzError::SizeOverflow {
                            what: "index (too many blocks for one stream)",
                        });
                    }
                    let mut trailer = Vec::new();
                    encode_index(&self.records, &mut trailer);
                    trailer.extend_from_slice(&encode_footer(self.flags, size));
                    self.blocks.push_bytes(&trailer);
                    self.state = State::Trailer;
                }
                State::Trailer => {
                    if !self.blocks.drain(output, false, &mut |_| {})? {
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
        self.blocks.begin_call();
        let records = &mut self.records;
        let res = self.blocks.encode(input, output, &mut |r| records.push(r));
        self.sticky(res)
    }

    fn flush(&mut self, output: &mut OutBuf<'_>) -> Result<Progress, XzError> {
        if let Some(e) = &self.error {
            return Err(e.clone());
        }
        if self.state != State::Running {
            return Ok(Progress::NeedInput);
        }
        self.blocks.begin_call();
        let records = &mut self.records;
        let res = self.blocks.flush_step(output, &mut |r| records.push(r));
        self.sticky(res)
    }

    fn finish(&mut self, output: &mut OutBuf<'_>) -> Result<Progress, XzError> {
        if let Some(e) = &self.error {
            return Err(e.clone());
        }
        self.blocks.begin_call();
        let res = self.finish_inner(output);
        self.sticky(res)
    }
}
