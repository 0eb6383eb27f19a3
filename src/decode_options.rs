//! Options the decoding faces' builders collect, and the trait that turns
//! them into a format's decoder.

use std::io;

use lzflow_core::{Limits, Pool};
use lzflow_lzma::{DecoderOptions, LzmaProps};

/// Everything a decoding face may be configured with. Each format uses the
/// fields that apply to it and ignores the rest.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct DecodeOptions {
    /// Limits, batch size and pools of the LZMA layer.
    pub lzma: DecoderOptions,
    /// XZ and lzip: decode concatenated streams (members) and stream
    /// padding (like `xz`; default `true`). When `false` decoding stops
    /// after the first stream and the bytes after it stay in the reader.
    pub multi_stream: bool,
    /// XZ: verify each block's check (default `true`).
    pub verify_check: bool,
    /// Raw LZMA/LZMA2: the dictionary size the stream was made with
    /// (default 8 MiB, the size of `xz`'s default preset).
    pub dict_size: u32,
    /// Raw LZMA1: literal context/position bits and position bits
    /// (default lc=3 lp=0 pb=2).
    pub props: LzmaProps,
    /// Raw LZMA1: the decoded size when known; `None` means the stream ends
    /// with an end marker.
    pub uncompressed_size: Option<u64>,
    /// Multi-threaded XZ and raw LZMA2: worker threads (0: one per CPU).
    pub threads: usize,
    /// Multi-threaded XZ and raw LZMA2: most bytes of blocks (segments) in
    /// flight (input plus output); default 256 MiB.
    pub memory_budget: u64,
}

impl Default for DecodeOptions {
    fn default() -> Self {
        DecodeOptions {
            lzma: DecoderOptions::default(),
            multi_stream: true,
            verify_check: true,
            dict_size: 8 << 20,
            props: LzmaProps::default(),
            uncompressed_size: None,
            threads: 0,
            memory_budget: 256 << 20,
        }
    }
}

/// A decoder the faces can build from [`DecodeOptions`] (every lzflow
/// decoder; implement it for your own coder to get `new` and `builder` on
/// the generic faces).
pub trait DecoderFormat: lzflow_core::Decode + Sized {
    /// Makes the decoder. Errors are reported by the face's first read or
    /// write.
    fn from_options(opts: &DecodeOptions) -> io::Result<Self>;
}

impl DecoderFormat for lzflow_xz::XzDecoder {
    fn from_options(opts: &DecodeOptions) -> io::Result<Self> {
        Ok(lzflow_xz::XzDecoder::new(lzflow_xz::XzDecoderOptions {
            lzma: opts.lzma.clone(),
            multi_stream: opts.multi_stream,
            verify_check: opts.verify_check,
        }))
    }
}

impl DecoderFormat for lzflow_xz::MtXzDecoder {
    fn from_options(opts: &DecodeOptions) -> io::Result<Self> {
        Ok(lzflow_xz::MtXzDecoder::new(lzflow_xz::MtXzDecoderOptions {
            base: lzflow_xz::XzDecoderOptions {
                lzma: opts.lzma.clone(),
                multi_stream: opts.multi_stream,
                verify_check: opts.verify_check,
            },
            threads: opts.threads,
            memory_budget: opts.memory_budget,
        }))
    }
}

impl DecoderFormat for lzflow_lzma::AloneDecoder {
    fn from_options(opts: &DecodeOptions) -> io::Result<Self> {
        Ok(lzflow_lzma::AloneDecoder::new(&opts.lzma))
    }
}

impl DecoderFormat for lzflow_lzip::LzipDecoder {
    fn from_options(opts: &DecodeOptions) -> io::Result<Self> {
        // `multi_stream: false` stops after the first member, as it stops
        // .xz after the first stream.
        Ok(lzflow_lzip::LzipDecoder::new(&opts.lzma).single_member(!opts.multi_stream))
    }
}

impl DecoderFormat for lzflow_lzma::Lzma2Decoder {
    fn from_options(opts: &DecodeOptions) -> io::Result<Self> {
        Ok(lzflow_lzma::Lzma2Decoder::new(opts.dict_size, &opts.lzma)?)
    }
}

impl DecoderFormat for lzflow_lzma::MtLzma2Decoder {
    fn from_options(opts: &DecodeOptions) -> io::Result<Self> {
        Ok(lzflow_lzma::MtLzma2Decoder::new(
            opts.dict_size,
            &opts.lzma,
            opts.threads,
            opts.memory_budget,
        )?)
    }
}

impl DecoderFormat for lzflow_lzma::LzmaDecoder {
    fn from_options(opts: &DecodeOptions) -> io::Result<Self> {
        Ok(lzflow_lzma::LzmaDecoder::new(
            opts.props,
            opts.dict_size,
            opts.uncompressed_size,
            &opts.lzma,
        )?)
    }
}

/// Collects decoding options for the face `T`, then builds it around a
/// reader or writer: `XzDecoder::builder().memlimit(64 << 20).build(r)`.
#[derive(Debug)]
#[must_use = "a builder does nothing until `build` is called"]
pub struct DecoderBuilder<T> {
    opts: DecodeOptions,
    face: std::marker::PhantomData<fn() -> T>,
}

impl<T> Default for DecoderBuilder<T> {
    fn default() -> Self {
        DecoderBuilder {
            opts: DecodeOptions::default(),
            face: std::marker::PhantomData,
        }
    }
}

/// A face that a [`DecoderBuilder`] can build.
pub trait BuildDecoder: Sized {
    /// What the face wraps (a reader or a writer).
    type Inner;
    /// Builds the face.
    fn build_decoder(inner: Self::Inner, opts: DecodeOptions) -> Self;
}

impl<T: BuildDecoder> DecoderBuilder<T> {
    /// Most bytes the decoder may allocate (dictionary and tables). A
    /// stream that needs more fails with an `OutOfMemory` error before
    /// anything is allocated.
    pub fn memlimit(mut self, bytes: u64) -> Self {
        self.opts.lzma.limits.memory = bytes;
        self
    }

    /// Most bytes the decoder may produce in total (bomb protection).
    pub fn output_limit(mut self, bytes: u64) -> Self {
        self.opts.lzma.limits.output = bytes;
        self
    }

    /// Sets both limits.
    pub fn limits(mut self, limits: Limits) -> Self {
        self.opts.lzma.limits = limits;
        self
    }

    /// XZ: stop after the first stream, leaving what follows in the reader.
    pub fn single_stream(mut self) -> Self {
        self.opts.multi_stream = false;
        self
    }

    /// XZ: whether to decode concatenated streams (default `true`).
    pub fn multiple_members(mut self, enabled: bool) -> Self {
        self.opts.multi_stream = enabled;
        self
    }

    /// Low latency, for proxies: when the input pauses inside an LZMA2
    /// chunk, decode what has arrived instead of holding output back until
    /// the whole chunk (up to 64 KiB) is in. Off by default (it costs a
    /// little decoding speed when input comes in large pieces).
    pub fn low_latency(mut self) -> Self {
        self.opts.lzma.low_latency = true;
        self
    }

    /// Most bytes one call (one poll) produces; default 16 KiB.
    pub fn batch_size(mut self, bytes: usize) -> Self {
        self.opts.lzma.batch_size = bytes;
        self
    }

    /// XZ: do not verify block checks (CRC32/CRC64/SHA-256). Only for
    /// salvaging data; corrupt output would go unnoticed.
    pub fn ignore_check(mut self) -> Self {
        self.opts.verify_check = false;
        self
    }

    /// Raw LZMA/LZMA2: the dictionary size the stream was made with.
    pub fn dict_size(mut self, bytes: u32) -> Self {
        self.opts.dict_size = bytes;
        self
    }

    /// Raw LZMA1: the lc/lp/pb properties the stream was made with.
    pub fn props(mut self, props: LzmaProps) -> Self {
        self.opts.props = props;
        self
    }

    /// Raw LZMA1: the decoded size, for streams without an end marker.
    pub fn uncompressed_size(mut self, size: Option<u64>) -> Self {
        self.opts.uncompressed_size = size;
        self
    }

    /// Multi-threaded XZ and raw LZMA2: worker threads (0, the default: one per CPU).
    pub fn threads(mut self, threads: usize) -> Self {
        self.opts.threads = threads;
        self
    }

    /// Multi-threaded XZ and raw LZMA2: most bytes of blocks (segments) in flight.
    pub fn memory_budget(mut self, bytes: u64) -> Self {
        self.opts.memory_budget = bytes;
        self
    }

    /// Buffer pools for dictionaries and probability tables (the global
    /// pools by default).
    pub fn pools(mut self, bytes: Pool<u8>, probabilities: Pool<u16>) -> Self {
        self.opts.lzma.pool = bytes;
        self.opts.lzma.prob_pool = probabilities;
        self
    }

    /// Allocate and free buffers per decoder instead of pooling them.
    pub fn no_pool(self) -> Self {
        self.pools(Pool::disabled(), Pool::disabled())
    }

    /// Replaces all options at once.
    pub fn options(mut self, opts: DecodeOptions) -> Self {
        self.opts = opts;
        self
    }

    /// The options collected so far.
    pub fn get_options(&self) -> &DecodeOptions {
        &self.opts
    }

    /// Builds the face around `inner`. Option errors (e.g. a dictionary
    /// above the memory limit) are returned by the first read or write.
    pub fn build(self, inner: T::Inner) -> T {
        T::build_decoder(inner, self.opts)
    }
}
