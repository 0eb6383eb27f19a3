//! Deterministic mutations (truncations, bit flips, byte overwrites) of
//! every .xz and .lzma fixture: decoding must end in data or an error —
//! never a panic, never a hang — under a memory and an output limit.
//! A strict prefix of a valid single-stream file must be reported as
//! truncated (`UnexpectedEof`).

use std::fs;
use std::io::{self, Read};
use std::panic::{self, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::thread;
use std::time::Duration;

/// Decoders may use at most this much memory; fixtures needing more (the
/// 64 MiB preset-9e dictionary) then fail with a limit error, which is a
/// valid outcome.
const MEMLIMIT: u64 = 80 << 20;
/// A flipped bit can make a stream claim far more output than the fixture
/// holds; decoding stops there.
const OUTPUT_LIMIT: u64 = 8 << 20;
/// No single decode may take longer than this (they take milliseconds).
const TIMEOUT: Duration = Duration::from_secs(20);

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Container {
    Xz,
    Lzma,
}

struct Fixture {
    name: String,
    container: Container,
    data: Vec<u8>,
    /// A valid single stream with nothing after it: every strict prefix
    /// must be a truncation error.
    strict_prefixes: bool,
}

fn fixtures() -> Vec<Fixture> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures");
    let mut dirs: Vec<PathBuf> = vec![
        root.join("xz-utils/files"),
        root.join("generated/xz"),
        root.join("generated/lzma"),
    ];
    let mut out = Vec::new();
    for dir in dirs.drain(..) {
        let mut entries: Vec<_> = fs::read_dir(&dir)
            .expect("fixture dir")
            .map(|e| e.expect("dir entry").path())
            .collect();
        entries.sort();
        for path in entries {
            let file = path.file_name().unwrap().to_string_lossy().into_owned();
            let container = if file.ends_with(".xz") {
                Container::Xz
            } else if file.ends_with(".lzma") {
                Container::Lzma
            } else {
                continue;
            };
            let good = file.starts_with("good-")
                || (dir.ends_with("xz") || dir.ends_with("lzma")) && !file.starts_with("bad-");
            let concatenated = ["cat", "pad", "multistream"]
                .iter()
                .any(|s| file.contains(s));
            out.push(Fixture {
                name: format!("{}/{file}", dir.file_name().unwrap().to_string_lossy()),
                container,
                data: fs::read(&path).expect("fixture"),
                strict_prefixes: good && !concatenated,
            });
        }
    }
    out
}

/// How a mutated file came about, for failure messages.
#[derive(Clone, Debug)]
enum Mutation {
    Truncate(usize),
    FlipBit(usize),
    SetByte(usize, u8),
}

fn apply(data: &[u8], m: &Mutation) -> Vec<u8> {
    match *m {
        Mutation::Truncate(n) => data[..n].to_vec(),
        Mutation::FlipBit(bit) => {
            let mut d = data.to_vec();
            d[bit / 8] ^= 1 << (bit % 8);
            d
        }
        Mutation::SetByte(i, b) => {
            let mut d = data.to_vec();
            d[i] = b;
            d
        }
    }
}

/// The mutations of one file: dense at both ends (headers, index, footer),
/// evenly spread through the middle, the same on every run.
fn mutations(data: &[u8]) -> Vec<Mutation> {
    let len = data.len();
    let mut out = Vec::new();
    let step = (len / 24).max(1);
    let mut cuts: Vec<usize> = (0..len.min(40)).collect();
    cuts.extend((0..len).step_by(step));
    cuts.extend(len.saturating_sub(40)..len);
    cuts.sort_unstable();
    cuts.dedup();
    out.extend(cuts.into_iter().map(Mutation::Truncate));

    let mut seed = len as u64 ^ 0x5EED_1234_ABCD_0001;
    let mut next = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    if len > 0 {
        for i in (0..len.min(24)).chain(len.saturating_sub(24)..len) {
            out.push(Mutation::FlipBit(i * 8 + (next() % 8) as usize));
        }
        for _ in 0..48 {
            out.push(Mutation::FlipBit((next() % (len as u64 * 8)) as usize));
        }
        for _ in 0..8 {
            let i = (next() % len as u64) as usize;
            out.push(Mutation::SetByte(i, 0x00));
            out.push(Mutation::SetByte(i, 0xFF));
        }
    }
    out
}

fn decode(container: Container, data: &[u8]) -> io::Result<u64> {
    let mut sink = Vec::new();
    let n = match container {
        Container::Xz => lzflow::read::XzDecoder::builder()
            .memlimit(MEMLIMIT)
            .output_limit(OUTPUT_LIMIT)
            .build(data)
            .read_to_end(&mut sink)?,
        Container::Lzma => lzflow::read::LzmaDecoder::builder()
            .memlimit(MEMLIMIT)
            .output_limit(OUTPUT_LIMIT)
            .build(data)
            .read_to_end(&mut sink)?,
    };
    Ok(n as u64)
}

/// What one mutated decode did, sent from the worker.
enum Report {
    Done,
    Problem(String),
}

#[test]
fn mutated_fixtures_fail_cleanly_without_panics_or_hangs() {
    let fixtures = fixtures();
    assert!(
        fixtures.len() > 100,
        "expected the xz-utils and generated fixtures"
    );
    let total: usize = fixtures.iter().map(|f| mutations(&f.data).len()).sum();
    let strict = fixtures.iter().filter(|f| f.strict_prefixes).count();
    assert!(
        strict >= 60,
        "only {strict} fixtures checked for strict truncation"
    );

    let fixture_count = fixtures.len();
    let (tx, rx) = mpsc::channel::<Report>();
    // A panic inside the decoder is caught and reported, so the default
    // hook's message would only be noise.
    let hook = panic::take_hook();
    panic::set_hook(Box::new(|_| {}));
    let worker = thread::spawn(move || {
        for fx in &fixtures {
            for m in mutations(&fx.data) {
                let mutated = apply(&fx.data, &m);
                let what = format!("{} {m:?}", fx.name);
                let result =
                    panic::catch_unwind(AssertUnwindSafe(|| decode(fx.container, &mutated)));
                let report = match result {
                    Err(_) => Report::Problem(format!("{what}: PANIC")),
                    Ok(Ok(_)) | Ok(Err(_)) if !fx.strict_prefixes => Report::Done,
                    Ok(outcome) => match (&m, outcome) {
                        (Mutation::Truncate(n), Ok(bytes)) if *n > 0 => Report::Problem(format!(
                            "{what}: a strict prefix decoded successfully ({bytes} bytes)"
                        )),
                        (Mutation::Truncate(n), Err(e))
                            if *n > 0 && e.kind() != io::ErrorKind::UnexpectedEof =>
                        {
                            Report::Problem(format!(
                                "{what}: truncation reported as {:?}: {e}",
                                e.kind()
                            ))
                        }
                        _ => Report::Done,
                    },
                };
                if tx.send(report).is_err() {
                    return;
                }
            }
        }
    });

    let mut problems = Vec::new();
    for done in 0..total {
        match rx.recv_timeout(TIMEOUT) {
            Ok(Report::Done) => {}
            Ok(Report::Problem(p)) => problems.push(p),
            Err(_) => {
                panic::set_hook(hook);
                panic!(
                    "a decode took longer than {TIMEOUT:?} (hang?) after {done} of {total} mutations; \
                     problems so far: {problems:#?}"
                );
            }
        }
    }
    worker.join().expect("worker");
    panic::set_hook(hook);
    println!(
        "{total} mutated inputs of {} fixtures decoded ({strict} checked for strict truncation), {} problems",
        fixture_count,
        problems.len()
    );
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
