//! The LZMA2 chunk layer: control bytes, chunk headers, uncompressed chunks,
//! and LZMA chunks decoded in place or from a chunk buffer.

use lzflow_core::{Decode, InBuf, Lease, Limits, OutBuf, Pool, Progress};

use crate::lzma_decoder::{need_input, LzmaCore, Partial, Stop};
use crate::range_coder::INIT_BYTES;
use crate::range_decoder::RangeDecoder;
use crate::window::{Window, MIN_DICT, WINDOW_SLACK};
use crate::{DecoderOptions, LzmaError, LzmaProps};

/// Largest compressed size of one LZMA chunk.
const CHUNK_MAX: usize = 1 << 16;

/// Where the LZMA2 stream stands.
#[derive(Debug)]
enum Phase {
    /// Expecting a control byte.
    Control,
    /// Gathering the rest of a chunk header (`need` bytes in total).
    Header {
        control: u8,
        have: usize,
        need: usize,
    },
    /// Copying an uncompressed chunk.
    Uncompressed { left: usize },
    /// Decoding an LZMA chunk.
    Lzma {
        /// Uncompressed bytes still to produce.
        unpacked_left: usize,
        /// Compressed bytes not yet taken from the input.
        packed_left: usize,
        /// False until the range coder has read its first bytes.
        started: bool,
    },
    /// After the end byte 0x00.
    End,
    /// A sticky error.
    Failed(LzmaError),
}

/// Decoder for a raw LZMA2 stream (the XZ LZMA2 filter, 7z's LZMA2 coder).
///
/// Window, probability tables and chunk buffer come from the pools in
/// [`DecoderOptions`] and are reused across chunks and [`reset`](Self::reset).
#[derive(Debug)]
pub struct Lzma2Decoder {
    core: LzmaCore,
    window: Window,
    phase: Phase,
    header: [u8; 6],
    need_dict_reset: bool,
    need_props: bool,
    range: u32,
    code: u32,
    /// Compressed bytes of the current chunk when it arrived in pieces.
    chunk: Option<Lease<u8>>,
    chunk_pos: usize,
    dict_size: u32,
    produced: u64,
    limits: Limits,
    batch: usize,
    pool: Pool<u8>,
    /// Input that ends between chunks ends the stream (no end byte needed).
    end_byte_optional: bool,
    /// A truncated chunk's last symbol took a stand-in byte: nothing more
    /// can be decoded (see `LzmaCore::decode_partial`).
    tail_exhausted: bool,
    /// Decode partial chunks as they arrive ([`DecoderOptions::low_latency`]).
    low_latency: bool,
    /// The window is the output ([`decode_whole`](Self::decode_whole)):
    /// decoded bytes stay where they are, nothing is copied out.
    flat: bool,
}

impl Lzma2Decoder {
    /// A decoder for a dictionary of `dict_size` bytes; checks
    /// `opts.limits.memory` against [`memory_usage`](Self::memory_usage)
    /// before allocating anything.
    pub fn new(dict_size: u32, opts: &DecoderOptions) -> Result<Self, LzmaError> {
        opts.limits.check_memory(Self::memory_usage(dict_size))?;
        Ok(Lzma2Decoder {
            core: LzmaCore::new(LzmaProps::default(), 4, &opts.prob_pool),
            window: Window::new(dict_size, opts.pool.clone()),
            phase: Phase::Control,
            header: [0; 6],
            need_dict_reset: true,
            need_props: true,
            range: 0,
            code: 0,
            chunk: None,
            chunk_pos: 0,
            dict_size,
            produced: 0,
            limits: opts.limits,
            batch: opts.batch(),
            pool: opts.pool.clone(),
            end_byte_optional: false,
            tail_exhausted: false,
            low_latency: opts.low_latency,
            flat: false,
        })
    }

    /// Bytes of memory a decoder with this dictionary may use: the
    /// dictionary (at least 4 KiB), the probability tables and the chunk
    /// buffer.
    pub fn memory_usage(dict_size: u32) -> u64 {
        u64::from(dict_size).max(MIN_DICT as u64)
            + LzmaCore::memory_usage(4)
            + CHUNK_MAX as u64
            + std::mem::size_of::<Self>() as u64
    }

    /// Starts a new, independent LZMA2 stream (the next XZ block) with a
    /// dictionary of `dict_size` bytes, reusing window, probability tables
    /// and chunk buffer. Clears any [`set_uncompressed_size`] hint and any
    /// sticky error; the output limit counts from zero again.
    ///
    /// [`set_uncompressed_size`]: Self::set_uncompressed_size
    pub fn reset(&mut self, dict_size: u32) -> Result<(), LzmaError> {
        self.limits.check_memory(Self::memory_usage(dict_size))?;
        self.window.set_dict(dict_size);
        self.dict_size = dict_size;
        self.phase = Phase::Control;
        self.need_dict_reset = true;
        self.need_props = true;
        self.chunk_pos = 0;
        if let Some(c) = &mut self.chunk {
            c.clear();
        }
        self.produced = 0;
        Ok(())
    }

    /// Hint that the stream decodes to `size` bytes, so the window need not
    /// grow larger. Call it before decoding (after [`reset`](Self::reset)).
    pub fn set_uncompressed_size(&mut self, size: Option<u64>) {
        self.window.set_hint(size);
    }

    /// Lets the stream end without its end byte (0x00) where a chunk ends:
    /// input that runs out between chunks is then the stream's end. 7-Zip
    /// accepts this inside a 7z folder, whose size is stored elsewhere; xz
    /// does not, so it is off by default. Kept across [`reset`](Self::reset).
    pub fn set_end_byte_optional(&mut self, optional: bool) {
        self.end_byte_optional = optional;
    }

    /// The dictionary size this decoder was set up for.
    pub fn dict_size(&self) -> u32 {
        self.dict_size
    }

    /// Total bytes produced since creation or the last reset.
    pub fn total_out(&self) -> u64 {
        self.produced
    }

    /// Decodes a whole stream of `unpacked` bytes, from its first chunk
    /// (a dictionary reset) to its end byte or the end of `input` between
    /// two chunks, into a buffer leased from the pool that serves as the
    /// window: with no window to wrap around, nothing is copied out of it.
    /// Returns the bytes decoded, and the error that stopped decoding after
    /// them (as [`decode`](Decode::decode) would deliver them). Input that
    /// decodes to more than `unpacked` bytes is [`LzmaError::Corrupt`];
    /// input that ends inside a chunk is [`LzmaError::Truncated`].
    ///
    /// For the multi-threaded decoder's workers: a segment's size is known
    /// before it is decoded, and its output is wanted in one piece.
    pub(crate) fn decode_whole(
        &mut self,
        input: &[u8],
        unpacked: u64,
    ) -> (Lease<u8>, Option<LzmaError>) {
        // Room for a match copy's overrun past the last byte: the window
        // never reaches its end, so it never wraps.
        let len = usize::try_from(unpacked)
            .unwrap_or(usize::MAX)
            .saturating_add(WINDOW_SLACK);
        let flat = self.pool.lease_any(len);
        let own = std::mem::replace(&mut self.window.buf, flat);
        self.window.reset();
        let limits = self.limits;
        self.limits.output = self.produced.saturating_add(unpacked);
        self.flat = true;
        let mut input = InBuf::new(input);
        let mut none = OutBuf::new(&mut []);
        let error = loop {
            let before = (input.pos(), self.produced);
            match self.decode(&mut input, &mut none) {
                // More than the chunk headers said (the output limit).
                Err(LzmaError::Limit(_)) => break Some(LzmaError::Corrupt),
                Err(e) => break Some(e),
                Ok(Progress::StreamEnd) if input.is_empty() => break None,
                // Input that ends between chunks ends the stream (it was
                // cut at a dictionary reset). Inside a chunk it was cut
                // short: told that the input ended, the decoder delivers
                // what the bytes determine and says so.
                Ok(Progress::NeedInput) if input.is_empty() => {
                    if matches!(self.phase, Phase::Control) {
                        break None;
                    }
                    input = InBuf::last(&[]);
                }
                // Bytes after the end byte, or a decoder stuck for room.
                Ok(_) if (input.pos(), self.produced) == before => break Some(LzmaError::Corrupt),
                Ok(_) => {}
            }
        };
        self.flat = false;
        self.limits = limits;
        let mut out = std::mem::replace(&mut self.window.buf, own);
        out.truncate(self.window.pos);
        self.window.reset();
        (out, error)
    }

    /// Hands the bytes decoded at `start..` to `output`, unless the
    /// window is the output.
    #[inline]
    fn deliver(&mut self, output: &mut OutBuf<'_>, start: usize) -> usize {
        let produced = self.window.since(start);
        if !self.flat {
            output.push(produced);
        }
        let k = produced.len();
        self.produced += k as u64;
        k
    }

    fn step(
        &mut self,
        input: &mut InBuf<'_>,
        output: &mut OutBuf<'_>,
    ) -> Result<Progress, LzmaError> {
        let mut budget = if self.flat {
            usize::MAX
        } else {
            self.batch.min(output.available())
        };
        loop {
            match self.phase {
                Phase::End => return Ok(Progress::StreamEnd),
                Phase::Failed(ref e) => return Err(e.clone()),
                Phase::Control => {
                    let Some(control) = input.take_byte() else {
                        if self.end_byte_optional && input.is_last() {
                            self.phase = Phase::End;
                            continue;
                        }
                        return need_input(input);
                    };
                    self.control(control)?;
                }
                Phase::Header {
                    control,
                    mut have,
                    need,
                } => {
                    let got = input.take(need - have);
                    self.header[have..have + got.len()].copy_from_slice(got);
                    have += got.len();
                    if have < need {
                        self.phase = Phase::Header {
                            control,
                            have,
                            need,
                        };
                        return need_input(input);
                    }
                    self.start_chunk(control)?;
                }
                Phase::Uncompressed { left } => {
                    if left == 0 {
                        self.phase = Phase::Control;
                        continue;
                    }
                    let n = self.budget(budget, left)?;
                    if n == 0 {
                        return Ok(Progress::OutputFull);
                    }
                    let n = n.min(input.len());
                    if n == 0 {
                        return need_input(input);
                    }
                    let start = self.window.pos;
                    self.window.write(input.take(n));
                    budget -= self.deliver(output, start);
                    self.phase = Phase::Uncompressed { left: left - n };
                }
                Phase::Lzma {
                    unpacked_left,
                    packed_left,
                    started,
                } => {
                    if unpacked_left == 0 {
                        self.finish_chunk(packed_left)?;
                        self.phase = Phase::Control;
                        continue;
                    }
                    // Make the rest of the chunk contiguous in memory.
                    let buffered = self.chunk.as_ref().map_or(0, |c| c.len() - self.chunk_pos);
                    if (buffered > 0 || input.len() < packed_left) && packed_left > 0 {
                        let chunk = self.chunk.get_or_insert_with(|| self.pool.lease(CHUNK_MAX));
                        if self.chunk_pos > 0 {
                            chunk.drain(..self.chunk_pos);
                            self.chunk_pos = 0;
                        }
                        let got = input.take(packed_left);
                        chunk.extend_from_slice(got);
                        let packed_left = packed_left - got.len();
                        self.phase = Phase::Lzma {
                            unpacked_left,
                            packed_left,
                            started,
                        };
                        if packed_left > 0 {
                            if !input.is_last() {
                                if self.low_latency {
                                    let n = self.budget(budget, unpacked_left)?;
                                    if n == 0 {
                                        return Ok(Progress::OutputFull);
                                    }
                                    self.partial_run(output, n, started, false)?;
                                }
                                return Ok(Progress::NeedInput);
                            }
                            // The input ends inside this chunk: deliver
                            // every byte its buffered part determines, then
                            // report the truncation.
                            let n = self.budget(budget, unpacked_left)?;
                            if n == 0 {
                                return Ok(Progress::OutputFull);
                            }
                            budget -= self.partial_run(output, n, started, true)?;
                            continue;
                        }
                    }
                    let n = self.budget(budget, unpacked_left)?;
                    if n == 0 {
                        return Ok(Progress::OutputFull);
                    }
                    let Phase::Lzma { packed_left, .. } = self.phase else {
                        unreachable!("phase set above")
                    };
                    let n = self.lzma_run(input, output, n, packed_left, started)?;
                    budget -= n;
                }
            }
        }
    }

    /// Bytes that may be produced next: the batch, the output space, the
    /// window's contiguous room, the chunk and the output limit allow.
    fn budget(&mut self, budget: usize, left: usize) -> Result<usize, LzmaError> {
        if budget == 0 {
            return Ok(0);
        }
        if self.produced >= self.limits.output {
            self.limits.check_output(self.produced + 1)?;
        }
        let limit_left = usize::try_from(self.limits.output - self.produced).unwrap_or(usize::MAX);
        Ok(budget.min(left).min(limit_left).min(self.window.room()))
    }

    /// Decodes up to `n` bytes of the current LZMA chunk, whose remaining
    /// compressed bytes are either all buffered or all in `input`.
    fn lzma_run(
        &mut self,
        input: &mut InBuf<'_>,
        output: &mut OutBuf<'_>,
        n: usize,
        packed_left: usize,
        started: bool,
    ) -> Result<usize, LzmaError> {
        let Phase::Lzma { unpacked_left, .. } = self.phase else {
            unreachable!("only called for LZMA chunks")
        };
        let from_buffer = self
            .chunk
            .as_ref()
            .is_some_and(|c| c.len() > self.chunk_pos);
        let data: &[u8] = if from_buffer {
            &self.chunk.as_ref().expect("checked")[self.chunk_pos..]
        } else {
            &input.remaining()[..packed_left]
        };
        let mut rc = if started {
            RangeDecoder::resume(self.range, self.code, data)
        } else {
            RangeDecoder::init(data).ok_or(LzmaError::BadRangeCoderInit)?
        };
        let start = self.window.pos;
        let end = data.len();
        let stop = self
            .core
            .run(&mut rc, &mut self.window, start + n, end, end, usize::MAX);
        let used = rc.pos.min(end);
        self.range = rc.range;
        self.code = rc.code;
        // Deliver what was decoded, even before an error.
        let k = self.deliver(output, start);
        match stop? {
            Stop::EndMarker => return Err(LzmaError::UnexpectedEndMarker),
            Stop::Input => return Err(LzmaError::ChunkSizeMismatch),
            Stop::Limit => {}
        }
        if from_buffer {
            self.chunk_pos += used;
            if let Some(c) = &mut self.chunk {
                if self.chunk_pos == c.len() {
                    c.clear();
                    self.chunk_pos = 0;
                }
            }
        } else {
            input.advance(used);
        }
        self.phase = Phase::Lzma {
            unpacked_left: unpacked_left - k,
            packed_left: if from_buffer { 0 } else { packed_left - used },
            started: true,
        };
        Ok(k)
    }

    /// Decodes up to `n` bytes from the part of the current chunk that has
    /// arrived (all of it buffered): with `ended`, the input stops there
    /// and the symbols xz would deliver are decoded, then the truncation
    /// is reported; without, more will come (low latency) and decoding
    /// stops where it can resume.
    fn partial_run(
        &mut self,
        output: &mut OutBuf<'_>,
        n: usize,
        started: bool,
        ended: bool,
    ) -> Result<usize, LzmaError> {
        let Phase::Lzma {
            unpacked_left,
            packed_left,
            ..
        } = self.phase
        else {
            unreachable!("only called for LZMA chunks")
        };
        let chunk = self.chunk.as_ref().expect("a partial chunk is buffered");
        let mut data = &chunk[self.chunk_pos..];
        let (range, code) = if started {
            (self.range, self.code)
        } else {
            let Some(init) = data.get(..INIT_BYTES) else {
                return if ended {
                    Err(LzmaError::Truncated)
                } else {
                    Ok(0)
                };
            };
            let init: [u8; INIT_BYTES] = init.try_into().expect("five bytes");
            data = &data[INIT_BYTES..];
            self.chunk_pos += INIT_BYTES;
            RangeDecoder::init_state(init).ok_or(LzmaError::BadRangeCoderInit)?
        };
        let partial = match (ended, self.tail_exhausted) {
            (false, _) => Partial::Arriving,
            (true, false) => Partial::Ended,
            (true, true) => Partial::Exhausted,
        };
        let start = self.window.pos;
        let (stop, range, code, used, exhausted) =
            self.core
                .decode_partial(range, code, data, &mut self.window, start + n, partial);
        self.tail_exhausted = exhausted;
        let k = self.deliver(output, start);
        self.range = range;
        self.code = code;
        self.chunk_pos += used;
        self.phase = Phase::Lzma {
            unpacked_left: unpacked_left - k,
            packed_left,
            started: true,
        };
        match stop? {
            Stop::EndMarker => Err(LzmaError::UnexpectedEndMarker),
            // Output room ran out first: go on next call.
            Stop::Limit if ended && k < unpacked_left => Ok(k),
            // No further symbol can be decoded from what arrived.
            _ if ended => Err(LzmaError::Truncated),
            _ => Ok(k),
        }
    }

    /// Checks that a finished LZMA chunk used exactly its compressed bytes
    /// and left the range coder finished.
    fn finish_chunk(&mut self, packed_left: usize) -> Result<(), LzmaError> {
        let buffered = self.chunk.as_ref().map_or(0, |c| c.len() - self.chunk_pos);
        if packed_left != 0 || buffered != 0 || self.core.pending != 0 || self.code != 0 {
            return Err(LzmaError::ChunkSizeMismatch);
        }
        Ok(())
    }

    /// Interprets a control byte.
    fn control(&mut self, control: u8) -> Result<(), LzmaError> {
        match control {
            0x00 => {
                self.phase = Phase::End;
                return Ok(());
            }
            0x01 | 0x02 => {
                self.phase = Phase::Header {
                    control,
                    have: 0,
                    need: 2,
                }
            }
            0x03..=0x7F => return Err(LzmaError::InvalidControlByte(control)),
            _ => {
                let need = if control >= 0xC0 { 5 } else { 4 };
                self.phase = Phase::Header {
                    control,
                    have: 0,
                    need,
                };
            }
        }
        // A dictionary reset (0x01, 0xE0..) must come first.
        if control == 0x01 || control >= 0xE0 {
            self.need_dict_reset = false;
            // After a dictionary reset the next LZMA chunk must set new
            // properties (as xz requires).
            self.need_props = true;
            if self.flat {
                self.window.reset_history();
            } else {
                self.window.reset();
            }
        } else if self.need_dict_reset {
            return Err(LzmaError::MissingDictReset);
        }
        Ok(())
    }

    /// Sets up a chunk once its header is complete.
    fn start_chunk(&mut self, control: u8) -> Result<(), LzmaError> {
        let h = &self.header;
        if control < 0x80 {
            let size = usize::from(u16::from_be_bytes([h[0], h[1]])) + 1;
            self.phase = Phase::Uncompressed { left: size };
            return Ok(());
        }
        let unpacked =
            (usize::from(control & 0x1F) << 16) + usize::from(u16::from_be_bytes([h[0], h[1]])) + 1;
        let packed = usize::from(u16::from_be_bytes([h[2], h[3]])) + 1;
        if control >= 0xC0 {
            let props = LzmaProps::from_byte(h[4])?.check_lzma2()?;
            self.need_props = false;
            self.core.reset(props);
        } else if self.need_props {
            return Err(LzmaError::MissingProps);
        } else if control >= 0xA0 {
            let props = self.core.props();
            self.core.reset(props);
        }
        self.phase = Phase::Lzma {
            unpacked_left: unpacked,
            packed_left: packed,
            started: false,
        };
        Ok(())
    }
}

impl Decode for Lzma2Decoder {
    type Error = LzmaError;

    fn decode(
        &mut self,
        input: &mut InBuf<'_>,
        output: &mut OutBuf<'_>,
    ) -> Result<Progress, LzmaError> {
        let r = self.step(input, output);
        if let Err(e) = &r {
            if !matches!(self.phase, Phase::Failed(_)) {
                self.phase = Phase::Failed(e.clone());
            }
        }
        r
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Lzma2Encoder, LzmaOptions};

    const DICT: u32 = 1 << 16;

    /// Text-like bytes: words from a small vocabulary, so that both
    /// literals and matches occur.
    fn text(len: usize) -> Vec<u8> {
        let words: [&[u8]; 8] = [
            b"stream ", b"chunk ", b"reset ", b"window ", b"match ", b"the ", b"of ", b"\n",
        ];
        let mut x = 0x9E37_79B9u32;
        let mut out = Vec::with_capacity(len + 8);
        while out.len() < len {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            out.extend_from_slice(words[(x % 8) as usize]);
        }
        out.truncate(len);
        out
    }

    fn compress(data: &[u8]) -> Vec<u8> {
        let mut o = LzmaOptions::preset(1).unwrap();
        o.dict_size = DICT;
        let mut enc = Lzma2Encoder::new(&o).unwrap();
        let mut out = Vec::new();
        lzflow_core::encode_to_end(&mut enc, data, &mut out, &mut [0; 1 << 16]).unwrap();
        out
    }

    fn whole(comp: &[u8], unpacked: usize) -> (Vec<u8>, Option<LzmaError>) {
        let mut dec = Lzma2Decoder::new(DICT, &DecoderOptions::default()).unwrap();
        let (out, e) = dec.decode_whole(comp, unpacked as u64);
        (out.to_vec(), e)
    }

    /// What the one-thread decoder makes of `comp` given all at once.
    fn streamed(comp: &[u8]) -> (Vec<u8>, Option<LzmaError>) {
        let mut dec = Lzma2Decoder::new(DICT, &DecoderOptions::default()).unwrap();
        let mut input = InBuf::last(comp);
        let mut out = Vec::new();
        let mut buf = vec![0; 1 << 16];
        loop {
            let mut output = OutBuf::new(&mut buf);
            let r = dec.decode(&mut input, &mut output);
            out.extend_from_slice(output.written());
            match r {
                Ok(Progress::StreamEnd) => return (out, None),
                Ok(_) => {}
                Err(e) => return (out, Some(e)),
            }
        }
    }

    #[test]
    fn decode_whole_gives_the_stream_in_place_and_says_what_is_wrong() {
        let data = text(200_000);
        let comp = compress(&data);
        let n = data.len();

        // Two streams, the second from its dictionary reset, end byte last.
        let mut two = comp[..comp.len() - 1].to_vec();
        two.extend_from_slice(&comp);
        let (out, e) = whole(&two, 2 * n);
        assert_eq!(e, None);
        assert!(out == [&data[..], &data[..]].concat());
        // Ending between chunks (no end byte) ends the stream.
        let (out, e) = whole(&comp[..comp.len() - 1], n);
        assert_eq!((out == data, e), (true, None));

        // More than declared: Corrupt, after exactly the declared bytes.
        let (out, e) = whole(&comp, n - 1);
        assert_eq!(e, Some(LzmaError::Corrupt));
        assert!(out == data[..n - 1]);
        // A byte after the end byte.
        let mut extra = comp.clone();
        extra.push(0);
        let (out, e) = whole(&extra, n);
        assert_eq!((out == data, e), (true, Some(LzmaError::Corrupt)));

        // Cut inside a chunk, or damaged: the output and the error of the
        // one-thread decoder.
        for cut in [1, 3, comp.len() / 3, comp.len() - 2] {
            let (want, want_e) = streamed(&comp[..cut]);
            assert!(want_e.is_some(), "cut at {cut}");
            let (out, e) = whole(&comp[..cut], n);
            assert_eq!(e, want_e, "cut at {cut}");
            assert!(out == want, "cut at {cut}");
        }
        for at in [7, comp.len() / 2, comp.len() - 30] {
            let mut bad = comp.clone();
            bad[at] ^= 0x10;
            let (want, want_e) = streamed(&bad);
            let (out, e) = whole(&bad, n);
            assert_eq!(e, want_e, "byte {at} damaged");
            assert!(out == want, "byte {at} damaged");
        }
    }
}
