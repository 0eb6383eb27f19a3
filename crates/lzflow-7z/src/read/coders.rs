//! Single-input coders of a folder as `Decode<Error = SevenZError>`: Copy,
//! the LZMA family and filters (adapted from their crates), Deflate and
//! BZip2 (the `flate2` and `bzip2` crates' raw decompressors).

use lzflow_core::{Decode, InBuf, Lease, OutBuf, Pool, Progress};
use lzflow_filters::{Filter, MAX_TAIL};

use crate::SevenZError;

/// A boxed folder coder.
pub(crate) type BoxedDecode = Box<dyn Decode<Error = SevenZError> + Send>;

/// Adapts a decoder of another layer, converting its errors.
pub(crate) struct Mapped<D>(pub(crate) D);

impl<D> Decode for Mapped<D>
where
    D: Decode,
    D::Error: Into<SevenZError>,
{
    type Error = SevenZError;
    fn decode(
        &mut self,
        input: &mut InBuf<'_>,
        output: &mut OutBuf<'_>,
    ) -> Result<Progress, SevenZError> {
        self.0.decode(input, output).map_err(Into::into)
    }
}

/// The Copy method: output is the input.
pub(crate) struct CopyDecoder;

impl Decode for CopyDecoder {
    type Error = SevenZError;
    fn decode(
        &mut self,
        input: &mut InBuf<'_>,
        output: &mut OutBuf<'_>,
    ) -> Result<Progress, SevenZError> {
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
pub(crate) struct FilterDecoder {
    filter: Box<dyn Filter>,
    buf: Lease<u8>,
    /// `buf[start..ready]` is converted, `buf[ready..end]` waits for more.
    start: usize,
    ready: usize,
    end: usize,
}

const FILTER_BUF: usize = 64 << 10;

impl FilterDecoder {
    pub(crate) fn new(filter: Box<dyn Filter>) -> Self {
        let mut buf = Pool::<u8>::global().lease(FILTER_BUF);
        buf.resize(FILTER_BUF, 0);
        FilterDecoder {
            filter,
            buf,
            start: 0,
            ready: 0,
            end: 0,
        }
    }
}

impl Decode for FilterDecoder {
    type Error = SevenZError;
    fn decode(
        &mut self,
        input: &mut InBuf<'_>,
        output: &mut OutBuf<'_>,
    ) -> Result<Progress, SevenZError> {
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

/// Raw Deflate.
pub(crate) struct DeflateDecoder {
    inner: flate2::Decompress,
    done: bool,
}

impl DeflateDecoder {
    pub(crate) fn new() -> Self {
        DeflateDecoder {
            inner: flate2::Decompress::new(false),
            done: false,
        }
    }
}

impl Decode for DeflateDecoder {
    type Error = SevenZError;
    fn decode(
        &mut self,
        input: &mut InBuf<'_>,
        output: &mut OutBuf<'_>,
    ) -> Result<Progress, SevenZError> {
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
            .map_err(|e| SevenZError::corrupt(format!("Deflate data: {e}")))?;
        let used = (self.inner.total_in() - in0) as usize;
        let made = (self.inner.total_out() - out0) as usize;
        input.advance(used);
        output.advance(made);
        match status {
            flate2::Status::StreamEnd => {
                self.done = true;
                Ok(Progress::StreamEnd)
            }
            _ if output.is_full() => Ok(Progress::OutputFull),
            _ if input.is_empty() && input.is_last() && made == 0 => {
                Err(SevenZError::corrupt("Deflate data ends early"))
            }
            _ if input.is_empty() => Ok(Progress::NeedInput),
            _ if used == 0 && made == 0 => Err(SevenZError::corrupt("Deflate data is stuck")),
            _ => Ok(Progress::OutputFull),
        }
    }
}

/// BZip2; concatenated streams (as parallel encoders write) continue.
pub(crate) struct Bzip2Decoder {
    inner: bzip2::Decompress,
    /// A stream ended and the next has taken no input: the data may end
    /// here.
    between: bool,
}

impl Bzip2Decoder {
    pub(crate) fn new() -> Self {
        Bzip2Decoder {
            inner: bzip2::Decompress::new(false),
            between: false,
        }
    }
}

impl Decode for Bzip2Decoder {
    type Error = SevenZError;
    fn decode(
        &mut self,
        input: &mut InBuf<'_>,
        output: &mut OutBuf<'_>,
    ) -> Result<Progress, SevenZError> {
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
            .map_err(|e| SevenZError::corrupt(format!("BZip2 data: {e}")))?;
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
            _ if output.is_full() => Ok(Progress::OutputFull),
            _ if input.is_empty() && input.is_last() && made == 0 => {
                Err(SevenZError::corrupt("BZip2 data ends early"))
            }
            _ if input.is_empty() => Ok(Progress::NeedInput),
            _ if used == 0 && made == 0 => Err(SevenZError::corrupt("BZip2 data is stuck")),
            _ => Ok(Progress::OutputFull),
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
        assert!(matches!(r, Err(SevenZError::Corrupt(_))));
    }
}
