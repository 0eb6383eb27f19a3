//! The resumable decoders: one symbol loop, [`SymbolDecoder`], for both
//! variants, and var. H's [`Ppmd7Decoder`] over it.

use lzflow_core::{Decode, InBuf, LimitExceeded, OutBuf, Progress, Sticky};

use crate::model::Model;
use crate::range::{RangeDecoder, Source};
use crate::symbol::H;
use crate::variant::{Decoded, Variant};
use crate::{memory_usage, Ppmd7Props, PpmdError};

/// Most bytes produced per call, so that one call's work stays bounded.
const BATCH: usize = 64 << 10;

/// What a variant's stream head starts: the model, the range decoder,
/// and the most bytes one symbol can read.
pub(crate) type Start<V> = (
    Box<<V as Variant>::Model>,
    <V as Variant>::RangeDecoder,
    usize,
);

/// Takes a stream's first bytes into `head` until `len` reaches `upto`:
/// true once it has, false while more input is needed (input marked last
/// makes that truncation).
pub(crate) fn gather(
    head: &mut [u8],
    len: &mut usize,
    upto: usize,
    input: &mut InBuf<'_>,
) -> Result<bool, PpmdError> {
    while *len < upto {
        match input.take_byte() {
            Some(b) => {
                head[*len] = b;
                *len += 1;
            }
            None if input.is_last() => return Err(PpmdError::Truncated),
            None => return Ok(false),
        }
    }
    Ok(true)
}

/// The symbol loop of a resumable PPMd decoder, with what both variants'
/// decoders share: the held input, the end checks, the sticky error.
///
/// A symbol starts only when `symbol_bytes` bytes are at hand (held plus
/// the caller's) or the input is the last, so it never stops halfway;
/// input left over when the loop stops for lack of input is held for the
/// next call.
pub(crate) struct SymbolDecoder<V: Variant> {
    /// The model and range decoder, once the stream's head is read.
    coder: Option<(Box<V::Model>, V::RangeDecoder)>,
    /// Input taken but not yet read by the range decoder.
    held: Vec<u8>,
    held_pos: usize,
    out_size: Option<u64>,
    produced: u64,
    /// Whether the stream may end at the declared size without the end
    /// marker when the code is 0 there.
    marker_optional: bool,
    /// A byte decoded while the output was full (without a size, the next
    /// symbol may be the end marker, which needs no room: it is tried).
    pending: Option<u8>,
    done: bool,
    /// Most bytes one symbol can read.
    symbol_bytes: usize,
    error: Sticky<PpmdError>,
}

/// Why a batch of symbols stopped.
enum Stop {
    OutputFull,
    NeedInput,
    Done,
}

impl<V: Variant> SymbolDecoder<V> {
    pub(crate) fn new(out_size: Option<u64>, marker_optional: bool) -> Self {
        SymbolDecoder {
            coder: None,
            held: Vec::new(),
            held_pos: 0,
            out_size,
            produced: 0,
            marker_optional,
            pending: None,
            done: false,
            symbol_bytes: 0,
            error: Sticky::default(),
        }
    }

    pub(crate) fn set_marker_optional(&mut self, optional: bool) {
        self.marker_optional = optional;
    }

    pub(crate) fn out_size(&self) -> Option<u64> {
        self.out_size
    }

    pub(crate) fn produced(&self) -> u64 {
        self.produced
    }

    pub(crate) fn is_done(&self) -> bool {
        self.done
    }

    /// After the end: input taken that lies beyond the stream. Empty
    /// before.
    pub(crate) fn unused_input(&self) -> &[u8] {
        if self.done {
            &self.held[self.held_pos..]
        } else {
            &[]
        }
    }

    /// One [`Decode::decode`] call. Until the coder is started, `head`
    /// reads the stream's head from the input: `Ok(None)` while it needs
    /// more.
    pub(crate) fn decode(
        &mut self,
        input: &mut InBuf<'_>,
        output: &mut OutBuf<'_>,
        head: impl FnOnce(&mut InBuf<'_>) -> Result<Option<Start<V>>, PpmdError>,
    ) -> Result<Progress, PpmdError> {
        self.error.check()?;
        let r = self.run(input, output, head);
        self.error.record(r)
    }

    fn run(
        &mut self,
        input: &mut InBuf<'_>,
        output: &mut OutBuf<'_>,
        head: impl FnOnce(&mut InBuf<'_>) -> Result<Option<Start<V>>, PpmdError>,
    ) -> Result<Progress, PpmdError> {
        if self.done {
            return Ok(Progress::StreamEnd);
        }
        if self.coder.is_none() {
            let Some((model, rc, symbol_bytes)) = head(input)? else {
                return Ok(Progress::NeedInput);
            };
            self.coder = Some((model, rc));
            self.symbol_bytes = symbol_bytes;
            self.held.reserve(2 * symbol_bytes);
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
        let marker_optional = self.marker_optional;
        // Output full without a size: the next symbol may still be the end.
        let try_end = self.out_size.is_none() && room == output.available();
        let mut pending = None;

        let (model, rc) = self.coder.as_mut().expect("started");
        let model = &mut **model;
        let mut src = Source::new(&self.held[self.held_pos..], input.remaining());
        let spare = output.spare_mut();
        let mut n = 0;
        let stop = loop {
            if to_size == Some(n as u64) {
                if marker_optional && V::code(rc) == 0 {
                    break Ok(Stop::Done);
                }
                // An end marker may (or, strictly, must) follow the data.
                if src.available() < need && !last {
                    break Ok(Stop::NeedInput);
                }
                let d = V::decode(model, rc, &mut src);
                break if src.overrun {
                    Err(PpmdError::Truncated)
                } else if d != Decoded::End && marker_optional {
                    Err(PpmdError::Corrupt(
                        "the data goes on after the declared size",
                    ))
                } else if d != Decoded::End {
                    Err(PpmdError::Corrupt("no end marker at the declared size"))
                } else if V::code(rc) != 0 {
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
            let d = V::decode(model, rc, &mut src);
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
                Decoded::End if V::code(rc) != 0 => {
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
///
/// Without a size, the end marker needs no room: an output that fills up
/// with the last byte still gets [`Progress::StreamEnd`] from the same
/// call.
pub struct Ppmd7Decoder {
    coder: SymbolDecoder<H>,
    props: Ppmd7Props,
    /// The range coder's five first bytes, while they come in.
    init: [u8; 5],
    init_len: usize,
}

impl std::fmt::Debug for Ppmd7Decoder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Ppmd7Decoder")
            .field("props", &self.props)
            .field("out_size", &self.coder.out_size())
            .field("produced", &self.coder.produced())
            .field("done", &self.coder.is_done())
            .finish_non_exhaustive()
    }
}

impl Ppmd7Decoder {
    /// A decoder for a stream of model `order` and `mem_size` bytes of model
    /// memory, producing `out_size` bytes (`None`: up to the end marker).
    ///
    /// Checks the properties and then [`memory_usage`] against
    /// `memory_limit`; the model is allocated when the stream's first
    /// bytes come.
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
        Ok(Ppmd7Decoder {
            // Not 7-Zip's finish: an end marker may follow the data.
            coder: SymbolDecoder::new(out_size, true),
            props,
            init: [0; 5],
            init_len: 0,
        })
    }

    /// The stream's properties.
    pub fn props(&self) -> Ppmd7Props {
        self.props
    }

    /// Bytes produced so far.
    pub fn produced(&self) -> u64 {
        self.coder.produced()
    }

    /// After [`Progress::StreamEnd`]: input the decoder took that lies
    /// beyond the stream (see the type's documentation). Empty before.
    pub fn unused_input(&self) -> &[u8] {
        self.coder.unused_input()
    }
}

impl Decode for Ppmd7Decoder {
    type Error = PpmdError;

    fn decode(
        &mut self,
        input: &mut InBuf<'_>,
        output: &mut OutBuf<'_>,
    ) -> Result<Progress, PpmdError> {
        let (init, init_len, props) = (&mut self.init, &mut self.init_len, self.props);
        self.coder.decode(input, output, |input| {
            if !gather(init, init_len, 5, input)? {
                return Ok(None);
            }
            let rc = RangeDecoder::new(*init).ok_or(PpmdError::Corrupt(
                "the range coder's first bytes are invalid",
            ))?;
            let model = Model::new(u32::from(props.order), props.mem_size);
            Ok(Some((model, rc, 2 * (usize::from(props.order) + 2))))
        })
    }

    /// [`unused_input`](Self::unused_input)'s length.
    fn unused_after_end(&self) -> usize {
        self.coder.unused_input().len()
    }
}
