//! `lzflow t`: decode files completely, verifying every check, writing
//! nothing.

use std::io;

use super::{decode_into, DecodeArgs, Status};
use crate::output::Input;
use crate::report;

/// Options of `lzflow t`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Files to test (`-` or none: standard input).
    #[arg(value_name = "FILE")]
    pub files: Vec<String>,
    /// Print `FILE: OK` and the decoded size for each good file.
    #[arg(short, long)]
    pub verbose: bool,
    /// Password of an encrypted 7z or zip archive.
    #[arg(short, long, value_name = "PASSWORD")]
    pub password: Option<String>,
    #[command(flatten)]
    pub decode: DecodeArgs,
    #[command(flatten)]
    pub limits: super::extract::ArchiveLimits,
}

/// Reports an archive's test: its entry and byte counts with `-v`, or
/// its error.
fn archive_tested(name: &str, tested: io::Result<(usize, u64)>, args: &Args, status: &mut Status) {
    match tested {
        Ok((n, bytes)) if args.verbose => outln!("{name}: OK ({n} entries, {bytes} bytes)"),
        Ok(_) => {}
        Err(e) => {
            report::file_error(name, &e);
            status.fail();
        }
    }
}

/// Runs `lzflow t`.
pub fn run(args: &Args) -> Status {
    let files = if args.files.is_empty() {
        vec!["-".to_string()]
    } else {
        args.files.clone()
    };
    let mut status = Status::default();
    for file in &files {
        let name = if file == "-" { "(stdin)" } else { file };
        if super::zip::is_zip(file) {
            let pw = args.password.as_deref();
            let options = args.limits.zip_options(args.decode.memlimit, pw);
            archive_tested(name, super::zip::test(file, options), args, &mut status);
            continue;
        }
        if super::extract::is_7z(file) {
            let pw = args.password.as_deref();
            let options = args.limits.options(args.decode.memlimit, pw);
            let tested = super::extract::test(file, options, args.decode.quiet);
            archive_tested(name, tested, args, &mut status);
            continue;
        }
        // Standard input may hold a zip archive: read it forward-only.
        let input = Input::open(file).and_then(|input| match file.as_str() {
            "-" => super::zip::sniff(input),
            _ => Ok((false, input)),
        });
        let input = match input {
            Ok((true, input)) => {
                let pw = args.password.as_deref();
                let options = args.limits.zip_options(args.decode.memlimit, pw);
                let z = lzflow::zip::ZipStreamReader::with_options(input.reader, options);
                archive_tested(name, super::zip::test_stream(z), args, &mut status);
                continue;
            }
            Ok((false, input)) => Ok(input),
            Err(e) => Err(e),
        };
        let result = input.and_then(|input| decode_into(input, &args.decode, |_| Ok(io::sink())));
        match result {
            Ok(decoded) => {
                if let Some(warning) = &decoded.warning {
                    report::file_warning(name, warning);
                    status.warn();
                } else if args.verbose {
                    outln!("{name}: OK ({} bytes)", decoded.size);
                }
            }
            Err(e) => {
                report::file_error(name, &e);
                status.fail();
            }
        }
    }
    status
}
