//! Coders over a [`Write`]: bytes written to them are decoded (or encoded)
//! and the result is written to the inner writer.
//!
//! Call [`Encoder::finish`] (or [`Decoder::finish`]) to complete the stream
//! and see its errors; dropping an unfinished coder finishes it and ignores
//! errors, like flate2's writers.

use std::io::{self, Write};

use lzflow_core::{Decode, Encode};

use crate::decode_options::{BuildDecoder, DecodeOptions, DecoderBuilder, DecoderFormat};
use crate::driver::Driver;
use crate::encode_options::{BuildEncoder, EncodeOptions, EncoderBuilder, EncoderFormat};
use crate::pump::{self, OutQueue, BLOCKING_BUDGET};
use crate::std_io::WriteSink;

/// The inner writer, present until `finish`/`into_inner` take it.
const TAKEN: &str = "lzflow: the writer was already taken";

/// A decoding writer: compressed bytes in, decoded bytes to `W`, with any
/// lzflow decoder `D`; the format-named types ([`LzmaDecoder`] …) are this
/// with a fixed `D`.
#[derive(Debug)]
pub struct Decoder<W: Write, D: Decode>
where
    D::Error: Into<io::Error>,
{
    inner: Option<W>,
    driver: Driver<D>,
    queue: OutQueue,
    opts: DecodeOptions,
}

impl<W: Write, D: Decode> Decoder<W, D>
where
    D::Error: Into<io::Error>,
{
    /// Decodes into `inner` with an already configured `coder`.
    pub fn with_coder(inner: W, coder: D) -> Self {
        Decoder {
            inner: Some(inner),
            driver: Driver::new(coder),
            queue: OutQueue::new(),
            opts: DecodeOptions::default(),
        }
    }

    /// The inner writer.
    pub fn get_ref(&self) -> &W {
        self.inner.as_ref().expect(TAKEN)
    }

    /// The inner writer. Writing to it directly interleaves with output.
    pub fn get_mut(&mut self) -> &mut W {
        self.inner.as_mut().expect(TAKEN)
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

    /// Requires the compressed stream to be complete and writes all decoded
    /// data; a truncated stream is an `UnexpectedEof` error.
    pub fn try_finish(&mut self) -> io::Result<()> {
        let inner = self.inner.as_mut().expect(TAKEN);
        let mut sink = WriteSink(inner);
        lzflow_core::source::block_on_poll(|cx| {
            pump::poll_finish_decoded(
                &mut self.driver,
                &mut self.queue,
                &mut sink,
                cx,
                BLOCKING_BUDGET,
            )
        })?;
        inner_flush(&mut self.inner)
    }

    /// [`try_finish`](Self::try_finish), then returns the inner writer.
    pub fn finish(mut self) -> io::Result<W> {
        self.try_finish()?;
        Ok(self.inner.take().expect(TAKEN))
    }

    /// The inner writer, without finishing: decoded bytes not yet written
    /// are lost.
    pub fn into_inner(mut self) -> W {
        self.inner.take().expect(TAKEN)
    }
}

impl<W: Write, D: DecoderFormat> Decoder<W, D>
where
    D::Error: Into<io::Error>,
{
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

impl<W: Write, D: DecoderFormat> BuildDecoder for Decoder<W, D>
where
    D::Error: Into<io::Error>,
{
    type Inner = W;
    fn build_decoder(inner: W, opts: DecodeOptions) -> Self {
        Decoder {
            inner: Some(inner),
            driver: Driver::from_result(D::from_options(&opts)),
            queue: OutQueue::new(),
            opts,
        }
    }
}

fn inner_flush<W: Write>(inner: &mut Option<W>) -> io::Result<()> {
    inner.as_mut().expect(TAKEN).flush()
}

impl<W: Write, D: Decode> Write for Decoder<W, D>
where
    D::Error: Into<io::Error>,
{
    /// Decodes some of `buf`. Returns `Ok(0)` for a non-empty `buf` once the
    /// stream has ended: the rest is not part of it.
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let mut sink = WriteSink(self.inner.as_mut().expect(TAKEN));
        lzflow_core::source::block_on_poll(|cx| {
            pump::poll_write_decoded(
                &mut self.driver,
                &mut self.queue,
                &mut sink,
                cx,
                BLOCKING_BUDGET,
                buf,
            )
        })
    }

    /// Writes out everything decodable from the input so far.
    fn flush(&mut self) -> io::Result<()> {
        let mut sink = WriteSink(self.inner.as_mut().expect(TAKEN));
        lzflow_core::source::block_on_poll(|cx| {
            pump::poll_flush_decoded(
                &mut self.driver,
                &mut self.queue,
                &mut sink,
                cx,
                BLOCKING_BUDGET,
            )
        })
    }
}

impl<W: Write, D: Decode> Drop for Decoder<W, D>
where
    D::Error: Into<io::Error>,
{
    fn drop(&mut self) {
        if self.inner.is_some() {
            let _ = self.try_finish();
        }
    }
}

/// An encoding writer: bytes in, the compressed stream to `W`, with any
/// lzflow encoder `E`.
#[derive(Debug)]
pub struct Encoder<W: Write, E: Encode>
where
    E::Error: Into<io::Error>,
{
    inner: Option<W>,
    driver: Driver<E>,
    queue: OutQueue,
}

impl<W: Write, E: Encode> Encoder<W, E>
where
    E::Error: Into<io::Error>,
{
    /// Compresses into `inner` with an already configured `coder`.
    pub fn with_coder(inner: W, coder: E) -> Self {
        Self::from_result(inner, Ok(coder))
    }

    pub(crate) fn from_result(inner: W, coder: io::Result<E>) -> Self {
        Encoder {
            inner: Some(inner),
            driver: Driver::from_result(coder),
            queue: OutQueue::new(),
        }
    }

    /// The inner writer.
    pub fn get_ref(&self) -> &W {
        self.inner.as_ref().expect(TAKEN)
    }

    /// The inner writer. Writing to it directly corrupts the stream.
    pub fn get_mut(&mut self) -> &mut W {
        self.inner.as_mut().expect(TAKEN)
    }

    /// The sans-I/O coder (absent if its options were invalid).
    pub fn coder(&self) -> Option<&E> {
        self.driver.coder()
    }

    /// Uncompressed bytes the encoder has taken so far.
    pub fn total_in(&self) -> u64 {
        self.driver.total_in()
    }

    /// Compressed bytes made so far.
    pub fn total_out(&self) -> u64 {
        self.driver.total_out()
    }

    /// Ends the compressed stream and writes all of it. Calling it again
    /// (e.g. after an interrupted attempt) writes only what is missing.
    pub fn try_finish(&mut self) -> io::Result<()> {
        let inner = self.inner.as_mut().expect(TAKEN);
        let mut sink = WriteSink(inner);
        lzflow_core::source::block_on_poll(|cx| {
            pump::poll_finish_encoded(
                &mut self.driver,
                &mut self.queue,
                &mut sink,
                cx,
                BLOCKING_BUDGET,
            )
        })?;
        inner_flush(&mut self.inner)
    }

    /// [`try_finish`](Self::try_finish), then returns the inner writer.
    pub fn finish(mut self) -> io::Result<W> {
        self.try_finish()?;
        Ok(self.inner.take().expect(TAKEN))
    }

    /// The inner writer, without finishing: the stream is left incomplete.
    pub fn into_inner(mut self) -> W {
        self.inner.take().expect(TAKEN)
    }
}

impl<W: Write, E: Encode> Write for Encoder<W, E>
where
    E::Error: Into<io::Error>,
{
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let mut sink = WriteSink(self.inner.as_mut().expect(TAKEN));
        lzflow_core::source::block_on_poll(|cx| {
            pump::poll_write_encoded(
                &mut self.driver,
                &mut self.queue,
                &mut sink,
                cx,
                BLOCKING_BUDGET,
                buf,
            )
        })
    }

    /// Makes everything written so far decodable from the inner writer's
    /// bytes (an LZMA2 chunk boundary), then flushes it.
    fn flush(&mut self) -> io::Result<()> {
        let mut sink = WriteSink(self.inner.as_mut().expect(TAKEN));
        lzflow_core::source::block_on_poll(|cx| {
            pump::poll_flush_encoded(
                &mut self.driver,
                &mut self.queue,
                &mut sink,
                cx,
                BLOCKING_BUDGET,
            )
        })
    }
}

impl<W: Write, E: Encode> Drop for Encoder<W, E>
where
    E::Error: Into<io::Error>,
{
    fn drop(&mut self) {
        if self.inner.is_some() {
            let _ = self.try_finish();
        }
    }
}

impl<W: Write, E: EncoderFormat> Encoder<W, E>
where
    E::Error: Into<io::Error>,
{
    /// Compresses what is written into `inner` at `xz` preset `level` (0..=9), like xz2's and
    /// liblzma's `new(inner, level)`.
    pub fn new(inner: W, level: u32) -> Self {
        Self::builder().preset(level).build(inner)
    }

    /// Options beyond the preset:
    /// `Encoder::builder().preset(9).extreme().check(Check::Sha256).build(inner)`.
    pub fn builder() -> EncoderBuilder<Self> {
        EncoderBuilder::default()
    }
}

impl<W: Write, E: EncoderFormat> BuildEncoder for Encoder<W, E>
where
    E::Error: Into<io::Error>,
{
    type Inner = W;
    fn build_encoder(inner: W, opts: EncodeOptions) -> Self {
        Self::from_result(inner, E::from_options(&opts))
    }
}

/// Decodes a `.xz` stream written to it (concatenated streams too, unless
/// [`single_stream`](DecoderBuilder::single_stream)).
pub type XzDecoder<W> = Decoder<W, lzflow_xz::XzDecoder>;
/// Decodes a `.xz` stream written to it on worker threads (blocks that state their
/// sizes, as `xz -T` and lzflow's encoder write them, are decoded in
/// parallel; output and errors are those of [`XzDecoder`]). Set the thread
/// count with [`DecoderBuilder::threads`]. A read may block while it
/// waits for a worker, so use it from blocking code, not on an async
/// executor thread.
pub type MtXzDecoder<W> = Decoder<W, lzflow_xz::MtXzDecoder>;
/// Decodes a `.lzma` (LZMA-alone) stream written to it.
pub type LzmaDecoder<W> = Decoder<W, lzflow_lzma::AloneDecoder>;
/// Decodes a `.lz` (lzip) file: every member, checked against its trailer.
pub type LzipDecoder<W> = Decoder<W, lzflow_lzip::LzipDecoder>;
/// Decodes a raw LZMA2 stream written to it; set its dictionary size with
/// [`DecoderBuilder::dict_size`].
pub type Lzma2Decoder<W> = Decoder<W, lzflow_lzma::Lzma2Decoder>;
/// Decodes a raw LZMA2 stream on worker threads: the pieces between
/// dictionary resets (7-Zip's multi-threaded encoder and
/// [`MtLzma2Encoder`](lzflow_lzma::MtLzma2Encoder) write them) decode in
/// parallel, with the output and errors of [`Lzma2Decoder`]. Set the
/// dictionary size with [`DecoderBuilder::dict_size`], the threads with
/// [`DecoderBuilder::threads`]. A read may block while it waits for a
/// worker, so use it from blocking code, not on an async executor thread.
pub type MtLzma2Decoder<W> = Decoder<W, lzflow_lzma::MtLzma2Decoder>;
/// Decodes a raw LZMA1 stream written to it.
pub type RawLzmaDecoder<W> = Decoder<W, lzflow_lzma::LzmaDecoder>;

/// Compresses into a `.xz` file.
pub type XzEncoder<W> = Encoder<W, lzflow_xz::XzEncoder>;
/// Compresses into a `.lzma` (LZMA-alone) file.
pub type LzmaEncoder<W> = Encoder<W, lzflow_lzma::AloneEncoder>;
/// Compresses into a `.lz` (lzip) file.
pub type LzipEncoder<W> = Encoder<W, lzflow_lzip::LzipEncoder>;
/// Compresses into a raw LZMA2 stream (no container).
pub type Lzma2Encoder<W> = Encoder<W, lzflow_lzma::Lzma2Encoder>;
/// Compresses into a raw LZMA1 stream (no header).
pub type RawLzmaEncoder<W> = Encoder<W, lzflow_lzma::LzmaEncoder>;
/// Compresses into a `.xz` stream with blocks compressed on worker threads
/// (same bytes as [`XzEncoder`]); choose the thread count with
/// [`mt_builder`](Encoder::mt_builder).
pub type MtXzEncoder<W> = Encoder<W, lzflow_xz::MtXzEncoder>;
