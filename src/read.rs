//! Coders over a [`Read`]: the [`bufread`](mod@crate::bufread) faces over a
//! [`BufReader`].
//!
//! The buffer may read past the end of the compressed stream; use the
//! `bufread` faces when the bytes after it matter.
//!
//! [`MtXzDecoder`] decodes the Blocks of a `.xz` file on worker threads;
//! [`write::MtXzEncoder`](crate::write::MtXzEncoder) writes files whose
//! Blocks it can split (as does `xz -T`):
//! ```
//! use std::io::{Read, Write};
//!
//! let data: Vec<u8> = (0..600_000u32).map(|i| (i % 251) as u8).collect();
//! let mut encoder = lzflow::write::MtXzEncoder::mt_builder()
//!     .threads(2)
//!     .preset(1)
//!     .block_size(128 << 10) // several Blocks to share out
//!     .build(Vec::new());
//! encoder.write_all(&data)?;
//! let xz = encoder.finish()?;
//!
//! let mut decoder = lzflow::read::MtXzDecoder::builder()
//!     .threads(2)
//!     .build(&xz[..]);
//! let mut out = Vec::new();
//! decoder.read_to_end(&mut out)?;
//! assert_eq!(out, data);
//! # Ok::<(), std::io::Error>(())
//! ```

use std::io::{self, BufReader, Read};

use lzflow_core::{Decode, Encode};

use crate::bufread;
use crate::decode_options::{BuildDecoder, DecodeOptions, DecoderBuilder, DecoderFormat};
use crate::encode_options::{BuildEncoder, EncodeOptions, EncoderBuilder, EncoderFormat};

/// Decodes the compressed data read from a `Read` with any lzflow decoder
/// `D`; the format-named types ([`LzmaDecoder`] …) are this with a fixed `D`.
#[derive(Debug)]
pub struct Decoder<R, D> {
    inner: bufread::Decoder<BufReader<R>, D>,
}

impl<R: Read, D> Decoder<R, D> {
    /// Decodes `inner` with an already configured `coder`.
    pub fn with_coder(inner: R, coder: D) -> Self {
        Decoder {
            inner: bufread::Decoder::with_coder(BufReader::new(inner), coder),
        }
    }
}

impl<R, D> Decoder<R, D> {
    /// The inner reader.
    pub fn get_ref(&self) -> &R {
        self.inner.get_ref().get_ref()
    }

    /// The inner reader. Reading from it directly corrupts the stream.
    pub fn get_mut(&mut self) -> &mut R {
        self.inner.get_mut().get_mut()
    }

    /// The inner reader; bytes buffered but not decoded are lost.
    pub fn into_inner(self) -> R {
        self.inner.into_inner().into_inner()
    }

    /// The sans-I/O coder (absent if its options were invalid).
    pub fn coder(&self) -> Option<&D> {
        self.inner.coder()
    }

    /// Compressed bytes the decoder has taken so far (what it consumed,
    /// not what a buffer read ahead).
    pub fn total_in(&self) -> u64 {
        self.inner.total_in()
    }

    /// Decoded bytes made so far.
    pub fn total_out(&self) -> u64 {
        self.inner.total_out()
    }
}

impl<R: Read, D: DecoderFormat> Decoder<R, D> {
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
        self.inner.multiple_members(enabled);
    }
}

impl<R: Read, D: DecoderFormat> BuildDecoder for Decoder<R, D> {
    type Inner = R;
    fn build_decoder(inner: R, opts: DecodeOptions) -> Self {
        Decoder {
            inner: bufread::Decoder::build_decoder(BufReader::new(inner), opts),
        }
    }
}

impl<R: Read, D: Decode> Read for Decoder<R, D>
where
    D::Error: Into<io::Error>,
{
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        self.inner.read(buf)
    }
}

/// Compresses what is read from a `Read` with any lzflow encoder `E`.
#[derive(Debug)]
pub struct Encoder<R, E> {
    inner: bufread::Encoder<BufReader<R>, E>,
}

impl<R: Read, E> Encoder<R, E> {
    /// Compresses `inner` with an already configured `coder`.
    pub fn with_coder(inner: R, coder: E) -> Self {
        Encoder {
            inner: bufread::Encoder::with_coder(BufReader::new(inner), coder),
        }
    }

    pub(crate) fn from_result(inner: R, coder: io::Result<E>) -> Self {
        Encoder {
            inner: bufread::Encoder::from_result(BufReader::new(inner), coder),
        }
    }
}

impl<R, E> Encoder<R, E> {
    /// The inner reader.
    pub fn get_ref(&self) -> &R {
        self.inner.get_ref().get_ref()
    }

    /// The inner reader. Reading from it directly loses data.
    pub fn get_mut(&mut self) -> &mut R {
        self.inner.get_mut().get_mut()
    }

    /// The inner reader; bytes buffered but not compressed are lost.
    pub fn into_inner(self) -> R {
        self.inner.into_inner().into_inner()
    }

    /// Uncompressed bytes the encoder has taken so far.
    pub fn total_in(&self) -> u64 {
        self.inner.total_in()
    }

    /// Compressed bytes made so far.
    pub fn total_out(&self) -> u64 {
        self.inner.total_out()
    }
}

impl<R: Read, E: Encode> Read for Encoder<R, E>
where
    E::Error: Into<io::Error>,
{
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        self.inner.read(buf)
    }
}

impl<R: Read, E: EncoderFormat> Encoder<R, E>
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

impl<R: Read, E: EncoderFormat> BuildEncoder for Encoder<R, E>
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
