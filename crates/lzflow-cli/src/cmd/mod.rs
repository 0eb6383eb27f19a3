//! One module per subcommand; `x` and `a` (7z) slot in beside these.

pub mod add;
pub mod compress;
pub mod decompress;
pub mod extract;
pub mod list;
pub mod test;
pub mod zip;

use std::io::{self, Write};

use crate::codec::{self, DecodeOptions};
use crate::format::Format;
use crate::output::Input;
use crate::progress::Progress;
use crate::size::parse_size;

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

/// The exit status over all files, as xz reports it: 1 if anything failed,
/// else 2 if anything warned, else 0.
#[derive(Debug, Default, Clone, Copy)]
pub struct Status {
    failed: bool,
    warned: bool,
}

impl Status {
    /// Records a failed file.
    pub fn fail(&mut self) {
        self.failed = true;
    }

    /// Records a warning.
    pub fn warn(&mut self) {
        self.warned = true;
    }

    /// The process exit code.
    pub fn code(self) -> u8 {
        if self.failed {
            1
        } else if self.warned {
            2
        } else {
            0
        }
    }
}
