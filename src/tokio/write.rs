//! tokio faces over an [`AsyncWrite`]: they implement [`AsyncWrite`];
//! bytes written are decoded (or compressed) into the inner writer.
//!
//! `poll_shutdown` completes the stream (for an encoder: writes the
//! trailer) and then shuts the inner writer down. It may be cancelled and
//! called again, or called twice: every output byte is written exactly
//! once. An unfinished stream is not completed on drop (there is no
//! runtime to write with); call `shutdown().await`.

use std::io;
use std::pin::Pin;
use std::task::{ready, Context, Poll};

use ::tokio::io::AsyncWrite;
use lzflow_core::{Decode, Encode};

use crate::decode_options::{BuildDecoder, DecodeOptions, DecoderBuilder, DecoderFormat};
use crate::driver::Driver;
use crate::encode_options::{BuildEncoder, EncodeOptions, EncoderBuilder, EncoderFormat, Level};
use crate::pump::{self, OutQueue, Sink};
use crate::tokio::coop::TOKIO_BUDGET;

/// A pinned tokio `AsyncWrite` as a [`Sink`].
struct TokioSink<'a, W>(Pin<&'a mut W>);

impl<W: AsyncWrite> Sink for TokioSink<'_, W> {
    fn poll_write(&mut self, cx: &mut Context<'_>, buf: &[u8]) -> Poll<io::Result<usize>> {
        self.0.as_mut().poll_write(cx, buf)
    }

    fn poll_flush(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        self.0.as_mut().poll_flush(cx)
    }

    fn poll_close(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        self.0.as_mut().poll_shutdown(cx)
    }
}

pin_project_lite::pin_project! {
    /// A decoding writer: compressed bytes in, decoded bytes to `W`, with
    /// any lzflow decoder `D`; the format-named types ([`XzDecoder`] …) are
    /// this with a fixed `D`.
    #[derive(Debug)]
    pub struct Decoder<W, D> {
        #[pin]
        inner: W,
        driver: Driver<D>,
        queue: OutQueue,
        opts: DecodeOptions,
    }
}

impl<W, D> Decoder<W, D> {
    /// Decodes into `inner` with an already configured `coder`.
    pub fn with_coder(inner: W, coder: D) -> Self {
        Decoder {
            inner,
            driver: Driver::new(coder),
            queue: OutQueue::new(),
            opts: DecodeOptions::default(),
        }
    }

    /// The inner writer.
    pub fn get_ref(&self) -> &W {
        &self.inner
    }

    /// The inner writer. Writing to it directly interleaves with output.
    pub fn get_mut(&mut self) -> &mut W {
        &mut self.inner
    }

    /// The pinned inner writer.
    pub fn get_pin_mut(self: Pin<&mut Self>) -> Pin<&mut W> {
        self.project().inner
    }

    /// The inner writer; decoded bytes not yet written are lost.
    pub fn into_inner(self) -> W {
        self.inner
    }

    /// The sans-I/O coder (absent if its options were invalid).
    pub fn coder(&self) -> Option<&D> {
        self.driver.coder()
    }
}

impl<W, D: DecoderFormat> Decoder<W, D> {
    /// Decodes into `inner` with default options.
    pub fn new(inner: W) -> Self {
        Self::build_decoder(inner, DecodeOptions::default())
    }

    /// Options beyond the defaults: `Decoder::builder().memlimit(n).build(w)`.
    pub fn builder() -> DecoderBuilder<Self> {
        DecoderBuilder::default()
    }

    /// Decodes `inner` refusing to allocate more than `limit` bytes (the
    /// name async-compression uses; same as `builder().memlimit(limit)`).
    pub fn with_mem_limit(inner: W, limit: u64) -> Self {
        Self::builder().memlimit(limit).build(inner)
    }

    /// XZ: whether to decode concatenated streams (default `true`). Takes
    /// effect only before the first write.
    pub fn multiple_members(&mut self, enabled: bool) {
        if self.driver.is_fresh() && self.opts.multi_stream != enabled {
            self.opts.multi_stream = enabled;
            self.driver = Driver::from_result(D::from_options(&self.opts));
        }
    }
}

impl<W, D: DecoderFormat> BuildDecoder for Decoder<W, D> {
    type Inner = W;
    fn build_decoder(inner: W, opts: DecodeOptions) -> Self {
        Decoder {
            inner,
            driver: Driver::from_result(D::from_options(&opts)),
            queue: OutQueue::new(),
            opts,
        }
    }
}

impl<W: AsyncWrite, D: Decode> AsyncWrite for Decoder<W, D>
where
    D::Error: Into<io::Error>,
{
    /// Decodes some of `buf`; `Ready(Ok(0))` for a non-empty `buf` means the
    /// stream has ended and the rest is not part of it.
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        let this = self.project();
        let mut sink = TokioSink(this.inner);
        pump::poll_write_decoded(this.driver, this.queue, &mut sink, cx, TOKIO_BUDGET, buf)
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let this = self.project();
        let mut sink = TokioSink(this.inner);
        pump::poll_flush_decoded(this.driver, this.queue, &mut sink, cx, TOKIO_BUDGET)
    }

    /// Requires the compressed stream to be complete (else `UnexpectedEof`),
    /// writes the rest of the output and shuts the inner writer down.
    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let this = self.project();
        let mut sink = TokioSink(this.inner);
        ready!(pump::poll_finish_decoded(
            this.driver,
            this.queue,
            &mut sink,
            cx,
            TOKIO_BUDGET
        ))?;
        sink.poll_close(cx)
    }
}

pin_project_lite::pin_project! {
    /// An encoding writer: bytes in, the compressed stream to `W`, with any
    /// lzflow encoder `E`.
    #[derive(Debug)]
    pub struct Encoder<W, E> {
        #[pin]
        inner: W,
        driver: Driver<E>,
        queue: OutQueue,
    }
}

impl<W, E> Encoder<W, E> {
    /// Compresses into `inner` with an already configured `coder`.
    pub fn with_coder(inner: W, coder: E) -> Self {
        Self::from_result(inner, Ok(coder))
    }

    pub(crate) fn from_result(inner: W, coder: io::Result<E>) -> Self {
        Encoder {
            inner,
            driver: Driver::from_result(coder),
            queue: OutQueue::new(),
        }
    }

    /// The inner writer.
    pub fn get_ref(&self) -> &W {
        &self.inner
    }

    /// The inner writer. Writing to it directly corrupts the stream.
    pub fn get_mut(&mut self) -> &mut W {
        &mut self.inner
    }

    /// The pinned inner writer.
    pub fn get_pin_mut(self: Pin<&mut Self>) -> Pin<&mut W> {
        self.project().inner
    }

    /// The inner writer; call `shutdown().await` first or the stream is
    /// left incomplete.
    pub fn into_inner(self) -> W {
        self.inner
    }

    /// The sans-I/O coder (absent if its options were invalid).
    pub fn coder(&self) -> Option<&E> {
        self.driver.coder()
    }
}

impl<W: AsyncWrite, E: Encode> AsyncWrite for Encoder<W, E>
where
    E::Error: Into<io::Error>,
{
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        let this = self.project();
        let mut sink = TokioSink(this.inner);
        pump::poll_write_encoded(this.driver, this.queue, &mut sink, cx, TOKIO_BUDGET, buf)
    }

    /// Makes everything written so far decodable from the inner writer's
    /// bytes, then flushes it.
    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let this = self.project();
        let mut sink = TokioSink(this.inner);
        pump::poll_flush_encoded(this.driver, this.queue, &mut sink, cx, TOKIO_BUDGET)
    }

    /// Writes the rest of the stream and its trailer, then shuts the inner
    /// writer down.
    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let this = self.project();
        let mut sink = TokioSink(this.inner);
        ready!(pump::poll_finish_encoded(
            this.driver,
            this.queue,
            &mut sink,
            cx,
            TOKIO_BUDGET
        ))?;
        sink.poll_close(cx)
    }
}

impl<W, E: EncoderFormat> Encoder<W, E> {
    /// Compresses what is written into `inner` at the default level (`xz` preset 6).
    pub fn new(inner: W) -> Self {
        Self::builder().build(inner)
    }

    /// Compresses what is written into `inner` at `level`.
    pub fn with_quality(inner: W, level: Level) -> Self {
        Self::builder().quality(level).build(inner)
    }

    /// Options beyond the level:
    /// `Encoder::builder().preset(9).extreme().check(Check::Sha256).build(inner)`.
    pub fn builder() -> EncoderBuilder<Self> {
        EncoderBuilder::default()
    }
}

impl<W, E: EncoderFormat> BuildEncoder for Encoder<W, E> {
    type Inner = W;
    fn build_encoder(inner: W, opts: EncodeOptions) -> Self {
        Self::from_result(inner, E::from_options(&opts))
    }
}

/// Decodes a `.xz` stream written to it (concatenated streams too, unless
/// [`single_stream`](DecoderBuilder::single_stream)).
pub type XzDecoder<W> = Decoder<W, lzflow_xz::XzDecoder>;
/// Decodes a `.lzma` (LZMA-alone) stream written to it.
pub type LzmaDecoder<W> = Decoder<W, lzflow_lzma::AloneDecoder>;
/// Decodes a `.lz` (lzip) file: every member, checked against its trailer.
pub type LzipDecoder<W> = Decoder<W, lzflow_lzip::LzipDecoder>;
/// Decodes a raw LZMA2 stream written to it.
pub type Lzma2Decoder<W> = Decoder<W, lzflow_lzma::Lzma2Decoder>;
/// Decodes a raw LZMA1 stream written to it.
pub type RawLzmaDecoder<W> = Decoder<W, lzflow_lzma::LzmaDecoder>;

/// Compresses into a `.xz` stream.
pub type XzEncoder<W> = Encoder<W, lzflow_xz::XzEncoder>;
/// Compresses into a `.lzma` (LZMA-alone) stream.
pub type LzmaEncoder<W> = Encoder<W, lzflow_lzma::AloneEncoder>;
/// Compresses into a `.lz` (lzip) file.
pub type LzipEncoder<W> = Encoder<W, lzflow_lzip::LzipEncoder>;
/// Compresses into a raw LZMA2 stream (no container).
pub type Lzma2Encoder<W> = Encoder<W, lzflow_lzma::Lzma2Encoder>;
/// Compresses into a raw LZMA1 stream (no header).
pub type RawLzmaEncoder<W> = Encoder<W, lzflow_lzma::LzmaEncoder>;

pub use super::mt::MtXzEncoder;
