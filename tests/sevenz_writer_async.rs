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
