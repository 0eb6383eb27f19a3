//! [`Stream`] adapters for bodies made of [`Bytes`] chunks (hyper, axum,
//! reqwest): a stream of compressed chunks in, a stream of decoded chunks
//! out ([`DecoderStream`]), or the other way round ([`EncoderStream`]).
//!
//! Each item is at most one batch (the decoder's `batch_size`, 16 KiB by
//! default). After a decoding error the stream yields that error once and
//! then ends; an error of the inner stream is passed on and polling may go
//! on. The inner stream's error may be anything that converts into a
//! [`BoxError`] (hyper's, axum's and reqwest's errors, `io::Error`), so a
//! body plugs in without `map_err`; it comes out as an `io::Error` with it
//! as its source (an `io::Error` comes out as it is).
//!
//! ```
//! use bytes::Bytes;
//! use futures::{executor::block_on, stream, TryStreamExt};
//! use lzflow::stream::{XzDecoderStream, XzEncoderStream};
//!
//! # fn main() -> std::io::Result<()> {
//! block_on(async {
//!     // A body of three chunks, compressed chunk by chunk…
//!     let chunks = ["one ", "two ", "three"].map(|c| Ok::<_, std::io::Error>(Bytes::from(c)));
//!     let xz: Vec<Bytes> = XzEncoderStream::new(stream::iter(chunks)).try_collect().await?;
//!     // …and decoded from compressed chunks cut anywhere (here, 7 bytes).
//!     let xz = xz.concat();
//!     let cut = xz.chunks(7).map(|c| Ok::<_, std::io::Error>(Bytes::copy_from_slice(c)));
//!     let text: Vec<Bytes> = XzDecoderStream::new(stream::iter(cut.collect::<Vec<_>>()))
//!         .try_collect()
//!         .await?;
//!     assert_eq!(text.concat(), b"one two three");
//!     Ok(())
//! })
//! # }
//! ```

use std::io;
use std::pin::Pin;
use std::task::{ready, Context, Poll};

use bytes::{Buf, Bytes, BytesMut};
use futures_core::Stream;
use lzflow_core::{Decode, Encode};

use crate::decode_options::{BuildDecoder, DecodeOptions, DecoderBuilder, DecoderFormat};
use crate::driver::Driver;
use crate::encode_options::{BuildEncoder, EncodeOptions, EncoderBuilder, EncoderFormat, Level};
use crate::pump::ASYNC_STEPS;

/// What a body's error must convert into: hyper's, axum's and reqwest's
/// errors do, as does `io::Error`.
pub type BoxError = Box<dyn std::error::Error + Send + Sync>;

/// An error of the inner stream as an `io::Error`: an `io::Error` as it
/// is, anything else as the source of one of kind `Other`.
fn body_error(e: impl Into<BoxError>) -> io::Error {
    match e.into().downcast::<io::Error>() {
        Ok(e) => *e,
        Err(e) => io::Error::other(e),
    }
}

/// Largest output chunk, whatever the batch size says.
const MAX_CHUNK: usize = 1 << 20;

pin_project_lite::pin_project! {
    /// Decodes a stream of compressed `Bytes` into a stream of decoded
    /// `Bytes` with any lzflow decoder `D`; [`XzDecoderStream`] and
    /// [`LzmaDecoderStream`] fix `D`.
    #[derive(Debug)]
    pub struct DecoderStream<S, D> {
        #[pin]
        inner: S,
        driver: Driver<D>,
        // The unconsumed rest of the last chunk of input.
        chunk: Bytes,
        out: BytesMut,
        chunk_size: usize,
        eof: bool,
        done: bool,
    }
}

impl<S, D> DecoderStream<S, D> {
    fn from_driver(inner: S, driver: Driver<D>, batch: usize) -> Self {
        DecoderStream {
            inner,
            driver,
            chunk: Bytes::new(),
            out: BytesMut::new(),
            chunk_size: batch.clamp(1, MAX_CHUNK),
            eof: false,
            done: false,
        }
    }

    /// Decodes `inner` with an already configured `coder`, yielding chunks
    /// of at most 16 KiB.
    pub fn with_coder(inner: S, coder: D) -> Self {
        Self::from_driver(inner, Driver::new(coder), 16 << 10)
    }

    /// The inner stream.
    pub fn get_ref(&self) -> &S {
        &self.inner
    }

    /// The inner stream. Polling it directly loses data.
    pub fn get_mut(&mut self) -> &mut S {
        &mut self.inner
    }

    /// The pinned inner stream.
    pub fn get_pin_mut(self: Pin<&mut Self>) -> Pin<&mut S> {
        self.project().inner
    }

    /// The inner stream; input taken from it but not decoded is lost.
    pub fn into_inner(self) -> S {
        self.inner
    }
}

impl<S, D: DecoderFormat> DecoderStream<S, D> {
    /// Decodes `inner` with default options (no limits: set them with
    /// [`builder`](Self::builder) for untrusted bodies).
    pub fn new(inner: S) -> Self {
        Self::build_decoder(inner, DecodeOptions::default())
    }

    /// Options beyond the defaults:
    /// `XzDecoderStream::builder().memlimit(n).output_limit(m).build(body)`.
    pub fn builder() -> DecoderBuilder<Self> {
        DecoderBuilder::default()
    }

    /// Decodes `inner` refusing to allocate more than `limit` bytes (the
    /// name async-compression uses; same as `builder().memlimit(limit)`).
    pub fn with_mem_limit(inner: S, limit: u64) -> Self {
        Self::builder().memlimit(limit).build(inner)
    }
}

impl<S, D: DecoderFormat> BuildDecoder for DecoderStream<S, D> {
    type Inner = S;
    fn build_decoder(inner: S, opts: DecodeOptions) -> Self {
        let driver = Driver::from_result(D::from_options(&opts));
        Self::from_driver(inner, driver, opts.lzma.batch_size)
    }
}

impl<S, E, D> Stream for DecoderStream<S, D>
where
    S: Stream<Item = Result<Bytes, E>>,
    E: Into<BoxError>,
    D: Decode,
    D::Error: Into<io::Error>,
{
    type Item = io::Result<Bytes>;

    fn poll_next(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        let mut this = self.project();
        if *this.done {
            return Poll::Ready(None);
        }
        for _ in 0..ASYNC_STEPS {
            if this.out.len() < *this.chunk_size {
                this.out.resize(*this.chunk_size, 0);
            }
            let step = match this
                .driver
                .decode(&this.chunk[..], *this.eof, &mut this.out[..])
            {
                Ok(step) => step,
                Err(e) => {
                    *this.done = true;
                    return Poll::Ready(Some(Err(e)));
                }
            };
            this.chunk.advance(step.consumed);
            if step.produced > 0 {
                return Poll::Ready(Some(Ok(this.out.split_to(step.produced).freeze())));
            }
            if this.driver.is_ended() {
                *this.done = true;
                return Poll::Ready(None);
            }
            if this.chunk.is_empty() && !*this.eof {
                match ready!(this.inner.as_mut().poll_next(cx)) {
                    Some(Ok(bytes)) => *this.chunk = bytes,
                    Some(Err(e)) => return Poll::Ready(Some(Err(body_error(e)))),
                    None => *this.eof = true,
                }
            }
        }
        cx.waker().wake_by_ref();
        Poll::Pending
    }
}

pin_project_lite::pin_project! {
    /// Compresses a stream of `Bytes` into a stream of compressed `Bytes`
    /// with any lzflow encoder `E` (e.g. a response body);
    /// [`XzEncoderStream`] fixes `E`. The trailer is produced when the
    /// inner stream ends.
    #[derive(Debug)]
    pub struct EncoderStream<S, E> {
        #[pin]
        inner: S,
        driver: Driver<E>,
        chunk: Bytes,
        out: BytesMut,
        eof: bool,
        done: bool,
    }
}

/// Output chunk size of an [`EncoderStream`].
const ENCODED_CHUNK: usize = 16 << 10;

impl<S, E> EncoderStream<S, E> {
    fn from_driver(inner: S, driver: Driver<E>) -> Self {
        EncoderStream {
            inner,
            driver,
            chunk: Bytes::new(),
            out: BytesMut::new(),
            eof: false,
            done: false,
        }
    }

    /// Compresses `inner` with an already configured `coder`.
    pub fn with_coder(inner: S, coder: E) -> Self {
        Self::from_driver(inner, Driver::new(coder))
    }

    /// The inner stream.
    pub fn get_ref(&self) -> &S {
        &self.inner
    }

    /// The inner stream. Polling it directly loses data.
    pub fn get_mut(&mut self) -> &mut S {
        &mut self.inner
    }

    /// The pinned inner stream.
    pub fn get_pin_mut(self: Pin<&mut Self>) -> Pin<&mut S> {
        self.project().inner
    }

    /// The inner stream; input taken from it but not compressed is lost.
    pub fn into_inner(self) -> S {
        self.inner
    }
}

impl<S, E: EncoderFormat> EncoderStream<S, E> {
    /// Compresses `inner` at the default level (`xz` preset 6).
    pub fn new(inner: S) -> Self {
        Self::builder().build(inner)
    }

    /// Compresses `inner` at `level`.
    pub fn with_quality(inner: S, level: Level) -> Self {
        Self::builder().quality(level).build(inner)
    }

    /// Options beyond the level.
    pub fn builder() -> EncoderBuilder<Self> {
        EncoderBuilder::default()
    }
}

impl<S, E: EncoderFormat> BuildEncoder for EncoderStream<S, E> {
    type Inner = S;
    fn build_encoder(inner: S, opts: EncodeOptions) -> Self {
        Self::from_driver(inner, Driver::from_result(E::from_options(&opts)))
    }
}

impl<S, Err, E> Stream for EncoderStream<S, E>
where
    S: Stream<Item = Result<Bytes, Err>>,
    Err: Into<BoxError>,
    E: Encode,
    E::Error: Into<io::Error>,
{
    type Item = io::Result<Bytes>;

    fn poll_next(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        let mut this = self.project();
        if *this.done {
            return Poll::Ready(None);
        }
        for _ in 0..ASYNC_STEPS {
            if this.chunk.is_empty() && !*this.eof {
                match ready!(this.inner.as_mut().poll_next(cx)) {
                    Some(Ok(bytes)) => *this.chunk = bytes,
                    Some(Err(e)) => return Poll::Ready(Some(Err(body_error(e)))),
                    None => *this.eof = true,
                }
                continue;
            }
            if this.out.len() < ENCODED_CHUNK {
                this.out.resize(ENCODED_CHUNK, 0);
            }
            let result = if this.chunk.is_empty() {
                this.driver.finish(&mut this.out[..])
            } else {
                this.driver.encode(&this.chunk[..], &mut this.out[..])
            };
            let step = match result {
                Ok(step) => step,
                Err(e) => {
                    *this.done = true;
                    return Poll::Ready(Some(Err(e)));
                }
            };
            this.chunk.advance(step.consumed);
            if step.produced > 0 {
                return Poll::Ready(Some(Ok(this.out.split_to(step.produced).freeze())));
            }
            if this.driver.is_ended() {
                *this.done = true;
                return Poll::Ready(None);
            }
        }
        cx.waker().wake_by_ref();
        Poll::Pending
    }
}

/// Compresses a stream of chunks into `.xz`.
pub type XzEncoderStream<S> = EncoderStream<S, lzflow_xz::XzEncoder>;
/// Compresses a stream of chunks into `.lz` (lzip).
pub type LzipEncoderStream<S> = EncoderStream<S, lzflow_lzip::LzipEncoder>;

/// Decodes a stream of `.xz` chunks.
pub type XzDecoderStream<S> = DecoderStream<S, lzflow_xz::XzDecoder>;
/// Decodes a stream of `.lzma` (LZMA-alone) chunks.
pub type LzmaDecoderStream<S> = DecoderStream<S, lzflow_lzma::AloneDecoder>;
/// Decodes a stream of `.lz` (lzip) chunks.
pub type LzipDecoderStream<S> = DecoderStream<S, lzflow_lzip::LzipDecoder>;
