//! `lzflow d`: decompress .xz and .lzma files.

use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use super::{decode_into, DecodeArgs, Status};
use crate::format::strip_suffix;
use crate::output::{Input, Sink};
use crate::report;

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
    /// Delete the input file after it was decompressed successfully.
    #[arg(long)]
    pub rm: bool,
    /// Overwrite existing output files.
    #[arg(short, long)]
    pub force: bool,
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
    for file in &files {
        match decompress_one(file, args) {
            Ok(None) => {}
            Ok(Some(warning)) => {
                report::file_warning(display_name(file), &warning);
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

/// Decompresses one file; Ok carries a warning when there was one.
fn decompress_one(file: &str, args: &Args) -> io::Result<Option<String>> {
    let input = Input::open(file)?;
    let to_stdout = args.stdout || (input.path.is_none() && args.output.is_none());
    let input_path = input.path.clone();
    let metadata = input.metadata.clone();
    let decoded = decode_into(input, &args.decode, |format| {
        if to_stdout {
            return Ok(Sink::stdout());
        }
        let out = match (&args.output, &input_path) {
            (Some(out), _) => out.clone(),
            (None, Some(path)) => {
                let name = path.to_string_lossy();
                match strip_suffix(&name, format) {
                    Some(stripped) => PathBuf::from(stripped),
                    None => {
                        return Err(io::Error::new(
                            io::ErrorKind::InvalidInput,
                            format!(
                                "file name has no .{format} suffix, so the output name is unknown; use -o OUT or -c"
                            ),
                        ))
                    }
                }
            }
            (None, None) => unreachable!("stdin without -o goes to stdout"),
        };
        if let Some(inp) = &input_path {
            refuse_same_file(inp, &out)?;
        }
        Sink::create(&out, args.force)
    })?;
    decoded
        .sink
        .commit(if to_stdout { None } else { metadata.as_ref() })?;
    // An unverified file is not a reason to delete the only verified copy.
    if args.rm && !to_stdout && decoded.warning.is_none() {
        if let Some(path) = &input_path {
            fs::remove_file(path)?;
        }
    }
    Ok(decoded.warning)
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
