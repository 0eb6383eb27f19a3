//! The resumable decoder.

use lzflow_core::{Decode, InBuf, LimitExceeded, OutBuf, Progress, Sticky};

use crate::model::Model;
use crate::range::{RangeDecoder, Source};
use crate::symbol::{self, Decoded};
use crate::{memory_usage, Ppmd7Props, PpmdError};

/// Most bytes produced per call, so that one call's work stays bounded.
const BATCH: usize = 64 << 10;

/// A resumable decoder of PPMd var. H with 7z's range coder (7z method
/// 030401).
///
/// The stream ends either at a known size ([`Ppmd7Decoder::new`]'s
/// `out_size`, as 7z stores it) or, without one, at the end marker.
///
/// # Resuming without rollback
/// One symbol reads a bounded number of range-coder bytes: at most
/// `2 * (order + 2)` (two per normalisation; one normalisation after the
/// escape from each context on the way down, and one after the symbol).
/// The decoder starts a symbol only when it has that many bytes at hand
/// (its own held bytes plus the caller's input) or when the input is the
/// last; so a symbol and its model update always run to completion in one
/// call, and running out in the middle of one can only mean truncation.
/// Input left over when a call stops for lack of input (fewer bytes than
/// the bound) is taken and held for the next call.
///
/// Consequently the decoder may have taken up to `2 * (order + 2) - 1`
/// bytes beyond the stream's end when the caller offered more than the
/// stream in small pieces; after [`Progress::StreamEnd`],
/// [`unused_input`](Self::unused_input) gives them back.
///
/// # End checks
/// As 7-Zip's decoder when it must finish the stream: at the declared size
/// the range decoder's code must be 0. Unlike 7-Zip, if it is not, the
/// decoder also accepts an end marker right there (a stream written with
/// both a size and a marker) and then checks the code again. Without a
/// declared size the stream must end with the end marker and code 0. An
/// end marker before the declared size is corrupt data.
pub struct Ppmd7Decoder {
    model: Box<Model>,
    rc: RangeDecoder,
    props: Ppmd7Props,
    /// The range coder's five first bytes, while they come in.
    init: [u8; 5],
    init_len: usize,
    started: bool,
    /// Input taken but not yet read by the range decoder.
    held: Vec<u8>,
    held_pos: usize,
    out_size: Option<u64>,
    produced: u64,
    done: bool,
    /// Most bytes one symbol can read.
    symbol_bytes: usize,
    error: Sticky<PpmdError>,
}

impl std::fmt::Debug for Ppmd7Decoder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Ppmd7Decoder")
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

impl Ppmd7Decoder {
    /// A decoder for a stream of model `order` and `mem_size` bytes of model
    /// memory, producing `out_size` bytes (`None`: up to the end marker).
    ///
    /// Checks the properties and then [`memory_usage`] against
    /// `memory_limit` before allocating anything.
    pub fn new(
        order: u8,
        mem_size: u32,
        out_size: Option<u64>,
        memory_limit: u64,
    ) -> Result<Self, PpmdError> {
        Self::with_props(Ppmd7Props::new(order, mem_size)?, out_size, memory_limit)
    }

    /// [`new`](Self::new) from parsed properties.
    pub fn with_props(
        props: Ppmd7Props,
        out_size: Option<u64>,
        memory_limit: u64,
    ) -> Result<Self, PpmdError> {
        let props = Ppmd7Props::new(props.order, props.mem_size)?;
        let needed = memory_usage(props.mem_size);
        if needed > memory_limit {
            return Err(PpmdError::Limit(LimitExceeded::Memory {
                needed,
                limit: memory_limit,
            }));
        }
        let symbol_bytes = 2 * (usize::from(props.order) + 2);
        Ok(Ppmd7Decoder {
            model: Model::new(u32::from(props.order), props.mem_size),
            rc: RangeDecoder {
                range: u32::MAX,
                code: 0,
            },
            props,
            init: [0; 5],
            init_len: 0,
            started: false,
            held: Vec::with_capacity(2 * symbol_bytes),
            held_pos: 0,
            out_size,
            produced: 0,
            done: false,
            symbol_bytes,
            error: Sticky::default(),
        })
    }

    /// The stream's properties.
    pub fn props(&self) -> Ppmd7Props {
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

    fn run(
        &mut self,
        input: &mut InBuf<'_>,
        output: &mut OutBuf<'_>,
    ) -> Result<Progress, PpmdError> {
        if self.done {
            return Ok(Progress::StreamEnd);
        }
        if !self.started {
            while self.init_len < 5 {
                match input.take_byte() {
                    Some(b) => {
                        self.init[self.init_len] = b;
                        self.init_len += 1;
                    }
                    None if input.is_last() => return Err(PpmdError::Truncated),
                    None => return Ok(Progress::NeedInput),
                }
            }
            self.rc = RangeDecoder::new(self.init).ok_or(PpmdError::Corrupt(
                "the range coder's first bytes are invalid",
            ))?;
            self.started = true;
        }

        let last = input.is_last();
        let need = self.symbol_bytes;
        let room = output.available().min(BATCH);
        let room = match self.out_size {
            Some(size) => room.min(usize::try_from(size - self.produced).unwrap_or(usize::MAX)),
            None => room,
        };
        let to_size = self.out_size.map(|size| size - self.produced);

        let model = &mut *self.model;
        let rc = &mut self.rc;
        let mut src = Source::new(&self.held[self.held_pos..], input.remaining());
        let spare = output.spare_mut();
        let mut n = 0;
        let stop = loop {
            if to_size == Some(n as u64) {
                if rc.code == 0 {
                    break Ok(Stop::Done);
                }
                // Not 7-Zip's finish: an end marker may follow the data.
                if src.available() < need && !last {
                    break Ok(Stop::NeedInput);
                }
                let d = symbol::decode(model, rc, &mut src);
                break if src.overrun {
                    Err(PpmdError::Truncated)
                } else if d != Decoded::End {
                    Err(PpmdError::Corrupt(
                        "the data goes on after the declared size",
                    ))
                } else if rc.code != 0 {
                    Err(PpmdError::Corrupt("the range decoder does not end at 0"))
                } else {
                    Ok(Stop::Done)
                };
            }
            if n == room {
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

impl Decode for Ppmd7Decoder {
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
