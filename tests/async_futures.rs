//! The futures-io faces and the `Bytes` stream adapter: same bytes and
//! errors as the std faces with `Pending` between every poll.

mod faces_support;

use std::future::Future;
use std::io;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

use bytes::Bytes;
use faces_support::*;
use futures::io::{AsyncReadExt, AsyncWriteExt};
use futures::stream::{Stream, StreamExt};
use lzflow_core::Decode;

const LIMIT: Duration = Duration::from_secs(120);

async fn with_timeout<T>(f: impl Future<Output = T>) -> T {
    tokio::time::timeout(LIMIT, f)
        .await
        .expect("test timed out")
}

async fn futures_read_all<R: futures::io::AsyncRead + Unpin>(
    mut r: R,
    chunk: usize,
) -> io::Result<Vec<u8>> {
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

/// A stream of `data` in random chunks of at most `max` bytes, pending
/// (with a wake-up) before every chunk.
struct ChunkStream {
    data: Bytes,
    rng: Rng,
    max: usize,
    pend: bool,
    fail_at_end: bool,
}

impl ChunkStream {
    fn new(data: Vec<u8>, max: usize, seed: u64) -> Self {
        ChunkStream {
            data: Bytes::from(data),
            rng: Rng::new(seed),
            max,
            pend: false,
            fail_at_end: false,
        }
    }
}

impl Stream for ChunkStream {
    type Item = io::Result<Bytes>;
    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        self.pend = !self.pend;
        if self.pend {
            cx.waker().wake_by_ref();
            return Poll::Pending;
        }
        if self.data.is_empty() {
            if self.fail_at_end {
                self.fail_at_end = false;
                return Poll::Ready(Some(Err(io::Error::new(
                    io::ErrorKind::ConnectionReset,
                    "peer went away",
                ))));
            }
            return Poll::Ready(None);
        }
        // Empty chunks happen in real bodies; they must be skipped.
        let max = self.max + 1;
        let n = (self.rng.size(max) - 1).min(self.data.len());
        let chunk = self.data.split_to(n);
        Poll::Ready(Some(Ok(chunk)))
    }
}

async fn collect_stream<S: Stream<Item = io::Result<Bytes>> + Unpin>(
    mut s: S,
) -> io::Result<Vec<u8>> {
    let mut out = Vec::new();
    while let Some(chunk) = s.next().await {
        let chunk = chunk?;
        assert!(!chunk.is_empty(), "empty chunk yielded");
        assert!(
            chunk.len() <= 16 << 10,
            "chunk of {} bytes exceeds one batch",
            chunk.len()
        );
        out.extend_from_slice(&chunk);
    }
    Ok(out)
}

async fn decode_every_futures_way<D, F>(
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
    let dec = lzflow::futures::bufread::Decoder::with_coder(
        PendingIo::reader(data.to_vec(), fill, 1),
        make(),
    );
    results.push((
        "futures bufread, tiny fills",
        futures_read_all(dec, 1000).await,
    ));

    let inner = futures::io::BufReader::with_capacity(3, PendingIo::reader(data.to_vec(), 2, 2));
    let dec = lzflow::futures::bufread::Decoder::with_coder(inner, make());
    results.push((
        "futures BufReader over pending reader",
        futures_read_all(dec, 77).await,
    ));

    let mut w = lzflow::futures::write::Decoder::with_coder(PendingIo::writer(13, 3), make());
    let r = async {
        let mut rng = Rng::new(4);
        let mut pos = 0;
        while pos < data.len() {
            let n = rng.size(300).min(data.len() - pos);
            w.write_all(&data[pos..pos + n]).await?;
            pos += n;
        }
        w.close().await?;
        w.close().await?;
        Ok(std::mem::take(&mut w.get_mut().written))
    }
    .await;
    results.push(("futures write, pending sink", r));

    let s =
        lzflow::stream::DecoderStream::with_coder(ChunkStream::new(data.to_vec(), 200, 5), make());
    results.push(("Bytes stream, random chunks", collect_stream(s).await));
    results
}

#[tokio::test]
async fn xz_fixtures_decode_identically_through_futures_faces_and_streams() {
    with_timeout(async {
        for fx in fixtures("xz") {
            let data = fx.bytes();
            let results = decode_every_futures_way(&data, RefDecoder::xz).await;
            if fx.ok {
                for (how, r) in results {
                    let got = r.unwrap_or_else(|e| panic!("{}: {how}: {e}", fx.name));
                    assert_content(&fx, &got, how);
                }
            } else {
                let mut sink = Vec::new();
                let std_kind = std::io::Read::read_to_end(
                    &mut lzflow::read::Decoder::with_coder(&data[..], RefDecoder::xz()),
                    &mut sink,
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
async fn futures_encoder_close_is_idempotent_and_byte_identical() {
    with_timeout(async {
        let payload = sample_data(200_000, 31);
        let mut one_shot = Vec::new();
        {
            let mut w = lzflow::write::Encoder::with_coder(&mut one_shot, RefEncoder::xz(6));
            std::io::Write::write_all(&mut w, &payload).unwrap();
            w.finish().unwrap();
        }
        let mut w = lzflow::futures::write::Encoder::with_coder(
            PendingIo::writer(50, 6),
            RefEncoder::xz(6),
        );
        w.write_all(&payload).await.unwrap();
        w.close().await.unwrap();
        w.close().await.unwrap();
        assert_eq!(w.get_ref().shutdowns, 2);
        assert!(w.get_ref().written == one_shot);
        let e = w.write(b"late").await.unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::InvalidInput);

        let enc = lzflow::futures::bufread::Encoder::with_coder(
            PendingIo::reader(payload.clone(), 500, 7),
            RefEncoder::xz(6),
        );
        assert!(futures_read_all(enc, 333).await.unwrap() == one_shot);
    })
    .await
}

#[tokio::test]
async fn stream_yields_a_decoding_error_once_then_ends() {
    with_timeout(async {
        let mut data = std::fs::read(generated_dir().join("xz/check-crc64.xz")).unwrap();
        let n = data.len();
        data[n - 30] ^= 1; // inside the index or check
        let mut s = lzflow::stream::DecoderStream::with_coder(
            ChunkStream::new(data, 100, 8),
            RefDecoder::xz(),
        );
        let mut errors = 0;
        while let Some(item) = s.next().await {
            if let Err(e) = item {
                assert_eq!(e.kind(), io::ErrorKind::InvalidData);
                errors += 1;
            }
        }
        assert_eq!(errors, 1);
        assert!(s.next().await.is_none());
    })
    .await
}

#[tokio::test]
async fn stream_passes_on_inner_errors_and_reports_truncation() {
    with_timeout(async {
        let data = std::fs::read(generated_dir().join("xz/preset-0.xz")).unwrap();
        let mut inner = ChunkStream::new(data[..data.len() / 2].to_vec(), 1000, 9);
        inner.fail_at_end = true;
        let mut s = lzflow::stream::DecoderStream::with_coder(inner, RefDecoder::xz());
        let mut kinds = Vec::new();
        while let Some(item) = s.next().await {
            if let Err(e) = item {
                kinds.push(e.kind());
            }
        }
        assert_eq!(
            kinds,
            [io::ErrorKind::ConnectionReset, io::ErrorKind::UnexpectedEof]
        );
    })
    .await
}

#[tokio::test]
async fn lzflow_xz_decoder_through_futures_faces_and_streams() {
    with_timeout(async {
        let make = || {
            <lzflow_xz::XzDecoder as lzflow::DecoderFormat>::from_options(&Default::default())
                .unwrap()
        };
        for fx in fixtures("xz") {
            let data = fx.bytes();
            let results = decode_every_futures_way(&data, make).await;
            let mut sink = Vec::new();
            let std_result =
                std::io::Read::read_to_end(&mut lzflow::read::XzDecoder::new(&data[..]), &mut sink);
            if fx.ok {
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
        // The named stream type with limits, as a service would use it.
        let fx = fixtures("xz")
            .into_iter()
            .find(|f| f.name == "xz/mixed.xz")
            .unwrap();
        let s = lzflow::stream::XzDecoderStream::builder()
            .memlimit(16 << 20)
            .output_limit(1 << 30)
            .batch_size(8192)
            .build(ChunkStream::new(fx.bytes(), 5000, 1));
        let mut s = Box::pin(s);
        let mut out = Vec::new();
        while let Some(chunk) = s.next().await {
            let chunk = chunk.unwrap();
            assert!(chunk.len() <= 8192);
            out.extend_from_slice(&chunk);
        }
        assert_content(&fx, &out, "XzDecoderStream");
    })
    .await
}

#[tokio::test]
async fn encoder_stream_round_trips_and_matches_the_write_face() {
    with_timeout(async {
        let payload = sample_data(180_000, 47);
        let mut w = lzflow::write::XzEncoder::new(Vec::new(), 6);
        std::io::Write::write_all(&mut w, &payload).unwrap();
        let want = w.finish().unwrap();
        let s = lzflow::stream::XzEncoderStream::new(ChunkStream::new(payload.clone(), 3000, 12));
        let got = collect_stream(Box::pin(s)).await.unwrap();
        assert!(got == want, "stream and write face differ");
        // And back through the decoding stream.
        let back = lzflow::stream::XzDecoderStream::new(ChunkStream::new(got, 700, 13));
        assert!(collect_stream(Box::pin(back)).await.unwrap() == payload);
        // Bad options surface as the first item, then the stream ends.
        let mut bad = Box::pin(
            lzflow::stream::XzEncoderStream::builder()
                .preset(77)
                .build(ChunkStream::new(payload.clone(), 10, 14)),
        );
        let first = bad.next().await.unwrap().unwrap_err();
        assert_eq!(first.kind(), io::ErrorKind::InvalidInput);
        assert!(bad.next().await.is_none());
    })
    .await
}

#[tokio::test]
async fn lzma_fixtures_through_futures_faces_and_streams() {
    with_timeout(async {
        let make = || {
            <lzflow_lzma::AloneDecoder as lzflow::DecoderFormat>::from_options(&Default::default())
                .unwrap()
        };
        for fx in fixtures("lzma_alone") {
            for (how, r) in decode_every_futures_way(&fx.bytes(), make).await {
                let got = r.unwrap_or_else(|e| panic!("{}: {how}: {e}", fx.name));
                assert_content(&fx, &got, how);
            }
        }
        let fx = fixtures("raw")
            .into_iter()
            .find(|f| f.name == "raw/lzma2-dict1MiB.raw")
            .unwrap();
        let s = lzflow::stream::DecoderStream::<_, lzflow_lzma::Lzma2Decoder>::builder()
            .dict_size(1 << 20)
            .build(ChunkStream::new(fx.bytes(), 64, 2));
        assert_content(
            &fx,
            &collect_stream(Box::pin(s)).await.unwrap(),
            "raw LZMA2 stream",
        );
    })
    .await
}

/// A body's own error type (as hyper's, axum's and reqwest's are): neither
/// an `io::Error` nor convertible into one.
#[derive(Debug)]
struct BodyError(&'static str);

impl std::fmt::Display for BodyError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.0)
    }
}

impl std::error::Error for BodyError {}

/// The `Bytes` adapters take a body whose error is any error type: it
/// comes out as an `io::Error` of kind `Other` with the body's error as its
/// source; an `io::Error` comes out as it is.
#[tokio::test]
async fn stream_adapters_take_bodies_with_their_own_error_types() {
    use bytes::Bytes;
    use lzflow::stream::{XzDecoderStream, XzEncoderStream};
    let text = b"a body of any error type ".repeat(1000);
    let chunks: Vec<Result<Bytes, BodyError>> = text
        .chunks(1000)
        .map(|c| Ok(Bytes::copy_from_slice(c)))
        .collect();
    let mut enc = XzEncoderStream::new(futures::stream::iter(chunks));
    let mut xz = Vec::new();
    while let Some(item) = enc.next().await {
        xz.extend_from_slice(&item.unwrap());
    }
    let half = xz.len() / 2;
    let body: Vec<Result<Bytes, BodyError>> = vec![
        Ok(Bytes::copy_from_slice(&xz[..half])),
        Err(BodyError("the connection was reset")),
        Ok(Bytes::copy_from_slice(&xz[half..])),
    ];
    let mut dec = XzDecoderStream::new(futures::stream::iter(body));
    let mut out = Vec::new();
    let mut errors = Vec::new();
    while let Some(item) = dec.next().await {
        match item {
            Ok(b) => out.extend_from_slice(&b),
            Err(e) => errors.push(e),
        }
    }
    assert_eq!(out, text, "polling went on after the body's error");
    assert_eq!(errors.len(), 1);
    assert_eq!(errors[0].kind(), io::ErrorKind::Other);
    let source = errors[0]
        .get_ref()
        .and_then(|e| e.downcast_ref::<BodyError>());
    assert_eq!(source.map(|e| e.0), Some("the connection was reset"));
    // An io::Error keeps its kind.
    let body: Vec<Result<Bytes, io::Error>> = vec![Err(io::ErrorKind::TimedOut.into())];
    let mut dec = XzDecoderStream::new(futures::stream::iter(body));
    let e = dec.next().await.unwrap().unwrap_err();
    assert_eq!(e.kind(), io::ErrorKind::TimedOut);
}
