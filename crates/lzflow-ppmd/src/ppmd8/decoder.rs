//! The resumable decoder of zip's PPMd (method 98).

use lzflow_core::{Decode, InBuf, LimitExceeded, OutBuf, Progress, Sticky};

use super::model::Model;
use super::props::{ppmd8_memory_usage, Ppmd8Props};
use super::range::{RangeDecoder, MAX_NORM_BYTES};
use super::symbol::{self, Decoded};
use crate::range::Source;
use crate::PpmdError;

/// Most bytes produced per call, so that one call's work stays bounded.
const BATCH: usize = 64 << 10;

/// A resumable decoder of PPMd var. I rev. 1 as zip stores it (method 98):
/// the 2 property bytes ([`Ppmd8Props`]), then the range-coded symbols and
/// the end marker.
///
/// # Ends and sizes
/// As 7-Zip when it extracts a zip entry: the stream must end with the end
/// marker and the range decoder's code at 0, also when the size is known
/// (7-Zip's zip encoder always writes the marker). With a size
/// ([`new`](Self::new)'s `out_size`) the marker must come right at that
/// size; without one the data goes up to the marker.
/// [`allow_missing_end_marker`](Self::allow_missing_end_marker) accepts
/// streams that stop at the known size without the marker when the code is
/// 0 there (7-Zip would not).
///
/// # Resuming without rollback
/// One symbol reads at most `4 * (order + 2)` range-coder bytes (at most 4
/// per normalisation, one normalisation after the escape from each context
/// on the way down and one after the symbol). The decoder starts a symbol
/// only with that many bytes at hand (held plus the caller's) or with the
/// input marked last, so a symbol never stops halfway; input left over when
/// it stops for lack of input is taken and held for the next call. So it
/// may take up to `4 * (order + 2) - 1` bytes beyond the stream's end;
/// after [`Progress::StreamEnd`], [`unused_input`](Self::unused_input)
/// gives them back.
pub struct Ppmd8Decoder {
    model: Option<Box<Model>>,
    rc: RangeDecoder,
    props: Option<Ppmd8Props>,
    memory_limit: u64,
    /// The property bytes and then the range coder's four first bytes,
    /// while they come in.
    head: [u8; 6],
    head_len: usize,
    /// Input taken but not yet read by the range decoder.
    held: Vec<u8>,
    held_pos: usize,
    out_size: Option<u64>,
    produced: u64,
    lenient_end: bool,
    /// A byte decoded while the output was full (without a size, the next
    /// symbol may be the end marker, which needs no room: it is tried).
    pending: Option<u8>,
    done: bool,
    /// Most bytes one symbol can read.
    symbol_bytes: usize,
    error: Sticky<PpmdError>,
}

impl std::fmt::Debug for Ppmd8Decoder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Ppmd8Decoder")
            .field("props", &self.props)
            .field("out_size", &self.out_size)
            .field("produced", &self.produced)
            .field("done", &self.done)
            .finish_non_exhaustive()
    }
}

/// Why a batch of symbols stopped.
enum Stop {
    OutputFull,
    NeedInput,
    Done,
}

impl Ppmd8Decoder {
    /// A decoder of a zip PPMd entry's data (properties included) that
    /// produces `out_size` bytes (`None`: up to the end marker). The model
    /// memory the properties ask for is checked against `memory_limit`
    /// (with [`ppmd8_memory_usage`]) before it is allocated; passing it is
    /// a [`PpmdError::Limit`] error from [`Decode::decode`].
    pub fn new(out_size: Option<u64>, memory_limit: u64) -> Self {
        Ppmd8Decoder {
            model: None,
            rc: RangeDecoder::new([0; 4]).expect("a valid start"),
            props: None,
            memory_limit,
            head: [0; 6],
            head_len: 0,
            held: Vec::new(),
            held_pos: 0,
            out_size,
            produced: 0,
            lenient_end: false,
            pending: None,
            done: false,
            symbol_bytes: 0,
            error: Sticky::default(),
        }
    }

    /// Whether a stream may stop at the known size without the end marker
    /// if the range decoder's code is 0 there (default: no, as 7-Zip).
    pub fn allow_missing_end_marker(mut self, allow: bool) -> Self {
        self.lenient_end = allow;
        self
    }

    /// The stream's properties, once read.
    pub fn props(&self) -> Option<Ppmd8Props> {
        self.props
    }

    /// Bytes produced so far.
    pub fn produced(&self) -> u64 {
        self.produced
    }

    /// After [`Progress::StreamEnd`]: input the decoder took that lies
    /// beyond the stream (see the type's documentation). Empty before.
    pub fn unused_input(&self) -> &[u8] {
        if self.done {
            &self.held[self.held_pos..]
        } else {
            &[]
        }
    }

    /// Reads the properties and the range coder's start; false when more
    /// input is needed.
    fn start(&mut self, input: &mut InBuf<'_>) -> Result<bool, PpmdError> {
        while self.head_len < 6 {
            match input.take_byte() {
                Some(b) => {
                    self.head[self.head_len] = b;
                    self.head_len += 1;
                }
                None if input.is_last() => return Err(PpmdError::Truncated),
                None => return Ok(false),
            }
            if self.head_len == 2 {
                let props = Ppmd8Props::parse([self.head[0], self.head[1]])?;
                let needed = ppmd8_memory_usage(&props);
                if needed > self.memory_limit {
                    return Err(PpmdError::Limit(LimitExceeded::Memory {
                        needed,
                        limit: self.memory_limit,
                    }));
                }
                self.props = Some(props);
            }
        }
        let props = self.props.expect("read with the first two bytes");
        let init = [self.head[2], self.head[3], self.head[4], self.head[5]];
        self.rc = RangeDecoder::new(init).ok_or(PpmdError::Corrupt(
            "the range coder's first bytes are invalid",
        ))?;
        self.model = Some(Model::new(
            u32::from(props.order),
            props.mem_size(),
            props.restore,
        ));
        self.symbol_bytes = MAX_NORM_BYTES * (usize::from(props.order) + 2);
        self.held.reserve(2 * self.symbol_bytes);
        Ok(true)
    }

    fn run(
        &mut self,
        input: &mut InBuf<'_>,
        output: &mut OutBuf<'_>,
    ) -> Result<Progress, PpmdError> {
        if self.done {
            return Ok(Progress::StreamEnd);
        }
        if self.model.is_none() && !self.start(input)? {
            return Ok(Progress::NeedInput);
        }
        if let Some(b) = self.pending {
            if !output.push_byte(b) {
                return Ok(Progress::OutputFull);
            }
            self.pending = None;
            self.produced += 1;
        }

        let last = input.is_last();
        let need = self.symbol_bytes;
        let room = output.available().min(BATCH);
        let to_size = self.out_size.map(|size| size - self.produced);
        let room = match to_size {
            Some(rest) => room.min(usize::try_from(rest).unwrap_or(usize::MAX)),
            None => room,
        };
        let lenient = self.lenient_end;
        // Output full without a size: the next symbol may still be the end.
        let try_end = self.out_size.is_none() && room == output.available();
        let mut pending = None;

        let model = self.model.as_deref_mut().expect("started");
        let rc = &mut self.rc;
        let mut src = Source::new(&self.held[self.held_pos..], input.remaining());
        let spare = output.spare_mut();
        let mut n = 0;
        let stop = loop {
            if to_size == Some(n as u64) {
                if lenient && rc.code == 0 {
                    break Ok(Stop::Done);
                }
                // 7-Zip's finish: the end marker follows the data.
                if src.available() < need && !last {
                    break Ok(Stop::NeedInput);
                }
                let d = symbol::decode(model, rc, &mut src);
                break if src.overrun {
                    Err(PpmdError::Truncated)
                } else if d != Decoded::End {
                    Err(PpmdError::Corrupt("no end marker at the declared size"))
                } else if rc.code != 0 {
                    Err(PpmdError::Corrupt("the range decoder does not end at 0"))
                } else {
                    Ok(Stop::Done)
                };
            }
            if n == room && !try_end {
                break Ok(Stop::OutputFull);
            }
            if src.available() < need && !last {
                break Ok(Stop::NeedInput);
            }
            let d = symbol::decode(model, rc, &mut src);
            if src.overrun {
                break Err(PpmdError::Truncated);
            }
            match d {
                Decoded::Byte(b) if n == room => {
                    pending = Some(b);
                    break Ok(Stop::OutputFull);
                }
                Decoded::Byte(b) => {
                    spare[n] = b;
                    n += 1;
                }
                Decoded::End if self.out_size.is_some() => {
                    break Err(PpmdError::Corrupt("end marker before the declared size"))
                }
                Decoded::End if rc.code != 0 => {
                    break Err(PpmdError::Corrupt("the range decoder does not end at 0"))
                }
                Decoded::End => break Ok(Stop::Done),
                Decoded::Error => {
                    break Err(PpmdError::Corrupt("a symbol count outside its context"))
                }
            }
        };
        let (from_held, from_input) = src.used();
        output.advance(n);
        self.produced += n as u64;
        self.held_pos += from_held;
        input.advance(from_input);
        self.pending = pending;

        match stop? {
            Stop::Done => {
                self.done = true;
                Ok(Progress::StreamEnd)
            }
            Stop::OutputFull => Ok(Progress::OutputFull),
            Stop::NeedInput => {
                // Fewer bytes than one symbol may need: hold them.
                self.held.drain(..self.held_pos);
                self.held_pos = 0;
                self.held.extend_from_slice(input.remaining());
                input.advance(input.len());
                Ok(Progress::NeedInput)
            }
        }
    }
}

impl Decode for Ppmd8Decoder {
    type Error = PpmdError;

    fn decode(
        &mut self,
        input: &mut InBuf<'_>,
        output: &mut OutBuf<'_>,
    ) -> Result<Progress, PpmdError> {
        self.error.check()?;
        let r = self.run(input, output);
        self.error.record(r)
    }
}
