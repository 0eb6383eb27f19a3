//! The registry's Deflate, Deflate64 and Zstandard decoders through
//! `new_decoder`: known content from fixtures (`tests/data/README.md`),
//! round trips where a Rust encoder exists, the same bytes however input
//! and output are split, typed errors (never a panic) for cut and corrupt
//! data, and Zstandard's window checked against the memory limit.
// The codecs under test are optional features (all on by default).
#![cfg(all(
    feature = "deflate",
    feature = "deflate64",
    feature = "bzip2",
    feature = "zstd"
))]

use std::path::PathBuf;
use std::process::Command;

use lzflow_core::{Decode, InBuf, LimitExceeded, Limits, OutBuf, Progress};
use lzflow_lzma::DecoderOptions;
use lzflow_methods::{
    check_decoder_memory, new_decoder, BoxedDecoder, Method, MethodError, Properties,
};
use sha2::{Digest, Sha256};

/// A file under `tests/data`.
fn fixture(name: &str) -> Vec<u8> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(name);
    std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The generator the fixtures' content was made with (xorshift32).
struct Rng(u32);

impl Rng {
    fn next(&mut self) -> u32 {
        let mut x = self.0;
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        self.0 = x;
        x
    }

    /// `n` bytes of words from a 16-word vocabulary.
    fn text(&mut self, n: usize) -> Vec<u8> {
        const WORDS: [&str; 16] = [
            "stream", "window", "match", "literal", "block", "frame", "entry", "archive",
            "deflate", "zstd", "huffman", "offset", "length", "checksum", "header", "table",
        ];
        let mut out = Vec::with_capacity(n + 16);
        while out.len() < n {
            let v = self.next();
            out.extend_from_slice(WORDS[(v % 16) as usize].as_bytes());
            out.push(if (v >> 8).is_multiple_of(11) {
                b'\n'
            } else {
                b' '
            });
        }
        out.truncate(n);
        out
    }

    /// `n` bytes that do not compress.
    fn noise(&mut self, n: usize) -> Vec<u8> {
        (0..n).map(|_| (self.next() >> 24) as u8).collect()
    }
}

/// What both Zstandard fixtures hold: text, a long run of zeros (RLE
/// blocks), noise (raw blocks) and the start of the text again.
fn zstd_content() -> Vec<u8> {
    let mut rng = Rng(0x9E37_79B9);
    let text = rng.text(60_000);
    let mut out = text.clone();
    out.resize(out.len() + 150_000, 0);
    out.extend(rng.noise(20_000));
    out.extend_from_slice(&text[..10_000]);
    out
}

/// What the Deflate64 fixture holds: noise repeated 48 KiB later (a match
/// farther than Deflate reaches), zeros between (matches longer than 258),
/// then text.
fn deflate64_content() -> Vec<u8> {
    let mut rng = Rng(1);
    let noise = rng.noise(8192);
    let mut out = noise.clone();
    out.resize(out.len() + 40_000, 0);
    out.extend_from_slice(&noise);
    out.extend(rng.text(5000));
    out
}

fn decoder(method: Method, limits: Limits) -> BoxedDecoder {
    let opts = DecoderOptions::default().with_limits(limits);
    new_decoder(&Properties::Plain(method), None, &opts).unwrap()
}

/// Decodes `data` handed over `in_step` bytes at a time into `out_step`
/// bytes of room at a time. Returns what was decoded and how it ended.
fn decode_split(
    dec: &mut BoxedDecoder,
    data: &[u8],
    in_step: usize,
    out_step: usize,
) -> (Vec<u8>, Result<(), MethodError>) {
    let mut out = Vec::new();
    let mut space = vec![0u8; out_step];
    let mut pos = 0;
    let mut idle = 0;
    loop {
        let end = data.len().min(pos + in_step);
        let mut input = InBuf::new(&data[pos..end]).with_last(end == data.len());
        let mut o = OutBuf::new(&mut space);
        let r = dec.decode(&mut input, &mut o);
        let (used, made) = (input.pos(), o.pos());
        out.extend_from_slice(o.written());
        pos += used;
        match r {
            Err(e) => return (out, Err(e)),
            Ok(Progress::StreamEnd) => return (out, Ok(())),
            Ok(Progress::NeedInput) => {
                assert!(input.is_empty(), "NeedInput with input left");
                assert!(!input.is_last(), "NeedInput at the end of the input");
            }
            Ok(Progress::OutputFull) => {}
        }
        idle = if used == 0 && made == 0 { idle + 1 } else { 0 };
        assert!(
            idle < 1000,
            "no progress at input {pos}, output {}",
            out.len()
        );
    }
}

/// Decodes `data` whole (as 64 KiB of input and output at a time).
fn decode_all(method: Method, data: &[u8]) -> Result<Vec<u8>, MethodError> {
    let (out, end) = decode_split(&mut decoder(method, Limits::NONE), data, 64 << 10, 64 << 10);
    end.map(|()| out)
}

/// The same bytes and the same end however the data is split.
fn assert_split_independent(method: Method, data: &[u8], want: &[u8]) {
    for (in_step, out_step) in [(1, 1), (1, 1 << 20), (1 << 20, 1), (7, 4093), (4096, 3)] {
        let (out, end) = decode_split(&mut decoder(method, Limits::NONE), data, in_step, out_step);
        if let Err(e) = end {
            panic!("{method} split {in_step}/{out_step}: {e}");
        }
        assert!(
            out == want,
            "{method} split {in_step}/{out_step}: other bytes"
        );
    }
}

/// Every cut of `data` (sampled with `stride`, and the last few bytes) ends
/// in the truncation error after a prefix of `want`.
fn assert_cuts_are_truncated(method: Method, data: &[u8], want: &[u8], stride: usize) {
    let cuts = (0..data.len())
        .step_by(stride)
        .chain(data.len().saturating_sub(4)..data.len());
    for cut in cuts {
        let (out, end) = decode_split(&mut decoder(method, Limits::NONE), &data[..cut], 4096, 4096);
        assert!(
            matches!(end, Err(MethodError::Truncated { .. })),
            "{method} cut at {cut}: {end:?}"
        );
        assert!(want.starts_with(&out), "{method} cut at {cut}: other bytes");
    }
}

/// Bit flips across `data` end in data or a typed error, never a panic or a
/// hang; returns how many were refused.
fn flip_bits(method: Method, data: &[u8], stride: usize) -> usize {
    let mut refused = 0;
    for at in (0..data.len()).step_by(stride) {
        for bit in [0, 3, 7] {
            let mut bad = data.to_vec();
            bad[at] ^= 1 << bit;
            match decode_split(&mut decoder(method, Limits::NONE), &bad, 1000, 1 << 16).1 {
                Ok(()) => {}
                Err(
                    MethodError::Data { .. }
                    | MethodError::Truncated { .. }
                    | MethodError::Limit(_)
                    | MethodError::Unsupported { .. },
                ) => refused += 1,
                Err(e) => panic!("{method}: flip at {at}.{bit}: unexpected {e:?}"),
            }
        }
    }
    refused
}

fn sha256(data: &[u8]) -> String {
    format!("{:x}", Sha256::digest(data))
}

/// A Zstandard skippable frame holding `payload`.
fn skippable(low: u8, payload: &[u8]) -> Vec<u8> {
    let mut f = vec![0x50 | low, 0x2A, 0x4D, 0x18];
    f.extend_from_slice(&(payload.len() as u32).to_le_bytes());
    f.extend_from_slice(payload);
    f
}

#[test]
fn the_fixture_generators_make_the_fixtures_content() {
    // The SHA-256 of the content the fixtures were made from (written by
    // a Python twin of these generators, see tests/data/README.md).
    assert_eq!(
        sha256(&zstd_content()),
        "c16bf60619a362517699a6b3936b3e49328e50fd0b1a06cec0b9fd5ecb2dc62f"
    );
    assert_eq!(
        sha256(&deflate64_content()),
        "f688e43ddcb7efaf095031424679e1c372ed527a3be1edecad45fe53f85c65eb"
    );
}

#[test]
fn deflate_round_trips_split_any_way() {
    let want = zstd_content();
    let packed = miniz_oxide::deflate::compress_to_vec(&want, 6);
    assert_eq!(decode_all(Method::Deflate, &packed).unwrap(), want);
    assert_split_independent(Method::Deflate, &packed, &want);
    assert_cuts_are_truncated(Method::Deflate, &packed, &want, 997);
    flip_bits(Method::Deflate, &packed[..packed.len().min(4000)], 53);
}

#[test]
fn deflate64_fixture_decodes_split_any_way() {
    let packed = fixture("far-matches.deflate64");
    let want = deflate64_content();
    assert_eq!(decode_all(Method::Deflate64, &packed).unwrap(), want);
    assert_split_independent(Method::Deflate64, &packed, &want);
    // Plain Deflate cannot read it: the stream uses Deflate64's codes.
    assert!(decode_all(Method::Deflate, &packed).is_err());
}

#[test]
fn deflate64_cut_is_truncated_and_corrupt_is_refused() {
    let packed = fixture("far-matches.deflate64");
    let want = deflate64_content();
    assert_cuts_are_truncated(Method::Deflate64, &packed, &want, 211);
    assert!(matches!(
        decode_all(Method::Deflate64, &[]),
        Err(MethodError::Truncated { .. })
    ));
    let refused = flip_bits(Method::Deflate64, &packed, 97);
    assert!(refused > 0, "no flip was refused");
    // The reserved block type (BTYPE 11) right away.
    assert!(matches!(
        decode_all(Method::Deflate64, &[0x07, 0, 0, 0]),
        Err(MethodError::Data { .. })
    ));
    // An error sticks. (The decoder gives the inflater the stream in
    // pieces of 4 KiB at fixed offsets, or the last one: a byte alone is
    // only read once it is the last.)
    let mut dec = decoder(Method::Deflate64, Limits::NONE);
    let mut space = [0u8; 16];
    assert_eq!(
        dec.decode(&mut InBuf::new(&[0x07]), &mut OutBuf::new(&mut space))
            .unwrap(),
        Progress::NeedInput
    );
    assert!(dec
        .decode(&mut InBuf::last(&[0]), &mut OutBuf::new(&mut space))
        .is_err());
    assert!(dec
        .decode(&mut InBuf::last(&[0]), &mut OutBuf::new(&mut space))
        .is_err());
}

/// The Deflate64 stream of the only entry of a zip archive `7zz` wrote.
fn deflate64_by_7zz(content: &[u8], tag: &str) -> Option<Vec<u8>> {
    if Command::new("7zz").arg("i").output().is_err() {
        eprintln!("SKIPPED: 7zz is not installed (the committed fixture still runs)");
        return None;
    }
    let dir = std::env::temp_dir().join(format!("lzflow-methods-d64-{}-{tag}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("content.bin"), content).unwrap();
    let status = Command::new("7zz")
        .current_dir(&dir)
        .args([
            "a",
            "-tzip",
            "-mm=Deflate64",
            "-mx9",
            "-bd",
            "out.zip",
            "content.bin",
        ])
        .output()
        .unwrap();
    assert!(status.status.success(), "7zz failed: {status:?}");
    let zip = std::fs::read(dir.join("out.zip")).unwrap();
    std::fs::remove_dir_all(&dir).unwrap();
    // The local file header: method at 8, compressed size at 18, name and
    // extra field lengths at 26 and 28.
    let u16_at = |at: usize| usize::from(u16::from_le_bytes([zip[at], zip[at + 1]]));
    assert_eq!(&zip[..4], b"PK\x03\x04");
    assert_eq!(u16_at(8), 9, "not Deflate64");
    let size = u32::from_le_bytes(zip[18..22].try_into().unwrap()) as usize;
    let start = 30 + u16_at(26) + u16_at(28);
    Some(zip[start..start + size].to_vec())
}

#[test]
fn deflate64_made_by_7zz_round_trips() {
    let mut content = zstd_content();
    content.extend(deflate64_content());
    let Some(packed) = deflate64_by_7zz(&content, "round-trip") else {
        return;
    };
    assert_eq!(decode_all(Method::Deflate64, &packed).unwrap(), content);
    let (out, end) = decode_split(&mut decoder(Method::Deflate64, Limits::NONE), &packed, 1, 1);
    end.unwrap();
    assert!(out == content, "1-byte splits: other bytes");
}

#[test]
fn zstd_round_trips_with_ruzstds_encoder() {
    use ruzstd::encoding::{compress_to_vec, CompressionLevel};
    for want in [zstd_content(), b"a".to_vec(), Vec::new()] {
        for level in [CompressionLevel::Uncompressed, CompressionLevel::Fastest] {
            let packed = compress_to_vec(&want[..], level);
            assert_eq!(decode_all(Method::Zstd, &packed).unwrap(), want);
            if want.len() > 1 {
                assert_split_independent(Method::Zstd, &packed, &want);
            }
        }
    }
}

#[test]
fn zstd_fixtures_decode_split_any_way() {
    let want = zstd_content();
    // zstd 1.5.4: `-19 --check FILE` (single segment, content checksum) and
    // `-3 --no-check` from a pipe (a 2 MiB window descriptor, no checksum).
    for name in ["single-segment-checksum.zst", "streamed-no-checksum.zst"] {
        let packed = fixture(name);
        assert_eq!(decode_all(Method::Zstd, &packed).unwrap(), want, "{name}");
        assert_split_independent(Method::Zstd, &packed, &want);
    }
}

#[test]
fn zstd_reads_every_frame_and_skips_skippable_ones() {
    let want = zstd_content();
    let mut data = skippable(0, b"metadata");
    data.extend(fixture("single-segment-checksum.zst"));
    data.extend(skippable(0xF, b""));
    data.extend(fixture("streamed-no-checksum.zst"));
    data.extend(ruzstd::encoding::compress_to_vec(
        &b"tail"[..],
        ruzstd::encoding::CompressionLevel::Fastest,
    ));
    let mut all = want.clone();
    all.extend_from_slice(&want);
    all.extend_from_slice(b"tail");
    assert_eq!(decode_all(Method::Zstd, &data).unwrap(), all);
    assert_split_independent(Method::Zstd, &data, &all);
    // Skippable frames alone are data without content.
    assert_eq!(decode_all(Method::Zstd, &skippable(3, b"x")).unwrap(), b"");
}

#[test]
fn zstd_cut_is_truncated_unless_between_frames() {
    let want = zstd_content();
    let packed = fixture("single-segment-checksum.zst");
    assert_cuts_are_truncated(Method::Zstd, &packed, &want, 97);
    assert!(matches!(
        decode_all(Method::Zstd, &[]),
        Err(MethodError::Truncated { .. })
    ));
    // Cut inside a skippable frame.
    assert!(matches!(
        decode_all(Method::Zstd, &skippable(0, b"metadata")[..10]),
        Err(MethodError::Truncated { .. })
    ));
    // Between two frames the data may end.
    let mut two = packed.clone();
    two.extend_from_slice(&packed);
    assert_eq!(
        decode_all(Method::Zstd, &two[..packed.len()]).unwrap(),
        want
    );
}

#[test]
fn zstd_corrupt_data_is_a_typed_error() {
    let packed = fixture("single-segment-checksum.zst");
    let refused = flip_bits(Method::Zstd, &packed, 61);
    assert!(refused > 0, "no flip was refused");
    let packed = fixture("streamed-no-checksum.zst");
    flip_bits(Method::Zstd, &packed, 67);
    // A flipped content byte of a raw block is caught by the checksum.
    let mut frame = ruzstd::encoding::compress_to_vec(
        &b"plain"[..],
        ruzstd::encoding::CompressionLevel::Uncompressed,
    );
    let plain = frame.windows(5).position(|w| w == b"plain").unwrap();
    frame[plain] ^= 1;
    let checked = frame[4] & 0x04 != 0;
    let r = decode_all(Method::Zstd, &frame);
    if checked {
        assert!(matches!(r, Err(MethodError::Data { .. })), "{r:?}");
    }
    // Trailing bytes that are no frame.
    let mut trailing = fixture("single-segment-checksum.zst");
    trailing.extend_from_slice(b"junk");
    assert!(matches!(
        decode_all(Method::Zstd, &trailing),
        Err(MethodError::Data { .. })
    ));
    // A reserved block type, and a block larger than 128 KiB.
    let header = [0x28, 0xB5, 0x2F, 0xFD, 0x20, 0x10];
    for block in [[0x07, 0x00, 0x00], [0x01, 0x00, 0x20]] {
        let mut bad = header.to_vec();
        bad.extend_from_slice(&block);
        bad.resize(bad.len() + 16, 0);
        assert!(
            matches!(
                decode_all(Method::Zstd, &bad),
                Err(MethodError::Data { .. })
            ),
            "{block:?}"
        );
    }
    // A frame that needs a dictionary.
    let dict = [0x28, 0xB5, 0x2F, 0xFD, 0x21, 0x05, 0x10, 0x01, 0x00, 0x00];
    assert!(matches!(
        decode_all(Method::Zstd, &dict),
        Err(MethodError::Unsupported { .. })
    ));
}

#[test]
fn zstd_windows_are_checked_against_the_memory_limit() {
    // A frame declaring a 1 GiB window is refused before anything is
    // allocated for it.
    let huge = [0x28, 0xB5, 0x2F, 0xFD, 0x00, 20 << 3, 0x01, 0x00, 0x00];
    let limit = 64 << 20;
    let (_, end) = decode_split(
        &mut decoder(Method::Zstd, Limits::NONE.with_memory(limit)),
        &huge,
        64,
        64,
    );
    match end {
        Err(MethodError::Limit(LimitExceeded::Memory { needed, limit: l })) => {
            assert!(needed > 1 << 30, "{needed}");
            assert_eq!(l, limit);
        }
        other => panic!("{other:?}"),
    }
    // The streamed fixture declares 2 MiB: refused under 4 MiB, read
    // under 8 MiB (the window and the decoder's own buffers).
    let packed = fixture("streamed-no-checksum.zst");
    let (_, end) = decode_split(
        &mut decoder(Method::Zstd, Limits::NONE.with_memory(4 << 20)),
        &packed,
        4096,
        4096,
    );
    assert!(matches!(end, Err(MethodError::Limit(_))), "{end:?}");
    let (out, end) = decode_split(
        &mut decoder(Method::Zstd, Limits::NONE.with_memory(8 << 20)),
        &packed,
        4096,
        4096,
    );
    end.unwrap();
    assert_eq!(out, zstd_content());
    // The chain check counts the decoder without its window.
    let zstd = Properties::Plain(Method::Zstd);
    let need = check_decoder_memory([(&zstd, None)], &Limits::NONE).unwrap();
    assert!(need < 4 << 20, "{need}");
}

#[test]
fn new_methods_are_in_the_registry_by_their_ids() {
    assert_eq!(Method::from_zip_id(9), Some(Method::Deflate64));
    assert_eq!(Method::from_zip_id(93), Some(Method::Zstd));
    assert_eq!(
        Method::from_7z_id(&[0x04, 0x01, 0x09]),
        Some(Method::Deflate64)
    );
    assert_eq!(
        Method::from_7z_id(&[0x04, 0xF7, 0x11, 0x01]),
        Some(Method::Zstd)
    );
    // PPMd without its properties (order and memory) cannot be decoded,
    // and the error says which method it is.
    let opts = DecoderOptions::default();
    match new_decoder(&Properties::Plain(Method::Ppmd), None, &opts) {
        Err(MethodError::Unsupported { method }) => assert!(method.contains("PPMd"), "{method}"),
        Err(e) => panic!("{e:?}"),
        Ok(_) => panic!("PPMd decoded"),
    }
}
