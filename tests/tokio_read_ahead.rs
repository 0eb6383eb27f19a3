//! `lzflow::tokio::fs::ReadAheadFile`: every byte in order whatever the
//! buffer size, read sizes and dropped futures; errors as typed I/O errors
//! (a failed read, a missing file, no runtime), never a panic.
#![cfg(feature = "tokio-fs")]

mod faces_support;

use std::io::{self, Seek, Write};
use std::path::PathBuf;

use faces_support::*;
use futures::FutureExt;
use lzflow::tokio::fs::ReadAheadFile;
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncSeekExt};

/// A file of `len` seeded bytes under the temporary directory, removed on
/// drop.
struct TempFile(PathBuf);

impl TempFile {
    fn new(tag: &str, data: &[u8]) -> Self {
        let path = std::env::temp_dir().join(format!(
            "lzflow-read-ahead-{}-{tag}.bin",
            std::process::id()
        ));
        std::fs::File::create(&path)
            .and_then(|mut f| f.write_all(data))
            .unwrap();
        TempFile(path)
    }
}

impl Drop for TempFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

fn seeded(len: usize, seed: u64) -> Vec<u8> {
    let mut x = seed | 1;
    (0..len)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x as u8
        })
        .collect()
}

async fn read_in(mut r: ReadAheadFile, chunk: usize) -> io::Result<Vec<u8>> {
    let mut out = Vec::new();
    let mut buf = vec![0u8; chunk];
    loop {
        match r.read(&mut buf).await? {
            0 => return Ok(out),
            n => out.extend_from_slice(&buf[..n]),
        }
    }
}

/// A FIFO under the temporary directory, opened at both ends (its name
/// already removed): a read of the read end blocks until the write end
/// writes or closes.
#[cfg(target_os = "linux")]
fn fifo(tag: usize) -> (std::fs::File, std::fs::File) {
    let path = std::env::temp_dir().join(format!(
        "lzflow-read-ahead-{}-fifo-{tag}",
        std::process::id()
    ));
    let _ = std::fs::remove_file(&path);
    let made = std::process::Command::new("mkfifo").arg(&path).status();
    assert!(made.unwrap().success(), "mkfifo");
    // Opening either end blocks until the other is opened.
    let write_end = std::thread::spawn({
        let path = path.clone();
        move || std::fs::OpenOptions::new().write(true).open(path).unwrap()
    });
    let read_end = std::fs::File::open(&path).unwrap();
    let write_end = write_end.join().unwrap();
    std::fs::remove_file(&path).unwrap();
    (read_end, write_end)
}

#[tokio::test]
async fn every_byte_in_order_for_any_buffer_and_read_size() {
    let data = seeded(300_007, 1);
    let file = TempFile::new("sizes", &data);
    for capacity in [4096, 65_536, 300_007, 1 << 20] {
        for chunk in [1, 1000, 65_536] {
            let r = ReadAheadFile::open_with_capacity(capacity, &file.0)
                .await
                .unwrap();
            assert_eq!(r.capacity(), capacity);
            let got = read_in(r, chunk).await.unwrap();
            assert!(got == data, "capacity {capacity}, reads of {chunk}");
        }
    }
    // One-byte buffers: a hop per byte, on a file small enough for that.
    let small = &data[..300];
    let file = TempFile::new("tiny", small);
    let r = ReadAheadFile::with_capacity(1, std::fs::File::open(&file.0).unwrap());
    assert_eq!(read_in(r, 7).await.unwrap(), small);
}

#[tokio::test]
async fn empty_file_reads_as_empty_and_stays_at_its_end() {
    let file = TempFile::new("empty", b"");
    let mut r = ReadAheadFile::open(&file.0).await.unwrap();
    assert_eq!(r.fill_buf().await.unwrap(), b"");
    assert_eq!(r.fill_buf().await.unwrap(), b"");
    let mut buf = [0u8; 8];
    assert_eq!(r.read(&mut buf).await.unwrap(), 0);
}

#[tokio::test]
async fn starts_at_the_position_of_the_file_it_is_given() {
    let data = seeded(10_000, 2);
    let file = TempFile::new("position", &data);
    let mut tokio_file = tokio::fs::File::open(&file.0).await.unwrap();
    tokio_file.seek(io::SeekFrom::Start(1234)).await.unwrap();
    let r = ReadAheadFile::new(tokio_file).await;
    assert_eq!(read_in(r, 4096).await.unwrap(), &data[1234..]);

    let mut std_file = std::fs::File::open(&file.0).unwrap();
    std_file.seek(io::SeekFrom::Start(9999)).unwrap();
    let r = ReadAheadFile::from_std(std_file);
    assert_eq!(read_in(r, 4096).await.unwrap(), &data[9999..]);
}

#[tokio::test]
async fn xz_fixtures_decode_through_it_like_the_reference() {
    for fx in fixtures("xz").into_iter().filter(|f| f.ok) {
        for capacity in [4096, 1 << 20] {
            let r = ReadAheadFile::open_with_capacity(capacity, &fx.path)
                .await
                .unwrap();
            let mut out = Vec::new();
            lzflow::tokio::bufread::XzDecoder::new(r)
                .read_to_end(&mut out)
                .await
                .unwrap();
            assert_content(&fx, &out, &format!("ReadAheadFile of {capacity}"));
        }
    }
}

#[cfg(target_os = "linux")]
#[tokio::test]
async fn dropped_read_futures_lose_nothing() {
    let data = seeded(200_000, 3);
    // The bytes come through a FIFO in pieces with pauses between, so
    // reads are sure to find the fill waiting, however fast the pool is.
    let (read_end, mut write_end) = fifo(0);
    let writer = std::thread::spawn({
        let data = data.clone();
        move || {
            for piece in data.chunks(29_000) {
                write_end.write_all(piece).unwrap();
                std::thread::sleep(std::time::Duration::from_millis(2));
            }
        }
    });
    let mut r = ReadAheadFile::with_capacity(8192, read_end);
    let (mut got, mut buf, mut dropped) = (Vec::new(), [0u8; 3000], 0);
    loop {
        // One poll each: a read waiting for the blocking pool is dropped.
        match r.read(&mut buf).now_or_never() {
            Some(Ok(0)) => break,
            Some(Ok(n)) => got.extend_from_slice(&buf[..n]),
            Some(Err(e)) => panic!("{e}"),
            None => {
                dropped += 1;
                tokio::task::yield_now().await;
            }
        }
    }
    writer.join().unwrap();
    assert!(got == data);
    assert!(dropped > 0, "no read was pending: the test tested nothing");
}

#[tokio::test]
async fn a_missing_file_is_not_found() {
    let path = std::env::temp_dir().join("lzflow-read-ahead-no-such-file.bin");
    let e = ReadAheadFile::open(&path).await.unwrap_err();
    assert_eq!(e.kind(), io::ErrorKind::NotFound);
}

#[tokio::test]
async fn a_failing_read_is_an_error_on_every_later_poll() {
    // Reading a directory fails with EISDIR on Linux.
    let dir = std::fs::File::open(std::env::temp_dir()).unwrap();
    let mut r = ReadAheadFile::from_std(dir);
    let e = r.fill_buf().await.unwrap_err();
    assert_eq!(e.kind(), io::ErrorKind::IsADirectory);
    assert_eq!(e.raw_os_error(), Some(21), "the OS error is kept");
    let again = r.fill_buf().await.unwrap_err();
    assert_eq!(again.kind(), io::ErrorKind::IsADirectory);
}

#[test]
fn outside_a_runtime_reads_fail_then_work_inside_one() {
    let data = seeded(5000, 4);
    let file = TempFile::new("no-runtime", &data);
    let mut r = ReadAheadFile::with_capacity(1024, std::fs::File::open(&file.0).unwrap());
    let mut buf = [0u8; 100];
    let e = futures::executor::block_on(r.read(&mut buf)).unwrap_err();
    assert_eq!(e.kind(), io::ErrorKind::Other);
    assert!(e.to_string().contains("outside a tokio runtime"), "{e}");
    let rt = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    assert_eq!(rt.block_on(read_in(r, 777)).unwrap(), data);
    // Opening needs the runtime too.
    let e = futures::executor::block_on(ReadAheadFile::open(&file.0)).unwrap_err();
    assert!(e.to_string().contains("outside a tokio runtime"), "{e}");
}

#[tokio::test]
async fn a_file_of_whole_buffers_ends_after_an_empty_fill() {
    // The last fill is full, so one more (empty) fill is needed to see the
    // end; the bytes before it and the end itself must both come through.
    let data = seeded(3 * 4096, 5);
    let file = TempFile::new("whole-buffers", &data);
    let mut r = ReadAheadFile::open_with_capacity(4096, &file.0)
        .await
        .unwrap();
    let mut got = Vec::new();
    loop {
        let n = {
            let buf = r.fill_buf().await.unwrap();
            got.extend_from_slice(buf);
            buf.len()
        };
        if n == 0 {
            break;
        }
        assert_eq!(n, 4096, "a fill hands out one whole buffer");
        std::pin::Pin::new(&mut r).consume(n);
    }
    assert!(got == data);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn works_on_a_multi_thread_runtime_across_tasks() {
    let data = seeded(1 << 20, 6);
    let file = TempFile::new("multi-thread", &data);
    let r = ReadAheadFile::open_with_capacity(64 << 10, &file.0)
        .await
        .unwrap();
    // Read in another task, which may run on either worker.
    let got = tokio::spawn(read_in(r, 10_000)).await.unwrap().unwrap();
    assert!(got == data);
}

#[cfg(target_os = "linux")]
#[test]
fn waiting_on_a_fill_keeps_the_task_awake_for_spin_wait_only() {
    use lzflow::tokio::fs::SPIN_WAIT;
    use std::sync::{atomic::Ordering, Arc};
    use std::task::{Context, Poll};
    use std::time::{Duration, Instant};
    use tokio::io::AsyncBufRead;

    // Made first, so that it drops last, after the write ends: a failed
    // assertion must not leave the runtime waiting on a fill forever.
    let rt = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    let _in_runtime = rt.enter();
    let counter = Arc::new(CountingWaker(0.into()));
    let waker = std::task::Waker::from(counter.clone());
    let mut cx = Context::from_waker(&waker);
    let wakes = || counter.0.load(Ordering::SeqCst);

    // Young fill: pending, and the task is asked to be polled again at
    // once. Only a poll seen to come within SPIN_WAIT of the fill's start
    // counts; a test thread descheduled for longer tries again.
    let (mut r, mut writer) = (1..=50)
        .find_map(|attempt| {
            let (read_end, writer) = fifo(attempt);
            counter.0.store(0, Ordering::SeqCst);
            let t0 = Instant::now();
            let mut r = ReadAheadFile::with_capacity(4, read_end);
            assert!(std::pin::Pin::new(&mut r)
                .poll_fill_buf(&mut cx)
                .is_pending());
            if t0.elapsed() >= SPIN_WAIT {
                // Dropping the write end ends the fill.
                return None;
            }
            assert_eq!(wakes(), 1, "a pending poll of a young fill wakes itself");
            Some((r, writer))
        })
        .expect("a poll within SPIN_WAIT of the fill's start in 50 attempts");

    // Old fill: pending, and the task sleeps until the fill ends.
    std::thread::sleep(SPIN_WAIT * 2);
    assert!(std::pin::Pin::new(&mut r)
        .poll_fill_buf(&mut cx)
        .is_pending());
    assert_eq!(wakes(), 1, "past SPIN_WAIT a pending poll does not wake");

    writer.write_all(b"lzma").unwrap();
    let deadline = Instant::now() + Duration::from_secs(10);
    while wakes() < 2 {
        assert!(Instant::now() < deadline, "the fill's end woke the task");
        std::thread::yield_now();
    }
    match std::pin::Pin::new(&mut r).poll_fill_buf(&mut cx) {
        Poll::Ready(Ok(buf)) => assert_eq!(buf, b"lzma"),
        other => panic!("expected the written bytes, got {other:?}"),
    }
    // The next fill ends with the write end, so the runtime can shut down.
    drop(writer);
}
