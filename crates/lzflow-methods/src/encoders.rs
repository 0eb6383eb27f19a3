//! The encoders a container writes with, as `Encode<Error = MethodError>`:
//! Copy, Deflate (zlib-rs through `flate2`, or miniz_oxide with the `safe`
//! feature, split by cfg as in `decoders.rs`), BZip2 (`bzip2`) and raw LZMA
//! with an end marker (lzflow-lzma). A level is 0–9 for every method;
//! Deflate's deflaters are recycled across entries and archives
//! ([`set_idle_compressors`]), and [`encoder_memory`] says what an encoder
//! uses, for writers that run several under a memory budget. Deflate and
//! BZip2 are features; without one, its method is
//! [`MethodError::Disabled`].
//!
//! Every encoder's output depends only on the data and where `flush` is
//! called, not on how the caller cuts its input and output (Deflate feeds
//! its backend fixed input chunks and has it write into a buffer of its
//! own: zlib-rs' output would otherwise depend on both), so writers make
//! the same bytes however their data arrives.

use lzflow_core::{Encode, ErrInto, InBuf, OutBuf, Progress};
#[cfg(feature = "deflate")]
use lzflow_core::{Recycled, Recycler};
use lzflow_lzma::{LzmaEncoder, LzmaOptions};

use crate::{Method, MethodError, Properties};

/// An encoder from [`new_encoder`].
pub type BoxedEncoder = Box<dyn Encode<Error = MethodError> + Send>;

/// The highest level; higher levels are taken as this one.
pub const MAX_LEVEL: u32 = 9;

/// An encoder of `method` at `level` (0–9; above 9 is taken as 9), for an
/// input of unknown size. See [`new_encoder_sized`].
pub fn new_encoder(method: Method, level: u32) -> Result<BoxedEncoder, MethodError> {
    new_encoder_sized(method, level, None)
}

/// An encoder of `method` at `level` (0–9; above 9 is taken as 9) for an
/// input of about `size_hint` bytes (`None`: unknown).
///
/// * Copy: the input as is.
/// * Deflate: raw Deflate (no zlib header), levels as zlib's (0 stores).
/// * BZip2: one stream, level = block size in units of 100 kB (0 is
///   taken as 1).
/// * LZMA: a raw LZMA stream ending with the end marker, with the options
///   of lzflow's preset `level` (xz's presets). A size hint fits the
///   dictionary to the input, which shrinks the encoder's memory for small
///   inputs; the properties to store are [`encoder_properties`]' with the
///   same arguments.
///
/// Other methods have no encoder here ([`MethodError::Unsupported`]).
pub fn new_encoder_sized(
    method: Method,
    level: u32,
    size_hint: Option<u64>,
) -> Result<BoxedEncoder, MethodError> {
    let level = level.min(MAX_LEVEL);
    Ok(match method {
        Method::Copy => Box::new(CopyEncoder { finished: false }),
        #[cfg(feature = "deflate")]
        Method::Deflate => Box::new(DeflateEncoder::new(level)),
        #[cfg(feature = "bzip2")]
        Method::BZip2 => Box::new(Bzip2Encoder::new(level)),
        Method::Lzma => {
            let opts = LzmaOptions::preset(level)?;
            let enc = match size_hint {
                Some(size) => LzmaEncoder::with_size_hint(&opts, true, size)?,
                None => LzmaEncoder::new(&opts, true)?,
            };
            Box::new(ErrInto::new(enc))
        }
        #[cfg(feature = "ppmd")]
        Method::Ppmd => {
            let (order, mem_size) = ppmd_level(level, size_hint);
            Box::new(ErrInto::new(lzflow_ppmd::Ppmd7Encoder::new(
                order, mem_size,
            )?))
        }
        other => return Err(no_encoder(other)),
    })
}

/// A PPMd var. H encoder (7z's PPMd, no end marker) of `order` (2–64) and
/// `mem_size` bytes of model memory (at least 2 KiB): for a caller that
/// chooses them itself rather than by level. Its properties are
/// [`Properties::Ppmd`] with the same values.
#[cfg(feature = "ppmd")]
pub fn new_ppmd_encoder(order: u8, mem_size: u32) -> Result<BoxedEncoder, MethodError> {
    Ok(Box::new(ErrInto::new(lzflow_ppmd::Ppmd7Encoder::new(
        order, mem_size,
    )?)))
}

/// An encoder of zip's PPMd (method 98: PPMd var. I rev. 1) at `level`
/// (7-Zip's order, memory and restoration method for it, the memory fitted
/// to `size_hint`): the 2-byte properties, the stream and its end marker,
/// as 7-Zip writes them.
#[cfg(feature = "ppmd")]
pub fn new_zip_ppmd_encoder(
    level: u32,
    size_hint: Option<u64>,
) -> Result<BoxedEncoder, MethodError> {
    Ok(Box::new(ErrInto::new(lzflow_ppmd::Ppmd8Encoder::new(
        zip_ppmd_props(level, size_hint),
    )?)))
}

/// Bytes the encoder of [`new_zip_ppmd_encoder`] allocates at most.
#[cfg(feature = "ppmd")]
pub fn zip_ppmd_encoder_memory(level: u32, size_hint: Option<u64>) -> u64 {
    lzflow_ppmd::ppmd8_memory_usage(&zip_ppmd_props(level, size_hint))
}

#[cfg(feature = "ppmd")]
fn zip_ppmd_props(level: u32, size_hint: Option<u64>) -> lzflow_ppmd::Ppmd8Props {
    let props = lzflow_ppmd::Ppmd8Props::for_level(level.min(MAX_LEVEL));
    size_hint.map_or(props, |size| props.reduced_for_size(size))
}

/// PPMd's order and model memory for `level`, as 7-Zip chooses them: 2^(19 +
/// level) bytes (192 MiB at 9), orders 3, 4, 4, 5, 5, 6, 8, 16, 24, 32;
/// the memory shrunk to the first power of two of at least 16 times the
/// input when the input is known to be smaller (a model that large is
/// never filled).
pub fn ppmd_level(level: u32, size_hint: Option<u64>) -> (u8, u32) {
    const ORDERS: [u8; 10] = [3, 4, 4, 5, 5, 6, 8, 16, 24, 32];
    let level = level.min(MAX_LEVEL);
    let mem: u32 = if level >= 9 {
        192 << 20
    } else {
        1 << (19 + level)
    };
    let mem = size_hint.map_or(mem, |size| ppmd_fitted_memory(mem, size));
    (ORDERS[level as usize], mem)
}

/// PPMd's model memory `mem` for an input of `size` bytes, as 7-Zip fits
/// it: at most the first power of two from 64 KiB that is 16 times the
/// input (a larger model is never filled).
pub fn ppmd_fitted_memory(mem: u32, size: u64) -> u32 {
    if u64::from(mem / 16) <= size {
        return mem;
    }
    (16..=31)
        .map(|i| 1u32 << i)
        .find(|m| size <= u64::from(m / 16))
        .map_or(mem, |m| mem.min(m))
}

/// The properties a container stores for the stream of
/// [`new_encoder_sized`]`(method, level, size_hint)`: for LZMA, lc/lp/pb
/// and the dictionary size ([`Properties::to_7z`] gives the 5 bytes: the
/// lc/lp/pb byte and the dictionary size, little endian); for Copy,
/// Deflate and BZip2, [`Properties::Plain`].
pub fn encoder_properties(
    method: Method,
    level: u32,
    size_hint: Option<u64>,
) -> Result<Properties, MethodError> {
    match method {
        Method::Lzma => {
            let opts = lzma_options(level, size_hint)?;
            Ok(Properties::Lzma {
                props: opts.props(),
                dict_size: opts.dict_size,
            })
        }
        #[cfg(feature = "ppmd")]
        Method::Ppmd => {
            let (order, mem_size) = ppmd_level(level, size_hint);
            Ok(Properties::Ppmd { order, mem_size })
        }
        Method::Copy => Ok(Properties::Plain(method)),
        #[cfg(feature = "deflate")]
        Method::Deflate => Ok(Properties::Plain(method)),
        #[cfg(feature = "bzip2")]
        Method::BZip2 => Ok(Properties::Plain(method)),
        other => Err(no_encoder(other)),
    }
}

/// Bytes an encoder from [`new_encoder_sized`]`(method, level, size_hint)`
/// allocates at most (an upper bound, for a writer's memory budget); 0 for
/// Copy and for methods without an encoder (in this build).
pub fn encoder_memory(method: Method, level: u32, size_hint: Option<u64>) -> u64 {
    let level = level.min(MAX_LEVEL);
    match method {
        #[cfg(feature = "deflate")]
        Method::Deflate => DEFLATE_ENCODER_STATE,
        #[cfg(feature = "bzip2")]
        Method::BZip2 => BZIP2_ENCODER_BASE + BZIP2_ENCODER_PER_LEVEL * u64::from(level.max(1)),
        Method::Lzma => {
            lzma_options(level, size_hint).map_or(0, |opts| LzmaEncoder::memory_usage(&opts))
        }
        #[cfg(feature = "ppmd")]
        Method::Ppmd => lzflow_ppmd::memory_usage(ppmd_level(level, size_hint).1),
        _ => 0,
    }
}

/// LZMA's options for `level`, fitted to `size_hint` as
/// [`LzmaEncoder::with_size_hint`] fits them.
fn lzma_options(level: u32, size_hint: Option<u64>) -> Result<LzmaOptions, MethodError> {
    let opts = LzmaOptions::preset(level.min(MAX_LEVEL))?;
    Ok(size_hint.map_or(opts, |size| opts.fitted_to(size)))
}

/// Deflate's encoder state: zlib-rs allocates its window (64 KiB), hash
/// chains (64 KiB), hash heads (128 KiB), pending buffer (64 KiB) and
/// symbol buffer (48 KiB) in one block, beside its state (trees); with our
/// input and output buffers (72 KiB) 443 KiB are measured, rounded up.
#[cfg(all(feature = "zlib-rs", not(feature = "safe")))]
const DEFLATE_ENCODER_STATE: u64 = 480 << 10;

/// Deflate's encoder state: miniz_oxide's compressor holds its 64 KiB LZ
/// code buffer inline, a dictionary with hash chains and heads, and
/// Huffman tables; with our input and output buffers (72 KiB) 384 KiB are
/// measured, rounded up.
#[cfg(all(feature = "deflate", any(feature = "safe", not(feature = "zlib-rs"))))]
const DEFLATE_ENCODER_STATE: u64 = 400 << 10;

/// BZip2's encoder apart from its blocks: the sorting's frequency table
/// (256 KiB) and the state with its coding tables, rounded up (bzip2's
/// manual: 400k + 8 × block size).
#[cfg(feature = "bzip2")]
const BZIP2_ENCODER_BASE: u64 = 400 << 10;

/// BZip2's encoder per level: two arrays of 4 bytes per block byte.
#[cfg(feature = "bzip2")]
const BZIP2_ENCODER_PER_LEVEL: u64 = 8 * 100_000;

/// The error for a method without an encoder (in this build).
fn no_encoder(method: Method) -> MethodError {
    MethodError::disabled(method).unwrap_or_else(|| MethodError::Unsupported {
        method: format!("{method} (writing)"),
    })
}

/// The error for `encode` called after `finish`: the caller's mistake.
fn after_finish(method: &'static str) -> MethodError {
    MethodError::Unsupported {
        method: format!("{method}: encode() after finish()"),
    }
}

/// The error for a compressor that fails or stops making progress: a bug
/// (ours or the backend's), never the data's fault.
#[cfg(any(feature = "deflate", feature = "bzip2"))]
fn failed(method: &'static str, reason: impl std::fmt::Display) -> MethodError {
    MethodError::Data {
        method,
        reason: format!("the compressor failed: {reason}"),
    }
}

/// The Copy method: output is the input.
struct CopyEncoder {
    finished: bool,
}

impl Encode for CopyEncoder {
    type Error = MethodError;

    fn encode(
        &mut self,
        input: &mut InBuf<'_>,
        output: &mut OutBuf<'_>,
    ) -> Result<Progress, MethodError> {
        if self.finished {
            return Err(after_finish("Copy"));
        }
        let n = output.push(input.remaining());
        input.advance(n);
        Ok(if input.is_empty() {
            Progress::NeedInput
        } else {
            Progress::OutputFull
        })
    }

    fn flush(&mut self, _output: &mut OutBuf<'_>) -> Result<Progress, MethodError> {
        Ok(Progress::NeedInput)
    }

    fn finish(&mut self, _output: &mut OutBuf<'_>) -> Result<Progress, MethodError> {
        self.finished = true;
        Ok(Progress::StreamEnd)
    }
}

/// How a deflater call ends its input.
#[cfg(feature = "deflate")]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Flush {
    /// More input follows.
    None,
    /// Make everything given so far decodable (an empty stored block).
    Sync,
    /// End the stream.
    Finish,
}

/// What one deflater call did.
#[cfg(feature = "deflate")]
#[derive(Clone, Copy, Debug)]
struct Step {
    /// Input bytes taken.
    used: usize,
    /// Output bytes made.
    made: usize,
    /// The stream is finished and all of it is out.
    ended: bool,
}

/// Raw Deflate by zlib-rs, through `flate2`'s raw compressor (the default
/// backend).
#[cfg(all(feature = "zlib-rs", not(feature = "safe")))]
struct Deflater(flate2::Compress);

#[cfg(all(feature = "zlib-rs", not(feature = "safe")))]
impl Deflater {
    fn new(level: u32) -> Self {
        Deflater(flate2::Compress::new(
            flate2::Compression::new(level),
            false,
        ))
    }

    /// Ready for a new stream at `level`, as a new deflater would be.
    fn reset(&mut self, level: u32) {
        self.0.reset();
        // Right after a reset nothing is pending, so this cannot fail; if
        // it did, a new deflater is the same thing.
        if self.0.set_level(flate2::Compression::new(level)).is_err() {
            *self = Deflater::new(level);
        }
    }

    /// Deflates `input` into `output` (never empty).
    fn deflate(&mut self, input: &[u8], output: &mut [u8], flush: Flush) -> Result<Step, String> {
        use flate2::{FlushCompress, Status};
        let mode = match flush {
            Flush::None => FlushCompress::None,
            Flush::Sync => FlushCompress::Sync,
            Flush::Finish => FlushCompress::Finish,
        };
        let (in0, out0) = (self.0.total_in(), self.0.total_out());
        let status = self
            .0
            .compress(input, output, mode)
            .map_err(|e| e.to_string())?;
        Ok(Step {
            used: (self.0.total_in() - in0) as usize,
            made: (self.0.total_out() - out0) as usize,
            // `BufError` is "no progress possible", judged by the caller.
            ended: status == Status::StreamEnd,
        })
    }
}

/// Raw Deflate by miniz_oxide, which has no `unsafe` code: the backend
/// with the `safe` feature, or without `zlib-rs`.
#[cfg(all(feature = "deflate", any(feature = "safe", not(feature = "zlib-rs"))))]
struct Deflater(Box<miniz_oxide::deflate::core::CompressorOxide>);

#[cfg(all(feature = "deflate", any(feature = "safe", not(feature = "zlib-rs"))))]
impl Deflater {
    fn new(level: u32) -> Self {
        let mut c = Box::<miniz_oxide::deflate::core::CompressorOxide>::default();
        c.set_format_and_level(miniz_oxide::DataFormat::Raw, level as u8);
        Deflater(c)
    }

    /// Ready for a new stream at `level`, as a new deflater would be.
    fn reset(&mut self, level: u32) {
        self.0.reset();
        self.0
            .set_format_and_level(miniz_oxide::DataFormat::Raw, level as u8);
    }

    /// Deflates `input` into `output` (never empty).
    fn deflate(&mut self, input: &[u8], output: &mut [u8], flush: Flush) -> Result<Step, String> {
        use miniz_oxide::{MZError, MZFlush, MZStatus};
        let mode = match flush {
            Flush::None => MZFlush::None,
            Flush::Sync => MZFlush::Sync,
            Flush::Finish => MZFlush::Finish,
        };
        let r = miniz_oxide::deflate::stream::deflate(&mut self.0, input, output, mode);
        let ended = match r.status {
            Ok(MZStatus::StreamEnd) => true,
            // `Buf` is "no progress possible", judged by the caller.
            Ok(_) | Err(MZError::Buf) => false,
            Err(e) => return Err(format!("error {e:?}")),
        };
        Ok(Step {
            used: r.bytes_consumed,
            made: r.bytes_written,
            ended,
        })
    }
}

/// Compressed bytes a deflater writes at a time: it always gets this much
/// room, so its output does not depend on the caller's output slices, and
/// a flush knows it is complete when room is left.
#[cfg(feature = "deflate")]
const DEFLATE_OUT_CHUNK: usize = 8 << 10;

/// Input bytes a deflater is given at a time: input is gathered into
/// chunks of this size (cut short only by a flush or the finish), so its
/// output does not depend on how the caller cuts the input either (zlib-rs'
/// levels 0, 1, 5 and 6 would otherwise differ).
#[cfg(feature = "deflate")]
const DEFLATE_IN_CHUNK: usize = 64 << 10;

/// A deflater with the buffers it works from, recycled together.
#[cfg(feature = "deflate")]
struct DeflateState {
    deflater: Deflater,
    /// Input of the current chunk.
    held: Vec<u8>,
    /// Output made and not handed out.
    made: Vec<u8>,
}

#[cfg(feature = "deflate")]
impl DeflateState {
    fn new(level: u32) -> Self {
        DeflateState {
            deflater: Deflater::new(level),
            held: Vec::with_capacity(DEFLATE_IN_CHUNK),
            made: vec![0; DEFLATE_OUT_CHUNK],
        }
    }

    /// Ready for a new stream at `level`.
    fn reset(&mut self, level: u32) {
        self.deflater.reset(level);
        self.held.clear();
    }
}

/// Idle deflaters kept for reuse: a deflater with its buffers costs about
/// 450 KiB to allocate (zlib-rs; 390 KiB on miniz_oxide), and a zip archive
/// of small Deflate entries makes one per entry. Boxed, so that an encoder
/// holding one stays a few words.
#[cfg(feature = "deflate")]
static DEFLATERS: Recycler<Box<DeflateState>> = Recycler::new(DEFAULT_IDLE_COMPRESSORS);

/// Idle compressor states kept for reuse by default (per method that keeps
/// any: Deflate).
pub const DEFAULT_IDLE_COMPRESSORS: usize = 8;

/// Sets how many idle compressor states (Deflate's deflaters) are kept for
/// the next entry or archive; 0 keeps none. The default is
/// [`DEFAULT_IDLE_COMPRESSORS`].
pub fn set_idle_compressors(max: usize) {
    #[cfg(feature = "deflate")]
    DEFLATERS.set_max(max);
    // Without Deflate no compressor state is kept.
    #[cfg(not(feature = "deflate"))]
    let _ = max;
}

/// Where a Deflate encoder stands.
#[cfg(feature = "deflate")]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Phase {
    Running,
    /// The finish has begun: no more input.
    Finishing,
    Finished,
}

/// Raw Deflate.
///
/// The deflater is called in the same way whatever the caller's slices: a
/// full input chunk always without a flush, a flush or the finish only on
/// the rest, and a flush under way completed before anything else. So
/// the output depends only on the data and where the flushes are.
#[cfg(feature = "deflate")]
struct DeflateEncoder {
    state: Recycled<Box<DeflateState>>,
    /// `state.held[..taken]` is the deflater's.
    taken: usize,
    /// `state.made[start..end]` waits for room.
    start: usize,
    end: usize,
    /// A sync flush has begun and is not complete.
    syncing: bool,
    /// A sync flush was completed and no input came since: another would
    /// only add an empty block.
    synced: bool,
    phase: Phase,
}

#[cfg(feature = "deflate")]
impl DeflateEncoder {
    fn new(level: u32) -> Self {
        DeflateEncoder {
            state: DEFLATERS.take(|| Box::new(DeflateState::new(level)), |s| s.reset(level)),
            taken: 0,
            start: 0,
            end: 0,
            syncing: false,
            synced: false,
            phase: Phase::Running,
        }
    }

    /// Hands out made bytes; true when none are left.
    fn drain(&mut self, output: &mut OutBuf<'_>) -> bool {
        self.start += output.push(&self.state.made[self.start..self.end]);
        self.start == self.end
    }

    /// One deflater call on the rest of the held input, into the (drained)
    /// output buffer; the chunk is done when all of it is taken.
    fn run(&mut self, flush: Flush) -> Result<Step, MethodError> {
        debug_assert_eq!(self.start, self.end);
        let DeflateState {
            deflater,
            held,
            made,
        } = &mut **self.state;
        let step = deflater
            .deflate(&held[self.taken..], made, flush)
            .map_err(|e| failed("Deflate", e))?;
        self.taken += step.used;
        if self.taken == held.len() {
            held.clear();
            self.taken = 0;
        }
        self.start = 0;
        self.end = step.made;
        Ok(step)
    }

    /// The error for a call that did nothing where it had to.
    fn check_progress(step: Step) -> Result<(), MethodError> {
        if step.used == 0 && step.made == 0 && !step.ended {
            return Err(failed("Deflate", "it is stuck"));
        }
        Ok(())
    }

    /// Hands out made bytes and does what must come before anything else:
    /// a full input chunk, and a sync flush under way. False when the
    /// output is full first.
    fn settle(&mut self, output: &mut OutBuf<'_>) -> Result<bool, MethodError> {
        loop {
            if !self.drain(output) {
                return Ok(false);
            }
            if self.state.held.len() == DEFLATE_IN_CHUNK {
                Self::check_progress(self.run(Flush::None)?)?;
            } else if self.syncing {
                // All input taken and room left: everything is out.
                let step = self.run(Flush::Sync)?;
                if self.state.held.is_empty() && step.made < DEFLATE_OUT_CHUNK {
                    self.syncing = false;
                    self.synced = true;
                } else {
                    Self::check_progress(step)?;
                }
            } else {
                return Ok(true);
            }
        }
    }
}

#[cfg(feature = "deflate")]
impl Encode for DeflateEncoder {
    type Error = MethodError;

    fn encode(
        &mut self,
        input: &mut InBuf<'_>,
        output: &mut OutBuf<'_>,
    ) -> Result<Progress, MethodError> {
        if self.phase != Phase::Running {
            return Err(after_finish("Deflate"));
        }
        loop {
            if !self.settle(output)? {
                return Ok(Progress::OutputFull);
            }
            if input.is_empty() {
                return Ok(Progress::NeedInput);
            }
            let room = DEFLATE_IN_CHUNK - self.state.held.len();
            self.state.held.extend_from_slice(input.take(room));
            self.synced = false;
        }
    }

    fn flush(&mut self, output: &mut OutBuf<'_>) -> Result<Progress, MethodError> {
        match self.phase {
            Phase::Running => {}
            Phase::Finishing => return Err(after_finish("Deflate")),
            Phase::Finished => return Ok(Progress::NeedInput),
        }
        loop {
            if !self.settle(output)? {
                return Ok(Progress::OutputFull);
            }
            if self.synced {
                return Ok(Progress::NeedInput);
            }
            self.syncing = true;
        }
    }

    fn finish(&mut self, output: &mut OutBuf<'_>) -> Result<Progress, MethodError> {
        loop {
            if !self.settle(output)? {
                return Ok(Progress::OutputFull);
            }
            if self.phase == Phase::Finished {
                return Ok(Progress::StreamEnd);
            }
            self.phase = Phase::Finishing;
            let step = self.run(Flush::Finish)?;
            Self::check_progress(step)?;
            if step.ended {
                self.phase = Phase::Finished;
            }
        }
    }
}

/// Where a BZip2 encoder stands: libbzip2 must be driven through a flush
/// or the finish with the same action until it is done.
#[cfg(feature = "bzip2")]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Bz {
    Running,
    Flushing,
    Finishing,
    Done,
}

/// BZip2, one stream.
#[cfg(feature = "bzip2")]
struct Bzip2Encoder {
    inner: bzip2::Compress,
    mode: Bz,
}

#[cfg(feature = "bzip2")]
impl Bzip2Encoder {
    fn new(level: u32) -> Self {
        Bzip2Encoder {
            inner: bzip2::Compress::new(bzip2::Compression::new(level.clamp(1, 9)), 0),
            mode: Bz::Running,
        }
    }

    /// One call of libbzip2 with `action`, into `output`'s room (never
    /// none: without progress libbzip2 reports a misuse, or `bzip2`
    /// panics): bytes taken and the status.
    fn step(
        &mut self,
        input: &[u8],
        output: &mut OutBuf<'_>,
        action: bzip2::Action,
    ) -> Result<(usize, bzip2::Status), MethodError> {
        debug_assert!(!output.is_full());
        let (in0, out0) = (self.inner.total_in(), self.inner.total_out());
        let status = self
            .inner
            .compress(input, output.spare_mut(), action)
            .map_err(|e| failed("BZip2", e))?;
        output.advance((self.inner.total_out() - out0) as usize);
        Ok(((self.inner.total_in() - in0) as usize, status))
    }

    /// Drives a flush on: true once it is complete.
    fn flushed(&mut self, output: &mut OutBuf<'_>) -> Result<bool, MethodError> {
        while self.mode == Bz::Flushing {
            if output.is_full() {
                return Ok(false);
            }
            if self.step(&[], output, bzip2::Action::Flush)?.1 == bzip2::Status::RunOk {
                self.mode = Bz::Running;
            }
        }
        Ok(true)
    }
}

#[cfg(feature = "bzip2")]
impl Encode for Bzip2Encoder {
    type Error = MethodError;

    fn encode(
        &mut self,
        input: &mut InBuf<'_>,
        output: &mut OutBuf<'_>,
    ) -> Result<Progress, MethodError> {
        if matches!(self.mode, Bz::Finishing | Bz::Done) {
            return Err(after_finish("BZip2"));
        }
        // A flush the caller left unfinished goes on first.
        if !self.flushed(output)? {
            return Ok(Progress::OutputFull);
        }
        loop {
            if input.is_empty() {
                return Ok(Progress::NeedInput);
            }
            if output.is_full() {
                return Ok(Progress::OutputFull);
            }
            let before = output.pos();
            let (used, _) = self.step(input.remaining(), output, bzip2::Action::Run)?;
            input.advance(used);
            if used == 0 && output.pos() == before {
                return Err(failed("BZip2", "it is stuck"));
            }
        }
    }

    /// Ends the current block. BZip2's blocks are not byte-aligned: up to
    /// 7 bits of the last one stay in the encoder until more data or the
    /// finish.
    fn flush(&mut self, output: &mut OutBuf<'_>) -> Result<Progress, MethodError> {
        match self.mode {
            Bz::Done => return Ok(Progress::NeedInput),
            Bz::Finishing => return Err(after_finish("BZip2")),
            Bz::Running => self.mode = Bz::Flushing,
            Bz::Flushing => {}
        }
        Ok(if self.flushed(output)? {
            Progress::NeedInput
        } else {
            Progress::OutputFull
        })
    }

    fn finish(&mut self, output: &mut OutBuf<'_>) -> Result<Progress, MethodError> {
        if !self.flushed(output)? {
            return Ok(Progress::OutputFull);
        }
        loop {
            match self.mode {
                Bz::Done => return Ok(Progress::StreamEnd),
                Bz::Running => self.mode = Bz::Finishing,
                _ if output.is_full() => return Ok(Progress::OutputFull),
                _ => {
                    if self.step(&[], output, bzip2::Action::Finish)?.1 == bzip2::Status::StreamEnd
                    {
                        self.mode = Bz::Done;
                    }
                }
            }
        }
    }
}

#[cfg(all(test, feature = "deflate"))]
mod tests {
    use super::*;

    #[test]
    fn deflate_state_estimate_covers_the_inline_parts() {
        let buffers = (DEFLATE_IN_CHUNK + DEFLATE_OUT_CHUNK) as u64;
        let inline = std::mem::size_of::<DeflateState>() as u64;
        assert!(inline + buffers < DEFLATE_ENCODER_STATE);
        #[cfg(any(feature = "safe", not(feature = "zlib-rs")))]
        {
            let c = std::mem::size_of::<miniz_oxide::deflate::core::CompressorOxide>() as u64;
            assert!(c + buffers < DEFLATE_ENCODER_STATE, "{c}");
        }
    }

    #[test]
    #[cfg(feature = "bzip2")]
    fn levels_above_nine_are_nine() {
        assert_eq!(
            encoder_memory(Method::BZip2, 30, None),
            encoder_memory(Method::BZip2, 9, None)
        );
        assert_eq!(
            encoder_properties(Method::Lzma, 12, None).unwrap(),
            encoder_properties(Method::Lzma, 9, None).unwrap()
        );
        assert!(new_encoder(Method::Deflate, 100).is_ok());
    }
}
