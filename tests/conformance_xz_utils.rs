//! XZ Utils' own test files (fixtures/xz-utils/files) decoded through the
//! public std face, each compared with the outcome in EXPECT.tsv: good files
//! decode to exactly the recorded size and SHA-256, bad files are rejected
//! with the right error kind, unsupported files are rejected as unsupported.
//! All 97 files count, the 18 `.lz` ones included.

use std::fs;
use std::io::{self, Read};
use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/xz-utils")
}

/// One row of EXPECT.tsv, by column name.
struct Row {
    file: String,
    container: String,
    expected: String,
    class: String,
    size: Option<u64>,
    sha256: String,
    xz_partial: Option<u64>,
}

fn rows() -> Vec<Row> {
    let text = fs::read_to_string(root().join("EXPECT.tsv")).expect("EXPECT.tsv");
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().expect("header").split('\t').collect();
    let col = |name: &str| {
        header
            .iter()
            .position(|h| *h == name)
            .unwrap_or_else(|| panic!("EXPECT.tsv lacks column {name}"))
    };
    let (file, container, expected, class, size, sha, partial) = (
        col("file"),
        col("container"),
        col("expected"),
        col("class"),
        col("decoded_size"),
        col("decoded_sha256"),
        col("xz_partial_output_bytes"),
    );
    lines
        .filter(|l| !l.is_empty())
        .map(|line| {
            let f: Vec<&str> = line.split('\t').collect();
            Row {
                file: f[file].to_string(),
                container: f[container].to_string(),
                expected: f[expected].to_string(),
                class: f[class].to_string(),
                size: f[size].parse().ok(),
                sha256: f[sha].to_string(),
                xz_partial: f[partial].parse().ok(),
            }
        })
        .collect()
}

fn sha256_hex(data: &[u8]) -> String {
    Sha256::digest(data)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// Decodes with the public face for the container; returns the output
/// (partial output too, when decoding fails) and the result.
fn decode(container: &str, data: &[u8]) -> (Vec<u8>, io::Result<()>) {
    let mut out = Vec::new();
    let result = match container {
        "xz" => lzflow::read::XzDecoder::new(data).read_to_end(&mut out),
        "lzma_alone" => lzflow::read::LzmaDecoder::new(data).read_to_end(&mut out),
        "lzip" => lzflow::read::LzipDecoder::new(data).read_to_end(&mut out),
        other => panic!("no decoder for container {other}"),
    };
    (out, result.map(|_| ()))
}

/// True when the io::Error carries the container layer's typed error as
/// its source, so callers can match on variants.
fn has_typed_source(container: &str, err: &io::Error) -> bool {
    let Some(inner) = err.get_ref() else {
        return false;
    };
    match container {
        "xz" => inner.downcast_ref::<lzflow_xz::XzError>().is_some(),
        "lzip" => inner.downcast_ref::<lzflow::LzipError>().is_some(),
        _ => inner.downcast_ref::<lzflow_lzma::LzmaError>().is_some(),
    }
}

/// For the error classes whose culprit is unambiguous, the XzError
/// variant that must be reported (other classes are only checked for their
/// io::ErrorKind).
fn variant_matches(class: &str, err: &io::Error) -> Result<(), String> {
    use lzflow_xz::XzError as E;
    if let Some(lz) = err
        .get_ref()
        .and_then(|e| e.downcast_ref::<lzflow::LzipError>())
    {
        return lzip_variant_matches(class, lz);
    }
    let Some(xz) = err.get_ref().and_then(|e| e.downcast_ref::<E>()) else {
        return Ok(()); // .lzma files carry an LzmaError; checked elsewhere
    };
    let ok = match class {
        "format" => matches!(xz, E::NotXz),
        "check" => matches!(xz, E::CheckMismatch { .. }),
        "stream_header_crc" => matches!(xz, E::StreamHeaderCrc { .. }),
        "stream_footer_crc" => matches!(xz, E::StreamFooterCrc { .. }),
        "stream_footer_magic" => matches!(xz, E::StreamFooterMagic),
        "stream_flags_mismatch" => matches!(xz, E::StreamFlagsMismatch { .. }),
        "stream_footer_backward_size" => matches!(xz, E::BackwardSizeMismatch { .. }),
        "stream_padding" => matches!(xz, E::StreamPadding { .. }),
        "block_header_crc" => matches!(xz, E::BlockHeaderCrc { .. }),
        "block_header_vli" => matches!(xz, E::BlockHeaderVli { .. }),
        "block_padding" => matches!(xz, E::BlockPadding),
        "index_crc" => matches!(xz, E::IndexCrc { .. }),
        "index_padding" => matches!(xz, E::IndexPadding),
        "truncated" => matches!(xz, E::Truncated { .. }),
        c if c.starts_with("lzma2_") => matches!(xz, E::Lzma { .. }),
        "unsupported_check" => matches!(xz, E::UnsupportedCheck { .. }),
        "unsupported_filter" => matches!(xz, E::UnsupportedFilter { .. }),
        "unsupported_block_header" => matches!(xz, E::UnsupportedBlockHeader { .. }),
        _ => true,
    };
    if ok {
        Ok(())
    } else {
        Err(format!("class {class}: unexpected variant {xz:?}"))
    }
}

/// The LzipError variant each lzip error class must be.
fn lzip_variant_matches(class: &str, lz: &lzflow::LzipError) -> Result<(), String> {
    use lzflow::LzipError as L;
    let ok = match class {
        "format" => matches!(lz, L::NotLzip),
        "check" => matches!(lz, L::CrcMismatch { .. }),
        "lzip_dict_size" => matches!(lz, L::InvalidDictSize(_)),
        "size_mismatch" => matches!(
            lz,
            L::DataSizeMismatch { .. } | L::MemberSizeMismatch { .. }
        ),
        "truncated" => matches!(lz, L::Truncated),
        "unsupported_version" => matches!(lz, L::UnsupportedVersion(_)),
        _ => false,
    };
    if ok {
        Ok(())
    } else {
        Err(format!("class {class}: unexpected lzip variant {lz:?}"))
    }
}

/// Checks one file; Err describes the mismatch.
fn check(row: &Row) -> Result<(), String> {
    let data = fs::read(root().join("files").join(&row.file)).map_err(|e| e.to_string())?;
    let (out, result) = decode(&row.container, &data);
    match (row.expected.as_str(), result) {
        ("ok", Ok(())) => {
            let want_size = row.size.expect("ok rows have a size");
            if out.len() as u64 != want_size || sha256_hex(&out) != row.sha256 {
                return Err(format!(
                    "decoded {} bytes (sha256 {}), expected {} bytes (sha256 {})",
                    out.len(),
                    sha256_hex(&out),
                    want_size,
                    row.sha256
                ));
            }
            Ok(())
        }
        ("ok", Err(e)) => Err(format!("expected success, got {:?}: {e}", e.kind())),
        // ID 0x02 is a reserved check: decoding without verifying it is
        // allowed (xz does, with a warning), but then the data must be right.
        ("unsupported", Ok(())) if row.class == "unsupported_check" => {
            if Some(out.len() as u64) == row.size && sha256_hex(&out) == row.sha256 {
                Ok(())
            } else {
                Err("decoded an unsupported-check file to the wrong data".into())
            }
        }
        (_, Ok(())) => Err(format!(
            "expected {} ({}), but decoding succeeded with {} bytes",
            row.expected,
            row.class,
            out.len()
        )),
        (expected, Err(e)) => {
            let want_kind = match (expected, row.class.as_str()) {
                ("unsupported", _) => io::ErrorKind::Unsupported,
                (_, "truncated") => io::ErrorKind::UnexpectedEof,
                _ => io::ErrorKind::InvalidData,
            };
            if e.kind() != want_kind {
                return Err(format!(
                    "class {}: expected {want_kind:?}, got {:?}: {e}",
                    row.class,
                    e.kind()
                ));
            }
            if !has_typed_source(&row.container, &e) {
                return Err(format!("error has no typed source: {e:?}"));
            }
            variant_matches(&row.class, &e)?;
            // Where xz writes nothing, the defect is in headers that come
            // before any data: nothing may be emitted from such a stream.
            if row.xz_partial == Some(0) && !out.is_empty() {
                return Err(format!(
                    "emitted {} bytes before rejecting a file whose defect precedes all data",
                    out.len()
                ));
            }
            Ok(())
        }
    }
}

#[test]
fn every_xz_utils_file_gives_its_expected_outcome() {
    let rows = rows();
    assert_eq!(rows.len(), 97, "EXPECT.tsv lists 97 files");
    let mut passed = 0;
    let mut failures = Vec::new();
    for row in &rows {
        match check(row) {
            Ok(()) => passed += 1,
            Err(why) => failures.push(format!("{}: {why}", row.file)),
        }
    }
    println!(
        "xz-utils conformance: {passed}/{} as expected, {} failed",
        rows.len(),
        failures.len()
    );
    assert!(
        failures.is_empty(),
        "{} of {} files did not give their expected outcome:\n{}",
        failures.len(),
        rows.len(),
        failures.join("\n")
    );
    assert_eq!(
        rows.iter().filter(|r| r.container == "lzip").count(),
        18,
        "the .lz files count too"
    );
    assert_eq!(passed, 97);
}
