//! Multi-threaded lzip encoding, as plzip does it: the input is cut into
//! members of [`LzipOptions::parallel_member_size`] bytes, each compressed
//! by its own thread; the members are written in order, so the output is
//! byte for byte what [`LzipEncoder`] writes with that member size.

use lzflow_core::parallel::{resolve_threads, ParallelEncoder, PieceEncoder};
use lzflow_core::{encode_to_end, Encode, InBuf, Lease, OutBuf, Pool, Progress, Readiness};
use lzflow_lzma::LzmaError;

use crate::{LzipEncoder, LzipError, LzipOptions};

/// One whole member at a time: the [`PieceEncoder`] behind
/// [`MtLzipEncoder`].
pub(crate) struct MemberPiece {
    encoder: LzipEncoder,
    scratch: Vec<u8>,
}

impl PieceEncoder for MemberPiece {
    type Config = LzipOptions;
    type Meta = ();
    type Error = LzipError;

    fn new(options: &LzipOptions) -> Result<Self, LzipError> {
        let one_member = options.with_member_size(u64::MAX);
        Ok(MemberPiece {
            encoder: LzipEncoder::new(&one_member)?,
            scratch: vec![0; 64 << 10],
        })
    }

    fn compress(&mut self, input: &[u8]) -> Result<(Lease<u8>, ()), LzipError> {
        let mut member = Vec::with_capacity(input.len() / 4 + 64);
        encode_to_end(&mut self.encoder, input, &mut member, &mut self.scratch)?;
        self.encoder.reset();
        let mut out = Pool::<u8>::global().lease(member.len());
        out.extend_from_slice(&member);
        Ok((out, ()))
    }

    fn worker_died() -> LzipError {
        LzipError::Lzma(LzmaError::Usage("an lzip encoder worker thread died"))
    }
}

/// Where the encoder stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    Running,
    /// Writing the empty member an empty input becomes.
    Empty,
    Done,
}

/// Multi-threaded `.lz` encoder: members compressed on `threads` threads,
/// the same bytes as [`LzipEncoder`] with
/// `member_size = options.parallel_member_size()` whatever the thread
/// count; the same blocking and non-blocking modes as the multi-threaded
/// XZ encoder.
pub struct MtLzipEncoder {
    members: ParallelEncoder<MemberPiece>,
    written: u64,
    state: State,
    error: Option<LzipError>,
}

impl std::fmt::Debug for MtLzipEncoder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MtLzipEncoder")
            .field("threads", &self.members.threads())
            .field("members", &self.written)
            .field("state", &self.state)
            .finish_non_exhaustive()
    }
}

impl MtLzipEncoder {
    /// An encoder of `options` on `threads` threads (0: one per CPU).
    pub fn new(options: &LzipOptions, threads: usize) -> Result<Self, LzipError> {
        // Fail here, not in a worker, on options the encoder refuses.
        options.validate()?;
        let size = options.parallel_member_size();
        Ok(MtLzipEncoder {
            members: ParallelEncoder::new(*options, threads, size),
            written: 0,
            state: State::Running,
            error: None,
        })
    }

    /// Bytes the encoder may allocate: per thread an LZMA encoder and two
    /// members of input and output.
    pub fn memory_usage(options: &LzipOptions, threads: usize) -> u64 {
        resolve_threads(threads) as u64
            * (LzipEncoder::memory_usage(options) + 4 * options.parallel_member_size())
    }

    /// Members handed out so far.
    pub fn members(&self) -> u64 {
        self.written
    }

    /// Non-blocking mode (async faces): see
    /// [`ParallelEncoder::set_nonblocking`].
    pub fn set_nonblocking(&mut self, nonblocking: bool) {
        self.members.set_nonblocking(nonblocking);
    }

    /// When, in non-blocking mode, the next call can make progress.
    pub fn readiness(&self) -> &Readiness {
        self.members.readiness()
    }

    fn finish_inner(&mut self, output: &mut OutBuf<'_>) -> Result<Progress, LzipError> {
        loop {
            match self.state {
                State::Running => {
                    let written = &mut self.written;
                    if !self.members.flush(output, &mut |()| *written += 1)? {
                        return Ok(Progress::OutputFull);
                    }
                    if self.written == 0 {
                        // An empty input is one empty member, as for the
                        // single-threaded encoder.
                        let mut piece = MemberPiece::new(self.members.config())?;
                        let (empty, ()) = piece.compress(&[])?;
                        self.members.push_bytes(&empty);
                        self.written = 1;
                        self.state = State::Empty;
                    } else {
                        self.state = State::Done;
                    }
                }
                State::Empty => {
                    if !self.members.drain(output, false, &mut |()| {})? {
                        return Ok(Progress::OutputFull);
                    }
                    self.state = State::Done;
                }
                State::Done => return Ok(Progress::StreamEnd),
            }
        }
    }

    fn sticky<T>(&mut self, res: Result<T, LzipError>) -> Result<T, LzipError> {
        if let Err(e) = &res {
            self.error = Some(e.clone());
        }
        res
    }
}

impl Encode for MtLzipEncoder {
    type Error = LzipError;

    fn encode(
        &mut self,
        input: &mut InBuf<'_>,
        output: &mut OutBuf<'_>,
    ) -> Result<Progress, LzipError> {
        if let Some(e) = &self.error {
            return Err(e.clone());
        }
        if self.state != State::Running {
            return Err(LzmaError::Usage("encode after finish").into());
        }
        self.members.begin_call();
        let written = &mut self.written;
        let res = self.members.encode(input, output, &mut |()| *written += 1);
        self.sticky(res)
    }

    fn flush(&mut self, output: &mut OutBuf<'_>) -> Result<Progress, LzipError> {
        if let Some(e) = &self.error {
            return Err(e.clone());
        }
        if self.state != State::Running {
            return Ok(Progress::NeedInput);
        }
        self.members.begin_call();
        let written = &mut self.written;
        let res = self.members.flush_step(output, &mut |()| *written += 1);
        self.sticky(res)
    }

    fn finish(&mut self, output: &mut OutBuf<'_>) -> Result<Progress, LzipError> {
        if let Some(e) = &self.error {
            return Err(e.clone());
        }
        self.members.begin_call();
        let res = self.finish_inner(output);
        self.sticky(res)
    }
}
