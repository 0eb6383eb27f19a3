//! Every .xz file of the XZ Utils test suite and of the generated fixtures
//! gives the outcome their tables expect.

mod common;

use common::{decode, fixtures, read_tsv, sha256_hex, Split};
use lzflow_core::{CoderError, Culprit};
use lzflow_lzma::LzmaError;
use lzflow_xz::XzError;

/// Does `e` belong to the EXPECT.tsv error class?
fn matches_class(class: &str, e: &XzError) -> bool {
    use XzError::*;
    match class {
        "format" => matches!(e, NotXz),
        "truncated" => e.culprit() == Culprit::Truncated,
        "stream_header_magic" | "trailing_garbage" => matches!(e, TrailingGarbage { .. }),
        "stream_header_crc" => matches!(e, StreamHeaderCrc { .. }),
        "stream_footer_magic" => matches!(e, StreamFooterMagic),
        "stream_footer_crc" => matches!(e, StreamFooterCrc { .. }),
        "stream_footer_backward_size" => matches!(e, BackwardSizeMismatch { .. }),
        "stream_flags_mismatch" => matches!(e, StreamFlagsMismatch { .. }),
        "stream_padding" => matches!(e, StreamPadding { .. }),
        "block_header" => matches!(e, BlockHeader { .. }),
        "block_header_crc" => matches!(e, BlockHeaderCrc { .. }),
        "block_header_size" => {
            matches!(e, BlockHeader { reason } if reason.contains("Compressed Size"))
        }
        "block_header_vli" => matches!(e, BlockHeaderVli { .. }),
        "block_padding" => matches!(e, BlockPadding),
        "check" => matches!(e, CheckMismatch { .. }),
        "index" => matches!(
            e,
            IndexRecordCount { .. } | IndexRecordMismatch { .. } | IndexInvalid { .. }
        ),
        "index_overflow" => matches!(e, SizeOverflow { .. }),
        "index_padding" => matches!(e, IndexPadding),
        "index_crc" => matches!(e, IndexCrc { .. }),
        "size_mismatch" => matches!(
            e,
            CompressedSizeMismatch { .. } | UncompressedSizeMismatch { .. }
        ),
        "lzma2_no_dict_reset" => matches!(
            e,
            Lzma {
                source: LzmaError::MissingDictReset,
                ..
            }
        ),
        "lzma2_data" => matches!(
            e,
            Lzma {
                source: LzmaError::DistanceTooFar { .. } | LzmaError::Corrupt,
                ..
            }
        ),
        "lzma2_bad_props" => matches!(
            e,
            Lzma {
                source: LzmaError::InvalidLcLpPb { .. } | LzmaError::InvalidProps(_),
                ..
            }
        ),
        "lzma2_no_props" => matches!(
            e,
            Lzma {
                source: LzmaError::MissingProps | LzmaError::MissingStateReset,
                ..
            }
        ),
        "lzma2_control_byte" => matches!(
            e,
            Lzma {
                source: LzmaError::InvalidControlByte(3),
                ..
            }
        ),
        // The LZMA layer may see the marker as the chunk ending early.
        "lzma2_eopm" => matches!(
            e,
            Lzma {
                source: LzmaError::UnexpectedEndMarker | LzmaError::ChunkSizeMismatch,
                ..
            }
        ),
        "unsupported_block_header" => matches!(e, UnsupportedBlockHeader { .. }),
        "unsupported_filter" => matches!(e, UnsupportedFilter { id: 0x7F }),
        "unsupported_filter_chain" => matches!(e, UnsupportedFilterChain { .. }),
        other => panic!("unknown class {other}"),
    }
}

#[test]
fn xz_utils_files() {
    let mut checked = 0;
    for row in read_tsv("xz-utils/EXPECT.tsv") {
        if row["container"] != "xz" {
            continue;
        }
        let name = &row["file"];
        let data = std::fs::read(fixtures().join("xz-utils/files").join(name)).unwrap();
        let (out, res) = decode(&data, Split::Whole);
        match (row["expected"].as_str(), row["class"].as_str()) {
            ("ok", _) | ("unsupported", "unsupported_check") => {
                res.unwrap_or_else(|e| panic!("{name}: {e}"));
                assert_eq!(out.len().to_string(), row["decoded_size"], "{name}");
                assert_eq!(sha256_hex(&out), row["decoded_sha256"], "{name}");
            }
            ("error", class) | ("unsupported", class) => {
                let e = match res {
                    Ok(()) => panic!("{name}: decoded but must fail ({class})"),
                    Err(e) => e,
                };
                // This file's Block Header Size byte is 0x00, which a
                // streaming decoder can only read as the Index Indicator;
                // the Index then lists 2240 records for zero Blocks.
                let zeroed_size_byte = name == "bad-1-block_header-6.xz"
                    && matches!(
                        e,
                        XzError::IndexRecordCount {
                            expected: 0,
                            found: 2240
                        }
                    );
                assert!(
                    matches_class(class, &e) || zeroed_size_byte,
                    "{name}: class {class}, got {e:?}"
                );
                if row["notes"].contains("Unpadded Size == 0") {
                    assert!(
                        matches!(e, XzError::IndexInvalid { reason } if reason.contains("Unpadded Size")),
                        "{name}: {e:?}"
                    );
                }
                if row["expected"] == "unsupported" {
                    assert_eq!(e.culprit(), Culprit::Unsupported, "{name}: {e:?}");
                }
                // No more output than xz wrote before its error.
                let partial: usize = row["xz_partial_output_bytes"].parse().unwrap();
                assert!(out.len() <= partial, "{name}: {} bytes out", out.len());
            }
            (other, _) => panic!("{name}: unknown expectation {other}"),
        }
        checked += 1;
    }
    assert_eq!(checked, 71, "every .xz row was checked");
}

#[test]
fn unsupported_check_is_decoded_but_reported_unverified() {
    let data = std::fs::read(fixtures().join("xz-utils/files/unsupported-check.xz")).unwrap();
    let mut dec = lzflow_xz::XzDecoder::default();
    let (out, res) = common::drive(&mut dec, &data, Split::Whole);
    res.unwrap();
    assert_eq!(out, b"Hello\nWorld!\n");
    assert_eq!(dec.unverified_check_id(), Some(0x02));
    let good = std::fs::read(fixtures().join("xz-utils/files/good-1-check-crc64.xz")).unwrap();
    let mut dec = lzflow_xz::XzDecoder::default();
    common::drive(&mut dec, &good, Split::Whole).1.unwrap();
    assert_eq!(dec.unverified_check_id(), None);
    assert_eq!(dec.check(), Some(lzflow_xz::Check::Crc64));
}

#[test]
fn generated_files() {
    let mut checked = 0;
    for row in read_tsv("generated/MANIFEST.tsv") {
        if row["container"] != "xz" {
            continue;
        }
        let name = &row["file"];
        let data = std::fs::read(fixtures().join("generated").join(name)).unwrap();
        let (out, res) = decode(&data, Split::Whole);
        if row["expected"] == "ok" {
            res.unwrap_or_else(|e| panic!("{name}: {e}"));
            assert_eq!(out.len().to_string(), row["entry_size"], "{name}");
            assert_eq!(sha256_hex(&out), row["entry_sha256"], "{name}");
        } else {
            let e = res.expect_err(name);
            let ok = match name.as_str() {
                "xz/bad-padding-3.xz" => matches!(e, XzError::StreamPadding { len: 3 }),
                "xz/bad-trailing-garbage.xz" => matches!(e, XzError::TrailingGarbage { .. }),
                "xz/bad-truncated.xz" => matches!(e, XzError::Truncated { .. }),
                _ => panic!("unexpected error row {name}"),
            };
            assert!(ok, "{name}: {e:?}");
        }
        checked += 1;
    }
    assert_eq!(checked, 39);
}
