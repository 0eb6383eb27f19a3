//! Options the encoding faces' builders collect, and the trait that turns
//! them into a format's encoder.

use std::io;

use lzflow_filters::FilterConfig;
use lzflow_lzma::LzmaOptions;
use lzflow_xz::Check;

/// A compression level in async-compression's terms, mapped to the `xz`
/// presets 0..=9.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Level {
    /// Preset 0.
    Fastest,
    /// Preset 9.
    Best,
    /// Preset 6, `xz`'s default.
    Default,
    /// A preset, clamped to 0..=9.
    Precise(i32),
}

impl Level {
    /// The `xz` preset this level stands for.
    pub fn preset(self) -> u32 {
        match self {
            Level::Fastest => 0,
            Level::Best => 9,
            Level::Default => 6,
            Level::Precise(n) => n.clamp(0, 9) as u32,
        }
    }
}

/// Everything an encoding face may be configured with. Each format uses
/// the fields that apply to it.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct EncodeOptions {
    /// `xz -0` … `xz -9` (default 6).
    pub preset: u32,
    /// `xz -e`: slower, sometimes smaller.
    pub extreme: bool,
    /// Explicit LZMA settings; when set, `preset` and `extreme` are ignored.
    pub lzma: Option<LzmaOptions>,
    /// Overrides the dictionary size of the preset (or of `lzma`).
    pub dict_size: Option<u32>,
    /// XZ: the integrity check of each block (default CRC64).
    pub check: Check,
    /// XZ: filters applied before LZMA2 (BCJ, Delta), first applied first.
    pub filters: Vec<FilterConfig>,
    /// XZ: uncompressed bytes per block; lzip: per member (`None`: the
    /// encoder's default, one member for lzip).
    pub block_size: Option<u64>,
    /// Raw LZMA1: end the stream with an end marker (default `true`; the
    /// decoder then needs no size).
    pub end_marker: bool,
    /// Run the match finder on a thread of its own: one stream on two
    /// cores, the same bytes as on one (see
    /// [`LzmaOptions::match_finder_thread`]).
    pub match_finder_thread: bool,
}

impl Default for EncodeOptions {
    fn default() -> Self {
        EncodeOptions {
            preset: 6,
            extreme: false,
            lzma: None,
            dict_size: None,
            check: Check::Crc64,
            filters: Vec::new(),
            block_size: None,
            end_marker: true,
            match_finder_thread: false,
        }
    }
}

impl EncodeOptions {
    /// The LZMA settings these options select.
    pub fn lzma_options(&self) -> io::Result<LzmaOptions> {
        let mut opts = match &self.lzma {
            Some(o) => *o,
            None if self.extreme => LzmaOptions::preset_extreme(self.preset)?,
            None => LzmaOptions::preset(self.preset)?,
        };
        if let Some(dict) = self.dict_size {
            opts.dict_size = dict;
        }
        opts.match_finder_thread |= self.match_finder_thread;
        Ok(opts)
    }

    /// The lzip settings these options select: lzip's own level (`lzip
    /// -0..-9`) unless explicit LZMA settings or `extreme` are given, then
    /// the dictionary, and `block_size` as the data size of each member.
    pub fn lzip_options(&self) -> io::Result<lzflow_lzip::LzipOptions> {
        let mut lzip = lzflow_lzip::LzipOptions::preset(self.preset)?;
        if self.lzma.is_some() || self.extreme {
            lzip.lzma = self.lzma_options()?;
        }
        if let Some(dict) = self.dict_size {
            lzip.lzma.dict_size = dict;
        }
        lzip.lzma.match_finder_thread |= self.match_finder_thread;
        if let Some(size) = self.block_size {
            lzip = lzip.with_member_size(size);
        }
        Ok(lzip)
    }
}

/// An encoder the faces can build from [`EncodeOptions`] (every lzflow
/// encoder; implement it for your own coder to get `new` and `builder` on
/// the generic faces).
pub trait EncoderFormat: lzflow_core::Encode + Sized {
    /// Makes the encoder. Errors (e.g. a preset above 9) are reported by
    /// the face's first read or write.
    fn from_options(opts: &EncodeOptions) -> io::Result<Self>;
}

impl EncoderFormat for lzflow_xz::XzEncoder {
    fn from_options(opts: &EncodeOptions) -> io::Result<Self> {
        Ok(lzflow_xz::XzEncoder::new(lzflow_xz::XzEncoderOptions {
            lzma: opts.lzma_options()?,
            check: opts.check,
            filters: opts.filters.clone(),
            block_size: opts.block_size,
        })?)
    }
}

impl EncoderFormat for lzflow_lzma::AloneEncoder {
    fn from_options(opts: &EncodeOptions) -> io::Result<Self> {
        Ok(lzflow_lzma::AloneEncoder::new(&opts.lzma_options()?)?)
    }
}

impl EncoderFormat for lzflow_lzip::LzipEncoder {
    /// lzip's own levels (`lzip -0..-9`) unless explicit LZMA settings are
    /// given; `block_size` is the data size of each member.
    fn from_options(opts: &EncodeOptions) -> io::Result<Self> {
        Ok(lzflow_lzip::LzipEncoder::new(&opts.lzip_options()?)?)
    }
}

impl EncoderFormat for lzflow_lzma::Lzma2Encoder {
    fn from_options(opts: &EncodeOptions) -> io::Result<Self> {
        Ok(lzflow_lzma::Lzma2Encoder::new(&opts.lzma_options()?)?)
    }
}

impl EncoderFormat for lzflow_lzma::LzmaEncoder {
    fn from_options(opts: &EncodeOptions) -> io::Result<Self> {
        Ok(lzflow_lzma::LzmaEncoder::new(
            &opts.lzma_options()?,
            opts.end_marker,
        )?)
    }
}

/// A face that an [`EncoderBuilder`] can build.
pub trait BuildEncoder: Sized {
    /// What the face wraps (a reader or a writer).
    type Inner;
    /// Builds the face.
    fn build_encoder(inner: Self::Inner, opts: EncodeOptions) -> Self;
}

/// Collects encoding options for the face `T`, then builds it:
/// `XzEncoder::builder().preset(9).extreme().check(Check::Sha256).build(w)`.
#[derive(Debug)]
#[must_use = "a builder does nothing until `build` is called"]
pub struct EncoderBuilder<T> {
    opts: EncodeOptions,
    face: std::marker::PhantomData<fn() -> T>,
}

impl<T> Default for EncoderBuilder<T> {
    fn default() -> Self {
        EncoderBuilder {
            opts: EncodeOptions::default(),
            face: std::marker::PhantomData,
        }
    }
}

impl<T: BuildEncoder> EncoderBuilder<T> {
    /// `xz -<level>` (0..=9; default 6).
    pub fn preset(mut self, level: u32) -> Self {
        self.opts.preset = level;
        self
    }

    /// An async-compression style level.
    pub fn quality(self, level: Level) -> Self {
        self.preset(level.preset())
    }

    /// `xz -e`.
    pub fn extreme(mut self) -> Self {
        self.opts.extreme = true;
        self
    }

    /// Explicit LZMA settings instead of a preset.
    pub fn lzma_options(mut self, opts: LzmaOptions) -> Self {
        self.opts.lzma = Some(opts);
        self
    }

    /// The dictionary size (overrides the preset's).
    pub fn dict_size(mut self, bytes: u32) -> Self {
        self.opts.dict_size = Some(bytes);
        self
    }

    /// XZ: the integrity check (default CRC64).
    pub fn check(mut self, check: Check) -> Self {
        self.opts.check = check;
        self
    }

    /// XZ: the filters applied before LZMA2 (at most three).
    pub fn filters(mut self, filters: Vec<FilterConfig>) -> Self {
        self.opts.filters = filters;
        self
    }

    /// XZ: adds one filter after those given so far.
    pub fn filter(mut self, filter: FilterConfig) -> Self {
        self.opts.filters.push(filter);
        self
    }

    /// XZ: uncompressed bytes per block.
    pub fn block_size(mut self, bytes: u64) -> Self {
        self.opts.block_size = Some(bytes);
        self
    }

    /// Runs the match finder on a thread of its own, so that one stream
    /// (one XZ Block, one lzip member) compresses on two cores with the
    /// same output as on one. For the binary-tree finders (presets 4-9);
    /// costs a second copy of the dictionary (at preset 6, 7 % more peak
    /// memory than one thread).
    pub fn match_finder_thread(mut self, enabled: bool) -> Self {
        self.opts.match_finder_thread = enabled;
        self
    }

    /// Raw LZMA1: whether to write an end marker (default `true`).
    pub fn end_marker(mut self, enabled: bool) -> Self {
        self.opts.end_marker = enabled;
        self
    }

    /// Replaces all options at once.
    pub fn options(mut self, opts: EncodeOptions) -> Self {
        self.opts = opts;
        self
    }

    /// The options collected so far.
    pub fn get_options(&self) -> &EncodeOptions {
        &self.opts
    }

    /// Builds the face around `inner`. Option errors are returned by the
    /// first read or write (or `finish`/`shutdown`).
    pub fn build(self, inner: T::Inner) -> T {
        T::build_encoder(inner, self.opts)
    }
}
