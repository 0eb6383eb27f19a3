//! Side-by-side comparison with liblzma (ignored; run in release):
//!
//! ```text
//! cargo test --release -p lzflow-lzma --test encoder_bench -- --ignored --nocapture
//! ```
//!
//! Compresses ~20 MiB of text (sorted files from /usr/include) and 20 MiB of
//! seeded x86-like machine code with lzflow's LZMA2 encoder and liblzma's
//! raw LZMA2 encoder at presets 0, 6, 9 and 9e in one run, checks that
//! liblzma decodes lzflow's output, and prints time and size ratios.
//! `LZFLOW_BENCH_MIB` changes the input size, `LZFLOW_BENCH_PRESETS` the
//! presets (e.g. `6,9e`), `LZFLOW_BENCH_ROUNDS` how many alternating runs
//! each side gets (the best time of each is reported). Times are the
//! thread's CPU time (and wall time), so ratios are meaningful even on a
//! shared machine, though noisy there.

use std::io::Read;
use std::time::Instant;

use liblzma::stream::{Action, Filters, Status, Stream, PRESET_EXTREME};
use lzflow_core::{Encode, InBuf, OutBuf, Progress};
use lzflow_lzma::{Lzma2Encoder, LzmaOptions};

fn text_corpus(limit: usize) -> Vec<u8> {
    let mut files = Vec::new();
    let mut stack = vec![std::path::PathBuf::from("/usr/include")];
    while let Some(dir) = stack.pop() {
        let Ok(rd) = std::fs::read_dir(&dir) else {
            continue;
        };
        for e in rd.flatten() {
            let p = e.path();
            let Ok(ft) = e.file_type() else { continue };
            if ft.is_dir() {
                stack.push(p);
            } else if ft.is_file() {
                files.push(p);
            }
        }
    }
    files.sort();
    let mut v = Vec::new();
    for f in files {
        if v.len() >= limit {
            break;
        }
        if let Ok(d) = std::fs::read(&f) {
            v.extend_from_slice(&d);
        }
    }
    v.truncate(limit);
    v
}

/// Seeded x86-like code: prologues, movs with small displacements, calls
/// with relative targets, jumps, nops and immediates.
fn x86_like(n: usize, seed: u64) -> Vec<u8> {
    let mut s = seed;
    let mut next = move || {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        s
    };
    let mut v = Vec::with_capacity(n + 16);
    let funcs: Vec<u32> = (0..512).map(|i| i * 0x1d3 + 0x400).collect();
    while v.len() < n {
        let r = next();
        match r % 10 {
            0 => v.extend_from_slice(&[0x55, 0x48, 0x89, 0xE5]),
            1 => {
                v.extend_from_slice(&[0x48, 0x8B, 0x45 + (r >> 8) as u8 % 3 * 8]);
                v.push((r >> 16) as u8 & 0xF8);
            }
            2 | 3 => {
                v.push(0xE8);
                let target = funcs[(r >> 20) as usize % funcs.len()];
                let rel = target.wrapping_sub(v.len() as u32);
                v.extend_from_slice(&rel.to_le_bytes());
            }
            4 => v.extend_from_slice(&[0x74, (r >> 8) as u8 & 0x3F]),
            5 => v.extend_from_slice(&[0xB8 + (r >> 8) as u8 % 8, (r >> 16) as u8, 0, 0, 0]),
            6 => v.extend_from_slice(&[0x5D, 0xC3, 0x90, 0x90]),
            7 => v.extend_from_slice(&[0x48, 0x83, 0xEC, ((r >> 8) as u8 & 0x7) * 8]),
            8 => v.extend_from_slice(&[0x89, 0x7D, 0xFC - ((r >> 8) as u8 & 0x3) * 4]),
            _ => v.push((r >> 8) as u8),
        }
    }
    v.truncate(n);
    v
}

/// CPU time of the calling thread in seconds (utime + stime from
/// /proc/thread-self/stat), so a loaded machine skews the ratios less than
/// wall-clock time does.
fn thread_cpu() -> f64 {
    let stat = std::fs::read_to_string("/proc/thread-self/stat").unwrap_or_default();
    // Fields after the parenthesised command name; utime and stime are
    // fields 14 and 15 of the whole line.
    let rest = stat.rsplit_once(')').map_or("", |(_, r)| r);
    let f: Vec<u64> = rest
        .split_whitespace()
        .map(|x| x.parse().unwrap_or(0))
        .collect();
    if f.len() < 13 {
        return 0.0;
    }
    (f[11] + f[12]) as f64 / 100.0
}

/// Runs `f`, returning its result, wall seconds and CPU seconds.
fn timed<T>(f: impl FnOnce() -> T) -> (T, f64, f64) {
    let c = thread_cpu();
    let t = Instant::now();
    let r = f();
    (r, t.elapsed().as_secs_f64(), thread_cpu() - c)
}

fn lzflow(opts: &LzmaOptions, data: &[u8]) -> Vec<u8> {
    let mut enc = Lzma2Encoder::new(opts).unwrap();
    let mut out = Vec::with_capacity(data.len() / 3);
    let mut buf = vec![0u8; 1 << 16];
    for piece in data.chunks(1 << 16) {
        let mut input = InBuf::new(piece);
        loop {
            let mut o = OutBuf::new(&mut buf);
            let p = enc.encode(&mut input, &mut o).unwrap();
            out.extend_from_slice(o.written());
            if p == Progress::NeedInput {
                break;
            }
        }
    }
    loop {
        let mut o = OutBuf::new(&mut buf);
        let p = enc.finish(&mut o).unwrap();
        out.extend_from_slice(o.written());
        if p == Progress::StreamEnd {
            break;
        }
    }
    out
}

fn liblzma(preset: u32, data: &[u8]) -> Vec<u8> {
    let opts = liblzma::stream::LzmaOptions::new_preset(preset).unwrap();
    let mut f = Filters::new();
    f.lzma2(&opts);
    let mut s = Stream::new_raw_encoder(&f).unwrap();
    let mut out = Vec::with_capacity(data.len() + 1024);
    let mut pos = 0;
    loop {
        if out.capacity() - out.len() < 1 << 16 {
            out.reserve(1 << 20);
        }
        let before = s.total_in();
        let st = s
            .process_vec(&data[pos..], &mut out, Action::Finish)
            .unwrap();
        pos += (s.total_in() - before) as usize;
        if st == Status::StreamEnd {
            break;
        }
    }
    out
}

fn unlzma2(comp: &[u8], dict: u32) -> Vec<u8> {
    let mut o = liblzma::stream::LzmaOptions::new_preset(6).unwrap();
    o.dict_size(dict);
    let mut f = Filters::new();
    f.lzma2(&o);
    let s = Stream::new_raw_decoder(&f).unwrap();
    let mut out = Vec::new();
    liblzma::read::XzDecoder::new_stream(comp, s)
        .read_to_end(&mut out)
        .unwrap();
    out
}

#[test]
#[ignore = "benchmark; run in release with --ignored --nocapture"]
fn compare_with_liblzma() {
    let mib: usize = std::env::var("LZFLOW_BENCH_MIB")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(20);
    let rounds: usize = std::env::var("LZFLOW_BENCH_ROUNDS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(1);
    let presets = std::env::var("LZFLOW_BENCH_PRESETS").unwrap_or_else(|_| "0,6,9,9e".into());
    let inputs = [
        ("text", text_corpus(mib << 20)),
        ("x86", x86_like(mib << 20, 0x5eed)),
    ];
    println!(
        "input  preset  size ratio  cpu ratio  wall ratio   lzflow bytes  cpu s  |  liblzma bytes  cpu s"
    );
    for (name, data) in &inputs {
        for p in presets.split(',') {
            let extreme = p.ends_with('e');
            let level: u32 = p.trim_end_matches('e').parse().unwrap();
            let opts = if extreme {
                LzmaOptions::preset_extreme(level).unwrap()
            } else {
                LzmaOptions::preset(level).unwrap()
            };
            let preset = level | if extreme { PRESET_EXTREME } else { 0 };
            // Alternate the two and keep each one's best time, so load from
            // other processes skews the ratio less.
            let (mut ours, mut w_ours, mut c_ours) = timed(|| lzflow(&opts, data));
            let (mut theirs, mut w_theirs, mut c_theirs) = timed(|| liblzma(preset, data));
            for _ in 1..rounds {
                let (o, w, c) = timed(|| lzflow(&opts, data));
                (ours, w_ours, c_ours) = (o, w_ours.min(w), c_ours.min(c));
                let (t, w, c) = timed(|| liblzma(preset, data));
                (theirs, w_theirs, c_theirs) = (t, w_theirs.min(w), c_theirs.min(c));
            }
            assert!(
                unlzma2(&ours, opts.dict_size) == *data,
                "round trip {name} {p}"
            );
            println!(
                "{name:5}  {p:6}  {:10.4}  {:9.3}  {:10.3}   {:>12}  {:5.1}  |  {:>13}  {:5.1}",
                ours.len() as f64 / theirs.len() as f64,
                c_ours / c_theirs,
                w_ours / w_theirs,
                ours.len(),
                c_ours,
                theirs.len(),
                c_theirs
            );
        }
    }
}
