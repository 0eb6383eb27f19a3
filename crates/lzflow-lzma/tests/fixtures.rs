//! Conformance against the committed fixtures (MANIFEST.tsv / EXPECT.tsv).

mod common;

use std::path::PathBuf;

use common::*;
use lzflow_lzma::{
    lzma2_dict_size, AloneDecoder, DecoderOptions, Lzma2Decoder, LzmaDecoder, LzmaError, LzmaProps,
};

fn fixtures() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../fixtures")
}

fn read(rel: &str) -> Vec<u8> {
    std::fs::read(fixtures().join(rel)).unwrap_or_else(|e| panic!("{rel}: {e}"))
}

/// Rows of a TSV file as column-name → value maps.
fn tsv(rel: &str) -> Vec<std::collections::HashMap<String, String>> {
    let text = String::from_utf8(read(rel)).unwrap();
    let mut lines = text.lines();
    let head: Vec<&str> = lines.next().unwrap().split('\t').collect();
    lines
        .map(|l| {
            head.iter()
                .zip(l.split('\t'))
                .map(|(h, v)| (h.to_string(), v.to_string()))
                .collect()
        })
        .collect()
}

/// Every way of splitting input and output gives the same outcome.
fn all_splits<D: lzflow_core::Decode<Error = LzmaError>>(
    make: &dyn Fn() -> D,
    data: &[u8],
) -> Outcome {
    let whole = drive_whole(&mut make(), data);
    assert_eq!(drive_bytewise_in(&mut make(), data), whole, "1-byte input");
    assert_eq!(
        drive_bytewise_out(&mut make(), data),
        whole,
        "1-byte output"
    );
    for seed in 1..4 {
        assert_eq!(
            drive_random(&mut make(), data, seed),
            whole,
            "random splits {seed}"
        );
    }
    whole
}

#[test]
fn generated_raw_and_lzma_fixtures() {
    let mut seen = 0;
    for row in tsv("generated/MANIFEST.tsv") {
        let file = &row["file"];
        let data = read(&format!("generated/{file}"));
        let opts = DecoderOptions::default();
        let (out, end) = match row["container"].as_str() {
            "lzma_alone" => all_splits(&|| AloneDecoder::new(&opts), &data),
            "raw" if row["coders"].starts_with("lzma2") => {
                let dict = if file.contains("empty") {
                    4096
                } else {
                    1 << 20
                };
                all_splits(&|| Lzma2Decoder::new(dict, &opts).unwrap(), &data)
            }
            "raw" if row["coders"].starts_with("lzma1") => all_splits(
                &|| LzmaDecoder::new(LzmaProps::default(), 1 << 20, None, &opts).unwrap(),
                &data,
            ),
            "raw" => {
                // x86+lzma2: check the LZMA2 layer against liblzma's.
                let (out, end) = all_splits(&|| Lzma2Decoder::new(1 << 20, &opts).unwrap(), &data);
                assert_eq!(end, Ok(data.len()), "{file}");
                assert!(
                    out == liblzma_lzma2_decode(&data, 1 << 20, out.len()),
                    "{file}"
                );
                seen += 1;
                continue;
            }
            _ => continue,
        };
        assert_eq!(row["expected"], "ok", "{file}");
        assert_eq!(end, Ok(data.len()), "{file}");
        assert_eq!(out.len().to_string(), row["entry_size"], "{file}");
        assert_eq!(sha256_hex(&out), row["entry_sha256"], "{file}");
        seen += 1;
    }
    assert_eq!(seen, 9, "4 raw + 5 .lzma fixtures");
}

#[test]
fn xz_utils_lzma_alone_files() {
    let mut seen = 0;
    for row in tsv("xz-utils/EXPECT.tsv") {
        if row["container"] != "lzma_alone" {
            continue;
        }
        let file = &row["file"];
        let data = read(&format!("xz-utils/files/{file}"));
        let opts = DecoderOptions::default();
        let (out, end) = all_splits(&|| AloneDecoder::new(&opts), &data);
        match (row["expected"].as_str(), row["class"].as_str()) {
            ("ok", _) => {
                assert_eq!(end, Ok(data.len()), "{file}");
                assert_eq!(sha256_hex(&out), row["decoded_sha256"], "{file}");
            }
            (_, "truncated") => assert_eq!(end, Err(LzmaError::Truncated), "{file}"),
            (_, "size_mismatch") => assert!(
                matches!(end, Err(LzmaError::SizeMismatch { .. })),
                "{file}: {end:?}"
            ),
            other => panic!("{file}: unexpected row {other:?}"),
        }
        seen += 1;
    }
    assert_eq!(seen, 8);
}

/// The LZMA2 data of a single-block .xz file whose only filter is LZMA2,
/// with its dictionary size.
fn xz_single_lzma2_block(data: &[u8]) -> Option<(&[u8], u32)> {
    let block = &data[12..];
    let header_len = (usize::from(block[0]) + 1) * 4;
    let flags = block[1];
    if flags & 3 != 0 {
        return None; // more than one filter
    }
    let mut i = 2;
    let vli = |i: &mut usize| {
        let mut v = 0u64;
        for shift in (0..63).step_by(7) {
            let b = block[*i];
            *i += 1;
            v |= u64::from(b & 0x7F) << shift;
            if b & 0x80 == 0 {
                break;
            }
        }
        v
    };
    if flags & 0x40 != 0 {
        vli(&mut i);
    }
    if flags & 0x80 != 0 {
        vli(&mut i);
    }
    if vli(&mut i) != 0x21 || vli(&mut i) != 1 {
        return None;
    }
    let dict = lzma2_dict_size(block[i]).ok()?;
    Some((&block[header_len..], dict))
}

#[test]
fn xz_utils_lzma2_streams() {
    let mut seen = 0;
    for row in tsv("xz-utils/EXPECT.tsv") {
        let file = &row["file"];
        let single_block = file.starts_with("good-1") || file.starts_with("bad-1");
        if !file.contains("lzma2") || !single_block || row["class"] == "size_mismatch" {
            continue; // size mismatches are found by the XZ block layer
        }
        let data = read(&format!("xz-utils/files/{file}"));
        let Some((stream, dict)) = xz_single_lzma2_block(&data) else {
            continue;
        };
        let opts = DecoderOptions::default();
        let (out, end) = all_splits(&|| Lzma2Decoder::new(dict, &opts).unwrap(), stream);
        let expect = match row["class"].as_str() {
            "" => {
                assert!(end.is_ok(), "{file}: {end:?}");
                assert_eq!(sha256_hex(&out), row["decoded_sha256"], "{file}");
                seen += 1;
                continue;
            }
            "lzma2_no_dict_reset" => LzmaError::MissingDictReset,
            "lzma2_no_props" => LzmaError::MissingProps,
            "lzma2_control_byte" => LzmaError::InvalidControlByte(3),
            "lzma2_eopm" => {
                // The marker follows the chunk's last byte, so the chunk
                // has compressed bytes left over.
                assert!(
                    matches!(
                        end,
                        Err(LzmaError::UnexpectedEndMarker | LzmaError::ChunkSizeMismatch)
                    ),
                    "{file}: {end:?}"
                );
                seen += 1;
                continue;
            }
            "lzma2_bad_props" => LzmaError::InvalidLcLpPb {
                lc: 8,
                lp: 0,
                pb: 0,
            },
            "lzma2_data" => {
                assert!(
                    matches!(end, Err(LzmaError::DistanceTooFar { .. })),
                    "{file}: {end:?}"
                );
                seen += 1;
                continue;
            }
            c => panic!("{file}: unknown class {c}"),
        };
        assert_eq!(end, Err(expect), "{file}");
        seen += 1;
    }
    assert_eq!(seen, 13, "good-1-lzma2-1..5 and bad-1-lzma2-1..8");
}
