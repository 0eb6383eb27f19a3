//! LZMA2 decoded on threads and on one thread: the same output and the same
//! error. The multi-threaded decoder cuts the stream at dictionary resets
//! and its workers decode each segment in place, so the input is a stream
//! with many resets (made here from the fuzzer's bytes by the
//! multi-threaded encoder, in 4 KiB pieces), then damaged where the fuzzer
//! says; or, with the top bit of the first byte set, the raw bytes.
//!
//! Layout: `[knobs, damage count, (offset hi, offset lo, xor) × count,
//! payload…]`. Knobs: bits 0–1 the budget, bit 2 the minimum segment, bit
//! 7 raw.
#![no_main]

use libfuzzer_sys::fuzz_target;
use lzflow_fuzz::{drive, Damaged, LIMITS};
use lzflow_lzma::{DecoderOptions, Lzma2Decoder, LzmaOptions, MtLzma2Decoder, MtLzma2Encoder};

const DICT: u32 = 1 << 16;

fuzz_target!(|data: &[u8]| {
    let Some(input) = Damaged::parse(data) else {
        return;
    };
    let knobs = input.knobs;
    let stream = input.input(|payload| {
        let mut o = LzmaOptions::preset(0).expect("preset 0");
        o.dict_size = DICT;
        let mut enc = MtLzma2Encoder::new(&o, 1, 4096).expect("encoder");
        let mut out = Vec::new();
        lzflow_core::encode_to_end(&mut enc, payload, &mut out, &mut [0; 1 << 16])
            .expect("encoding cannot fail");
        out
    });

    let opts = DecoderOptions::default().with_limits(LIMITS);
    let mut one = Lzma2Decoder::new(DICT, &opts).expect("within the limits");
    let want = drive(&mut one, &stream, std::iter::empty(), std::iter::empty());
    let budget = [u64::MAX, 64 << 10, 16 << 10, 1][usize::from(knobs & 3)];
    let mut mt = MtLzma2Decoder::new(DICT, &opts, 2, budget).expect("within the limits");
    mt.set_min_segment(if knobs & 4 != 0 { 0 } else { 8 << 10 });
    let got = drive(&mut mt, &stream, std::iter::empty(), std::iter::empty());
    assert!(got.output == want.output, "outputs differ");
    assert_eq!(got.error, want.error);
});
