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

fn time<T>(f: impl FnOnce() -> T) -> (T, Duration) {
    let start = Instant::now();
    let out = f();
    (out, start.elapsed())
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn loadavg() -> String {
    std::fs::read_to_string("/proc/loadavg").unwrap_or_default()
}

fn encode_single(data: &[u8], block: u64) -> Vec<u8> {
    let mut enc = lzflow::write::XzEncoder::builder()
        .block_size(block)
        .build(Vec::new());
    enc.write_all(data).unwrap();
    enc.finish().unwrap()
}

fn encode_mt(data: &[u8], block: u64, threads: usize) -> Vec<u8> {
    let mut enc = lzflow::write::MtXzEncoder::mt_builder()
        .threads(threads)
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

    let (xz, t) = time(|| encode_mt(&data, block, 2));
    println!(
        "input: {} MiB text, {} blocks of 4 MiB, {} bytes compressed (made in {t:?})",
        size >> 20,
        size.div_ceil(block as usize),
        xz.len()
    );

    let mut ratios = Vec::new();
    for round in 0..rounds {
        let (n1, t1) = time(|| decode_into_sink(lzflow::read::XzDecoder::new(&xz[..])));
        let (n2, t2) = time(|| {
            decode_into_sink(
                lzflow::read::MtXzDecoder::builder()
                    .threads(2)
                    .build(&xz[..]),
            )
        });
        assert_eq!((n1, n2), (size as u64, size as u64));
        let r = t2.as_secs_f64() / t1.as_secs_f64();
        println!(
            "decode round {round}: single {t1:?}  mt2 {t2:?}  ratio {r:.3}  load {}",
            loadavg().trim()
        );
        ratios.push(r);
    }
    println!("decode median ratio mt2/single: {:.3}", median(ratios));

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

    let mut ratios = Vec::new();
    let enc_rounds = env("LZFLOW_MT_ENC_ROUNDS", 3);
    for round in 0..enc_rounds {
        let (a, t1) = time(|| encode_single(&data, block));
        let (b, t2) = time(|| encode_mt(&data, block, 2));
        assert!(a == b, "MT encoder bytes differ");
        let r = t2.as_secs_f64() / t1.as_secs_f64();
        println!(
            "encode round {round}: single {t1:?}  mt2 {t2:?}  ratio {r:.3}  load {}",
            loadavg().trim()
        );
        ratios.push(r);
    }
    println!("encode median ratio mt2/single: {:.3}", median(ratios));
}
