//! liblzma (the C library xz-utils is built on) decodes what lzflow's
//! encoders write back to the exact input: .xz at several presets, with a
//! non-default check, block size and filter chain, and .lzma. These are the
//! checks the facade's face tests made with liblzma before it became a
//! dependency of this crate only.

use std::io::{Read, Write};

use liblzma::stream::Stream;

/// Seeded text-like data with some random bytes (a xorshift generator, so
/// the same bytes on every machine).
fn sample_data(len: usize, seed: u64) -> Vec<u8> {
    let mut state = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    let words: [&[u8]; 6] = [b"stream ", b"lzflow ", b"\n", b"window ", b"0123", b"xz "];
    let mut out = Vec::with_capacity(len + 16);
    while out.len() < len {
        if next().is_multiple_of(16) {
            out.push(next() as u8);
        } else {
            out.extend_from_slice(words[(next() % 6) as usize]);
        }
    }
    out.truncate(len);
    out
}

/// Decodes with liblzma through `stream` (an .xz or an .lzma decoder).
fn liblzma_decode(data: &[u8], stream: Stream) -> Vec<u8> {
    let mut out = Vec::new();
    liblzma::read::XzDecoder::new_stream(data, stream)
        .read_to_end(&mut out)
        .expect("liblzma decodes lzflow's output");
    out
}

fn xz_decoder() -> Stream {
    Stream::new_stream_decoder(u64::MAX, liblzma::stream::CONCATENATED).unwrap()
}

#[test]
fn xz_presets_decode_with_liblzma() {
    let payload = sample_data(300_000, 41);
    for preset in [0, 1, 6] {
        let mut w = lzflow::write::XzEncoder::new(Vec::new(), preset);
        w.write_all(&payload).unwrap();
        let xz = w.finish().unwrap();
        assert!(
            liblzma_decode(&xz, xz_decoder()) == payload,
            "preset {preset}"
        );
    }
    let mut w = lzflow::write::XzEncoder::builder()
        .preset(1)
        .extreme()
        .build(Vec::new());
    w.write_all(&payload).unwrap();
    let extreme = w.finish().unwrap();
    assert!(liblzma_decode(&extreme, xz_decoder()) == payload);
}

#[test]
fn xz_with_sha256_blocks_and_delta_decodes_with_liblzma() {
    let payload = sample_data(200_000, 43);
    let mut w = lzflow::write::XzEncoder::builder()
        .preset(1)
        .check(lzflow_xz::Check::Sha256)
        .block_size(64 << 10)
        .filter(
            lzflow_filters::FilterConfig::new(lzflow_filters::FilterKind::Delta).with_distance(4),
        )
        .build(Vec::new());
    w.write_all(&payload).unwrap();
    let xz = w.finish().unwrap();
    assert!(liblzma_decode(&xz, xz_decoder()) == payload);
}

#[test]
fn lzma_alone_decodes_with_liblzma() {
    let payload = sample_data(100_000, 42);
    let mut w = lzflow::write::LzmaEncoder::new(Vec::new(), 3);
    w.write_all(&payload).unwrap();
    let lzma = w.finish().unwrap();
    let stream = Stream::new_lzma_decoder(u64::MAX).unwrap();
    assert!(liblzma_decode(&lzma, stream) == payload);
}
