//! The sans-I/O multi-threaded coders in non-blocking mode, driven by
//! hand: a call that would wait for a worker returns at once, their
//! `Readiness` is pending exactly then, a worker's wake-up arrives, and the
//! result is what the blocking coders produce.

use std::io::Write;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::task::{Context, Poll, Wake, Waker};
use std::time::{Duration, Instant};

use lzflow::{Decode, Encode, Progress};
use lzflow_core::{InBuf, OutBuf, Readiness};

/// Unparks the test thread and records that it was woken.
struct Unpark {
    thread: std::thread::Thread,
    woken: AtomicBool,
}

impl Wake for Unpark {
    fn wake(self: Arc<Self>) {
        self.woken.store(true, Ordering::SeqCst);
        self.thread.unpark();
    }
}

/// Waits (like an executor would) until `r` is ready; returns how many
/// times it was pending. Fails if a wake-up does not come.
fn wait_ready(r: &Readiness) -> u32 {
    let unpark = Arc::new(Unpark {
        thread: std::thread::current(),
        woken: AtomicBool::new(false),
    });
    let waker = Waker::from(Arc::clone(&unpark));
    let mut cx = Context::from_waker(&waker);
    let mut pending = 0;
    while r.poll_ready(&mut cx).is_pending() {
        pending += 1;
        let deadline = Instant::now() + Duration::from_secs(60);
        while !unpark.woken.swap(false, Ordering::SeqCst) {
            assert!(Instant::now() < deadline, "no wake-up from a worker");
            std::thread::park_timeout(Duration::from_millis(100));
        }
    }
    pending
}

fn data(len: usize) -> Vec<u8> {
    (0..len as u32)
        .map(|i| (i.wrapping_mul(2_654_435_761) >> 29) as u8 + b'a')
        .collect()
}

#[test]
fn decoder_stalls_instead_of_blocking_and_is_woken() {
    let plain = data(3 << 20);
    let mut enc = lzflow::write::XzEncoder::builder()
        .preset(0)
        .block_size(256 << 10)
        .build(Vec::new());
    enc.write_all(&plain).unwrap();
    let xz = enc.finish().unwrap();

    let mut dec = lzflow_xz::MtXzDecoder::new(lzflow_xz::MtXzDecoderOptions {
        threads: 2,
        ..Default::default()
    });
    dec.set_nonblocking(true);
    let readiness = dec.readiness().clone();
    let mut input = InBuf::last(&xz);
    let (mut out, mut buf) = (Vec::new(), vec![0u8; 64 << 10]);
    let (mut stalls, mut pendings) = (0, 0);
    loop {
        let before = input.pos();
        let mut o = OutBuf::new(&mut buf);
        let p = dec.decode(&mut input, &mut o).unwrap();
        out.extend_from_slice(o.written());
        if p == Progress::StreamEnd {
            break;
        }
        if o.pos() == 0 && input.pos() == before {
            // No progress: only because a worker is busy, and the handle
            // says so.
            assert_eq!(p, Progress::OutputFull);
            stalls += 1;
            pendings += wait_ready(&readiness);
        }
    }
    assert!(out == plain, "decoded bytes differ");
    assert!(
        stalls > 0 && pendings > 0,
        "never waited: {stalls} {pendings}"
    );
    // Not waiting any more.
    let mut cx = Context::from_waker(Waker::noop());
    assert_eq!(readiness.poll_ready(&mut cx), Poll::Ready(()));
}

#[test]
fn encoder_stalls_instead_of_blocking_and_writes_the_same_bytes() {
    let plain = data(2 << 20);
    let opts = lzflow_xz::MtXzEncoderOptions {
        base: lzflow_xz::XzEncoderOptions {
            lzma: lzflow::LzmaOptions::preset(0).unwrap(),
            block_size: Some(128 << 10),
            ..Default::default()
        },
        threads: 2,
    };
    let mut blocking = lzflow_xz::MtXzEncoder::new(opts.clone()).unwrap();
    let want = drive_encoder(&mut blocking, &plain, None);
    let mut enc = lzflow_xz::MtXzEncoder::new(opts).unwrap();
    enc.set_nonblocking(true);
    let readiness = enc.readiness().clone();
    let mut stalls = 0;
    let got = drive_encoder(&mut enc, &plain, Some((&readiness, &mut stalls)));
    assert!(got == want, "bytes differ from the blocking encoder");
    assert!(stalls > 0, "never waited for a worker");
}

/// Encodes `plain` in 64 KiB writes and finishes; with a readiness handle,
/// waits on it whenever a call makes no progress.
fn drive_encoder(
    enc: &mut lzflow_xz::MtXzEncoder,
    plain: &[u8],
    mut wait: Option<(&Readiness, &mut u32)>,
) -> Vec<u8> {
    let mut out = Vec::new();
    let mut buf = vec![0u8; 16 << 10];
    let mut on_idle = |moved: bool| {
        if !moved {
            let (r, stalls) = wait.as_mut().expect("a blocking encoder made no progress");
            **stalls += 1;
            wait_ready(r);
        }
    };
    for piece in plain.chunks(64 << 10) {
        let mut input = InBuf::new(piece);
        while !input.is_empty() {
            let before = input.pos();
            let mut o = OutBuf::new(&mut buf);
            enc.encode(&mut input, &mut o).unwrap();
            out.extend_from_slice(o.written());
            on_idle(o.pos() > 0 || input.pos() > before);
        }
    }
    loop {
        let mut o = OutBuf::new(&mut buf);
        let p = enc.finish(&mut o).unwrap();
        out.extend_from_slice(o.written());
        if p == Progress::StreamEnd {
            return out;
        }
        on_idle(o.pos() > 0);
    }
}
