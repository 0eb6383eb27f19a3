//! `lzflow-bench compare`: one interleaved run of lzflow beside its peers,
//! printed as a table of medians and ratios.
//!
//! The machine is noisy, so contestants run round-robin (rotating the start)
//! and only ratios from the same run are meaningful.

mod child;
mod deflate64;
mod encode;
mod latency;
mod measure;
mod ppmd;
mod seek;
mod sevenz;
mod sevenz_write;
mod workloads;
mod zip;
mod zip_write;

use std::io::{self, Read};
use std::time::Duration;

use measure::{measure, Sample};
use workloads::{Kind, Workload};

#[global_allocator]
pub(crate) static GLOBAL: &stats_alloc::StatsAlloc<std::alloc::System> =
    &stats_alloc::INSTRUMENTED_SYSTEM;

/// A decoder under test: decodes the workload and returns the decoded length.
type Contestant = (&'static str, fn(&Workload) -> io::Result<usize>);

const BUF: usize = 64 * 1024;
/// Read size of the tokio file row: what lzflow's tokio docs recommend for
/// a `tokio::fs::File`, each of whose reads is a trip to the blocking pool
/// (the sync file row reads 64 KiB at a time, its own best).
const TOKIO_FILE_BUF: usize = 256 << 10;

/// Reads everything into a reused buffer and counts it (no output copy kept).
fn drain(mut r: impl Read) -> io::Result<usize> {
    let mut buf = [0u8; BUF];
    let mut n = 0;
    loop {
        match r.read(&mut buf)? {
            0 => return Ok(n),
            k => n += k,
        }
    }
}

thread_local! {
    /// The tokio rows' read buffer. Held in the future instead, 64 KiB
    /// would make tokio's `block_on` box the future (it boxes futures over
    /// 16 KiB): an allocation per run that is the harness's, not the
    /// decoder's.
    static TOKIO_BUF: std::cell::RefCell<Vec<u8>> = const { std::cell::RefCell::new(Vec::new()) };
}

async fn drain_tokio(mut r: impl tokio::io::AsyncRead + Unpin) -> io::Result<usize> {
    use tokio::io::AsyncReadExt;
    let mut buf = TOKIO_BUF.with(|b| std::mem::take(&mut *b.borrow_mut()));
    buf.resize(BUF, 0);
    let mut n = 0;
    let result = loop {
        match r.read(&mut buf).await {
            Ok(0) => break Ok(n),
            Ok(k) => n += k,
            Err(e) => break Err(e),
        }
    };
    TOKIO_BUF.with(|b| *b.borrow_mut() = buf);
    result
}

async fn drain_futures(mut r: impl futures::io::AsyncRead + Unpin) -> io::Result<usize> {
    use futures::io::AsyncReadExt;
    let mut buf = [0u8; BUF];
    let mut n = 0;
    loop {
        match r.read(&mut buf).await? {
            0 => return Ok(n),
            k => n += k,
        }
    }
}

thread_local! {
    /// One current-thread runtime per thread, built in the warm-up round, so
    /// the measured runs count the decoder's allocations, not the runtime's.
    static RUNTIME: tokio::runtime::Runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime");
}

fn block_on<F: std::future::Future>(f: F) -> F::Output {
    RUNTIME.with(|rt| rt.block_on(f))
}

fn file_of(w: &Workload) -> std::path::PathBuf {
    std::env::temp_dir().join(format!("lzflow-bench-{}.bin", w.name))
}

fn lzflow_sync(w: &Workload) -> io::Result<usize> {
    match w.kind {
        Kind::Xz => drain(lzflow::bufread::XzDecoder::new(&w.compressed[..])),
        Kind::RawLzma2(dict) => drain(
            lzflow::bufread::Lzma2Decoder::builder()
                .dict_size(dict)
                .build(&w.compressed[..]),
        ),
    }
}

fn lzflow_sync_file(w: &Workload) -> io::Result<usize> {
    let f = io::BufReader::with_capacity(BUF, std::fs::File::open(file_of(w))?);
    match w.kind {
        Kind::Xz => drain(lzflow::bufread::XzDecoder::new(f)),
        Kind::RawLzma2(dict) => drain(
            lzflow::bufread::Lzma2Decoder::builder()
                .dict_size(dict)
                .build(f),
        ),
    }
}

/// Decodes `w`, read from `r`, with lzflow's tokio face.
async fn decode_tokio(w: &Workload, r: impl tokio::io::AsyncBufRead + Unpin) -> io::Result<usize> {
    match w.kind {
        Kind::Xz => drain_tokio(lzflow::tokio::bufread::XzDecoder::new(r)).await,
        Kind::RawLzma2(dict) => {
            drain_tokio(
                lzflow::tokio::bufread::Lzma2Decoder::builder()
                    .dict_size(dict)
                    .build(r),
            )
            .await
        }
    }
}

fn lzflow_tokio(w: &Workload) -> io::Result<usize> {
    block_on(decode_tokio(w, &w.compressed[..]))
}

fn lzflow_tokio_file(w: &Workload) -> io::Result<usize> {
    block_on(async {
        let f = tokio::fs::File::open(file_of(w)).await?;
        decode_tokio(w, tokio::io::BufReader::with_capacity(TOKIO_FILE_BUF, f)).await
    })
}

/// lzflow's own file reader: open and the first 256 KiB in one hop to the
/// blocking pool, then each next buffer read while the current one decodes.
fn lzflow_tokio_read_ahead(w: &Workload) -> io::Result<usize> {
    block_on(async {
        let f = lzflow::tokio::fs::ReadAheadFile::open(file_of(w)).await?;
        decode_tokio(w, f).await
    })
}

fn lzflow_futures(w: &Workload) -> io::Result<usize> {
    futures::executor::block_on(async {
        match w.kind {
            Kind::Xz => {
                drain_futures(lzflow::futures::bufread::XzDecoder::new(&w.compressed[..])).await
            }
            Kind::RawLzma2(dict) => {
                drain_futures(
                    lzflow::futures::bufread::Lzma2Decoder::builder()
                        .dict_size(dict)
                        .build(&w.compressed[..]),
                )
                .await
            }
        }
    })
}

fn lzflow_mt2(w: &Workload) -> io::Result<usize> {
    match w.kind {
        Kind::Xz => {
            let o = lzflow_xz::MtXzDecoderOptions {
                threads: 2,
                ..Default::default()
            };
            drain(lzflow::bufread::Decoder::with_coder(
                &w.compressed[..],
                lzflow_xz::MtXzDecoder::new(o),
            ))
        }
        Kind::RawLzma2(_) => Err(io::Error::new(
            io::ErrorKind::Unsupported,
            "XZ only (threads split Blocks)",
        )),
    }
}

/// liblzma's own threaded decoder with 2 threads: what two threads buy on
/// this machine for the C reference, beside `lzflow mt2`.
fn liblzma_mt2(w: &Workload) -> io::Result<usize> {
    match w.kind {
        Kind::Xz => {
            let s = liblzma::stream::MtStreamBuilder::new()
                .threads(2)
                .memlimit_threading(1 << 30)
                .memlimit_stop(u64::MAX)
                .decoder()
                .map_err(io::Error::other)?;
            drain(liblzma::bufread::XzDecoder::new_stream(
                &w.compressed[..],
                s,
            ))
        }
        Kind::RawLzma2(_) => Err(io::Error::new(
            io::ErrorKind::Unsupported,
            "XZ only (threads split Blocks)",
        )),
    }
}

fn liblzma_sync(w: &Workload) -> io::Result<usize> {
    match w.kind {
        Kind::Xz => drain(liblzma::bufread::XzDecoder::new_multi_decoder(
            &w.compressed[..],
        )),
        Kind::RawLzma2(dict) => {
            let mut o = liblzma::stream::LzmaOptions::new();
            o.dict_size(dict);
            let mut f = liblzma::stream::Filters::new();
            f.lzma2(&o);
            let s = liblzma::stream::Stream::new_raw_decoder(&f).map_err(io::Error::other)?;
            drain(liblzma::bufread::XzDecoder::new_stream(
                &w.compressed[..],
                s,
            ))
        }
    }
}

fn async_compression_tokio(w: &Workload) -> io::Result<usize> {
    match w.kind {
        Kind::Xz => block_on(async {
            let mut d = async_compression::tokio::bufread::XzDecoder::new(&w.compressed[..]);
            d.multiple_members(true);
            drain_tokio(d).await
        }),
        Kind::RawLzma2(_) => Err(io::Error::new(io::ErrorKind::Unsupported, "no raw LZMA2")),
    }
}

fn lzma_rust2(w: &Workload) -> io::Result<usize> {
    match w.kind {
        Kind::Xz => drain(lzma_rust2::XzReader::new(&w.compressed[..], true)),
        Kind::RawLzma2(dict) => drain(lzma_rust2::Lzma2Reader::new(&w.compressed[..], dict, None)),
    }
}

const DECODERS: &[Contestant] = &[
    ("liblzma", liblzma_sync),
    ("lzflow sync", lzflow_sync),
    ("lzflow sync file", lzflow_sync_file),
    ("lzflow tokio", lzflow_tokio),
    ("lzflow tokio file", lzflow_tokio_file),
    ("tokio ReadAheadFile", lzflow_tokio_read_ahead),
    ("lzflow futures-io", lzflow_futures),
    ("async-compression", async_compression_tokio),
    ("lzma-rust2", lzma_rust2),
    ("lzflow mt2", lzflow_mt2),
    ("liblzma mt2", liblzma_mt2),
];

/// Times every `poll_read` of the reader inside: wall time, and the
/// thread's CPU time (which a loaded machine's preemption does not inflate).
struct TimedPoll<R> {
    inner: R,
    polls: Vec<(Duration, Duration)>,
}

fn thread_cpu() -> Duration {
    nix::time::clock_gettime(nix::time::ClockId::CLOCK_THREAD_CPUTIME_ID)
        .map(Duration::from)
        .unwrap_or_default()
}

impl<R: tokio::io::AsyncRead + Unpin> tokio::io::AsyncRead for TimedPoll<R> {
    fn poll_read(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
        buf: &mut tokio::io::ReadBuf<'_>,
    ) -> std::task::Poll<io::Result<()>> {
        let (wall, cpu) = (std::time::Instant::now(), thread_cpu());
        let r = std::pin::Pin::new(&mut self.inner).poll_read(cx, buf);
        let t = (wall.elapsed(), thread_cpu().saturating_sub(cpu));
        self.polls.push(t);
        r
    }
}

/// Decodes `w` through `r` on a current-thread runtime (the input is in
/// memory, so every `read().await` is one poll) and returns the wall and
/// CPU time of every poll of the decoder.
fn poll_times(
    r: impl tokio::io::AsyncRead + Unpin,
    w: &Workload,
) -> io::Result<Vec<(Duration, Duration)>> {
    let mut t = TimedPoll {
        inner: r,
        polls: Vec::with_capacity(w.decoded_len / 4096 + 16),
    };
    let n = block_on(drain_tokio(&mut t))?;
    if n != w.decoded_len || t.polls.len() < 2 {
        return Err(io::Error::other(format!("wrong size {n}")));
    }
    Ok(t.polls)
}

/// The longest single `poll_read` of the tokio faces on `w`: how long a
/// task holds its executor thread. The first poll (which sets the decoder
/// up: dictionary, tables) is shown apart from the longest of the others.
fn print_max_poll(w: &Workload, rounds: usize) -> io::Result<()> {
    type Face = fn(&Workload) -> io::Result<Vec<(Duration, Duration)>>;
    let faces: [(&str, Face); 2] = [
        ("lzflow tokio, 16 KiB batch", |w| {
            poll_times(lzflow::tokio::bufread::XzDecoder::new(&w.compressed[..]), w)
        }),
        ("async-compression", |w| {
            let mut d = async_compression::tokio::bufread::XzDecoder::new(&w.compressed[..]);
            d.multiple_members(true);
            poll_times(d, w)
        }),
    ];
    let us = |d: Duration| d.as_secs_f64() * 1e6;
    for (name, f) in faces {
        // Per round: first poll CPU, max CPU and max wall of the rest.
        let (mut first, mut max_cpu, mut max_wall, mut med) = (vec![], vec![], vec![], vec![]);
        let mut polls = 0;
        for _ in 0..rounds {
            let p = f(w)?;
            polls = p.len();
            first.push(p[0].1);
            max_cpu.push(p[1..].iter().map(|x| x.1).max().unwrap_or_default());
            max_wall.push(p[1..].iter().map(|x| x.0).max().unwrap_or_default());
            med.push(median(&mut p.iter().map(|x| x.1).collect::<Vec<_>>()));
        }
        println!(
            "max poll_read {:<10} {:<27} CPU µs: first {:>8.1}, max of rest {:>8.1}, median {:>6.1}; wall max of rest {:>8.1} ({polls} polls, medians of {rounds} runs)",
            w.name,
            name,
            us(median(&mut first)),
            us(median(&mut max_cpu)),
            us(median(&mut med)),
            us(median(&mut max_wall)),
        );
    }
    Ok(())
}

/// The median of `v` (sorts it).
pub(crate) fn median(v: &mut [Duration]) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn compare_decode(rounds: usize, only: Option<&str>) -> io::Result<()> {
    eprintln!("building workloads…");
    let workloads: Vec<Workload> = workloads::decode_workloads()
        .into_iter()
        .filter(|w| only.is_none_or(|o| w.name.contains(o)))
        .collect();
    println!(
        "{:<20} {:<19} {:>10} {:>9} {:>8} {:>13} {:>9} {:>10} {:>10}",
        "workload",
        "contestant",
        "median ms",
        "MB/s",
        "ratio",
        "alloc B/op",
        "allocs/op",
        "warm RSS+",
        "fresh RSS+"
    );
    for w in &workloads {
        std::fs::write(file_of(w), &w.compressed)?;
        let mut samples: Vec<Vec<Sample>> = vec![Vec::new(); DECODERS.len()];
        let mut failed = vec![None; DECODERS.len()];
        // Warm-up round: fills pools and page cache, checks the output size.
        for (i, (_, f)) in DECODERS.iter().enumerate() {
            match f(w) {
                Ok(n) if n == w.decoded_len => {}
                Ok(n) => failed[i] = Some(format!("wrong size {n}")),
                Err(e) => failed[i] = Some(e.to_string()),
            }
        }
        for r in 0..rounds {
            for k in 0..DECODERS.len() {
                let i = (k + r) % DECODERS.len();
                if failed[i].is_some() {
                    continue;
                }
                let (_, f) = DECODERS[i];
                // An untimed run first: what the contestant before left
                // behind (threads winding down, freed memory the next
                // allocation faults back in) then slows that run, not the
                // measured one. Without it, rows that followed the
                // threaded ones came out 10-30 % slow on small workloads.
                let _ = f(w);
                samples[i].push(measure(GLOBAL, || f(w).map(|_| ()))?);
            }
        }
        let base = median(&mut samples[0].iter().map(|s| s.time).collect::<Vec<_>>());
        for (i, (name, _)) in DECODERS.iter().enumerate() {
            if let Some(why) = &failed[i] {
                println!("{:<20} {:<19} {why}", w.name, name);
                continue;
            }
            let mut times: Vec<Duration> = samples[i].iter().map(|s| s.time).collect();
            let t = median(&mut times);
            let mut alloc: Vec<u64> = samples[i].iter().map(|s| s.alloc_bytes).collect();
            alloc.sort();
            let mut count: Vec<u64> = samples[i].iter().map(|s| s.alloc_count).collect();
            count.sort();
            // Warm: in this process after the warm-up (pooled buffers and
            // freed heap are reused, so this is the extra a repeated decode
            // costs). Fresh: one decode in a new process.
            let warm = samples[i].iter().map(|s| s.peak_rss_kib).max().unwrap_or(0);
            let rss = match fresh_rss(i, w) {
                Ok(kib) => format!("{:>7.1}MiB", kib as f64 / 1024.0),
                Err(e) => format!("{e}"),
            };
            println!(
                "{:<20} {:<19} {:>10.2} {:>9.1} {:>7.3}x {:>13} {:>9} {:>7.1}MiB {:>10}",
                w.name,
                name,
                t.as_secs_f64() * 1e3,
                w.decoded_len as f64 / t.as_secs_f64() / 1e6,
                t.as_secs_f64() / base.as_secs_f64(),
                alloc[alloc.len() / 2],
                count[count.len() / 2],
                warm as f64 / 1024.0,
                rss
            );
        }
        let _ = std::fs::remove_file(file_of(w));
        if w.name == "text" {
            print_max_poll(w, rounds)?;
        }
    }
    Ok(())
}

/// Jobs of the decode mode for child processes.
const DECODE_JOBS: &[(&str, child::Job)] = &[
    ("decode-rss", decode_rss),
    ("encode-rss", encode::encode_rss),
];

/// The jobs `child` finds under `crate::JOBS`: the decode and encode
/// modes' and `compare zip-write`'s.
pub(crate) const JOBS: &[(&str, child::Job)] =
    &concat_jobs::<{ DECODE_JOBS.len() + zip_write::JOBS.len() }>(DECODE_JOBS, zip_write::JOBS);

/// `a` then `b` as one table of `N` (their total) jobs.
const fn concat_jobs<const N: usize>(
    a: &[(&'static str, child::Job)],
    b: &[(&'static str, child::Job)],
) -> [(&'static str, child::Job); N] {
    let mut out = [("", decode_rss as child::Job); N];
    let mut i = 0;
    while i < N {
        out[i] = if i < a.len() { a[i] } else { b[i - a.len()] };
        i += 1;
    }
    out
}

/// `<contestant index> <workload name> <compressed file> <xz|raw:DICT>
/// <decoded len>`: loads the compressed file, then decodes it once and
/// returns the peak RSS above the loaded state, in KiB, as the "output". A
/// fresh process has no pooled buffers and no freed heap to reuse, so this
/// is what one decode needs.
fn decode_rss(args: &[String]) -> io::Result<u64> {
    let bad = |what: &str| io::Error::new(io::ErrorKind::InvalidInput, what.to_string());
    let [i, name, file, kind, len] = args else {
        return Err(bad("decode-rss <i> <name> <file> <kind> <len>"));
    };
    let i: usize = i.parse().map_err(|_| bad("index"))?;
    let kind = match kind.strip_prefix("raw:") {
        Some(d) => Kind::RawLzma2(d.parse().map_err(|_| bad("dict"))?),
        None => Kind::Xz,
    };
    let w = Workload {
        // One leaked name per child process.
        name: String::leak(name.clone()),
        compressed: std::fs::read(file)?,
        decoded_len: len.parse().map_err(|_| bad("len"))?,
        kind,
    };
    let (_, f) = DECODERS.get(i).ok_or_else(|| bad("no such contestant"))?;
    let s = measure(GLOBAL, || f(&w).map(|_| ()))?;
    Ok(s.peak_rss_kib)
}

/// Peak RSS above the loaded input of one decode of `w` by contestant `i`
/// in a fresh child process, in KiB.
fn fresh_rss(i: usize, w: &Workload) -> io::Result<u64> {
    let kind = match w.kind {
        Kind::Xz => "xz".to_string(),
        Kind::RawLzma2(d) => format!("raw:{d}"),
    };
    let args = [
        i.to_string(),
        w.name.to_string(),
        file_of(w).to_string_lossy().into_owned(),
        kind,
        w.decoded_len.to_string(),
    ];
    Ok(child::run("decode-rss", &args)?.out_bytes)
}

const USAGE: &str =
    "usage: lzflow-bench compare [decode|encode|7z|7z-mt|7z-write|zip|zip-write|deflate64|ppmd|seek|latency] [--rounds N] [--only NAME] [--quick]";

fn main() -> io::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().map(String::as_str) == Some("run-one") {
        return child::child_main(&args[1..]);
    }
    let mut rounds = None;
    let mut only = None;
    let mut mode = "decode".to_string();
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "compare" => {}
            "--rounds" => rounds = it.next().and_then(|s| s.parse().ok()),
            "--only" => only = it.next().cloned(),
            "--quick" => workloads::set_quick(true),
            "decode" | "encode" | "7z" | "7z-mt" | "7z-write" | "zip" | "zip-write"
            | "deflate64" | "ppmd" | "seek" | "latency" => mode = a.clone(),
            other => {
                eprintln!("{USAGE}");
                return Err(io::Error::new(
                    io::ErrorKind::InvalidInput,
                    format!("unknown argument {other}"),
                ));
            }
        }
    }
    let rounds = rounds
        .unwrap_or(if workloads::is_quick() { 1 } else { 7 })
        .max(1);
    match mode.as_str() {
        "decode" => compare_decode(rounds, only.as_deref()),
        "encode" => encode::compare_encode(rounds, only.as_deref()),
        "7z" => sevenz::compare_7z(rounds),
        "7z-mt" => sevenz::compare_7z_mt(rounds),
        "zip" => zip::compare_zip(rounds),
        "zip-write" => zip_write::compare_zip_write(rounds, only.as_deref()),
        "deflate64" => deflate64::compare_deflate64(rounds),
        "ppmd" => ppmd::compare_ppmd(rounds),
        "seek" => seek::compare_seek(rounds),
        "latency" => latency::compare_latency(rounds),
        _ => sevenz_write::compare_7z_write(rounds, only.as_deref()),
    }
}
