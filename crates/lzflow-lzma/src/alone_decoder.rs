//! The .lzma (LZMA-alone) container decoder.

use lzflow_core::{Decode, InBuf, OutBuf, Progress};

use crate::{DecoderOptions, LzmaError};

/// Decoder for `.lzma` files: a 13-byte header (properties byte, dictionary
/// size u32 LE, uncompressed size u64 LE or all ones) and an LZMA1 stream.
#[derive(Debug)]
pub struct AloneDecoder {
    _p: (),
}

impl AloneDecoder {
    /// A decoder using `opts` for limits and buffers.
    pub fn new(opts: &DecoderOptions) -> Self {
        let _ = opts;
        todo!()
    }
}

impl Decode for AloneDecoder {
    type Error = LzmaError;
    fn decode(&mut self, input: &mut InBuf<'_>, output: &mut OutBuf<'_>) -> Result<Progress, LzmaError> {
        let _ = (input, output);
        todo!()
    }
}
