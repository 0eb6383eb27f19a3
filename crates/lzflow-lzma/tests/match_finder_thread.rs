//! The match finder on its own thread (`LzmaOptions::match_finder_thread`)
//! gives the one-thread encoder's bytes: for every binary-tree finder, in
//! both modes, through any input and output splits, flushes, resets, a
//! sliding window, and for LZMA1 and LZMA2 alike.

mod common;

use common::{encode_with, finish_into, mixed, Rng};
use lzflow_core::{Encode, InBuf, OutBuf, Progress};
use lzflow_lzma::{AloneEncoder, Lzma2Encoder, LzmaEncoder, LzmaOptions, MatchFinder, Mode};

fn threaded(mut o: LzmaOptions) -> LzmaOptions {
    o.match_finder_thread = true;
    o
}

/// Options with a small dictionary for each binary-tree finder and mode.
fn variants() -> Vec<LzmaOptions> {
    let mut v = Vec::new();
    for (mf, mode, nice) in [
        (MatchFinder::Bt4, Mode::Normal, 64),
        (MatchFinder::Bt4, Mode::Normal, 273),
        (MatchFinder::Bt3, Mode::Normal, 32),
        (MatchFinder::Bt2, Mode::Normal, 16),
        (MatchFinder::Bt4, Mode::Fast, 128),
    ] {
        let mut o = LzmaOptions::preset(6).unwrap();
        o.dict_size = 1 << 20;
        o.mf = mf;
        o.mode = mode;
        o.nice_len = nice;
        v.push(o);
    }
    v
}

#[test]
fn lzma2_bytes_equal_the_one_thread_encoders() {
    let data = mixed(common::scaled(3_000_000, 700_000), 1);
    for o in variants() {
        let one = encode_with(&mut Lzma2Encoder::new(&o).unwrap(), &data, 1 << 20, 1 << 16);
        // All input in one call: the hash stage runs at most its reach
        // ahead, and tops up as the encoder goes.
        let two = encode_with(
            &mut Lzma2Encoder::new(&threaded(o)).unwrap(),
            &data,
            data.len(),
            1 << 16,
        );
        assert!(one == two, "{o:?}");
        assert_eq!(
            common::liblzma_lzma2_decode(&two, o.dict_size, data.len()),
            data
        );
    }
}

#[test]
fn split_input_and_output_change_nothing() {
    let data = mixed(400_000, 2);
    let o = variants()[0];
    let want = encode_with(&mut Lzma2Encoder::new(&o).unwrap(), &data, 1 << 20, 1 << 16);
    let mut enc = Lzma2Encoder::new(&threaded(o)).unwrap();
    let mut r = Rng(77);
    let mut out = Vec::new();
    let mut pos = 0;
    while pos < data.len() {
        let n = (1 + r.below(50_000)).min(data.len() - pos);
        let mut input = InBuf::new(&data[pos..pos + n]);
        loop {
            let mut buf = vec![0u8; 1 + r.below(500)];
            let mut ob = OutBuf::new(&mut buf);
            let p = enc.encode(&mut input, &mut ob).unwrap();
            out.extend_from_slice(ob.written());
            if p == Progress::NeedInput {
                break;
            }
        }
        pos += n;
    }
    finish_into(&mut enc, &mut [0u8; 3], &mut out);
    assert!(out == want, "random splits");
    // One byte in, one byte out.
    let small = &data[..40_000];
    let want = encode_with(&mut Lzma2Encoder::new(&o).unwrap(), small, 1 << 20, 1 << 16);
    let got = encode_with(&mut Lzma2Encoder::new(&threaded(o)).unwrap(), small, 1, 1);
    assert!(got == want, "1-byte slices");
}

/// Encodes `data` with a flush at each cut (flushes run to the end, in
/// small output buffers).
fn with_flushes(enc: &mut Lzma2Encoder, data: &[u8], cuts: &[usize]) -> Vec<u8> {
    let mut out = Vec::new();
    let mut buf = vec![0u8; 777];
    let mut fed = 0;
    for &cut in cuts {
        common::encode_into(enc, &data[fed..cut], &mut buf, &mut out);
        common::flush_into(enc, &mut buf, &mut out);
        fed = cut;
    }
    finish_into(enc, &mut buf, &mut out);
    out
}

#[test]
fn flushes_and_resets_give_the_same_bytes() {
    let data = mixed(500_000, 3);
    let cuts = [1, 2, 100, 5000, 5001, 5100, 250_000, 499_990, 500_000];
    for o in variants() {
        let one = with_flushes(&mut Lzma2Encoder::new(&o).unwrap(), &data, &cuts);
        let mut enc = Lzma2Encoder::new(&threaded(o)).unwrap();
        let two = with_flushes(&mut enc, &data, &cuts);
        assert!(one == two, "flushes, {o:?}");
        assert_eq!(
            common::liblzma_lzma2_decode(&two, o.dict_size, data.len()),
            data
        );
        // The same encoder, reset: an independent stream, mid-way too.
        enc.reset();
        let other = mixed(300_000, 4);
        let mut input = InBuf::new(&other[..100_000]);
        let mut sink = vec![0u8; 1 << 20];
        enc.encode(&mut input, &mut OutBuf::new(&mut sink)).unwrap();
        enc.reset();
        // Too little to code anything yet: hashed, not yet walked.
        let mut input = InBuf::new(&other[..1000]);
        enc.encode(&mut input, &mut OutBuf::new(&mut sink)).unwrap();
        enc.reset();
        let again = encode_with(&mut enc, &other, 9999, 1 << 16);
        let want = encode_with(&mut Lzma2Encoder::new(&o).unwrap(), &other, 9999, 1 << 16);
        assert!(again == want, "after resets, {o:?}");
    }
}

#[test]
fn lzma1_with_a_sliding_window_gives_the_same_bytes() {
    // A 64 KiB dictionary: LZMA1's window is about 1 MiB, so 3 MB of
    // input slides it several times on both threads.
    let data = mixed(common::scaled(3_000_000, 1_500_000), 5);
    let mut o = variants()[0];
    o.dict_size = 64 << 10;
    for end_marker in [false, true] {
        let one = encode_with(
            &mut LzmaEncoder::new(&o, end_marker).unwrap(),
            &data,
            100_000,
            1 << 16,
        );
        let two = encode_with(
            &mut LzmaEncoder::new(&threaded(o), end_marker).unwrap(),
            &data,
            100_000,
            1 << 16,
        );
        assert!(one == two, "end marker {end_marker}");
    }
    let one = encode_with(&mut AloneEncoder::new(&o).unwrap(), &data, 1 << 20, 1 << 16);
    let two = encode_with(
        &mut AloneEncoder::new(&threaded(o)).unwrap(),
        &data,
        1 << 20,
        1 << 16,
    );
    assert!(one == two, ".lzma");
}

#[test]
fn an_encoder_dropped_mid_stream_returns() {
    let data = mixed(2_000_000, 6);
    let o = threaded(variants()[0]);
    for cut in [0, 1, 70_000, 1_999_999] {
        let mut enc = Lzma2Encoder::new(&o).unwrap();
        let mut input = InBuf::new(&data[..cut]);
        let mut sink = vec![0u8; 4 << 20];
        enc.encode(&mut input, &mut OutBuf::new(&mut sink)).unwrap();
        drop(enc);
    }
}

/// Random runs of writes, flushes, finishes and resets, the same on a
/// threaded and a one-thread encoder: the same bytes throughout.
#[test]
fn random_operation_sequences_give_the_same_bytes() {
    let data = mixed(common::scaled(1_200_000, 400_000), 8);
    for seed in 1..=common::scaled(12, 4) as u64 {
        let mut r = Rng(seed * 7919);
        let mut o = variants()[r.below(5)];
        o.dict_size = [4096, 1 << 16, 1 << 20][r.below(3)];
        let mut one = Lzma2Encoder::new(&o).unwrap();
        let mut two = Lzma2Encoder::new(&threaded(o)).unwrap();
        let (mut out1, mut out2) = (Vec::new(), Vec::new());
        let mut buf = vec![0u8; 1 + r.below(70_000)];
        let mut pos = 0;
        for _ in 0..40 {
            match r.below(10) {
                0 => {
                    common::flush_into(&mut one, &mut buf, &mut out1);
                    common::flush_into(&mut two, &mut buf, &mut out2);
                }
                1 => {
                    finish_into(&mut one, &mut buf, &mut out1);
                    finish_into(&mut two, &mut buf, &mut out2);
                    assert!(out1 == out2, "seed {seed}: a finished stream");
                    one.reset();
                    two.reset();
                }
                2 => {
                    one.reset();
                    two.reset();
                    out1.clear();
                    out2.clear();
                }
                _ => {
                    let n = r.below(150_000).min(data.len() - pos);
                    common::encode_into(&mut one, &data[pos..pos + n], &mut buf, &mut out1);
                    common::encode_into(&mut two, &data[pos..pos + n], &mut buf, &mut out2);
                    pos = (pos + n) % (data.len() - 1);
                }
            }
        }
        finish_into(&mut one, &mut buf, &mut out1);
        finish_into(&mut two, &mut buf, &mut out2);
        assert!(out1 == out2, "seed {seed}: the last stream");
    }
}
