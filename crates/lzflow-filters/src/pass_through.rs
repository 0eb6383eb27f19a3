//! The identity decoder, so a filter chain can run on bytes that are not
//! compressed.

use lzflow_core::{Decode, InBuf, OutBuf, Progress};

use crate::FilterError;

/// A [`Decode`] that copies its input to its output; its stream ends when
/// the last input has been copied.
///
/// `FilterDecoder::new(PassThrough, filters)` undoes a filter chain on raw
/// bytes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PassThrough;

impl Decode for PassThrough {
    type Error = FilterError;

    fn decode(
        &mut self,
        input: &mut InBuf<'_>,
        output: &mut OutBuf<'_>,
    ) -> Result<Progress, FilterError> {
        let n = output.push(input.remaining());
        input.advance(n);
        Ok(if !input.is_empty() {
            Progress::OutputFull
        } else if input.is_last() {
            Progress::StreamEnd
        } else {
            Progress::NeedInput
        })
    }
}
