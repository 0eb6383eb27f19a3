//! `lzflow t`: decode files completely, verifying every check, writing
//! nothing.

use std::io;

use super::{decode_into, DecodeArgs};
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
    #[command(flatten)]
    pub decode: DecodeArgs,
}

/// Runs `lzflow t`; false when any file failed.
pub fn run(args: &Args) -> bool {
    let files = if args.files.is_empty() {
        vec!["-".to_string()]
    } else {
        args.files.clone()
    };
    let mut ok = true;
    for file in &files {
        let result = Input::open(file).and_then(|input| {
            let name = input.name.clone();
            decode_into(input, &args.decode, |_| Ok(io::sink())).map(|(_, n)| (name, n))
        });
        match result {
            Ok((name, n)) if args.verbose => println!("{name}: OK ({n} bytes)"),
            Ok(_) => {}
            Err(e) => {
                report::file_error(if file == "-" { "(stdin)" } else { file }, &e);
                ok = false;
            }
        }
    }
    ok
}
