//! Split independence: decoding an XZ stream whole and in fuzzer-chosen
//! input and output slices gives the same output and the same error kind.
//!
//! Input layout: [n_in, n_out, n_in size bytes, n_out size bytes, xz data].
#![no_main]

use libfuzzer_sys::fuzz_target;
use lzflow_fuzz::{assert_split_independent, LIMITS};
use lzflow_lzma::DecoderOptions;
use lzflow_xz::{XzDecoder, XzDecoderOptions};

fn decoder() -> XzDecoder {
    XzDecoder::new(XzDecoderOptions {
        // Small batches make the sliced run take different paths.
        lzma: DecoderOptions::default()
            .with_limits(LIMITS)
            .with_batch_size(97),
        ..XzDecoderOptions::default()
    })
}

fuzz_target!(|data: &[u8]| assert_split_independent(decoder, data));
