//! Timing against liblzma (ignored; run in release):
//! `cargo test --release -p lzflow-lzma --test bench -- --ignored --nocapture`

mod common;

use std::time::{Duration, Instant};

use common::*;
use lzflow_core::{Decode, InBuf, OutBuf, Progress};
use lzflow_lzma::{DecoderOptions, Lzma2Decoder};

const SIZE: usize = 32 << 20;
/// Dictionary size in MiB (8 unless LZFLOW_BENCH_DICT_MIB says otherwise).
fn dict() -> u32 {
    std::env::var("LZFLOW_BENCH_DICT_MIB")
        .ok()
        .and_then(|v| v.parse::<u32>().ok())
        .unwrap_or(8)
        << 20
}

/// Alternating runs per decoder (5 unless LZFLOW_BENCH_RUNS says otherwise).
fn runs() -> usize {
    std::env::var("LZFLOW_BENCH_RUNS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(5)
}

/// Compressed input, cached next to the build output so reruns are quick.
fn compressed(name: &str, make: fn(usize, u64) -> Vec<u8>) -> (Vec<u8>, Vec<u8>) {
    let data = make(SIZE, 77);
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"));
    let path = dir.join(format!("bench-{name}-{SIZE}-{}.lzma2", dict()));
    let comp = match std::fs::read(&path) {
        Ok(c) => c,
        Err(_) => {
            let c = lzma2(&data, &opts(6, dict(), 3, 0, 2));
            std::fs::write(&path, &c).unwrap();
            c
        }
    };
    (data, comp)
}

fn lzflow_decode(comp: &[u8], out: &mut [u8]) -> usize {
    let mut dec = Lzma2Decoder::new(dict(), &DecoderOptions::default()).unwrap();
    let mut input = InBuf::last(comp);
    let mut output = OutBuf::new(out);
    loop {
        match dec.decode(&mut input, &mut output).unwrap() {
            Progress::StreamEnd => return output.pos(),
            Progress::OutputFull if output.is_full() => panic!("output too small"),
            _ => {}
        }
    }
}

/// On-CPU time of this thread (robust against a loaded machine), from
/// /proc/thread-self/schedstat; falls back to wall time elsewhere.
fn cpu_time() -> Option<Duration> {
    let s = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    Some(Duration::from_nanos(
        s.split_whitespace().next()?.parse().ok()?,
    ))
}

/// Best (CPU time, wall time) of `runs` calls of `f`.
fn measure(f: &mut dyn FnMut()) -> (Duration, Duration) {
    let (c0, t0) = (cpu_time(), Instant::now());
    f();
    let wall = t0.elapsed();
    let cpu = match (c0, cpu_time()) {
        (Some(a), Some(b)) => b - a,
        _ => wall,
    };
    (cpu, wall)
}

/// Runs `a` and `b` alternately `runs` times; best CPU and wall time of each.
fn compare(runs: usize, a: &mut dyn FnMut(), b: &mut dyn FnMut()) -> [(Duration, Duration); 2] {
    let mut best = [(Duration::MAX, Duration::MAX); 2];
    for _ in 0..runs {
        let (c, w) = measure(a);
        best[0] = (best[0].0.min(c), best[0].1.min(w));
        let (c, w) = measure(b);
        best[1] = (best[1].0.min(c), best[1].1.min(w));
    }
    best
}

fn best(runs: usize, mut f: impl FnMut()) -> Duration {
    (0..runs).map(|_| measure(&mut f).0).min().unwrap()
}

#[test]
#[ignore = "timing; run in release with --ignored --nocapture"]
fn lzma2_decode_vs_liblzma() {
    for (name, make) in [
        ("text", text_like as fn(usize, u64) -> Vec<u8>),
        ("mixed", mixed),
    ] {
        let (data, comp) = compressed(name, make);
        let mut out = vec![0u8; SIZE];
        assert_eq!(lzflow_decode(&comp, &mut out), SIZE);
        assert!(out == data);
        assert!(liblzma_lzma2_decode(&comp, dict(), SIZE) == data);
        let [ours, theirs] = compare(
            runs(),
            &mut || {
                lzflow_decode(&comp, &mut out);
            },
            &mut || {
                liblzma_lzma2_decode(&comp, dict(), SIZE);
            },
        );
        println!(
            "{name}: {} MiB -> {} KiB compressed; CPU time lzflow {:.1} ms, liblzma {:.1} ms, ratio {:.3} (wall {:.1} / {:.1} ms, ratio {:.3})",
            SIZE >> 20,
            comp.len() >> 10,
            ours.0.as_secs_f64() * 1e3,
            theirs.0.as_secs_f64() * 1e3,
            ours.0.as_secs_f64() / theirs.0.as_secs_f64(),
            ours.1.as_secs_f64() * 1e3,
            theirs.1.as_secs_f64() * 1e3,
            ours.1.as_secs_f64() / theirs.1.as_secs_f64(),
        );
    }
}

#[test]
#[ignore = "profiling helper: decodes the cached inputs with lzflow only"]
fn lzflow_only() {
    let which = std::env::var("LZFLOW_BENCH_DATA").unwrap_or_else(|_| "mixed".into());
    let make = if which == "text" { text_like } else { mixed };
    let (_, comp) = compressed(&which, make);
    let mut out = vec![0u8; SIZE];
    let t = best(3, || {
        lzflow_decode(&comp, &mut out);
    });
    println!("{which}: lzflow {:.1} ms", t.as_secs_f64() * 1e3);
}

/// Decodes the raw LZMA2 file `LZFLOW_BENCH_FILE` (8 MiB dictionary) with
/// lzflow, or with liblzma when `LZFLOW_BENCH_WHO=liblzma`: a steady target
/// for `valgrind --tool=callgrind`, whose instruction counts do not depend
/// on the machine's load.
#[test]
#[ignore = "profiling helper: set LZFLOW_BENCH_FILE to a raw LZMA2 file"]
fn file_decode() {
    let Ok(path) = std::env::var("LZFLOW_BENCH_FILE") else {
        return;
    };
    let comp = std::fs::read(path).unwrap();
    let who = std::env::var("LZFLOW_BENCH_WHO").unwrap_or_default();
    let reference = liblzma_lzma2_decode(&comp, dict(), 0);
    let mut out = vec![0u8; reference.len()];
    assert_eq!(lzflow_decode(&comp, &mut out), reference.len());
    assert!(out == reference);
    match who.as_str() {
        "liblzma" => {
            let t = best(runs(), || {
                assert_eq!(liblzma_drain(&comp), reference.len());
            });
            println!("liblzma: {:.1} ms", t.as_secs_f64() * 1e3);
        }
        "both" => {
            let [ours, theirs] = compare(
                runs(),
                &mut || {
                    assert_eq!(lzflow_drain(&comp), reference.len());
                },
                &mut || {
                    assert_eq!(liblzma_drain(&comp), reference.len());
                },
            );
            println!(
                "CPU ms lzflow {:.1}, liblzma {:.1}, ratio {:.3}",
                ours.0.as_secs_f64() * 1e3,
                theirs.0.as_secs_f64() * 1e3,
                ours.0.as_secs_f64() / theirs.0.as_secs_f64()
            );
        }
        _ => {
            let t = best(runs(), || {
                assert_eq!(lzflow_drain(&comp), reference.len());
            });
            println!("lzflow: {:.1} ms", t.as_secs_f64() * 1e3);
        }
    }
}

/// liblzma decoding `comp` into a reused 64 KiB buffer (as lzflow's decoder
/// is driven above: no fresh output pages per run); returns the size.
fn liblzma_drain(comp: &[u8]) -> usize {
    use liblzma::stream::{Action, Filters, LzmaOptions, Status, Stream};
    let mut o = LzmaOptions::new_preset(6).unwrap();
    o.dict_size(dict());
    let mut s = Stream::new_raw_decoder(Filters::new().lzma2(&o)).unwrap();
    let mut buf = vec![0u8; 64 << 10];
    let mut pos = 0;
    loop {
        let (before_in, before_out) = (s.total_in(), s.total_out());
        let st = s.process(&comp[pos..], &mut buf, Action::Run).unwrap();
        pos += (s.total_in() - before_in) as usize;
        if st == Status::StreamEnd {
            return s.total_out() as usize;
        }
        assert!(s.total_out() > before_out || s.total_in() > before_in);
    }
}

/// lzflow decoding `comp` into a reused 64 KiB buffer; returns the size.
fn lzflow_drain(comp: &[u8]) -> usize {
    let mut dec = Lzma2Decoder::new(dict(), &DecoderOptions::default()).unwrap();
    let mut input = InBuf::last(comp);
    let mut buf = vec![0u8; 64 << 10];
    let mut total = 0;
    loop {
        let mut output = OutBuf::new(&mut buf);
        let progress = dec.decode(&mut input, &mut output).unwrap();
        total += output.pos();
        if progress == Progress::StreamEnd {
            return total;
        }
    }
}
