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

use lzflow_core::parallel::{ParallelEncoder, PieceEncoder};
use lzflow_core::{encode_to_end, Encode, InBuf, Lease, OutBuf, Pool, Progress, Sticky};

use crate::{Lzma2Encoder, LzmaError, LzmaOptions};

/// The LZMA2 end-of-stream control byte.
const CONTROL_END: u8 = 0x00;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    Running,
    /// `finish` is writing the pieces in flight; the end marker is still
    /// to come.
    Finishing,
    Finished,
}

/// One piece as an LZMA2 stream without its end marker: the
/// [`PieceEncoder`] behind [`MtLzma2Encoder`], one per thread, reused.
struct LzmaPiece(Lzma2Encoder);

impl PieceEncoder for LzmaPiece {
    type Config = LzmaOptions;
    type Meta = ();
    type Error = LzmaError;

    fn new(opts: &LzmaOptions) -> Result<Self, LzmaError> {
        Ok(LzmaPiece(Lzma2Encoder::new(opts)?))
    }

    fn compress(&mut self, input: &[u8]) -> Result<(Lease<u8>, ()), LzmaError> {
        let enc = &mut self.0;
        enc.reset();
        let mut out = Pool::<u8>::global().lease(input.len() / 2 + 1024);
        encode_to_end(enc, input, &mut out, &mut [0u8; 16 << 10])?;
        // Joined pieces end only once, after the last.
        if out.pop() != Some(CONTROL_END) {
            return Err(LzmaError::Usage("LZMA2 stream without its end marker"));
        }
        Ok((out, ()))
    }

    fn worker_died() -> LzmaError {
        LzmaError::Usage("an encoder thread panicked")
    }
}

/// Multi-threaded LZMA2 encoder with the [`Encode`] contract of
/// [`Lzma2Encoder`], on lzflow-core's
/// [`ParallelEncoder`](lzflow_core::parallel::ParallelEncoder).
///
/// `threads` compressing threads (the caller and `threads - 1` workers)
/// each own an [`Lzma2Encoder`], so memory is about `threads` ×
/// [`Lzma2Encoder::memory_usage`] plus up to two pieces of input and
/// output per thread. When that many pieces are in flight, `encode`
/// compresses one itself or blocks until the oldest is done: this encoder
/// is for blocking callers (threads, `spawn_blocking`), not for polling
/// on an async runtime.
pub struct MtLzma2Encoder {
    pieces: ParallelEncoder<LzmaPiece>,
    opts: LzmaOptions,
    threads: usize,
    piece_size: usize,
    phase: Phase,
    error: Sticky<LzmaError>,
}

impl std::fmt::Debug for MtLzma2Encoder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MtLzma2Encoder")
            .field("piece_size", &self.piece_size)
            .field("threads", &self.threads)
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

    /// An encoder for `opts` on `threads` compressing threads (at least
    /// one), cutting the input into pieces of `piece_size` bytes (at least
    /// 1 MiB is sensible; 0 picks
    /// [`default_piece_size`](Self::default_piece_size)).
    pub fn new(opts: &LzmaOptions, threads: usize, piece_size: usize) -> Result<Self, LzmaError> {
        opts.validate(true)?;
        let threads = threads.max(1);
        let piece_size = match piece_size {
            0 => Self::default_piece_size(opts),
            n => n,
        };
        Ok(MtLzma2Encoder {
            pieces: ParallelEncoder::new(*opts, threads, piece_size as u64),
            opts: *opts,
            threads,
            piece_size,
            phase: Phase::Running,
            error: Sticky::default(),
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
    /// (or an error). Pieces still in flight belong to the old stream and
    /// are dropped with its threads (new ones start with the next piece).
    pub fn reset(&mut self) {
        self.pieces = ParallelEncoder::new(self.opts, self.threads, self.piece_size as u64);
        self.phase = Phase::Running;
        self.error.clear();
    }

    fn finish_inner(&mut self, output: &mut OutBuf<'_>) -> Result<Progress, LzmaError> {
        if self.phase == Phase::Running {
            self.phase = Phase::Finishing;
        }
        if self.phase == Phase::Finishing {
            if !self.pieces.flush(output, &mut |()| {})? {
                return Ok(Progress::OutputFull);
            }
            if output.push(&[CONTROL_END]) == 0 {
                return Ok(Progress::OutputFull);
            }
            self.phase = Phase::Finished;
        }
        Ok(Progress::StreamEnd)
    }
}

impl Encode for MtLzma2Encoder {
    type Error = LzmaError;

    fn encode(
        &mut self,
        input: &mut InBuf<'_>,
        output: &mut OutBuf<'_>,
    ) -> Result<Progress, LzmaError> {
        self.error.check()?;
        if self.phase != Phase::Running {
            return Err(LzmaError::Usage("encode() called after finish()"));
        }
        let r = self.pieces.encode(input, output, &mut |()| {});
        self.error.record(r)
    }

    /// Ends the current piece and writes everything compressed so far
    /// (waiting for the workers). The next input starts a new piece.
    fn flush(&mut self, output: &mut OutBuf<'_>) -> Result<Progress, LzmaError> {
        self.error.check()?;
        let r = self.pieces.flush_step(output, &mut |()| {});
        self.error.record(r)
    }

    fn finish(&mut self, output: &mut OutBuf<'_>) -> Result<Progress, LzmaError> {
        self.error.check()?;
        let r = self.finish_inner(output);
        self.error.record(r)
    }
}
