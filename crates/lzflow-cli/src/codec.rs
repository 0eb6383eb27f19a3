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
    /// .xz Blocks also end after these uncompressed sizes (xz's
    /// `--block-list`; see [`copy_in_blocks`]).
    pub block_list: Vec<u64>,
    /// The preset's dictionary replaced (`--dict-size`, lzip's `-s`).
    pub dict_size: Option<u32>,
}

impl EncodeOptions {
    /// Bytes the encoder for these settings may allocate, as the
    /// library's encoders count them.
    pub fn memory_usage(&self) -> io::Result<u64> {
        let threads = self.threads as usize;
        Ok(match self.format {
            Format::Xz => {
                let base = lzflow_xz::XzEncoderOptions {
                    lzma: self.library_options().lzma_options()?,
                    check: self.check,
                    filters: self.filters.clone(),
                    block_size: self.block_size,
                };
                if threads > 1 {
                    lzflow_xz::MtXzEncoder::memory_usage(&lzflow_xz::MtXzEncoderOptions {
                        base,
                        threads,
                    })
                } else {
                    lzflow_xz::XzEncoder::memory_usage(&base)
                }
            }
            Format::Lzma => {
                let mut lzma = self.library_options().lzma_options()?;
                lzma.match_finder_thread = threads > 1;
                lzflow_lzma::AloneEncoder::memory_usage(&lzma)
            }
            Format::Lzip => {
                let lzip = self.library_options().lzip_options()?;
                if threads > 1 {
                    lzflow_lzip::MtLzipEncoder::memory_usage(&lzip, threads)
                } else {
                    lzflow_lzip::LzipEncoder::memory_usage(&lzip)
                }
            }
        })
    }

    /// Makes the settings fit in `limit` bytes as xz does: fewer threads
    /// first (down to one), then a smaller dictionary, in whole MiB down to
    /// 1 MiB. Gives what was changed, to be told; an error when even that
    /// does not fit.
    pub fn fit_memory(&mut self, limit: u64) -> Result<Vec<String>, String> {
        let usage = |o: &EncodeOptions| o.memory_usage().map_err(|e| e.to_string());
        let mut notes = Vec::new();
        let mut need = usage(self)?;
        if need <= limit {
            return Ok(notes);
        }
        let threads = self.threads;
        while self.threads > 1 && need > limit {
            self.threads -= 1;
            need = usage(self)?;
        }
        if self.threads != threads {
            notes.push(format!(
                "reduced the number of threads from {threads} to {} to not exceed the memory usage limit of {}",
                self.threads,
                mib(limit)
            ));
        }
        if need <= limit {
            return Ok(notes);
        }
        let from = match self.format {
            Format::Lzip => {
                self.library_options()
                    .lzip_options()
                    .map_err(|e| e.to_string())?
                    .lzma
                    .dict_size
            }
            _ => {
                let lzma = self.library_options().lzma_options();
                lzma.map_err(|e| e.to_string())?.dict_size
            }
        };
        let mut dict = from & !((1 << 20) - 1);
        loop {
            if dict < 1 << 20 {
                return Err(format!(
                    "memory usage limit is too low for the settings: {} needed, the limit is {}",
                    mib(need),
                    mib(limit)
                ));
            }
            self.dict_size = Some(dict);
            need = usage(self)?;
            if need <= limit {
                break;
            }
            dict -= 1 << 20;
        }
        notes.push(format!(
            "adjusted the dictionary size from {} to {} to not exceed the memory usage limit of {}",
            mib(u64::from(from)),
            mib(u64::from(dict)),
            mib(limit)
        ));
        Ok(notes)
    }

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
            copy_in_blocks(input, &mut enc, &opts.block_list)?;
            enc.finish()
        }
        Format::Xz => {
            let mut enc = lzflow::write::XzEncoder::builder()
                .options(base)
                .build(output);
            copy_in_blocks(input, &mut enc, &opts.block_list)?;
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
            let lzip = base.lzip_options()?;
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

/// Bytes in xz's words for limits: whole MiB, rounded up.
fn mib(bytes: u64) -> String {
    format!("{} MiB", bytes.div_ceil(1 << 20))
}

/// Copies `input` into an .xz encoder, ending a Block (the encoder's
/// `flush`) after each size of `list` as xz's `--block-list` does: the
/// last size repeats to the end, a last 0 leaves the rest to one Block
/// (split only by the Block size). An empty list: one plain copy.
fn copy_in_blocks(input: &mut dyn Read, enc: &mut impl Write, list: &[u64]) -> io::Result<()> {
    let Some(&last) = list.last() else {
        io::copy(input, enc)?;
        return Ok(());
    };
    for size in list.iter().copied().chain(std::iter::repeat(last)) {
        if size == 0 {
            io::copy(input, enc)?;
            return Ok(());
        }
        if io::copy(&mut input.take(size), enc)? < size {
            return Ok(());
        }
        enc.flush()?;
    }
    Ok(())
}
