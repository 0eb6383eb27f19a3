//! The async faces against the blocking reader: same entries, same bytes,
//! same errors, whatever the runtime and however the input arrives.

use std::io::{self, Read, SeekFrom};
use std::path::PathBuf;
use std::pin::Pin;
use std::task::{Context, Poll};

use ::tokio::io::{AsyncRead, AsyncReadExt, AsyncSeek, ReadBuf};

use super::{Archive, ArchiveOptions, AsyncArchive, SevenZError, SpoolOptions};

fn fixture(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures/generated/7z")
        .join(name)
}

fn options(pw: Option<&str>) -> ArchiveOptions {
    match pw {
        Some(p) => ArchiveOptions::default().with_password(p),
        None => ArchiveOptions::default(),
    }
}

type Contents = Vec<(String, Vec<u8>)>;

/// A source that returns `Pending` before every read and hands out at most
/// 7 bytes at a time, to show that the output does not depend on how the
/// input arrives.
struct Trickle {
    data: std::io::Cursor<Vec<u8>>,
    flip: bool,
}

impl Trickle {
    fn new(name: &str) -> Self {
        Trickle {
            data: std::io::Cursor::new(std::fs::read(fixture(name)).unwrap()),
            flip: false,
        }
    }

    fn step(&mut self, cx: &mut Context<'_>, buf: &mut [u8]) -> Poll<io::Result<usize>> {
        self.flip = !self.flip;
        if self.flip {
            cx.waker().wake_by_ref();
            return Poll::Pending;
        }
        let n = buf.len().min(7);
        Poll::Ready(Read::read(&mut self.data, &mut buf[..n]))
    }
}

impl AsyncRead for Trickle {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let mut tmp = [0u8; 7];
        let n = std::task::ready!(self.step(cx, &mut tmp))?;
        buf.put_slice(&tmp[..n.min(buf.remaining())]);
        Poll::Ready(Ok(()))
    }
}

impl AsyncSeek for Trickle {
    fn start_seek(mut self: Pin<&mut Self>, pos: SeekFrom) -> io::Result<()> {
        std::io::Seek::seek(&mut self.data, pos).map(drop)
    }
    fn poll_complete(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<io::Result<u64>> {
        Poll::Ready(Ok(self.data.position()))
    }
}

impl futures_io::AsyncRead for Trickle {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut [u8],
    ) -> Poll<io::Result<usize>> {
        self.get_mut().step(cx, buf)
    }
}

impl futures_io::AsyncSeek for Trickle {
    fn poll_seek(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        pos: SeekFrom,
    ) -> Poll<io::Result<u64>> {
        // Pending once before every seek too.
        self.flip = !self.flip;
        if self.flip {
            cx.waker().wake_by_ref();
            return Poll::Pending;
        }
        Poll::Ready(std::io::Seek::seek(&mut self.data, pos))
    }
}

/// A tokio source that reads the way a tokio `File` does: a read first
/// goes "in flight" (`Pending`) and completes on a later poll, and
/// `start_seek` is refused while one is in flight; `poll_complete` waits
/// for it.
struct Background {
    data: std::io::Cursor<Vec<u8>>,
    busy: bool,
}

impl AsyncRead for Background {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        if !self.busy {
            self.busy = true;
            cx.waker().wake_by_ref();
            return Poll::Pending;
        }
        self.busy = false;
        let n = Read::read(&mut self.data, buf.initialize_unfilled())?;
        buf.advance(n);
        Poll::Ready(Ok(()))
    }
}

impl AsyncSeek for Background {
    fn start_seek(mut self: Pin<&mut Self>, pos: SeekFrom) -> io::Result<()> {
        if self.busy {
            return Err(io::Error::other("other file operation is pending"));
        }
        std::io::Seek::seek(&mut self.data, pos).map(drop)
    }
    fn poll_complete(mut self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<io::Result<u64>> {
        // The read in flight ends; its bytes are dropped.
        self.busy = false;
        Poll::Ready(Ok(self.data.position()))
    }
}

/// A read whose future is dropped while it is in flight, then a seek to
/// another entry: the seek waits for the read instead of failing.
#[::tokio::test]
async fn a_seek_waits_for_a_read_left_in_flight() {
    let bytes = std::fs::read(fixture("nonsolid.7z")).unwrap();
    let want = sync_contents("nonsolid.7z", None);
    let src = Background {
        data: std::io::Cursor::new(bytes),
        busy: false,
    };
    let mut a = AsyncArchive::open(src).await.unwrap();
    let want: Vec<Vec<u8>> = want.into_iter().map(|(_, d)| d).collect();
    // Every dropped read was in flight.
    let abandoned = drop_a_read_then_read_the_next(&mut a, &want, want.len()).await;
    assert_eq!(abandoned, want.len());
}

/// For `rounds` entries in turn: polls a read of entry `i` once and drops
/// it, then reads entry `i + 1` whole (a seek away) and checks it against
/// `want`. Gives how many of the dropped reads were still pending.
async fn drop_a_read_then_read_the_next<R: AsyncRead + AsyncSeek + Unpin>(
    a: &mut AsyncArchive<R>,
    want: &[Vec<u8>],
    rounds: usize,
) -> usize {
    let mut abandoned = 0;
    for i in (0..rounds).map(|k| k % want.len()) {
        {
            let mut r = a.reader(i).await.unwrap();
            let mut buf = [0u8; 4096];
            let waker = ::futures::task::noop_waker();
            let mut cx = Context::from_waker(&waker);
            let mut rb = ReadBuf::new(&mut buf);
            if Pin::new(&mut r).poll_read(&mut cx, &mut rb).is_pending() {
                abandoned += 1;
            }
        }
        let next = (i + 1) % want.len();
        let mut d = Vec::new();
        a.reader(next)
            .await
            .unwrap()
            .read_to_end(&mut d)
            .await
            .unwrap();
        assert!(d == want[next], "entry {next}");
    }
    abandoned
}

/// A tokio source that cannot seek.
struct Pipe(std::io::Cursor<Vec<u8>>);

impl AsyncRead for Pipe {
    fn poll_read(
        mut self: Pin<&mut Self>,
        _: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let n = Read::read(&mut self.0, buf.initialize_unfilled())?;
        buf.advance(n);
        Poll::Ready(Ok(()))
    }
}

fn sync_contents(name: &str, pw: Option<&str>) -> Contents {
    let f = std::fs::File::open(fixture(name)).unwrap();
    let mut a = Archive::open_with(f, options(pw)).unwrap();
    let mut out = Vec::new();
    a.for_each_entry(|e, r| {
        let mut d = Vec::new();
        r.read_to_end(&mut d)?;
        out.push((e.name.clone(), d));
        Ok(())
    })
    .unwrap();
    out
}

async fn tokio_contents<R: AsyncRead + AsyncSeek + Unpin>(
    src: R,
    pw: Option<&str>,
) -> Result<Contents, SevenZError> {
    let mut a = AsyncArchive::open_with(src, options(pw)).await?;
    let mut entries = a.entries_stream();
    let mut out = Vec::new();
    while let Some(e) = entries.next_entry().await? {
        let mut d = Vec::new();
        entries.read_to_end(&mut d).await?;
        out.push((e.name, d));
    }
    Ok(out)
}

async fn futures_contents<R: futures_io::AsyncRead + futures_io::AsyncSeek + Unpin>(
    src: R,
    pw: Option<&str>,
) -> Result<Contents, SevenZError> {
    use ::futures::AsyncReadExt as _;
    let mut a = super::futures::AsyncArchive::open_with(src, options(pw)).await?;
    let mut entries = a.entries_stream();
    let mut out = Vec::new();
    while let Some(e) = entries.next_entry().await? {
        let mut d = Vec::new();
        entries.read_to_end(&mut d).await?;
        out.push((e.name, d));
    }
    Ok(out)
}

const FIXTURES: &[(&str, Option<&str>)] = &[
    ("lzma2.7z", None),
    ("solid-3f.7z", None),
    ("bcj-lzma-elf.7z", None),
    ("bzip2.7z", None),
    ("aes-header.7z", Some("fixture-pass")),
    ("empty-file.7z", None),
];

#[::tokio::test]
async fn tokio_matches_sync_on_fixtures() {
    for &(name, pw) in FIXTURES {
        let want = sync_contents(name, pw);
        let file = ::tokio::fs::File::open(fixture(name)).await.unwrap();
        assert_eq!(tokio_contents(file, pw).await.unwrap(), want, "{name}");
    }
}

#[test]
fn futures_io_matches_sync_on_fixtures() {
    for &(name, pw) in FIXTURES {
        let want = sync_contents(name, pw);
        let file = ::futures::io::AllowStdIo::new(std::fs::File::open(fixture(name)).unwrap());
        let got = ::futures::executor::block_on(futures_contents(file, pw)).unwrap();
        assert_eq!(got, want, "{name}");
    }
}

#[::tokio::test]
async fn trickled_input_gives_the_same_output() {
    for (name, pw) in [("nonsolid.7z", None), ("aes.7z", Some("fixture-pass"))] {
        let want = sync_contents(name, pw);
        let got = tokio_contents(Trickle::new(name), pw).await.unwrap();
        assert_eq!(got, want, "tokio {name}");
        let got = ::futures::executor::block_on(futures_contents(Trickle::new(name), pw));
        assert_eq!(got.unwrap(), want, "futures-io {name}");
    }
}

#[::tokio::test]
async fn random_access_and_errors() {
    let file = ::tokio::fs::File::open(fixture("solid.7z")).await.unwrap();
    let mut a = AsyncArchive::open(file).await.unwrap();
    let last = a.entries().len() - 1;
    let want = sync_contents("solid.7z", None);
    let mut d = Vec::new();
    a.reader(last)
        .await
        .unwrap()
        .read_to_end(&mut d)
        .await
        .unwrap();
    assert_eq!(d, want[last].1);

    let file = ::tokio::fs::File::open(fixture("aes.7z")).await.unwrap();
    let r = tokio_contents(file, Some("wrong-pass")).await;
    assert!(matches!(r, Err(SevenZError::WrongPassword)), "{r:?}");
    let file = ::tokio::fs::File::open(fixture("aes-header.7z"))
        .await
        .unwrap();
    let r = AsyncArchive::open(file).await;
    assert!(matches!(r, Err(SevenZError::PasswordRequired)), "{r:?}");
    let file = ::tokio::fs::File::open(fixture("bad-truncated.7z"))
        .await
        .unwrap();
    let r = AsyncArchive::open(file).await;
    assert!(matches!(r, Err(SevenZError::Truncated)), "{r:?}");

    // The same through futures-io.
    let open =
        |name: &str| ::futures::io::AllowStdIo::new(std::fs::File::open(fixture(name)).unwrap());
    let r = ::futures::executor::block_on(futures_contents(open("aes.7z"), Some("wrong-pass")));
    assert!(matches!(r, Err(SevenZError::WrongPassword)), "{r:?}");
    let r =
        ::futures::executor::block_on(super::futures::AsyncArchive::open(open("bad-truncated.7z")));
    assert!(matches!(r, Err(SevenZError::Truncated)), "{r:?}");
    let mut fa =
        ::futures::executor::block_on(super::futures::AsyncArchive::open(open("solid.7z")))
            .unwrap();
    let mut d = Vec::new();
    ::futures::executor::block_on(async {
        use ::futures::AsyncReadExt as _;
        fa.reader(last).await?.read_to_end(&mut d).await?;
        Ok::<_, SevenZError>(())
    })
    .unwrap();
    assert_eq!(d, want[last].1);
}

#[::tokio::test]
async fn spooled_async_sources_in_memory_and_in_a_temp_file() {
    let name = "aes.7z";
    let want = sync_contents(name, Some("fixture-pass"));
    let bytes = std::fs::read(fixture(name)).unwrap();
    let dir = std::env::temp_dir();
    for limit in [usize::MAX, 1000] {
        let spool = SpoolOptions::default()
            .with_memory_limit(limit)
            .with_temp_dir(&dir);
        let mut a = AsyncArchive::open_spooled_with(
            Pipe(std::io::Cursor::new(bytes.clone())),
            spool.clone(),
            options(Some("fixture-pass")),
        )
        .await
        .unwrap();
        let mut got = Vec::new();
        let mut entries = a.entries_stream();
        while let Some(e) = entries.next_entry().await.unwrap() {
            let mut d = Vec::new();
            entries.read_to_end(&mut d).await.unwrap();
            got.push((e.name, d));
        }
        assert_eq!(got, want, "limit {limit}");
        assert_eq!(a.into_inner().is_in_memory(), limit == usize::MAX);

        // futures-io: a reader without AsyncSeek.
        let src = ::futures::io::Cursor::new(bytes.clone());
        let fa = ::futures::executor::block_on(super::futures::AsyncArchive::open_spooled(
            src,
            spool.clone(),
        ))
        .unwrap();
        assert_eq!(fa.entries().len(), want.len());
        assert_eq!(fa.into_inner().is_in_memory(), limit == usize::MAX);
    }
}

/// A tokio `File` read whose future is dropped while the read is still in
/// flight on the blocking pool: the next entry's seek waits for it instead
/// of failing with "other file operation is pending" (whether the read is
/// still in flight then is a race, so each run tries until one was).
#[::tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_dropped_file_read_does_not_break_the_next_seek() {
    // Stored entries larger than any read buffer, so that each one's
    // reads go to the file.
    let entries: Vec<Vec<u8>> = (0..3u32)
        .map(|k| {
            (0..600_000u32)
                .map(|i| (i.wrapping_mul(2_654_435_761).wrapping_add(k) >> 13) as u8)
                .collect()
        })
        .collect();
    let opts = crate::sevenz_writer::WriterOptions::default()
        .with_level(0)
        .with_solid(crate::sevenz_writer::Solid::None);
    let mut w =
        crate::sevenz_writer::Writer::with_options(io::Cursor::new(Vec::new()), opts).unwrap();
    for (k, e) in entries.iter().enumerate() {
        w.add_file(&format!("e{k}"), &e[..], Default::default())
            .unwrap();
    }
    let path = std::env::temp_dir().join(format!("lzflow-7z-seek-{}.7z", std::process::id()));
    std::fs::write(&path, w.finish().unwrap().into_inner()).unwrap();

    let file = ::tokio::fs::File::open(&path).await.unwrap();
    let mut a = AsyncArchive::open(file).await.unwrap();
    // Usually most dropped reads are in flight; on a loaded machine the
    // blocking pool may finish each before the poll returns, so batches
    // repeat (each still checking every entry) until one was.
    let mut abandoned = 0;
    for _ in 0..50 {
        abandoned += drop_a_read_then_read_the_next(&mut a, &entries, 8 * entries.len()).await;
        if abandoned > 0 {
            break;
        }
    }
    let _ = std::fs::remove_file(&path);
    assert!(abandoned > 0, "no read was left in flight");
}
