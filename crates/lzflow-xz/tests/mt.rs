//! MtXzDecoder gives exactly XzDecoder's output and error, for every
//! fixture and for multi-block files with sizes in the headers, under any
//! split, budget and thread count.

mod common;

use common::{data, drive, encode_all, fixtures, Split};
use lzflow_core::Limits;
use lzflow_lzma::DecoderOptions;
use lzflow_xz::{
    MtXzDecoder, MtXzDecoderOptions, XzDecoder, XzDecoderOptions, XzEncoder, XzEncoderOptions,
    XzError,
};

fn mt(threads: usize, budget: u64) -> MtXzDecoder {
    MtXzDecoder::new(MtXzDecoderOptions {
        threads,
        memory_budget: budget,
        ..MtXzDecoderOptions::default()
    })
}

fn single(data: &[u8]) -> (Vec<u8>, String) {
    let (out, res) = drive(&mut XzDecoder::default(), data, Split::Whole);
    (out, format!("{:?}", res.err()))
}

fn same_as_single(data: &[u8], dec: &mut MtXzDecoder, split: Split, what: &str) {
    let (want, want_err) = single(data);
    let (got, res) = drive(dec, data, split);
    assert_eq!(format!("{:?}", res.err()), want_err, "{what} {split:?}");
    assert!(got == want, "{what} {split:?}: output differs");
}

fn multi_block(len: usize, block: u64) -> (Vec<u8>, Vec<u8>) {
    let input = data("text", len, 41);
    let opts = XzEncoderOptions::preset(0)
        .unwrap()
        .with_block_size(Some(block));
    let xz = encode_all(&mut XzEncoder::new(opts).unwrap(), &input, 1 << 20, 1 << 20).unwrap();
    (input, xz)
}

#[test]
fn every_fixture_matches_the_single_threaded_decoder() {
    for dir in ["xz-utils/files", "generated/xz"] {
        for entry in std::fs::read_dir(fixtures().join(dir)).unwrap() {
            let path = entry.unwrap().path();
            if path.extension().is_none_or(|e| e != "xz") {
                continue;
            }
            let data = std::fs::read(&path).unwrap();
            let name = path.display().to_string();
            same_as_single(&data, &mut mt(2, 1 << 20), Split::Whole, &name);
            same_as_single(
                &data,
                &mut mt(3, 1 << 20),
                Split::Random { seed: 1, max: 200 },
                &name,
            );
        }
    }
}

#[test]
fn multi_block_files_decode_in_parallel_order_preserved() {
    let (input, xz) = multi_block(300_000, 20_000);
    for (threads, budget) in [
        (1, 1 << 20),
        (2, 1 << 20),
        (4, 64 << 10),
        (2, 45_000),
        (2, 0),
    ] {
        for split in [
            Split::Whole,
            Split::Random { seed: 9, max: 5000 },
            Split::Fixed {
                input: 1,
                output: 777,
            },
        ] {
            let (out, res) = drive(&mut mt(threads, budget), &xz, split);
            res.unwrap_or_else(|e| panic!("threads {threads} budget {budget} {split:?}: {e}"));
            assert!(out == input, "threads {threads} budget {budget} {split:?}");
        }
    }
}

#[test]
fn errors_and_partial_output_match_the_single_threaded_decoder() {
    let (_, xz) = multi_block(100_000, 10_000);
    // A flipped byte inside the fourth Block's data, a truncation in the
    // middle, one inside the Index, and trailing garbage.
    let mut flipped = xz.clone();
    let info = lzflow_xz::info::read_info(std::io::Cursor::new(&xz)).unwrap();
    let blocks = &info.streams[0].blocks;
    let fourth: u64 = 12 + blocks[..3].iter().map(|b| b.total_size()).sum::<u64>();
    flipped[fourth as usize + 40] ^= 0x55;
    let mut garbage = xz.clone();
    garbage.extend_from_slice(b"junk");
    let cases = [
        ("flipped", flipped),
        ("truncated", xz[..xz.len() / 2].to_vec()),
        ("truncated index", xz[..xz.len() - 14].to_vec()),
        ("garbage", garbage),
    ];
    for (what, data) in cases {
        assert!(single(&data).1 != "None", "{what} must fail");
        for split in [Split::Whole, Split::Random { seed: 4, max: 999 }] {
            same_as_single(&data, &mut mt(3, 1 << 20), split, what);
        }
    }
}

#[test]
fn output_limit_applies_across_workers() {
    let (input, xz) = multi_block(100_000, 10_000);
    let limit = 55_555;
    let mut dec = MtXzDecoder::new(MtXzDecoderOptions {
        base: XzDecoderOptions::default()
            .with_lzma(DecoderOptions::default().with_limits(Limits::NONE.with_output(limit))),
        threads: 2,
        ..MtXzDecoderOptions::default()
    });
    let (out, res) = drive(&mut dec, &xz, Split::Random { seed: 2, max: 3000 });
    assert!(matches!(res, Err(XzError::Limit(_))), "{res:?}");
    assert!(out == input[..limit as usize]);
}

#[test]
fn memory_limit_applies_to_each_worker() {
    // Preset 0 has a 256 KiB dictionary.
    let (_, xz) = multi_block(50_000, 10_000);
    let opts = XzDecoderOptions::default()
        .with_lzma(DecoderOptions::default().with_limits(Limits::NONE.with_memory(100 << 10)));
    let (want, want_res) = drive(&mut XzDecoder::new(opts.clone()), &xz, Split::Whole);
    assert!(matches!(want_res, Err(XzError::Limit(_))), "{want_res:?}");
    let mut dec = MtXzDecoder::new(MtXzDecoderOptions {
        base: opts,
        threads: 2,
        ..MtXzDecoderOptions::default()
    });
    let (got, res) = drive(&mut dec, &xz, Split::Whole);
    assert_eq!(format!("{res:?}"), format!("{want_res:?}"));
    assert!(got.is_empty() && want.is_empty());
}

/// Blocks of 10,000 bytes alternating text (small when compressed) and
/// random bytes (large), so that workers, which take the largest queued
/// Block first, finish later Blocks before earlier ones.
fn uneven_blocks() -> (Vec<u8>, Vec<u8>) {
    let mut input = Vec::new();
    for k in 0..12u64 {
        let kind = if k % 3 == 0 { "random" } else { "text" };
        input.extend_from_slice(&data(kind, 10_000, 100 + k));
    }
    let opts = XzEncoderOptions::preset(0)
        .unwrap()
        .with_block_size(Some(10_000));
    let xz = encode_all(&mut XzEncoder::new(opts).unwrap(), &input, 1 << 20, 1 << 20).unwrap();
    (input, xz)
}

#[test]
fn blocks_finished_out_of_order_come_out_in_order_with_the_same_errors() {
    let (input, xz) = uneven_blocks();
    let info = lzflow_xz::info::read_info(std::io::Cursor::new(&xz)).unwrap();
    let blocks = &info.streams[0].blocks;
    assert_eq!(blocks.len(), 12);
    // The sizes really are uneven: the random Blocks are the large ones.
    assert!(blocks[0].total_size() > 2 * blocks[1].total_size());
    for threads in [2, 3, 4] {
        for split in [Split::Whole, Split::Random { seed: 6, max: 4000 }] {
            let (out, res) = drive(&mut mt(threads, 1 << 20), &xz, split);
            res.unwrap_or_else(|e| panic!("threads {threads} {split:?}: {e}"));
            assert!(out == input, "threads {threads} {split:?}");
        }
    }
    // A damaged small Block before large ones, and a damaged large one
    // after small ones: the output up to it, then its error, as
    // single-threaded.
    let start = |i: usize| 12 + blocks[..i].iter().map(|b| b.total_size()).sum::<u64>() as usize;
    for damaged in [1, 6] {
        let mut bad = xz.clone();
        bad[start(damaged) + 30] ^= 0x21;
        assert!(single(&bad).1 != "None", "block {damaged} must fail");
        for threads in [2, 4] {
            for split in [Split::Whole, Split::Random { seed: 8, max: 3000 }] {
                same_as_single(&bad, &mut mt(threads, 1 << 20), split, "damaged");
            }
        }
    }
}
