//! Every single-stream fixture in fixtures/generated (.xz, .lzma and raw
//! LZMA/LZMA2) decodes through the public std faces to exactly the size and
//! SHA-256 in MANIFEST.tsv; the `error` rows are rejected.

use std::fs;
use std::io::{self, Read};
use std::path::{Path, PathBuf};

use lzflow_filters::{new_filter, Direction, FilterConfig, FilterDecoder, FilterKind};
use lzflow_lzma::{DecoderOptions, Lzma2Decoder, LzmaProps};
use sha2::{Digest, Sha256};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/generated")
}

struct Row {
    file: String,
    container: String,
    coders: String,
    expected: String,
    size: Option<u64>,
    sha256: String,
}

fn rows() -> Vec<Row> {
    let text = fs::read_to_string(root().join("MANIFEST.tsv")).expect("MANIFEST.tsv");
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().expect("header").split('\t').collect();
    let col = |name: &str| {
        header
            .iter()
            .position(|h| *h == name)
            .unwrap_or_else(|| panic!("MANIFEST.tsv lacks column {name}"))
    };
    let (file, container, coders, expected, size, sha) = (
        col("file"),
        col("container"),
        col("coders"),
        col("expected"),
        col("entry_size"),
        col("entry_sha256"),
    );
    lines
        .filter(|l| !l.is_empty())
        .map(|line| {
            let f: Vec<&str> = line.split('\t').collect();
            Row {
                file: f[file].to_string(),
                container: f[container].to_string(),
                coders: f[coders].to_string(),
                expected: f[expected].to_string(),
                size: f[size].parse().ok(),
                sha256: f[sha].to_string(),
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

/// "1MiB" / "4KiB" / "8MiB".
fn parse_dict(text: &str) -> u32 {
    let (num, shift) = if let Some(n) = text.strip_suffix("MiB") {
        (n, 20)
    } else if let Some(n) = text.strip_suffix("KiB") {
        (n, 10)
    } else {
        (text, 0)
    };
    num.parse::<u32>().expect("dictionary size") << shift
}

/// Parameters of a raw stream from the `coders` column, e.g.
/// `lzma1(lc=3,lp=0,pb=2,dict=1MiB)`, `x86+lzma2(dict=1MiB)`.
struct RawParams {
    bcj_x86: bool,
    lzma1: bool,
    dict: u32,
    lc: u32,
    lp: u32,
    pb: u32,
}

fn parse_raw(coders: &str) -> RawParams {
    let (bcj_x86, codec) = match coders.strip_prefix("x86+") {
        Some(rest) => (true, rest),
        None => (false, coders),
    };
    let open = codec.find('(').expect("parameters in parentheses");
    let name = &codec[..open];
    let args = codec[open + 1..].trim_end_matches(')');
    let mut p = RawParams {
        bcj_x86,
        lzma1: name == "lzma1",
        dict: 8 << 20,
        lc: 3,
        lp: 0,
        pb: 2,
    };
    assert!(
        name == "lzma1" || name == "lzma2",
        "unknown raw coder {name}"
    );
    for kv in args.split(',') {
        let (k, v) = kv.split_once('=').expect("key=value");
        match k {
            "dict" => p.dict = parse_dict(v),
            "lc" => p.lc = v.parse().unwrap(),
            "lp" => p.lp = v.parse().unwrap(),
            "pb" => p.pb = v.parse().unwrap(),
            other => panic!("unknown raw parameter {other}"),
        }
    }
    p
}

fn decode(row: &Row, data: &[u8]) -> io::Result<Vec<u8>> {
    let mut out = Vec::new();
    match row.container.as_str() {
        "xz" => {
            lzflow::read::XzDecoder::new(data).read_to_end(&mut out)?;
        }
        "lzma_alone" => {
            lzflow::read::LzmaDecoder::new(data).read_to_end(&mut out)?;
        }
        "raw" => {
            let p = parse_raw(&row.coders);
            if p.lzma1 {
                let props = LzmaProps::new(p.lc, p.lp, p.pb).expect("valid lc/lp/pb");
                lzflow::read::RawLzmaDecoder::builder()
                    .props(props)
                    .dict_size(p.dict)
                    .uncompressed_size(None)
                    .build(data)
                    .read_to_end(&mut out)?;
            } else if p.bcj_x86 {
                // A raw filter chain has no face of its own: build the
                // chain from the sans-I/O parts and drive it with the face.
                let lzma2 = Lzma2Decoder::new(p.dict, &DecoderOptions::default())?;
                let x86 = new_filter(&FilterConfig::new(FilterKind::X86), Direction::Decode);
                let chain = FilterDecoder::new(lzma2, vec![x86]);
                lzflow::read::Decoder::with_coder(data, chain).read_to_end(&mut out)?;
            } else {
                lzflow::read::Lzma2Decoder::builder()
                    .dict_size(p.dict)
                    .build(data)
                    .read_to_end(&mut out)?;
            }
        }
        other => panic!("not a single-stream container: {other}"),
    }
    Ok(out)
}

#[test]
fn every_generated_single_stream_fixture_matches_the_manifest() {
    let rows: Vec<Row> = rows().into_iter().filter(|r| r.container != "7z").collect();
    let mut failures = Vec::new();
    let mut counts = [0usize; 3];
    for row in &rows {
        let data = fs::read(root().join(&row.file)).expect("fixture file");
        match (row.expected.as_str(), decode(row, &data)) {
            ("ok", Ok(out)) => {
                let size = row.size.expect("ok rows have a size");
                if out.len() as u64 != size || sha256_hex(&out) != row.sha256 {
                    failures.push(format!(
                        "{}: decoded {} bytes sha256 {}, expected {} bytes sha256 {}",
                        row.file,
                        out.len(),
                        sha256_hex(&out),
                        size,
                        row.sha256
                    ));
                }
            }
            ("ok", Err(e)) => failures.push(format!("{}: {:?}: {e}", row.file, e.kind())),
            ("error", Ok(out)) => failures.push(format!(
                "{}: must be rejected but decoded {} bytes",
                row.file,
                out.len()
            )),
            ("error", Err(e)) => {
                let ok_kind = if row.file.contains("truncated") {
                    e.kind() == io::ErrorKind::UnexpectedEof
                } else {
                    matches!(
                        e.kind(),
                        io::ErrorKind::InvalidData | io::ErrorKind::UnexpectedEof
                    )
                };
                if !ok_kind {
                    failures.push(format!(
                        "{}: wrong error kind {:?}: {e}",
                        row.file,
                        e.kind()
                    ));
                }
            }
            (other, _) => panic!("{}: unknown expectation {other}", row.file),
        }
        let slot = match row.container.as_str() {
            "xz" => 0,
            "lzma_alone" => 1,
            _ => 2,
        };
        counts[slot] += 1;
    }
    println!(
        "generated fixtures: {} xz, {} lzma, {} raw checked; {} failed",
        counts[0],
        counts[1],
        counts[2],
        failures.len()
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(
        counts[0] >= 39 && counts[1] >= 5 && counts[2] >= 4,
        "fixtures missing: {counts:?}"
    );
}
