//! `.lz` (lzip) decoding: any bytes give data or a typed error, never a
//! panic or hang, and the same output, error and consumed count whole and
//! in fuzzer-chosen input and output slices (members, trailers and
//! trailing data straddling slices included).
//!
//! Input layout: [n_in, n_out, n_in size bytes, n_out size bytes, .lz].
#![no_main]

use libfuzzer_sys::fuzz_target;
use lzflow_fuzz::{assert_split_independent, LIMITS};
use lzflow_lzip::LzipDecoder;
use lzflow_lzma::DecoderOptions;

fn decoder() -> LzipDecoder {
    LzipDecoder::new(
        &DecoderOptions::default()
            .with_limits(LIMITS)
            .with_batch_size(97),
    )
}

fuzz_target!(|data: &[u8]| assert_split_independent(decoder, data));
