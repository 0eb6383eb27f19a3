//! Raw LZMA1 decoder.

use lzflow_core::{Decode, InBuf, OutBuf, Progress};

use crate::{DecoderOptions, LzmaError, LzmaProps};

/// Decoder for a raw LZMA1 stream (7z's LZMA coder, raw `.lzma1` data).
#[derive(Debug)]
pub struct LzmaDecoder {
    _p: (),
}

impl LzmaDecoder {
    /// A decoder for a stream with the given properties and dictionary size;
    /// `uncompressed_size` is the known size (`None`: an end marker ends it).
    pub fn new(
        props: LzmaProps,
        dict_size: u32,
        uncompressed_size: Option<u64>,
        opts: &DecoderOptions,
    ) -> Result<Self, LzmaError> {
        let _ = (props, dict_size, uncompressed_size, opts);
        todo!()
    }

    /// Bytes of memory a decoder with these parameters may use.
    pub fn memory_usage(props: LzmaProps, dict_size: u32) -> u64 {
        let _ = (props, dict_size);
        todo!()
    }
}

impl Decode for LzmaDecoder {
    type Error = LzmaError;
    fn decode(&mut self, input: &mut InBuf<'_>, output: &mut OutBuf<'_>) -> Result<Progress, LzmaError> {
        let _ = (input, output);
        todo!()
    }
}
