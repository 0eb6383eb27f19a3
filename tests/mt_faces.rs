//! The multi-threaded XZ faces: same bytes and errors as the
//! single-threaded coders (fixtures, `xz -T` and lzflow multi-block files),
//! a current-thread tokio runtime keeps running other tasks while blocks
//! are decoded or compressed on workers, and losing a `select!` race loses
//! nothing. Every async test runs under a timeout.

use std::io::{self, Read, Write};
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};

const TIMEOUT: Duration = Duration::from_secs(120);

/// Text-like data: words from a small vocabulary, so that it compresses
/// about 3:1 and decoding takes real work.
fn text(len: usize, seed: u64) -> Vec<u8> {
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
    let mut x = seed | 1;
    let mut out = Vec::with_capacity(len + 16);
    while out.len() < len {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        out.extend_from_slice(WORDS[(x % WORDS.len() as u64) as usize].as_bytes());
        out.push(if x & 0x300 == 0 { b'.' } else { b' ' });
        if x & 0xF000 == 0 {
            out.extend_from_slice(&x.to_le_bytes());
        }
    }
    out.truncate(len);
    out
}

/// Single-threaded reference: the output up to the error, and the error's kind.
fn reference(xz: &[u8]) -> (Vec<u8>, Option<io::ErrorKind>) {
    let mut out = Vec::new();
    let e = lzflow::read::XzDecoder::new(xz).read_to_end(&mut out).err();
    (out, e.map(|e| e.kind()))
}

async fn tokio_mt(xz: &[u8], threads: usize) -> (Vec<u8>, Option<io::ErrorKind>) {
    let mut dec = lzflow::tokio::bufread::MtXzDecoder::builder()
        .threads(threads)
        .build(tokio::io::BufReader::with_capacity(8 << 10, xz));
    let mut out = Vec::new();
    let e = dec.read_to_end(&mut out).await.err();
    (out, e.map(|e| e.kind()))
}

async fn futures_mt(xz: &[u8], threads: usize) -> (Vec<u8>, Option<io::ErrorKind>) {
    use futures::io::AsyncReadExt as _;
    let mut dec = lzflow::futures::bufread::MtXzDecoder::builder()
        .threads(threads)
        .build(futures::io::BufReader::with_capacity(8 << 10, xz));
    let mut out = Vec::new();
    let e = dec.read_to_end(&mut out).await.err();
    (out, e.map(|e| e.kind()))
}

/// Every `.xz` fixture (generated and xz-utils conformance files).
fn xz_fixtures() -> Vec<(String, Vec<u8>)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures");
    let mut found = Vec::new();
    for dir in ["generated/xz", "xz-utils/files"] {
        let Ok(entries) = std::fs::read_dir(root.join(dir)) else {
            continue;
        };
        for e in entries {
            let p = e.unwrap().path();
            if p.extension().is_some_and(|x| x == "xz") {
                found.push((p.display().to_string(), std::fs::read(&p).unwrap()));
            }
        }
    }
    found.sort();
    assert!(found.len() > 40, "fixtures missing: {}", found.len());
    found
}

/// `xz -T2` output (Block Headers with both sizes), or `None` without xz.
fn xz_threaded(data: &[u8], block_size: usize) -> Option<Vec<u8>> {
    let mut child = std::process::Command::new("xz")
        .args(["-T2", "-3", "-c", &format!("--block-size={block_size}")])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .map_err(|e| eprintln!("SKIPPED: no xz binary ({e})"))
        .ok()?;
    let mut stdin = child.stdin.take().unwrap();
    let data = data.to_vec();
    let feeder = std::thread::spawn(move || stdin.write_all(&data).unwrap());
    let out = child.wait_with_output().unwrap();
    feeder.join().unwrap();
    assert!(out.status.success());
    Some(out.stdout)
}

/// lzflow's own multi-block output (sizes in every Block Header).
fn lzflow_blocks(data: &[u8], block_size: u64) -> Vec<u8> {
    let mut enc = lzflow::write::XzEncoder::builder()
        .preset(0)
        .block_size(block_size)
        .build(Vec::new());
    enc.write_all(data).unwrap();
    enc.finish().unwrap()
}

#[tokio::test]
async fn fixtures_decode_exactly_as_single_threaded() {
    tokio::time::timeout(TIMEOUT, async {
        for (name, xz) in xz_fixtures() {
            let want = reference(&xz);
            for threads in [1, 2, 3] {
                assert_eq!(
                    tokio_mt(&xz, threads).await,
                    want,
                    "tokio {name} t{threads}"
                );
                assert_eq!(
                    futures_mt(&xz, threads).await,
                    want,
                    "futures {name} t{threads}"
                );
            }
            let mut std_out = Vec::new();
            let e = lzflow::read::MtXzDecoder::builder()
                .threads(2)
                .build(&xz[..])
                .read_to_end(&mut std_out)
                .err();
            assert_eq!((std_out, e.map(|e| e.kind())), want, "std {name}");
        }
    })
    .await
    .unwrap();
}

#[tokio::test]
async fn xz_threaded_and_lzflow_multi_block_files_match() {
    tokio::time::timeout(TIMEOUT, async {
        let data = text(3 << 20, 7);
        let mut files = vec![lzflow_blocks(&data, 200 << 10)];
        files.extend(xz_threaded(&data, 256 << 10));
        for xz in &files {
            assert_eq!(reference(xz), (data.clone(), None));
            assert_eq!(tokio_mt(xz, 2).await, (data.clone(), None));
            assert_eq!(futures_mt(xz, 3).await, (data.clone(), None));
            // Corrupt a byte in the middle block: same output up to the
            // error, and the same error, as single-threaded.
            let mut bad = xz.clone();
            let mid = bad.len() / 2;
            bad[mid] ^= 0x55;
            let want = reference(&bad);
            assert!(want.1.is_some());
            assert_eq!(tokio_mt(&bad, 2).await, want);
            // Truncated.
            let cut = &xz[..xz.len() - 100];
            assert_eq!(tokio_mt(cut, 2).await, reference(cut));
        }
    })
    .await
    .unwrap();
}

/// Runs `work` on the current-thread runtime next to a task that ticks a
/// 1 ms interval; returns the ticks and the longest time between two ticks
/// while `work` ran (a blocked runtime shows as a long gap).
async fn ticks_during<F: std::future::Future>(work: F) -> (F::Output, u64, Duration) {
    use std::sync::Mutex;
    use std::time::Instant;
    let seen = Arc::new((
        AtomicU64::new(0),
        Mutex::new((Instant::now(), Duration::ZERO)),
    ));
    let s = Arc::clone(&seen);
    let ticker = tokio::spawn(async move {
        let mut iv = tokio::time::interval(Duration::from_millis(1));
        iv.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            iv.tick().await;
            s.0.fetch_add(1, Ordering::Relaxed);
            let mut g = s.1.lock().unwrap();
            let now = Instant::now();
            g.1 = g.1.max(now - g.0);
            g.0 = now;
        }
    });
    // Let the ticker start.
    tokio::time::sleep(Duration::from_millis(5)).await;
    let before = seen.0.load(Ordering::Relaxed);
    *seen.1.lock().unwrap() = (Instant::now(), Duration::ZERO);
    let out = work.await;
    let during = seen.0.load(Ordering::Relaxed) - before;
    let gap = {
        let g = seen.1.lock().unwrap();
        g.1.max(g.0.elapsed())
    };
    ticker.abort();
    (out, during, gap)
}

#[tokio::test(flavor = "current_thread")]
async fn a_large_mt_decode_does_not_block_the_runtime() {
    tokio::time::timeout(TIMEOUT, async {
        let data = text(8 << 20, 11);
        let xz = lzflow_blocks(&data, 2 << 20);
        let start = std::time::Instant::now();
        let ((out, err), ticks, gap) = ticks_during(tokio_mt(&xz, 2)).await;
        let elapsed = start.elapsed();
        assert_eq!(err, None);
        assert!(out == data, "decoded bytes differ");
        eprintln!("MT decode took {elapsed:?}; ticker ran {ticks} times, longest gap {gap:?}");
        // Decoding one 2 MiB block takes far longer than this (hundreds
        // of milliseconds in a debug build); waiting on a worker in the
        // poll would show up as a gap that long. The margin is for a
        // loaded machine descheduling the thread.
        assert!(
            gap < Duration::from_millis(150),
            "runtime blocked for {gap:?}"
        );
        assert!(ticks >= 10, "ticker starved: {ticks} ticks in {elapsed:?}");
    })
    .await
    .unwrap();
}

#[tokio::test(flavor = "current_thread")]
async fn cancelled_reads_in_select_lose_nothing() {
    tokio::time::timeout(TIMEOUT, async {
        let data = text(3 << 20, 5);
        let xz = lzflow_blocks(&data, 256 << 10);
        let mut dec = lzflow::tokio::bufread::MtXzDecoder::builder()
            .threads(2)
            .build(tokio::io::BufReader::with_capacity(4 << 10, &xz[..]));
        let mut iv = tokio::time::interval(Duration::from_micros(200));
        let (mut out, mut buf, mut lost_races) = (Vec::new(), vec![0u8; 8 << 10], 0u64);
        loop {
            tokio::select! {
                r = dec.read(&mut buf) => match r.unwrap() {
                    0 => break,
                    n => out.extend_from_slice(&buf[..n]),
                },
                _ = iv.tick() => lost_races += 1,
            }
        }
        assert!(out == data, "decoded bytes differ");
        assert!(lost_races > 0, "no read was ever cancelled");
    })
    .await
    .unwrap();
}

fn encode_opts_single(data: &[u8], block: u64) -> Vec<u8> {
    let mut enc = lzflow::write::XzEncoder::builder()
        .preset(0)
        .block_size(block)
        .build(Vec::new());
    enc.write_all(data).unwrap();
    enc.finish().unwrap()
}

#[test]
fn std_mt_encoder_writes_the_single_threaded_bytes() {
    let data = text(1 << 20, 3);
    let want = encode_opts_single(&data, 128 << 10);
    for threads in [1, 2, 3] {
        let mut enc = lzflow::write::MtXzEncoder::mt_builder()
            .threads(threads)
            .preset(0)
            .block_size(128 << 10)
            .build(Vec::new());
        for piece in data.chunks(77_777) {
            enc.write_all(piece).unwrap();
        }
        assert!(enc.finish().unwrap() == want, "threads {threads}");
    }
    // `new` with a level works too (one thread per CPU).
    let mut enc = lzflow::write::MtXzEncoder::new(Vec::new(), 0);
    enc.write_all(b"abc").unwrap();
    let mut back = Vec::new();
    lzflow::read::XzDecoder::new(&enc.finish().unwrap()[..])
        .read_to_end(&mut back)
        .unwrap();
    assert_eq!(back, b"abc");
}

#[test]
fn std_mt_encoder_reports_bad_options_on_first_write() {
    let mut enc = lzflow::write::MtXzEncoder::mt_builder()
        .preset(10)
        .build(Vec::new());
    let e = enc.write_all(b"x").unwrap_err();
    assert_eq!(e.kind(), io::ErrorKind::InvalidInput);
}

#[tokio::test(flavor = "current_thread")]
async fn async_mt_encoders_write_the_single_threaded_bytes_without_blocking() {
    tokio::time::timeout(TIMEOUT, async {
        let data = text(2 << 20, 9);
        let want = encode_opts_single(&data, 256 << 10);
        let ((), ticks, gap) = ticks_during(async {
            let mut enc = lzflow::tokio::write::MtXzEncoder::builder()
                .threads(2)
                .preset(0)
                .block_size(256 << 10)
                .build(Vec::new());
            for piece in data.chunks(50_000) {
                enc.write_all(piece).await.unwrap();
            }
            enc.flush().await.unwrap();
            enc.shutdown().await.unwrap();
            // A second shutdown writes nothing more.
            enc.shutdown().await.unwrap();
            assert!(*enc.get_ref() == want, "tokio MT encoder bytes differ");
        })
        .await;
        eprintln!("MT encode: ticker ran {ticks} times, longest gap {gap:?}");
        assert!(ticks >= 5, "ticker starved: {ticks}");
        assert!(
            gap < Duration::from_millis(150),
            "runtime blocked for {gap:?}"
        );

        use futures::io::AsyncWriteExt as _;
        let mut enc = lzflow::futures::write::MtXzEncoder::builder()
            .threads(3)
            .preset(0)
            .block_size(256 << 10)
            .build(Vec::new());
        for piece in data.chunks(100_000) {
            enc.write_all(piece).await.unwrap();
        }
        enc.close().await.unwrap();
        assert!(*enc.get_ref() == want, "futures MT encoder bytes differ");
        let e = enc.write_all(b"more").await.unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::InvalidInput);
    })
    .await
    .unwrap();
}

#[tokio::test(flavor = "current_thread")]
async fn cancelled_writes_and_shutdowns_in_select_lose_nothing() {
    tokio::time::timeout(TIMEOUT, async {
        let data = text(1 << 20, 13);
        // A flush ends a Block, so flush at fixed points in both.
        let mut single = lzflow::write::XzEncoder::builder()
            .preset(0)
            .block_size(96 << 10)
            .build(Vec::new());
        let mut enc = lzflow::tokio::write::MtXzEncoder::builder()
            .threads(2)
            .preset(0)
            .block_size(96 << 10)
            .build(Vec::new());
        let mut iv = tokio::time::interval(Duration::from_micros(200));
        let mut lost = 0u64;
        for (i, piece) in data.chunks(300_000).enumerate() {
            single.write_all(piece).unwrap();
            let mut rest = piece;
            while !rest.is_empty() {
                tokio::select! {
                    r = enc.write(rest) => rest = &rest[r.unwrap()..],
                    _ = iv.tick() => lost += 1,
                }
            }
            if i == 1 {
                single.flush().unwrap();
                loop {
                    tokio::select! {
                        r = enc.flush() => { r.unwrap(); break }
                        _ = iv.tick() => lost += 1,
                    }
                }
            }
        }
        loop {
            tokio::select! {
                r = enc.shutdown() => { r.unwrap(); break }
                _ = iv.tick() => lost += 1,
            }
        }
        let want = single.finish().unwrap();
        assert!(*enc.get_ref() == want, "bytes differ after cancellations");
        assert!(lost > 0, "nothing was ever cancelled");
        let mut back = Vec::new();
        lzflow::read::XzDecoder::new(&want[..])
            .read_to_end(&mut back)
            .unwrap();
        assert!(back == data);
    })
    .await
    .unwrap();
}

/// `data` as raw LZMA2 with a dictionary reset every MiB, as 7-Zip's
/// multi-threaded encoder writes it.
fn lzma2_with_resets(data: &[u8]) -> Vec<u8> {
    use lzflow_core::{Encode, InBuf, OutBuf, Progress};
    let mut o = lzflow::LzmaOptions::preset(1).unwrap();
    o.dict_size = 1 << 20;
    let mut enc = lzflow_lzma::MtLzma2Encoder::new(&o, 2, 1 << 20).unwrap();
    let mut raw = Vec::new();
    let mut buf = vec![0u8; 1 << 16];
    let mut input = InBuf::new(data);
    while !input.is_empty() {
        let mut out = OutBuf::new(&mut buf);
        enc.encode(&mut input, &mut out).unwrap();
        raw.extend_from_slice(out.written());
    }
    loop {
        let mut out = OutBuf::new(&mut buf);
        let p = enc.finish(&mut out).unwrap();
        raw.extend_from_slice(out.written());
        if p == Progress::StreamEnd {
            return raw;
        }
    }
}

/// Raw LZMA2 with dictionary resets through the std read, bufread and
/// write faces on threads: the bytes and the error of the one-thread face.
#[test]
fn raw_lzma2_decodes_on_threads_through_the_std_faces() {
    let data = text(6 << 20, 21);
    let raw = lzma2_with_resets(&data);
    let one = |raw: &[u8]| {
        let mut back = Vec::new();
        let r = lzflow::read::Lzma2Decoder::builder()
            .dict_size(1 << 20)
            .build(raw)
            .read_to_end(&mut back);
        (back, r.map_err(|e| e.to_string()))
    };
    let two = |raw: &[u8]| {
        let mut back = Vec::new();
        let r = lzflow::read::MtLzma2Decoder::builder()
            .dict_size(1 << 20)
            .threads(2)
            .build(raw)
            .read_to_end(&mut back);
        (back, r.map_err(|e| e.to_string()))
    };
    let (back, r) = two(&raw);
    assert!(back == data);
    assert!(r.is_ok());
    let mut back = Vec::new();
    lzflow::bufread::MtLzma2Decoder::builder()
        .dict_size(1 << 20)
        .threads(2)
        .build(io::BufReader::new(&raw[..]))
        .read_to_end(&mut back)
        .unwrap();
    assert!(back == data);
    let mut w = lzflow::write::MtLzma2Decoder::builder()
        .dict_size(1 << 20)
        .threads(3)
        .build(Vec::new());
    for piece in raw.chunks(50_001) {
        w.write_all(piece).unwrap();
    }
    assert!(w.finish().unwrap() == data);
    // Damage late in the stream: the same output and error as one thread.
    let mut bad = raw.clone();
    let at = bad.len() * 3 / 4;
    bad[at] ^= 0x55;
    let (a, ea) = one(&bad);
    let (b, eb) = two(&bad);
    assert!(ea.is_err());
    assert_eq!(ea, eb);
    assert!(a == b, "output before the error differs");
}

/// The same stream through the tokio and futures-io faces on threads, on a
/// current-thread runtime that keeps running another task meanwhile.
#[test]
fn raw_lzma2_decodes_on_threads_through_the_async_faces() {
    let data = text(6 << 20, 22);
    let raw = lzma2_with_resets(&data);
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .build()
        .unwrap();
    let ticks = Arc::new(AtomicU64::new(0));
    let back = rt.block_on(async {
        let t = ticks.clone();
        let ticker = tokio::spawn(async move {
            loop {
                t.fetch_add(1, Ordering::Relaxed);
                tokio::task::yield_now().await;
            }
        });
        let mut back = Vec::new();
        tokio::time::timeout(
            TIMEOUT,
            lzflow::tokio::bufread::MtLzma2Decoder::builder()
                .dict_size(1 << 20)
                .threads(2)
                .build(&raw[..])
                .read_to_end(&mut back),
        )
        .await
        .unwrap()
        .unwrap();
        ticker.abort();
        back
    });
    assert!(back == data);
    assert!(ticks.load(Ordering::Relaxed) > 0, "the runtime was blocked");
    let mut back = Vec::new();
    futures::executor::block_on(futures::AsyncReadExt::read_to_end(
        &mut lzflow::futures::bufread::MtLzma2Decoder::builder()
            .dict_size(1 << 20)
            .threads(2)
            .build(&raw[..]),
        &mut back,
    ))
    .unwrap();
    assert!(back == data);
}
