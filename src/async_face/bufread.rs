//! The reading faces: [`Decoder`] and [`Encoder`] over an `AsyncBufRead`,
//! and [`MtXzDecoder`]. The runtime's `AsyncRead` impls are in
//! [`crate::tokio::bufread`] and [`crate::futures::bufread`].

use std::io;
use std::marker::PhantomData;
use std::pin::Pin;
use std::task::{Context, Poll};

use lzflow_core::{Decode, Encode};

use crate::decode_options::{BuildDecoder, DecodeOptions, DecoderBuilder, DecoderFormat};
use crate::driver::Driver;
use crate::encode_options::{BuildEncoder, EncodeOptions, EncoderBuilder, EncoderFormat, Level};
use crate::pump::{self, Budget, Source};

pub use super::mt::{MtDecoder, MtLzma2Decoder, MtXzDecoder};

pin_project_lite::pin_project! {
    /// Decodes what an `AsyncBufRead` yields with any lzflow decoder `D`,
    /// for the runtime `Rt`; the format-named types (`XzDecoder` …) are
    /// this with a fixed `D`.
    #[derive(Debug)]
    pub struct Decoder<R, D, Rt> {
        #[pin]
        inner: R,
        driver: Driver<D>,
        opts: DecodeOptions,
        runtime: PhantomData<Rt>,
    }
}

impl<R, D, Rt> Decoder<R, D, Rt> {
    /// Decodes `inner` with an already configured `coder`.
    pub fn with_coder(inner: R, coder: D) -> Self {
        Decoder {
            inner,
            driver: Driver::new(coder),
            opts: DecodeOptions::default(),
            runtime: PhantomData,
        }
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
    pub fn coder(&self) -> Option<&D> {
        self.driver.coder()
    }
}

impl<R, D: DecoderFormat, Rt> Decoder<R, D, Rt> {
    /// Decodes `inner` with default options (no limits, multi-stream XZ,
    /// checks verified).
    pub fn new(inner: R) -> Self {
        Self::build_decoder(inner, DecodeOptions::default())
    }

    /// Options beyond the defaults: `Decoder::builder().memlimit(n).build(r)`.
    pub fn builder() -> DecoderBuilder<Self> {
        DecoderBuilder::default()
    }

    /// Decodes `inner` refusing to allocate more than `limit` bytes (the
    /// name async-compression uses; same as `builder().memlimit(limit)`).
    pub fn with_mem_limit(inner: R, limit: u64) -> Self {
        Self::builder().memlimit(limit).build(inner)
    }

    /// XZ: whether to decode concatenated streams (default `true`, unlike
    /// async-compression, because `xz` does). Takes effect only before the
    /// first read.
    pub fn multiple_members(&mut self, enabled: bool) {
        if self.driver.is_fresh() && self.opts.multi_stream != enabled {
            self.opts.multi_stream = enabled;
            self.driver = Driver::from_result(D::from_options(&self.opts));
        }
    }
}

impl<R, D: DecoderFormat, Rt> BuildDecoder for Decoder<R, D, Rt> {
    type Inner = R;
    fn build_decoder(inner: R, opts: DecodeOptions) -> Self {
        Decoder {
            inner,
            driver: Driver::from_result(D::from_options(&opts)),
            opts,
            runtime: PhantomData,
        }
    }
}

impl<R, D: Decode, Rt> Decoder<R, D, Rt>
where
    D::Error: Into<io::Error>,
{
    /// The runtime's `poll_read`: decodes into `out` from the inner reader
    /// as adapted by `source`, spending `budget`.
    pub(crate) fn poll_read_via<'a, S: Source>(
        self: Pin<&'a mut Self>,
        source: impl FnOnce(Pin<&'a mut R>) -> S,
        cx: &mut Context<'_>,
        out: &mut [u8],
        budget: impl Budget,
    ) -> Poll<io::Result<usize>> {
        let this = self.project();
        pump::poll_read_decoded(this.driver, &mut source(this.inner), cx, out, budget)
    }
}

pin_project_lite::pin_project! {
    /// Compresses what an `AsyncBufRead` yields with any lzflow encoder
    /// `E`, for the runtime `Rt`: reading yields the compressed stream,
    /// ending with its trailer once the inner reader is at its end.
    #[derive(Debug)]
    pub struct Encoder<R, E, Rt> {
        #[pin]
        inner: R,
        driver: Driver<E>,
        runtime: PhantomData<Rt>,
    }
}

impl<R, E, Rt> Encoder<R, E, Rt> {
    /// Compresses `inner` with an already configured `coder`.
    pub fn with_coder(inner: R, coder: E) -> Self {
        Self::from_result(inner, Ok(coder))
    }

    fn from_result(inner: R, coder: io::Result<E>) -> Self {
        Encoder {
            inner,
            driver: Driver::from_result(coder),
            runtime: PhantomData,
        }
    }

    /// The inner reader.
    pub fn get_ref(&self) -> &R {
        &self.inner
    }

    /// The inner reader. Reading from it directly loses data.
    pub fn get_mut(&mut self) -> &mut R {
        &mut self.inner
    }

    /// The pinned inner reader.
    pub fn get_pin_mut(self: Pin<&mut Self>) -> Pin<&mut R> {
        self.project().inner
    }

    /// The inner reader.
    pub fn into_inner(self) -> R {
        self.inner
    }
}

impl<R, E: EncoderFormat, Rt> Encoder<R, E, Rt> {
    /// Compresses what is read from `inner` at the default level (`xz` preset 6).
    pub fn new(inner: R) -> Self {
        Self::builder().build(inner)
    }

    /// Compresses what is read from `inner` at `level`.
    pub fn with_quality(inner: R, level: Level) -> Self {
        Self::builder().quality(level).build(inner)
    }

    /// Options beyond the level:
    /// `Encoder::builder().preset(9).extreme().check(Check::Sha256).build(inner)`.
    pub fn builder() -> EncoderBuilder<Self> {
        EncoderBuilder::default()
    }
}

impl<R, E: EncoderFormat, Rt> BuildEncoder for Encoder<R, E, Rt> {
    type Inner = R;
    fn build_encoder(inner: R, opts: EncodeOptions) -> Self {
        Self::from_result(inner, E::from_options(&opts))
    }
}

impl<R, E: Encode, Rt> Encoder<R, E, Rt>
where
    E::Error: Into<io::Error>,
{
    /// The runtime's `poll_read`: compresses from the inner reader as
    /// adapted by `source` into `out`, spending `budget`.
    pub(crate) fn poll_read_via<'a, S: Source>(
        self: Pin<&'a mut Self>,
        source: impl FnOnce(Pin<&'a mut R>) -> S,
        cx: &mut Context<'_>,
        out: &mut [u8],
        budget: impl Budget,
    ) -> Poll<io::Result<usize>> {
        let this = self.project();
        pump::poll_read_encoded(this.driver, &mut source(this.inner), cx, out, budget)
    }
}

/// The public names of a runtime's `bufread` module, in the module that
/// invokes it, for the runtime `$rt`.
macro_rules! runtime_types {
    ($rt:ty) => {
        /// Decodes what an `AsyncBufRead` yields with any lzflow decoder
        /// `D`; the format-named types ([`XzDecoder`] …) are this with a
        /// fixed `D`.
        pub type Decoder<R, D> = $crate::async_face::bufread::Decoder<R, D, $rt>;
        /// Compresses what an `AsyncBufRead` yields with any lzflow encoder
        /// `E`: reading yields the compressed stream, ending with its
        /// trailer once the inner reader is at its end.
        pub type Encoder<R, E> = $crate::async_face::bufread::Encoder<R, E, $rt>;

        /// Decodes a `.xz` stream (concatenated streams too, unless
        /// [`single_stream`](crate::DecoderBuilder::single_stream)).
        pub type XzDecoder<R> = Decoder<R, ::lzflow_xz::XzDecoder>;
        /// Decodes a `.lzma` (LZMA-alone) stream.
        pub type LzmaDecoder<R> = Decoder<R, ::lzflow_lzma::AloneDecoder>;
        /// Decodes a `.lz` (lzip) file: every member, checked against its trailer.
        pub type LzipDecoder<R> = Decoder<R, ::lzflow_lzip::LzipDecoder>;
        /// Decodes a raw LZMA2 stream; set its dictionary size with
        /// [`DecoderBuilder::dict_size`](crate::DecoderBuilder::dict_size).
        pub type Lzma2Decoder<R> = Decoder<R, ::lzflow_lzma::Lzma2Decoder>;
        /// Decodes a raw LZMA1 stream.
        pub type RawLzmaDecoder<R> = Decoder<R, ::lzflow_lzma::LzmaDecoder>;

        /// Compresses into a `.xz` stream.
        pub type XzEncoder<R> = Encoder<R, ::lzflow_xz::XzEncoder>;
        /// Compresses into a `.lzma` (LZMA-alone) stream.
        pub type LzmaEncoder<R> = Encoder<R, ::lzflow_lzma::AloneEncoder>;
        /// Compresses into a `.lz` (lzip) file.
        pub type LzipEncoder<R> = Encoder<R, ::lzflow_lzip::LzipEncoder>;
        /// Compresses into a raw LZMA2 stream (no container).
        pub type Lzma2Encoder<R> = Encoder<R, ::lzflow_lzma::Lzma2Encoder>;
        /// Compresses into a raw LZMA1 stream (no header).
        pub type RawLzmaEncoder<R> = Encoder<R, ::lzflow_lzma::LzmaEncoder>;

        /// Decodes a `.xz` stream read from an `AsyncBufRead`, blocks in
        /// parallel on worker threads (those whose headers carry both
        /// sizes: `xz -T`, `MtXzEncoder` and lzflow's encoders write
        /// them). Output and errors are the single-threaded
        /// decoder's. It never blocks the runtime: while a block is being
        /// decoded on a worker, polls return `Pending` and the worker wakes
        /// the task. Configure with
        /// `MtXzDecoder::builder().threads(2).memory_budget(n).build(r)`.
        pub type MtXzDecoder<R> = $crate::async_face::bufread::MtXzDecoder<R, $rt>;
        /// Decodes a raw LZMA2 stream read from an `AsyncBufRead`, the
        /// pieces between dictionary resets (7-Zip's multi-threaded
        /// encoder writes them) in parallel on worker threads. Output and
        /// errors are the single-threaded decoder's; it never blocks the
        /// runtime. Configure with
        /// `MtLzma2Decoder::builder().dict_size(d).threads(2).build(r)`.
        pub type MtLzma2Decoder<R> = $crate::async_face::bufread::MtLzma2Decoder<R, $rt>;
    };
}
pub(crate) use runtime_types;
