//! `.xz` decoded on threads and on one thread: the same output and the same
//! error. The input is a multi-Block file made here from the fuzzer's bytes
//! (4 KiB Blocks, the check the knobs pick), then damaged where the fuzzer
//! says; or, with the top bit of the first byte set, the raw bytes.
//!
//! Layout: `[knobs, damage count, (offset hi, offset lo, xor) × count,
//! payload…]`. Knobs: bits 0–1 the budget, bits 2–3 the check, bit 7 raw.
#![no_main]

use libfuzzer_sys::fuzz_target;
use lzflow_fuzz::{drive, Damaged, LIMITS};
use lzflow_lzma::{DecoderOptions, LzmaOptions};
use lzflow_xz::{
    Check, MtXzDecoder, MtXzDecoderOptions, MtXzEncoder, MtXzEncoderOptions, XzDecoder,
    XzDecoderOptions, XzEncoderOptions,
};

fuzz_target!(|data: &[u8]| {
    let Some(input) = Damaged::parse(data) else {
        return;
    };
    let knobs = input.knobs;
    let file = input.input(|payload| {
        let check =
            [Check::None, Check::Crc32, Check::Crc64, Check::Sha256][usize::from((knobs >> 2) & 3)];
        let opts = MtXzEncoderOptions {
            base: XzEncoderOptions {
                lzma: LzmaOptions::preset(0).expect("preset 0"),
                check,
                block_size: Some(4096),
                ..XzEncoderOptions::default()
            },
            threads: 1,
        };
        let mut enc = MtXzEncoder::new(opts).expect("encoder");
        let mut out = Vec::new();
        lzflow_core::encode_to_end(&mut enc, payload, &mut out, &mut [0; 1 << 16])
            .expect("encoding cannot fail");
        out
    });

    let base = XzDecoderOptions {
        lzma: DecoderOptions::default().with_limits(LIMITS),
        ..XzDecoderOptions::default()
    };
    let want = drive(
        &mut XzDecoder::new(base.clone()),
        &file,
        std::iter::empty(),
        std::iter::empty(),
    );
    let mut mt = MtXzDecoder::new(MtXzDecoderOptions {
        base,
        threads: 2,
        memory_budget: [256 << 20, 64 << 10, 8 << 10, 1][usize::from(knobs & 3)],
    });
    let got = drive(&mut mt, &file, std::iter::empty(), std::iter::empty());
    assert!(got.output == want.output, "outputs differ");
    assert_eq!(got.error, want.error);
});
