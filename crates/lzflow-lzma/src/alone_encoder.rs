//! The .lzma (LZMA-alone) container encoder.

use lzflow_core::{Encode, InBuf, OutBuf, Progress};

use crate::encoder_options::LzmaOptions;
use crate::{LzmaEncoder, LzmaError};

/// Encoder for `.lzma` files: a 13-byte header (properties byte,
/// dictionary size u32 LE, uncompressed size u64 LE = all ones for
/// "unknown") and an LZMA1 stream ending with the end marker, as
/// `xz --format=lzma` writes.
#[derive(Debug)]
pub struct AloneEncoder {
    inner: LzmaEncoder,
    header: [u8; 13],
    header_pos: usize,
}

impl AloneEncoder {
    /// An encoder for `opts`.
    pub fn new(opts: &LzmaOptions) -> Result<Self, LzmaError> {
        let inner = LzmaEncoder::new(opts, true)?;
        let mut header = [0xFFu8; 13];
        header[0] = opts.props().to_byte();
        header[1..5].copy_from_slice(&opts.dict_size.to_le_bytes());
        Ok(AloneEncoder {
            inner,
            header,
            header_pos: 0,
        })
    }

    /// Bytes the encoder allocates at most for `opts`.
    pub fn memory_usage(opts: &LzmaOptions) -> u64 {
        LzmaEncoder::memory_usage(opts)
    }

    /// Writes what is left of the header; true when it is all out.
    fn header_done(&mut self, output: &mut OutBuf<'_>) -> bool {
        self.header_pos += output.push(&self.header[self.header_pos..]);
        self.header_pos == self.header.len()
    }
}

impl Encode for AloneEncoder {
    type Error = LzmaError;

    fn encode(
        &mut self,
        input: &mut InBuf<'_>,
        output: &mut OutBuf<'_>,
    ) -> Result<Progress, LzmaError> {
        if !self.header_done(output) {
            return Ok(Progress::OutputFull);
        }
        self.inner.encode(input, output)
    }

    fn flush(&mut self, output: &mut OutBuf<'_>) -> Result<Progress, LzmaError> {
        if !self.header_done(output) {
            return Ok(Progress::OutputFull);
        }
        self.inner.flush(output)
    }

    fn finish(&mut self, output: &mut OutBuf<'_>) -> Result<Progress, LzmaError> {
        if !self.header_done(output) {
            return Ok(Progress::OutputFull);
        }
        self.inner.finish(output)
    }
}
