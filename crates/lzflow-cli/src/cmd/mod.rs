//! One module per subcommand (`add`: a; `compress`: c; `decompress`: d;
//! `extract`: x and e; `list`: l; `test`: t), plus `walk`, the extraction
//! walk `x` and `e` share, and `zip`, the zip side of `l`, `t`, `x` and
//! `a`.

pub mod add;
pub mod compress;
pub mod decompress;
pub mod extract;
pub mod list;
pub mod test;
pub mod walk;
pub mod zip;

use std::io::{self, Write};

use crate::codec::{self, DecodeOptions};
use crate::format::Format;
use crate::output::Input;
use crate::progress::Progress;
use crate::select::Selection;
use crate::size::parse_size;

/// The arguments of `l` and `t` as files and a selection: when the first
/// is a 7z or zip archive file the others are wildcards choosing its
/// entries, as in 7-Zip; otherwise they are all files. `--include` and
/// `--exclude` always count.
pub fn split_archive_args(
    args: &[String],
    filters: &extract::FilterArgs,
) -> Result<(Vec<String>, Selection), String> {
    let archive_first = args
        .first()
        .is_some_and(|f| zip::is_zip(f) || extract::is_7z(f));
    if archive_first {
        let selection = filters.selection(&args[1..])?;
        return Ok((args[..1].to_vec(), selection));
    }
    Ok((args.to_vec(), filters.selection(&[])?))
}

/// Decoder options shared by `d` and `t`.
#[derive(Debug, clap::Args)]
pub struct DecodeArgs {
    /// Refuse to use more than SIZE bytes of memory (e.g. 64MiB, 1GiB, max).
    #[arg(long, value_name = "SIZE", value_parser = parse_size, default_value = "max")]
    pub memlimit: u64,
    /// Decode only the first .xz stream; ignore whatever follows it.
    #[arg(long)]
    pub single_stream: bool,
    /// Input format; by default it is detected from the magic bytes.
    #[arg(short = 'F', long, value_name = "FORMAT")]
    pub format: Option<Format>,
    /// Do not verify the .xz Block checks (CRC32, CRC64, SHA-256): only to
    /// salvage data, as corrupt output then goes unnoticed.
    #[arg(long)]
    pub ignore_check: bool,
    /// No progress bar.
    #[arg(short, long)]
    pub quiet: bool,
}

impl DecodeArgs {
    fn options(&self) -> DecodeOptions {
        DecodeOptions {
            memlimit: self.memlimit,
            single_stream: self.single_stream,
            format: self.format,
            ignore_check: self.ignore_check,
        }
    }
}

/// What decoding one file gave.
pub struct Decoded<W> {
    /// The sink, for the caller to commit.
    pub sink: W,
    /// Decoded size.
    pub size: u64,
    /// Set when the data decoded but was not fully verified.
    pub warning: Option<String>,
}

/// Decodes all of `input` into a sink. `on_format` runs once the format is
/// known and before any output is written (it creates the output file, so
/// nothing is created for unrecognised input).
pub fn decode_into<W: Write>(
    input: Input,
    args: &DecodeArgs,
    on_format: impl FnOnce(Format) -> io::Result<W>,
) -> io::Result<Decoded<W>> {
    let size = input.size();
    let progress = Progress::new(input.reader, size, &input.name, args.quiet);
    let opts = args.options();
    let (format, buffered) = codec::sniff(Box::new(progress), opts.format)?;
    let mut sink = on_format(format)?;
    let (size, warning) = codec::decode(format, buffered, &opts, &mut sink)?;
    Ok(Decoded {
        sink,
        size,
        warning,
    })
}

/// Which table of exit codes a command follows.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub enum Style {
    /// xz's: 0 success, 1 error, 2 warning.
    #[default]
    Xz,
    /// 7-Zip's: 0 success, 1 warning, 2 fatal error, 7 command-line error,
    /// 8 not enough memory.
    SevenZip,
}

/// 7-Zip's exit code for a command-line error.
pub const EXIT_USAGE: u8 = 7;

/// The exit status over all files: xz's table by default (1 if anything
/// failed, else 2 if anything warned, else 0), 7-Zip's for the archive
/// commands.
#[derive(Debug, Default, Clone, Copy)]
pub struct Status {
    style: Style,
    failed: bool,
    warned: bool,
    usage: bool,
    memory: bool,
}

impl Status {
    /// A status reported with 7-Zip's codes.
    pub fn archive() -> Self {
        Status {
            style: Style::SevenZip,
            ..Status::default()
        }
    }

    /// Switches to 7-Zip's codes (`l` and `t` once they met an archive).
    pub fn use_archive_codes(&mut self) {
        self.style = Style::SevenZip;
    }

    /// Records a failed file.
    pub fn fail(&mut self) {
        self.failed = true;
    }

    /// Records a failure caused by `err`: a memory limit is told apart,
    /// as 7-Zip's "not enough memory".
    pub fn fail_with(&mut self, err: &io::Error) {
        self.failed = true;
        if crate::report::is_memory_limit(err) {
            self.memory = true;
        }
    }

    /// Records a command-line error (bad switch values, bad wildcards).
    pub fn usage(&mut self) {
        self.failed = true;
        self.usage = true;
    }

    /// Records a warning.
    pub fn warn(&mut self) {
        self.warned = true;
    }

    /// The process exit code.
    /// xz's `-Q`: warnings (xz's table) no longer make the status 2; their
    /// messages are still printed.
    pub fn without_warnings(mut self) -> Self {
        if self.style == Style::Xz {
            self.warned = false;
        }
        self
    }

    /// The exit code.
    pub fn code(self) -> u8 {
        match self.style {
            Style::Xz if self.failed => 1,
            Style::Xz if self.warned => 2,
            Style::SevenZip if self.usage => EXIT_USAGE,
            Style::SevenZip if self.memory => 8,
            Style::SevenZip if self.failed => 2,
            Style::SevenZip if self.warned => 1,
            _ => 0,
        }
    }
}
