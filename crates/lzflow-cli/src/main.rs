//! `lzflow`: decompress, test, list and compress .xz, .lzma and .lz
//! files; create, extract, list and test .7z and .zip archives.
//!
//! Exit status follows xz for the single-file commands (0 when every file
//! went well, 1 when any failed, 2 when none failed but one gave a warning)
//! and 7-Zip for the archive commands (0, 1 warning, 2 fatal error, 7
//! command-line error, 8 not enough memory). Errors are printed as `lzflow: FILE: message` on stderr and processing
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
mod interrupt;
mod lzma_options;
mod output;
mod password;
mod progress;
mod report;
mod select;
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
-v -q -Q -T N -0..-9 -e -F FORMAT -C CHECK -M SIZE, --x86 and the other BCJ filters, --delta, --lzma2, --block-size, --ignore-check), with xz's defaults: compress, standard input to \
standard output, and input files removed unless -k or -c; so do the names unxz, xzcat, lzcat, unlzma, \
lzma and lzip for a link to the binary.\n\n\
Archive commands take 7-Zip's switches too: -y, -aoa, -aos, -aou, -bd, -bsp0, -so, -r (wildcards always \
match at any depth), -i!WILDCARD, -x!WILDCARD (-bb, -bso and -bse are accepted and change nothing); \
`l` also -slt (the technical listing); `a` also -si[NAME], -ms=on|off|Nf|SIZE and, with -tzip, -so.\n\n\
Exit status of c, d, the xz command line, and t and l on .xz/.lzma/.lz files (as xz): \
0 success, 1 error, 2 warning.\n\
Exit status of a, x, e, and t and l on 7z/zip archives (as 7-Zip): 0 success, 1 warning \
(some files not extracted), 2 fatal error, 7 command-line error, 8 not enough memory \
(a memory limit was reached)."
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
    /// xz's -Q: a warning does not make the exit status 2.
    #[arg(long, global = true, hide = true)]
    no_warn: bool,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Decompress .xz / .lzma files (format detected from the magic bytes).
    #[command(visible_alias = "decompress")]
    D(cmd::decompress::Args),
    /// Test the integrity of compressed files without writing output.
    #[command(visible_alias = "test")]
    T(cmd::test::Args),
    /// List streams, blocks, check and sizes of .xz files; the entries of
    /// a 7z or zip archive (those the wildcards after it select).
    #[command(visible_alias = "list")]
    L(cmd::list::Args),
    /// Compress files to .xz (or .lzma with --format lzma).
    #[command(visible_alias = "compress")]
    C(cmd::compress::Args),
    /// Create a 7z or zip archive from files and directories (or standard
    /// input, -si).
    #[command(visible_alias = "add")]
    A(cmd::add::Args),
    /// Extract a .7z or .zip archive (or split NAME.7z.001) into a
    /// directory, with the entries' paths.
    #[command(visible_alias = "extract")]
    X(cmd::extract::Args),
    /// Extract the files of a .7z or .zip archive straight into a
    /// directory, without their paths (no directories are created).
    E(cmd::extract::Args),
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
    interrupt::install();
    // xz's command line (and program names) become a subcommand line.
    let args = match xz_compat::translate(std::env::args_os().collect()) {
        Ok(args) => args,
        Err(e) => {
            report::error(&e);
            return ExitCode::from(1);
        }
    };
    let args = expand_presets(args);
    let archive_command = args
        .get(1)
        .and_then(|a| a.to_str())
        .is_some_and(|a| matches!(a, "a" | "add" | "x" | "extract" | "e"));
    let cli = match Cli::try_parse_from(args) {
        Ok(cli) => cli,
        Err(e) => {
            // Help and version go to stdout with status 0; usage errors are
            // 7-Zip's 7 for the archive commands, else 1 (as xz).
            let status = match (e.use_stderr(), archive_command) {
                (false, _) => 0,
                (true, true) => cmd::EXIT_USAGE,
                (true, false) => 1,
            };
            let _ = e.print();
            return ExitCode::from(status);
        }
    };
    let no_warn = cli.no_warn;
    let status = match cli.command {
        Command::D(args) => cmd::decompress::run(&args),
        Command::T(args) => cmd::test::run(&args),
        Command::L(args) => cmd::list::run(&args),
        Command::C(args) => cmd::compress::run(&args),
        Command::A(args) => cmd::add::run(&args),
        Command::X(args) => cmd::extract::run(&args, false),
        Command::E(args) => cmd::extract::run(&args, true),
        Command::Completions { shell } => generated(|out| {
            clap_complete::generate(shell, &mut Cli::command(), "lzflow", out);
            Ok(())
        }),
        Command::Manpage => generated(|out| clap_mangen::Man::new(Cli::command()).render(out)),
    };
    let status = if no_warn {
        status.without_warnings()
    } else {
        status
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
/// glued to `e` is not something clap parses. Likewise 7-Zip's switches,
/// whose spelling clap cannot parse: for `x` and `e`, `-aoa` and `-y` are
/// `--overwrite`, `-aos` `--skip-existing`, `-so` `--stdout`; for `x`,
/// `e`, `l` and `t`, `-i!W` is `--include=W`, `-x!W` `--exclude=W` and
/// `-r` is dropped (wildcards always match at any depth); for `a`, `-si`
/// and `-siNAME` are `--stdin-name=NAME` and `-so` `--stdout`, and `-r`
/// is dropped too; `-bd` and `-bsp0` (no progress) are `--quiet` for `x`,
/// `e`, `t` and `a`, whose other output switches (`-bb`, `-bso`, `-bse`)
/// are dropped.
fn expand_presets(args: impl IntoIterator<Item = OsString>) -> Vec<OsString> {
    let mut out = Vec::new();
    let mut command = "";
    let mut options_done = false;
    for (i, arg) in args.into_iter().enumerate() {
        let text = arg.to_str().unwrap_or("");
        if i == 1 {
            command = match text {
                "c" | "compress" => "c",
                "x" | "extract" => "x",
                "e" => "e",
                "l" | "list" => "l",
                "t" | "test" => "t",
                "a" | "add" => "a",
                _ => "",
            };
        }
        if text == "--" {
            options_done = true;
        }
        if i > 1 && !options_done {
            if let Some(long) = seven_zip_switch(command, text) {
                out.extend(long.map(OsString::from));
                continue;
            }
        }
        let preset = text
            .strip_prefix('-')
            .filter(|_| command == "c" && !options_done && i > 1)
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

/// The long option (or nothing, for a switch that is dropped) that
/// 7-Zip's switch `text` is in `command`; `None` when it is not one.
fn seven_zip_switch(command: &str, text: &str) -> Option<Option<String>> {
    let extracting = matches!(command, "x" | "e");
    let selecting = extracting || matches!(command, "l" | "t");
    let long = match text {
        // 7-Zip's -y answers yes to its overwrite question.
        "-aoa" | "-y" if extracting => "--overwrite".to_string(),
        "-aos" if extracting => "--skip-existing".to_string(),
        "-aou" if extracting => "--rename".to_string(),
        "-so" if extracting || command == "a" => "--stdout".to_string(),
        "-slt" if command == "l" => "--technical".to_string(),
        "-bd" if extracting || matches!(command, "t" | "a") => "--quiet".to_string(),
        // Wildcards always match at any depth, and `a` always adds what
        // is below a directory it is given.
        "-r" if selecting || command == "a" => return Some(None),
        // No progress; the other output switches (-bb log level, -bso and
        // -bse streams, -bsp1/2) change nothing lzflow prints.
        "-bsp0" if extracting || matches!(command, "t" | "a") => "--quiet".to_string(),
        s if (s.starts_with("-bb") || s.starts_with("-bs"))
            && s.len() <= 5
            && (extracting || matches!(command, "t" | "a")) =>
        {
            return Some(None)
        }
        _ => {
            if let Some(w) = text.strip_prefix("-i!").filter(|_| selecting) {
                format!("--include={w}")
            } else if let Some(w) = text.strip_prefix("-x!").filter(|_| selecting) {
                format!("--exclude={w}")
            } else if let Some(n) = text.strip_prefix("-mmt").filter(|_| selecting) {
                // Extraction and tests decode on threads as 7-Zip's -mmt says.
                let n = n.strip_prefix('=').unwrap_or(n);
                match n {
                    "off" => "--threads=1".to_string(),
                    "on" | "" => "--threads=0".to_string(),
                    n => format!("--threads={n}"),
                }
            } else if let Some(name) = text.strip_prefix("-si").filter(|_| command == "a") {
                format!("--stdin-name={name}")
            } else {
                return None;
            }
        }
    };
    Some(Some(long))
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
    fn seven_zip_output_switches_and_recursion() {
        assert_eq!(
            expand(&["lzflow", "a", "-r", "-bb3", "-bso0", "-bsp0", "x.7z", "d"]),
            ["lzflow", "a", "--quiet", "x.7z", "d"]
        );
        assert_eq!(
            expand(&["lzflow", "x", "-bse1", "-bsp1", "x.7z"]),
            ["lzflow", "x", "x.7z"]
        );
        // Not a switch of `c` (nor a file name to guess about).
        assert_eq!(expand(&["lzflow", "c", "-bb3"]), ["lzflow", "c", "-bb3"]);
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
        assert_eq!(
            expand(&["lzflow", "e", "-so", "-r", "a.7z", "-i!*.txt", "-x!b/*"]),
            [
                "lzflow",
                "e",
                "--stdout",
                "a.7z",
                "--include=*.txt",
                "--exclude=b/*"
            ]
        );
        assert_eq!(
            expand(&["lzflow", "a", "-si", "-tzip", "-so", "x.zip"]),
            ["lzflow", "a", "--stdin-name=", "-tzip", "--stdout", "x.zip"]
        );
        assert_eq!(
            expand(&["lzflow", "x", "-mmt=2", "a.7z", "-mmtoff"]),
            ["lzflow", "x", "--threads=2", "a.7z", "--threads=1"]
        );
        assert_eq!(
            expand(&["lzflow", "a", "-sidata.bin", "x.7z"]),
            ["lzflow", "a", "--stdin-name=data.bin", "x.7z"]
        );
        assert_eq!(
            expand(&["lzflow", "l", "a.zip", "-x!*.md", "-y"]),
            ["lzflow", "l", "a.zip", "--exclude=*.md", "-y"]
        );
        assert_eq!(expand(&["lzflow", "c", "-so"]), ["lzflow", "c", "-so"]);
    }

    #[test]
    fn cli_definition_is_consistent() {
        use clap::CommandFactory;
        Cli::command().debug_assert();
    }
}
