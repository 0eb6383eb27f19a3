//! The async zip faces read what the std face reads, byte for byte, over
//! sources that return `Pending` before every read and seek.

use std::io::{Cursor, Read};
use std::pin::Pin;
use std::task::{Context, Poll};

use lzflow::zip::{ZipArchive, ZipOptions};

const DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/fixtures/zip/");
const FILES: &[&str] = &[
    "infozip/iz-level0.zip",
    "7zz/7z-aes256.zip",
    "7zz/7z-zipcrypto.zip",
    "7zz/7z-bzip2.zip",
    "7zz/7z-lzma.zip",
];

fn opts() -> ZipOptions {
    ZipOptions::new().with_password("fixture-pass")
}

fn std_read(bytes: &[u8]) -> Vec<Vec<u8>> {
    let mut a = ZipArchive::open_with(Cursor::new(bytes), opts()).unwrap();
    (0..a.len())
        .map(|i| {
            let mut d = Vec::new();
            a.reader(i).unwrap().read_to_end(&mut d).unwrap();
            d
        })
        .collect()
}

/// A tokio source that is pending once before every operation.
struct Hesitant {
    inner: Cursor<Vec<u8>>,
    ready: bool,
}

impl Hesitant {
    fn gate(&mut self, cx: &mut Context<'_>) -> bool {
        self.ready = !self.ready;
        if !self.ready {
            cx.waker().wake_by_ref();
        }
        self.ready
    }
}

impl tokio::io::AsyncRead for Hesitant {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut tokio::io::ReadBuf<'_>,
    ) -> Poll<std::io::Result<()>> {
        if !self.gate(cx) {
            return Poll::Pending;
        }
        Pin::new(&mut self.inner).poll_read(cx, buf)
    }
}

impl tokio::io::AsyncSeek for Hesitant {
    fn start_seek(mut self: Pin<&mut Self>, pos: std::io::SeekFrom) -> std::io::Result<()> {
        Pin::new(&mut self.inner).start_seek(pos)
    }
    fn poll_complete(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<u64>> {
        if !self.gate(cx) {
            return Poll::Pending;
        }
        Pin::new(&mut self.inner).poll_complete(cx)
    }
}

#[tokio::test]
async fn tokio_face_reads_what_std_reads() {
    use tokio::io::AsyncReadExt;
    for file in FILES {
        let bytes = std::fs::read(format!("{DIR}{file}")).unwrap();
        let want = std_read(&bytes);
        let src = Hesitant {
            inner: Cursor::new(bytes),
            ready: false,
        };
        let mut a = lzflow::zip::AsyncZipArchive::open_with(src, opts())
            .await
            .unwrap();
        assert_eq!(a.len(), want.len(), "{file}");
        for (i, w) in want.iter().enumerate() {
            let mut d = Vec::new();
            a.reader(i)
                .await
                .unwrap()
                .read_to_end(&mut d)
                .await
                .unwrap();
            assert!(d == *w, "{file} entry {i}");
        }
    }
}

#[test]
fn futures_face_reads_what_std_reads() {
    use futures::io::AsyncReadExt;
    for file in FILES {
        let bytes = std::fs::read(format!("{DIR}{file}")).unwrap();
        let want = std_read(&bytes);
        futures::executor::block_on(async {
            let src = futures::io::Cursor::new(bytes);
            let mut a = lzflow::zip::futures::AsyncZipArchive::open_with(src, opts())
                .await
                .unwrap();
            for (i, w) in want.iter().enumerate() {
                let mut d = Vec::new();
                a.reader(i)
                    .await
                    .unwrap()
                    .read_to_end(&mut d)
                    .await
                    .unwrap();
                assert!(d == *w, "{file} entry {i}");
            }
        });
    }
}

#[tokio::test]
async fn tokio_extraction_writes_what_std_reads() {
    let bytes = std::fs::read(format!("{DIR}7zz/7z-aes256.zip")).unwrap();
    let want = std_read(&bytes);
    let dir = std::env::temp_dir().join(format!("lzflow-zip-async-x-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let src = Hesitant {
        inner: Cursor::new(bytes.clone()),
        ready: false,
    };
    let mut a = lzflow::zip::AsyncZipArchive::open_with(src, opts())
        .await
        .unwrap();
    a.extract_to_with(&dir, &Default::default()).await.unwrap();
    let std_a = ZipArchive::open_with(Cursor::new(&bytes[..]), opts()).unwrap();
    for (i, w) in want.iter().enumerate() {
        let e = std_a.directory().get(i).unwrap();
        if !e.is_dir() {
            assert!(std::fs::read(dir.join(&*e.name())).unwrap() == *w);
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// A tokio reader that cannot seek, is pending before every read and
/// hands out at most `step` bytes at a time: an upload body.
struct Trickle {
    data: Vec<u8>,
    pos: usize,
    step: usize,
    ready: bool,
}

impl Trickle {
    fn new(data: Vec<u8>, step: usize) -> Self {
        Trickle {
            data,
            pos: 0,
            step,
            ready: false,
        }
    }

    fn take(&mut self, cx: &mut Context<'_>, room: usize) -> Option<&[u8]> {
        self.ready = !self.ready;
        if !self.ready {
            cx.waker().wake_by_ref();
            return None;
        }
        let n = self.step.min(room).min(self.data.len() - self.pos);
        self.pos += n;
        Some(&self.data[self.pos - n..self.pos])
    }
}

impl tokio::io::AsyncRead for Trickle {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut tokio::io::ReadBuf<'_>,
    ) -> Poll<std::io::Result<()>> {
        let room = buf.remaining();
        match self.take(cx, room) {
            None => Poll::Pending,
            Some(bytes) => {
                buf.put_slice(bytes);
                Poll::Ready(Ok(()))
            }
        }
    }
}

impl futures::io::AsyncRead for Trickle {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut [u8],
    ) -> Poll<std::io::Result<usize>> {
        let room = buf.len();
        match self.take(cx, room) {
            None => Poll::Pending,
            Some(bytes) => {
                buf[..bytes.len()].copy_from_slice(bytes);
                Poll::Ready(Ok(bytes.len()))
            }
        }
    }
}

/// Archives with data descriptors the forward-only reader must delimit
/// itself.
const STREAM_FILES: &[&str] = &[
    "java/java-deflate-dd.zip",
    "bsdtar/bsdtar-deflate-dd.zip",
    "infozip/iz-stdout-dd.zip",
];

#[tokio::test]
async fn tokio_stream_face_reads_what_std_reads() {
    use tokio::io::AsyncReadExt;
    for file in FILES.iter().chain(STREAM_FILES) {
        let bytes = std::fs::read(format!("{DIR}{file}")).unwrap();
        let want = std_read(&bytes);
        for step in [1, 7, 5000] {
            let mut z = lzflow::zip::AsyncZipStreamReader::with_options(
                Trickle::new(bytes.clone(), step),
                opts(),
            );
            let mut got = Vec::new();
            while let Some(mut entry) = z.next_entry().await.unwrap() {
                let mut d = Vec::new();
                entry.read_to_end(&mut d).await.unwrap();
                got.push(d);
            }
            assert_eq!(got, want, "{file} step {step}");
        }
    }
}

#[test]
fn futures_stream_face_reads_what_std_reads() {
    use futures::AsyncReadExt;
    for file in FILES.iter().chain(STREAM_FILES) {
        let bytes = std::fs::read(format!("{DIR}{file}")).unwrap();
        let want = std_read(&bytes);
        let got = futures::executor::block_on(async {
            let mut z = lzflow::zip::futures::AsyncZipStreamReader::with_options(
                Trickle::new(bytes.clone(), 13),
                opts(),
            );
            let mut got = Vec::new();
            while let Some(mut entry) = z.next_entry().await.unwrap() {
                let mut d = Vec::new();
                entry.read_to_end(&mut d).await.unwrap();
                got.push(d);
            }
            got
        });
        assert_eq!(got, want, "{file}");
    }
}

/// Every `next_entry` future is polled once and dropped until one
/// completes: a cancelled call loses nothing and the next goes on.
#[test]
fn cancelled_next_entry_calls_lose_nothing() {
    use std::future::Future;
    use tokio::io::AsyncReadExt;
    let waker = std::task::Waker::noop();
    let mut cx = Context::from_waker(waker);
    for file in STREAM_FILES {
        let bytes = std::fs::read(format!("{DIR}{file}")).unwrap();
        let want = std_read(&bytes);
        let mut z =
            lzflow::zip::AsyncZipStreamReader::with_options(Trickle::new(bytes.clone(), 3), opts());
        let mut got = Vec::new();
        let mut dropped = 0;
        loop {
            // Skip the first entry unread, so that next_entry has data to
            // get through as well as a header.
            let more = loop {
                let mut fut = std::pin::pin!(z.next_entry());
                match fut.as_mut().poll(&mut cx) {
                    Poll::Ready(r) => break r.unwrap().is_some(),
                    Poll::Pending => dropped += 1,
                }
            };
            if !more {
                break;
            }
            if got.is_empty() && want.len() > 1 {
                got.push(want[0].clone());
                continue;
            }
            let mut d = Vec::new();
            let mut entry = z.current().unwrap();
            loop {
                let mut fut = std::pin::pin!(entry.read_to_end(&mut d));
                if let Poll::Ready(r) = fut.as_mut().poll(&mut cx) {
                    r.unwrap();
                    break;
                }
                dropped += 1;
            }
            got.push(d);
        }
        assert_eq!(got, want, "{file}");
        assert!(dropped > 10, "{file}: {dropped}");
    }
}

#[tokio::test]
async fn tokio_stream_extraction_writes_what_std_reads() {
    for file in STREAM_FILES {
        let bytes = std::fs::read(format!("{DIR}{file}")).unwrap();
        let dir = std::env::temp_dir().join(format!(
            "lzflow-zip-stream-extract-{}-{}",
            std::process::id(),
            file.replace('/', "-")
        ));
        let _ = std::fs::remove_dir_all(&dir);
        let mut z = lzflow::zip::AsyncZipStreamReader::new(Trickle::new(bytes.clone(), 999));
        z.extract_to_with(&dir, &lzflow::zip::ExtractOptions::default())
            .await
            .unwrap();
        let mut a = ZipArchive::open(Cursor::new(&bytes[..])).unwrap();
        for i in 0..a.len() {
            let e = a.directory().get(i).unwrap();
            let (name, is_dir) = (e.name().into_owned(), e.is_dir());
            let path = dir.join(&name);
            if is_dir {
                assert!(path.is_dir(), "{file} {name}");
                continue;
            }
            let mut want = Vec::new();
            a.reader(i).unwrap().read_to_end(&mut want).unwrap();
            assert_eq!(std::fs::read(&path).unwrap(), want, "{file} {name}");
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }
}

/// Entries for the async writer tests: text past what the writer holds
/// in memory, and a small one.
fn writer_entries() -> Vec<(String, Vec<u8>)> {
    let big: Vec<u8> = (0..300_000u32)
        .flat_map(|i| format!("line {i}\n").into_bytes())
        .take(300_000)
        .collect();
    vec![
        ("big.txt".into(), big),
        ("small.txt".into(), b"small".to_vec()),
    ]
}

fn read_back(zip: &[u8]) -> Vec<(String, Vec<u8>)> {
    let mut a = ZipArchive::open(Cursor::new(zip)).unwrap();
    (0..a.len())
        .map(|i| {
            let name = a.directory().get(i).unwrap().name().into_owned();
            let mut d = Vec::new();
            a.reader(i).unwrap().read_to_end(&mut d).unwrap();
            (name, d)
        })
        .collect()
}

#[tokio::test]
async fn tokio_writer_writes_what_std_reads_seekable_or_not() {
    use lzflow::zip::{AsyncZipWriter, EntryOptions};
    use tokio::io::AsyncWriteExt;
    let want = writer_entries();
    // Seekable: a cursor; the first entry pushed through AsyncWrite.
    let mut w = AsyncZipWriter::new(std::io::Cursor::new(Vec::new())).unwrap();
    w.start_entry(&want[0].0, &EntryOptions::default())
        .await
        .unwrap();
    w.write_all(&want[0].1).await.unwrap();
    w.add_file(&want[1].0, &want[1].1[..], &EntryOptions::default())
        .await
        .unwrap();
    w.finish().await.unwrap();
    let seekable = w.into_inner().into_inner();
    assert_eq!(read_back(&seekable), want);
    // Streaming: through a pipe to a reader task.
    let (client, mut server) = tokio::io::duplex(4096);
    let reader = tokio::spawn(async move {
        use tokio::io::AsyncReadExt;
        let mut all = Vec::new();
        server.read_to_end(&mut all).await.unwrap();
        all
    });
    let mut w = AsyncZipWriter::new_streaming(client).unwrap();
    for (name, data) in &want {
        w.add_file(name, &data[..], &EntryOptions::default())
            .await
            .unwrap();
    }
    w.finish().await.unwrap();
    drop(w);
    let streamed = reader.await.unwrap();
    assert_eq!(read_back(&streamed), want);
}

/// `finish` polled once and dropped, again and again: the archive is the
/// one an uninterrupted `finish` writes.
#[test]
fn a_cancelled_finish_goes_on_and_writes_the_same_archive() {
    use lzflow::zip::{AsyncZipWriter, EntryOptions};
    use std::future::Future;
    let want = writer_entries();
    let make = |cancel: bool| {
        futures::executor::block_on(async {
            let mut w = AsyncZipWriter::new_streaming(Hesitating::default()).unwrap();
            for (name, data) in &want {
                w.add_file(name, &data[..], &EntryOptions::default())
                    .await
                    .unwrap();
            }
            if cancel {
                let waker = std::task::Waker::noop();
                let mut cx = Context::from_waker(waker);
                let mut dropped = 0;
                loop {
                    let mut fut = std::pin::pin!(w.finish());
                    if let Poll::Ready(r) = fut.as_mut().poll(&mut cx) {
                        r.unwrap();
                        break;
                    }
                    dropped += 1;
                }
                assert!(dropped > 0);
            } else {
                w.finish().await.unwrap();
            }
            w.into_inner().0
        })
    };
    let whole = make(false);
    assert_eq!(make(true), whole);
    assert_eq!(read_back(&whole), want);
}

/// A tokio writer that cannot seek and is pending before every write.
#[derive(Default)]
struct Hesitating(Vec<u8>, bool);

impl tokio::io::AsyncWrite for Hesitating {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<std::io::Result<usize>> {
        self.1 = !self.1;
        if self.1 {
            cx.waker().wake_by_ref();
            return Poll::Pending;
        }
        let n = buf.len().min(1000);
        self.0.extend_from_slice(&buf[..n]);
        Poll::Ready(Ok(n))
    }
    fn poll_flush(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Poll::Ready(Ok(()))
    }
    fn poll_shutdown(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Poll::Ready(Ok(()))
    }
}

#[tokio::test]
async fn a_body_stream_carries_the_archive_and_an_abandoned_one_fails() {
    use futures::StreamExt;
    use lzflow::zip::{body_stream, EntryOptions, ZipWriterOptions};
    let want = writer_entries();
    let (mut w, mut body) = body_stream(ZipWriterOptions::new(), 64 << 10).unwrap();
    let entries = want.clone();
    let writer = tokio::spawn(async move {
        for (name, data) in &entries {
            w.add_file_from(
                name,
                lzflow::tokio::source::TokioSource::new(&data[..]),
                &EntryOptions::default(),
            )
            .await
            .unwrap();
        }
        w.finish().await.unwrap();
    });
    let mut zip = Vec::new();
    while let Some(chunk) = body.next().await {
        zip.extend_from_slice(&chunk.unwrap());
    }
    writer.await.unwrap();
    assert_eq!(read_back(&zip), want);

    // Dropped before finishing: the body ends with an error.
    let (mut w, mut body) = body_stream(ZipWriterOptions::new(), 64 << 10).unwrap();
    w.add_file_from(
        "a",
        lzflow::tokio::source::TokioSource::new(&want[0].1[..]),
        &EntryOptions::default(),
    )
    .await
    .unwrap();
    drop(w);
    let mut failed = false;
    while let Some(chunk) = body.next().await {
        failed |= chunk.is_err();
    }
    assert!(failed);
}

/// Text entries of 1 MiB, compressed whole on workers, and small ones.
fn threaded_entries() -> Vec<(String, Vec<u8>)> {
    (0..4u32)
        .map(|k| {
            let data: Vec<u8> = (0..200_000u32)
                .flat_map(|i| format!("{k} line {} of {i}\n", i % 977).into_bytes())
                .take(1 << 20)
                .collect();
            (format!("t{k}.txt"), data)
        })
        .chain([("s.txt".to_string(), b"small".to_vec())])
        .collect()
}

/// On two threads, the tokio writer hands entries to its workers: polls
/// of `finish` find them busy and return `Pending` instead of compressing
/// or waiting on the runtime's thread (no poll takes more than a small
/// part of the whole finish, where one compressing an entry would take
/// most of it); the archive is the one thread's, byte for byte.
///
/// The polls run outside the runtime, so that tokio's cooperative budget
/// (which only a return to the runtime renews) does not answer them.
#[test]
fn tokio_writer_on_threads_never_waits_in_a_poll_and_writes_the_same_bytes() {
    use lzflow::zip::{AsyncZipWriter, EntryOptions, WriteMethod, ZipWriter, ZipWriterOptions};
    use std::future::Future;
    let want = threaded_entries();
    let opts = EntryOptions::default().with_method(WriteMethod::Xz, 6);
    let mut one = ZipWriter::new(Cursor::new(Vec::new())).unwrap();
    for (name, data) in &want {
        one.add_file(name, &data[..], &opts).unwrap();
    }
    let one = one.finish().unwrap().into_inner();
    let options = ZipWriterOptions::new().with_threads(2);
    let mut w = AsyncZipWriter::new_with(Cursor::new(Vec::new()), options).unwrap();
    let rt = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    rt.block_on(async {
        for (name, data) in &want {
            w.add_file(name, &data[..], &opts).await.unwrap();
        }
    });
    let mut cx = Context::from_waker(std::task::Waker::noop());
    let start = std::time::Instant::now();
    let (mut polls, mut longest) = (0, std::time::Duration::ZERO);
    {
        let mut fut = std::pin::pin!(w.finish());
        loop {
            let t = std::time::Instant::now();
            let r = fut.as_mut().poll(&mut cx);
            longest = longest.max(t.elapsed());
            polls += 1;
            if let Poll::Ready(r) = r {
                r.unwrap();
                break;
            }
            assert!(start.elapsed().as_secs() < 300, "finish never ended");
            std::thread::sleep(std::time::Duration::from_millis(1));
        }
    }
    let total = start.elapsed();
    assert!(polls > 1, "finish did not wait for the workers");
    assert!(
        longest * 4 < total,
        "a poll took {longest:?} of a {total:?} finish: it compressed or waited"
    );
    let many = w.into_inner().into_inner();
    assert!(many == one, "other bytes on two threads");
    assert_eq!(read_back(&many), want);
}

/// A reader that gives `len` bytes, then is pending for ever.
struct Stalling(usize);

impl tokio::io::AsyncRead for Stalling {
    fn poll_read(
        mut self: Pin<&mut Self>,
        _: &mut Context<'_>,
        buf: &mut tokio::io::ReadBuf<'_>,
    ) -> Poll<std::io::Result<()>> {
        if self.0 == 0 {
            return Poll::Pending;
        }
        let n = self.0.min(buf.remaining());
        buf.put_slice(&vec![b'x'; n]);
        self.0 -= n;
        Poll::Ready(Ok(()))
    }
}

/// `finish` raced in `select!` against a yield, again and again, writes
/// the archive an uninterrupted one writes; an `add_file` cancelled while
/// its entry is held in memory leaves the archive without it, one
/// cancelled after its entry reached the sink fails the writer, and no
/// end record is ever written after it.
#[tokio::test]
async fn select_cancelled_adds_and_finishes() {
    use lzflow::zip::{AsyncZipWriter, EntryOptions, ZipError};
    use std::time::Duration;
    let want = writer_entries();
    let write = |race: bool| {
        let want = &want;
        async move {
            let mut w = AsyncZipWriter::new_streaming(Hesitating::default()).unwrap();
            let opts = EntryOptions::default();
            let stuck = tokio::select! {
                r = w.add_file("stuck", Stalling(1000), &opts) => Some(r),
                () = tokio::time::sleep(Duration::from_millis(5)) => None,
            };
            assert!(stuck.is_none());
            for (name, data) in want {
                w.add_file(name, &data[..], &EntryOptions::default())
                    .await
                    .unwrap();
            }
            let mut raced = 0;
            loop {
                if !race {
                    w.finish().await.unwrap();
                    break;
                }
                tokio::select! {
                    r = w.finish() => { r.unwrap(); break; }
                    () = tokio::task::yield_now() => raced += 1,
                }
            }
            assert!(!race || raced > 0);
            w.into_inner().0
        }
    };
    let whole = write(false).await;
    assert_eq!(write(true).await, whole);
    assert_eq!(read_back(&whole), want);
    // Cancelled once 200,000 bytes went out as a streamed entry.
    let mut w = AsyncZipWriter::new_streaming(Vec::new()).unwrap();
    let opts = EntryOptions::default();
    let r = tokio::select! {
        r = w.add_file("big", Stalling(200_000), &opts) => Some(r),
        () = tokio::time::sleep(Duration::from_millis(50)) => None,
    };
    assert!(r.is_none());
    let r = w.finish().await;
    assert!(matches!(r, Err(ZipError::Usage(_))), "{r:?}");
    let out = w.into_inner();
    assert!(!out.windows(4).any(|s| s == b"PK\x05\x06"));
}

/// The tokio writer's `add_path` writes the bytes the std one does: the
/// same walk, times, modes and links.
#[tokio::test]
async fn tokio_add_path_writes_what_std_add_path_writes() {
    use lzflow::zip::{AsyncZipWriter, EntryOptions, ZipWriter};
    let dir = std::env::temp_dir().join(format!("lzflow-zip-add-path-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("tree/sub/deeper")).unwrap();
    std::fs::write(dir.join("tree/b.txt"), b"bee ".repeat(30_000)).unwrap();
    std::fs::write(dir.join("tree/a.txt"), b"a").unwrap();
    std::fs::write(dir.join("tree/sub/deeper/c"), b"").unwrap();
    #[cfg(unix)]
    std::os::unix::fs::symlink("../a.txt", dir.join("tree/sub/link")).unwrap();
    let opts = EntryOptions::default();
    let mut w = ZipWriter::new(Cursor::new(Vec::new())).unwrap();
    w.add_path("top", dir.join("tree"), &opts).unwrap();
    let sync = w.finish().unwrap().into_inner();
    let mut w = AsyncZipWriter::new(Cursor::new(Vec::new())).unwrap();
    w.add_path("top", dir.join("tree"), &opts).await.unwrap();
    w.finish().await.unwrap();
    let tokio = w.into_inner().into_inner();
    assert!(tokio == sync, "other bytes");
    let names: Vec<String> = read_back(&sync).into_iter().map(|(n, _)| n).collect();
    let mut want = vec![
        "top/",
        "top/a.txt",
        "top/b.txt",
        "top/sub/",
        "top/sub/deeper/",
        "top/sub/deeper/c",
    ];
    if cfg!(unix) {
        want.push("top/sub/link");
    }
    assert_eq!(names, want);
    std::fs::remove_dir_all(&dir).unwrap();
}
