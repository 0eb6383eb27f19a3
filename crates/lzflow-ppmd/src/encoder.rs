//! The resumable encoders: one driver, [`SymbolEncoder`], for both
//! variants, and var. H's [`Ppmd7Encoder`] over it.

use lzflow_core::{Encode, InBuf, OutBuf, Progress, Sticky};

use crate::model::Model;
use crate::range::RangeEncoder;
use crate::symbol::H;
use crate::variant::Variant;
use crate::{Ppmd7Props, PpmdError};

/// Most input bytes coded per call, so that one call's work stays bounded.
const BATCH: usize = 64 << 10;
/// Input bytes coded between two drains of the pending output, which
/// keeps that buffer small.
const CHUNK: usize = 4 << 10;

/// What both variants' encoders share: coding the input in bounded
/// batches, draining the range coder's bytes, the end marker and the last
/// bytes on finish, the sticky error.
pub(crate) struct SymbolEncoder<V: Variant> {
    model: Box<V::Model>,
    rc: V::RangeEncoder,
    /// How much of the range coder's pending bytes is already in the
    /// caller's output.
    drained: usize,
    end_marker: bool,
    finished: bool,
    error: Sticky<PpmdError>,
}

impl<V: Variant> SymbolEncoder<V> {
    pub(crate) fn new(model: Box<V::Model>, rc: V::RangeEncoder, end_marker: bool) -> Self {
        SymbolEncoder {
            model,
            rc,
            drained: 0,
            end_marker,
            finished: false,
            error: Sticky::default(),
        }
    }

    pub(crate) fn set_end_marker(&mut self, end_marker: bool) {
        self.end_marker = end_marker;
    }

    pub(crate) fn end_marker(&self) -> bool {
        self.end_marker
    }

    pub(crate) fn is_finished(&self) -> bool {
        self.finished
    }

    /// Moves pending bytes to `output`; true when none are left.
    fn drain(&mut self, output: &mut OutBuf<'_>) -> bool {
        let pending = V::pending(&mut self.rc);
        self.drained += output.push(&pending[self.drained..]);
        if self.drained < pending.len() {
            return false;
        }
        pending.clear();
        self.drained = 0;
        true
    }

    fn run_encode(
        &mut self,
        input: &mut InBuf<'_>,
        output: &mut OutBuf<'_>,
    ) -> Result<Progress, PpmdError> {
        if self.finished {
            return Err(PpmdError::Usage("encode() called after finish()"));
        }
        let mut budget = BATCH;
        loop {
            if !self.drain(output) {
                return Ok(Progress::OutputFull);
            }
            if input.is_empty() {
                return Ok(Progress::NeedInput);
            }
            if budget == 0 {
                return Ok(Progress::OutputFull);
            }
            let chunk = input.take(budget.min(CHUNK));
            budget -= chunk.len();
            for &b in chunk {
                V::encode(&mut self.model, &mut self.rc, Some(b));
            }
        }
    }
}

impl<V: Variant> Encode for SymbolEncoder<V> {
    type Error = PpmdError;

    fn encode(
        &mut self,
        input: &mut InBuf<'_>,
        output: &mut OutBuf<'_>,
    ) -> Result<Progress, PpmdError> {
        self.error.check()?;
        let r = self.run_encode(input, output);
        self.error.record(r)
    }

    fn flush(&mut self, output: &mut OutBuf<'_>) -> Result<Progress, PpmdError> {
        self.error.check()?;
        Ok(if self.drain(output) {
            Progress::NeedInput
        } else {
            Progress::OutputFull
        })
    }

    fn finish(&mut self, output: &mut OutBuf<'_>) -> Result<Progress, PpmdError> {
        self.error.check()?;
        if !self.finished {
            if self.end_marker {
                V::encode(&mut self.model, &mut self.rc, None);
            }
            V::flush(&mut self.rc);
            self.finished = true;
        }
        Ok(if self.drain(output) {
            Progress::StreamEnd
        } else {
            Progress::OutputFull
        })
    }
}

/// A resumable encoder of PPMd var. H with 7z's range coder (7z method
/// 030401), byte for byte what 7-Zip writes for the same order and memory
/// size.
///
/// As 7-Zip, it writes no end marker unless asked
/// ([`with_end_marker`](Self::with_end_marker)): 7z stores the size.
///
/// [`Encode::flush`] writes out what is pending but cannot make the data so
/// far decodable on its own: the range coder's last bytes come only with
/// [`Encode::finish`] (the format has no flush point).
pub struct Ppmd7Encoder {
    coder: SymbolEncoder<H>,
    props: Ppmd7Props,
}

impl std::fmt::Debug for Ppmd7Encoder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Ppmd7Encoder")
            .field("props", &self.props)
            .field("end_marker", &self.coder.end_marker())
            .field("finished", &self.coder.is_finished())
            .finish_non_exhaustive()
    }
}

impl Ppmd7Encoder {
    /// An encoder with model `order` (2..=64) and `mem_size` bytes of model
    /// memory (2 KiB ..= 4 GiB - 37), which it allocates; see
    /// [`memory_usage`](crate::memory_usage).
    pub fn new(order: u8, mem_size: u32) -> Result<Self, PpmdError> {
        Self::with_props(Ppmd7Props::new(order, mem_size)?)
    }

    /// [`new`](Self::new) from properties.
    pub fn with_props(props: Ppmd7Props) -> Result<Self, PpmdError> {
        let props = Ppmd7Props::new(props.order, props.mem_size)?;
        let model = Model::new(u32::from(props.order), props.mem_size);
        Ok(Ppmd7Encoder {
            coder: SymbolEncoder::new(model, RangeEncoder::new(), false),
            props,
        })
    }

    /// Whether [`Encode::finish`] writes the end marker (default: no).
    pub fn with_end_marker(mut self, end_marker: bool) -> Self {
        self.coder.set_end_marker(end_marker);
        self
    }

    /// The properties, as a 7z header stores them with
    /// [`Ppmd7Props::to_bytes`].
    pub fn props(&self) -> Ppmd7Props {
        self.props
    }
}

impl Encode for Ppmd7Encoder {
    type Error = PpmdError;

    fn encode(
        &mut self,
        input: &mut InBuf<'_>,
        output: &mut OutBuf<'_>,
    ) -> Result<Progress, PpmdError> {
        self.coder.encode(input, output)
    }

    fn flush(&mut self, output: &mut OutBuf<'_>) -> Result<Progress, PpmdError> {
        self.coder.flush(output)
    }

    fn finish(&mut self, output: &mut OutBuf<'_>) -> Result<Progress, PpmdError> {
        self.coder.finish(output)
    }
}
