//! Coders over a [`BufRead`]: reading from them decodes (or encodes) what
//! the inner reader holds.
//!
//! The decoder takes exactly the bytes of the compressed stream from the
//! inner reader, so with [`single_stream`](crate::DecoderBuilder::single_stream)
//! whatever follows the stream is left there for the caller.

use std::io::{self, BufRead, Read};

use lzflow_core::{Decode, Encode};

use crate::decode_options::{BuildDecoder, DecodeOptions, DecoderBuilder, DecoderFormat};
use crate::driver::Driver;
use crate::encode_options::{BuildEncoder, EncodeOptions, EncoderBuilder, EncoderFormat};
use crate::pump::{self, BLOCKING_BUDGET};
use crate::std_io::BufReadSource;

/// Decodes the compressed data read from a `BufRead` with any lzflow
/// decoder `D`; the format-named types ([`LzmaDecoder`] …) are this with a
/// fixed `D`.
#[derive(Debug)]
pub struct Decoder<R, D> {
    inner: R,
    driver: Driver<D>,
    opts: DecodeOptions,
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

    /// The inner reader, positioned after the bytes the decoder consumed.
    pub fn into_inner(self) -> R {
        self.inner
    }

    /// The sans-I/O coder (absent if its options were invalid).
    pub fn coder(&self) -> Option<&D> {
        self.driver.coder()
    }

    /// Compressed bytes the decoder has taken so far (what it consumed,
    /// not what a buffer read ahead).
    pub fn total_in(&self) -> u64 {
        self.driver.total_in()
    }

    /// Decoded bytes made so far.
    pub fn total_out(&self) -> u64 {
        self.driver.total_out()
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

    /// XZ: whether to decode concatenated streams (default `true`). Takes
    /// effect only before the first read.
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

impl<R: BufRead, D: Decode> Read for Decoder<R, D>
where
    D::Error: Into<io::Error>,
{
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let mut src = BufReadSource(&mut self.inner);
        lzflow_core::source::block_on_poll(|cx| {
            pump::poll_read_decoded(&mut self.driver, &mut src, cx, buf, BLOCKING_BUDGET)
        })
    }
}

/// Compresses what is read from a `BufRead` with any lzflow encoder `E`:
/// reading yields the compressed stream, ending with its trailer once the
/// inner reader is at its end.
#[derive(Debug)]
pub struct Encoder<R, E> {
    inner: R,
    driver: Driver<E>,
}

impl<R, E> Encoder<R, E> {
    /// Compresses `inner` with an already configured `coder`.
    pub fn with_coder(inner: R, coder: E) -> Self {
        Encoder {
            inner,
            driver: Driver::new(coder),
        }
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

    /// The inner reader.
    pub fn into_inner(self) -> R {
        self.inner
    }

    /// Uncompressed bytes the encoder has taken so far.
    pub fn total_in(&self) -> u64 {
        self.driver.total_in()
    }

    /// Compressed bytes made so far.
    pub fn total_out(&self) -> u64 {
        self.driver.total_out()
    }
}

impl<R: BufRead, E: Encode> Read for Encoder<R, E>
where
    E::Error: Into<io::Error>,
{
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let mut src = BufReadSource(&mut self.inner);
        lzflow_core::source::block_on_poll(|cx| {
            pump::poll_read_encoded(&mut self.driver, &mut src, cx, buf, BLOCKING_BUDGET)
        })
    }
}

impl<R: BufRead, E: EncoderFormat> Encoder<R, E>
where
    E::Error: Into<io::Error>,
{
    /// Compresses what is read from `inner` at `xz` preset `level` (0..=9), like xz2's and
    /// liblzma's `new(inner, level)`.
    pub fn new(inner: R, level: u32) -> Self {
        Self::builder().preset(level).build(inner)
    }

    /// Options beyond the preset:
    /// `Encoder::builder().preset(9).extreme().check(Check::Sha256).build(inner)`.
    pub fn builder() -> EncoderBuilder<Self> {
        EncoderBuilder::default()
    }
}

impl<R: BufRead, E: EncoderFormat> BuildEncoder for Encoder<R, E>
where
    E::Error: Into<io::Error>,
{
    type Inner = R;
    fn build_encoder(inner: R, opts: EncodeOptions) -> Self {
        Self::from_result(inner, E::from_options(&opts))
    }
}

/// Decodes a `.xz` file (concatenated streams too, unless
/// [`single_stream`](DecoderBuilder::single_stream)).
pub type XzDecoder<R> = Decoder<R, lzflow_xz::XzDecoder>;
/// Decodes a `.xz` file on worker threads (blocks that state their
/// sizes, as `xz -T` and lzflow's encoder write them, are decoded in
/// parallel; output and errors are those of [`XzDecoder`]). Set the thread
/// count with [`DecoderBuilder::threads`]. A read may block while it
/// waits for a worker, so use it from blocking code, not on an async
/// executor thread.
pub type MtXzDecoder<R> = Decoder<R, lzflow_xz::MtXzDecoder>;
/// Decodes a `.lzma` (LZMA-alone) file.
pub type LzmaDecoder<R> = Decoder<R, lzflow_lzma::AloneDecoder>;
/// Decodes a `.lz` (lzip) file: every member, checked against its trailer.
pub type LzipDecoder<R> = Decoder<R, lzflow_lzip::LzipDecoder>;
/// Decodes a raw LZMA2 stream (no container); set its dictionary size
/// with [`DecoderBuilder::dict_size`].
pub type Lzma2Decoder<R> = Decoder<R, lzflow_lzma::Lzma2Decoder>;
/// Decodes a raw LZMA2 stream on worker threads: the pieces between
/// dictionary resets (7-Zip's multi-threaded encoder and
/// [`MtLzma2Encoder`](lzflow_lzma::MtLzma2Encoder) write them) decode in
/// parallel, with the output and errors of [`Lzma2Decoder`]. Set the
/// dictionary size with [`DecoderBuilder::dict_size`], the threads with
/// [`DecoderBuilder::threads`]. A read may block while it waits for a
/// worker, so use it from blocking code, not on an async executor thread.
pub type MtLzma2Decoder<R> = Decoder<R, lzflow_lzma::MtLzma2Decoder>;
/// Decodes a raw LZMA1 stream (no header); set its properties with the
/// builder's [`props`](DecoderBuilder::props) and
/// [`dict_size`](DecoderBuilder::dict_size).
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
