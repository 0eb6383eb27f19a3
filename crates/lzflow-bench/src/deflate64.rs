//! `compare deflate64`: decoding a Deflate64 zip entry through lzflow's
//! zip reader against the `deflate64` crate alone on the same raw stream
//! (issue 26's target: ≤ 1.05×).
//!
//! The input is the 40 MiB text workload, compressed by
//! `7zz a -tzip -mm=Deflate64 -mx5`. Both contestants run in this process,
//! interleaved round by round; the medians are compared. lzflow's row does
//! what a user's read does: the local header, the inflater, the CRC-32
//! check; the crate's row only inflates.

use std::io::{self, Cursor, Read};
use std::time::{Duration, Instant};

use crate::sevenz::temp_dir;
use crate::workloads::text_input;

/// Output buffer of both contestants.
const OUT: usize = 64 << 10;

/// The raw Deflate64 stream of the archive's only entry.
fn raw_stream(zip: &[u8]) -> io::Result<Vec<u8>> {
    let a = lzflow::zip::ZipArchive::open(Cursor::new(zip)).map_err(io::Error::other)?;
    let e = a
        .directory()
        .get(0)
        .ok_or_else(|| io::Error::other("an empty archive"))?;
    let at = e.local_header_offset() as usize;
    let local = &zip[at..];
    let name = u16::from_le_bytes([local[26], local[27]]) as usize;
    let extra = u16::from_le_bytes([local[28], local[29]]) as usize;
    let start = at + 30 + name + extra;
    Ok(zip[start..start + e.compressed_size() as usize].to_vec())
}

fn lzflow_read(zip: &[u8], buf: &mut [u8]) -> io::Result<u64> {
    let mut a = lzflow::zip::ZipArchive::open(Cursor::new(zip)).map_err(io::Error::other)?;
    let mut r = a.reader(0).map_err(io::Error::other)?;
    let mut total = 0u64;
    loop {
        let n = r.read(buf)?;
        if n == 0 {
            return Ok(total);
        }
        total += n as u64;
    }
}

fn crate_inflate(raw: &[u8], buf: &mut [u8]) -> io::Result<u64> {
    let mut inf = Box::new(deflate64::InflaterManaged::new());
    let mut input = raw;
    let mut total = 0u64;
    while !inf.finished() {
        let r = inf.inflate(input, buf);
        if r.data_error {
            return Err(io::Error::other("Deflate64 data error"));
        }
        input = &input[r.bytes_consumed..];
        total += r.bytes_written as u64;
        if r.bytes_consumed == 0 && r.bytes_written == 0 {
            return Err(io::Error::other("Deflate64 stream cut short"));
        }
    }
    Ok(total)
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

/// Prints the Deflate64 table.
pub fn compare_deflate64(rounds: usize) -> io::Result<()> {
    let dir = temp_dir("deflate64")?;
    let text = text_input();
    std::fs::write(dir.join("text.txt"), &text)?;
    let status = std::process::Command::new("7zz")
        .args([
            "a",
            "-tzip",
            "-mm=Deflate64",
            "-mx5",
            "-bsp0",
            "-bso0",
            "d64.zip",
            "text.txt",
        ])
        .current_dir(&dir)
        .status()?;
    if !status.success() {
        return Err(io::Error::other(
            "7zz could not write the Deflate64 archive",
        ));
    }
    let zip = std::fs::read(dir.join("d64.zip"))?;
    let raw = raw_stream(&zip)?;
    let mut buf = vec![0u8; OUT];
    let (mut ours, mut theirs) = (Vec::new(), Vec::new());
    for round in 0..rounds + 1 {
        let t = Instant::now();
        let a = lzflow_read(&zip, &mut buf)?;
        let ta = t.elapsed();
        let t = Instant::now();
        let b = crate_inflate(&raw, &mut buf)?;
        let tb = t.elapsed();
        if a != text.len() as u64 || b != text.len() as u64 {
            return Err(io::Error::other(format!(
                "decoded {a} and {b} bytes of {}",
                text.len()
            )));
        }
        // The first round warms caches and pools.
        if round > 0 {
            ours.push(ta);
            theirs.push(tb);
        }
    }
    let (a, b) = (median(ours), median(theirs));
    let mib = text.len() as f64 / f64::from(1 << 20);
    println!(
        "Deflate64, {} bytes of text in {} packed ({rounds} rounds, medians)",
        text.len(),
        raw.len()
    );
    println!(
        "{:<34} {:>10} {:>10} {:>8}",
        "contestant", "ms", "MiB/s", "ratio"
    );
    for (name, t) in [
        ("deflate64 crate alone", b),
        ("lzflow ZipArchive reader", a),
    ] {
        println!(
            "{:<34} {:>10.2} {:>10.1} {:>7.3}x",
            name,
            t.as_secs_f64() * 1e3,
            mib / t.as_secs_f64(),
            t.as_secs_f64() / b.as_secs_f64()
        );
    }
    let ratio = a.as_secs_f64() / b.as_secs_f64();
    println!(
        "  target: lzflow / deflate64 crate = {ratio:.3}x (≤ 1.05x): {}",
        if ratio <= 1.05 { "met" } else { "MISSED" }
    );
    let _ = std::fs::remove_dir_all(&dir);
    Ok(())
}
