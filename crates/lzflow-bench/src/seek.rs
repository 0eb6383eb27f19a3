//! `compare seek`: random 4 KiB reads from a 256 MiB `.xz` of 1 MiB
//! Blocks. lzflow's `SeekableXzReader` decodes from the Block holding each
//! offset; without random access a reader decodes from the start every
//! time (lzflow's and liblzma's sequential decoders, timed on a sample of
//! the same offsets). Reported: reads per second and bytes read from the
//! source per read (what a source over HTTP range requests pays).

use std::io::{self, Cursor, Read, Seek, SeekFrom};
use std::time::{Duration, Instant};

use crate::workloads::{mixed_x86, scaled, xz_blocks};

/// Reads timed per round with random access.
const READS: usize = 1000;
/// Reads timed per round when decoding from the start (each costs half the
/// file on average).
const FROM_START_READS: usize = 4;
const READ_LEN: usize = 4096;

/// A source that counts the bytes read from it.
struct Counting<'a> {
    inner: Cursor<&'a [u8]>,
    bytes: u64,
}

impl Read for Counting<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.bytes += n as u64;
        Ok(n)
    }
}

impl Seek for Counting<'_> {
    fn seek(&mut self, pos: SeekFrom) -> io::Result<u64> {
        self.inner.seek(pos)
    }
}

fn offsets(len: u64, n: usize, seed: u64) -> Vec<u64> {
    let mut rng = fastrand::Rng::with_seed(seed);
    (0..n).map(|_| rng.u64(0..len - READ_LEN as u64)).collect()
}

/// Decodes from the start with `decoder` up to `at + READ_LEN`, keeping the
/// last `READ_LEN` bytes; returns them.
fn from_start(mut decoder: impl Read, at: u64) -> io::Result<Vec<u8>> {
    io::copy(&mut (&mut decoder).take(at), &mut io::sink())?;
    let mut out = vec![0u8; READ_LEN];
    decoder.read_exact(&mut out)?;
    Ok(out)
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

/// Runs the comparison and prints its table.
pub fn compare_seek(rounds: usize) -> io::Result<()> {
    eprintln!("building the workload…");
    let data = mixed_x86(scaled(256 << 20), 11);
    let file = xz_blocks(&data, 0, 1 << 20);
    let len = data.len() as u64;
    println!(
        "{} MiB of data in {} MiB of .xz, 1 MiB Blocks; {READS} reads of {READ_LEN} bytes per round",
        len >> 20,
        file.len() >> 20
    );
    let (mut seek_times, mut start_lzflow, mut start_liblzma) =
        (Vec::new(), Vec::new(), Vec::new());
    let (mut source_bytes, mut open_bytes) = (0u64, 0u64);
    for round in 0..rounds {
        let spots = offsets(len, READS, round as u64);
        // Random access: one open (the Indexes), then every read.
        let src = Counting {
            inner: Cursor::new(&file),
            bytes: 0,
        };
        let mut xz = lzflow::seekable::SeekableXzReader::open(src)?;
        open_bytes = xz.bytes_read();
        let mut buf = [0u8; READ_LEN];
        let t = Instant::now();
        for &at in &spots {
            xz.seek(SeekFrom::Start(at))?;
            xz.read_exact(&mut buf)?;
            assert_eq!(buf[..], data[at as usize..at as usize + READ_LEN]);
        }
        seek_times.push(t.elapsed() / READS as u32);
        source_bytes = (xz.bytes_read() - open_bytes) / READS as u64;
        // From the start, on the first offsets of the same list.
        let t = Instant::now();
        for &at in &spots[..FROM_START_READS] {
            let got = from_start(lzflow::read::XzDecoder::new(&file[..]), at)?;
            assert_eq!(got, data[at as usize..at as usize + READ_LEN]);
        }
        start_lzflow.push(t.elapsed() / FROM_START_READS as u32);
        let t = Instant::now();
        for &at in &spots[..FROM_START_READS] {
            let got = from_start(liblzma::read::XzDecoder::new(&file[..]), at)?;
            assert_eq!(got, data[at as usize..at as usize + READ_LEN]);
        }
        start_liblzma.push(t.elapsed() / FROM_START_READS as u32);
    }
    let seek = median(seek_times);
    println!(
        "{:<34} {:>12} {:>12} {:>18} {:>8}",
        "contestant", "per read", "reads/s", "source B/read", "ratio"
    );
    let row = |name: &str, per: Duration, bytes: u64| {
        println!(
            "{name:<34} {:>9.3} ms {:>12.1} {:>18} {:>7.4}x",
            per.as_secs_f64() * 1e3,
            1.0 / per.as_secs_f64(),
            bytes,
            per.as_secs_f64() / seek.as_secs_f64()
        );
    };
    row("lzflow SeekableXzReader", seek, source_bytes);
    row(
        "lzflow XzDecoder from the start",
        median(start_lzflow),
        file.len() as u64 / 2,
    );
    row(
        "liblzma from the start",
        median(start_liblzma),
        file.len() as u64 / 2,
    );
    println!("opening (footer, Index, headers) read {open_bytes} bytes once");
    Ok(())
}
