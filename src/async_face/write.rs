//! The writing faces: [`Decoder`] and [`Encoder`] over an `AsyncWrite`, and
//! [`MtXzEncoder`]. The runtime's `AsyncWrite` impls are in
//! [`crate::tokio::write`] and [`crate::futures::write`].

use std::io;
use std::marker::PhantomData;
use std::pin::Pin;
use std::task::{ready, Context, Poll};

use lzflow_core::{Decode, Encode};

use crate::decode_options::{BuildDecoder, DecodeOptions, DecoderBuilder, DecoderFormat};
use crate::driver::Driver;
use crate::encode_options::{BuildEncoder, EncodeOptions, EncoderBuilder, EncoderFormat, Level};
use crate::pump::{self, Budget, OutQueue, Sink};

pub use super::mt::MtXzEncoder;

pin_project_lite::pin_project! {
    /// A decoding writer: compressed bytes in, decoded bytes to `W`, with
    /// any lzflow decoder `D`, for the runtime `Rt`; the format-named types
    /// (`XzDecoder` …) are this with a fixed `D`.
    #[derive(Debug)]
    pub struct Decoder<W, D, Rt> {
        #[pin]
        inner: W,
        driver: Driver<D>,
        queue: OutQueue,
        opts: DecodeOptions,
        runtime: PhantomData<Rt>,
    }
}

impl<W, D, Rt> Decoder<W, D, Rt> {
    /// Decodes into `inner` with an already configured `coder`.
    pub fn with_coder(inner: W, coder: D) -> Self {
        Decoder {
            inner,
            driver: Driver::new(coder),
            queue: OutQueue::new(),
            opts: DecodeOptions::default(),
            runtime: PhantomData,
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

impl<W, D: DecoderFormat, Rt> Decoder<W, D, Rt> {
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

impl<W, D: DecoderFormat, Rt> BuildDecoder for Decoder<W, D, Rt> {
    type Inner = W;
    fn build_decoder(inner: W, opts: DecodeOptions) -> Self {
        Decoder {
            inner,
            driver: Driver::from_result(D::from_options(&opts)),
            queue: OutQueue::new(),
            opts,
            runtime: PhantomData,
        }
    }
}

impl<W, D: Decode, Rt> Decoder<W, D, Rt>
where
    D::Error: Into<io::Error>,
{
    /// The runtime's `poll_write`: decodes some of `buf` into the
    /// inner writer as adapted by `sink`, spending `budget`.
    pub(crate) fn poll_write_via<'a, S: Sink>(
        self: Pin<&'a mut Self>,
        sink: impl FnOnce(Pin<&'a mut W>) -> S,
        cx: &mut Context<'_>,
        budget: impl Budget,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        let this = self.project();
        let mut sink = sink(this.inner);
        pump::poll_write_decoded(this.driver, this.queue, &mut sink, cx, budget, buf)
    }

    /// The runtime's `poll_flush`: writes out what the input so far
    /// decodes to, then flushes the sink.
    pub(crate) fn poll_flush_via<'a, S: Sink>(
        self: Pin<&'a mut Self>,
        sink: impl FnOnce(Pin<&'a mut W>) -> S,
        cx: &mut Context<'_>,
        budget: impl Budget,
    ) -> Poll<io::Result<()>> {
        let this = self.project();
        let mut sink = sink(this.inner);
        pump::poll_flush_decoded(this.driver, this.queue, &mut sink, cx, budget)
    }

    /// The runtime's `poll_shutdown`/`poll_close`: requires the stream to be
    /// complete, writes the rest of the output, then closes the sink.
    pub(crate) fn poll_close_via<'a, S: Sink>(
        self: Pin<&'a mut Self>,
        sink: impl FnOnce(Pin<&'a mut W>) -> S,
        cx: &mut Context<'_>,
        budget: impl Budget,
    ) -> Poll<io::Result<()>> {
        let this = self.project();
        let mut sink = sink(this.inner);
        ready!(pump::poll_finish_decoded(
            this.driver,
            this.queue,
            &mut sink,
            cx,
            budget
        ))?;
        sink.poll_close(cx)
    }
}

pin_project_lite::pin_project! {
    /// An encoding writer: bytes in, the compressed stream to `W`, with any
    /// lzflow encoder `E`, for the runtime `Rt`.
    #[derive(Debug)]
    pub struct Encoder<W, E, Rt> {
        #[pin]
        inner: W,
        driver: Driver<E>,
        queue: OutQueue,
        runtime: PhantomData<Rt>,
    }
}

impl<W, E, Rt> Encoder<W, E, Rt> {
    /// Compresses into `inner` with an already configured `coder`.
    pub fn with_coder(inner: W, coder: E) -> Self {
        Self::from_result(inner, Ok(coder))
    }

    fn from_result(inner: W, coder: io::Result<E>) -> Self {
        Encoder {
            inner,
            driver: Driver::from_result(coder),
            queue: OutQueue::new(),
            runtime: PhantomData,
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

    /// The inner writer; shut the encoder down first (tokio's
    /// `shutdown().await`, futures-io's `close().await`) or the stream is
    /// left incomplete.
    pub fn into_inner(self) -> W {
        self.inner
    }

    /// The sans-I/O coder (absent if its options were invalid).
    pub fn coder(&self) -> Option<&E> {
        self.driver.coder()
    }
}

impl<W, E: EncoderFormat, Rt> Encoder<W, E, Rt> {
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

impl<W, E: EncoderFormat, Rt> BuildEncoder for Encoder<W, E, Rt> {
    type Inner = W;
    fn build_encoder(inner: W, opts: EncodeOptions) -> Self {
        Self::from_result(inner, E::from_options(&opts))
    }
}

impl<W, E: Encode, Rt> Encoder<W, E, Rt>
where
    E::Error: Into<io::Error>,
{
    /// The runtime's `poll_write`: compresses some of `buf` into
    /// the inner writer as adapted by `sink`, spending `budget`.
    pub(crate) fn poll_write_via<'a, S: Sink>(
        self: Pin<&'a mut Self>,
        sink: impl FnOnce(Pin<&'a mut W>) -> S,
        cx: &mut Context<'_>,
        budget: impl Budget,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        let this = self.project();
        let mut sink = sink(this.inner);
        pump::poll_write_encoded(this.driver, this.queue, &mut sink, cx, budget, buf)
    }

    /// The runtime's `poll_flush`: makes everything written so far
    /// decodable from the sink's bytes, then flushes it.
    pub(crate) fn poll_flush_via<'a, S: Sink>(
        self: Pin<&'a mut Self>,
        sink: impl FnOnce(Pin<&'a mut W>) -> S,
        cx: &mut Context<'_>,
        budget: impl Budget,
    ) -> Poll<io::Result<()>> {
        let this = self.project();
        let mut sink = sink(this.inner);
        pump::poll_flush_encoded(this.driver, this.queue, &mut sink, cx, budget)
    }

    /// The runtime's `poll_shutdown`/`poll_close`: writes the rest of the stream
    /// and its trailer, then closes the sink.
    pub(crate) fn poll_close_via<'a, S: Sink>(
        self: Pin<&'a mut Self>,
        sink: impl FnOnce(Pin<&'a mut W>) -> S,
        cx: &mut Context<'_>,
        budget: impl Budget,
    ) -> Poll<io::Result<()>> {
        let this = self.project();
        let mut sink = sink(this.inner);
        ready!(pump::poll_finish_encoded(
            this.driver,
            this.queue,
            &mut sink,
            cx,
            budget
        ))?;
        sink.poll_close(cx)
    }
}

/// The public names of a runtime's `write` module, in the module that
/// invokes it, for the runtime `$rt`.
macro_rules! runtime_types {
    ($rt:ty) => {
        /// A decoding writer: compressed bytes in, decoded bytes to `W`,
        /// with any lzflow decoder `D`; the format-named types
        /// ([`XzDecoder`] …) are this with a fixed `D`.
        pub type Decoder<W, D> = $crate::async_face::write::Decoder<W, D, $rt>;
        /// An encoding writer: bytes in, the compressed stream to `W`, with
        /// any lzflow encoder `E`.
        pub type Encoder<W, E> = $crate::async_face::write::Encoder<W, E, $rt>;

        /// Decodes a `.xz` stream written to it (concatenated streams too,
        /// unless [`single_stream`](crate::DecoderBuilder::single_stream)).
        pub type XzDecoder<W> = Decoder<W, ::lzflow_xz::XzDecoder>;
        /// Decodes a `.lzma` (LZMA-alone) stream written to it.
        pub type LzmaDecoder<W> = Decoder<W, ::lzflow_lzma::AloneDecoder>;
        /// Decodes a `.lz` (lzip) file: every member, checked against its trailer.
        pub type LzipDecoder<W> = Decoder<W, ::lzflow_lzip::LzipDecoder>;
        /// Decodes a raw LZMA2 stream written to it.
        pub type Lzma2Decoder<W> = Decoder<W, ::lzflow_lzma::Lzma2Decoder>;
        /// Decodes a raw LZMA1 stream written to it.
        pub type RawLzmaDecoder<W> = Decoder<W, ::lzflow_lzma::LzmaDecoder>;

        /// Compresses into a `.xz` stream.
        pub type XzEncoder<W> = Encoder<W, ::lzflow_xz::XzEncoder>;
        /// Compresses into a `.lzma` (LZMA-alone) stream.
        pub type LzmaEncoder<W> = Encoder<W, ::lzflow_lzma::AloneEncoder>;
        /// Compresses into a `.lz` (lzip) file.
        pub type LzipEncoder<W> = Encoder<W, ::lzflow_lzip::LzipEncoder>;
        /// Compresses into a raw LZMA2 stream (no container).
        pub type Lzma2Encoder<W> = Encoder<W, ::lzflow_lzma::Lzma2Encoder>;
        /// Compresses into a raw LZMA1 stream (no header).
        pub type RawLzmaEncoder<W> = Encoder<W, ::lzflow_lzma::LzmaEncoder>;

        /// Compresses what is written into a `.xz` stream written to an
        /// `AsyncWrite`, blocks in parallel on worker threads; the bytes
        /// are exactly what the single-threaded encoder writes with the
        /// same options. It never blocks the runtime: while a block is
        /// being compressed on a worker, polls return `Pending` and the
        /// worker wakes the task. Shutting it down writes the rest and the
        /// trailer. Configure with
        /// `MtXzEncoder::builder().threads(2).block_size(n).build(w)`.
        pub type MtXzEncoder<W> = $crate::async_face::write::MtXzEncoder<W, $rt>;
    };
}
pub(crate) use runtime_types;
