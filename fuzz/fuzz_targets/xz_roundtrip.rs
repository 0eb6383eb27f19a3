//! Any bytes through lzflow's XZ encoder with options taken from the
//! first bytes (preset 0-3, normal or extreme, check, one filter, Block
//! size): lzflow's decoder and liblzma must both give the input back.
#![no_main]

use libfuzzer_sys::fuzz_target;
use lzflow_core::encode_to_end;
use lzflow_filters::{FilterConfig, FilterKind};
use lzflow_fuzz::drive;
use lzflow_xz::{Check, XzDecoder, XzDecoderOptions, XzEncoder, XzEncoderOptions};

fuzz_target!(|data: &[u8]| {
    let [a, b, c, ref input @ ..] = *data else {
        return;
    };
    let level = u32::from(a & 3);
    let mut opts = if a & 4 != 0 {
        XzEncoderOptions::preset_extreme(level)
    } else {
        XzEncoderOptions::preset(level)
    }
    .expect("presets 0-3 exist");
    opts.lzma.lc = u32::from(a >> 5) % 5;
    opts.lzma.lp = u32::from(a >> 3 & 3).min(4 - opts.lzma.lc.min(4));
    opts.check = [Check::None, Check::Crc32, Check::Crc64, Check::Sha256][usize::from(b & 3)];
    let kinds = FilterKind::ALL;
    let pick = usize::from(b >> 2) % (kinds.len() + 1);
    if pick > 0 {
        let kind = kinds[pick - 1];
        let mut f = FilterConfig::new(kind);
        if kind == FilterKind::Delta {
            f = f.with_distance(u32::from(c) + 1);
        } else {
            f = f.with_start_offset(u32::from(c) * kind.alignment());
        }
        opts.filters = vec![f];
    }
    if c & 1 != 0 {
        opts.block_size = Some(u64::from(c) * 64 + 1);
    }
    let Ok(mut enc) = XzEncoder::new(opts) else {
        return;
    };
    let mut xz = Vec::new();
    encode_to_end(&mut enc, input, &mut xz, &mut [0u8; 4096]).expect("encoding never fails");

    let mut dec = XzDecoder::new(XzDecoderOptions::default());
    let outcome = drive(&mut dec, &xz, std::iter::empty(), std::iter::empty());
    assert_eq!(outcome.error, None, "lzflow cannot decode its own output");
    assert!(
        outcome.output == input,
        "lzflow decodes its own output wrong"
    );
    assert_eq!(outcome.consumed, xz.len());

    // Room for the input and one byte more: liblzma ends the stream in
    // one call, unless it decodes more than the input (a failure anyway).
    let mut reference = Vec::with_capacity(input.len() + 1);
    let mut s = liblzma::stream::Stream::new_stream_decoder(u64::MAX, 0).expect("liblzma");
    let status = s
        .process_vec(&xz, &mut reference, liblzma::stream::Action::Finish)
        .expect("liblzma rejects lzflow's output");
    assert_eq!(status, liblzma::stream::Status::StreamEnd);
    assert!(
        reference == input,
        "liblzma decodes lzflow's output differently"
    );
});
