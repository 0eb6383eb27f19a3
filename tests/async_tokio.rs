//! The tokio faces: same bytes and errors as the std faces with `Pending`
//! between every poll, under cancellation (`select!` dropping read, flush
//! and shutdown futures mid-way), and with bounded work per poll.

mod faces_support;

use std::future::Future;
use std::io;
use std::pin::Pin;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::task::{Context, Poll, Waker};
use std::time::Duration;

use faces_support::*;
use lzflow_core::{Decode, Encode};
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt, ReadBuf};

const LIMIT: Duration = Duration::from_secs(120);

async fn with_timeout<T>(f: impl Future<Output = T>) -> T {
    tokio::time::timeout(LIMIT, f)
        .await
        .expect("test timed out")
}

async fn read_all<R: AsyncRead + Unpin>(mut r: R, chunk: usize) -> io::Result<Vec<u8>> {
    let mut out = Vec::new();
    let mut buf = vec![0u8; chunk];
    loop {
        let n = r.read(&mut buf).await?;
        if n == 0 {
            return Ok(out);
        }
        out.extend_from_slice(&buf[..n]);
    }
}

/// Every tokio way of decoding `data`.
async fn decode_every_tokio_way<D, F>(
    data: &[u8],
    make: F,
) -> Vec<(&'static str, io::Result<Vec<u8>>)>
where
    D: Decode + Unpin,
    D::Error: Into<io::Error>,
    F: Fn() -> D,
{
    let mut results = Vec::new();
    let fill = if data.len() < 50_000 { 1 } else { 3 };
    let dec = lzflow::tokio::bufread::Decoder::with_coder(
        PendingIo::reader(data.to_vec(), fill, 1),
        make(),
    );
    results.push((
        "bufread, tiny fills, pending between",
        read_all(dec, 4096).await,
    ));

    let dec = lzflow::tokio::bufread::Decoder::with_coder(
        PendingIo::reader(data.to_vec(), 700, 2),
        make(),
    );
    // 1-byte reads on the small files; a few bytes on the big ones keeps a
    // debug-build run short.
    let read_size = if data.len() < 20_000 { 1 } else { 7 };
    results.push((
        "bufread, random fills, tiny reads",
        read_all(dec, read_size).await,
    ));

    let inner = tokio::io::BufReader::with_capacity(5, PendingIo::reader(data.to_vec(), 3, 3));
    let dec = lzflow::tokio::bufread::Decoder::with_coder(inner, make());
    results.push((
        "tokio BufReader over pending reader",
        read_all(dec, 999).await,
    ));

    let mut w = lzflow::tokio::write::Decoder::with_coder(PendingIo::writer(9, 4), make());
    let r = async {
        let mut rng = Rng::new(5);
        let mut pos = 0;
        while pos < data.len() {
            let n = rng.size(500).min(data.len() - pos);
            w.write_all(&data[pos..pos + n]).await?;
            pos += n;
        }
        w.shutdown().await?;
        assert_eq!(w.get_ref().shutdowns, 1);
        Ok(std::mem::take(&mut w.get_mut().written))
    }
    .await;
    results.push(("write, pending sink", r));
    results
}

#[tokio::test]
async fn xz_fixtures_decode_identically_with_pending_between_polls() {
    with_timeout(async {
        for fx in fixtures("xz") {
            let data = fx.bytes();
            let results = decode_every_tokio_way(&data, RefDecoder::xz).await;
            if fx.ok {
                for (how, r) in results {
                    let got = r.unwrap_or_else(|e| panic!("{}: {how}: {e}", fx.name));
                    assert_content(&fx, &got, how);
                }
            } else {
                // Same kind as the std face.
                let mut std_out = Vec::new();
                let std_kind = std::io::Read::read_to_end(
                    &mut lzflow::read::Decoder::with_coder(&data[..], RefDecoder::xz()),
                    &mut std_out,
                )
                .unwrap_err()
                .kind();
                for (how, r) in results {
                    assert_eq!(r.expect_err(how).kind(), std_kind, "{}: {how}", fx.name);
                }
            }
        }
    })
    .await
}

#[tokio::test]
async fn lzma_fixtures_decode_with_pending_between_polls() {
    with_timeout(async {
        for fx in fixtures("lzma_alone") {
            for (how, r) in decode_every_tokio_way(&fx.bytes(), RefDecoder::lzma).await {
                assert_content(&fx, &r.unwrap(), how);
            }
        }
    })
    .await
}

fn fixture(name: &str) -> Fixture {
    fixtures("xz").into_iter().find(|f| f.name == name).unwrap()
}

#[tokio::test]
async fn dropped_read_futures_lose_nothing() {
    with_timeout(async {
        let fx = fixture("xz/mixed.xz");
        let mut dec = lzflow::tokio::bufread::Decoder::with_coder(
            PendingIo::reader(fx.bytes(), 50, 7),
            RefDecoder::xz(),
        );
        let mut out = Vec::new();
        let mut buf = vec![0u8; 3000];
        let mut cancelled = 0;
        loop {
            // The yield completes on its second poll; a read that was
            // pending then is dropped mid-chunk.
            tokio::select! {
                biased;
                r = dec.read(&mut buf) => {
                    let n = r.unwrap();
                    if n == 0 { break; }
                    out.extend_from_slice(&buf[..n]);
                }
                _ = tokio::task::yield_now() => cancelled += 1,
            }
        }
        assert!(cancelled > 10, "only {cancelled} reads were cancelled");
        assert_content(&fx, &out, "select! with yield");
    })
    .await
}

#[tokio::test]
async fn reads_raced_against_a_timer_lose_nothing() {
    with_timeout(async {
        let fx = fixture("xz/preset-6.xz");
        let mut dec = lzflow::tokio::bufread::Decoder::with_coder(
            PendingIo::reader(fx.bytes(), 3, 8),
            RefDecoder::xz(),
        );
        let mut out = Vec::new();
        let mut buf = vec![0u8; 1 << 14];
        loop {
            tokio::select! {
                r = dec.read(&mut buf) => {
                    let n = r.unwrap();
                    if n == 0 { break; }
                    out.extend_from_slice(&buf[..n]);
                }
                _ = tokio::time::sleep(Duration::from_micros(20)) => {}
            }
        }
        assert_content(&fx, &out, "select! with a timer");
    })
    .await
}

/// Polls `f` (pinned on the stack by the caller) up to `polls` times with
/// a waker that does nothing, then gives up on it.
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

async fn encode_with_pending_sink<E: Encode + Unpin>(
    payload: &[u8],
    enc: E,
    cancel_shutdown: bool,
) -> (Vec<u8>, usize)
where
    E::Error: Into<io::Error>,
{
    let mut w = lzflow::tokio::write::Encoder::with_coder(PendingIo::writer(100, 9), enc);
    let mut rng = Rng::new(10);
    let mut pos = 0;
    while pos < payload.len() {
        let n = rng.size(7000).min(payload.len() - pos);
        w.write_all(&payload[pos..pos + n]).await.unwrap();
        pos += n;
        if cancel_shutdown && rng.next().is_multiple_of(4) {
            // Start a flush, drop it mid-way, then flush for real.
            let mut flush = Box::pin(w.flush());
            let _ = poll_a_few(&mut flush, 3);
            drop(flush);
        }
    }
    if cancel_shutdown {
        for polls in [1, 2, 5] {
            let mut shutdown = Box::pin(w.shutdown());
            assert!(poll_a_few(&mut shutdown, polls).is_none() || polls == 5);
        }
    }
    w.shutdown().await.unwrap();
    w.shutdown().await.unwrap();
    let shutdowns = w.get_ref().shutdowns;
    (std::mem::take(&mut w.get_mut().written), shutdowns)
}

#[tokio::test]
async fn cancelled_and_repeated_shutdown_writes_the_same_bytes() {
    with_timeout(async {
        let payload = sample_data(400_000, 21);
        let mut one_shot = Vec::new();
        {
            let mut w = lzflow::write::Encoder::with_coder(&mut one_shot, RefEncoder::xz(6));
            std::io::Write::write_all(&mut w, &payload).unwrap();
            w.finish().unwrap();
        }
        let (plain, shutdowns) = encode_with_pending_sink(&payload, RefEncoder::xz(6), false).await;
        assert!(plain == one_shot, "pending sink changed the bytes");
        assert!(shutdowns >= 2);
        let (cancelled, _) = encode_with_pending_sink(&payload, RefEncoder::xz(6), true).await;
        assert!(
            ref_decode_xz(&cancelled) == payload,
            "cancelled flush/shutdown lost bytes"
        );
    })
    .await
}

#[tokio::test]
async fn cancelled_shutdown_without_flushes_is_byte_identical() {
    with_timeout(async {
        let payload = sample_data(150_000, 22);
        let mut one_shot = Vec::new();
        {
            let mut w = lzflow::write::Encoder::with_coder(&mut one_shot, RefEncoder::xz(2));
            std::io::Write::write_all(&mut w, &payload).unwrap();
            w.finish().unwrap();
        }
        let mut w =
            lzflow::tokio::write::Encoder::with_coder(PendingIo::writer(3, 11), RefEncoder::xz(2));
        w.write_all(&payload).await.unwrap();
        let mut dropped = 0;
        loop {
            let mut shutdown = Box::pin(w.shutdown());
            match poll_a_few(&mut shutdown, 4) {
                Some(r) => {
                    r.unwrap();
                    break;
                }
                None => dropped += 1,
            }
        }
        assert!(dropped > 10);
        w.shutdown().await.unwrap();
        assert!(
            w.get_ref().written == one_shot,
            "bytes differ after {dropped} dropped shutdowns"
        );
    })
    .await
}

#[tokio::test]
async fn bufread_encoder_over_a_pending_reader_round_trips() {
    with_timeout(async {
        let payload = sample_data(120_000, 23);
        let enc = lzflow::tokio::bufread::Encoder::with_coder(
            PendingIo::reader(payload.clone(), 999, 12),
            RefEncoder::xz(6),
        );
        let compressed = read_all(enc, 77).await.unwrap();
        let mut std_bytes = Vec::new();
        std::io::Read::read_to_end(
            &mut lzflow::read::Encoder::with_coder(&payload[..], RefEncoder::xz(6)),
            &mut std_bytes,
        )
        .unwrap();
        assert!(compressed == std_bytes);
        assert!(ref_decode_xz(&compressed) == payload);
    })
    .await
}

#[test]
fn one_poll_does_bounded_work_on_an_always_ready_source() {
    // Stream, 1 MiB of stream padding, stream: the padding yields no
    // output, and a single poll must not chew through all of it.
    let one = std::fs::read(generated_dir().join("xz/one-byte.xz")).unwrap();
    let mut data = one.clone();
    data.extend(std::iter::repeat_n(0u8, 1 << 20));
    data.extend_from_slice(&one);
    let mut src = PendingIo::reader(data.clone(), 4, 1);
    src.always_ready = true;
    let mut dec = lzflow::tokio::bufread::Decoder::with_coder(src, RefDecoder::xz());
    let counter = Arc::new(CountingWaker(AtomicUsize::new(0)));
    let waker = Waker::from(counter.clone());
    let mut cx = Context::from_waker(&waker);
    let mut out = Vec::new();
    let mut pendings = 0;
    let mut max_step = 0;
    let mut last_pos = 0;
    loop {
        let mut storage = [0u8; 64];
        let mut buf = ReadBuf::new(&mut storage);
        match Pin::new(&mut dec).poll_read(&mut cx, &mut buf) {
            Poll::Ready(r) => {
                r.unwrap();
                if buf.filled().is_empty() {
                    break;
                }
                out.extend_from_slice(buf.filled());
            }
            Poll::Pending => pendings += 1,
        }
        let pos = dec.get_ref().position();
        max_step = max_step.max(pos - last_pos);
        last_pos = pos;
    }
    assert_eq!(out.len(), 2);
    assert!(pendings > 1000, "{pendings} yields");
    assert_eq!(
        counter.0.load(Ordering::SeqCst),
        pendings,
        "every yield wakes"
    );
    assert!(max_step <= 32 * 4, "one poll took {max_step} bytes");
}

#[tokio::test]
async fn poll_read_returns_at_most_one_buffer_and_reports_end_repeatedly() {
    with_timeout(async {
        let fx = fixture("xz/zeros-1MiB.xz");
        let data = fx.bytes();
        let mut dec = lzflow::tokio::bufread::Decoder::with_coder(&data[..], RefDecoder::xz());
        let mut buf = vec![0u8; 100_000];
        let n = dec.read(&mut buf).await.unwrap();
        assert!(n > 0 && n <= buf.len());
        let rest = read_all(&mut dec, 1 << 20).await.unwrap();
        assert_eq!(n + rest.len(), 1 << 20);
        assert_eq!(dec.read(&mut buf).await.unwrap(), 0);
        assert_eq!(dec.read(&mut buf).await.unwrap(), 0);
    })
    .await
}

#[tokio::test]
async fn errors_stick_in_the_async_face() {
    with_timeout(async {
        let mut data = fixture("xz/check-crc32.xz").bytes();
        data.truncate(data.len() - 9);
        let mut dec = lzflow::tokio::bufread::Decoder::with_coder(
            PendingIo::reader(data, 64, 3),
            RefDecoder::xz(),
        );
        let e = read_all(&mut dec, 512).await.unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::UnexpectedEof);
        let again = dec.read(&mut [0u8; 16]).await.unwrap_err();
        assert_eq!(again.kind(), io::ErrorKind::UnexpectedEof);
        assert!(again.get_ref().unwrap().is::<lzflow::StickyError>());
    })
    .await
}

#[tokio::test]
async fn tokio_io_copy_through_the_write_decoder() {
    with_timeout(async {
        let fx = fixture("xz/multistream.xz");
        let mut src = tokio::io::BufReader::new(PendingIo::reader(fx.bytes(), 4096, 5));
        let mut w = lzflow::tokio::write::Decoder::with_coder(Vec::new(), RefDecoder::xz());
        tokio::io::copy(&mut src, &mut w).await.unwrap();
        w.shutdown().await.unwrap();
        assert_content(&fx, w.get_ref(), "tokio::io::copy");
    })
    .await
}

/// `AsyncWrite` must be object-safe-usable: the faces work boxed.
#[tokio::test]
async fn faces_work_as_trait_objects() {
    with_timeout(async {
        let fx = fixture("xz/one-byte.xz");
        let mut r: Pin<Box<dyn AsyncRead + Send>> =
            Box::pin(lzflow::tokio::bufread::Decoder::with_coder(
                PendingIo::reader(fx.bytes(), 2, 1),
                RefDecoder::xz(),
            ));
        let mut out = Vec::new();
        r.read_to_end(&mut out).await.unwrap();
        assert_content(&fx, &out, "boxed");
        let w: Pin<Box<dyn AsyncWrite + Send>> = Box::pin(
            lzflow::tokio::write::Encoder::with_coder(Vec::new(), RefEncoder::xz(0)),
        );
        drop(w);
    })
    .await
}

fn lzflow_xz() -> lzflow_xz::XzDecoder {
    <lzflow_xz::XzDecoder as lzflow::DecoderFormat>::from_options(&Default::default()).unwrap()
}

#[tokio::test]
async fn lzflow_xz_decoder_through_tokio_faces_matches_every_fixture() {
    with_timeout(async {
        for fx in fixtures("xz") {
            let data = fx.bytes();
            let results = decode_every_tokio_way(&data, lzflow_xz).await;
            let mut std_out = Vec::new();
            let std_result = std::io::Read::read_to_end(
                &mut lzflow::read::XzDecoder::new(&data[..]),
                &mut std_out,
            );
            if fx.ok {
                std_result.unwrap();
                for (how, r) in results {
                    let got = r.unwrap_or_else(|e| panic!("{}: {how}: {e}", fx.name));
                    assert_content(&fx, &got, how);
                }
            } else {
                let std_kind = std_result.unwrap_err().kind();
                for (how, r) in results {
                    assert_eq!(r.expect_err(how).kind(), std_kind, "{}: {how}", fx.name);
                }
            }
        }
    })
    .await
}

#[tokio::test]
async fn named_tokio_decoder_survives_cancellation_and_caps_each_poll_at_the_batch() {
    with_timeout(async {
        let fx = fixture("xz/zeros-1MiB.xz");
        let mut dec = lzflow::tokio::bufread::XzDecoder::builder()
            .batch_size(4096)
            .memlimit(64 << 20)
            .build(PendingIo::reader(fx.bytes(), 40, 3));
        let mut out = Vec::new();
        let mut buf = vec![0u8; 1 << 16];
        let mut cancelled = 0;
        loop {
            tokio::select! {
                biased;
                r = dec.read(&mut buf) => {
                    let n = r.unwrap();
                    assert!(n <= 4096, "one poll produced {n} bytes");
                    if n == 0 { break; }
                    out.extend_from_slice(&buf[..n]);
                }
                _ = tokio::task::yield_now() => cancelled += 1,
            }
        }
        assert!(cancelled > 0);
        assert_content(&fx, &out, "named tokio decoder, cancelled reads");
    })
    .await
}

#[tokio::test]
async fn named_tokio_write_decoder_reports_limits() {
    with_timeout(async {
        let fx = fixture("xz/zeros-1MiB.xz");
        let mut w = lzflow::tokio::write::XzDecoder::builder()
            .output_limit(100_000)
            .build(PendingIo::writer(1000, 1));
        let r = async {
            w.write_all(&fx.bytes()).await?;
            w.shutdown().await
        }
        .await;
        assert_eq!(r.unwrap_err().kind(), io::ErrorKind::OutOfMemory);
        assert!(w.get_ref().written.len() <= 100_000);
        assert!(w.get_ref().written.iter().all(|&b| b == 0));
    })
    .await
}

#[tokio::test]
async fn xz_utils_conformance_files_give_the_same_outcome_in_std_and_tokio_faces() {
    with_timeout(async {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/xz-utils/files");
        let mut names: Vec<_> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .filter(|n| n.ends_with(".xz"))
            .collect();
        names.sort();
        assert!(names.len() >= 70, "{} files", names.len());
        let (mut ok, mut failed) = (0, 0);
        for name in names {
            let data = std::fs::read(dir.join(&name)).unwrap();
            let mut std_out = Vec::new();
            let std_result = std::io::Read::read_to_end(
                &mut lzflow::read::XzDecoder::new(&data[..]),
                &mut std_out,
            )
            .map(|_| std_out);
            let dec = lzflow::tokio::bufread::XzDecoder::new(PendingIo::reader(data.clone(), 1, 9));
            let tokio_result = read_all(dec, 5).await;
            match (std_result, tokio_result) {
                (Ok(a), Ok(b)) => {
                    assert!(a == b, "{name}: outputs differ");
                    ok += 1;
                }
                (Err(a), Err(b)) => {
                    assert_eq!(a.kind(), b.kind(), "{name}: {a} / {b}");
                    failed += 1;
                }
                (a, b) => panic!(
                    "{name}: std {:?} vs tokio {:?}",
                    a.map(|v| v.len()),
                    b.map(|v| v.len())
                ),
            }
        }
        assert!(ok > 10 && failed > 30, "{ok} decoded, {failed} rejected");
    })
    .await
}

/// lzflow's decoder for a `.lzma` or raw fixture, from its `coders` column.
fn lzflow_decoder_for(
    fx: &Fixture,
) -> Box<dyn lzflow_core::Decode<Error = lzflow_lzma::LzmaError> + Send + Unpin> {
    let mut opts = lzflow::DecodeOptions::default();
    if fx.container == "lzma_alone" {
        return Box::new(
            <lzflow_lzma::AloneDecoder as lzflow::DecoderFormat>::from_options(&opts).unwrap(),
        );
    }
    opts.dict_size = if fx.coders.contains("4KiB") {
        4 << 10
    } else {
        1 << 20
    };
    let lzma2 =
        || <lzflow_lzma::Lzma2Decoder as lzflow::DecoderFormat>::from_options(&opts).unwrap();
    if fx.coders.starts_with("lzma1") {
        Box::new(<lzflow_lzma::LzmaDecoder as lzflow::DecoderFormat>::from_options(&opts).unwrap())
    } else if fx.coders.starts_with("x86+") {
        let x86 = lzflow_filters::FilterConfig::new(lzflow_filters::FilterKind::X86);
        Box::new(lzflow_filters::FilterDecoder::new(
            lzma2(),
            lzflow_filters::decode_chain(&[x86]).unwrap(),
        ))
    } else {
        assert!(fx.coders.starts_with("lzma2"), "{}", fx.coders);
        Box::new(lzma2())
    }
}

#[tokio::test]
async fn lzma_and_raw_fixtures_decode_identically_through_tokio_faces() {
    with_timeout(async {
        let mut count = 0;
        for fx in fixtures("lzma_alone").into_iter().chain(fixtures("raw")) {
            let data = fx.bytes();
            for (how, r) in decode_every_tokio_way(&data, || lzflow_decoder_for(&fx)).await {
                let got = r.unwrap_or_else(|e| panic!("{}: {how}: {e}", fx.name));
                assert_content(&fx, &got, how);
            }
            count += 1;
        }
        assert_eq!(count, 9);
    })
    .await
}

#[tokio::test]
async fn with_mem_limit_refuses_big_dictionaries_like_async_compression() {
    with_timeout(async {
        let data = fixture("xz/preset-9e.xz").bytes();
        let dec = lzflow::tokio::bufread::XzDecoder::with_mem_limit(&data[..], 1 << 20);
        let e = read_all(dec, 4096).await.unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::OutOfMemory);
        let dec = lzflow::tokio::bufread::XzDecoder::with_mem_limit(&data[..], 128 << 20);
        assert_eq!(read_all(dec, 4096).await.unwrap().len(), 204_800);
    })
    .await
}
