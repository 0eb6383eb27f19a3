//! lzflow
#![forbid(unsafe_code)]

mod driver;
mod options;
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
pub use options::{BuildDecoder, DecodeOptions, DecoderBuilder, DecoderFormat};
