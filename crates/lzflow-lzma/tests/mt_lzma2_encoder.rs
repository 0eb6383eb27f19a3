//! The multi-threaded LZMA2 encoder: the same bytes for any thread count
//! and any split of input and output, equal to single-threaded pieces
//! joined at dictionary resets, and decodable by liblzma and by lzflow.

mod common;

use common::{
    drive_whole, encode_into, encode_with, finish_into, flush_into, liblzma_lzma2_decode,
    text_like, Rng,
};
use lzflow_core::{Encode, InBuf, OutBuf};
use lzflow_lzma::{
    DecoderOptions, Lzma2Decoder, Lzma2Encoder, LzmaError, LzmaOptions, MtLzma2Encoder,
};

const PIECE: usize = 1 << 20;

fn options() -> LzmaOptions {
    let mut o = LzmaOptions::preset(1).unwrap();
    o.dict_size = 256 << 10;
    o
}

fn decode(comp: &[u8], dict: u32) -> Vec<u8> {
    let mut dec = Lzma2Decoder::new(dict, &DecoderOptions::default()).unwrap();
    let (out, end) = drive_whole(&mut dec, comp);
    assert_eq!(end, Ok(comp.len()), "the stream ends with the input");
    out
}

/// What the pieces give when each is compressed alone and joined.
fn joined_pieces(data: &[u8], o: &LzmaOptions) -> Vec<u8> {
    let mut out = Vec::new();
    for piece in data.chunks(PIECE) {
        let mut enc = Lzma2Encoder::new(o).unwrap();
        let mut one = encode_with(&mut enc, piece, piece.len(), 1 << 16);
        assert_eq!(one.pop(), Some(0x00), "end marker");
        out.extend_from_slice(&one);
    }
    out.push(0x00);
    out
}

#[test]
fn any_thread_count_gives_the_joined_pieces() {
    let o = options();
    let data = text_like(3 * PIECE + 12_345, 7);
    let want = joined_pieces(&data, &o);
    for threads in [1, 2, 3] {
        let mut enc = MtLzma2Encoder::new(&o, threads, PIECE).unwrap();
        let got = encode_with(&mut enc, &data, 1 << 16, 1 << 16);
        assert!(got == want, "{threads} threads: different bytes");
    }
    assert_eq!(decode(&want, o.dict_size), data);
    assert_eq!(liblzma_lzma2_decode(&want, o.dict_size, data.len()), data);
}

#[test]
fn splits_of_input_and_output_do_not_matter() {
    let o = options();
    // Exactly two pieces: the last piece boundary is the end of input.
    let data = text_like(2 * PIECE, 8);
    let want = joined_pieces(&data, &o);
    let mut rng = Rng(5);
    for _ in 0..3 {
        let in_step = 1 + rng.below(200_000);
        let out_step = 1 + rng.below(9);
        let mut enc = MtLzma2Encoder::new(&o, 2, PIECE).unwrap();
        let got = encode_with(&mut enc, &data, in_step, out_step);
        assert!(got == want, "split {in_step}/{out_step}: different bytes");
    }
}

#[test]
fn empty_input_is_just_the_end_marker() {
    let mut enc = MtLzma2Encoder::new(&options(), 2, 0).unwrap();
    assert_eq!(encode_with(&mut enc, &[], 1, 16), [0x00]);
}

#[test]
fn flush_ends_a_piece_early_and_stays_decodable() {
    let o = options();
    let data = text_like(300_000, 9);
    let mut enc = MtLzma2Encoder::new(&o, 2, PIECE).unwrap();
    let mut out = Vec::new();
    let mut buf = vec![0u8; 4096];
    for half in data.chunks(150_000) {
        encode_into(&mut enc, half, &mut buf, &mut out);
        let before = out.len();
        flush_into(&mut enc, &mut buf, &mut out);
        assert!(out.len() > before, "flush wrote the piece");
    }
    finish_into(&mut enc, &mut buf, &mut out);
    assert_eq!(decode(&out, o.dict_size), data);
    let again = enc.encode(&mut InBuf::new(b"x"), &mut OutBuf::new(&mut buf));
    assert!(matches!(again, Err(LzmaError::Usage(_))));
}
