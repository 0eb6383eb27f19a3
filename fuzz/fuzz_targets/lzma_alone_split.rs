//! `.lzma` (LZMA-alone) split independence: decoding whole and in
//! fuzzer-chosen input and output slices gives the same output and the
//! same error kind. LZMA1 has no chunk sizes, so a symbol that straddles
//! two input slices goes through the decoder's held-tail path: this is
//! the target that exercises it.
//!
//! Input layout: [n_in, n_out, n_in size bytes, n_out size bytes, .lzma].
#![no_main]

use libfuzzer_sys::fuzz_target;
use lzflow_fuzz::{assert_split_independent, LIMITS};
use lzflow_lzma::{AloneDecoder, DecoderOptions};

fn decoder() -> AloneDecoder {
    AloneDecoder::new(
        &DecoderOptions::default()
            .with_limits(LIMITS)
            .with_batch_size(97),
    )
}

fuzz_target!(|data: &[u8]| assert_split_independent(decoder, data));
