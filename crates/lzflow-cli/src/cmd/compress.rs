//! `lzflow c`: compress files to .xz or .lzma.

use std::fs;
use std::io::{self, IsTerminal};
use std::path::PathBuf;

use lzflow_filters::{FilterConfig, FilterKind};
use lzflow_xz::Check;

use super::Status;
use crate::codec::{self, EncodeOptions};
use crate::format::Format;
use crate::output::{Input, Sink};
use crate::progress::{Meter, Progress};
use crate::report;

/// Integrity check choices of `--check`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum CheckArg {
    /// No check (the container's CRC32s on headers remain).
    None,
    /// CRC32.
    Crc32,
    /// CRC64 (xz's default).
    Crc64,
    /// SHA-256.
    Sha256,
}

impl From<CheckArg> for Check {
    fn from(c: CheckArg) -> Check {
        match c {
            CheckArg::None => Check::None,
            CheckArg::Crc32 => Check::Crc32,
            CheckArg::Crc64 => Check::Crc64,
            CheckArg::Sha256 => Check::Sha256,
        }
    }
}

/// Options of `lzflow c`.
#[derive(Debug, clap::Args)]
#[command(after_help = "Presets can also be given xz-style: -0 ... -9, -9e.\n\
Filters apply in this order: the BCJ filter, then Delta, then LZMA2.")]
pub struct Args {
    /// Files to compress (`-` or none: standard input to standard output).
    #[arg(value_name = "FILE")]
    pub files: Vec<String>,
    /// Compression preset 0 (fast) ... 9 (small); also -0 ... -9.
    #[arg(long, value_name = "N", default_value_t = 6, value_parser = clap::value_parser!(u32).range(0..=9))]
    pub preset: u32,
    /// Extreme variant of the preset: slower, slightly smaller.
    #[arg(short, long)]
    pub extreme: bool,
    /// Worker threads (0 = one per CPU core).
    #[arg(short = 'T', long, value_name = "N", default_value_t = 1)]
    pub threads: u32,
    /// Integrity check stored in .xz.
    #[arg(short = 'C', long, value_name = "CHECK", default_value = "crc64")]
    pub check: CheckArg,
    /// Output container.
    #[arg(short = 'F', long, value_name = "FORMAT", default_value = "xz")]
    pub format: Format,
    /// BCJ filter for x86 executables.
    #[arg(long, group = "bcj")]
    pub x86: bool,
    /// BCJ filter for 32-bit ARM executables.
    #[arg(long, group = "bcj")]
    pub arm: bool,
    /// BCJ filter for ARM-Thumb executables.
    #[arg(long, group = "bcj")]
    pub armthumb: bool,
    /// BCJ filter for ARM64 executables.
    #[arg(long, group = "bcj")]
    pub arm64: bool,
    /// BCJ filter for big-endian PowerPC executables.
    #[arg(long, group = "bcj")]
    pub powerpc: bool,
    /// BCJ filter for SPARC executables.
    #[arg(long, group = "bcj")]
    pub sparc: bool,
    /// BCJ filter for IA-64 (Itanium) executables.
    #[arg(long, group = "bcj")]
    pub ia64: bool,
    /// BCJ filter for RISC-V executables.
    #[arg(long, group = "bcj")]
    pub riscv: bool,
    /// Start offset of the BCJ filter.
    #[arg(long, value_name = "OFFSET", default_value_t = 0, requires = "bcj")]
    pub bcj_start: u32,
    /// Delta filter with distance N bytes (1..=256).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=256))]
    pub delta: Option<u32>,
    /// LZMA2 (for .lzma, LZMA) settings as xz takes them, applied in order
    /// to preset 6: preset=N or Ne, dict=SIZE, lc, lp, pb, mode=fast|normal,
    /// nice, mf=hc3|hc4|bt2|bt3|bt4, depth; instead of the preset.
    #[arg(long, visible_alias = "lzma1", value_name = "OPTS")]
    pub lzma2: Option<String>,
    /// Uncompressed bytes per .xz Block or .lz member (default: one, or
    /// with -T three dictionaries for .xz and two for .lz).
    #[arg(long, value_name = "SIZE", value_parser = parse_block_size)]
    pub block_size: Option<u64>,
    /// .xz: also ends a Block after each of these uncompressed sizes, as
    /// xz's --block-list (comma-separated; an empty item repeats the one
    /// before it, the last repeats to the end of the input, and a last 0
    /// makes the rest one Block).
    #[arg(long, value_name = "SIZES", value_parser = parse_block_list)]
    pub block_list: Option<BlockList>,
    /// Use at most SIZE bytes of memory (e.g. 100MiB): as xz, fewer
    /// threads first, then a smaller dictionary (a note says so); an
    /// error when even 1 MiB does not fit.
    #[arg(short = 'M', long, visible_alias = "memlimit-compress", value_name = "SIZE", value_parser = crate::size::parse_size, default_value = "max")]
    pub memlimit: u64,
    /// Dictionary size, in place of the preset's (4KiB to 1536MiB; .lz
    /// rounds it up to a size lzip can code, at most 512 MiB).
    #[arg(long, value_name = "SIZE", value_parser = parse_dict_size)]
    pub dict_size: Option<u32>,
    /// Write the output to OUT (only with a single input file).
    #[arg(short, long, value_name = "OUT", conflicts_with = "stdout")]
    pub output: Option<PathBuf>,
    /// Write to standard output; keep the input.
    #[arg(short = 'c', long)]
    pub stdout: bool,
    /// Keep the input file (the default; accepted for xz compatibility).
    #[arg(short, long, conflicts_with = "rm")]
    pub keep: bool,
    /// Delete the input file after it was compressed successfully (as xz,
    /// not one with another hard link or a setuid, setgid or sticky bit,
    /// unless -f).
    #[arg(long)]
    pub rm: bool,
    /// Name outputs *SUF instead of *.xz (.lzma, .lz), as xz's --suffix.
    #[arg(short = 'S', long, value_name = "SUF", value_parser = crate::format::parse_suffix)]
    pub suffix: Option<String>,
    /// Overwrite existing output files; write compressed data to a terminal.
    #[arg(short, long)]
    pub force: bool,
    /// No progress bar, no notes.
    #[arg(short, long)]
    pub quiet: bool,
    /// Show progress as `xz -v` does: a line redrawn on a terminal, and a
    /// summary line (sizes, ratio, rate, time) for each file, also when
    /// stderr is not a terminal.
    #[arg(short, long, conflicts_with = "quiet")]
    pub verbose: bool,
}

impl Args {
    fn bcj(&self) -> Option<FilterKind> {
        [
            (self.x86, FilterKind::X86),
            (self.arm, FilterKind::Arm),
            (self.armthumb, FilterKind::ArmThumb),
            (self.arm64, FilterKind::Arm64),
            (self.powerpc, FilterKind::PowerPc),
            (self.sparc, FilterKind::Sparc),
            (self.ia64, FilterKind::Ia64),
            (self.riscv, FilterKind::RiscV),
        ]
        .into_iter()
        .find(|(on, _)| *on)
        .map(|(_, kind)| kind)
    }

    fn options(&self) -> Result<EncodeOptions, String> {
        let mut filters = Vec::new();
        if let Some(kind) = self.bcj() {
            let mut f = FilterConfig::new(kind);
            f.start_offset = self.bcj_start;
            filters.push(f);
        }
        if let Some(distance) = self.delta {
            let mut f = FilterConfig::new(FilterKind::Delta);
            f.distance = distance;
            filters.push(f);
        }
        if self.format != Format::Xz && (!filters.is_empty() || self.check != CheckArg::Crc64) {
            return Err(format!(
                ".{} supports neither filters nor --check; use --format xz",
                self.format
            ));
        }
        if self.format == Format::Lzma && self.block_size.is_some() {
            return Err(".lzma is one stream: --block-size needs .xz or .lz".into());
        }
        if self.format != Format::Xz && self.block_list.is_some() {
            return Err("--block-list needs --format xz".into());
        }
        let lzma = match &self.lzma2 {
            // lzip's header has room for the dictionary size only.
            Some(_) if self.format == Format::Lzip => {
                return Err(".lz fixes the LZMA settings; --lzma2 needs .xz or .lzma".into())
            }
            Some(spec) => Some(crate::lzma_options::parse(spec)?),
            None => None,
        };
        let threads = match self.threads {
            0 => std::thread::available_parallelism().map_or(1, |n| n.get() as u32),
            n => n,
        };
        Ok(EncodeOptions {
            format: self.format,
            preset: self.preset,
            extreme: self.extreme,
            check: self.check.into(),
            filters,
            threads,
            lzma,
            block_size: self.block_size,
            block_list: self.block_list.clone().map_or_else(Vec::new, |l| l.0),
            dict_size: self.dict_size,
        })
    }
}

/// Runs `lzflow c`.
pub fn run(args: &Args) -> Status {
    let mut status = Status::default();
    let fitted = args.options().and_then(|mut opts| {
        if args.memlimit != u64::MAX {
            for note in opts.fit_memory(args.memlimit)? {
                if !args.quiet {
                    report::error(&note);
                }
            }
        }
        Ok(opts)
    });
    let opts = match fitted {
        Ok(o) => o,
        Err(msg) => {
            report::error(&msg);
            status.fail();
            return status;
        }
    };
    let files = if args.files.is_empty() {
        vec!["-".to_string()]
    } else {
        args.files.clone()
    };
    if args.output.is_some() && files.len() > 1 {
        report::error("-o works with a single input file only");
        status.fail();
        return status;
    }
    for (i, file) in files.iter().enumerate() {
        let place = (i + 1, files.len());
        let name = if file == "-" { "(stdin)" } else { file };
        match compress_one(file, args, &opts, place) {
            Ok(()) => {}
            // xz warns about the files it passes over (status 2).
            Err(e) if report::is_skipped(&e) => {
                report::file_error(name, &e);
                status.warn();
            }
            Err(e) => {
                report::file_error(name, &e);
                status.fail();
            }
        }
    }
    status
}

/// Compresses one file, the `place.0`-th of `place.1` (for `-v`).
fn compress_one(
    file: &str,
    args: &Args,
    opts: &EncodeOptions,
    place: (usize, usize),
) -> io::Result<()> {
    // A link, FIFO or device is read only into standard output or a
    // named output (or with -f), as xz reads them.
    let input = if args.stdout || args.output.is_some() || args.force {
        Input::open(file)?
    } else {
        Input::open_regular(file, !args.rm)?
    };
    let to_stdout = args.stdout || (input.path.is_none() && args.output.is_none());
    if args.rm && !to_stdout && !args.force {
        input.check_removable()?;
    }
    let sink = if to_stdout {
        if io::stdout().is_terminal() && !args.force {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                "compressed data cannot be written to a terminal (use -f to force)",
            ));
        }
        Sink::stdout()
    } else {
        let out = match (&args.output, &input.path) {
            (Some(out), _) => out.clone(),
            (None, Some(path)) => {
                let suffix = match &args.suffix {
                    Some(own) => own.clone(),
                    None => format!(".{}", opts.format),
                };
                let name = path.to_string_lossy();
                if name.ends_with(&suffix) {
                    return Err(report::skipped(format!(
                        "already has a {suffix} suffix, skipping (use -o or -c to compress it again)"
                    )));
                }
                PathBuf::from(format!("{name}{suffix}"))
            }
            (None, None) => unreachable!("stdin without -o goes to stdout"),
        };
        Sink::create(&out, args.force, input.metadata.as_ref())?
    };
    let size = input.size();
    let metadata = input.metadata.clone();
    let path = input.path.clone();
    // xz's report replaces the bar under -v.
    let meter = args
        .verbose
        .then(|| Meter::new(&input.name, place.0, place.1, size, true));
    let sink = match &meter {
        Some(meter) => {
            let mut reader = meter.reader(input.reader);
            let sink = codec::encode(&mut reader, meter.writer(sink), opts)?;
            sink.into_inner()
        }
        None => {
            let mut reader = Progress::new(input.reader, size, &input.name, args.quiet);
            codec::encode(&mut reader, sink, opts)?
        }
    };
    sink.commit(if to_stdout { None } else { metadata.as_ref() })?;
    if let Some(meter) = meter {
        meter.finish();
    }
    if args.rm && !to_stdout {
        if let Some(path) = &path {
            fs::remove_file(path)?;
        }
    }
    Ok(())
}

/// The sizes of `--block-list`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BlockList(pub Vec<u64>);

/// xz's `--block-list`: sizes separated by commas; an empty item is the
/// size before it again; 0 only last (the rest as one Block).
fn parse_block_list(text: &str) -> Result<BlockList, String> {
    let items: Vec<&str> = text.split(',').collect();
    let mut sizes: Vec<u64> = Vec::with_capacity(items.len());
    for (i, item) in items.iter().enumerate() {
        let size = match (item.trim(), sizes.last()) {
            ("", Some(&before)) => before,
            ("", None) => return Err("the first size of the list is missing".into()),
            (item, _) => crate::size::parse_bytes(item)?,
        };
        if size == 0 && i + 1 != items.len() {
            return Err("0 (the rest as one Block) may only end the list".into());
        }
        sizes.push(size);
    }
    Ok(BlockList(sizes))
}

/// A Block size: at least one byte.
fn parse_block_size(text: &str) -> Result<u64, String> {
    match crate::size::parse_bytes(text)? {
        0 => Err("a block size of 0 bytes".into()),
        n => Ok(n),
    }
}

/// A dictionary size within what the encoders take.
fn parse_dict_size(text: &str) -> Result<u32, String> {
    let bytes = crate::size::parse_bytes(text)?;
    let range = u64::from(lzflow_lzma::DICT_SIZE_MIN)..=u64::from(lzflow_lzma::DICT_SIZE_MAX);
    match u32::try_from(bytes) {
        Ok(n) if range.contains(&bytes) => Ok(n),
        _ => Err(format!("{text}: the dictionary must be 4KiB to 1536MiB")),
    }
}
