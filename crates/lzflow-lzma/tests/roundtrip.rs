//! Round trips through liblzma's encoders and lzflow's decoders.

mod common;

use common::*;
use lzflow_core::{InBuf, OutBuf, Progress};
use lzflow_lzma::{AloneDecoder, DecoderOptions, Lzma2Decoder, LzmaDecoder, LzmaProps};

fn inputs() -> Vec<(&'static str, Vec<u8>)> {
    vec![
        ("empty", Vec::new()),
        ("one", vec![42]),
        ("small-text", text_like(1000, 1)),
        ("random-70k", random_bytes(70_000, 2)),
        ("text-300k", text_like(scaled(300_000, 100_000), 3)),
        ("zeros-3M", vec![0; scaled(3 << 20, 1 << 20)]),
        ("mixed-1M", mixed(scaled(1 << 20, 200_000), 4)),
    ]
}

#[test]
fn lzma2_presets() {
    let dopts = DecoderOptions::default();
    for (name, data) in inputs() {
        for preset in [0, 1, 6, 9] {
            let dict = 1 << 20;
            let comp = lzma2(&data, &opts(preset, dict, 3, 0, 2));
            let mut dec = Lzma2Decoder::new(dict, &dopts).unwrap();
            let (out, end) = drive_whole(&mut dec, &comp);
            assert_eq!(end, Ok(comp.len()), "{name} preset {preset}");
            assert!(out == data, "{name} preset {preset}: output differs");
        }
    }
}

#[test]
fn lzma2_lc_lp_pb() {
    let data = mixed(scaled(400_000, 100_000), 9);
    for (lc, lp, pb) in [
        (0, 0, 0),
        (4, 0, 4),
        (0, 4, 0),
        (1, 3, 1),
        (2, 2, 3),
        (3, 1, 2),
    ] {
        let comp = lzma2(&data, &opts(6, 1 << 20, lc, lp, pb));
        let mut dec = Lzma2Decoder::new(1 << 20, &DecoderOptions::default()).unwrap();
        let (out, end) = drive_random(&mut dec, &comp, lc as u64 * 7 + 3);
        assert_eq!(end, Ok(comp.len()), "lc={lc} lp={lp} pb={pb}");
        assert!(out == data, "lc={lc} lp={lp} pb={pb}");
    }
}

#[test]
fn lzma1_raw_and_alone() {
    for (name, data) in inputs() {
        for (lc, lp, pb) in [(3, 0, 2), (0, 2, 0), (4, 0, 4), (0, 4, 1)] {
            let o = opts(6, 1 << 20, lc, lp, pb);
            let props = LzmaProps::new(lc, lp, pb).unwrap();
            let raw = lzma1(&data, &o);
            let mut dec =
                LzmaDecoder::new(props, 1 << 20, None, &DecoderOptions::default()).unwrap();
            let (out, end) = drive_whole(&mut dec, &raw);
            assert_eq!(end, Ok(raw.len()), "{name} raw lc={lc} lp={lp} pb={pb}");
            assert!(out == data, "{name} raw lc={lc} lp={lp} pb={pb}");

            let file = alone(&data, &o);
            let mut dec = AloneDecoder::new(&DecoderOptions::default());
            let (out, end) = drive_whole(&mut dec, &file);
            assert_eq!(end, Ok(file.len()), "{name} alone lc={lc} lp={lp} pb={pb}");
            assert!(out == data, "{name} alone lc={lc} lp={lp} pb={pb}");
            assert_eq!(dec.header(), Some((props, 1 << 20, None)));
        }
    }
}

#[test]
fn lzma1_known_size_with_marker_is_accepted() {
    let data = text_like(50_000, 5);
    let mut file = alone(&data, &opts(6, 1 << 16, 3, 0, 2));
    file[5..13].copy_from_slice(&(data.len() as u64).to_le_bytes());
    let mut dec = AloneDecoder::new(&DecoderOptions::default());
    let (out, end) = drive_bytewise_in(&mut dec, &file);
    assert_eq!(end, Ok(file.len()));
    assert!(out == data);
}

#[test]
fn lzma2_stream_end_leaves_trailing_input() {
    let data = text_like(100_000, 6);
    let mut comp = lzma2(&data, &opts(6, 1 << 20, 3, 0, 2));
    let len = comp.len();
    comp.extend_from_slice(&[0, 0, 0, 0xAB]);
    for split in [1usize, 7, 1 << 20] {
        let mut dec = Lzma2Decoder::new(1 << 20, &DecoderOptions::default()).unwrap();
        let (out, end) = drive(&mut dec, &comp, &mut || split, &mut || 1 << 16);
        assert_eq!(end, Ok(len), "split {split}");
        assert!(out == data);
    }
}

#[test]
fn lzma1_known_size_stops_exactly() {
    // A raw LZMA1 stream decoded with its known size: the decoder stops at
    // the size and accepts the end marker that follows.
    let data = text_like(20_000, 8);
    let raw = lzma1(&data, &opts(6, 1 << 20, 3, 0, 2));
    let props = LzmaProps::default();
    let mut dec = LzmaDecoder::new(
        props,
        1 << 20,
        Some(data.len() as u64),
        &DecoderOptions::default(),
    )
    .unwrap();
    let (out, end) = drive_random(&mut dec, &raw, 11);
    assert_eq!(end, Ok(raw.len()));
    assert!(out == data);
}

#[test]
fn reset_reuses_decoder_for_next_stream() {
    let a = text_like(200_000, 12);
    let b = mixed(300_000, 13);
    let ca = lzma2(&a, &opts(6, 1 << 20, 3, 0, 2));
    let cb = lzma2(&b, &opts(1, 1 << 16, 0, 2, 0));
    let mut dec = Lzma2Decoder::new(1 << 20, &DecoderOptions::default()).unwrap();
    dec.set_uncompressed_size(Some(a.len() as u64));
    let (out, end) = drive_whole(&mut dec, &ca);
    assert_eq!(end, Ok(ca.len()));
    assert!(out == a);
    dec.reset(1 << 16).unwrap();
    let (out, end) = drive_random(&mut dec, &cb, 14);
    assert_eq!(end, Ok(cb.len()));
    assert!(out == b);
}

#[test]
fn batch_size_caps_each_call() {
    let data = vec![7u8; 200_000];
    let comp = lzma2(&data, &opts(6, 1 << 20, 3, 0, 2));
    let o = DecoderOptions::default().with_batch_size(1000);
    let mut dec = Lzma2Decoder::new(1 << 20, &o).unwrap();
    let mut space = vec![0; 1 << 20];
    let mut input = InBuf::last(&comp);
    let mut total = 0;
    loop {
        let mut out = OutBuf::new(&mut space);
        let p = lzflow_core::Decode::decode(&mut dec, &mut input, &mut out).unwrap();
        assert!(out.pos() <= 1000, "produced {} in one call", out.pos());
        assert!(out.written().iter().all(|&b| b == 7));
        total += out.pos();
        if p == Progress::StreamEnd {
            break;
        }
        assert_eq!(p, Progress::OutputFull);
    }
    assert_eq!(total, data.len());
}
