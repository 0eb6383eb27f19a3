//! Any input through the XZ decoder: an error or data, never a panic, a
//! hang or unbounded memory.
#![no_main]

use libfuzzer_sys::fuzz_target;
use lzflow_fuzz::{drive, LIMITS};
use lzflow_lzma::DecoderOptions;
use lzflow_xz::{XzDecoder, XzDecoderOptions};

fuzz_target!(|data: &[u8]| {
    let opts = XzDecoderOptions {
        lzma: DecoderOptions::default().with_limits(LIMITS),
        ..XzDecoderOptions::default()
    };
    let mut decoder = XzDecoder::new(opts);
    drive(&mut decoder, data, std::iter::empty(), std::iter::empty());
});
