//! Round trips of the LZMA2, LZMA1 and .lzma encoders through liblzma,
//! split independence, chunk layout, flush/reset and option errors.

mod common;

use std::io::Read;

use common::{encode_with, finish_into};

use liblzma::stream::{Filters, Stream};
use lzflow_core::{Encode, InBuf, OutBuf, Progress};
use lzflow_lzma::{
    AloneEncoder, Lzma2Encoder, LzmaEncoder, LzmaError, LzmaOptions, MatchFinder, Mode,
};

/// Deterministic xorshift generator.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

fn random_bytes(n: usize, seed: u64) -> Vec<u8> {
    let mut r = Rng(seed);
    (0..n).map(|_| r.next() as u8).collect()
}

/// Text-like data: words from a small vocabulary with punctuation.
fn text(n: usize, seed: u64) -> Vec<u8> {
    const WORDS: &[&str] = &[
        "the",
        "stream",
        "decoder",
        "window",
        "match",
        "literal",
        "of",
        "and",
        "LZMA2",
        "chunk",
        "range",
        "coder",
        "probability",
        "in",
        "a",
        "to",
        "is",
        "dictionary",
        "xz",
        "encoder",
        "struct",
        "fn",
        "let",
        "mut",
        "return",
        "0x80",
        "{",
        "}",
        ";",
        "position",
        "state",
    ];
    let mut r = Rng(seed);
    let mut v = Vec::with_capacity(n + 16);
    while v.len() < n {
        v.extend_from_slice(WORDS[r.below(WORDS.len() as u64) as usize].as_bytes());
        v.push(match r.below(12) {
            0 => b'\n',
            1 => b',',
            _ => b' ',
        });
    }
    v.truncate(n);
    v
}

/// A mix: text, runs, random blocks, repeats of earlier data far back.
fn mixed(n: usize, seed: u64) -> Vec<u8> {
    let mut r = Rng(seed);
    let mut v = Vec::with_capacity(n + 70_000);
    while v.len() < n {
        match r.below(5) {
            0 => v.extend(text(1 + r.below(20_000) as usize, r.next())),
            1 => {
                let b = r.next() as u8;
                v.extend(std::iter::repeat_n(b, 1 + r.below(3000) as usize));
            }
            2 => v.extend(random_bytes(1 + r.below(5000) as usize, r.next())),
            _ if !v.is_empty() => {
                let len = 1 + r.below(60_000) as usize;
                let start = r.below(v.len() as u64) as usize;
                let end = (start + len).min(v.len());
                let copy = v[start..end].to_vec();
                v.extend(copy);
            }
            _ => {}
        }
    }
    v.truncate(n);
    v
}

fn lzma2(opts: &LzmaOptions, data: &[u8]) -> Vec<u8> {
    let mut enc = Lzma2Encoder::new(opts).unwrap();
    encode_with(&mut enc, data, 1 << 20, 1 << 16)
}

fn liblzma_opts(opts: &LzmaOptions) -> liblzma::stream::LzmaOptions {
    let mut o = liblzma::stream::LzmaOptions::new_preset(6).unwrap();
    o.dict_size(opts.dict_size)
        .literal_context_bits(opts.lc)
        .literal_position_bits(opts.lp)
        .position_bits(opts.pb);
    o
}

fn unlzma2(comp: &[u8], opts: &LzmaOptions) -> Vec<u8> {
    let mut f = Filters::new();
    f.lzma2(&liblzma_opts(opts));
    let s = Stream::new_raw_decoder(&f).unwrap();
    let mut out = Vec::new();
    liblzma::read::XzDecoder::new_stream(comp, s)
        .read_to_end(&mut out)
        .expect("liblzma decodes our LZMA2");
    out
}

fn unlzma_alone(comp: &[u8]) -> Vec<u8> {
    let s = Stream::new_lzma_decoder(u64::MAX).unwrap();
    let mut out = Vec::new();
    liblzma::read::XzDecoder::new_stream(comp, s)
        .read_to_end(&mut out)
        .expect("liblzma decodes our .lzma");
    out
}

fn small_dict(mut o: LzmaOptions) -> LzmaOptions {
    // Keep test memory modest; the dictionary still spans the test data.
    o.dict_size = o.dict_size.min(4 << 20);
    o
}

#[test]
fn every_preset_round_trips_through_liblzma() {
    let data = mixed(400_000, 1);
    let mut sizes = Vec::new();
    for level in 0..=9 {
        for extreme in [false, true] {
            if extreme && ![0, 3, 5, 9].contains(&level) {
                continue;
            }
            let o = if extreme {
                LzmaOptions::preset_extreme(level).unwrap()
            } else {
                LzmaOptions::preset(level).unwrap()
            };
            // The real preset, dictionary included (up to 64 MiB).
            let comp = lzma2(&o, &data);
            assert_eq!(unlzma2(&comp, &o), data, "preset {level} extreme {extreme}");
            sizes.push((level, extreme, comp.len()));
        }
    }
    // Normal mode must beat fast mode on this data.
    let size = |l, e| sizes.iter().find(|s| s.0 == l && s.1 == e).unwrap().2;
    assert!(size(6, false) < size(1, false), "{sizes:?}");
    assert!(size(9, true) <= size(6, false), "{sizes:?}");
}

#[test]
fn sizes_and_kinds_of_data_round_trip() {
    let sets: Vec<(&str, Vec<u8>)> = vec![
        ("empty", vec![]),
        ("one", vec![42]),
        ("two", vec![1, 2]),
        ("three", vec![7, 7, 7]),
        ("zeros", vec![0; 100_000]),
        ("random", random_bytes(150_000, 7)),
        ("text", text(300_000, 3)),
        ("mixed", mixed(3 << 20, 11)),
    ];
    for level in [0, 2, 6] {
        let o = small_dict(LzmaOptions::preset(level).unwrap());
        for (name, data) in &sets {
            if data.len() > 1 << 20 && level == 6 {
                continue; // covered by the big test below
            }
            let comp = lzma2(&o, data);
            assert_eq!(&unlzma2(&comp, &o), data, "{name} at preset {level}");
        }
    }
}

#[test]
fn several_mib_in_normal_mode_spanning_many_chunks() {
    let data = mixed(5 << 20, 5);
    let o = small_dict(LzmaOptions::preset(5).unwrap());
    let comp = lzma2(&o, &data);
    assert_eq!(unlzma2(&comp, &o), data);
}

#[test]
fn window_slides_when_input_outgrows_it() {
    // Small dictionaries make the window (history + reserve + lookahead)
    // much smaller than the input, so it is moved many times, with matches
    // reaching back across each move.
    let data = mixed(7 << 20, 17);
    for level in [2, 6] {
        let mut o = LzmaOptions::preset(level).unwrap();
        o.dict_size = 1 << 20;
        let comp = lzma2(&o, &data);
        assert_eq!(unlzma2(&comp, &o), data, "LZMA2 preset {level}");
        o.dict_size = 64 << 10;
        let mut enc = AloneEncoder::new(&o).unwrap();
        let file = encode_with(&mut enc, &data, 100_000, 1 << 16);
        assert_eq!(unlzma_alone(&file), data, ".lzma preset {level}");
    }
}

#[test]
fn every_match_finder_in_both_modes() {
    let data = mixed(300_000, 21);
    for mf in [
        MatchFinder::Hc3,
        MatchFinder::Hc4,
        MatchFinder::Bt2,
        MatchFinder::Bt3,
        MatchFinder::Bt4,
    ] {
        for mode in [Mode::Fast, Mode::Normal] {
            let mut o = LzmaOptions::preset(6).unwrap();
            o.dict_size = 1 << 16; // distances get clamped by a small dictionary
            o.mf = mf;
            o.mode = mode;
            o.nice_len = 40;
            let comp = lzma2(&o, &data);
            assert_eq!(unlzma2(&comp, &o), data, "{mf:?} {mode:?}");
        }
    }
}

#[test]
fn lc_lp_pb_variants_round_trip() {
    let data = mixed(200_000, 9);
    for (lc, lp, pb) in [
        (0, 0, 0),
        (4, 0, 0),
        (0, 4, 4),
        (1, 3, 1),
        (2, 2, 3),
        (3, 1, 4),
    ] {
        for level in [1, 6] {
            let mut o = small_dict(LzmaOptions::preset(level).unwrap());
            (o.lc, o.lp, o.pb) = (lc, lp, pb);
            let comp = lzma2(&o, &data);
            assert_eq!(unlzma2(&comp, &o), data, "lc={lc} lp={lp} pb={pb}");
        }
    }
    // LZMA1 through .lzma (liblzma decodes only lc + lp <= 4).
    for (lc, lp, pb) in [(4, 0, 4), (0, 4, 0), (0, 0, 0)] {
        let mut o = small_dict(LzmaOptions::preset(6).unwrap());
        (o.lc, o.lp, o.pb) = (lc, lp, pb);
        let mut enc = AloneEncoder::new(&o).unwrap();
        let comp = encode_with(&mut enc, &data, 1 << 20, 4096);
        assert_eq!(unlzma_alone(&comp), data, "lc={lc} lp={lp} pb={pb}");
    }
}

#[test]
fn output_is_independent_of_input_and_output_splits() {
    let data = mixed(600_000, 13);
    for level in [0, 3, 6] {
        let o = small_dict(LzmaOptions::preset(level).unwrap());
        let whole = lzma2(&o, &data);
        // Random input slices, random small output buffers.
        let mut enc = Lzma2Encoder::new(&o).unwrap();
        let mut r = Rng(level as u64 + 99);
        let mut out = Vec::new();
        let mut pos = 0;
        while pos < data.len() {
            let n = (1 + r.below(70_000) as usize).min(data.len() - pos);
            let mut input = InBuf::new(&data[pos..pos + n]);
            loop {
                let mut buf = vec![0u8; 1 + r.below(300) as usize];
                let mut ob = OutBuf::new(&mut buf);
                let p = enc.encode(&mut input, &mut ob).unwrap();
                out.extend_from_slice(ob.written());
                if p == Progress::NeedInput {
                    break;
                }
            }
            pos += n;
        }
        let mut one = [0u8; 1];
        finish_into(&mut enc, &mut one, &mut out);
        assert_eq!(out, whole, "preset {level}: random splits");
        // 1-byte input slices and 1-byte output buffers.
        let small = &data[..60_000];
        let mut enc = Lzma2Encoder::new(&o).unwrap();
        let a = encode_with(&mut enc, small, 1, 1);
        assert_eq!(a, lzma2(&o, small), "preset {level}: 1-byte slices");
    }
    // The same for LZMA1 in .lzma.
    let o = small_dict(LzmaOptions::preset(6).unwrap());
    let small = &data[..200_000];
    let a = encode_with(&mut AloneEncoder::new(&o).unwrap(), small, 1 << 20, 1 << 16);
    let b = encode_with(&mut AloneEncoder::new(&o).unwrap(), small, 7, 1);
    assert_eq!(a, b);
}

#[test]
fn incompressible_data_is_stored_in_uncompressed_chunks() {
    let data = random_bytes(200_000, 77);
    let o = LzmaOptions::preset(1).unwrap();
    let comp = lzma2(&o, &data);
    assert_eq!(unlzma2(&comp, &o), data);
    // First chunk: uncompressed with dictionary reset, 64 KiB.
    assert_eq!(comp[0], 0x01);
    // Walk the chunks: every one is raw (0x01 first, then 0x02), each at
    // most 64 KiB, then the end byte.
    let mut i = 0;
    let mut total = 0;
    let mut first = true;
    loop {
        let c = comp[i];
        if c == 0 {
            assert_eq!(i + 1, comp.len());
            break;
        }
        assert_eq!(c, if first { 0x01 } else { 0x02 });
        first = false;
        let n = (usize::from(comp[i + 1]) << 8 | usize::from(comp[i + 2])) + 1;
        assert!(n <= 1 << 16);
        total += n;
        i += 3 + n;
    }
    assert_eq!(total, data.len());
    assert!(comp.len() <= data.len() + 3 * 4 + 1, "{}", comp.len());
}

#[test]
fn chunk_headers_follow_the_reset_rules() {
    // Compressible: first chunk resets everything (0xE0 + props), later
    // chunks continue the state (0x80..=0x9F), compressed size <= 64 KiB,
    // uncompressed <= 2 MiB.
    let data = text(6 << 20, 8);
    let o = small_dict(LzmaOptions::preset(1).unwrap());
    let comp = lzma2(&o, &data);
    assert_eq!(unlzma2(&comp, &o), data);
    let mut i = 0;
    let mut chunks = 0;
    let mut total = 0;
    while comp[i] != 0 {
        let c = comp[i];
        assert!(c >= 0x80, "all chunks are LZMA chunks");
        let u = ((usize::from(c & 0x1F) << 16)
            | usize::from(comp[i + 1]) << 8
            | usize::from(comp[i + 2]))
            + 1;
        let p = (usize::from(comp[i + 3]) << 8 | usize::from(comp[i + 4])) + 1;
        assert!(u <= 2 << 20 && p <= 1 << 16);
        if chunks == 0 {
            assert_eq!(c & 0xE0, 0xE0);
            assert_eq!(comp[i + 5], 0x5D);
            i += 6 + p;
        } else {
            assert_eq!(c & 0xE0, 0x80);
            i += 5 + p;
        }
        chunks += 1;
        total += u;
    }
    assert_eq!(total, data.len());
    assert!(chunks >= 3);

    // Random data then text: raw chunks first, then an LZMA chunk that
    // sets the properties and resets the state (0xC0) without a dictionary
    // reset, and it may refer back into the raw chunk.
    let mut data = random_bytes(30_000, 1);
    let copy = data.clone();
    data.extend_from_slice(&copy);
    data.extend(text(50_000, 2));
    let mut enc = Lzma2Encoder::new(&o).unwrap();
    let mut out = Vec::new();
    let mut buf = vec![0u8; 1 << 17];
    let mut input = InBuf::new(&data[..30_000]);
    let mut ob = OutBuf::new(&mut buf);
    assert_eq!(
        enc.encode(&mut input, &mut ob).unwrap(),
        Progress::NeedInput
    );
    assert_eq!(enc.flush(&mut ob).unwrap(), Progress::NeedInput);
    out.extend_from_slice(ob.written());
    assert_eq!(out[0], 0x01, "random data is stored");
    let mut input = InBuf::new(&data[30_000..]);
    let mut ob = OutBuf::new(&mut buf);
    assert_eq!(
        enc.encode(&mut input, &mut ob).unwrap(),
        Progress::NeedInput
    );
    out.extend_from_slice(ob.written());
    finish_into(&mut enc, &mut buf, &mut out);
    assert_eq!(
        out[3 + 30_000] & 0xE0,
        0xC0,
        "props + state reset, no dict reset"
    );
    assert_eq!(unlzma2(&out, &o), data);
    assert!(
        out.len() < 30_000 + 30_000 / 2,
        "the repeat refers to the raw chunk"
    );
}

#[test]
fn flush_makes_everything_so_far_decodable() {
    let data = mixed(300_000, 31);
    for level in [0, 6] {
        let o = small_dict(LzmaOptions::preset(level).unwrap());
        let mut enc = Lzma2Encoder::new(&o).unwrap();
        let mut out = Vec::new();
        let mut buf = vec![0u8; 1000];
        let mut fed = 0;
        for cut in [1, 1000, 1001, 120_000, 300_000] {
            let mut input = InBuf::new(&data[fed..cut]);
            loop {
                let mut ob = OutBuf::new(&mut buf);
                let p = enc.encode(&mut input, &mut ob).unwrap();
                out.extend_from_slice(ob.written());
                if p == Progress::NeedInput {
                    break;
                }
            }
            loop {
                let mut ob = OutBuf::new(&mut buf);
                let p = enc.flush(&mut ob).unwrap();
                out.extend_from_slice(ob.written());
                if p == Progress::NeedInput {
                    break;
                }
            }
            fed = cut;
            let mut prefix = out.clone();
            prefix.push(0);
            assert_eq!(
                unlzma2(&prefix, &o),
                &data[..cut],
                "preset {level} cut {cut}"
            );
        }
        finish_into(&mut enc, &mut buf, &mut out);
        assert_eq!(unlzma2(&out, &o), data);
        // A second flush right after a flush adds nothing.
        let mut ob = OutBuf::new(&mut buf);
        assert_eq!(enc.flush(&mut ob).unwrap(), Progress::NeedInput);
        assert_eq!(ob.pos(), 0);
    }
}

#[test]
fn reset_starts_an_independent_stream_with_identical_output() {
    let a = mixed(200_000, 41);
    let b = text(150_000, 42);
    for level in [1, 6] {
        let o = small_dict(LzmaOptions::preset(level).unwrap());
        let mut enc = Lzma2Encoder::new(&o).unwrap();
        let first = encode_with(&mut enc, &a, 5000, 999);
        enc.reset();
        let second = encode_with(&mut enc, &b, 100_000, 1 << 16);
        assert_eq!(first, lzma2(&o, &a));
        assert_eq!(second, lzma2(&o, &b));
        assert_eq!(unlzma2(&second, &o), b);
    }
}

#[test]
fn finish_is_sticky_and_encode_after_finish_is_a_usage_error() {
    let o = LzmaOptions::preset(0).unwrap();
    let mut enc = Lzma2Encoder::new(&o).unwrap();
    let out = encode_with(&mut enc, b"hello hello hello", 100, 100);
    assert_eq!(unlzma2(&out, &o), b"hello hello hello");
    let mut buf = [0u8; 16];
    let mut ob = OutBuf::new(&mut buf);
    assert_eq!(enc.finish(&mut ob).unwrap(), Progress::StreamEnd);
    assert_eq!(ob.pos(), 0);
    let mut input = InBuf::new(b"more");
    assert_eq!(
        enc.encode(&mut input, &mut ob),
        Err(LzmaError::Usage("encode() called after finish()"))
    );
    // Empty stream: just the end byte.
    let mut enc = Lzma2Encoder::new(&o).unwrap();
    assert_eq!(encode_with(&mut enc, b"", 1, 1), [0x00]);
}

#[test]
fn bad_options_are_rejected_with_typed_errors() {
    let mut o = LzmaOptions::preset(6).unwrap();
    o.lc = 3;
    o.lp = 2;
    assert_eq!(
        Lzma2Encoder::new(&o).err(),
        Some(LzmaError::InvalidLcLpPb {
            lc: 3,
            lp: 2,
            pb: 2
        })
    );
    assert!(
        LzmaEncoder::new(&o, true).is_ok(),
        "LZMA1 allows lc + lp > 4"
    );
    o.lp = 5;
    assert_eq!(
        LzmaEncoder::new(&o, true).err(),
        Some(LzmaError::InvalidLcLpPb {
            lc: 3,
            lp: 5,
            pb: 2
        })
    );
    let mut o = LzmaOptions::preset(6).unwrap();
    o.nice_len = 274;
    assert!(matches!(Lzma2Encoder::new(&o), Err(LzmaError::Usage(_))));
    o.nice_len = 64;
    o.dict_size = 1000;
    let e = Lzma2Encoder::new(&o).unwrap_err();
    assert_eq!(
        e,
        LzmaError::Usage("dict_size must be between 4 KiB and 1.5 GiB")
    );
    assert_eq!(
        std::io::Error::from(e).kind(),
        std::io::ErrorKind::InvalidInput
    );
    assert!(LzmaOptions::preset_extreme(10).is_err());
}

#[test]
fn props_byte_and_memory_usage() {
    let o = LzmaOptions::preset(6).unwrap();
    let enc = Lzma2Encoder::new(&o).unwrap();
    assert_eq!(enc.props_byte(), 22); // 8 MiB
    let m6 = Lzma2Encoder::memory_usage(&o);
    assert!((90 << 20..100 << 20).contains(&m6), "{m6}");
    let m0 = Lzma2Encoder::memory_usage(&LzmaOptions::preset(0).unwrap());
    assert!(m0 < 6 << 20, "{m0}");
    let m9 = Lzma2Encoder::memory_usage(&LzmaOptions::preset(9).unwrap());
    assert!((600 << 20..720 << 20).contains(&m9), "{m9}");
}

#[test]
fn raw_lzma1_with_and_without_end_marker() {
    let data = mixed(100_000, 51);
    let o = small_dict(LzmaOptions::preset(6).unwrap());
    for end_marker in [true, false] {
        let mut enc = LzmaEncoder::new(&o, end_marker).unwrap();
        let raw = encode_with(&mut enc, &data, 3333, 777);
        // Wrap in a .lzma header; with a known size the marker is optional.
        let mut file = vec![o.props().to_byte()];
        file.extend_from_slice(&o.dict_size.to_le_bytes());
        let size = if end_marker {
            u64::MAX
        } else {
            data.len() as u64
        };
        file.extend_from_slice(&size.to_le_bytes());
        file.extend_from_slice(&raw);
        assert_eq!(unlzma_alone(&file), data, "end marker {end_marker}");
    }
}

mod proptests {
    use super::*;
    use proptest::prelude::*;

    /// Small inputs built from literals, runs and back-references, so that
    /// every symbol kind and the end cases (tiny lookahead) are exercised.
    fn input() -> impl Strategy<Value = Vec<u8>> {
        proptest::collection::vec((0u8..4, any::<u8>(), 1usize..300, 1usize..2000), 0..40).prop_map(
            |ops| {
                let mut v: Vec<u8> = Vec::new();
                for (kind, b, len, dist) in ops {
                    match kind {
                        0 => v.push(b),
                        1 => v.extend(std::iter::repeat_n(b, len)),
                        2 if !v.is_empty() => {
                            let d = dist.min(v.len());
                            for _ in 0..len {
                                v.push(v[v.len() - d]);
                            }
                        }
                        _ => v.extend(random_bytes(len, u64::from(b) + 1)),
                    }
                }
                v
            },
        )
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(128))]
        #[test]
        fn random_inputs_options_and_splits(
            data in input(),
            level in 0u32..10,
            extreme in any::<bool>(),
            lclppb in (0u32..5, 0u32..5, 0u32..5),
            in_step in 1usize..5000,
            out_step in 1usize..700,
        ) {
            let mut o = if extreme {
                LzmaOptions::preset_extreme(level).unwrap()
            } else {
                LzmaOptions::preset(level).unwrap()
            };
            o.dict_size = 1 << 16;
            let (lc, lp, pb) = lclppb;
            o.lc = lc.min(4 - lp.min(4));
            o.lp = lp.min(4);
            o.pb = pb;
            let whole = lzma2(&o, &data);
            prop_assert_eq!(unlzma2(&whole, &o), data.clone());
            let mut enc = Lzma2Encoder::new(&o).unwrap();
            let split = encode_with(&mut enc, &data, in_step, out_step);
            prop_assert_eq!(split, whole);
            let alone = encode_with(&mut AloneEncoder::new(&o).unwrap(), &data, in_step, out_step);
            prop_assert_eq!(unlzma_alone(&alone), data);
        }
    }
}

#[test]
fn encoders_can_move_to_other_threads() {
    fn send<T: Send + 'static>(_: &T) {}
    let o = LzmaOptions::preset(0).unwrap();
    let enc = Lzma2Encoder::new(&o).unwrap();
    send(&enc);
    send(&LzmaEncoder::new(&o, true).unwrap());
    send(&AloneEncoder::new(&o).unwrap());
    // And actually encode on another thread.
    let data = text(50_000, 4);
    let d2 = data.clone();
    let comp = std::thread::spawn(move || {
        let mut enc = enc;
        encode_with(&mut enc, &d2, 4096, 4096)
    })
    .join()
    .unwrap();
    assert_eq!(unlzma2(&comp, &o), data);
}

#[test]
fn lzma1_flush_codes_buffered_input_and_the_stream_goes_on() {
    let data = mixed(400_000, 61);
    let o = small_dict(LzmaOptions::preset(6).unwrap());
    let mut enc = AloneEncoder::new(&o).unwrap();
    let mut out = Vec::new();
    let mut buf = vec![0u8; 777];
    let mut input = InBuf::new(&data[..250_000]);
    loop {
        let mut ob = OutBuf::new(&mut buf);
        let p = enc.encode(&mut input, &mut ob).unwrap();
        out.extend_from_slice(ob.written());
        if p == Progress::NeedInput {
            break;
        }
    }
    let before_flush = out.len();
    loop {
        let mut ob = OutBuf::new(&mut buf);
        let p = enc.flush(&mut ob).unwrap();
        out.extend_from_slice(ob.written());
        if p == Progress::NeedInput {
            break;
        }
    }
    // The flush coded the buffered lookahead (~4 KiB or more of input).
    assert!(out.len() > before_flush);
    let mut input = InBuf::new(&data[250_000..]);
    loop {
        let mut ob = OutBuf::new(&mut buf);
        let p = enc.encode(&mut input, &mut ob).unwrap();
        out.extend_from_slice(ob.written());
        if p == Progress::NeedInput {
            break;
        }
    }
    finish_into(&mut enc, &mut buf, &mut out);
    assert_eq!(unlzma_alone(&out), data);
}
