//! `compare ppmd`: PPMd var. H (7z's PPMd) encoding and decoding of the
//! 40 MiB text at order 6 with 16 MiB of model memory (7-Zip's level 5),
//! lzflow's coders against `ppmd-rust` (the Rust port of 7-Zip's code) in
//! this process, and against `7zz` (`-m0=PPMd:o=6:mem=16m -mmt=1`, a
//! process: its times include writing or testing the archive around the
//! stream, a few milliseconds). Issue 26's targets: time ≤ 1.0× 7zz and
//! ≤ 0.9× ppmd-rust, and the same bytes as 7-Zip.
//!
//! The contestants run interleaved round by round; medians are compared.

use std::io::{self, Read, Write};
use std::process::Command;
use std::time::{Duration, Instant};

use lzflow_core::{encode_to_end, Decode, InBuf, OutBuf, Progress};

use crate::sevenz::temp_dir;
use crate::workloads::text_input;

const ORDER: u8 = 6;
const MEM: u32 = 16 << 20;
/// Output buffer of the decoders.
const OUT: usize = 64 << 10;

fn lzflow_encode(text: &[u8]) -> io::Result<Vec<u8>> {
    let mut enc = lzflow_ppmd::Ppmd7Encoder::new(ORDER, MEM).map_err(io::Error::from)?;
    let mut out = Vec::with_capacity(text.len() / 3);
    let mut scratch = vec![0u8; OUT];
    encode_to_end(&mut enc, text, &mut out, &mut scratch).map_err(io::Error::from)?;
    Ok(out)
}

fn lzflow_decode(stream: &[u8], size: u64, buf: &mut [u8]) -> io::Result<u64> {
    let mut dec = lzflow_ppmd::Ppmd7Decoder::new(ORDER, MEM, Some(size), u64::MAX)
        .map_err(io::Error::from)?;
    let mut input = InBuf::last(stream);
    let mut total = 0u64;
    loop {
        let mut out = OutBuf::new(buf);
        let p = dec.decode(&mut input, &mut out).map_err(io::Error::from)?;
        total += out.written().len() as u64;
        if p == Progress::StreamEnd {
            return Ok(total);
        }
    }
}

fn crate_encode(text: &[u8]) -> io::Result<Vec<u8>> {
    let out = Vec::with_capacity(text.len() / 3);
    let mut enc = ppmd_rust::Ppmd7Encoder::new(out, u32::from(ORDER), MEM)
        .map_err(|e| io::Error::other(format!("{e:?}")))?;
    enc.write_all(text)?;
    enc.finish(false)
}

fn crate_decode(stream: &[u8], size: u64, buf: &mut [u8]) -> io::Result<u64> {
    let mut dec = ppmd_rust::Ppmd7Decoder::new(stream, u32::from(ORDER), MEM)
        .map_err(|e| io::Error::other(format!("{e:?}")))?;
    let mut left = size;
    while left > 0 {
        let n = buf.len().min(left as usize);
        dec.read_exact(&mut buf[..n])?;
        left -= n as u64;
    }
    Ok(size)
}

fn run_7zz(dir: &std::path::Path, args: &[&str]) -> io::Result<Duration> {
    let t = Instant::now();
    let st = Command::new("7zz")
        .args(args)
        .current_dir(dir)
        .stdout(std::process::Stdio::null())
        .status()?;
    if !st.success() {
        return Err(io::Error::other(format!("7zz {args:?} failed")));
    }
    Ok(t.elapsed())
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

/// Prints the PPMd table.
pub fn compare_ppmd(rounds: usize) -> io::Result<()> {
    let dir = temp_dir("ppmd")?;
    let text = text_input();
    let size = text.len() as u64;
    std::fs::write(dir.join("text.txt"), &text)?;
    let method = format!("-m0=PPMd:o={ORDER}:mem={}m", MEM >> 20);
    let zz_add = [
        "a",
        "-t7z",
        method.as_str(),
        "-mmt=1",
        "-bsp0",
        "p.7z",
        "text.txt",
    ];
    let zz_test = ["t", "-bsp0", "p.7z"];
    let mut buf = vec![0u8; OUT];
    // [lzflow enc, crate enc, 7zz a, lzflow dec, crate dec, 7zz t]
    let mut times: [Vec<Duration>; 6] = Default::default();
    let (mut ours, mut theirs) = (Vec::new(), Vec::new());
    for round in 0..rounds + 1 {
        let t = Instant::now();
        ours = lzflow_encode(&text)?;
        let enc_ours = t.elapsed();
        let t = Instant::now();
        theirs = crate_encode(&text)?;
        let enc_theirs = t.elapsed();
        let _ = std::fs::remove_file(dir.join("p.7z"));
        let zz_a = run_7zz(&dir, &zz_add)?;
        let t = Instant::now();
        let a = lzflow_decode(&theirs, size, &mut buf)?;
        let dec_ours = t.elapsed();
        let t = Instant::now();
        let b = crate_decode(&ours, size, &mut buf)?;
        let dec_theirs = t.elapsed();
        let zz_t = run_7zz(&dir, &zz_test)?;
        if a != size || b != size {
            return Err(io::Error::other(format!("decoded {a} and {b} of {size}")));
        }
        // The first round warms caches and pools.
        if round > 0 {
            for (v, t) in times
                .iter_mut()
                .zip([enc_ours, enc_theirs, zz_a, dec_ours, dec_theirs, zz_t])
            {
                v.push(t);
            }
        }
    }
    let packed_7zz = {
        let archive = lzflow::sevenz::Archive::open(std::fs::File::open(dir.join("p.7z"))?)
            .map_err(io::Error::other)?;
        (0..archive.index().folder_count())
            .map(|f| archive.index().folder_packed_size(f))
            .sum::<u64>()
    };
    let m: Vec<Duration> = times.into_iter().map(median).collect();
    let mib = size as f64 / f64::from(1 << 20);
    println!(
        "PPMd var. H, order {ORDER}, {} MiB: {size} bytes of text ({rounds} rounds, medians)",
        MEM >> 20
    );
    println!(
        "packed: lzflow {} bytes, ppmd-rust {} bytes, 7zz pack stream {packed_7zz} bytes; lzflow's bytes {} ppmd-rust's",
        ours.len(),
        theirs.len(),
        if ours == theirs { "equal" } else { "DIFFER FROM" }
    );
    println!(
        "{:<28} {:>10} {:>10} {:>9} {:>11}",
        "contestant", "ms", "MiB/s", "vs 7zz", "vs crate"
    );
    let rows = [
        ("encode: lzflow", m[0], m[2], m[1]),
        ("encode: ppmd-rust", m[1], m[2], m[1]),
        ("encode: 7zz a -mmt=1", m[2], m[2], m[1]),
        ("decode: lzflow", m[3], m[5], m[4]),
        ("decode: ppmd-rust", m[4], m[5], m[4]),
        ("decode: 7zz t", m[5], m[5], m[4]),
    ];
    for (name, t, zz, krate) in rows {
        println!(
            "{:<28} {:>10.1} {:>10.1} {:>8.3}x {:>10.3}x",
            name,
            t.as_secs_f64() * 1e3,
            mib / t.as_secs_f64(),
            t.as_secs_f64() / zz.as_secs_f64(),
            t.as_secs_f64() / krate.as_secs_f64()
        );
    }
    let verdict = |r: f64, bound: f64| if r <= bound { "met" } else { "MISSED" };
    for (what, ours, zz, krate) in [("encode", m[0], m[2], m[1]), ("decode", m[3], m[5], m[4])] {
        let (a, b) = (
            ours.as_secs_f64() / zz.as_secs_f64(),
            ours.as_secs_f64() / krate.as_secs_f64(),
        );
        println!(
            "  target {what}: lzflow / 7zz = {a:.3}x (≤ 1.00x): {}; lzflow / ppmd-rust = {b:.3}x (≤ 0.90x): {}",
            verdict(a, 1.0),
            verdict(b, 0.9)
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
    Ok(())
}
