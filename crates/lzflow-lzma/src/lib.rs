//! LZMA1 and LZMA2 coders for lzflow: range coder, LZ window, the LZMA
//! decoder (fast path and resumable path), the LZMA2 chunk layer and the
//! .lzma (LZMA-alone) container.
//!
//! All decoders are sans-I/O [`lzflow_core::Decode`] implementations.
#![forbid(unsafe_code)]

mod alone_decoder;
mod decoder_options;
mod error;
mod lzma2_decoder;
mod lzma_decoder;
mod props;
mod range_decoder;
mod window;

pub use alone_decoder::AloneDecoder;
pub use decoder_options::DecoderOptions;
pub use error::LzmaError;
pub use lzma2_decoder::Lzma2Decoder;
pub use lzma_decoder::LzmaDecoder;
pub use props::{lzma2_dict_size, lzma2_props_byte, LzmaProps};
