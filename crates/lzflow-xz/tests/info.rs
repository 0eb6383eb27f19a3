//! `read_info` reads the layout of a file from its end and agrees with
//! what decoding finds.

mod common;

use std::io::Cursor;

use common::{decode, fixtures, read_tsv, Split};
use lzflow_xz::info::read_info;
use lzflow_xz::{Check, XzError};

fn file(path: &str) -> Vec<u8> {
    std::fs::read(fixtures().join(path)).unwrap()
}

#[test]
fn agrees_with_decoding_for_every_good_file() {
    let mut n = 0;
    let rows = read_tsv("generated/MANIFEST.tsv");
    let generated = rows
        .iter()
        .filter(|r| r["container"] == "xz" && r["expected"] == "ok")
        .map(|r| format!("generated/{}", r["file"]));
    let xz_utils = read_tsv("xz-utils/EXPECT.tsv")
        .into_iter()
        .filter(|r| r["container"] == "xz" && r["expected"] == "ok")
        .map(|r| format!("xz-utils/files/{}", r["file"]));
    for path in generated.chain(xz_utils) {
        let data = file(&path);
        let info = read_info(Cursor::new(&data)).unwrap_or_else(|e| panic!("{path}: {e}"));
        let (out, res) = decode(&data, Split::Whole);
        res.unwrap();
        assert_eq!(info.uncompressed_size(), Some(out.len() as u64), "{path}");
        assert_eq!(info.file_size(), data.len() as u64, "{path}");
        for s in &info.streams {
            let blocks: u64 = s.blocks.iter().map(|b| b.uncompressed_size).sum();
            assert_eq!(blocks, s.uncompressed_size, "{path}");
        }
        n += 1;
    }
    assert_eq!(n, 58, "every good .xz fixture");
}

#[test]
fn streams_blocks_checks_and_padding() {
    let info = read_info(Cursor::new(file("generated/xz/multistream.xz"))).unwrap();
    let checks: Vec<Check> = info.streams.iter().map(|s| s.check).collect();
    assert_eq!(
        checks,
        [Check::Crc32, Check::Crc64, Check::Crc64, Check::Sha256]
    );
    assert_eq!(info.streams[2].blocks.len(), 0);

    let info = read_info(Cursor::new(file("generated/xz/multistream-padding.xz"))).unwrap();
    let padding: Vec<u64> = info.streams.iter().map(|s| s.padding).collect();
    assert_eq!(padding, [4, 12]);

    let info = read_info(Cursor::new(file("generated/xz/multiblock.xz"))).unwrap();
    assert_eq!(info.block_count(), 7);
    assert!(info.streams[0].blocks[..6]
        .iter()
        .all(|b| b.uncompressed_size == 32 << 10));

    let info = read_info(Cursor::new(file("generated/xz/block-list.xz"))).unwrap();
    let sizes: Vec<u64> = info.streams[0]
        .blocks
        .iter()
        .map(|b| b.uncompressed_size)
        .collect();
    assert_eq!(sizes, [1, 1000, 10000, 204800 - 11001]);

    let info = read_info(Cursor::new(file("xz-utils/files/unsupported-check.xz"))).unwrap();
    assert_eq!(
        (info.streams[0].check, info.streams[0].check_id),
        (Check::None, 2)
    );
}

#[test]
fn rejects_bad_layouts() {
    let err = |path: &str| read_info(Cursor::new(file(path))).unwrap_err();
    assert!(matches!(
        err("xz-utils/files/bad-0-header_magic.xz"),
        XzError::NotXz
    ));
    assert!(matches!(
        err("xz-utils/files/bad-0-footer_magic.xz"),
        XzError::StreamFooterMagic
    ));
    assert!(matches!(
        err("xz-utils/files/bad-1-stream_flags-1.xz"),
        XzError::StreamFlagsMismatch { .. }
    ));
    assert!(matches!(
        err("xz-utils/files/bad-2-index-4.xz"),
        XzError::IndexCrc { .. }
    ));
    assert!(matches!(
        err("xz-utils/files/bad-2-index-5.xz"),
        XzError::IndexInvalid { .. }
    ));
    assert!(matches!(
        err("xz-utils/files/bad-3-index-uncomp-overflow.xz"),
        XzError::SizeOverflow { .. }
    ));
    assert!(matches!(
        err("generated/xz/bad-padding-3.xz"),
        XzError::StreamPadding { .. }
    ));
    assert!(matches!(
        read_info(Cursor::new(Vec::new())).unwrap_err(),
        XzError::Truncated { .. }
    ));
    assert!(matches!(
        read_info(Cursor::new(vec![0u8; 64])).unwrap_err(),
        XzError::NotXz
    ));
}

#[test]
fn totals_that_overflow_are_reported_not_wrapped() {
    // Each stream claims UINT64_MAX / 3 + 1 bytes; three overflow a u64.
    let one = file("xz-utils/files/bad-1-index-huge-uncomp.xz");
    let three = [one.as_slice(), &one, &one].concat();
    let info = read_info(Cursor::new(three)).unwrap();
    assert_eq!(info.streams.len(), 3);
    assert_eq!(info.streams[0].uncompressed_size, u64::MAX / 3 + 1);
    assert_eq!(info.uncompressed_size(), None);
}
