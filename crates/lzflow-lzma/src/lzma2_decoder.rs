//! LZMA2 chunk decoder.

use lzflow_core::{Decode, InBuf, OutBuf, Progress};

use crate::{DecoderOptions, LzmaError};

/// Decoder for a raw LZMA2 stream (the XZ LZMA2 filter, 7z's LZMA2 coder).
#[derive(Debug)]
pub struct Lzma2Decoder {
    _p: (),
}

impl Lzma2Decoder {
    /// A decoder for a dictionary of `dict_size` bytes; checks the memory
    /// limit before allocating anything.
    pub fn new(dict_size: u32, opts: &DecoderOptions) -> Result<Self, LzmaError> {
        let _ = (dict_size, opts);
        todo!()
    }

    /// Bytes of memory a decoder with this dictionary may use.
    pub fn memory_usage(dict_size: u32) -> u64 {
        let _ = dict_size;
        todo!()
    }

    /// Starts a new, independent LZMA2 stream, reusing the buffers.
    pub fn reset(&mut self, dict_size: u32) -> Result<(), LzmaError> {
        let _ = dict_size;
        todo!()
    }

    /// Hint: the stream decodes to `size` bytes, so the window need not be
    /// larger.
    pub fn set_uncompressed_size(&mut self, size: Option<u64>) {
        let _ = size;
        todo!()
    }
}

impl Decode for Lzma2Decoder {
    type Error = LzmaError;
    fn decode(&mut self, input: &mut InBuf<'_>, output: &mut OutBuf<'_>) -> Result<Progress, LzmaError> {
        let _ = (input, output);
        todo!()
    }
}
