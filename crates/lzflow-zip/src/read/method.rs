//! Zip compression methods (APPNOTE 4.4.5) onto lzflow's decoders: the
//! method registry's for Stored, Deflate, Deflate64, BZip2, Zstandard and
//! LZMA (after its zip header, APPNOTE 5.8.8) and PPMd (var. I rev. 1, its
//! properties in the data), lzflow-xz's for XZ.

use lzflow_core::{Decode, ErrInto, InBuf, Limits, OutBuf, Progress};
use lzflow_lzma::{DecoderOptions, LzmaProps};
use lzflow_methods::{
    check_decoder_memory, new_decoder, new_zip_ppmd_decoder, BoxedDecoder, Method, Properties,
};
use lzflow_xz::{XzDecoder, XzDecoderOptions};

use crate::ZipError;

/// A decoder of one entry's (decrypted) data.
pub(crate) type EntryCoder = Box<dyn Decode<Error = ZipError> + Send>;

/// The decoder of zip method `method` for an entry of `size` bytes (`None`:
/// not known before the data ends, as for a forward-only reader of an
/// entry with a data descriptor). The memory limit is checked here (by
/// the registry), once.
pub(crate) fn decoder(
    method: u16,
    size: Option<u64>,
    limits: &Limits,
) -> Result<EntryCoder, ZipError> {
    let unsupported = |name| ZipError::UnsupportedMethod { method, name };
    let Some(m) = Method::from_zip_id(method) else {
        return Err(unsupported(""));
    };
    let opts = DecoderOptions::default().with_limits(Limits {
        memory: u64::MAX,
        output: limits.output,
    });
    match m {
        Method::Copy | Method::Deflate | Method::Deflate64 | Method::BZip2 | Method::Zstd => {
            let props = Properties::Plain(m);
            check_decoder_memory([(&props, size)], limits)?;
            // With the memory limit: the registry ignores it but for
            // Zstandard, whose window only its frame headers declare.
            let opts = DecoderOptions::default().with_limits(*limits);
            Ok(Box::new(ErrInto::new(new_decoder(&props, size, &opts)?)))
        }
        Method::Lzma => Ok(Box::new(ZipLzma::new(size, *limits, opts))),
        // The model's size is in the data: the decoder checks the memory
        // limit once it has read it.
        Method::Ppmd => Ok(Box::new(ErrInto::new(new_zip_ppmd_decoder(
            size,
            limits.memory,
        )))),
        Method::Xz => {
            // The XZ layer checks the memory limit through the registry
            // for each Block; one stream, as zip stores it.
            let xz = XzDecoder::new(
                XzDecoderOptions::default()
                    .with_multi_stream(false)
                    .with_lzma(DecoderOptions::default().with_limits(*limits)),
            );
            Ok(Box::new(ErrInto::new(xz)))
        }
        other => Err(unsupported(other.name())),
    }
}

/// Most stored bytes past its data that the decoder of zip method
/// `method` may take ([`Method::read_ahead`]).
pub(crate) fn read_ahead(method: u16) -> usize {
    Method::from_zip_id(method).map_or(0, Method::read_ahead)
}

/// Bytes of the zip LZMA header: version (2), properties size (2), then
/// the 5 properties bytes (lc/lp/pb and the dictionary size).
const LZMA_HEADER: usize = 9;

/// LZMA in zip: its header, then a raw LZMA stream of the entry's size
/// (with or without an end marker; flag bit 1 says which, and the decoder
/// accepts a marker right at the size either way). Without a known size
/// the stream must end with the marker.
struct ZipLzma {
    header: [u8; LZMA_HEADER],
    have: usize,
    size: Option<u64>,
    limits: Limits,
    opts: DecoderOptions,
    inner: Option<BoxedDecoder>,
}

impl ZipLzma {
    fn new(size: Option<u64>, limits: Limits, opts: DecoderOptions) -> Self {
        ZipLzma {
            header: [0; LZMA_HEADER],
            have: 0,
            size,
            limits,
            opts,
            inner: None,
        }
    }

    fn start(&mut self) -> Result<BoxedDecoder, ZipError> {
        let h = &self.header;
        if u16::from_le_bytes([h[2], h[3]]) != 5 {
            return Err(ZipError::corrupt("LZMA properties are not 5 bytes"));
        }
        let props = Properties::Lzma {
            props: LzmaProps::from_byte(h[4]).map_err(lzflow_methods::MethodError::from)?,
            dict_size: u32::from_le_bytes([h[5], h[6], h[7], h[8]]),
        };
        check_decoder_memory([(&props, self.size)], &self.limits)?;
        Ok(new_decoder(&props, self.size, &self.opts)?)
    }
}

impl Decode for ZipLzma {
    type Error = ZipError;
    fn decode(
        &mut self,
        input: &mut InBuf<'_>,
        output: &mut OutBuf<'_>,
    ) -> Result<Progress, ZipError> {
        if self.inner.is_none() {
            let got = input.take(LZMA_HEADER - self.have);
            self.header[self.have..self.have + got.len()].copy_from_slice(got);
            self.have += got.len();
            if self.have < LZMA_HEADER {
                return if input.is_last() {
                    Err(ZipError::Truncated)
                } else {
                    Ok(Progress::NeedInput)
                };
            }
        }
        let inner = match self.inner.take() {
            Some(d) => d,
            None => self.start()?,
        };
        Ok(self.inner.insert(inner).decode(input, output)?)
    }
}
