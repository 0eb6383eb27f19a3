//! The .lzma (LZMA-alone) container decoder.

use lzflow_core::{Decode, InBuf, OutBuf, Progress, Sticky};

use crate::lzma_decoder::need_input;
use crate::{DecoderOptions, LzmaDecoder, LzmaError, LzmaProps};

/// Size of the .lzma header.
const HEADER_LEN: usize = 13;

/// Decoder for `.lzma` files: a 13-byte header (properties byte, dictionary
/// size u32 LE, uncompressed size u64 LE or all ones for "unknown, ended by
/// a marker") followed by an LZMA1 stream.
#[derive(Debug)]
pub struct AloneDecoder {
    opts: DecoderOptions,
    header: [u8; HEADER_LEN],
    have: usize,
    inner: Option<LzmaDecoder>,
    failed: Sticky<LzmaError>,
}

impl AloneDecoder {
    /// A decoder using `opts` for limits and buffers. The memory limit is
    /// checked against the dictionary size once the header has arrived.
    pub fn new(opts: &DecoderOptions) -> Self {
        AloneDecoder {
            opts: opts.clone(),
            header: [0; HEADER_LEN],
            have: 0,
            inner: None,
            failed: Sticky::default(),
        }
    }

    /// The properties, dictionary size and uncompressed size from the
    /// header, once it has been read.
    pub fn header(&self) -> Option<(LzmaProps, u32, Option<u64>)> {
        (self.have == HEADER_LEN).then(|| parse(&self.header).ok())?
    }

    fn step(
        &mut self,
        input: &mut InBuf<'_>,
        output: &mut OutBuf<'_>,
    ) -> Result<Progress, LzmaError> {
        if self.inner.is_none() {
            let got = input.take(HEADER_LEN - self.have);
            self.header[self.have..self.have + got.len()].copy_from_slice(got);
            self.have += got.len();
            if self.have < HEADER_LEN {
                return need_input(input);
            }
            let (props, dict, size) = parse(&self.header)?;
            self.inner = Some(LzmaDecoder::new(props, dict, size, &self.opts)?);
        }
        self.inner
            .as_mut()
            .expect("created above")
            .decode(input, output)
    }
}

fn parse(h: &[u8; HEADER_LEN]) -> Result<(LzmaProps, u32, Option<u64>), LzmaError> {
    let props = LzmaProps::from_byte(h[0])?;
    let dict = u32::from_le_bytes([h[1], h[2], h[3], h[4]]);
    let mut size = [0; 8];
    size.copy_from_slice(&h[5..]);
    let size = u64::from_le_bytes(size);
    Ok((props, dict, (size != u64::MAX).then_some(size)))
}

impl Decode for AloneDecoder {
    type Error = LzmaError;

    fn decode(
        &mut self,
        input: &mut InBuf<'_>,
        output: &mut OutBuf<'_>,
    ) -> Result<Progress, LzmaError> {
        self.failed.check()?;
        let r = self.step(input, output);
        self.failed.record(r)
    }
}
