//! A truncated file yields every byte that can be decoded before the
//! truncation error, exactly what xz-utils yields: liblzma (the library
//! `xz` is built on) on hundreds of prefixes of each fixture, in process,
//! and `xz -dc` itself on some of them.

use std::io::{self, Read, Write};
use std::path::PathBuf;
use std::process::{Command, Stdio};

use liblzma::stream::{Action, Status, Stream, CONCATENATED};

/// The repository's `fixtures/` (this crate lives in `crates/lzflow-bench`).
fn fixtures_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../fixtures")
}

fn fixture(name: &str) -> Vec<u8> {
    let path = fixtures_dir().join("generated").join(name);
    std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// What liblzma delivers for `data` given whole with LZMA_FINISH: every
/// byte before it stops, and whether it reached the end.
fn liblzma(data: &[u8], alone: bool) -> (Vec<u8>, bool) {
    let mut stream = if alone {
        Stream::new_lzma_decoder(u64::MAX)
    } else {
        Stream::new_stream_decoder(u64::MAX, CONCATENATED)
    }
    .unwrap();
    let mut out = Vec::new();
    let mut input = data;
    loop {
        out.reserve(1 << 16);
        let (in_before, out_before) = (stream.total_in(), stream.total_out());
        match stream.process_vec(input, &mut out, Action::Finish) {
            Ok(Status::StreamEnd) => return (out, true),
            Ok(_) => {}
            Err(_) => return (out, false),
        }
        input = &input[(stream.total_in() - in_before) as usize..];
        if stream.total_in() == in_before && stream.total_out() == out_before {
            return (out, false);
        }
    }
}

/// What lzflow's std face delivers for `data` before it stops.
fn lzflow(data: &[u8], alone: bool) -> (Vec<u8>, io::Result<()>) {
    let mut r: Box<dyn Read> = if alone {
        Box::new(lzflow::read::LzmaDecoder::new(data))
    } else {
        Box::new(lzflow::read::XzDecoder::new(data))
    };
    let mut out = Vec::new();
    let mut buf = [0u8; 8192];
    loop {
        match r.read(&mut buf) {
            Ok(0) => return (out, Ok(())),
            Ok(n) => out.extend_from_slice(&buf[..n]),
            Err(e) => return (out, Err(e)),
        }
    }
}

/// Cut points: every one near both ends, and `spread` more in between.
fn cuts(len: usize, spread: usize) -> Vec<usize> {
    let mut v: Vec<usize> = (0..len.min(160)).collect();
    v.extend(len.saturating_sub(160)..len);
    v.extend((1..spread).map(|i| i * len / spread));
    v.sort_unstable();
    v.dedup();
    v
}

const FIXTURES: &[(&str, bool)] = &[
    ("xz/preset-0.xz", false),
    ("xz/preset-6.xz", false),
    ("xz/multiblock.xz", false),
    ("xz/multistream.xz", false),
    ("xz/bcj-x86.xz", false),
    ("xz/delta-4.xz", false),
    ("xz/check-sha256.xz", false),
    ("xz/lzma2-lc0-lp2-pb0.xz", false),
    ("lzma/unknown-size-eopm.lzma", true),
    ("lzma/known-size-eopm.lzma", true),
    ("lzma/lc0-lp2-pb0.lzma", true),
];

#[test]
fn every_prefix_yields_what_liblzma_yields_then_a_truncation_error() {
    for &(name, alone) in FIXTURES {
        let data = fixture(name);
        for cut in cuts(data.len(), 300) {
            let prefix = &data[..cut];
            let (want, complete) = liblzma(prefix, alone);
            let (got, result) = lzflow(prefix, alone);
            assert!(
                got == want,
                "{name} cut at {cut} of {}: lzflow gave {} bytes, liblzma {}",
                data.len(),
                got.len(),
                want.len()
            );
            match result {
                Ok(()) => assert!(complete, "{name} cut at {cut}: accepted a truncated file"),
                Err(e) => {
                    assert!(
                        !complete,
                        "{name} cut at {cut}: rejected what liblzma accepts: {e}"
                    );
                    assert!(
                        matches!(
                            e.kind(),
                            io::ErrorKind::UnexpectedEof | io::ErrorKind::InvalidData
                        ),
                        "{name} cut at {cut}: {e}"
                    );
                }
            }
        }
    }
}

/// `xz -dc` on `data`: what it writes before it stops.
fn xz_dc(data: &[u8], alone: bool) -> Option<Vec<u8>> {
    let format = if alone {
        "--format=lzma"
    } else {
        "--format=xz"
    };
    let mut child = Command::new("xz")
        .args(["-dc", format])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .ok()?;
    let mut stdin = child.stdin.take()?;
    let input = data.to_vec();
    let writer = std::thread::spawn(move || stdin.write_all(&input));
    let out = child.wait_with_output().ok()?;
    let _ = writer.join();
    Some(out.stdout)
}

#[test]
fn a_cut_inside_a_chunk_yields_its_decodable_bytes_as_xz_dc_does() {
    // The example: a one-Block file cut at 60 % yields the bytes
    // before the cut, not nothing.
    let data = fixture("xz/preset-6.xz");
    let cut = data.len() * 6 / 10;
    let (got, result) = lzflow(&data[..cut], false);
    assert_eq!(result.unwrap_err().kind(), io::ErrorKind::UnexpectedEof);
    assert!(!got.is_empty());
    if xz_dc(&[], false).is_none() {
        eprintln!("SKIPPED: xz is not installed; compared with liblzma only");
        return;
    }
    assert_eq!(Some(got), xz_dc(&data[..cut], false));
    for &(name, alone) in FIXTURES {
        let data = fixture(name);
        for cut in cuts(data.len(), 12).into_iter().step_by(41) {
            let (got, _) = lzflow(&data[..cut], alone);
            let want = xz_dc(&data[..cut], alone).unwrap();
            assert!(
                got == want,
                "{name} cut at {cut}: lzflow {} bytes, xz -dc {}",
                got.len(),
                want.len()
            );
        }
    }
}

#[test]
fn an_end_marker_needs_its_last_byte_as_in_xz() {
    // xz normalizes the range after an end marker before it checks the end:
    // a file missing that byte is truncated, though the marker's bits are
    // all there.
    for name in [
        "good-unknown_size-with_eopm.lzma",
        "good-known_size-with_eopm.lzma",
    ] {
        let path = fixtures_dir().join("xz-utils/files").join(name);
        let data = std::fs::read(path).unwrap();
        for cut in 0..=data.len() {
            let (want, complete) = liblzma(&data[..cut], true);
            let (got, result) = lzflow(&data[..cut], true);
            assert!(got == want, "{name} cut {cut}");
            assert_eq!(result.is_ok(), complete, "{name} cut {cut}");
        }
    }
}
