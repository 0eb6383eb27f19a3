//! The single-input decoders a container chains, as
//! `Decode<Error = MethodError>`: Copy, LZMA and LZMA2 (lzflow-lzma), the
//! BCJ filters and Delta run as a stream of their own (lzflow-filters),
//! Deflate and BZip2 (the `flate2` and `bzip2` crates' raw decompressors).

use lzflow_core::{Decode, ErrInto, InBuf, Lease, Limits, OutBuf, Pool, Progress};
use lzflow_filters::{try_new_filter, Direction, Filter, MAX_TAIL};
use lzflow_lzma::{DecoderOptions, Lzma2Decoder, LzmaDecoder};

use crate::memory::window_size;
use crate::{describe_7z, Method, MethodError, Properties};

/// A decoder from [`new_decoder`].
pub type BoxedDecoder = Box<dyn Decode<Error = MethodError> + Send>;

/// A decoder of the method `props` names, producing at most `out_size`
/// bytes (`None`: unknown). The memory limit is not checked here: the
/// container checks its whole chain first ([`check_decoder_memory`](crate::check_decoder_memory)),
/// so `opts`'s memory limit is ignored; its output limit, batch size and
/// pools apply.
///
/// With `out_size` given, LZMA and LZMA2 are told the size (a stream that
/// goes past it is an error, and LZMA2 may stop at the size without its
/// end byte, as 7-Zip accepts) and the window is cut to it.
pub fn new_decoder(
    props: &Properties,
    out_size: Option<u64>,
    opts: &DecoderOptions,
) -> Result<BoxedDecoder, MethodError> {
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
        Properties::Plain(Method::Copy) => Box::new(CopyDecoder),
        Properties::Plain(Method::Deflate) => Box::new(DeflateDecoder::new()),
        Properties::Plain(Method::BZip2) => Box::new(Bzip2Decoder::new()),
        Properties::Plain(other) => {
            return Err(MethodError::Unsupported {
                method: other
                    .sevenz_id()
                    .map_or_else(|| other.name().to_string(), describe_7z),
            })
        }
    })
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
/// that ends early or makes no progress.
fn mid_stream(
    method: &'static str,
    input: &InBuf<'_>,
    output: &OutBuf<'_>,
    used: usize,
    made: usize,
) -> Result<Progress, MethodError> {
    let data = |reason: &str| MethodError::Data {
        method,
        reason: reason.into(),
    };
    if output.is_full() {
        Ok(Progress::OutputFull)
    } else if input.is_empty() && input.is_last() && made == 0 {
        Err(data("it ends early"))
    } else if input.is_empty() {
        Ok(Progress::NeedInput)
    } else if used == 0 && made == 0 {
        Err(data("it is stuck"))
    } else {
        Ok(Progress::OutputFull)
    }
}

/// Raw Deflate.
struct DeflateDecoder {
    inner: flate2::Decompress,
    done: bool,
}

impl DeflateDecoder {
    fn new() -> Self {
        DeflateDecoder {
            inner: flate2::Decompress::new(false),
            done: false,
        }
    }
}

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
        let (in0, out0) = (self.inner.total_in(), self.inner.total_out());
        let status = self
            .inner
            .decompress(
                input.remaining(),
                output.spare_mut(),
                flate2::FlushDecompress::None,
            )
            .map_err(|e| MethodError::Data {
                method: "Deflate",
                reason: e.to_string(),
            })?;
        let used = (self.inner.total_in() - in0) as usize;
        let made = (self.inner.total_out() - out0) as usize;
        input.advance(used);
        output.advance(made);
        if status == flate2::Status::StreamEnd {
            self.done = true;
            return Ok(Progress::StreamEnd);
        }
        mid_stream("Deflate", input, output, used, made)
    }
}

/// BZip2; concatenated streams (as parallel encoders write) continue.
struct Bzip2Decoder {
    inner: bzip2::Decompress,
    /// A stream ended and the next has taken no input: the data may end
    /// here.
    between: bool,
}

impl Bzip2Decoder {
    fn new() -> Self {
        Bzip2Decoder {
            inner: bzip2::Decompress::new(false),
            between: false,
        }
    }
}

impl Decode for Bzip2Decoder {
    type Error = MethodError;
    fn decode(
        &mut self,
        input: &mut InBuf<'_>,
        output: &mut OutBuf<'_>,
    ) -> Result<Progress, MethodError> {
        if self.between && input.is_empty() {
            return Ok(if input.is_last() {
                Progress::StreamEnd
            } else {
                Progress::NeedInput
            });
        }
        self.between = false;
        let (in0, out0) = (self.inner.total_in(), self.inner.total_out());
        let status = self
            .inner
            .decompress(input.remaining(), output.spare_mut())
            .map_err(|e| MethodError::Data {
                method: "BZip2",
                reason: e.to_string(),
            })?;
        let used = (self.inner.total_in() - in0) as usize;
        let made = (self.inner.total_out() - out0) as usize;
        input.advance(used);
        output.advance(made);
        match status {
            bzip2::Status::StreamEnd => {
                self.inner = bzip2::Decompress::new(false);
                self.between = true;
                Ok(if !input.is_empty() {
                    Progress::OutputFull
                } else if input.is_last() {
                    Progress::StreamEnd
                } else {
                    Progress::NeedInput
                })
            }
            _ => mid_stream("BZip2", input, output, used, made),
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

    #[test]
    fn deflate_round_trip_and_truncation() {
        use std::io::Write;
        let data: Vec<u8> = (0..5000u32).map(|i| (i % 251) as u8).collect();
        let mut enc =
            flate2::write::DeflateEncoder::new(Vec::new(), flate2::Compression::default());
        enc.write_all(&data).unwrap();
        let packed = enc.finish().unwrap();
        let mut d = DeflateDecoder::new();
        let mut space = vec![0u8; 6000];
        let mut out = OutBuf::new(&mut space);
        let mut input = InBuf::last(&packed);
        let mut p = Progress::NeedInput;
        for _ in 0..10 {
            p = d.decode(&mut input, &mut out).unwrap();
            if p == Progress::StreamEnd {
                break;
            }
        }
        assert_eq!(p, Progress::StreamEnd);
        assert_eq!(out.written(), &data[..]);
        let mut d = DeflateDecoder::new();
        let mut space = vec![0u8; 6000];
        let mut out = OutBuf::new(&mut space);
        let cut = &packed[..packed.len() / 2];
        let mut input = InBuf::last(cut);
        let r = (0..10).try_for_each(|_| d.decode(&mut input, &mut out).map(|_| ()));
        assert!(matches!(r, Err(MethodError::Data { .. })));
    }
}
