//! `lzflow`: decompress, test, list and compress .xz, .lzma and .lz
//! files; create, extract, list and test .7z and .zip archives.
//!
//! Exit status follows xz: 0 when every file went well, 1 when any failed,
//! 2 when none failed but one gave a warning (data not fully verified).
//! Errors are printed as `lzflow: FILE: message` on stderr and processing
//! continues with the next file.
#![forbid(unsafe_code)]

/// `println!` for the tool's reports: when standard output is a pipe whose
/// reader has gone (`lzflow l big.7z | head`), the process ends quietly
/// with status 0 instead of panicking; any other write error is reported
/// and ends it with status 1.
macro_rules! outln {
    () => {
        $crate::report::stdout(format_args!("\n"))
    };
    ($($arg:tt)*) => {
        $crate::report::stdout(format_args!("{}\n", format_args!($($arg)*)))
    };
}

mod cmd;
mod codec;
mod format;
mod output;
mod progress;
mod report;
mod size;
mod xz_compat;

use std::ffi::OsString;
use std::process::ExitCode;

use clap::{CommandFactory, Parser, Subcommand};

/// Command line of `lzflow`.
#[derive(Debug, Parser)]
#[command(
    name = "lzflow",
    version,
    about = "Decompress, test, list and compress .xz, .lzma and .lz files; create, extract, list and test .7z and .zip archives",
    after_help = "Input files are kept unless --rm is given. Use `-` (or no FILE) for standard input.\n\n\
xz's command line works too (tar -I lzflow, lzflow < in > out.xz, lzflow -dc f.xz, -z -d -t -l -c -k -f \
-v -q -T N -0..-9 -e -F FORMAT -C CHECK -M SIZE), with xz's defaults: compress, standard input to \
standard output, and input files removed unless -k or -c; so do the names unxz, xzcat, lzcat, unlzma, \
lzma and lzip for a link to the binary.\n\n\
Exit status: 0 success, 1 error, 2 warning (as xz)."
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Decompress .xz / .lzma files (format detected from the magic bytes).
    #[command(visible_alias = "decompress")]
    D(cmd::decompress::Args),
    /// Test the integrity of compressed files without writing output.
    #[command(visible_alias = "test")]
    T(cmd::test::Args),
    /// List streams, blocks, check and sizes of .xz files.
    #[command(visible_alias = "list")]
    L(cmd::list::Args),
    /// Compress files to .xz (or .lzma with --format lzma).
    #[command(visible_alias = "compress")]
    C(cmd::compress::Args),
    /// Create a 7z archive from files and directories.
    #[command(visible_alias = "add")]
    A(cmd::add::Args),
    /// Extract a .7z archive (or split NAME.7z.001) into a directory.
    #[command(visible_alias = "extract")]
    X(cmd::extract::Args),
    /// Print a completion script for SHELL (bash, zsh, fish, elvish,
    /// powershell): `lzflow completions bash >
    /// ~/.local/share/bash-completion/completions/lzflow`.
    Completions {
        /// The shell.
        shell: clap_complete::Shell,
    },
    /// Print the man page (roff): `lzflow manpage >
    /// ~/.local/share/man/man1/lzflow.1`.
    Manpage,
}

fn main() -> ExitCode {
    // xz's command line (and program names) become a subcommand line.
    let args = match xz_compat::translate(std::env::args_os().collect()) {
        Ok(args) => args,
        Err(e) => {
            report::error(&e);
            return ExitCode::from(1);
        }
    };
    let cli = match Cli::try_parse_from(expand_presets(args)) {
        Ok(cli) => cli,
        Err(e) => {
            // Help and version go to stdout with status 0; usage errors are
            // errors like any other (status 1, as xz does).
            let status = if e.use_stderr() { 1 } else { 0 };
            let _ = e.print();
            return ExitCode::from(status);
        }
    };
    let status = match cli.command {
        Command::D(args) => cmd::decompress::run(&args),
        Command::T(args) => cmd::test::run(&args),
        Command::L(args) => cmd::list::run(&args),
        Command::C(args) => cmd::compress::run(&args),
        Command::A(args) => cmd::add::run(&args),
        Command::X(args) => cmd::extract::run(&args),
        Command::Completions { shell } => generated(|out| {
            clap_complete::generate(shell, &mut Cli::command(), "lzflow", out);
            Ok(())
        }),
        Command::Manpage => generated(|out| clap_mangen::Man::new(Cli::command()).render(out)),
    };
    ExitCode::from(status.code())
}

/// Writes what `make` generates from the command's definition to
/// standard output.
fn generated(make: impl FnOnce(&mut dyn std::io::Write) -> std::io::Result<()>) -> cmd::Status {
    let mut status = cmd::Status::default();
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    match make(&mut out).and_then(|()| std::io::Write::flush(&mut out)) {
        // A reader that stopped early (`| head`) is not an error.
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => {
            report::error(&e.to_string());
            status.fail();
        }
        _ => {}
    }
    status
}

/// Rewrites xz-style preset flags of `c` (`-6`, `-9e`) into `--preset=N`
/// (and `--extreme`): ten digit flags would clutter `--help`, and a digit
/// glued to `e` is not something clap parses. Likewise 7-Zip's switches
/// of `x`: `-aoa` and `-y` are `--overwrite`, `-aos` `--skip-existing`,
/// `-bd` (no progress) `--quiet`.
fn expand_presets(args: impl IntoIterator<Item = OsString>) -> Vec<OsString> {
    let mut out = Vec::new();
    let mut in_compress = false;
    let mut in_extract = false;
    let mut options_done = false;
    for (i, arg) in args.into_iter().enumerate() {
        let text = arg.to_str().unwrap_or("");
        if i == 1 {
            in_compress = text == "c" || text == "compress";
            in_extract = text == "x" || text == "extract";
        }
        if text == "--" {
            options_done = true;
        }
        if in_extract && !options_done && i > 1 {
            let long = match text {
                // 7-Zip's -y answers yes to its overwrite question.
                "-aoa" | "-y" => Some("--overwrite"),
                "-aos" => Some("--skip-existing"),
                "-bd" => Some("--quiet"),
                _ => None,
            };
            if let Some(long) = long {
                out.push(OsString::from(long));
                continue;
            }
        }
        let preset = text
            .strip_prefix('-')
            .filter(|_| in_compress && !options_done && i > 1)
            .and_then(|flag| {
                let (digit, extreme) = match flag.as_bytes() {
                    [d] => (*d, false),
                    [d, b'e'] | [b'e', d] => (*d, true),
                    _ => return None,
                };
                digit.is_ascii_digit().then_some((digit - b'0', extreme))
            });
        match preset {
            Some((level, extreme)) => {
                out.push(OsString::from(format!("--preset={level}")));
                if extreme {
                    out.push(OsString::from("--extreme"));
                }
            }
            None => out.push(arg),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn expand(args: &[&str]) -> Vec<String> {
        expand_presets(args.iter().map(OsString::from))
            .into_iter()
            .map(|s| s.into_string().unwrap())
            .collect()
    }

    #[test]
    fn preset_flags_become_options_only_for_compress() {
        assert_eq!(
            expand(&["lzflow", "c", "-9e", "-k", "f"]),
            ["lzflow", "c", "--preset=9", "--extreme", "-k", "f"]
        );
        assert_eq!(
            expand(&["lzflow", "c", "-0", "f"]),
            ["lzflow", "c", "--preset=0", "f"]
        );
        assert_eq!(
            expand(&["lzflow", "c", "--", "-1"]),
            ["lzflow", "c", "--", "-1"]
        );
        assert_eq!(expand(&["lzflow", "d", "-1"]), ["lzflow", "d", "-1"]);
        assert_eq!(
            expand(&["lzflow", "x", "-aoa", "a.7z", "-aos", "--", "-aoa"]),
            [
                "lzflow",
                "x",
                "--overwrite",
                "a.7z",
                "--skip-existing",
                "--",
                "-aoa"
            ]
        );
        assert_eq!(expand(&["lzflow", "c", "-aoa"]), ["lzflow", "c", "-aoa"]);
        assert_eq!(
            expand(&["lzflow", "x", "-y", "-bd", "a.zip"]),
            ["lzflow", "x", "--overwrite", "--quiet", "a.zip"]
        );
        assert_eq!(
            expand(&["lzflow", "c", "-T", "-12"]),
            ["lzflow", "c", "-T", "-12"]
        );
    }

    #[test]
    fn cli_definition_is_consistent() {
        use clap::CommandFactory;
        Cli::command().debug_assert();
    }
}
