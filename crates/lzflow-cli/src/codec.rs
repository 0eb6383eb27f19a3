//! The one place the CLI touches the lzflow library: building decoders and
//! encoders from command-line options.

use std::io::{self, BufRead, BufReader, Cursor, Read, Write};

use crate::format::{detect, Detected, Format, SNIFF_LEN};

/// Decoder settings shared by `d` and `t`.
#[derive(Debug, Clone, Copy)]
pub struct DecodeOptions {
    /// Memory limit in bytes (`u64::MAX` = none).
    pub memlimit: u64,
    /// Decode only the first .xz stream and ignore what follows.
    pub single_stream: bool,
    /// Format forced by `--format`; None = detect from the magic bytes.
    pub format: Option<Format>,
    /// .xz: do not verify Block checks.
    pub ignore_check: bool,
}

/// Reads the first bytes to identify the format, then returns it with a
/// reader that still yields the whole input.
pub fn sniff<'a>(
    mut input: Box<dyn Read + 'a>,
    forced: Option<Format>,
) -> io::Result<(Format, Box<dyn BufRead + 'a>)> {
    let mut head = Vec::with_capacity(SNIFF_LEN);
    (&mut input).take(SNIFF_LEN as u64).read_to_end(&mut head)?;
    let format =
        match (forced, detect(&head)) {
            (Some(f), _) => f,
            (None, Detected::Known(f)) => f,
            (None, Detected::SevenZ) => return Err(io::Error::new(
                io::ErrorKind::Unsupported,
                "this is a 7z archive, not a single compressed file; extract it with `lzflow x`",
            )),
            (None, Detected::Unknown) if head.is_empty() => {
                return Err(io::Error::new(
                    io::ErrorKind::UnexpectedEof,
                    "file is empty: not a .xz, .lzma or .lz file",
                ))
            }
            (None, Detected::Unknown) => {
                return Err(io::Error::new(
                    io::ErrorKind::InvalidData,
                    "file format not recognized (not .xz, .lzma or .lz; use --format to force one)",
                ))
            }
        };
    let whole = Cursor::new(head).chain(input);
    Ok((format, Box::new(BufReader::with_capacity(1 << 16, whole))))
}

/// Decodes all of `input` into `sink`. Returns the decoded size and, for
/// data that decoded but could not be fully verified, a warning.
pub fn decode(
    format: Format,
    input: Box<dyn BufRead + '_>,
    opts: &DecodeOptions,
    sink: &mut dyn Write,
) -> io::Result<(u64, Option<String>)> {
    match format {
        Format::Xz => {
            let mut builder = lzflow::bufread::XzDecoder::builder().memlimit(opts.memlimit);
            if opts.single_stream {
                builder = builder.single_stream();
            }
            if opts.ignore_check {
                builder = builder.ignore_check();
            }
            let mut decoder = builder.build(input);
            let n = io::copy(&mut decoder, sink)?;
            let warning = decoder
                .coder()
                .and_then(|c| c.unverified_check_id())
                .map(|id| {
                    format!(
                        "unsupported type of integrity check (ID {id}); the data was not verified"
                    )
                });
            Ok((n, warning))
        }
        Format::Lzma => {
            let mut decoder = lzflow::bufread::LzmaDecoder::builder()
                .memlimit(opts.memlimit)
                .build(input);
            Ok((io::copy(&mut decoder, sink)?, None))
        }
        Format::Lzip => {
            let mut builder = lzflow::bufread::LzipDecoder::builder().memlimit(opts.memlimit);
            if opts.single_stream {
                builder = builder.single_stream();
            }
            let mut decoder = builder.build(input);
            Ok((io::copy(&mut decoder, sink)?, None))
        }
    }
}

/// Encoder settings of `c`.
#[derive(Debug, Clone)]
pub struct EncodeOptions {
    /// Output container.
    pub format: Format,
    /// Preset level 0..=9.
    pub preset: u32,
    /// `-e`: slower, slightly smaller.
    pub extreme: bool,
    /// Integrity check (.xz only).
    pub check: lzflow_xz::Check,
    /// Filters before LZMA2, in the order they apply to the input (.xz only).
    pub filters: Vec<lzflow_filters::FilterConfig>,
    /// Worker threads; 1 = single-threaded.
    pub threads: u32,
    /// Explicit LZMA settings (`--lzma2`), instead of the preset (.xz and
    /// .lzma).
    pub lzma: Option<lzflow_lzma::LzmaOptions>,
    /// Uncompressed bytes per .xz Block or .lz member.
    pub block_size: Option<u64>,
    /// The preset's dictionary replaced (`--dict-size`, lzip's `-s`).
    pub dict_size: Option<u32>,
}

impl EncodeOptions {
    /// The library's options for these settings (each encoder takes the
    /// fields that apply to it; lzip reads `preset` as lzip's level).
    fn library_options(&self) -> lzflow::EncodeOptions {
        let mut o = lzflow::EncodeOptions::default();
        o.preset = self.preset;
        o.extreme = self.extreme;
        o.lzma = self.lzma;
        o.dict_size = self.dict_size;
        o.check = self.check;
        o.filters = self.filters.clone();
        o.block_size = self.block_size;
        o
    }
}

/// Compresses everything from `input` into `output`, returning the writer.
///
/// With `threads > 1` the blocks (both encoders default to `xz -T`'s size:
/// three dictionaries, at least 1 MiB) are compressed on that many threads;
/// `.lzma`, one stream, gets its match finder on a thread of its own. The
/// bytes are the same as a single-threaded run.
pub fn encode<W: Write>(input: &mut dyn Read, output: W, opts: &EncodeOptions) -> io::Result<W> {
    let base = opts.library_options();
    match opts.format {
        Format::Xz if opts.threads > 1 => {
            let mt = lzflow::MtEncodeOptions {
                base,
                threads: opts.threads as usize,
            };
            let mut enc = lzflow::write::MtXzEncoder::mt_builder()
                .options(mt)
                .build(output);
            io::copy(input, &mut enc)?;
            enc.finish()
        }
        Format::Xz => {
            let mut enc = lzflow::write::XzEncoder::builder()
                .options(base)
                .build(output);
            io::copy(input, &mut enc)?;
            enc.finish()
        }
        // One stream, which cannot be cut into blocks: a second thread
        // runs the match finder (presets 4-9; the same bytes).
        Format::Lzma => {
            let mut enc = lzflow::write::LzmaEncoder::builder()
                .options(base)
                .match_finder_thread(opts.threads > 1)
                .build(output);
            io::copy(input, &mut enc)?;
            enc.finish()
        }
        // Members of twice the dictionary on several threads, as plzip
        // writes them (the same bytes whatever the thread count).
        Format::Lzip if opts.threads > 1 => {
            let mut lzip = lzflow_lzip::LzipOptions::preset(opts.preset)?;
            if opts.extreme {
                lzip.lzma = lzflow_lzma::LzmaOptions::preset_extreme(opts.preset)?;
            }
            if let Some(dict) = opts.dict_size {
                lzip.lzma.dict_size = dict;
            }
            if let Some(size) = opts.block_size {
                lzip = lzip.with_member_size(size);
            }
            let coder = lzflow_lzip::MtLzipEncoder::new(&lzip, opts.threads as usize)?;
            let mut enc = lzflow::write::Encoder::with_coder(output, coder);
            io::copy(input, &mut enc)?;
            enc.finish()
        }
        // lzip's own levels (-0..-9 mean `lzip -0..-9`).
        Format::Lzip => {
            let mut enc = lzflow::write::LzipEncoder::builder()
                .options(base)
                .build(output);
            io::copy(input, &mut enc)?;
            enc.finish()
        }
    }
}
