//! futures-io faces of the multi-threaded XZ coders: [`MtXzDecoder`] (an
//! `AsyncRead` over an `AsyncBufRead`) and [`MtXzEncoder`] (an
//! `AsyncWrite`). They never block the runtime: while a block is being
//! decoded or compressed on a worker thread, polls return `Pending` and the
//! worker wakes the task when it is done.

use std::io;
use std::pin::Pin;
use std::task::{Context, Poll};

use futures_io::{AsyncBufRead, AsyncRead, AsyncWrite};
use lzflow_core::Readiness;

use crate::decode_options::{BuildDecoder, DecodeOptions, DecoderBuilder};
use crate::driver::Driver;
use crate::encode_options::Level;
use crate::mt::{self, BuildMtEncoder, Gated, MtEncodeOptions, MtEncoderBuilder, MtWriter};
use crate::pump::{self, Sink, Source, ASYNC_BUDGET};

/// A pinned futures-io `AsyncBufRead` as a [`Source`].
struct FuturesSource<'a, R>(Pin<&'a mut R>);

impl<R: AsyncBufRead> Source for FuturesSource<'_, R> {
    fn poll_fill(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<&[u8]>> {
        self.0.as_mut().poll_fill_buf(cx)
    }

    fn consume(&mut self, n: usize) {
        self.0.as_mut().consume(n);
    }
}

/// A pinned futures-io `AsyncWrite` as a [`Sink`].
struct FuturesSink<'a, W>(Pin<&'a mut W>);

impl<W: AsyncWrite> Sink for FuturesSink<'_, W> {
    fn poll_write(&mut self, cx: &mut Context<'_>, buf: &[u8]) -> Poll<io::Result<usize>> {
        self.0.as_mut().poll_write(cx, buf)
    }

    fn poll_flush(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        self.0.as_mut().poll_flush(cx)
    }

    fn poll_close(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        self.0.as_mut().poll_close(cx)
    }
}

pin_project_lite::pin_project! {
    /// Decodes a `.xz` stream read from an `AsyncBufRead`, blocks in
    /// parallel on worker threads (those whose headers carry both sizes:
    /// `xz -T`, [`MtXzEncoder`] and lzflow's encoders write them). Output
    /// and errors are the single-threaded decoder's. Configure with
    /// `MtXzDecoder::builder().threads(2).memory_budget(n).build(r)`.
    #[derive(Debug)]
    pub struct MtXzDecoder<R> {
        #[pin]
        inner: R,
        driver: Driver<lzflow_xz::MtXzDecoder>,
        readiness: Option<Readiness>,
    }
}

impl<R> MtXzDecoder<R> {
    /// Decodes `inner` with one worker per CPU and default options.
    pub fn new(inner: R) -> Self {
        Self::build_decoder(inner, DecodeOptions::default())
    }

    /// Options beyond the defaults (threads, memory budget, limits).
    pub fn builder() -> DecoderBuilder<Self> {
        DecoderBuilder::default()
    }

    /// Decodes `inner` refusing dictionaries above `limit` bytes (per
    /// worker).
    pub fn with_mem_limit(inner: R, limit: u64) -> Self {
        Self::builder().memlimit(limit).build(inner)
    }

    /// The inner reader.
    pub fn get_ref(&self) -> &R {
        &self.inner
    }

    /// The inner reader. Reading from it directly corrupts the stream.
    pub fn get_mut(&mut self) -> &mut R {
        &mut self.inner
    }

    /// The pinned inner reader.
    pub fn get_pin_mut(self: Pin<&mut Self>) -> Pin<&mut R> {
        self.project().inner
    }

    /// The inner reader, positioned after the bytes the decoder consumed.
    pub fn into_inner(self) -> R {
        self.inner
    }

    /// The sans-I/O coder (absent if its options were invalid).
    pub fn coder(&self) -> Option<&lzflow_xz::MtXzDecoder> {
        self.driver.coder()
    }
}

impl<R> BuildDecoder for MtXzDecoder<R> {
    type Inner = R;
    fn build_decoder(inner: R, opts: DecodeOptions) -> Self {
        let driver = Driver::from_result(mt::nonblocking_decoder(&opts));
        let readiness = mt::decoder_readiness(&driver);
        MtXzDecoder {
            inner,
            driver,
            readiness,
        }
    }
}

impl<R: AsyncBufRead> AsyncRead for MtXzDecoder<R> {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut [u8],
    ) -> Poll<io::Result<usize>> {
        let this = self.project();
        let mut src = Gated {
            source: FuturesSource(this.inner),
            readiness: this.readiness.as_ref(),
        };
        pump::poll_read_decoded(this.driver, &mut src, cx, buf, ASYNC_BUDGET)
    }
}

pin_project_lite::pin_project! {
    /// Compresses what is written into a `.xz` stream written to an
    /// `AsyncWrite`, blocks in parallel on worker threads; the bytes are
    /// exactly what the single-threaded encoder writes with the same
    /// options. `close().await` writes the rest and the trailer.
    /// Configure with `MtXzEncoder::builder().threads(2).block_size(n).build(w)`.
    #[derive(Debug)]
    pub struct MtXzEncoder<W> {
        #[pin]
        inner: W,
        state: MtWriter,
    }
}

impl<W> MtXzEncoder<W> {
    /// Compresses into `inner` at preset 6, one worker per CPU.
    pub fn new(inner: W) -> Self {
        Self::builder().build(inner)
    }

    /// Compresses into `inner` at `level`, one worker per CPU.
    pub fn with_quality(inner: W, level: Level) -> Self {
        Self::builder().quality(level).build(inner)
    }

    /// Options: `builder().threads(2).preset(9).block_size(4 << 20)`.
    pub fn builder() -> MtEncoderBuilder<Self> {
        MtEncoderBuilder::default()
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

    /// The inner writer; compressed bytes not yet written are lost.
    pub fn into_inner(self) -> W {
        self.inner
    }

    /// The sans-I/O coder (absent if its options were invalid).
    pub fn coder(&self) -> Option<&lzflow_xz::MtXzEncoder> {
        self.state.coder()
    }
}

impl<W> BuildMtEncoder for MtXzEncoder<W> {
    type Inner = W;
    fn build_mt_encoder(inner: W, opts: MtEncodeOptions) -> Self {
        MtXzEncoder {
            inner,
            state: MtWriter::new(&opts),
        }
    }
}

impl<W: AsyncWrite> AsyncWrite for MtXzEncoder<W> {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        let this = self.project();
        this.state
            .poll_write(&mut FuturesSink(this.inner), cx, ASYNC_BUDGET, buf)
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let this = self.project();
        this.state
            .poll_flush(&mut FuturesSink(this.inner), cx, ASYNC_BUDGET)
    }

    fn poll_close(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let this = self.project();
        this.state
            .poll_shutdown(&mut FuturesSink(this.inner), cx, ASYNC_BUDGET)
    }
}
