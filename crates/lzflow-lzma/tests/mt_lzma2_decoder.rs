//! The multi-threaded LZMA2 decoder gives exactly the one-thread decoder's
//! output and error, at any thread count, budget and split, on streams
//! with dictionary resets (as 7-Zip's and lzflow's multi-threaded encoders
//! write them), without them, damaged, cut short and over the output limit.

mod common;

use common::{
    drive, drive_bytewise_in, drive_random, drive_whole, random_bytes, text_like, Outcome, Rng,
};
use lzflow_core::{Decode, InBuf, Limits, OutBuf, Progress};
use lzflow_lzma::{
    DecoderOptions, Lzma2Decoder, LzmaError, LzmaOptions, MtLzma2Decoder, MtLzma2Encoder,
};

const DICT: u32 = 64 << 10;
const PIECE: usize = 96 << 10;

/// A stream with a reset every `PIECE` bytes; some pieces incompressible
/// (their first chunk is uncompressed, 0x01).
fn stream(len: usize, seed: u64) -> (Vec<u8>, Vec<u8>) {
    let mut data = text_like(len, seed);
    let noise = random_bytes(PIECE, seed + 1);
    let at = (2 * PIECE).min(len);
    let end = (at + PIECE).min(len);
    data[at..end].copy_from_slice(&noise[..end - at]);
    let mut o = LzmaOptions::preset(1).unwrap();
    o.dict_size = DICT;
    let mut enc = MtLzma2Encoder::new(&o, 2, PIECE).unwrap();
    let comp = common::encode_with(&mut enc, &data, 1 << 20, 1 << 16);
    (data, comp)
}

fn single(comp: &[u8], limits: Limits) -> Outcome {
    let opts = DecoderOptions::default().with_limits(limits);
    drive_whole(&mut Lzma2Decoder::new(DICT, &opts).unwrap(), comp)
}

/// Cut at every reset (the pieces here are smaller than the default
/// minimum segment).
fn mt(threads: usize, budget: u64, limits: Limits) -> MtLzma2Decoder {
    let opts = DecoderOptions::default().with_limits(limits);
    let mut dec = MtLzma2Decoder::new(DICT, &opts, threads, budget).unwrap();
    dec.set_min_segment(0);
    dec
}

fn same(want: &Outcome, got: &Outcome, what: &str) {
    assert_eq!(
        format!("{:?}", got.1),
        format!("{:?}", want.1),
        "{what}: result"
    );
    assert_eq!(got.0.len(), want.0.len(), "{what}: output length");
    assert!(got.0 == want.0, "{what}: output differs");
}

#[test]
fn resets_decode_in_parallel_to_the_same_bytes() {
    let (data, comp) = stream(7 * PIECE + 5_000, 3);
    let want = single(&comp, Limits::NONE);
    assert_eq!(want.0, data);
    assert_eq!(want.1, Ok(comp.len()));
    for threads in [1, 2, 3] {
        for budget in [u64::MAX, 300 << 10, 150 << 10, 1] {
            let what = format!("{threads} threads, budget {budget}");
            same(
                &want,
                &drive_whole(&mut mt(threads, budget, Limits::NONE), &comp),
                &what,
            );
            let got = drive_random(
                &mut mt(threads, budget, Limits::NONE),
                &comp,
                7 + threads as u64,
            );
            same(&want, &got, &format!("{what}, random splits"));
        }
    }
}

#[test]
fn input_one_byte_at_a_time_and_output_one_byte_at_a_time() {
    let (_, comp) = stream(3 * PIECE + 77, 4);
    let want = single(&comp, Limits::NONE);
    let got = drive(
        &mut mt(2, u64::MAX, Limits::NONE),
        &comp,
        &mut || 1,
        &mut || 1 << 16,
    );
    same(&want, &got, "1-byte input");
    let n = comp.len();
    let got = drive(
        &mut mt(2, u64::MAX, Limits::NONE),
        &comp,
        &mut || n,
        &mut || 7,
    );
    same(&want, &got, "7-byte output");
}

#[test]
fn a_stream_without_resets_decodes_as_one_segment() {
    let data = text_like(300_000, 5);
    let mut o = LzmaOptions::preset(1).unwrap();
    o.dict_size = DICT;
    let mut enc = lzflow_lzma::Lzma2Encoder::new(&o).unwrap();
    let comp = common::encode_with(&mut enc, &data, 1 << 20, 1 << 16);
    let want = single(&comp, Limits::NONE);
    assert_eq!(want.0, data);
    for budget in [u64::MAX, 1] {
        same(
            &want,
            &drive_whole(&mut mt(2, budget, Limits::NONE), &comp),
            "no resets",
        );
    }
}

#[test]
fn damage_anywhere_gives_the_same_output_and_error() {
    let (_, comp) = stream(5 * PIECE, 6);
    let mut rng = Rng(11);
    for i in 0..60 {
        let mut bad = comp.clone();
        // Early, late and everywhere between; headers too.
        let at = match i % 3 {
            0 => rng.below(200),
            1 => comp.len() - 1 - rng.below(300),
            _ => rng.below(comp.len()),
        };
        bad[at] ^= 1 << rng.below(8);
        let want = single(&bad, Limits::NONE);
        // The last: segments of two pieces, a reset inside each (the
        // workers decode a segment into its output, resets and all).
        for (threads, budget, min) in [
            (2, u64::MAX, 0),
            (3, 200 << 10, 0),
            (2, u64::MAX, 2 * PIECE as u64),
        ] {
            let mut dec = mt(threads, budget, Limits::NONE);
            dec.set_min_segment(min);
            let got = drive_random(&mut dec, &bad, i);
            same(
                &want,
                &got,
                &format!("byte {at} damaged, {threads} threads, segments from {min}"),
            );
        }
    }
}

#[test]
fn a_reset_in_place_of_the_end_byte_is_a_truncation_at_the_end() {
    // Found by fuzzing (mt_lzma2_same): the last segment's first byte,
    // held back while the scanner waited for its header, was decoded as
    // if more input could follow; the decoder asked for input after the
    // last.
    let (_, comp) = stream(3 * PIECE, 14);
    for control in [0x01, 0xE0, 0xFF] {
        let mut bad = comp.clone();
        *bad.last_mut().unwrap() = control;
        let want = single(&bad, Limits::NONE);
        assert_eq!(want.1, Err(LzmaError::Truncated));
        for budget in [u64::MAX, 1] {
            let what = format!("control {control:#x}, budget {budget}");
            same(
                &want,
                &drive_whole(&mut mt(2, budget, Limits::NONE), &bad),
                &what,
            );
            same(
                &want,
                &drive_bytewise_in(&mut mt(2, budget, Limits::NONE), &bad),
                &format!("{what}, 1-byte input"),
            );
        }
    }
}

#[test]
fn cut_short_anywhere_gives_the_same_output_and_error() {
    let (_, comp) = stream(4 * PIECE, 8);
    let mut rng = Rng(13);
    for _ in 0..40 {
        let cut = &comp[..rng.below(comp.len())];
        let want = single(cut, Limits::NONE);
        assert!(want.1.is_err());
        same(
            &want,
            &drive_whole(&mut mt(2, u64::MAX, Limits::NONE), cut),
            "cut",
        );
    }
}

#[test]
fn the_output_limit_stops_at_the_same_byte() {
    let (data, comp) = stream(4 * PIECE, 9);
    for limit in [
        0,
        1,
        PIECE as u64 - 1,
        PIECE as u64,
        2 * PIECE as u64 + 3,
        data.len() as u64,
    ] {
        let limits = Limits {
            output: limit,
            ..Limits::NONE
        };
        let want = single(&comp, limits);
        let got = drive_whole(&mut mt(2, u64::MAX, limits), &comp);
        same(&want, &got, &format!("limit {limit}"));
    }
}

#[test]
fn non_blocking_mode_never_waits_and_says_when_to_call_again() {
    let (data, comp) = stream(6 * PIECE, 10);
    let mut dec = mt(2, u64::MAX, Limits::NONE);
    dec.set_nonblocking(true);
    let mut out = Vec::new();
    let mut buf = vec![0u8; 1 << 16];
    let mut pos = 0;
    let mut idle = 0;
    loop {
        let mut input = InBuf::new(&comp[pos..]).with_last(true);
        let mut output = OutBuf::new(&mut buf);
        let started = std::time::Instant::now();
        let r = dec.decode(&mut input, &mut output).unwrap();
        assert!(started.elapsed().as_millis() < 2_000, "a call blocked");
        out.extend_from_slice(output.written());
        pos += input.pos();
        if r == Progress::StreamEnd {
            break;
        }
        if input.pos() == 0 && output.pos() == 0 {
            // Stalled on the workers: the readiness handle wakes us.
            idle += 1;
            std::thread::sleep(std::time::Duration::from_millis(1));
        }
        assert!(idle < 100_000);
    }
    assert!(out == data);
}

#[test]
fn small_pieces_go_to_the_workers_together() {
    let (data, comp) = stream(7 * PIECE + 5_000, 12);
    for min in [1, PIECE as u64, 3 * PIECE as u64, u64::MAX] {
        let mut dec = mt(2, u64::MAX, Limits::NONE);
        dec.set_min_segment(min);
        let got = drive_random(&mut dec, &comp, min);
        assert_eq!(got.1, Ok(comp.len()), "min {min}");
        assert!(got.0 == data, "min {min}");
    }
}

#[test]
fn decoders_are_send() {
    fn send<T: Send>() {}
    send::<MtLzma2Decoder>();
    let _: &dyn Decode<Error = lzflow_lzma::LzmaError> = &mt(1, 1, Limits::NONE);
}
