//! `lzflow d`: decompress .xz and .lzma files.

use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use super::{decode_into, DecodeArgs, Status};
use crate::format::strip_suffix;
use crate::output::{Input, Sink};
use crate::progress::{Meter, Metered};
use crate::report;
use crate::size::parse_bytes;

/// Options of `lzflow d`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Files to decompress (`-` or none: standard input to standard output).
    #[arg(value_name = "FILE")]
    pub files: Vec<String>,
    /// Write the output to OUT (only with a single input file).
    #[arg(short, long, value_name = "OUT", conflicts_with = "stdout")]
    pub output: Option<PathBuf>,
    /// Write to standard output; keep the input.
    #[arg(short = 'c', long)]
    pub stdout: bool,
    /// Keep the input file (the default; accepted for xz compatibility).
    #[arg(short, long, conflicts_with = "rm")]
    pub keep: bool,
    /// Delete the input file after it was decompressed successfully (as
    /// xz, not one with another hard link or a setuid, setgid or sticky
    /// bit, unless -f).
    #[arg(long)]
    pub rm: bool,
    /// Overwrite existing output files.
    #[arg(short, long)]
    pub force: bool,
    /// Also take files named *SUF (stripped for the output name), besides
    /// .xz, .txz, .lzma, .tlz and .lz, as xz's --suffix.
    #[arg(short = 'S', long, value_name = "SUF", value_parser = crate::format::parse_suffix)]
    pub suffix: Option<String>,
    /// Random access (.xz files): write only the decoded bytes from offset
    /// N on (to standard output unless -o), decoding from the Block that
    /// holds N. Needs a seekable file.
    #[arg(long, value_name = "N", value_parser = parse_bytes)]
    pub offset: Option<u64>,
    /// With --offset: at most M bytes (default: to the end).
    #[arg(long, value_name = "M", value_parser = parse_bytes, requires = "offset")]
    pub length: Option<u64>,
    /// Show progress as `xz -v` does: a line redrawn on a terminal, and a
    /// summary line (sizes, ratio, rate, time) for each file, also when
    /// stderr is not a terminal.
    #[arg(short, long, conflicts_with = "quiet")]
    pub verbose: bool,
    #[command(flatten)]
    pub decode: DecodeArgs,
}

/// Runs `lzflow d`.
pub fn run(args: &Args) -> Status {
    let files = if args.files.is_empty() {
        vec!["-".to_string()]
    } else {
        args.files.clone()
    };
    let mut status = Status::default();
    if args.output.is_some() && files.len() > 1 {
        report::error("-o works with a single input file only");
        status.fail();
        return status;
    }
    if let Some(offset) = args.offset {
        if files.len() != 1 || files[0] == "-" {
            report::error("--offset needs exactly one seekable .xz file");
            status.fail();
            return status;
        }
        if let Err(e) = slice(&files[0], offset, args) {
            report::file_error(&files[0], &e);
            status.fail();
        }
        return status;
    }
    for (i, file) in files.iter().enumerate() {
        match decompress_one(file, args, (i + 1, files.len())) {
            Ok(None) => {}
            Ok(Some(warning)) => {
                report::file_warning(display_name(file), &warning);
                status.warn();
            }
            Err(e) if report::is_skipped(&e) => {
                report::file_error(display_name(file), &e);
                status.warn();
            }
            Err(e) => {
                report::file_error(display_name(file), &e);
                status.fail();
            }
        }
    }
    status
}

fn display_name(file: &str) -> &str {
    if file == "-" {
        "(stdin)"
    } else {
        file
    }
}

/// Decompresses one file, the `place.0`-th of `place.1` (for `-v`); Ok
/// carries a warning when there was one.
fn decompress_one(file: &str, args: &Args, place: (usize, usize)) -> io::Result<Option<String>> {
    // A link, FIFO or device is read only into standard output or a
    // named output (or with -f), as xz reads them.
    let mut input = if args.stdout || args.output.is_some() || args.force || file == "-" {
        Input::open_compressed(file)?
    } else {
        Input::open_regular(file, !args.rm)?
    };
    // xz's report: compressed bytes in, decompressed bytes out.
    let meter = args
        .verbose
        .then(|| Meter::new(&input.name, place.0, place.1, input.size(), false));
    if let Some(meter) = &meter {
        input.reader = Box::new(meter.reader(input.reader));
    }
    let to_stdout = args.stdout || (input.path.is_none() && args.output.is_none());
    if args.rm && !to_stdout && !args.force {
        input.check_removable()?;
    }
    let input_path = input.path.clone();
    let metadata = input.metadata.clone();
    let decoded = decode_into(input, &args.decode, |format| {
        let metered = |sink: Sink| match &meter {
            Some(meter) => Output::Metered(meter.writer(sink)),
            None => Output::Plain(sink),
        };
        if to_stdout {
            return Ok(metered(Sink::stdout()));
        }
        let out = match (&args.output, &input_path) {
            (Some(out), _) => out.clone(),
            (None, Some(path)) => {
                let name = path.to_string_lossy();
                match strip_suffix(&name, format, args.suffix.as_deref()) {
                    Some(stripped) => PathBuf::from(stripped),
                    // As xz: passed over with a warning (status 2).
                    None => {
                        return Err(report::skipped(format!(
                            "file name has no .{format} suffix, so the output name is unknown, skipping (use -o OUT or -c)"
                        )))
                    }
                }
            }
            (None, None) => unreachable!("stdin without -o goes to stdout"),
        };
        if let Some(inp) = &input_path {
            refuse_same_file(inp, &out)?;
        }
        Sink::create(&out, args.force, metadata.as_ref()).map(metered)
    })?;
    decoded
        .sink
        .into_sink()
        .commit(if to_stdout { None } else { metadata.as_ref() })?;
    if let Some(meter) = meter {
        meter.finish();
    }
    // An unverified file is not a reason to delete the only verified copy.
    if args.rm && !to_stdout && decoded.warning.is_none() {
        if let Some(path) = &input_path {
            fs::remove_file(path)?;
        }
    }
    Ok(decoded.warning)
}

/// The output of `d`, counted for `-v` or not.
enum Output {
    Plain(Sink),
    Metered(Metered<Sink>),
}

impl Output {
    fn into_sink(self) -> Sink {
        match self {
            Output::Plain(s) => s,
            Output::Metered(m) => m.into_inner(),
        }
    }
}

impl io::Write for Output {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        match self {
            Output::Plain(s) => s.write(buf),
            Output::Metered(m) => m.write(buf),
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        match self {
            Output::Plain(s) => s.flush(),
            Output::Metered(m) => m.flush(),
        }
    }
}

/// `--offset N [--length M]`: the slice, decoded from the Block that holds
/// N, to standard output or `-o OUT`.
fn slice(file: &str, offset: u64, args: &Args) -> io::Result<()> {
    use std::io::{Read, Seek, SeekFrom};
    let opts = lzflow_xz::XzDecoderOptions::default().with_lzma(
        lzflow_lzma::DecoderOptions::default()
            .with_limits(lzflow::Limits::NONE.with_memory(args.decode.memlimit)),
    );
    let source = io::BufReader::new(fs::File::open(file)?);
    let mut xz = lzflow::seekable::SeekableXzReader::open_with(source, opts)?;
    xz.seek(SeekFrom::Start(offset))?;
    let mut part = xz.take(args.length.unwrap_or(u64::MAX));
    match &args.output {
        Some(out) => {
            let mut sink = Sink::create(out, args.force, None)?;
            io::copy(&mut part, &mut sink)?;
            sink.commit(None)
        }
        None => {
            io::copy(&mut part, &mut io::stdout().lock())?;
            Ok(())
        }
    }
}

/// With -f the output is unlinked first, so writing onto the input would
/// destroy it before it is read.
fn refuse_same_file(input: &Path, output: &Path) -> io::Result<()> {
    if let (Ok(a), Ok(b)) = (fs::canonicalize(input), fs::canonicalize(output)) {
        if a == b {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                "output would overwrite the input file",
            ));
        }
    }
    Ok(())
}
