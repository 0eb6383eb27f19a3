//! Measurement, not a check (ignored): single-threaded against 2-thread
//! decoding and encoding, interleaved round by round so that the load of a
//! shared machine hits both alike; prints every round and the median
//! ratio. Run with
//! `cargo test --release --test mt_speed -- --ignored --nocapture`
//! (`LZFLOW_MT_ROUNDS`, `LZFLOW_MT_MIB` change the rounds and the size).

use std::io::{self, Read, Write};
use std::time::{Duration, Instant};

fn env(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// Text-like data (about 3:1 with preset 6).
fn text(len: usize) -> Vec<u8> {
    const WORDS: &[&str] = &[
        "stream",
        "block",
        "index",
        "padding",
        "check",
        "filter",
        "lzma",
        "window",
        "range",
        "coder",
        "literal",
        "match",
        "rep",
        "dictionary",
        "chunk",
        "worker",
        "\n",
    ];
    let mut x = 0x9E37_79B9_7F4A_7C15u64;
    let mut out = Vec::with_capacity(len + 16);
    while out.len() < len {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        out.extend_from_slice(WORDS[(x % WORDS.len() as u64) as usize].as_bytes());
        out.push(b' ');
        if x & 0x3F == 0 {
            out.extend_from_slice(&x.to_le_bytes());
        }
    }
    out.truncate(len);
    out
}

/// This process's user+system CPU time so far (Linux), for the share of
/// the machine a run really got.
fn cpu_time() -> Duration {
    cpu_of("/proc/self/stat")
}

/// The calling thread's CPU time (Linux).
fn thread_cpu_time() -> Duration {
    cpu_of("/proc/thread-self/stat")
}

fn cpu_of(path: &str) -> Duration {
    let stat = std::fs::read_to_string(path).unwrap_or_default();
    let fields: Vec<&str> = stat
        .rsplit_once(')')
        .map_or("", |(_, rest)| rest)
        .split_whitespace()
        .collect();
    let ticks: u64 = [11, 12]
        .iter()
        .filter_map(|&i| fields.get(i).and_then(|f| f.parse::<u64>().ok()))
        .sum();
    Duration::from_millis(ticks * 10)
}

/// What a run took: wall time, the process's CPU time and the calling
/// thread's.
struct Took {
    wall: Duration,
    cpu: Duration,
    caller: Duration,
}

impl Took {
    /// The longer of the caller's and the other threads' CPU time: the
    /// wall time the run would take with a core per thread (two threads).
    fn critical(&self) -> Duration {
        self.caller.max(self.cpu.saturating_sub(self.caller))
    }
}

fn measure<T>(f: impl FnOnce() -> T) -> (T, Took) {
    let (start, cpu, caller) = (Instant::now(), cpu_time(), thread_cpu_time());
    let out = f();
    let took = Took {
        wall: start.elapsed(),
        cpu: cpu_time() - cpu,
        caller: thread_cpu_time() - caller,
    };
    println!(
        "    (wall {:?}, cpu {:?}, of it the calling thread {:?})",
        took.wall, took.cpu, took.caller
    );
    (out, took)
}

fn time<T>(f: impl FnOnce() -> T) -> (T, Duration) {
    let (out, took) = measure(f);
    (out, took.wall)
}

/// Prints one round of single against MT: the wall ratio, the CPU
/// ratio, and the ratio a core per thread would give (critical path).
fn compare(what: &str, round: usize, single: &Took, mt: &Took, crit: &mut Vec<f64>) -> f64 {
    let r = mt.wall.as_secs_f64() / single.wall.as_secs_f64();
    let c = mt.critical().as_secs_f64() / single.cpu.as_secs_f64();
    println!(
        "{what} round {round}: single {:?}  mt {:?}  wall ratio {r:.3}  cpu ratio {:.3}  critical-path ratio {c:.3}  load {}",
        single.wall,
        mt.wall,
        mt.cpu.as_secs_f64() / single.cpu.as_secs_f64(),
        loadavg().trim()
    );
    crit.push(c);
    r
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v.get(v.len() / 2).copied().unwrap_or(f64::NAN)
}

fn loadavg() -> String {
    std::fs::read_to_string("/proc/loadavg").unwrap_or_default()
}

fn encode_single(data: &[u8], block: u64) -> Vec<u8> {
    let mut enc = lzflow::write::XzEncoder::builder()
        .preset(env("LZFLOW_MT_PRESET", 6) as u32)
        .block_size(block)
        .build(Vec::new());
    enc.write_all(data).unwrap();
    enc.finish().unwrap()
}

fn encode_mt(data: &[u8], block: u64, threads: usize) -> Vec<u8> {
    let mut enc = lzflow::write::MtXzEncoder::mt_builder()
        .threads(threads)
        .preset(env("LZFLOW_MT_PRESET", 6) as u32)
        .block_size(block)
        .build(Vec::new());
    enc.write_all(data).unwrap();
    enc.finish().unwrap()
}

fn decode_into_sink(mut r: impl Read) -> u64 {
    io::copy(&mut r, &mut io::sink()).unwrap()
}

#[test]
#[ignore = "measurement; run in release with --ignored --nocapture"]
fn mt_speed() {
    let rounds = env("LZFLOW_MT_ROUNDS", 5);
    let size = env("LZFLOW_MT_MIB", 40) << 20;
    let block = 4u64 << 20;
    let data = text(size);
    println!("load before: {}", loadavg());

    let threads = env("LZFLOW_MT_THREADS", 2);
    let (xz, t) = time(|| {
        let mut enc = lzflow::write::MtXzEncoder::mt_builder()
            .threads(threads)
            .preset(1)
            .block_size(block)
            .build(Vec::new());
        enc.write_all(&data).unwrap();
        enc.finish().unwrap()
    });
    println!(
        "input: {} MiB text, {} blocks of 4 MiB, {} bytes compressed (made in {t:?})",
        size >> 20,
        size.div_ceil(block as usize),
        xz.len()
    );

    let (mut ratios, mut crit) = (Vec::new(), Vec::new());
    for round in 0..rounds {
        let (n1, t1) = measure(|| decode_into_sink(lzflow::read::XzDecoder::new(&xz[..])));
        let (n2, t2) = measure(|| {
            decode_into_sink(
                lzflow::read::MtXzDecoder::builder()
                    .threads(threads)
                    .build(&xz[..]),
            )
        });
        assert_eq!((n1, n2), (size as u64, size as u64));
        ratios.push(compare("decode", round, &t1, &t2, &mut crit));
    }
    println!(
        "decode median ratio mt{threads}/single: wall {:.3}, critical path {:.3}",
        median(ratios),
        median(crit)
    );

    // The async face (current-thread runtime, workers off the runtime).
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let (n, t) = time(|| {
        rt.block_on(async {
            let mut dec = lzflow::tokio::bufread::MtXzDecoder::builder()
                .threads(2)
                .build(&xz[..]);
            tokio::io::copy(&mut dec, &mut tokio::io::sink())
                .await
                .unwrap()
        })
    });
    assert_eq!(n, size as u64);
    println!("tokio MtXzDecoder threads(2), current-thread runtime: {t:?}");

    let (mut ratios, mut crit) = (Vec::new(), Vec::new());
    let enc_rounds = env("LZFLOW_MT_ENC_ROUNDS", 3);
    for round in 0..enc_rounds {
        let (a, t1) = measure(|| encode_single(&data, block));
        let (b, t2) = measure(|| encode_mt(&data, block, threads));
        assert!(a == b, "MT encoder bytes differ");
        ratios.push(compare("encode", round, &t1, &t2, &mut crit));
    }
    println!(
        "encode median ratio mt{threads}/single: wall {:.3}, critical path {:.3}",
        median(ratios),
        median(crit)
    );
}
