//! Fairness of the tokio faces: decoding from (or encoding into) something
//! that is always ready, such as memory, takes part in tokio's cooperative
//! budget, so a busy task yields and the rest of the runtime (a ticker, a
//! timeout) gets its turn.
//!
//! The strict timing bound (a 1 ms ticker beside 8 busy decoding tasks
//! never waits more than 5 ms) is asserted for optimised code: `cargo test
//! --release --test coop_budget`. In debug builds the codec crates and
//! tokio are optimised too (`[profile.dev.package.*]`), but this crate,
//! which drives them, is not; there the tests assert what does not depend
//! on speed (the faces yield, timeouts fire) and a looser gap.

mod faces_support;

use std::future::Future;
use std::io::Write as _;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, OnceLock};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use faces_support::{one_entry_zip, sample_data};
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt, ReadBuf};

/// Decoded size of the input: several task slices of work, and well over
/// 5 ms of decoding.
const SIZE: usize = 8 << 20;

/// Busy tasks beside the ticker.
const TASKS: usize = 8;

/// The largest gap the ticker may see beside decoders in an optimised
/// build.
const MAX_GAP: Duration = Duration::from_millis(5);

/// The same beside xz preset 6 encoders: a turn is one step of 512 bytes
/// of input (0.1-0.5 ms), but the end of a stream encodes the input held
/// back for look-ahead, a few KiB, in one step (1-4 ms).
const MAX_GAP_ENCODING: Duration = Duration::from_millis(10);

/// The same in a debug build (before tasks yielded, gaps were hundreds of
/// milliseconds there).
const MAX_GAP_DEBUG: Duration = Duration::from_millis(40);

/// Held by each test: they measure time, so they run one at a time.
static SERIAL: Mutex<()> = Mutex::new(());

fn serial() -> MutexGuard<'static, ()> {
    SERIAL.lock().unwrap_or_else(|e| e.into_inner())
}

/// Text-like data.
fn text() -> &'static [u8] {
    static TEXT: OnceLock<Vec<u8>> = OnceLock::new();
    TEXT.get_or_init(|| sample_data(SIZE, 0xC00B))
}

/// [`text`] as `.xz` (preset 1: quick to make; decoding speed hardly
/// depends on the preset).
fn xz() -> &'static [u8] {
    static XZ: OnceLock<Vec<u8>> = OnceLock::new();
    XZ.get_or_init(|| {
        let mut enc = lzflow::write::XzEncoder::new(Vec::new(), 1);
        enc.write_all(text()).unwrap();
        enc.finish().unwrap()
    })
}

/// What a task's reader or writer did: how often it returned `Pending`,
/// and its longest poll.
#[derive(Debug, Default, Clone, Copy)]
struct Polls {
    pendings: usize,
    longest: Duration,
}

/// Records the [`Polls`] of the reader or writer it wraps.
struct Counted<T> {
    inner: T,
    polls: Polls,
}

impl<T: Unpin> Counted<T> {
    fn new(inner: T) -> Self {
        Counted {
            inner,
            polls: Polls::default(),
        }
    }

    fn timed<R>(self: Pin<&mut Self>, poll: impl FnOnce(Pin<&mut T>) -> Poll<R>) -> Poll<R> {
        let this = self.get_mut();
        let start = Instant::now();
        let result = poll(Pin::new(&mut this.inner));
        this.polls.longest = this.polls.longest.max(start.elapsed());
        if result.is_pending() {
            this.polls.pendings += 1;
        }
        result
    }
}

impl<T: AsyncRead + Unpin> AsyncRead for Counted<T> {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<std::io::Result<()>> {
        self.timed(|r| r.poll_read(cx, buf))
    }
}

impl<T: AsyncWrite + Unpin> AsyncWrite for Counted<T> {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<std::io::Result<usize>> {
        self.timed(|w| w.poll_write(cx, buf))
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        self.timed(|w| w.poll_flush(cx))
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        self.timed(|w| w.poll_shutdown(cx))
    }
}

/// A writer that takes everything at once and keeps nothing (unlike
/// `tokio::io::sink()`, which takes part in the budget itself).
struct Discard;

impl AsyncWrite for Discard {
    fn poll_write(
        self: Pin<&mut Self>,
        _: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<std::io::Result<usize>> {
        Poll::Ready(Ok(buf.len()))
    }

    fn poll_flush(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Poll::Ready(Ok(()))
    }

    fn poll_shutdown(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Poll::Ready(Ok(()))
    }
}

/// Reads `r` to its end in 64 KiB reads.
fn drain<R: AsyncRead + Unpin>(r: R) -> impl Future<Output = Polls> {
    let mut r = Counted::new(r);
    async move {
        let mut buf = vec![0u8; 64 << 10];
        while r.read(&mut buf).await.unwrap() > 0 {}
        r.polls
    }
}

/// Writes `data` into `w` in 64 KiB writes, then shuts it down.
fn fill<W: AsyncWrite + Unpin>(w: W, data: &'static [u8]) -> impl Future<Output = Polls> {
    let mut w = Counted::new(w);
    async move {
        for piece in data.chunks(64 << 10) {
            w.write_all(piece).await.unwrap();
        }
        w.shutdown().await.unwrap();
        w.polls
    }
}

fn current_thread() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .build()
        .unwrap()
}

/// Time the current thread has spent ready to run but waiting for a CPU,
/// from Linux's `/proc/thread-self/schedstat` (`None` elsewhere): time a
/// loaded machine keeps the thread off the CPU, which no runtime can
/// prevent. (Its time on the CPU, the first field, is only brought up to
/// date at scheduler ticks; the waits are added as each ends.)
fn thread_waited() -> Option<Duration> {
    let stat = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    let ns = stat.split_whitespace().nth(1)?.parse().ok()?;
    Some(Duration::from_nanos(ns))
}

/// The largest gaps between two ticks of a ticker.
#[derive(Debug, Default, Clone, Copy)]
struct Gaps {
    /// In wall time.
    wall: Duration,
    /// In wall time less the time the thread waited for a CPU (where
    /// that is known).
    running: Duration,
}

/// What a 1 ms ticker saw while [`TASKS`] tasks made by `task` ran beside
/// it on one thread: its largest gaps between ticks, and the tasks' polls.
fn tick_beside<F>(task: impl Fn(usize) -> F) -> (Gaps, Polls)
where
    F: Future<Output = Polls> + Send + 'static,
{
    current_thread().block_on(async {
        // Made first: an encoder allocates its tables when it is built,
        // which is the caller's work, not a poll's.
        let busy: Vec<F> = (0..TASKS).map(&task).collect();
        let done = Arc::new(AtomicBool::new(false));
        let (started, ticking) = tokio::sync::oneshot::channel();
        let ticker = tokio::spawn({
            let done = done.clone();
            async move {
                let mut interval = tokio::time::interval(Duration::from_millis(1));
                interval.tick().await;
                started.send(()).unwrap();
                let now = || (Instant::now(), thread_waited());
                let mut last = now();
                let mut gaps = Gaps::default();
                loop {
                    interval.tick().await;
                    let (wall, waited) = now();
                    let wall_gap = wall - last.0;
                    gaps.wall = gaps.wall.max(wall_gap);
                    let off_cpu = match (waited, last.1) {
                        (Some(waited), Some(before)) => waited.saturating_sub(before),
                        _ => Duration::ZERO,
                    };
                    gaps.running = gaps.running.max(wall_gap.saturating_sub(off_cpu));
                    last = (wall, waited);
                    if done.load(Ordering::Relaxed) {
                        return gaps;
                    }
                }
            }
        });
        ticking.await.unwrap();
        let busy: Vec<_> = busy.into_iter().map(tokio::spawn).collect();
        let mut polls = Polls::default();
        for task in busy {
            let p = task.await.unwrap();
            polls.pendings += p.pendings;
            polls.longest = polls.longest.max(p.longest);
        }
        done.store(true, Ordering::Relaxed);
        (ticker.await.unwrap(), polls)
    })
}

/// Asserts that the tasks made by `task` yield and that the ticker beside
/// them is never kept waiting long: at most `bound` of running time in an
/// optimised build (wall time is reported: it also counts the time the
/// machine gave the thread no CPU). Without yielding, every gap is whole
/// tasks long (hundreds of milliseconds). With it, a round of 8 turns
/// takes 2-4 ms here, more while other processes slow this core down
/// (shared caches, a busy sibling thread), so an optimised run gets five
/// tries, and a debug run (whose bound is near its end-of-stream steps:
/// once 40.2 ms against 40 ms on a loaded machine) three.
fn assert_fair<F>(what: &str, bound: Duration, task: impl Fn(usize) -> F)
where
    F: Future<Output = Polls> + Send + 'static,
{
    let (bound, tries) = if cfg!(debug_assertions) {
        (MAX_GAP_DEBUG, 3)
    } else {
        (bound, 5)
    };
    let mut seen = Vec::new();
    for _ in 0..tries {
        let (gaps, polls) = tick_beside(&task);
        eprintln!("{what}: ticker's largest gaps {gaps:?}; tasks' {polls:?}");
        assert!(polls.pendings > 0, "{what}: the tasks never yielded");
        if gaps.running <= bound {
            return;
        }
        seen.push(gaps);
    }
    panic!("{what}: the ticker waited {seen:?} (bound {bound:?})");
}

#[test]
fn a_ticker_keeps_ticking_beside_busy_in_memory_decodes() {
    let _serial = serial();
    let xz = xz();
    assert_fair("bufread::XzDecoder", MAX_GAP, |_| {
        drain(lzflow::tokio::bufread::XzDecoder::new(xz))
    });
}

#[test]
fn a_ticker_keeps_ticking_beside_busy_decoding_writers() {
    let _serial = serial();
    let xz = xz();
    assert_fair("write::XzDecoder", MAX_GAP, |_| {
        fill(lzflow::tokio::write::XzDecoder::new(Discard), xz)
    });
}

/// Encoding is far slower than decoding: 200-300 KiB of text per task, xz
/// preset 6. The sizes differ so that the tasks end in different turns:
/// the end of a stream encodes the input held back for look-ahead (a few
/// KiB) in one step.
#[test]
fn a_ticker_keeps_ticking_beside_busy_encoders() {
    let _serial = serial();
    let text = |i: usize| &text()[..(200 << 10) + i * (13 << 10)];
    assert_fair("write::XzEncoder", MAX_GAP_ENCODING, |i| {
        fill(lzflow::tokio::write::XzEncoder::new(Discard), text(i))
    });
    assert_fair("bufread::XzEncoder", MAX_GAP_ENCODING, |i| {
        drain(lzflow::tokio::bufread::XzEncoder::new(text(i)))
    });
}

/// Runs `work` under a 5 ms timeout on a current-thread runtime, after
/// checking that it takes longer than that when it is not cut short.
fn assert_timeout_cancels<F: Future<Output = ()>>(what: &str, work: impl Fn() -> F) {
    let rt = current_thread();
    let start = Instant::now();
    rt.block_on(tokio::task::coop::unconstrained(work()));
    let whole = start.elapsed();
    assert!(
        whole > 4 * Duration::from_millis(5),
        "{what}: the whole job took only {whole:?}, too short to test a timeout"
    );
    let start = Instant::now();
    let result =
        rt.block_on(async { tokio::time::timeout(Duration::from_millis(5), work()).await });
    let cut = start.elapsed();
    eprintln!("{what}: whole {whole:?}, cut short after {cut:?}");
    assert!(
        result.is_err(),
        "{what}: the timeout did not fire ({cut:?})"
    );
    assert!(
        cut < whole,
        "{what}: cut after {cut:?}, the whole job takes {whole:?}"
    );
}

#[test]
fn a_timeout_cancels_long_in_memory_work() {
    let _serial = serial();
    let (xz, text) = (xz(), text());
    assert_timeout_cancels("bufread::XzDecoder", || async {
        let mut out = Vec::new();
        lzflow::tokio::bufread::XzDecoder::new(xz)
            .read_to_end(&mut out)
            .await
            .unwrap();
    });
    assert_timeout_cancels("seekable::AsyncSeekableXzReader", || async {
        let mut out = Vec::new();
        lzflow::seekable::AsyncSeekableXzReader::open(std::io::Cursor::new(xz))
            .await
            .unwrap()
            .read_to_end(&mut out)
            .await
            .unwrap();
    });
    assert_timeout_cancels("write::XzDecoder", || async {
        let mut w = lzflow::tokio::write::XzDecoder::new(Discard);
        w.write_all(xz).await.unwrap();
        w.shutdown().await.unwrap();
    });
    let text = &text[..1 << 20];
    assert_timeout_cancels("write::XzEncoder", || async {
        let mut w = lzflow::tokio::write::XzEncoder::new(Discard);
        w.write_all(text).await.unwrap();
        w.shutdown().await.unwrap();
    });
    assert_timeout_cancels("bufread::XzEncoder", || async {
        let mut out = Vec::new();
        lzflow::tokio::bufread::XzEncoder::new(text)
            .read_to_end(&mut out)
            .await
            .unwrap();
    });
}

#[test]
fn a_timeout_cancels_long_in_memory_7z_work() {
    use lzflow::sevenz_writer::{EntryMeta, WriterOptions};
    let _serial = serial();
    let text = text();
    let fast = || WriterOptions::default().with_level(1);
    let archive = {
        let sink = std::io::Cursor::new(Vec::new());
        let mut w = lzflow::sevenz_writer::Writer::with_options(sink, fast()).unwrap();
        w.add_file("text", text, EntryMeta::default()).unwrap();
        w.finish().unwrap().into_inner()
    };
    assert_timeout_cancels("sevenz::AsyncArchive", || async {
        let source = std::io::Cursor::new(&archive[..]);
        let mut archive = lzflow::sevenz::AsyncArchive::open(source).await.unwrap();
        let mut out = Vec::new();
        let mut entry = archive.reader(0).await.unwrap();
        entry.read_to_end(&mut out).await.unwrap();
    });
    let text = &text[..4 << 20];
    assert_timeout_cancels("sevenz_writer::AsyncWriter", || async {
        let sink = std::io::Cursor::new(Vec::new());
        let mut w = lzflow::sevenz_writer::AsyncWriter::with_options(sink, fast())
            .await
            .unwrap();
        w.add_file("text", text, EntryMeta::default())
            .await
            .unwrap();
        w.finish().await.unwrap();
    });
}

#[test]
fn a_timeout_cancels_long_in_memory_zip_work() {
    let _serial = serial();
    // An XZ entry (zip method 95), with a data descriptor: the
    // central-directory reader and the forward-only one both decode it.
    let (xz, text) = (xz(), text());
    let archive = one_entry_zip("text", 95, xz, text, true);
    assert_timeout_cancels("zip::AsyncZipArchive", || async {
        let source = std::io::Cursor::new(&archive[..]);
        let mut zip = lzflow::zip::AsyncZipArchive::open(source).await.unwrap();
        let mut out = Vec::new();
        zip.reader(0)
            .await
            .unwrap()
            .read_to_end(&mut out)
            .await
            .unwrap();
    });
    assert_timeout_cancels("zip::AsyncZipStreamReader", || async {
        let mut zip = lzflow::zip::AsyncZipStreamReader::new(&archive[..]);
        let mut out = Vec::new();
        let mut entry = zip.next_entry().await.unwrap().unwrap();
        entry.read_to_end(&mut out).await.unwrap();
    });
}
