//! XzEncoder: round trips through XzDecoder and liblzma, Block layout,
//! split independence, flush and finish semantics, option errors.

mod common;

use std::io::{Cursor, Read};

use common::{data, decode, encode_all, Split};
use lzflow_core::{Decode, Encode, InBuf, OutBuf, Progress};
use lzflow_filters::{FilterConfig, FilterKind};
use lzflow_xz::info::read_info;
use lzflow_xz::{Check, XzDecoder, XzEncoder, XzEncoderOptions, XzError};

fn encode(opts: XzEncoderOptions, input: &[u8]) -> Vec<u8> {
    let mut enc = XzEncoder::new(opts).unwrap();
    encode_all(&mut enc, input, 1 << 20, 1 << 20).unwrap()
}

fn liblzma_decode(xz: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    liblzma::read::XzDecoder::new(xz)
        .read_to_end(&mut out)
        .expect("liblzma accepts our output");
    out
}

fn round_trip(opts: XzEncoderOptions, input: &[u8]) -> Vec<u8> {
    let xz = encode(opts.clone(), input);
    let (out, res) = decode(&xz, Split::Whole);
    res.unwrap_or_else(|e| panic!("{opts:?}: {e}"));
    assert!(out == input, "our decoder, {opts:?}");
    assert!(liblzma_decode(&xz) == input, "liblzma, {opts:?}");
    xz
}

#[test]
fn presets_and_data_kinds() {
    let inputs = [
        Vec::new(),
        vec![42],
        data("text", 100_000, 1),
        data("random", 70_000, 2),
        data("zeros", 300_000, 3),
    ];
    for level in [0, 1, 6] {
        for input in &inputs {
            round_trip(XzEncoderOptions::preset(level).unwrap(), input);
        }
    }
    let xz = round_trip(
        XzEncoderOptions::preset(0).unwrap(),
        &data("zeros", 300_000, 3),
    );
    assert!(xz.len() < 1000, "zeros compress: {} bytes", xz.len());
}

#[test]
fn every_check() {
    let input = data("text", 30_000, 4);
    for check in [Check::None, Check::Crc32, Check::Crc64, Check::Sha256] {
        let xz = round_trip(
            XzEncoderOptions::preset(0).unwrap().with_check(check),
            &input,
        );
        let info = read_info(Cursor::new(&xz)).unwrap();
        assert_eq!(info.streams[0].check, check);
        assert_eq!(xz[7], check.id(), "stream flags");
    }
}

#[test]
fn filters_before_lzma2() {
    let text = data("text", 50_000, 5);
    let random = data("random", 20_000, 6);
    let chains = [
        vec![FilterConfig::new(FilterKind::X86)],
        vec![FilterConfig::new(FilterKind::Arm64).with_start_offset(4096)],
        vec![FilterConfig::new(FilterKind::Delta).with_distance(4)],
        vec![
            FilterConfig::new(FilterKind::X86),
            FilterConfig::new(FilterKind::Delta).with_distance(2),
        ],
        vec![
            FilterConfig::new(FilterKind::PowerPc),
            FilterConfig::new(FilterKind::Sparc),
            FilterConfig::new(FilterKind::ArmThumb),
        ],
    ];
    for chain in chains {
        let opts = XzEncoderOptions::preset(0)
            .unwrap()
            .with_filters(chain.clone())
            .with_block_size(Some(16_000));
        round_trip(opts.clone(), &text);
        round_trip(opts, &random);
    }
}

#[test]
fn blocks_record_both_sizes() {
    let input = data("text", 100_000, 7);
    let opts = XzEncoderOptions::preset(1)
        .unwrap()
        .with_block_size(Some(30_000));
    let xz = round_trip(opts, &input);
    let info = read_info(Cursor::new(&xz)).unwrap();
    let sizes: Vec<u64> = info.streams[0]
        .blocks
        .iter()
        .map(|b| b.uncompressed_size)
        .collect();
    assert_eq!(sizes, [30_000, 30_000, 30_000, 10_000]);
    // Walk the Blocks: every header has the Compressed and Uncompressed
    // Size flags, and the sizes agree with the Index.
    let mut pos = 12;
    for block in &info.streams[0].blocks {
        let header_size = (xz[pos] as usize + 1) * 4;
        assert_eq!(xz[pos + 1] & 0xC0, 0xC0, "both size flags");
        let (compressed, n) = vli(&xz[pos + 2..]);
        let (uncompressed, _) = vli(&xz[pos + 2 + n..]);
        assert_eq!(uncompressed, block.uncompressed_size);
        assert_eq!(header_size as u64 + compressed + 8, block.unpadded_size);
        pos += block.total_size() as usize;
    }
    assert_eq!(xz[pos], 0, "the Index follows the last Block");

    // Tiny Blocks work too.
    let small = data("text", 2_000, 8);
    let xz = round_trip(
        XzEncoderOptions::preset(0)
            .unwrap()
            .with_block_size(Some(1)),
        &small,
    );
    assert_eq!(read_info(Cursor::new(&xz)).unwrap().block_count(), 2_000);

    // The default Block size is three dictionaries (at least 1 MiB).
    let opts = XzEncoderOptions::preset(0).unwrap();
    assert_eq!(opts.effective_block_size(), 1 << 20, "256 KiB dictionary");
    let opts = XzEncoderOptions::preset(6).unwrap();
    assert_eq!(opts.effective_block_size(), 24 << 20, "8 MiB dictionary");
}

fn vli(buf: &[u8]) -> (u64, usize) {
    let mut v = 0u64;
    for (i, b) in buf.iter().enumerate() {
        v |= u64::from(b & 0x7F) << (7 * i);
        if b & 0x80 == 0 {
            return (v, i + 1);
        }
    }
    panic!("unterminated VLI");
}

#[test]
fn output_does_not_depend_on_splits() {
    let input = data("text", 60_000, 9);
    let opts = XzEncoderOptions::preset(1)
        .unwrap()
        .with_block_size(Some(25_000))
        .with_filters(vec![FilterConfig::new(FilterKind::X86)]);
    let want = encode(opts.clone(), &input);
    for (chunk, out) in [(1, 1), (7, 13), (4096, 1 << 16), (60_000, 100)] {
        let mut enc = XzEncoder::new(opts.clone()).unwrap();
        let got = encode_all(&mut enc, &input, chunk, out).unwrap();
        assert!(got == want, "chunk {chunk} out {out}");
    }
}

#[test]
fn flush_makes_everything_so_far_decodable() {
    let part1 = data("text", 10_000, 10);
    let part2 = data("text", 5_000, 11);
    let mut enc = XzEncoder::new(XzEncoderOptions::preset(0).unwrap()).unwrap();
    let mut buf = vec![0u8; 1 << 20];
    let mut xz = Vec::new();
    let mut input = InBuf::new(&part1);
    let mut out = OutBuf::new(&mut buf);
    assert_eq!(
        enc.encode(&mut input, &mut out).unwrap(),
        Progress::NeedInput
    );
    assert!(input.is_empty());
    assert_eq!(enc.flush(&mut out).unwrap(), Progress::NeedInput);
    xz.extend_from_slice(out.written());

    // Everything given so far decodes from what came out.
    let mut dec = XzDecoder::default();
    let mut decoded = vec![0u8; 20_000];
    let mut dec_in = InBuf::new(&xz);
    let mut dec_out = OutBuf::new(&mut decoded);
    while dec_out.pos() < part1.len() {
        assert_ne!(
            dec.decode(&mut dec_in, &mut dec_out).unwrap(),
            Progress::StreamEnd
        );
    }
    assert!(dec_out.written() == part1.as_slice());
    assert_eq!(enc.blocks(), 1);

    // A second flush with nothing new adds nothing.
    let mut out = OutBuf::new(&mut buf);
    assert_eq!(enc.flush(&mut out).unwrap(), Progress::NeedInput);
    assert_eq!(out.pos(), 0);

    let rest = encode_all(&mut enc, &part2, 1000, 1 << 20).unwrap();
    xz.extend_from_slice(&rest);
    let (out, res) = decode(&xz, Split::Whole);
    res.unwrap();
    assert!(out == [part1, part2].concat());
    assert_eq!(read_info(Cursor::new(&xz)).unwrap().block_count(), 2);
}

#[test]
fn finish_is_idempotent_and_encode_after_it_is_refused() {
    let mut enc = XzEncoder::new(XzEncoderOptions::preset(0).unwrap()).unwrap();
    let xz = encode_all(&mut enc, b"hello", 5, 1 << 10).unwrap();
    let mut buf = [0u8; 64];
    let mut out = OutBuf::new(&mut buf);
    assert_eq!(enc.finish(&mut out).unwrap(), Progress::StreamEnd);
    assert_eq!(out.pos(), 0);
    let mut input = InBuf::new(b"more");
    assert!(matches!(
        enc.encode(&mut input, &mut out),
        Err(XzError::InvalidOptions { .. })
    ));
    assert_eq!(enc.finish(&mut out).unwrap(), Progress::StreamEnd);
    assert_eq!(liblzma_decode(&xz), b"hello");

    // Empty input: a stream with no Blocks, as xz writes it.
    let mut enc = XzEncoder::new(XzEncoderOptions::preset(0).unwrap()).unwrap();
    let empty = encode_all(&mut enc, b"", 1, 1).unwrap();
    let reference = std::fs::read(common::fixtures().join("generated/xz/empty.xz")).unwrap();
    assert_eq!(empty, reference);
}

#[test]
fn bad_options_are_usage_errors() {
    let four = vec![FilterConfig::new(FilterKind::X86); 4];
    let e = XzEncoder::new(XzEncoderOptions::default().with_filters(four)).unwrap_err();
    assert!(matches!(e, XzError::InvalidOptions { .. }), "{e:?}");
    let e = XzEncoder::new(XzEncoderOptions::default().with_block_size(Some(0))).unwrap_err();
    assert!(matches!(e, XzError::InvalidOptions { .. }), "{e:?}");
    let bad_delta = vec![FilterConfig::new(FilterKind::Delta).with_distance(0)];
    let e = XzEncoder::new(XzEncoderOptions::default().with_filters(bad_delta)).unwrap_err();
    assert_eq!(
        lzflow_core::CoderError::culprit(&e),
        lzflow_core::Culprit::Usage,
        "{e:?}"
    );
    assert!(XzEncoderOptions::preset(10).is_err());
}

#[test]
fn the_xz_tool_accepts_our_output() {
    use std::io::Write;
    use std::process::{Command, Stdio};
    if Command::new("xz").arg("--version").output().is_err() {
        eprintln!("SKIPPED: the xz tool is not installed");
        return;
    }
    let input = data("text", 80_000, 12);
    let opts = XzEncoderOptions::preset(1)
        .unwrap()
        .with_block_size(Some(30_000))
        .with_check(Check::Sha256)
        .with_filters(vec![FilterConfig::new(FilterKind::Delta).with_distance(3)]);
    let xz = encode(opts, &input);
    let mut child = Command::new("xz")
        .args(["-dc", "--single-stream"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let writer = std::thread::spawn(move || stdin.write_all(&xz).unwrap());
    let out = child.wait_with_output().unwrap();
    writer.join().unwrap();
    assert!(out.status.success(), "xz -dc failed");
    assert!(out.stdout == input);
}
