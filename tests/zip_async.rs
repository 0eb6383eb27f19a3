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
