//! The resumable encoder of zip's PPMd (method 98).

use lzflow_core::{Encode, InBuf, OutBuf, Progress};

use super::model::Model;
use super::props::Ppmd8Props;
use super::range::RangeEncoder;
use super::symbol::I;
use crate::encoder::SymbolEncoder;
use crate::PpmdError;

/// A resumable encoder of PPMd var. I rev. 1 as zip stores it (method 98),
/// byte for byte what 7-Zip writes: the 2 property bytes, the range-coded
/// symbols, and on [`Encode::finish`] the end marker and the range coder's
/// last 4 bytes.
///
/// [`Encode::flush`] writes out what is pending but cannot make the data so
/// far decodable on its own: the format has no flush point.
pub struct Ppmd8Encoder {
    coder: SymbolEncoder<I>,
    props: Ppmd8Props,
}

impl std::fmt::Debug for Ppmd8Encoder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Ppmd8Encoder")
            .field("props", &self.props)
            .field("end_marker", &self.coder.end_marker())
            .field("finished", &self.coder.is_finished())
            .finish_non_exhaustive()
    }
}

impl Ppmd8Encoder {
    /// An encoder with the given properties, which allocates the model
    /// memory (see [`ppmd8_memory_usage`](crate::ppmd8_memory_usage)).
    pub fn new(props: Ppmd8Props) -> Result<Self, PpmdError> {
        let props = Ppmd8Props::new(props.order, props.mem_mib, props.restore)?;
        let mut rc = RangeEncoder::new();
        // The properties lead the stream.
        rc.out.extend_from_slice(&props.to_bytes());
        let model = Model::new(u32::from(props.order), props.mem_size(), props.restore);
        Ok(Ppmd8Encoder {
            coder: SymbolEncoder::new(model, rc, true),
            props,
        })
    }

    /// Whether [`Encode::finish`] writes the end marker (default: yes, as
    /// 7-Zip's zip encoder; a stream without it needs its size known and
    /// [`Ppmd8Decoder::allow_missing_end_marker`](crate::Ppmd8Decoder::allow_missing_end_marker)).
    pub fn with_end_marker(mut self, end_marker: bool) -> Self {
        self.coder.set_end_marker(end_marker);
        self
    }

    /// The properties, as the stream's first 2 bytes store them.
    pub fn props(&self) -> Ppmd8Props {
        self.props
    }
}

impl Encode for Ppmd8Encoder {
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
