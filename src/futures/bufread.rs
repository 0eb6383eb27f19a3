//! futures-io faces over an [`AsyncBufRead`]: they implement [`AsyncRead`],
//! yielding the decoded (or compressed) bytes.
//!
//! Each poll produces at most one batch (16 KiB by default) and refills the
//! input a bounded number of times, so one read is short; there is no
//! budget across reads (see the module docs). Dropping a read future loses
//! nothing: consumed input is the coder's.

use std::io;
use std::pin::Pin;
use std::task::{Context, Poll};

use futures_io::{AsyncBufRead, AsyncRead};
use lzflow_core::{Decode, Encode};

use crate::decode_options::{BuildDecoder, DecodeOptions, DecoderBuilder, DecoderFormat};
use crate::driver::Driver;
use crate::encode_options::{BuildEncoder, EncodeOptions, EncoderBuilder, EncoderFormat, Level};
use crate::pump::{self, Source, ASYNC_BUDGET};

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

pin_project_lite::pin_project! {
    /// Decodes what an `AsyncBufRead` yields with any lzflow decoder `D`;
    /// the format-named types ([`XzDecoder`] …) are this with a fixed `D`.
    #[derive(Debug)]
    pub struct Decoder<R, D> {
        #[pin]
        inner: R,
        driver: Driver<D>,
        opts: DecodeOptions,
    }
}

impl<R, D> Decoder<R, D> {
    /// Decodes `inner` with an already configured `coder`.
    pub fn with_coder(inner: R, coder: D) -> Self {
        Decoder {
            inner,
            driver: Driver::new(coder),
            opts: DecodeOptions::default(),
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

impl<R, D: DecoderFormat> Decoder<R, D> {
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

impl<R, D: DecoderFormat> BuildDecoder for Decoder<R, D> {
    type Inner = R;
    fn build_decoder(inner: R, opts: DecodeOptions) -> Self {
        Decoder {
            inner,
            driver: Driver::from_result(D::from_options(&opts)),
            opts,
        }
    }
}

impl<R: AsyncBufRead, D: Decode> AsyncRead for Decoder<R, D>
where
    D::Error: Into<io::Error>,
{
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut [u8],
    ) -> Poll<io::Result<usize>> {
        let this = self.project();
        let mut src = FuturesSource(this.inner);
        pump::poll_read_decoded(this.driver, &mut src, cx, buf, ASYNC_BUDGET)
    }
}

pin_project_lite::pin_project! {
    /// Compresses what an `AsyncBufRead` yields with any lzflow encoder
    /// `E`: reading yields the compressed stream, ending with its trailer
    /// once the inner reader is at its end.
    #[derive(Debug)]
    pub struct Encoder<R, E> {
        #[pin]
        inner: R,
        driver: Driver<E>,
    }
}

impl<R, E> Encoder<R, E> {
    /// Compresses `inner` with an already configured `coder`.
    pub fn with_coder(inner: R, coder: E) -> Self {
        Self::from_result(inner, Ok(coder))
    }

    pub(crate) fn from_result(inner: R, coder: io::Result<E>) -> Self {
        Encoder {
            inner,
            driver: Driver::from_result(coder),
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

impl<R: AsyncBufRead, E: Encode> AsyncRead for Encoder<R, E>
where
    E::Error: Into<io::Error>,
{
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut [u8],
    ) -> Poll<io::Result<usize>> {
        let this = self.project();
        let mut src = FuturesSource(this.inner);
        pump::poll_read_encoded(this.driver, &mut src, cx, buf, ASYNC_BUDGET)
    }
}

impl<R, E: EncoderFormat> Encoder<R, E> {
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

impl<R, E: EncoderFormat> BuildEncoder for Encoder<R, E> {
    type Inner = R;
    fn build_encoder(inner: R, opts: EncodeOptions) -> Self {
        Self::from_result(inner, E::from_options(&opts))
    }
}

/// Decodes a `.xz` stream (concatenated streams too, unless
/// [`single_stream`](DecoderBuilder::single_stream)).
pub type XzDecoder<R> = Decoder<R, lzflow_xz::XzDecoder>;
/// Decodes a `.lzma` (LZMA-alone) stream.
pub type LzmaDecoder<R> = Decoder<R, lzflow_lzma::AloneDecoder>;
/// Decodes a `.lz` (lzip) file: every member, checked against its trailer.
pub type LzipDecoder<R> = Decoder<R, lzflow_lzip::LzipDecoder>;
/// Decodes a raw LZMA2 stream; set its dictionary size with
/// [`DecoderBuilder::dict_size`].
pub type Lzma2Decoder<R> = Decoder<R, lzflow_lzma::Lzma2Decoder>;
/// Decodes a raw LZMA1 stream.
pub type RawLzmaDecoder<R> = Decoder<R, lzflow_lzma::LzmaDecoder>;

/// Compresses into a `.xz` stream.
pub type XzEncoder<R> = Encoder<R, lzflow_xz::XzEncoder>;
/// Compresses into a `.lzma` (LZMA-alone) stream.
pub type LzmaEncoder<R> = Encoder<R, lzflow_lzma::AloneEncoder>;
/// Compresses into a `.lz` (lzip) file.
pub type LzipEncoder<R> = Encoder<R, lzflow_lzip::LzipEncoder>;
/// Compresses into a raw LZMA2 stream (no container).
pub type Lzma2Encoder<R> = Encoder<R, lzflow_lzma::Lzma2Encoder>;
/// Compresses into a raw LZMA1 stream (no header).
pub type RawLzmaEncoder<R> = Encoder<R, lzflow_lzma::LzmaEncoder>;

pub use super::mt::MtXzDecoder;
