//! The resumable decoder of zip's PPMd (method 98).

use lzflow_core::{Decode, InBuf, LimitExceeded, OutBuf, Progress};

use super::model::Model;
use super::props::{ppmd8_memory_usage, Ppmd8Props};
use super::range::{RangeDecoder, MAX_NORM_BYTES};
use super::symbol::I;
use crate::decoder::{gather, Start, SymbolDecoder};
use crate::PpmdError;

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
    coder: SymbolDecoder<I>,
    props: Option<Ppmd8Props>,
    memory_limit: u64,
    /// The property bytes and then the range coder's four first bytes,
    /// while they come in.
    head: [u8; 6],
    head_len: usize,
}

impl std::fmt::Debug for Ppmd8Decoder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Ppmd8Decoder")
            .field("props", &self.props)
            .field("out_size", &self.coder.out_size())
            .field("produced", &self.coder.produced())
            .field("done", &self.coder.is_done())
            .finish_non_exhaustive()
    }
}

impl Ppmd8Decoder {
    /// A decoder of a zip PPMd entry's data (properties included) that
    /// produces `out_size` bytes (`None`: up to the end marker). The model
    /// memory the properties ask for is checked against `memory_limit`
    /// (with [`ppmd8_memory_usage`]) before it is allocated; passing it is
    /// a [`PpmdError::Limit`] error from [`Decode::decode`].
    pub fn new(out_size: Option<u64>, memory_limit: u64) -> Self {
        Ppmd8Decoder {
            coder: SymbolDecoder::new(out_size, false),
            props: None,
            memory_limit,
            head: [0; 6],
            head_len: 0,
        }
    }

    /// Whether a stream may stop at the known size without the end marker
    /// if the range decoder's code is 0 there (default: no, as 7-Zip).
    pub fn allow_missing_end_marker(mut self, allow: bool) -> Self {
        self.coder.set_marker_optional(allow);
        self
    }

    /// The stream's properties, once read.
    pub fn props(&self) -> Option<Ppmd8Props> {
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

/// Reads the properties and the range coder's start into `head`; checks
/// the memory the properties ask for before allocating the model.
fn read_head(
    head: &mut [u8; 6],
    head_len: &mut usize,
    props: &mut Option<Ppmd8Props>,
    memory_limit: u64,
    input: &mut InBuf<'_>,
) -> Result<Option<Start<I>>, PpmdError> {
    if !gather(head, head_len, 2, input)? {
        return Ok(None);
    }
    let p = match *props {
        Some(p) => p,
        None => {
            let p = Ppmd8Props::parse([head[0], head[1]])?;
            let needed = ppmd8_memory_usage(&p);
            if needed > memory_limit {
                return Err(PpmdError::Limit(LimitExceeded::Memory {
                    needed,
                    limit: memory_limit,
                }));
            }
            *props = Some(p);
            p
        }
    };
    if !gather(head, head_len, 6, input)? {
        return Ok(None);
    }
    let rc = RangeDecoder::new([head[2], head[3], head[4], head[5]]).ok_or(PpmdError::Corrupt(
        "the range coder's first bytes are invalid",
    ))?;
    let model = Model::new(u32::from(p.order), p.mem_size(), p.restore);
    Ok(Some((
        model,
        rc,
        MAX_NORM_BYTES * (usize::from(p.order) + 2),
    )))
}

impl Decode for Ppmd8Decoder {
    type Error = PpmdError;

    fn decode(
        &mut self,
        input: &mut InBuf<'_>,
        output: &mut OutBuf<'_>,
    ) -> Result<Progress, PpmdError> {
        let (head, head_len, props) = (&mut self.head, &mut self.head_len, &mut self.props);
        let limit = self.memory_limit;
        self.coder.decode(input, output, |input| {
            read_head(head, head_len, props, limit, input)
        })
    }

    /// [`unused_input`](Self::unused_input)'s length.
    fn unused_after_end(&self) -> usize {
        self.coder.unused_input().len()
    }
}
