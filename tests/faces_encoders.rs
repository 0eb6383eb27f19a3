//! lzflow's encoders through every face: the compressed bytes do not
//! depend on the face, on how input is split, on a pending sink, or on
//! cancelled and repeated flushes/shutdowns; they decode back exactly, and
//! builder options take effect. (That liblzma reads what these encoders
//! write is checked in crates/lzflow-bench/tests/liblzma_reads_lzflow.rs.)

mod faces_support;

use std::future::Future;
use std::io::{self, Read, Write};
use std::pin::Pin;
use std::task::{Context, Poll, Waker};
use std::time::Duration;

use faces_support::*;
use lzflow::{EncodeOptions, EncoderFormat, Level};
use lzflow_core::{InBuf, OutBuf, Progress};

/// The reference: the sans-I/O encoder driven directly, all input at once.
fn one_shot<E: EncoderFormat>(opts: &EncodeOptions, data: &[u8]) -> Vec<u8>
where
    E::Error: std::fmt::Debug,
{
    let mut enc = E::from_options(opts).unwrap();
    let mut out = Vec::new();
    let mut buf = vec![0u8; 1 << 16];
    let mut input = InBuf::new(data);
    while !input.is_empty() {
        let mut o = OutBuf::new(&mut buf);
        enc.encode(&mut input, &mut o).unwrap();
        out.extend_from_slice(o.written());
    }
    loop {
        let mut o = OutBuf::new(&mut buf);
        let p = enc.finish(&mut o).unwrap();
        out.extend_from_slice(o.written());
        if p == Progress::StreamEnd {
            return out;
        }
    }
}

fn opts(preset: u32) -> EncodeOptions {
    let mut o = EncodeOptions::default();
    o.preset = preset;
    o
}

async fn with_timeout<T>(f: impl Future<Output = T>) -> T {
    tokio::time::timeout(Duration::from_secs(120), f)
        .await
        .expect("test timed out")
}

fn poll_a_few<F: Future + Unpin>(f: &mut F, polls: usize) -> Option<F::Output> {
    let mut cx = Context::from_waker(Waker::noop());
    // Polled by hand in loops that never yield to tokio, so outside its
    // cooperative budget: once spent, only a yield would refill it.
    let mut f = tokio::task::coop::unconstrained(f);
    for _ in 0..polls {
        if let Poll::Ready(v) = Pin::new(&mut f).poll(&mut cx) {
            return Some(v);
        }
    }
    None
}

#[test]
fn std_xz_encoders_are_split_independent_and_round_trip() {
    let payload = sample_data(300_000, 41);
    for preset in [0, 6] {
        let want = one_shot::<lzflow_xz::XzEncoder>(&opts(preset), &payload);
        // write face, random writes into a sink taking a few bytes a call
        let mut w = lzflow::write::XzEncoder::new(SplitWriter::new(37, 1), preset);
        write_in_pieces(&mut w, &payload, 5000, 2).unwrap();
        assert!(
            w.finish().unwrap().data == want,
            "write face, preset {preset}"
        );
        // read face over 1-byte reads
        let mut got = Vec::new();
        lzflow::read::XzEncoder::new(SplitReader::new(payload.clone(), 1, 3), preset)
            .read_to_end(&mut got)
            .unwrap();
        assert!(got == want, "read face, preset {preset}");
        // bufread face with 1-byte output reads
        let mut enc =
            lzflow::bufread::XzEncoder::new(SplitReader::new(payload.clone(), 999, 4), preset);
        let mut got = Vec::new();
        let mut b = [0u8; 1];
        while enc.read(&mut b).unwrap() == 1 {
            got.push(b[0]);
        }
        assert!(got == want, "bufread face, preset {preset}");
        // decodes through the generic face and the named one
        assert!(ref_decode_xz(&want) == payload);
        let mut back = Vec::new();
        lzflow::read::XzDecoder::new(&want[..])
            .read_to_end(&mut back)
            .unwrap();
        assert!(back == payload);
    }
}

#[test]
fn std_lzma_and_raw_encoders_round_trip() {
    let payload = sample_data(100_000, 42);
    let want = one_shot::<lzflow_lzma::AloneEncoder>(&opts(3), &payload);
    let mut w = lzflow::write::LzmaEncoder::new(Vec::new(), 3);
    write_in_pieces(&mut w, &payload, 777, 5).unwrap();
    let lzma = w.finish().unwrap();
    assert!(lzma == want);
    let mut back = Vec::new();
    lzflow::read::LzmaDecoder::new(&lzma[..])
        .read_to_end(&mut back)
        .unwrap();
    assert!(back == payload);

    let mut w = lzflow::write::Lzma2Encoder::builder()
        .preset(1)
        .dict_size(1 << 20)
        .build(Vec::new());
    w.write_all(&payload).unwrap();
    let raw = w.finish().unwrap();
    let mut back = Vec::new();
    lzflow::read::Lzma2Decoder::builder()
        .dict_size(1 << 20)
        .build(&raw[..])
        .read_to_end(&mut back)
        .unwrap();
    assert!(back == payload);

    let mut w = lzflow::write::RawLzmaEncoder::new(Vec::new(), 2);
    w.write_all(&payload).unwrap();
    let raw1 = w.finish().unwrap();
    let dict = lzflow_lzma::LzmaOptions::preset(2).unwrap().dict_size;
    let mut back = Vec::new();
    lzflow::read::RawLzmaDecoder::builder()
        .dict_size(dict)
        .build(&raw1[..])
        .read_to_end(&mut back)
        .unwrap();
    assert!(back == payload);
}

#[test]
fn encoder_builder_options_reach_the_stream() {
    let payload = sample_data(200_000, 43);
    let mut w = lzflow::write::XzEncoder::builder()
        .preset(1)
        .check(lzflow_xz::Check::Sha256)
        .block_size(64 << 10)
        .filter(
            lzflow_filters::FilterConfig::new(lzflow_filters::FilterKind::Delta).with_distance(4),
        )
        .build(io::Cursor::new(Vec::new()));
    w.write_all(&payload).unwrap();
    let cursor = w.finish().unwrap();
    let info = lzflow_xz::info::read_info(io::Cursor::new(cursor.get_ref().clone())).unwrap();
    assert_eq!(info.streams.len(), 1);
    assert_eq!(info.streams[0].check, lzflow_xz::Check::Sha256);
    assert_eq!(
        info.streams[0].blocks.len(),
        4,
        "200000 bytes in 64 KiB blocks"
    );
    assert!(ref_decode_xz(cursor.get_ref()) == payload);

    // Extreme is a different encoding of the same data.
    let mut w = lzflow::write::XzEncoder::builder()
        .preset(1)
        .extreme()
        .build(Vec::new());
    w.write_all(&payload).unwrap();
    let extreme = w.finish().unwrap();
    assert!(ref_decode_xz(&extreme) == payload);
    let mut e = opts(1);
    e.extreme = true;
    assert!(extreme == one_shot::<lzflow_xz::XzEncoder>(&e, &payload));
}

#[test]
fn invalid_encoder_options_fail_on_first_use_with_a_usage_error() {
    let mut w = lzflow::write::XzEncoder::new(Vec::new(), 12);
    let e = w.write(b"data").unwrap_err();
    assert_eq!(e.kind(), io::ErrorKind::InvalidInput, "{e}");
    assert_eq!(
        w.write(b"data").unwrap_err().kind(),
        io::ErrorKind::InvalidInput
    );
    assert_eq!(
        w.try_finish().unwrap_err().kind(),
        io::ErrorKind::InvalidInput
    );
    let mut r = lzflow::read::XzEncoder::new(&b"abc"[..], 10);
    assert_eq!(
        r.read(&mut [0u8; 10]).unwrap_err().kind(),
        io::ErrorKind::InvalidInput
    );
}

#[test]
fn level_maps_to_presets() {
    assert_eq!(Level::Fastest.preset(), 0);
    assert_eq!(Level::Default.preset(), 6);
    assert_eq!(Level::Best.preset(), 9);
    assert_eq!(Level::Precise(-3).preset(), 0);
    assert_eq!(Level::Precise(4).preset(), 4);
    assert_eq!(Level::Precise(42).preset(), 9);
}

#[tokio::test]
async fn tokio_xz_encoder_cancelled_and_repeated_shutdown_is_byte_identical() {
    use tokio::io::AsyncWriteExt;
    with_timeout(async {
        let payload = sample_data(250_000, 44);
        let want = one_shot::<lzflow_xz::XzEncoder>(&opts(6), &payload);
        let mut w = lzflow::tokio::write::XzEncoder::new(PendingIo::writer(17, 5));
        let mut rng = Rng::new(6);
        let mut pos = 0;
        while pos < payload.len() {
            let n = rng.size(3000).min(payload.len() - pos);
            // Writes raced against a yield: a dropped write consumed nothing
            // or its bytes are the encoder's; resume from what it reported.
            let mut fut = Box::pin(w.write(&payload[pos..pos + n]));
            match poll_a_few(&mut fut, 1) {
                Some(r) => pos += r.unwrap(),
                None => {
                    drop(fut);
                    pos += w.write(&payload[pos..pos + n]).await.unwrap();
                }
            }
        }
        let mut dropped = 0;
        loop {
            let mut shutdown = Box::pin(w.shutdown());
            match poll_a_few(&mut shutdown, 3) {
                Some(r) => break r.unwrap(),
                None => dropped += 1,
            }
        }
        assert!(dropped > 5);
        w.shutdown().await.unwrap();
        w.shutdown().await.unwrap();
        assert!(
            w.get_ref().written == want,
            "bytes differ after {dropped} dropped shutdowns"
        );
        let e = w.write_all(b"more").await.unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::InvalidInput);

        // with_quality and the bufread face give the same stream.
        let mut w = lzflow::tokio::write::XzEncoder::with_quality(Vec::new(), Level::Default);
        w.write_all(&payload).await.unwrap();
        w.shutdown().await.unwrap();
        assert!(w.into_inner() == want);
        let mut r =
            lzflow::tokio::bufread::XzEncoder::new(PendingIo::reader(payload.clone(), 4000, 7));
        let mut got = Vec::new();
        tokio::io::AsyncReadExt::read_to_end(&mut r, &mut got)
            .await
            .unwrap();
        assert!(got == want);
    })
    .await
}

#[tokio::test]
async fn tokio_flush_makes_the_prefix_decodable_even_when_cancelled() {
    use tokio::io::AsyncWriteExt;
    with_timeout(async {
        let payload = sample_data(120_000, 45);
        let mut w = lzflow::tokio::write::XzEncoder::builder()
            .preset(2)
            .build(PendingIo::writer(50, 8));
        w.write_all(&payload[..70_000]).await.unwrap();
        let mut flush = Box::pin(w.flush());
        assert!(poll_a_few(&mut flush, 2).is_none());
        drop(flush);
        w.flush().await.unwrap();
        let prefix = w.get_ref().written.clone();
        // A streaming decode of what was written yields every byte so far.
        let mut dec = lzflow::read::XzDecoder::new(&prefix[..]);
        let mut got = Vec::new();
        let mut buf = [0u8; 8192];
        loop {
            match dec.read(&mut buf) {
                Ok(0) => break,
                Ok(n) => got.extend_from_slice(&buf[..n]),
                Err(e) => {
                    assert_eq!(e.kind(), io::ErrorKind::UnexpectedEof);
                    break;
                }
            }
        }
        assert!(
            got == payload[..70_000],
            "flushed prefix decodes to {} bytes",
            got.len()
        );
        w.write_all(&payload[70_000..]).await.unwrap();
        w.shutdown().await.unwrap();
        assert!(ref_decode_xz(&w.get_ref().written) == payload);
    })
    .await
}

#[tokio::test]
async fn futures_encoders_match_the_one_shot_bytes() {
    use futures::io::{AsyncReadExt, AsyncWriteExt};
    with_timeout(async {
        let payload = sample_data(150_000, 46);
        let want = one_shot::<lzflow_lzma::AloneEncoder>(&opts(4), &payload);
        let mut w = lzflow::futures::write::LzmaEncoder::with_quality(
            PendingIo::writer(9, 9),
            Level::Precise(4),
        );
        w.write_all(&payload).await.unwrap();
        let mut close = Box::pin(w.close());
        let _ = poll_a_few(&mut close, 3);
        drop(close);
        w.close().await.unwrap();
        w.close().await.unwrap();
        assert!(w.get_ref().written == want);
        let mut r = lzflow::futures::bufread::LzmaEncoder::builder()
            .preset(4)
            .build(PendingIo::reader(payload.clone(), 100, 10));
        let mut got = Vec::new();
        r.read_to_end(&mut got).await.unwrap();
        assert!(got == want);
        let mut back = Vec::new();
        lzflow::futures::bufread::LzmaDecoder::new(PendingIo::reader(got, 64, 11))
            .read_to_end(&mut back)
            .await
            .unwrap();
        assert!(back == payload);
    })
    .await
}

/// An always-ready sink whose bytes stay visible while a future borrows
/// the writer.
struct SharedSink(std::rc::Rc<std::cell::RefCell<Vec<u8>>>);

impl tokio::io::AsyncWrite for SharedSink {
    fn poll_write(
        self: Pin<&mut Self>,
        _: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        self.0.borrow_mut().extend_from_slice(buf);
        Poll::Ready(Ok(buf.len()))
    }
    fn poll_flush(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<io::Result<()>> {
        Poll::Ready(Ok(()))
    }
    fn poll_shutdown(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<io::Result<()>> {
        Poll::Ready(Ok(()))
    }
}

#[tokio::test]
async fn one_shutdown_poll_does_bounded_work_on_an_always_ready_sink() {
    use tokio::io::AsyncWriteExt;
    with_timeout(async {
        // Incompressible data in one big block: all of it comes out at
        // shutdown. One poll must not write it all.
        let mut rng = Rng::new(48);
        let payload: Vec<u8> = (0..3 << 20).map(|_| rng.next() as u8).collect();
        let written = std::rc::Rc::new(std::cell::RefCell::new(Vec::new()));
        let mut w = lzflow::tokio::write::XzEncoder::builder()
            .preset(0)
            .block_size(8 << 20)
            .build(SharedSink(written.clone()));
        w.write_all(&payload).await.unwrap();
        assert!(written.borrow().len() < 100, "the block is still buffered");
        let (mut polls, mut most, mut before) = (0, 0, 0);
        {
            // Outside tokio's budget: this loop never yields to refill it.
            let mut shutdown = Box::pin(tokio::task::coop::unconstrained(w.shutdown()));
            let mut cx = Context::from_waker(Waker::noop());
            loop {
                polls += 1;
                let done = Pin::new(&mut shutdown).poll(&mut cx);
                let now = written.borrow().len();
                most = most.max(now - before);
                before = now;
                if let Poll::Ready(r) = done {
                    r.unwrap();
                    break;
                }
            }
        }
        assert!(polls > 2, "{polls} polls");
        assert!(most <= 33 * 32 * 1024, "one poll wrote {most} bytes");
        let mut o = opts(0);
        o.block_size = Some(8 << 20);
        let want = one_shot::<lzflow_xz::XzEncoder>(&o, &payload);
        assert!(*written.borrow() == want);
    })
    .await
}

/// `match_finder_thread(true)` on the XZ, .lzma, lzip and tokio faces:
/// the one-thread bytes, in any write split, with flushes.
#[test]
fn match_finder_thread_gives_the_one_thread_bytes() {
    let payload = sample_data(1_500_000, 7);
    let mut o = opts(6);
    o.dict_size = Some(1 << 20);
    let want_xz = one_shot::<lzflow_xz::XzEncoder>(&o, &payload);
    let mut w = lzflow::write::XzEncoder::builder()
        .options(o.clone())
        .match_finder_thread(true)
        .build(Vec::new());
    write_in_pieces(&mut w, &payload, 70_001, 3).unwrap();
    assert!(w.finish().unwrap() == want_xz, "xz");

    let want_lzma = one_shot::<lzflow_lzma::AloneEncoder>(&o, &payload);
    let mut w = lzflow::write::LzmaEncoder::builder()
        .options(o.clone())
        .match_finder_thread(true)
        .build(Vec::new());
    write_in_pieces(&mut w, &payload, 1000, 7).unwrap();
    assert!(w.finish().unwrap() == want_lzma, ".lzma");

    let want_lz = one_shot::<lzflow_lzip::LzipEncoder>(&o, &payload);
    let mut w = lzflow::write::LzipEncoder::builder()
        .options(o.clone())
        .match_finder_thread(true)
        .build(Vec::new());
    w.write_all(&payload).unwrap();
    assert!(w.finish().unwrap() == want_lz, "lzip");

    // Flushes (each a sync flush in the XZ Block) at the same places.
    let flushed = |thread: bool| {
        let mut w = lzflow::write::XzEncoder::builder()
            .options(o.clone())
            .match_finder_thread(thread)
            .build(Vec::new());
        for piece in payload.chunks(300_007) {
            w.write_all(piece).unwrap();
            w.flush().unwrap();
        }
        w.finish().unwrap()
    };
    assert!(flushed(true) == flushed(false), "xz with flushes");

    let rt = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    let got = rt.block_on(async {
        use tokio::io::AsyncWriteExt;
        let mut w = lzflow::tokio::write::XzEncoder::builder()
            .options(o.clone())
            .match_finder_thread(true)
            .build(Vec::new());
        w.write_all(&payload).await.unwrap();
        w.shutdown().await.unwrap();
        w.into_inner()
    });
    assert!(got == want_xz, "tokio xz");
}
