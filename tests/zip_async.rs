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
