//! The async 7z writers (tokio and futures-io) against the blocking one:
//! the same bytes, also when every sink call first returns `Pending`, takes
//! at most a few bytes, and every `finish` future is dropped after one poll.

use std::future::Future;
use std::io::{self, Cursor, Seek, SeekFrom, Write};
use std::pin::{pin, Pin};
use std::task::{Context, Poll};

use lzflow::sevenz_writer::{EntryMeta, SevenZError, Solid, Writer, WriterOptions};

fn data(n: usize, seed: u8) -> Vec<u8> {
    (0..n)
        .map(|i| (i as u8).wrapping_mul(seed) ^ (i >> 10) as u8)
        .collect()
}

fn opts() -> WriterOptions {
    WriterOptions::default()
        .with_level(1)
        .with_solid(Solid::Files(2))
}

fn files() -> Vec<(String, Vec<u8>)> {
    vec![
        ("a.bin".into(), data(150_000, 3)),
        ("dir/ü.txt".into(), data(70_000, 7)),
        ("dir/c".into(), data(5, 11)),
    ]
}

fn blocking_archive() -> Vec<u8> {
    let mut w = Writer::with_options(Cursor::new(Vec::new()), opts()).unwrap();
    w.add_dir("dir", EntryMeta::default()).unwrap();
    for (name, bytes) in files() {
        w.add_file(&name, &bytes[..], EntryMeta::default()).unwrap();
    }
    w.add_empty_file("empty", EntryMeta::default()).unwrap();
    w.finish().unwrap().into_inner()
}

/// A sink where every second call of each kind (write, seek, flush)
/// returns `Pending` (waking at once), and writes take at most 5 bytes.
#[derive(Debug, Default)]
struct Stingy {
    inner: Cursor<Vec<u8>>,
    /// Per kind: the next call is answered.
    ready: [bool; 3],
    seek_to: Option<SeekFrom>,
}

const WRITE: usize = 0;
const SEEK: usize = 1;
const FLUSH: usize = 2;

impl Stingy {
    fn gate(&mut self, cx: &mut Context<'_>, kind: usize) -> Poll<()> {
        self.ready[kind] = !self.ready[kind];
        if self.ready[kind] {
            cx.waker().wake_by_ref();
            Poll::Pending
        } else {
            Poll::Ready(())
        }
    }
    fn write(&mut self, cx: &mut Context<'_>, buf: &[u8]) -> Poll<io::Result<usize>> {
        std::task::ready!(self.gate(cx, WRITE));
        Poll::Ready(self.inner.write(&buf[..buf.len().min(5)]))
    }
    fn seek(&mut self, cx: &mut Context<'_>, pos: SeekFrom) -> Poll<io::Result<u64>> {
        std::task::ready!(self.gate(cx, SEEK));
        Poll::Ready(self.inner.seek(pos))
    }
}

impl futures::io::AsyncWrite for Stingy {
    fn poll_write(self: Pin<&mut Self>, cx: &mut Context<'_>, b: &[u8]) -> Poll<io::Result<usize>> {
        self.get_mut().write(cx, b)
    }
    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        self.get_mut().gate(cx, FLUSH).map(Ok)
    }
    fn poll_close(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<io::Result<()>> {
        Poll::Ready(Ok(()))
    }
}

impl futures::io::AsyncSeek for Stingy {
    fn poll_seek(self: Pin<&mut Self>, cx: &mut Context<'_>, p: SeekFrom) -> Poll<io::Result<u64>> {
        self.get_mut().seek(cx, p)
    }
}

impl tokio::io::AsyncWrite for Stingy {
    fn poll_write(self: Pin<&mut Self>, cx: &mut Context<'_>, b: &[u8]) -> Poll<io::Result<usize>> {
        self.get_mut().write(cx, b)
    }
    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        self.get_mut().gate(cx, FLUSH).map(Ok)
    }
    fn poll_shutdown(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<io::Result<()>> {
        Poll::Ready(Ok(()))
    }
}

impl tokio::io::AsyncSeek for Stingy {
    fn start_seek(self: Pin<&mut Self>, pos: SeekFrom) -> io::Result<()> {
        let me = self.get_mut();
        assert!(me.seek_to.is_none(), "start_seek while a seek is under way");
        me.seek_to = Some(pos);
        Ok(())
    }
    fn poll_complete(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<u64>> {
        let me = self.get_mut();
        match me.seek_to {
            Some(pos) => {
                let r = std::task::ready!(me.seek(cx, pos));
                me.seek_to = None;
                Poll::Ready(r)
            }
            None => Poll::Ready(Ok(me.inner.position())),
        }
    }
}

/// Polls futures made by `$make` once each, dropping every one that is
/// still pending, until one completes; gives its output and the polls.
macro_rules! poll_once_each {
    ($make:expr) => {{
        let waker = futures::task::noop_waker();
        let mut cx = Context::from_waker(&waker);
        let mut attempts = 0usize;
        loop {
            attempts += 1;
            assert!(attempts < 1_000_000, "no progress");
            let fut = pin!($make);
            if let Poll::Ready(v) = fut.poll(&mut cx) {
                break (v, attempts);
            }
        }
    }};
}

#[test]
fn futures_io_writer_survives_pending_sinks_and_dropped_finish_futures() {
    let want = blocking_archive();
    let mut w = futures::executor::block_on(async {
        let mut w =
            lzflow::sevenz_writer::futures::AsyncWriter::with_options(Stingy::default(), opts())
                .await
                .unwrap();
        w.add_dir("dir", EntryMeta::default()).await.unwrap();
        for (name, bytes) in files() {
            w.add_file(&name, &bytes[..], EntryMeta::default())
                .await
                .unwrap();
        }
        w.add_empty_file("empty", EntryMeta::default())
            .await
            .unwrap();
        w
    });
    let (sink, attempts) = poll_once_each!(w.finish());
    let sink = sink.unwrap();
    assert!(attempts > 10, "finish was interrupted ({attempts} polls)");
    assert_eq!(sink.inner.into_inner(), want);
}

#[test]
fn tokio_writer_survives_pending_sinks_and_dropped_finish_futures() {
    let want = blocking_archive();
    let rt = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    let mut w = rt.block_on(async {
        let mut w = lzflow::sevenz_writer::AsyncWriter::with_options(Stingy::default(), opts())
            .await
            .unwrap();
        w.add_dir("dir", EntryMeta::default()).await.unwrap();
        for (name, bytes) in files() {
            w.add_file(&name, &bytes[..], EntryMeta::default())
                .await
                .unwrap();
        }
        w.add_empty_file("empty", EntryMeta::default())
            .await
            .unwrap();
        w
    });
    let (sink, attempts) = poll_once_each!(w.finish());
    let sink = sink.unwrap();
    assert!(attempts > 10, "finish was interrupted ({attempts} polls)");
    assert_eq!(sink.inner.into_inner(), want);
}

#[test]
fn a_dropped_add_file_future_leaves_the_writer_unusable() {
    // Stored, so the first piece goes straight to the sink and waits there.
    let stored = opts().with_method(lzflow::sevenz_writer::Method::Copy);
    let mut w = futures::executor::block_on(
        lzflow::sevenz_writer::futures::AsyncWriter::with_options(Stingy::default(), stored),
    )
    .unwrap();
    let big = data(300_000, 5);
    // Polled once: the first piece is read and its output waits for the
    // stingy sink; the future is dropped in the middle of the file.
    let waker = futures::task::noop_waker();
    let mut cx = Context::from_waker(&waker);
    {
        let fut = pin!(w.add_file("big", &big[..], EntryMeta::default()));
        assert!(fut.poll(&mut cx).is_pending());
    }
    let err = futures::executor::block_on(w.finish()).unwrap_err();
    assert!(matches!(err, SevenZError::WriterUnusable(_)), "got {err:?}");
}

/// Files for the threaded writers: enough folders to keep two workers
/// busy, one folder larger than a piece.
fn many_files() -> Vec<(String, Vec<u8>)> {
    (0..6u8)
        .map(|i| {
            // Over 2 MiB in all: two pieces of a split LZMA2 stream.
            let n = [1_900_000, 9, 90_000, 0, 150_000, 70_000][usize::from(i)];
            (format!("f{i}.bin"), data(n, 3 + 2 * i))
        })
        .collect()
}

/// Adds [`many_files`] (and a directory and an empty file, as
/// [`blocking_archive_of`] does) through either face's async writer.
macro_rules! add_many_files {
    ($w:expr) => {
        $w.add_dir("d", EntryMeta::default()).await.unwrap();
        for (name, bytes) in many_files() {
            $w.add_file(&name, &bytes[..], EntryMeta::default())
                .await
                .unwrap();
        }
        $w.add_empty_file("e", EntryMeta::default()).await.unwrap();
    };
}

fn blocking_archive_of(opts: WriterOptions) -> Vec<u8> {
    let mut w = Writer::with_options(Cursor::new(Vec::new()), opts).unwrap();
    w.add_dir("d", EntryMeta::default()).unwrap();
    for (name, bytes) in many_files() {
        w.add_file(&name, &bytes[..], EntryMeta::default()).unwrap();
    }
    w.add_empty_file("e", EntryMeta::default()).unwrap();
    w.finish().unwrap().into_inner()
}

/// Polls futures made by `$make` once each, dropping every pending one,
/// until one completes (the writer thread works meanwhile; 30 s at most);
/// gives its output and the polls.
macro_rules! finish_in_dropped_polls {
    ($make:expr) => {{
        let waker = futures::task::noop_waker();
        let mut cx = Context::from_waker(&waker);
        let start = std::time::Instant::now();
        let mut attempts = 0usize;
        loop {
            attempts += 1;
            assert!(start.elapsed().as_secs() < 30, "no progress");
            let fut = pin!($make);
            if let Poll::Ready(v) = fut.poll(&mut cx) {
                break (v, attempts);
            }
            std::thread::yield_now();
        }
    }};
}

/// Threaded tests run one at a time, so that one can count the threads.
static THREADED: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// Runs `f` on a current-thread tokio runtime, alone among the threaded
/// tests.
fn alone_on_tokio(f: impl Future<Output = ()>) {
    let _alone = THREADED.lock().unwrap_or_else(|e| e.into_inner());
    tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap()
        .block_on(f);
}

#[test]
fn threaded_async_writers_write_the_blocking_writers_bytes() {
    let _alone = THREADED.lock().unwrap_or_else(|e| e.into_inner());
    // Folders in parallel (the archive is the one-thread one) and one
    // folder's LZMA2 stream split over threads (it differs from one
    // thread's, so equality shows the threads were used).
    let cases = [
        opts().with_solid(Solid::Files(1)).with_threads(2),
        opts().with_solid(Solid::Files(2)).with_threads(3),
        WriterOptions::default()
            .with_level(1)
            .with_solid(Solid::All)
            .with_threads(2),
    ];
    for o in cases {
        let want = blocking_archive_of(o.clone());
        let one_thread = blocking_archive_of(o.clone().with_threads(1));
        // Parallel folders write the one-thread archive; a split stream
        // differs from it, so equality below shows the threads were used.
        assert_eq!(want == one_thread, o.solid != Solid::All, "{o:?}");
        // futures-io over the stingy sink, every finish future dropped.
        let mut w = futures::executor::block_on(async {
            let mut w = lzflow::sevenz_writer::futures::AsyncWriter::with_options(
                Stingy::default(),
                o.clone(),
            )
            .await
            .unwrap();
            add_many_files!(w);
            w
        });
        let (sink, attempts) = finish_in_dropped_polls!(w.finish());
        assert!(attempts > 10, "finish was interrupted ({attempts} polls)");
        let got = sink.unwrap().inner.into_inner();
        assert!(
            got == want,
            "futures-io {o:?}: {} vs {} bytes",
            got.len(),
            want.len()
        );

        // tokio, on a current-thread runtime.
        let rt = tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap();
        let got = rt.block_on(async {
            let mut w =
                lzflow::sevenz_writer::AsyncWriter::with_options(Stingy::default(), o.clone())
                    .await
                    .unwrap();
            add_many_files!(w);
            w.finish().await.unwrap().inner.into_inner()
        });
        assert!(
            got == want,
            "tokio {o:?}: {} vs {} bytes",
            got.len(),
            want.len()
        );
    }
}

/// A source that yields `good` bytes, then fails.
struct FailingSource {
    good: Vec<u8>,
}

impl tokio::io::AsyncRead for FailingSource {
    fn poll_read(
        self: Pin<&mut Self>,
        _: &mut Context<'_>,
        buf: &mut tokio::io::ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let me = self.get_mut();
        if me.good.is_empty() {
            return Poll::Ready(Err(io::Error::other("source broke")));
        }
        let n = me.good.len().min(buf.remaining());
        buf.put_slice(&me.good[..n]);
        me.good.drain(..n);
        Poll::Ready(Ok(()))
    }
}

#[test]
fn threaded_async_writer_reports_source_and_name_errors() {
    alone_on_tokio(async {
        let o = opts().with_solid(Solid::Files(1)).with_threads(2);
        let mut w = lzflow::sevenz_writer::AsyncWriter::with_options(Cursor::new(Vec::new()), o)
            .await
            .unwrap();
        // A bad name is refused at once and the writer stays usable.
        let e = w.add_dir("", EntryMeta::default()).await.unwrap_err();
        assert!(matches!(e, SevenZError::InvalidEntryName(_)), "{e:?}");
        let broken =
            |e: &SevenZError| matches!(e, SevenZError::Io(i) if i.to_string() == "source broke");
        // A source failing before its first byte drops the entry only.
        let source = FailingSource { good: Vec::new() };
        let e = w.add_file("x", source, EntryMeta::default()).await;
        assert!(e.as_ref().is_err_and(broken), "{e:?}");
        w.add_file("a", &data(100_000, 3)[..], EntryMeta::default())
            .await
            .unwrap();
        // After its first bytes, the archive cannot be finished.
        let source = FailingSource {
            good: data(200_000, 5),
        };
        let e = w.add_file("b", source, EntryMeta::default()).await;
        assert!(e.as_ref().is_err_and(broken), "{e:?}");
        let e = w.finish().await.unwrap_err();
        assert!(matches!(e, SevenZError::WriterUnusable(_)), "{e:?}");
        let e = w.finish().await.unwrap_err();
        assert!(matches!(e, SevenZError::WriterUnusable(_)), "{e:?}");
    });
}

/// A sink that takes `room` bytes, then fails every write.
#[derive(Debug)]
struct FullDisk {
    taken: Vec<u8>,
    room: usize,
}

impl tokio::io::AsyncWrite for FullDisk {
    fn poll_write(self: Pin<&mut Self>, _: &mut Context<'_>, b: &[u8]) -> Poll<io::Result<usize>> {
        let me = self.get_mut();
        let n = b.len().min(me.room - me.taken.len());
        if n == 0 {
            return Poll::Ready(Err(io::Error::new(io::ErrorKind::StorageFull, "disk full")));
        }
        me.taken.extend_from_slice(&b[..n]);
        Poll::Ready(Ok(n))
    }
    fn poll_flush(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<io::Result<()>> {
        Poll::Ready(Ok(()))
    }
    fn poll_shutdown(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<io::Result<()>> {
        Poll::Ready(Ok(()))
    }
}

impl tokio::io::AsyncSeek for FullDisk {
    fn start_seek(self: Pin<&mut Self>, _: SeekFrom) -> io::Result<()> {
        Ok(())
    }
    fn poll_complete(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<io::Result<u64>> {
        Poll::Ready(Ok(self.taken.len() as u64))
    }
}

#[test]
fn threaded_async_writer_returns_the_sinks_error_and_no_archive() {
    alone_on_tokio(async {
        // Random data barely compresses: the sink fills while files are added.
        let mut rng = 0x2545_f491_4f6c_dd1du64;
        let noise: Vec<u8> = (0..3_000_000)
            .map(|_| {
                rng ^= rng << 13;
                rng ^= rng >> 7;
                rng ^= rng << 17;
                rng as u8
            })
            .collect();
        let o = opts().with_solid(Solid::Files(1)).with_threads(2);
        let sink = FullDisk {
            taken: Vec::new(),
            room: 1 << 20,
        };
        let mut w = lzflow::sevenz_writer::AsyncWriter::with_options(sink, o)
            .await
            .unwrap();
        let mut first_error = None;
        for (i, chunk) in noise.chunks(500_000).enumerate() {
            if let Err(e) = w
                .add_file(&format!("n{i}"), chunk, EntryMeta::default())
                .await
            {
                first_error = Some(e);
                break;
            }
        }
        let e = match first_error {
            Some(e) => e,
            None => w.finish().await.unwrap_err(),
        };
        assert!(
            matches!(&e, SevenZError::Io(i) if i.kind() == io::ErrorKind::StorageFull),
            "{e:?}"
        );
        // Nothing more is written, and what was written has no valid start
        // header (the patch comes last).
        assert!(w.finish().await.is_err());
    });
}

/// The threads of this process with `name`.
fn threads_named(name: &str) -> usize {
    std::fs::read_dir("/proc/self/task")
        .map(|d| {
            d.flatten()
                .filter(|t| {
                    std::fs::read_to_string(t.path().join("comm"))
                        .is_ok_and(|c| c.trim_end() == name)
                })
                .count()
        })
        .unwrap_or(0)
}

#[test]
fn dropping_a_threaded_async_writer_mid_archive_stops_its_threads() {
    let _alone = THREADED.lock().unwrap_or_else(|e| e.into_inner());
    // Writer threads of tests that ran before may still be on their way
    // out; this test counts its own.
    let t = std::time::Instant::now();
    while threads_named("lzflow-7z-write") > 0 {
        assert!(
            t.elapsed().as_secs() < 10,
            "earlier writer threads still running"
        );
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    let o = WriterOptions::default()
        .with_level(5)
        .with_solid(Solid::Files(1))
        .with_threads(2);
    let big = data(6 << 20, 9);
    let w = futures::executor::block_on(async {
        let mut w = lzflow::sevenz_writer::futures::AsyncWriter::with_options(Stingy::default(), o)
            .await
            .unwrap();
        // Returns once the data is queued, long before it is compressed.
        w.add_file("big", &big[..], EntryMeta::default())
            .await
            .unwrap();
        w
    });
    // The writer's threads are up. Not an exact count: a thread spawned by
    // the writer thread carries its parent's name until it renames itself,
    // and the writer thread the test thread's until it starts.
    let all = || threads_named("lzflow-7z-write") + threads_named("lzflow-7z-folde");
    if cfg!(target_os = "linux") {
        let t = std::time::Instant::now();
        while all() == 0 {
            assert!(t.elapsed().as_secs() < 10, "no writer thread started");
            std::thread::sleep(std::time::Duration::from_millis(1));
        }
    }
    let t = std::time::Instant::now();
    drop(w);
    assert!(
        t.elapsed().as_millis() < 500,
        "drop waited {:?}",
        t.elapsed()
    );
    // The writer thread and its workers end soon after.
    let t = std::time::Instant::now();
    while all() > 0 {
        assert!(t.elapsed().as_secs() < 10, "threads still running");
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
}

/// Pushes `$bytes` into the writer's `AsyncWrite` (`$trait`) in writes of
/// 1 B to 100 KB, each polled once and dropped when pending, as a write
/// future in a `select!` that loses would be.
macro_rules! push_in_dropped_polls {
    ($trait:path, $w:expr, $bytes:expr) => {{
        use $trait as _;
        let waker = futures::task::noop_waker();
        let mut cx = Context::from_waker(&waker);
        let bytes: &[u8] = $bytes;
        let (mut at, mut i, mut polls) = (0usize, 0usize, 0usize);
        while at < bytes.len() {
            polls += 1;
            assert!(polls < 10_000_000, "no progress");
            let end = bytes.len().min(at + [1, 7_000, 65_536, 100_003, 3][i % 5]);
            if let Poll::Ready(n) = Pin::new(&mut *$w).poll_write(&mut cx, &bytes[at..end]) {
                let n = n.unwrap();
                assert!(n > 0);
                at += n;
                i += 1;
            }
        }
    }};
}

#[test]
fn tokio_pushed_files_make_the_blocking_writers_bytes() {
    let want = blocking_archive();
    let rt = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    let mut w = rt.block_on(async {
        let mut w = lzflow::sevenz_writer::AsyncWriter::with_options(Stingy::default(), opts())
            .await
            .unwrap();
        w.add_dir("dir", EntryMeta::default()).await.unwrap();
        w
    });
    for (name, bytes) in files() {
        poll_once_each!(w.begin_file(&name, EntryMeta::default()))
            .0
            .unwrap();
        push_in_dropped_polls!(tokio::io::AsyncWrite, &mut w, &bytes);
    }
    // Begun and ended with no data: an empty file; the next entry ends
    // the file before it.
    poll_once_each!(w.begin_file("empty", EntryMeta::default()))
        .0
        .unwrap();
    let (sink, _) = poll_once_each!(w.finish());
    assert_eq!(sink.unwrap().inner.into_inner(), want);
}

#[test]
fn futures_pushed_files_make_the_blocking_writers_bytes() {
    let want = blocking_archive();
    let mut w = futures::executor::block_on(async {
        let mut w =
            lzflow::sevenz_writer::futures::AsyncWriter::with_options(Stingy::default(), opts())
                .await
                .unwrap();
        w.add_dir("dir", EntryMeta::default()).await.unwrap();
        w
    });
    for (name, bytes) in files() {
        poll_once_each!(w.begin_file(&name, EntryMeta::default()))
            .0
            .unwrap();
        push_in_dropped_polls!(futures::io::AsyncWrite, &mut w, &bytes);
        poll_once_each!(w.end_file()).0.unwrap();
    }
    poll_once_each!(w.begin_file("empty", EntryMeta::default()))
        .0
        .unwrap();
    poll_once_each!(w.end_file()).0.unwrap();
    let (sink, _) = poll_once_each!(w.finish());
    assert_eq!(sink.unwrap().inner.into_inner(), want);
}

#[test]
fn threaded_pushed_files_make_the_blocking_writers_bytes() {
    for threads in [2, 3] {
        let o = || {
            WriterOptions::default()
                .with_level(1)
                .with_solid(Solid::Files(2))
                .with_threads(threads)
        };
        let want = blocking_archive_of(o());
        alone_on_tokio(async {
            use tokio::io::AsyncWriteExt;
            let mut w = lzflow::sevenz_writer::AsyncWriter::with_options(Stingy::default(), o())
                .await
                .unwrap();
            w.add_dir("d", EntryMeta::default()).await.unwrap();
            for (name, bytes) in many_files() {
                w.begin_file(&name, EntryMeta::default()).await.unwrap();
                for piece in bytes.chunks(40_000) {
                    w.write_all(piece).await.unwrap();
                }
                // Shutting down ends the file (the archive goes on).
                w.shutdown().await.unwrap();
            }
            w.add_empty_file("e", EntryMeta::default()).await.unwrap();
            let sink = w.finish().await.unwrap();
            assert_eq!(sink.inner.into_inner(), want, "{threads} threads");
        });
    }
}

#[test]
fn writing_with_no_file_begun_is_an_error() {
    let rt = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    rt.block_on(async {
        use tokio::io::AsyncWriteExt;
        let mut w = lzflow::sevenz_writer::AsyncWriter::new(Cursor::new(Vec::new()))
            .await
            .unwrap();
        let e = w.write_all(b"data").await.unwrap_err();
        let typed = e.get_ref().and_then(|e| e.downcast_ref::<SevenZError>());
        assert!(
            matches!(typed, Some(SevenZError::WriterUnusable(m)) if m.contains("begin_file")),
            "{e:?}"
        );
        // The writer is still usable, and after an ended file as well.
        w.begin_file("a", EntryMeta::default()).await.unwrap();
        w.write_all(b"data").await.unwrap();
        w.end_file().await.unwrap();
        assert!(w.write_all(b"more").await.is_err());
        let archive = w.finish().await.unwrap().into_inner();
        let mut r = lzflow::sevenz::Archive::open(Cursor::new(archive)).unwrap();
        assert_eq!(r.entries().len(), 1);
        let mut got = Vec::new();
        std::io::Read::read_to_end(&mut r.reader(0).unwrap(), &mut got).unwrap();
        assert_eq!(got, b"data");
    });
}
