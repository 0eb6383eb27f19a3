//! `lzflow t`: decode files completely, verifying every check, writing
//! nothing.

use std::io;

use super::{decode_into, DecodeArgs, Status};
use crate::output::Input;
use crate::password::Use;
use crate::report;
use crate::select::Selection;

/// Options of `lzflow t`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Files to test (`-` or none: standard input); or one 7z or zip
    /// archive followed by wildcards choosing its entries (as for `x`).
    #[arg(value_name = "FILE")]
    pub files: Vec<String>,
    #[command(flatten)]
    pub filters: super::extract::FilterArgs,
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
/// its error; from then on the status uses 7-Zip's codes.
fn archive_tested(
    name: &str,
    tested: io::Result<(usize, u64)>,
    args: &Args,
    selection: &Selection,
    status: &mut Status,
) {
    status.use_archive_codes();
    match tested {
        Ok((n, bytes)) => {
            if args.verbose {
                outln!("{name}: OK ({n} entries, {bytes} bytes)");
            }
            super::extract::report_selection(name, selection, n);
        }
        Err(e) => {
            report::file_error(name, &e);
            status.fail_with(&e);
        }
    }
}

/// Runs `lzflow t`.
pub fn run(args: &Args) -> Status {
    let mut status = Status::default();
    let (files, selection) = match super::split_archive_args(&args.files, &args.filters) {
        Ok((files, _)) if files.is_empty() => (vec!["-".to_string()], Selection::default()),
        Ok(split) => split,
        Err(e) => {
            report::error(&e);
            status.use_archive_codes();
            status.usage();
            return status;
        }
    };
    for file in &files {
        let name = if file == "-" { "(stdin)" } else { file };
        let asked = crate::password::for_archive(file, args.password.as_deref(), Use::Data);
        let pw = match &asked {
            Ok(pw) => pw.as_deref(),
            Err(e) => {
                report::file_error(name, e);
                status.fail_with(e);
                continue;
            }
        };
        if super::zip::is_zip(file) {
            let options = args.limits.zip_options(args.decode.memlimit, pw);
            let tested = super::zip::test(file, options, &selection);
            archive_tested(name, tested, args, &selection, &mut status);
            continue;
        }
        if super::extract::is_7z(file) {
            let options = args.limits.options(args.decode.memlimit, pw);
            let tested = super::extract::test(file, options, args.decode.quiet, &selection);
            archive_tested(name, tested, args, &selection, &mut status);
            continue;
        }
        // Standard input may hold a zip archive: read it forward-only.
        let input = Input::open_compressed(file).and_then(|input| match file.as_str() {
            "-" => super::zip::sniff(input),
            _ => Ok((false, input)),
        });
        let input = match input {
            Ok((true, input)) => {
                let pw = args.password.as_deref();
                let options = args.limits.zip_options(args.decode.memlimit, pw);
                let z = lzflow::zip::ZipStreamReader::with_options(input.reader, options);
                let tested = super::zip::test_stream(z, &selection);
                archive_tested(name, tested, args, &selection, &mut status);
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
