//! The multi-threaded XZ faces: [`MtXzDecoder`] (read through
//! [`bufread`](super::bufread)) and [`MtXzEncoder`] (through
//! [`write`](super::write)). They never block the runtime: while a block is
//! being decoded or compressed on a worker thread, polls return `Pending`
//! and the worker wakes the task when it is done.

use std::io;
use std::marker::PhantomData;
use std::pin::Pin;
use std::task::{Context, Poll};

use lzflow_core::Readiness;

use crate::decode_options::{BuildDecoder, DecodeOptions, DecoderBuilder};
use crate::driver::Driver;
use crate::encode_options::Level;
use crate::mt::{
    BuildMtEncoder, Gated, MtDecoderFormat, MtEncodeOptions, MtEncoderBuilder, MtWriter,
};
use crate::pump::{self, Budget, Sink, Source};

pin_project_lite::pin_project! {
    /// Decodes what it reads from an `AsyncBufRead` with the
    /// multi-threaded coder `C`, for the runtime `Rt`: [`MtXzDecoder`] and
    /// [`MtLzma2Decoder`]. Output and errors are the single-threaded
    /// decoder's. It never blocks the runtime: while a piece is being
    /// decoded on a worker, polls return `Pending` and the worker wakes the
    /// task.
    #[derive(Debug)]
    pub struct MtDecoder<R, Rt, C> {
        #[pin]
        inner: R,
        driver: Driver<C>,
        readiness: Option<Readiness>,
        runtime: PhantomData<Rt>,
    }
}

/// Decodes a `.xz` stream read from an `AsyncBufRead`, blocks in parallel
/// on worker threads (those whose headers carry both sizes: `xz -T`,
/// [`MtXzEncoder`] and lzflow's encoders write them), for the runtime
/// `Rt`. Configure with
/// `MtXzDecoder::builder().threads(2).memory_budget(n).build(r)`.
pub type MtXzDecoder<R, Rt> = MtDecoder<R, Rt, lzflow_xz::MtXzDecoder>;

/// Decodes a raw LZMA2 stream read from an `AsyncBufRead`, the pieces
/// between dictionary resets (7-Zip's multi-threaded encoder writes them)
/// in parallel on worker threads, for the runtime `Rt`. Configure with
/// `MtLzma2Decoder::builder().dict_size(d).threads(2).build(r)`.
pub type MtLzma2Decoder<R, Rt> = MtDecoder<R, Rt, lzflow_lzma::MtLzma2Decoder>;

impl<R, Rt, C: MtDecoderFormat> MtDecoder<R, Rt, C> {
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
}

impl<R, Rt, C> MtDecoder<R, Rt, C> {
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
    pub fn coder(&self) -> Option<&C> {
        self.driver.coder()
    }
}

impl<R, Rt, C: MtDecoderFormat> BuildDecoder for MtDecoder<R, Rt, C> {
    type Inner = R;
    fn build_decoder(inner: R, opts: DecodeOptions) -> Self {
        let driver = Driver::from_result(C::from_options(&opts).map(|mut c| {
            c.set_nonblocking(true);
            c
        }));
        let readiness = driver.coder().map(|c| c.readiness().clone());
        MtDecoder {
            inner,
            driver,
            readiness,
            runtime: PhantomData,
        }
    }
}

impl<R, Rt, C> MtDecoder<R, Rt, C>
where
    C: MtDecoderFormat,
    C::Error: Into<io::Error>,
{
    /// The runtime's `poll_read`: decodes into `out` from the inner reader
    /// as adapted by `source`, pending while the coder waits for a worker.
    pub(crate) fn poll_read_via<'a, S: Source>(
        self: Pin<&'a mut Self>,
        source: impl FnOnce(Pin<&'a mut R>) -> S,
        cx: &mut Context<'_>,
        out: &mut [u8],
        budget: impl Budget,
    ) -> Poll<io::Result<usize>> {
        let this = self.project();
        let mut src = Gated {
            source: source(this.inner),
            readiness: this.readiness.as_ref(),
        };
        pump::poll_read_decoded(this.driver, &mut src, cx, out, budget)
    }
}

pin_project_lite::pin_project! {
    /// Compresses what is written into a `.xz` stream written to an
    /// `AsyncWrite`, blocks in parallel on worker threads, for the runtime
    /// `Rt`; the bytes are exactly what the single-threaded encoder writes
    /// with the same options. Shutting it down (tokio's `shutdown`,
    /// futures-io's `close`) writes the rest and the trailer. Configure
    /// with `MtXzEncoder::builder().threads(2).block_size(n).build(w)`.
    #[derive(Debug)]
    pub struct MtXzEncoder<W, Rt> {
        #[pin]
        inner: W,
        state: MtWriter,
        runtime: PhantomData<Rt>,
    }
}

impl<W, Rt> MtXzEncoder<W, Rt> {
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

impl<W, Rt> BuildMtEncoder for MtXzEncoder<W, Rt> {
    type Inner = W;
    fn build_mt_encoder(inner: W, opts: MtEncodeOptions) -> Self {
        MtXzEncoder {
            inner,
            state: MtWriter::new(&opts),
            runtime: PhantomData,
        }
    }
}

impl<W, Rt> MtXzEncoder<W, Rt> {
    /// The runtime's `poll_write` into the inner writer as adapted by
    /// `sink`.
    pub(crate) fn poll_write_via<'a, S: Sink>(
        self: Pin<&'a mut Self>,
        sink: impl FnOnce(Pin<&'a mut W>) -> S,
        cx: &mut Context<'_>,
        budget: impl Budget,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        let this = self.project();
        this.state
            .poll_write(&mut sink(this.inner), cx, budget, buf)
    }

    /// The runtime's `poll_flush`.
    pub(crate) fn poll_flush_via<'a, S: Sink>(
        self: Pin<&'a mut Self>,
        sink: impl FnOnce(Pin<&'a mut W>) -> S,
        cx: &mut Context<'_>,
        budget: impl Budget,
    ) -> Poll<io::Result<()>> {
        let this = self.project();
        this.state.poll_flush(&mut sink(this.inner), cx, budget)
    }

    /// The runtime's `poll_shutdown`/`poll_close`.
    pub(crate) fn poll_close_via<'a, S: Sink>(
        self: Pin<&'a mut Self>,
        sink: impl FnOnce(Pin<&'a mut W>) -> S,
        cx: &mut Context<'_>,
        budget: impl Budget,
    ) -> Poll<io::Result<()>> {
        let this = self.project();
        this.state.poll_shutdown(&mut sink(this.inner), cx, budget)
    }
}

/// async-compression's name for the multi-threaded decoder:
/// `XzDecoder::parallel(reader, threads)` is [`MtXzDecoder`] with
/// `threads` workers.
impl<R, Rt> super::bufread::Decoder<R, lzflow_xz::XzDecoder, Rt> {
    /// A decoder of `inner` on `threads` worker threads: an
    /// [`MtXzDecoder`], as async-compression's `XzDecoder::parallel`.
    pub fn parallel(inner: R, threads: std::num::NonZeroU32) -> MtXzDecoder<R, Rt> {
        MtXzDecoder::builder()
            .threads(threads.get() as usize)
            .build(inner)
    }
}

/// async-compression's name for the multi-threaded encoder:
/// `XzEncoder::parallel(writer, level, threads)` is [`MtXzEncoder`] with
/// `threads` workers.
impl<W, Rt> super::write::Encoder<W, lzflow_xz::XzEncoder, Rt> {
    /// An encoder into `inner` at `level` on `threads` worker threads: an
    /// [`MtXzEncoder`], as async-compression's `XzEncoder::parallel`.
    pub fn parallel(inner: W, level: Level, threads: std::num::NonZeroU32) -> MtXzEncoder<W, Rt> {
        MtXzEncoder::builder()
            .quality(level)
            .threads(threads.get() as usize)
            .build(inner)
    }
}
