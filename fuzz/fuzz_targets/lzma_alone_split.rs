//! `.lzma` (LZMA-alone) split independence: decoding whole and in
//! fuzzer-chosen input and output slices gives the same output and the
//! same error kind. LZMA1 has no chunk sizes, so a symbol that straddles
//! two input slices goes through the decoder's held-tail path: this is
//! the target that exercises it.
//!
//! Input layout: [n_in, n_out, n_in size bytes, n_out size bytes, .lzma].
#![no_main]

use libfuzzer_sys::fuzz_target;
use lzflow_fuzz::{drive, sizes, LIMITS};
use lzflow_lzma::{AloneDecoder, DecoderOptions};

fn decoder() -> AloneDecoder {
    AloneDecoder::new(
        &DecoderOptions::default()
            .with_limits(LIMITS)
            .with_batch_size(97),
    )
}

fuzz_target!(|data: &[u8]| {
    let [n_in, n_out, rest @ ..] = data else {
        return;
    };
    let (n_in, n_out) = (usize::from(*n_in % 16), usize::from(*n_out % 16));
    if rest.len() < n_in + n_out {
        return;
    }
    let (in_seed, rest) = rest.split_at(n_in);
    let (out_seed, lzma) = rest.split_at(n_out);

    let whole = drive(&mut decoder(), lzma, std::iter::empty(), std::iter::empty());
    let sliced = drive(&mut decoder(), lzma, sizes(in_seed), sizes(out_seed));
    assert_eq!(whole.error, sliced.error, "error kind depends on the split");
    assert!(whole.output == sliced.output, "output depends on the split");
    if whole.error.is_none() {
        assert_eq!(
            whole.consumed, sliced.consumed,
            "consumed count depends on the split"
        );
    }
});
