//! The single-input decoders a container chains, as
//! `Decode<Error = MethodError>`: Copy, LZMA and LZMA2 (lzflow-lzma), the
//! BCJ filters and Delta run as a stream of their own (lzflow-filters),
//! Deflate (zlib-rs through `flate2`, or miniz_oxide with the `safe`
//! feature), Deflate64 (the `deflate64` crate), BZip2 (`bzip2`) and
//! Zstandard (`ruzstd`, in `zstd.rs`). Deflate's inflaters are recycled
//! across entries and archives ([`set_idle_decompressors`]). Each of the
//! last four is a feature; without it, its method is
//! [`MethodError::Disabled`].

#[cfg(feature = "bzip2")]
use lzflow_core::Sticky;
use lzflow_core::{Decode, ErrInto, InBuf, Lease, Limits, OutBuf, Pool, Progress};
#[cfg(feature = "deflate")]
use lzflow_core::{Recycled, Recycler};
use lzflow_filters::{try_new_filter, Direction, Filter, MAX_TAIL};
use lzflow_lzma::{DecoderOptions, Lzma2Decoder, LzmaDecoder, MtLzma2Decoder};

use crate::memory::window_size;
#[cfg(feature = "zstd")]
use crate::zstd::ZstdDecoder;
use crate::{describe_7z, Method, MethodError, Properties};

/// Bytes of LZMA2 segments in flight (input plus output) when
/// [`DecoderOptions::threads`] asks for several threads.
const MT_LZMA2_BUDGET: u64 = 256 << 20;

/// A decoder from [`new_decoder`].
pub type BoxedDecoder = Box<dyn Decode<Error = MethodError> + Send>;

/// A decoder of the method `props` names, producing at most `out_size`
/// bytes (`None`: unknown). The memory limit is not checked here: the
/// container checks its whole chain first ([`check_decoder_memory`](crate::check_decoder_memory)),
/// so `opts`'s memory limit is ignored; its output limit, batch size and
/// pools apply. The one exception is Zstandard, whose window is only known
/// from each frame's header: its decoder checks each frame's need against
/// `opts`'s memory limit before allocating the window (a container that
/// chains it with other coders passes the limit less their share).
///
/// LZMA2 decodes on [`DecoderOptions::threads`] threads where its stream
/// has dictionary resets ([`MtLzma2Decoder`], same output and errors).
///
/// With `out_size` given, LZMA and LZMA2 are told the size (a stream that
/// goes past it is an error, and LZMA2 may stop at the size without its
/// end byte, as 7-Zip accepts) and the window is cut to it.
pub fn new_decoder(
    props: &Properties,
    out_size: Option<u64>,
    opts: &DecoderOptions,
) -> Result<BoxedDecoder, MethodError> {
    // Only Zstandard's decoder checks memory itself.
    #[cfg_attr(not(feature = "zstd"), allow(unused_variables))]
    let memory_limit = opts.limits.memory;
    let opts = DecoderOptions {
        limits: Limits {
            memory: u64::MAX,
            ..opts.limits
        },
        ..opts.clone()
    };
    Ok(match props {
        Properties::Lzma { props, dict_size } => {
            let window = window_size(*dict_size, out_size);
            Box::new(ErrInto::new(LzmaDecoder::new(
                *props, window, out_size, &opts,
            )?))
        }
        Properties::Lzma2 { dict_size } if opts.threads != 1 => {
            let window = window_size(*dict_size, out_size);
            let mut dec = MtLzma2Decoder::new(window, &opts, opts.threads, MT_LZMA2_BUDGET)?;
            if out_size.is_some() {
                dec.set_uncompressed_size(out_size);
                dec.set_end_byte_optional(true);
            }
            Box::new(ErrInto::new(dec))
        }
        Properties::Lzma2 { dict_size } => {
            let mut dec = Lzma2Decoder::new(window_size(*dict_size, out_size), &opts)?;
            if out_size.is_some() {
                dec.set_uncompressed_size(out_size);
                dec.set_end_byte_optional(true);
            }
            Box::new(ErrInto::new(dec))
        }
        Properties::Filter(cfg) => {
            Box::new(FilterStream::new(try_new_filter(cfg, Direction::Decode)?))
        }
        #[cfg(feature = "ppmd")]
        Properties::Ppmd { order, mem_size } => {
            // The container checked the chain's memory (PPMd's model
            // included) before building it.
            let props = lzflow_ppmd::Ppmd7Props::new(*order, *mem_size)?;
            Box::new(ErrInto::new(lzflow_ppmd::Ppmd7Decoder::with_props(
                props,
                out_size,
                u64::MAX,
            )?))
        }
        #[cfg(not(feature = "ppmd"))]
        Properties::Ppmd { .. } => {
            return Err(MethodError::disabled(Method::Ppmd).expect("ppmd is off"))
        }
        Properties::Plain(Method::Copy) => Box::new(CopyDecoder),
        #[cfg(feature = "deflate")]
        Properties::Plain(Method::Deflate) => Box::new(DeflateDecoder::new()),
        #[cfg(feature = "deflate64")]
        Properties::Plain(Method::Deflate64) => Box::new(Deflate64Decoder::new()),
        #[cfg(feature = "bzip2")]
        Properties::Plain(Method::BZip2) => Box::new(Bzip2Decoder::new()),
        #[cfg(feature = "zstd")]
        Properties::Plain(Method::Zstd) => Box::new(ZstdDecoder::new(memory_limit)),
        Properties::Plain(other) => {
            return Err(
                MethodError::disabled(*other).unwrap_or_else(|| MethodError::Unsupported {
                    method: other
                        .sevenz_id()
                        .map_or_else(|| other.name().to_string(), describe_7z),
                }),
            )
        }
    })
}

/// A decoder of zip's PPMd (method 98: PPMd var. I rev. 1, its 2-byte
/// properties at the start of the data) for an entry of `out_size` bytes
/// (`None`: up to the end marker, which 7-Zip always writes). The model's
/// memory is only known from the properties, so the decoder checks it
/// against `memory_limit` itself before allocating.
#[cfg(feature = "ppmd")]
pub fn new_zip_ppmd_decoder(out_size: Option<u64>, memory_limit: u64) -> BoxedDecoder {
    Box::new(ErrInto::new(lzflow_ppmd::Ppmd8Decoder::new(
        out_size,
        memory_limit,
    )))
}

/// The Copy method: output is the input.
struct CopyDecoder;

impl Decode for CopyDecoder {
    type Error = MethodError;
    fn decode(
        &mut self,
        input: &mut InBuf<'_>,
        output: &mut OutBuf<'_>,
    ) -> Result<Progress, MethodError> {
        let n = output.push(input.remaining());
        input.advance(n);
        Ok(if input.is_empty() && input.is_last() {
            Progress::StreamEnd
        } else if input.is_empty() {
            Progress::NeedInput
        } else {
            Progress::OutputFull
        })
    }
}

/// An in-place filter (BCJ, Delta) run over its input stream.
struct FilterStream {
    filter: Box<dyn Filter>,
    buf: Lease<u8>,
    /// `buf[start..ready]` is converted, `buf[ready..end]` waits for more.
    start: usize,
    ready: usize,
    end: usize,
}

/// The stream buffer of a filter run as a coder of its own.
pub(crate) const FILTER_BUF: usize = 64 << 10;

impl FilterStream {
    fn new(filter: Box<dyn Filter>) -> Self {
        let mut buf = Pool::<u8>::global().lease(FILTER_BUF);
        buf.resize(FILTER_BUF, 0);
        FilterStream {
            filter,
            buf,
            start: 0,
            ready: 0,
            end: 0,
        }
    }
}

impl Decode for FilterStream {
    type Error = MethodError;
    fn decode(
        &mut self,
        input: &mut InBuf<'_>,
        output: &mut OutBuf<'_>,
    ) -> Result<Progress, MethodError> {
        loop {
            if self.start < self.ready {
                self.start += output.push(&self.buf[self.start..self.ready]);
                if self.start < self.ready {
                    return Ok(Progress::OutputFull);
                }
            }
            // Keep the undecided tail at the front and take more input.
            self.buf.copy_within(self.ready..self.end, 0);
            self.end -= self.ready;
            self.start = 0;
            self.ready = 0;
            let got = input.take(self.buf.len() - self.end);
            self.buf[self.end..self.end + got.len()].copy_from_slice(got);
            self.end += got.len();
            let at_end = input.is_last() && input.is_empty();
            if self.end > 0 {
                let n = self.filter.filter(&mut self.buf[..self.end]);
                // At the end of the stream the tail passes through as is.
                self.ready = if at_end { self.end } else { n.min(self.end) };
                if self.ready > 0 {
                    continue;
                }
                debug_assert!(self.end <= MAX_TAIL || !got.is_empty());
            }
            if at_end {
                return Ok(Progress::StreamEnd);
            }
            return Ok(Progress::NeedInput);
        }
    }
}

/// What a decompressor's call that did not end its stream means, having
/// taken `used` bytes and made `made`: more room or input wanted, or data
/// that ends early or makes no progress. Input that is all taken and last
/// never yields `NeedInput`: a call that still made bytes asks to be called
/// again, and the next one, making none, reports the truncation.
#[cfg(feature = "deflate")]
fn mid_stream(
    method: &'static str,
    input: &InBuf<'_>,
    output: &OutBuf<'_>,
    used: usize,
    made: usize,
) -> Result<Progress, MethodError> {
    if output.is_full() {
        Ok(Progress::OutputFull)
    } else if input.is_empty() && input.is_last() {
        if made == 0 {
            Err(MethodError::Truncated { method })
        } else {
            Ok(Progress::OutputFull)
        }
    } else if input.is_empty() {
        Ok(Progress::NeedInput)
    } else if used == 0 && made == 0 {
        Err(MethodError::Data {
            method,
            reason: "it is stuck".into(),
        })
    } else {
        Ok(Progress::OutputFull)
    }
}

/// Raw Inflate by zlib-rs, through `flate2`'s raw decompressor (the
/// default backend).
#[cfg(all(feature = "zlib-rs", not(feature = "safe")))]
struct Inflater(flate2::Decompress);

#[cfg(all(feature = "zlib-rs", not(feature = "safe")))]
impl Inflater {
    fn new() -> Self {
        Inflater(flate2::Decompress::new(false))
    }

    /// Ready for a new stream.
    fn reset(&mut self) {
        self.0.reset(false);
    }

    /// Inflates `input` into `output`: bytes taken, bytes made (also when
    /// the data then proves wrong: they came before the fault), and
    /// whether the stream ended or what is wrong with the data.
    fn inflate(&mut self, input: &[u8], output: &mut [u8]) -> (usize, usize, Result<bool, String>) {
        let (in0, out0) = (self.0.total_in(), self.0.total_out());
        let status = self
            .0
            .decompress(input, output, flate2::FlushDecompress::None);
        let used = (self.0.total_in() - in0) as usize;
        let made = (self.0.total_out() - out0) as usize;
        let ended = status
            .map(|s| s == flate2::Status::StreamEnd)
            .map_err(|e| e.to_string());
        (used, made, ended)
    }
}

/// Raw Inflate by miniz_oxide, which has no `unsafe` code: the backend
/// with the `safe` feature, or without `zlib-rs`. Unlike zlib-rs, it copies
/// zeros for a match that reaches before the start of the data (the
/// containers' CRC-32 then reports the entry).
#[cfg(all(feature = "deflate", any(feature = "safe", not(feature = "zlib-rs"))))]
struct Inflater(Box<miniz_oxide::inflate::stream::InflateState>);

#[cfg(all(feature = "deflate", any(feature = "safe", not(feature = "zlib-rs"))))]
impl Inflater {
    fn new() -> Self {
        use miniz_oxide::{inflate::stream::InflateState, DataFormat};
        Inflater(InflateState::new_boxed(DataFormat::Raw))
    }

    /// Ready for a new stream.
    fn reset(&mut self) {
        self.0.reset(miniz_oxide::DataFormat::Raw);
    }

    /// Inflates `input` into `output`: bytes taken, bytes made (also when
    /// the data then proves wrong: they came before the fault), and
    /// whether the stream ended or what is wrong with the data.
    fn inflate(&mut self, input: &[u8], output: &mut [u8]) -> (usize, usize, Result<bool, String>) {
        use miniz_oxide::{MZError, MZFlush, MZStatus};
        let r = miniz_oxide::inflate::stream::inflate(&mut self.0, input, output, MZFlush::None);
        let ended = match r.status {
            Ok(MZStatus::StreamEnd) => Ok(true),
            // `Buf` is "no progress possible with this input or room",
            // which the caller judges.
            Ok(_) | Err(MZError::Buf) => Ok(false),
            Err(MZError::Data) => Err("invalid data".into()),
            Err(e) => Err(format!("decompressor error {e:?}")),
        };
        (r.bytes_consumed, r.bytes_written, ended)
    }
}

/// Idle inflaters kept for reuse: an inflater and its 32 KiB window cost
/// tens of KiB to allocate, and a zip archive of small Deflate entries
/// makes one per entry.
/// Boxed, so that a decoder holding one stays a few words (its own box is
/// allocated per entry).
#[cfg(feature = "deflate")]
static INFLATERS: Recycler<Box<Inflater>> = Recycler::new(DEFAULT_IDLE_DECOMPRESSORS);

/// Idle decompressor states kept for reuse by default (per method that
/// keeps any).
pub const DEFAULT_IDLE_DECOMPRESSORS: usize = 16;

/// Sets how many idle decompressor states (Deflate's inflaters) are kept
/// for the next entry or archive; 0 keeps none. The default is
/// [`DEFAULT_IDLE_DECOMPRESSORS`].
pub fn set_idle_decompressors(max: usize) {
    #[cfg(feature = "deflate")]
    INFLATERS.set_max(max);
    // Without Deflate no decompressor state is kept.
    #[cfg(not(feature = "deflate"))]
    let _ = max;
}

/// Raw Deflate.
#[cfg(feature = "deflate")]
struct DeflateDecoder {
    inner: Recycled<Box<Inflater>>,
    done: bool,
    /// What was wrong with the data, said again on every later call
    /// whatever the backend would do. Its reason only, not a `Sticky`
    /// `MethodError`: a decoder is allocated per zip entry, and the whole
    /// error would make each larger (the zip reader's warm read is held to
    /// 64 bytes allocated per entry).
    failed: Option<String>,
}

#[cfg(feature = "deflate")]
impl DeflateDecoder {
    fn new() -> Self {
        DeflateDecoder {
            inner: INFLATERS.take(|| Box::new(Inflater::new()), |i| i.reset()),
            done: false,
            failed: None,
        }
    }
}

#[cfg(feature = "deflate")]
impl Decode for DeflateDecoder {
    type Error = MethodError;
    fn decode(
        &mut self,
        input: &mut InBuf<'_>,
        output: &mut OutBuf<'_>,
    ) -> Result<Progress, MethodError> {
        if self.done {
            return Ok(Progress::StreamEnd);
        }
        let fault = |reason| MethodError::Data {
            method: "Deflate",
            reason,
        };
        if let Some(reason) = &self.failed {
            return Err(fault(reason.clone()));
        }
        let (used, made, ended) = self.inner.inflate(input.remaining(), output.spare_mut());
        input.advance(used);
        // What came before a fault goes out with its error, so the output
        // does not depend on where the calls fall.
        output.advance(made);
        let ended = ended.map_err(|reason| {
            self.failed = Some(reason.clone());
            fault(reason)
        })?;
        if ended {
            self.done = true;
            return Ok(Progress::StreamEnd);
        }
        mid_stream("Deflate", input, output, used, made)
    }
}

/// Most input bytes a decoder of the registry takes past its stream's end
/// and says so ([`Decode::unused_after_end`]): Deflate64's piece
/// (`DEFLATE64_PIECE`); PPMd holds at most 131 (var. H at order 64).
/// A container that gives those bytes again keeps this many behind.
pub const MAX_UNUSED_AFTER_END: usize = 64 << 10;

/// The stream goes to Deflate64's inflater in pieces of this size at fixed
/// offsets, whatever pieces the caller's input comes in. The `deflate64`
/// crate's inflater checks a table entry before it checks that the code
/// was whole, so where its input ends inside a code of a damaged table
/// decides whether it fails there or reads on: with the caller's pieces,
/// one damaged stream failed in one split and decoded on in another
/// (found by the fuzz target `method_split`). 64 KiB pieces cost nothing
/// measurable (`compare deflate64`: 1.037–1.041× the crate alone against
/// 1.034–1.048× before); 4 KiB ones cost 18 % in calls.
#[cfg(feature = "deflate64")]
const DEFLATE64_PIECE: usize = MAX_UNUSED_AFTER_END;

/// Deflate64 (Deflate with a 64 KiB window, longer matches and lengths),
/// by the `deflate64` crate's inflater, given the stream in pieces of
/// [`DEFLATE64_PIECE`] bytes. At the end it says how much of its last piece
/// it did not take; the inflater itself may have taken up to 4 bytes past
/// the data ([`Method::read_ahead`]). It copies zeros for a match that
/// reaches before the start of the data where zlib reports an error (the
/// containers' CRC-32 then does); its window is its own, so never another
/// stream's bytes.
#[cfg(feature = "deflate64")]
struct Deflate64Decoder {
    /// Boxed: the inflater holds its 128 KiB window inline.
    inner: Box<deflate64::InflaterManaged>,
    /// The current piece of the stream, whole or the last one, and how
    /// much of it the inflater has taken.
    piece: Lease<u8>,
    fed: usize,
    done: bool,
    /// The data proved wrong: what the inflater decoded before goes out,
    /// then the error, on every call.
    failed: bool,
}

#[cfg(feature = "deflate64")]
impl Deflate64Decoder {
    fn new() -> Self {
        Deflate64Decoder {
            inner: Box::new(deflate64::InflaterManaged::new()),
            piece: Pool::<u8>::global().lease(DEFLATE64_PIECE),
            fed: 0,
            done: false,
            failed: false,
        }
    }

    /// Hands out what the inflater decoded and holds in its window, while
    /// there is room: its bytes and whether it found a fault meanwhile.
    fn drain(&mut self, output: &mut OutBuf<'_>) -> (usize, bool) {
        let mut made = 0;
        while !output.is_full() && self.inner.available_output() > 0 {
            let r = self.inner.inflate(&[], output.spare_mut());
            output.advance(r.bytes_written);
            made += r.bytes_written;
            if r.data_error {
                return (made, true);
            }
            if r.bytes_written == 0 {
                break;
            }
        }
        (made, false)
    }

    /// Decodes until the output is full, the input is all taken (into the
    /// piece), or the stream ends; `Ok(None)` when the data proved wrong.
    fn step(
        &mut self,
        input: &mut InBuf<'_>,
        output: &mut OutBuf<'_>,
    ) -> Result<Option<Progress>, MethodError> {
        let mut made = 0;
        loop {
            if self.fed == DEFLATE64_PIECE {
                self.piece.clear();
                self.fed = 0;
            }
            if self.fed == 0 {
                // Collecting the next piece: whole, or the last of the
                // stream.
                let want = DEFLATE64_PIECE - self.piece.len();
                self.piece.extend_from_slice(input.take(want));
                if self.piece.len() < DEFLATE64_PIECE && !input.is_last() {
                    // All the input is in the piece; what the inflater
                    // holds decoded goes out meanwhile.
                    if self.drain(output).1 {
                        return Ok(None);
                    }
                    let more = self.inner.available_output() > 0;
                    return Ok(Some(if more {
                        Progress::OutputFull
                    } else {
                        Progress::NeedInput
                    }));
                }
            }
            let r = self
                .inner
                .inflate(&self.piece[self.fed..], output.spare_mut());
            self.fed += r.bytes_consumed;
            output.advance(r.bytes_written);
            made += r.bytes_written;
            if r.data_error {
                return Ok(None);
            }
            // It may stop with decoded bytes still in its window when its
            // input runs out: they go out while there is room, so that an
            // input that ends here is not called truncated.
            let (n, fault) = self.drain(output);
            if fault {
                return Ok(None);
            }
            made += n;
            if self.inner.finished() {
                self.done = true;
                return Ok(Some(Progress::StreamEnd));
            }
            if output.is_full() {
                return Ok(Some(Progress::OutputFull));
            }
            if self.fed < self.piece.len() {
                if r.bytes_consumed == 0 && r.bytes_written == 0 && n == 0 {
                    return Err(MethodError::Data {
                        method: "Deflate64",
                        reason: "it is stuck".into(),
                    });
                }
                continue;
            }
            if self.piece.len() < DEFLATE64_PIECE {
                // The last piece is in and the stream goes on: cut short.
                // A call that still made bytes asks to be called again;
                // the next one, making none, says so.
                return if made > 0 {
                    Ok(Some(Progress::OutputFull))
                } else {
                    Err(MethodError::Truncated {
                        method: "Deflate64",
                    })
                };
            }
        }
    }
}

#[cfg(feature = "deflate64")]
impl Decode for Deflate64Decoder {
    type Error = MethodError;
    fn decode(
        &mut self,
        input: &mut InBuf<'_>,
        output: &mut OutBuf<'_>,
    ) -> Result<Progress, MethodError> {
        if self.done {
            return Ok(Progress::StreamEnd);
        }
        if !self.failed {
            if let Some(p) = self.step(input, output)? {
                return Ok(p);
            }
            self.failed = true;
        }
        // The inflater may hold bytes it decoded before the fault in its
        // window (how many depends on the room it was given): they go out
        // first, so the output does not depend on the pieces. Its error
        // state is not sticky by itself (it then says "finished").
        self.drain(output);
        if self.inner.available_output() > 0 {
            return Ok(Progress::OutputFull);
        }
        Err(MethodError::Data {
            method: "Deflate64",
            reason: "invalid data".into(),
        })
    }

    /// What it took of its last piece and the inflater did not.
    fn unused_after_end(&self) -> usize {
        if self.done {
            self.piece.len() - self.fed
        } else {
            0
        }
    }
}

/// Room BZip2's decompressor always gets: it notices some faults in a
/// block only when it stops for lack of room, so with the caller's room it
/// would hand out more or less of a damaged block depending on the pieces.
#[cfg(feature = "bzip2")]
const BZIP2_ROOM: usize = 64 << 10;

/// BZip2; concatenated streams (as parallel encoders write) continue, and
/// the data ends after a stream when what follows is not another one
/// (`BZh`), leaving those bytes unread. It decompresses into a buffer of
/// its own, [`BZIP2_ROOM`] bytes free at each call, and hands out from
/// there.
#[cfg(feature = "bzip2")]
struct Bzip2Decoder {
    inner: bzip2::Decompress,
    /// A stream ended and the next has taken no input: the data may end
    /// here.
    between: bool,
    /// What was wrong with the data: every later call says it again, once
    /// what came before it is out (the decompressor would take more input
    /// after a fault).
    failed: Sticky<MethodError>,
    /// Decompressed bytes, `start..end` not yet handed out.
    room: Lease<u8>,
    start: usize,
    end: usize,
    /// Between streams: the first bytes of what follows, taken while they
    /// may still be the magic `BZh` of another stream (all input offered
    /// is taken); when they prove not to be, they are not the data's
    /// ([`Decode::unused_after_end`]).
    magic: usize,
    /// The data ended (after a stream, something that is not another).
    ended: bool,
}

#[cfg(feature = "bzip2")]
impl Bzip2Decoder {
    fn new() -> Self {
        let mut room = Pool::<u8>::global().lease(BZIP2_ROOM);
        room.resize(BZIP2_ROOM, 0);
        Bzip2Decoder {
            inner: bzip2::Decompress::new(false),
            between: false,
            failed: Sticky::default(),
            room,
            start: 0,
            end: 0,
            magic: 0,
            ended: false,
        }
    }

    /// Keeps the fault, to be said once what came before it is out.
    fn fail(&mut self, reason: String) {
        let _ = self.failed.record::<()>(Err(MethodError::Data {
            method: "BZip2",
            reason,
        }));
    }
}

#[cfg(feature = "bzip2")]
impl Decode for Bzip2Decoder {
    type Error = MethodError;
    fn decode(
        &mut self,
        input: &mut InBuf<'_>,
        output: &mut OutBuf<'_>,
    ) -> Result<Progress, MethodError> {
        loop {
            if self.start < self.end {
                self.start += output.push(&self.room[self.start..self.end]);
                if self.start < self.end {
                    return Ok(Progress::OutputFull);
                }
            }
            // What came before a fault is out: now the fault.
            self.failed.check()?;
            if self.ended {
                return Ok(Progress::StreamEnd);
            }
            if self.between {
                // Another stream follows only if it starts like one: a zip
                // entry read forward-only is followed by its data
                // descriptor, not by the end of the input.
                const MAGIC: &[u8; 3] = b"BZh";
                while self.magic < MAGIC.len() {
                    match input.remaining().first() {
                        Some(&b) if b == MAGIC[self.magic] => {
                            input.advance(1);
                            self.magic += 1;
                        }
                        None if !input.is_last() => return Ok(Progress::NeedInput),
                        None if self.magic > 0 => {
                            return Err(MethodError::Truncated { method: "BZip2" })
                        }
                        _ => {
                            self.ended = true;
                            return Ok(Progress::StreamEnd);
                        }
                    }
                }
                // Another stream: its magic goes to the decompressor first.
                self.between = false;
                self.magic = 0;
                let before = self.inner.total_in();
                let reason = match self.inner.decompress(MAGIC, &mut self.room[..]) {
                    Ok(_) if self.inner.total_in() - before == 3 => None,
                    Ok(_) => Some("a stream's magic was not taken".into()),
                    Err(e) => Some(e.to_string()),
                };
                if let Some(reason) = reason {
                    self.fail(reason);
                }
                (self.start, self.end) = (0, 0);
                continue;
            }
            let (in0, out0) = (self.inner.total_in(), self.inner.total_out());
            let status = self.inner.decompress(input.remaining(), &mut self.room[..]);
            let used = (self.inner.total_in() - in0) as usize;
            let made = (self.inner.total_out() - out0) as usize;
            input.advance(used);
            (self.start, self.end) = (0, made);
            match status {
                Err(e) => self.fail(e.to_string()),
                Ok(bzip2::Status::StreamEnd) => {
                    self.inner = bzip2::Decompress::new(false);
                    self.between = true;
                }
                Ok(_) if made > 0 => {}
                // Nothing made: it wants more input.
                Ok(_) if input.is_empty() && input.is_last() => {
                    return Err(MethodError::Truncated { method: "BZip2" })
                }
                Ok(_) if input.is_empty() => return Ok(Progress::NeedInput),
                Ok(_) if used == 0 => {
                    return Err(MethodError::Data {
                        method: "BZip2",
                        reason: "it is stuck".into(),
                    })
                }
                // Input taken, a block not yet whole: go on with the rest.
                Ok(_) => {}
            }
        }
    }

    /// The start of what followed the data, taken while it might have been
    /// another stream.
    fn unused_after_end(&self) -> usize {
        if self.ended {
            self.magic
        } else {
            0
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn copy_reports_end_only_on_last_input() {
        let mut c = CopyDecoder;
        let mut space = [0u8; 4];
        let mut out = OutBuf::new(&mut space);
        assert_eq!(
            c.decode(&mut InBuf::new(b"ab"), &mut out).unwrap(),
            Progress::NeedInput
        );
        assert_eq!(
            c.decode(&mut InBuf::last(b"cdef"), &mut out).unwrap(),
            Progress::OutputFull
        );
        assert_eq!(out.written(), b"abcd");
    }

    /// Decodes `data` (given as last) into `space` bytes of room.
    #[cfg(feature = "deflate")]
    fn decode_once(
        d: &mut impl Decode<Error = MethodError>,
        data: &[u8],
        space: usize,
    ) -> Result<Vec<u8>, MethodError> {
        let mut space = vec![0u8; space];
        let mut out = OutBuf::new(&mut space);
        let mut input = InBuf::last(data);
        for _ in 0..100 {
            if d.decode(&mut input, &mut out)? == Progress::StreamEnd {
                return Ok(out.written().to_vec());
            }
        }
        panic!("no end");
    }

    #[test]
    #[cfg(feature = "deflate")]
    fn deflate_round_trip_and_truncation() {
        let data: Vec<u8> = (0..5000u32).map(|i| (i % 251) as u8).collect();
        let packed = miniz_oxide::deflate::compress_to_vec(&data, 6);
        let got = decode_once(&mut DeflateDecoder::new(), &packed, 6000).unwrap();
        assert_eq!(got, data);
        let cut = &packed[..packed.len() / 2];
        let r = decode_once(&mut DeflateDecoder::new(), cut, 6000);
        assert!(
            matches!(r, Err(MethodError::Truncated { method: "Deflate" })),
            "{r:?}"
        );
    }

    #[test]
    #[cfg(all(feature = "deflate", feature = "deflate64"))]
    fn deflate64_reads_plain_deflate_blocks() {
        // Deflate64 differs from Deflate only in length code 285 and the
        // two extra distance codes, which this data does not reach.
        let data = b"a short text, a short text, a short text".repeat(3);
        let packed = miniz_oxide::deflate::compress_to_vec(&data, 6);
        let got = decode_once(&mut Deflate64Decoder::new(), &packed, 1000).unwrap();
        assert_eq!(got, data);
        let r = decode_once(
            &mut Deflate64Decoder::new(),
            &packed[..packed.len() - 3],
            1000,
        );
        assert!(
            matches!(
                r,
                Err(MethodError::Truncated {
                    method: "Deflate64"
                })
            ),
            "{r:?}"
        );
    }

    /// Bits of a Deflate stream, least significant first.
    #[cfg(any(feature = "deflate", feature = "deflate64"))]
    #[derive(Default)]
    struct Bits {
        out: Vec<u8>,
        acc: u32,
        n: u32,
    }

    #[cfg(any(feature = "deflate", feature = "deflate64"))]
    impl Bits {
        fn push(&mut self, value: u32, n: u32) {
            self.acc |= value << self.n;
            self.n += n;
            while self.n >= 8 {
                self.out.push(self.acc as u8);
                self.acc >>= 8;
                self.n -= 8;
            }
        }

        /// A Huffman code: most significant bit first.
        fn code(&mut self, c: u32, n: u32) {
            self.push(c.reverse_bits() >> (32 - n), n);
        }

        /// The start of a last block of fixed Huffman codes and 70
        /// literals: the stream so far, and the text.
        fn fixed_block_of_text() -> (Bits, Vec<u8>) {
            let mut b = Bits::default();
            b.push(1, 1); // BFINAL
            b.push(1, 2); // fixed Huffman codes
            let text = b"hello, ".repeat(10);
            for &c in &text {
                b.code(0x30 + u32::from(c), 8);
            }
            (b, text)
        }

        fn finish(mut self) -> Vec<u8> {
            self.push(0, 7);
            self.out
        }
    }

    /// A fixed-Huffman block: 70 literals, a match 1000 bytes back (before
    /// the stream's start), the end of the block.
    #[cfg(any(all(feature = "zlib-rs", not(feature = "safe")), feature = "deflate64"))]
    fn too_far_back() -> (Vec<u8>, Vec<u8>) {
        let (mut b, text) = Bits::fixed_block_of_text();
        b.code(1, 7); // length 3 (symbol 257)
        b.code(19, 5); // distances 769-1024...
        b.push(1000 - 769, 8); // ...1000
        b.code(0, 7); // end of block (symbol 256)
        (b.finish(), text)
    }

    /// A fixed-Huffman block: 70 literals, then symbol 286, which neither
    /// Deflate nor Deflate64 has.
    #[cfg(any(feature = "deflate", feature = "deflate64"))]
    fn bad_symbol() -> (Vec<u8>, Vec<u8>) {
        let (mut b, text) = Bits::fixed_block_of_text();
        b.code(0xC0 + 6, 8);
        b.code(0, 7);
        (b.finish(), text)
    }

    /// `stream` decoded in `in_piece`/`out_piece` pieces: the bytes made
    /// and how it ended (`None`: at its end).
    #[cfg(any(feature = "deflate", feature = "deflate64", feature = "bzip2"))]
    fn in_pieces(
        d: &mut dyn Decode<Error = MethodError>,
        stream: &[u8],
        in_piece: usize,
        out_piece: usize,
    ) -> (Vec<u8>, Option<MethodError>) {
        let (mut got, mut pos, mut room) = (Vec::new(), 0usize, vec![0u8; out_piece]);
        loop {
            let end = pos.saturating_add(in_piece).min(stream.len());
            let mut input = InBuf::new(&stream[pos..end]).with_last(end == stream.len());
            let mut out = OutBuf::new(&mut room);
            let r = d.decode(&mut input, &mut out);
            pos += input.pos();
            got.extend_from_slice(out.written());
            match r {
                Err(e) => return (got, Some(e)),
                Ok(Progress::StreamEnd) => return (got, None),
                Ok(_) => {}
            }
        }
    }

    #[cfg(any(feature = "deflate", feature = "deflate64"))]
    const PIECES: [(usize, usize); 4] = [(usize::MAX, 4096), (1, 1), (3, 8), (5, 64)];

    /// What Deflate's inflater made before the data proved wrong (a match
    /// reaching before the start) goes out with the error, in whatever
    /// pieces input and output come: the same bytes (the fuzz target
    /// `method_split` found them depending on the pieces). zlib-rs only:
    /// miniz_oxide (the `safe` backend) copies zeros there, as the
    /// `deflate64` crate does, and the containers' CRC-32 reports it; the
    /// invalid-symbol test covers both backends.
    #[test]
    #[cfg(all(feature = "zlib-rs", not(feature = "safe")))]
    fn deflate_output_before_a_fault_does_not_depend_on_the_pieces() {
        let (stream, text) = too_far_back();
        for (in_piece, out_piece) in PIECES {
            let (got, error) = in_pieces(&mut DeflateDecoder::new(), &stream, in_piece, out_piece);
            assert!(matches!(error, Some(MethodError::Data { .. })), "{error:?}");
            assert_eq!(got, text, "pieces {in_piece}/{out_piece}");
        }
    }

    /// The `deflate64` crate does not reject a match reaching before the
    /// start of the data: it copies zeros from its fresh window (never an
    /// earlier stream's bytes: each decoder has its own inflater). The
    /// containers' CRC-32 then reports the entry; the bytes are the same
    /// in any pieces. Should the crate start to refuse such data, this
    /// test says so.
    #[test]
    #[cfg(feature = "deflate64")]
    fn deflate64_fills_a_match_before_the_start_with_zeros() {
        let (stream, text) = too_far_back();
        let mut want = text;
        want.extend_from_slice(&[0; 3]);
        for (in_piece, out_piece) in PIECES {
            let (got, error) =
                in_pieces(&mut Deflate64Decoder::new(), &stream, in_piece, out_piece);
            assert!(error.is_none(), "{error:?}");
            assert_eq!(got, want, "pieces {in_piece}/{out_piece}");
        }
    }

    /// Both inflaters fail on a symbol neither has, after handing out the
    /// 70 bytes before it, in any pieces; asked again, they fail again
    /// and make nothing (the `deflate64` crate's inflater held decoded
    /// bytes back and then said "finished": found by `method_split`).
    #[test]
    #[cfg(any(feature = "deflate", feature = "deflate64"))]
    fn an_invalid_symbol_fails_after_the_bytes_before_it_and_stays_failed() {
        let (stream, text) = bad_symbol();
        let decoders: Vec<fn() -> BoxedDecoder> = vec![
            #[cfg(feature = "deflate")]
            || Box::new(DeflateDecoder::new()),
            #[cfg(feature = "deflate64")]
            || Box::new(Deflate64Decoder::new()),
        ];
        for make in decoders {
            for (in_piece, out_piece) in PIECES {
                let mut d = make();
                let (got, error) = in_pieces(&mut *d, &stream, in_piece, out_piece);
                assert!(matches!(error, Some(MethodError::Data { .. })), "{error:?}");
                assert_eq!(got, text, "pieces {in_piece}/{out_piece}");
                let mut room = [0u8; 64];
                let mut out = OutBuf::new(&mut room);
                let again = d.decode(&mut InBuf::last(&[]), &mut out);
                assert!(again.is_err() && out.pos() == 0, "{again:?}");
            }
        }
    }

    /// A damaged BZip2 block gives the same bytes before its fault in any
    /// pieces. The decompressor notices that a run goes past the block's
    /// end only when it stops for lack of room (libbzip2 through Python
    /// gives 283,416, 262,144 or 0 bytes of this block with 49 bytes,
    /// 64 KiB or 1 MiB of room), so it always gets the same room. The
    /// stream is the one `method_split` found this with.
    #[test]
    #[cfg(feature = "bzip2")]
    fn a_damaged_bzip2_block_gives_the_same_bytes_in_any_pieces() {
        let whole = fails_alike_in_any_pieces(
            || Box::new(Bzip2Decoder::new()),
            "bzip2-overrun-block.bz2",
            &[(6, 49), (6, 2), (1, 1), (4096, 65537)],
        );
        assert_eq!(whole.len(), 4 * BZIP2_ROOM);
    }

    /// The stream `fixtures/fuzz/{name}` decoded whole and in each of
    /// `pieces` (input, output): the same bytes and the same data error
    /// every time. Returns the bytes.
    #[cfg(any(feature = "deflate64", feature = "bzip2"))]
    fn fails_alike_in_any_pieces(
        make: fn() -> BoxedDecoder,
        name: &str,
        pieces: &[(usize, usize)],
    ) -> Vec<u8> {
        let path = format!("{}/../../fixtures/fuzz/{name}", env!("CARGO_MANIFEST_DIR"));
        let stream = std::fs::read(path).unwrap();
        let (whole, error) = in_pieces(&mut *make(), &stream, usize::MAX, 1 << 20);
        assert!(
            matches!(error, Some(MethodError::Data { .. })),
            "{name}: {error:?}"
        );
        for &(i, o) in pieces {
            let (got, e) = in_pieces(&mut *make(), &stream, i, o);
            assert!(
                got == whole,
                "{name} {i}/{o}: {} bytes, {} whole",
                got.len(),
                whole.len()
            );
            assert_eq!(format!("{e:?}"), format!("{error:?}"), "{name} {i}/{o}");
        }
        whole
    }

    /// After a BZip2 stream, bytes that may start another (`B`, `BZ`) are
    /// taken while they come one at a time, and given back when the next
    /// proves them not to be: all input offered is always taken before
    /// `NeedInput` (the zip forward-only reader looped on a data
    /// descriptor whose CRC-32 starts with "BZ").
    #[test]
    #[cfg(feature = "bzip2")]
    fn bzip2_takes_what_may_start_another_stream_and_gives_it_back() {
        let mut packed = Vec::new();
        let mut enc = bzip2::write::BzEncoder::new(&mut packed, bzip2::Compression::new(1));
        std::io::Write::write_all(&mut enc, b"some text").unwrap();
        enc.finish().unwrap();
        let end = packed.len();
        packed.extend_from_slice(b"BZx");
        let mut d = Bzip2Decoder::new();
        let (mut room, mut pos) = ([0u8; 64], 0);
        let p = loop {
            let mut input = InBuf::new(&packed[pos..pos + 1]);
            let p = d.decode(&mut input, &mut OutBuf::new(&mut room)).unwrap();
            if p == Progress::NeedInput {
                assert_eq!(input.pos(), 1, "at {pos}: all input is taken");
            }
            pos += input.pos();
            if p == Progress::StreamEnd {
                break p;
            }
        };
        assert_eq!(p, Progress::StreamEnd);
        assert_eq!((pos, d.unused_after_end()), (end + 2, 2));
        // "BZ" and nothing after it: a cut stream.
        let mut d = Bzip2Decoder::new();
        let mut input = InBuf::last(&packed[..end + 2]);
        let mut room = [0u8; 64];
        let r = loop {
            match d.decode(&mut input, &mut OutBuf::new(&mut room)) {
                Ok(Progress::StreamEnd) => break Ok(()),
                Ok(_) => {}
                Err(e) => break Err(e),
            }
        };
        assert!(matches!(r, Err(MethodError::Truncated { .. })), "{r:?}");
    }

    /// BZip2's decompressor takes more input after a fault (it asked for
    /// more); the adapter keeps failing (found by `method_split`).
    #[test]
    #[cfg(feature = "bzip2")]
    fn bzip2_stays_failed_after_a_fault() {
        let text = b"a line of text, and another line of text\n".repeat(300);
        let mut packed = Vec::new();
        let mut enc = bzip2::write::BzEncoder::new(&mut packed, bzip2::Compression::new(9));
        std::io::Write::write_all(&mut enc, &text).unwrap();
        enc.finish().unwrap();
        // The block's magic number (after "BZh9"), 6 bytes at a time.
        packed[6] ^= 0x55;
        let mut d = Bzip2Decoder::new();
        let mut room = [0u8; 64];
        let mut pos = 0;
        let error = loop {
            let mut input = InBuf::new(&packed[pos..pos + 6]);
            let r = d.decode(&mut input, &mut OutBuf::new(&mut room));
            pos += input.pos();
            match r {
                Err(e) => break e,
                Ok(p) => assert_eq!(p, Progress::NeedInput),
            }
        };
        assert!(matches!(error, MethodError::Data { .. }), "{error:?}");
        for _ in 0..3 {
            let mut input = InBuf::new(&packed[pos..pos + 6]);
            let again = d.decode(&mut input, &mut OutBuf::new(&mut room));
            assert!(again.is_err() && input.pos() == 0, "{again:?}");
        }
    }

    /// A Deflate64 block whose code table is damaged gives the same bytes
    /// and fails at the same place however its input is split: the
    /// inflater sees the same pieces (whole, it gave 2 bytes and failed at
    /// byte 101; in 61-byte pieces, 0 bytes at byte 115, before). The
    /// stream is the one `method_split` found this with.
    #[test]
    #[cfg(feature = "deflate64")]
    fn a_damaged_deflate64_table_fails_the_same_in_any_pieces() {
        fails_alike_in_any_pieces(
            || Box::new(Deflate64Decoder::new()),
            "deflate64-damaged-table.bin",
            &[(61, 31), (1, 1), (7, 144)],
        );
    }

    /// A cut stream gives every byte decoded before the cut, then the
    /// truncation, in any pieces: the `deflate64` crate's inflater can stop
    /// with decoded bytes in its window when its input runs out, which
    /// were taken for a truncation with nothing made (found by
    /// `method_split`).
    #[test]
    #[cfg(all(feature = "deflate", feature = "deflate64"))]
    fn deflate64_cut_anywhere_gives_the_same_bytes_in_any_pieces() {
        let text: Vec<u8> = (0..3000u32)
            .flat_map(|i| format!("{} {} ", i % 17, i % 251).into_bytes())
            .collect();
        let packed = miniz_oxide::deflate::compress_to_vec(&text, 6);
        for cut in (1..packed.len()).step_by(7) {
            let stream = &packed[..cut];
            let (whole, error) =
                in_pieces(&mut Deflate64Decoder::new(), stream, usize::MAX, 1 << 20);
            assert!(text.starts_with(&whole), "cut {cut}");
            let truncated =
                |e: &Option<MethodError>| matches!(e, Some(MethodError::Truncated { .. }));
            assert!(truncated(&error), "cut {cut}: {error:?}");
            for (in_piece, out_piece) in [(2, 3), (65, 1), (1, 4096)] {
                let (got, error) =
                    in_pieces(&mut Deflate64Decoder::new(), stream, in_piece, out_piece);
                assert!(
                    truncated(&error),
                    "cut {cut} {in_piece}/{out_piece}: {error:?}"
                );
                assert_eq!(got.len(), whole.len(), "cut {cut} {in_piece}/{out_piece}");
            }
        }
    }

    #[test]
    #[cfg(feature = "deflate")]
    fn the_last_input_never_yields_need_input() {
        let mut space = [0u8; 8];
        let out = OutBuf::new(&mut space);
        let input = InBuf::last(b"");
        // Bytes made: call again (the next call, making none, fails).
        assert_eq!(
            mid_stream("X", &input, &out, 3, 2).unwrap(),
            Progress::OutputFull
        );
        assert!(matches!(
            mid_stream("X", &input, &out, 0, 0),
            Err(MethodError::Truncated { method: "X" })
        ));
        let input = InBuf::new(b"");
        assert_eq!(
            mid_stream("X", &input, &out, 3, 2).unwrap(),
            Progress::NeedInput
        );
    }
}
