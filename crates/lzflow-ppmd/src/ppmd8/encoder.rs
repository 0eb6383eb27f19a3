//! The resumable encoder of zip's PPMd (method 98).

use lzflow_core::{Encode, InBuf, OutBuf, Progress, Sticky};

use super::model::Model;
use super::props::Ppmd8Props;
use super::range::RangeEncoder;
use super::symbol;
use crate::PpmdError;

/// Most input bytes coded per call, so that one call's work stays bounded.
const BATCH: usize = 64 << 10;
/// Input bytes coded between two drains of the pending output.
const CHUNK: usize = 4 << 10;

/// A resumable encoder of PPMd var. I rev. 1 as zip stores it (method 98),
/// byte for byte what 7-Zip writes: the 2 property bytes, the range-coded
/// symbols, and on [`Encode::finish`] the end marker and the range coder's
/// last 4 bytes.
///
/// [`Encode::flush`] writes out what is pending but cannot make the data so
/// far decodable on its own: the format has no flush point.
pub struct Ppmd8Encoder {
    model: Box<Model>,
    rc: RangeEncoder,
    /// How much of `rc.out` is already in the caller's output.
    drained: usize,
    props: Ppmd8Props,
    end_marker: bool,
    finished: bool,
    error: Sticky<PpmdError>,
}

impl std::fmt::Debug for Ppmd8Encoder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Ppmd8Encoder")
            .field("props", &self.props)
            .field("end_marker", &self.end_marker)
            .field("finished", &self.finished)
            .finish_non_exhaustive()
    }
}

impl Ppmd8Encoder {
    /// An encoder with the given properties, which allocates the model
    /// memory (see [`ppmd8_memory_usage`](crate::ppmd8_memory_usage)).
    pub fn new(props: Ppmd8Props) -> Result<Self, PpmdError> {
        let props = Ppmd8Props::new(props.order, props.mem_mib, props.restore)?;
        let mut rc = RangeEncoder::new();
        rc.out.extend_from_slice(&props.to_bytes());
        Ok(Ppmd8Encoder {
            model: Model::new(u32::from(props.order), props.mem_size(), props.restore),
            rc,
            drained: 0,
            props,
            end_marker: true,
            finished: false,
            error: Sticky::default(),
        })
    }

    /// Whether [`Encode::finish`] writes the end marker (default: yes, as
    /// 7-Zip's zip encoder; a stream without it needs its size known and
    /// [`Ppmd8Decoder::allow_missing_end_marker`](crate::Ppmd8Decoder::allow_missing_end_marker)).
    pub fn with_end_marker(mut self, end_marker: bool) -> Self {
        self.end_marker = end_marker;
        self
    }

    /// The properties, as the stream's first 2 bytes store them.
    pub fn props(&self) -> Ppmd8Props {
        self.props
    }

    /// Moves pending bytes to `output`; true when none are left.
    fn drain(&mut self, output: &mut OutBuf<'_>) -> bool {
        self.drained += output.push(&self.rc.out[self.drained..]);
        if self.drained < self.rc.out.len() {
            return false;
        }
        self.rc.out.clear();
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
                symbol::encode(&mut self.model, &mut self.rc, Some(b));
            }
        }
    }
}

impl Encode for Ppmd8Encoder {
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
                symbol::encode(&mut self.model, &mut self.rc, None);
            }
            self.rc.flush();
            self.finished = true;
        }
        Ok(if self.drain(output) {
            Progress::StreamEnd
        } else {
            Progress::OutputFull
        })
    }
}
