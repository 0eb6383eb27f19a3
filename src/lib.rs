//! lzflow
#![forbid(unsafe_code)]

mod driver;
mod decode_options;
mod encode_options;
mod pump;
mod std_io;

pub mod bufread;
#[cfg(feature = "futures-io")]
pub mod futures;
pub mod read;
pub mod sevenz;
pub mod stream;
#[cfg(feature = "tokio")]
pub mod tokio;
pub mod write;

pub use driver::StickyError;
pub use decode_options::{BuildDecoder, DecodeOptions, DecoderBuilder, DecoderFormat};
pub use encode_options::{BuildEncoder, EncodeOptions, EncoderBuilder, EncoderFormat, Level};
