//! xz's command line, for the habits and tools that expect it: `tar -I
//! lzflow`, `lzflow < in > out.xz`, `lzflow -dc f.xz`, and the program
//! names `unxz`, `xzcat`, `lzcat`, `unlzma`, `lzma` and `lzip` (a link to
//! the binary). Such a line is rewritten into the subcommand that does
//! the work, so each operation keeps one implementation; xz's defaults
//! come with it: no operation means compress, no file means standard input
//! to standard output, and an input file is removed once its output is
//! complete unless `-k` or `-c` is given.

use std::ffi::OsString;
use std::path::Path;

/// The subcommands and what else a first argument of the subcommand style
/// can be; such a line is left alone.
const SUBCOMMAND_STYLE: &[&str] = &[
    "d",
    "decompress",
    "t",
    "test",
    "l",
    "list",
    "c",
    "compress",
    "a",
    "add",
    "x",
    "extract",
    "e",
    "completions",
    "manpage",
    "help",
    "-h",
    "--help",
    "-V",
    "--version",
];

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Operation {
    Compress,
    Decompress,
    Test,
    List,
}

/// What an xz-style line asks for.
#[derive(Debug, Default)]
struct XzLine {
    operation: Option<Operation>,
    stdout: bool,
    keep: bool,
    force: bool,
    /// How many times `-v` was given.
    verbose: u8,
    quiet: bool,
    extreme: bool,
    preset: Option<u32>,
    threads: Option<String>,
    format: Option<String>,
    check: Option<String>,
    /// `-M`: both limits.
    memlimit: Option<String>,
    memlimit_compress: Option<String>,
    memlimit_decompress: Option<String>,
    single_stream: bool,
    /// `--lzma2[=OPTS]` / `--lzma1[=OPTS]`: the option string.
    lzma: Option<String>,
    /// A BCJ filter (`--x86[=start=N]`, ...) and its start offset.
    bcj: Option<(String, Option<String>)>,
    /// `--delta[=dist=N]`: the distance.
    delta: Option<String>,
    block_size: Option<String>,
    /// `--block-list=SIZES`.
    block_list: Option<String>,
    ignore_check: bool,
    no_warn: bool,
    robot: bool,
    /// Invoked as `lzip`: its own options are taken too.
    lzip: bool,
    /// `-S SUF`, `--suffix=SUF`.
    suffix: Option<String>,
    /// lzip's `-o FILE`.
    output: Option<OsString>,
    /// lzip's `-s SIZE`: the dictionary size.
    dict_size: Option<String>,
    files: Vec<OsString>,
}

/// lzip's dictionary size: 12 to 29 mean powers of two, anything else is a
/// size.
fn lzip_dict(value: &str) -> String {
    match value.parse::<u32>() {
        Ok(n @ 12..=29) => (1u64 << n).to_string(),
        _ => value.to_string(),
    }
}

/// The BCJ filters both command lines name alike.
const BCJ_FILTERS: &[&str] = &[
    "x86", "arm", "armthumb", "arm64", "powerpc", "sparc", "ia64", "riscv",
];

/// The value of a filter's only option (`start=N`, `dist=N`) in `value`.
fn filter_option(
    filter: &str,
    option: &str,
    value: Option<String>,
) -> Result<Option<String>, String> {
    match value {
        None => Ok(None),
        Some(v) => match v.split_once('=') {
            Some((name, n)) if name == option => Ok(Some(n.to_string())),
            _ => Err(format!("--{filter}={v}: the option is {option}=N")),
        },
    }
}

/// The program name's own defaults: `unxz` decompresses, `xzcat` to
/// standard output, `lzma` writes `.lzma`.
fn defaults_of(program: &str) -> Option<XzLine> {
    let mut line = XzLine::default();
    match program {
        "xz" => {}
        "unxz" | "unlzma" => line.operation = Some(Operation::Decompress),
        "xzcat" | "lzcat" => {
            line.operation = Some(Operation::Decompress);
            line.stdout = true;
        }
        "lzma" => line.format = Some("lzma".into()),
        "lzip" => {
            line.format = Some("lzip".into());
            line.lzip = true;
        }
        _ => return None,
    }
    Some(line)
}

/// `args` (with the program name first) as a subcommand line: unchanged
/// when it is one already, rewritten when it is xz's.
pub fn translate(args: Vec<OsString>) -> Result<Vec<OsString>, String> {
    let program = args
        .first()
        .and_then(|p| Path::new(p).file_stem())
        .and_then(|p| p.to_str())
        .unwrap_or("lzflow")
        .to_string();
    let first = args.get(1).and_then(|a| a.to_str());
    let mut line = match defaults_of(&program) {
        Some(line) => line,
        None if first.is_some_and(|a| SUBCOMMAND_STYLE.contains(&a)) => return Ok(args),
        None => XzLine::default(),
    };
    parse(&mut line, args.into_iter().skip(1))?;
    Ok(build(line))
}

/// Reads xz's options and files into `line`.
fn parse(line: &mut XzLine, args: impl Iterator<Item = OsString>) -> Result<(), String> {
    let mut args = args.peekable();
    let mut only_files = false;
    let mut list_files = Vec::new();
    while let Some(arg) = args.next() {
        let Some(text) = arg
            .to_str()
            .filter(|t| !only_files && t.starts_with('-') && t.len() > 1)
        else {
            line.files.push(arg);
            continue;
        };
        if text == "--" {
            only_files = true;
            continue;
        }
        if let Some(long) = text.strip_prefix("--") {
            let (name, value) = match long.split_once('=') {
                Some((n, v)) => (n, Some(v.to_string())),
                None => (long, None),
            };
            let mut value_of = |what: &str| match value.clone() {
                Some(v) => Ok(v),
                None => args
                    .next()
                    .and_then(|v| v.into_string().ok())
                    .ok_or_else(|| format!("--{what} needs a value")),
            };
            match name {
                "decompress" | "uncompress" => line.operation = Some(Operation::Decompress),
                "compress" => line.operation = Some(Operation::Compress),
                "test" => line.operation = Some(Operation::Test),
                "list" => line.operation = Some(Operation::List),
                "stdout" | "to-stdout" => line.stdout = true,
                "keep" => line.keep = true,
                "force" => line.force = true,
                "verbose" => line.verbose = line.verbose.saturating_add(1),
                "quiet" => line.quiet = true,
                "extreme" => line.extreme = true,
                "single-stream" => line.single_stream = true,
                "threads" => line.threads = Some(value_of(name)?),
                "format" => line.format = Some(value_of(name)?),
                "check" => line.check = Some(value_of(name)?),
                "memlimit" | "memory" => line.memlimit = Some(value_of(name)?),
                "memlimit-compress" => line.memlimit_compress = Some(value_of(name)?),
                "memlimit-decompress" => line.memlimit_decompress = Some(value_of(name)?),
                "lzma1" | "lzma2" => line.lzma = Some(value.clone().unwrap_or_default()),
                bcj if BCJ_FILTERS.contains(&bcj) => {
                    let start = filter_option(bcj, "start", value.clone())?;
                    line.bcj = Some((bcj.to_string(), start));
                }
                "delta" => {
                    let dist = filter_option(name, "dist", value.clone())?;
                    line.delta = Some(dist.unwrap_or_else(|| "1".into()));
                }
                "block-size" => line.block_size = Some(value_of(name)?),
                "block-list" => line.block_list = Some(value_of(name)?),
                // Output is never written sparse: nothing to turn off.
                "no-sparse" => {}
                "ignore-check" => line.ignore_check = true,
                "suffix" => line.suffix = Some(value_of(name)?),
                // Names read from a list (standard input without =FILE),
                // after those on the command line, as xz reads them.
                "files" | "files0" => {
                    let sep = if name == "files0" { b'\0' } else { b'\n' };
                    list_files.push((value.clone(), sep));
                }
                // Machine-readable output: lzflow has it for listings;
                // elsewhere its messages are the same either way.
                "robot" => line.robot = true,
                "no-warn" => line.no_warn = true,
                "output" if line.lzip => line.output = Some(value_of(name)?.into()),
                "dictionary-size" if line.lzip => {
                    line.dict_size = Some(lzip_dict(&value_of(name)?))
                }
                "member-size" if line.lzip => line.block_size = Some(value_of(name)?),
                "fast" => line.preset = Some(0),
                "best" => line.preset = Some(9),
                _ => return Err(format!("--{name}: not an option of xz's command line")),
            }
            continue;
        }
        // A cluster of short options: `-dc`, `-9e`, `-T4`, `-T 4`.
        let mut chars = text[1..].chars();
        while let Some(c) = chars.next() {
            let mut value_of = |what: char| {
                let rest: String = chars.by_ref().collect();
                if !rest.is_empty() {
                    return Ok(rest);
                }
                args.next()
                    .and_then(|v| v.into_string().ok())
                    .ok_or_else(|| format!("-{what} needs a value"))
            };
            match c {
                'd' => line.operation = Some(Operation::Decompress),
                'z' => line.operation = Some(Operation::Compress),
                't' => line.operation = Some(Operation::Test),
                'l' => line.operation = Some(Operation::List),
                'c' => line.stdout = true,
                'k' => line.keep = true,
                'f' => line.force = true,
                'v' => line.verbose = line.verbose.saturating_add(1),
                'q' => line.quiet = true,
                'e' => line.extreme = true,
                'Q' => line.no_warn = true,
                'S' => line.suffix = Some(value_of(c)?),
                // lzip's own: -o FILE, -s SIZE, -b SIZE, -n THREADS (plzip).
                'o' if line.lzip => line.output = Some(value_of(c)?.into()),
                's' if line.lzip => line.dict_size = Some(lzip_dict(&value_of(c)?)),
                'b' if line.lzip => line.block_size = Some(value_of(c)?),
                'n' if line.lzip => line.threads = Some(value_of(c)?),
                '0'..='9' => line.preset = Some(c as u32 - '0' as u32),
                'T' => line.threads = Some(value_of(c)?),
                'F' => line.format = Some(value_of(c)?),
                'C' => line.check = Some(value_of(c)?),
                'M' => line.memlimit = Some(value_of(c)?),
                _ => return Err(format!("-{c}: not an option of xz's command line")),
            }
        }
    }
    let listed = !list_files.is_empty();
    for (from, sep) in list_files {
        line.files.extend(read_names(from.as_deref(), sep)?);
    }
    if listed && line.files.is_empty() {
        // Else standard input, already read for the list, would be data.
        return Err("--files: no file names to process".into());
    }
    Ok(())
}

/// The file names listed in `from` (standard input when `None`), each
/// ended by `sep`; a last one without it counts too. A name `-` is a file
/// of that name here, not standard input.
fn read_names(from: Option<&str>, sep: u8) -> Result<Vec<OsString>, String> {
    use std::io::Read;
    let mut bytes = Vec::new();
    let read = match from {
        Some(path) => std::fs::File::open(path).and_then(|mut f| f.read_to_end(&mut bytes)),
        None => std::io::stdin().lock().read_to_end(&mut bytes),
    };
    read.map_err(|e| format!("{}: {e}", from.unwrap_or("(stdin)")))?;
    Ok(bytes
        .split(|&b| b == sep)
        .filter(|name| !name.is_empty())
        .map(|name| match name {
            b"-" => OsString::from("./-"),
            name => os_string(name.to_vec()),
        })
        .collect())
}

/// A file name's bytes as an `OsString` (any bytes on Unix).
#[cfg(unix)]
fn os_string(bytes: Vec<u8>) -> OsString {
    use std::os::unix::ffi::OsStringExt;
    OsString::from_vec(bytes)
}

#[cfg(not(unix))]
fn os_string(bytes: Vec<u8>) -> OsString {
    String::from_utf8_lossy(&bytes).into_owned().into()
}

/// The subcommand line doing what `line` asks.
fn build(mut line: XzLine) -> Vec<OsString> {
    let operation = line.operation.unwrap_or(Operation::Compress);
    let mut out: Vec<OsString> = vec!["lzflow".into()];
    let mut push = |a: &str| out.push(OsString::from(a));
    push(match operation {
        Operation::Compress => "c",
        Operation::Decompress => "d",
        Operation::Test => "t",
        Operation::List => "l",
    });
    // xz's "auto" (the default) and "alone" (its name for .lzma).
    let format = match line.format.as_deref() {
        None | Some("auto") => None,
        Some("alone") => Some("lzma"),
        Some(f) => Some(f),
    };
    let writes = matches!(operation, Operation::Compress | Operation::Decompress);
    // lzip's `-o -` is `-c`; another -o keeps the input.
    let output = match line.output {
        Some(o) if o == "-" => {
            line.stdout = true;
            None
        }
        o => o,
    };
    if writes {
        if line.stdout {
            push("-c");
        }
        if line.force {
            push("-f");
        }
        if let Some(suffix) = &line.suffix {
            push(&format!("--suffix={suffix}"));
        }
        if line.quiet {
            push("-q");
        } else if line.verbose > 0 {
            push("-v");
        }
        let named = line.files.iter().any(|f| f != "-");
        if !line.keep && !line.stdout && named && output.is_none() {
            // xz removes an input once its output is complete.
            push("--rm");
        }
    } else if operation == Operation::List {
        // `-lvv` adds each Block's header to the listing.
        for _ in 0..line.verbose.min(2) {
            push("-v");
        }
    } else if line.verbose > 0 {
        push("-v");
    }
    if line.robot && operation == Operation::List {
        push("--robot");
    }
    // `l` knows the format from the file.
    if let Some(f) = format.filter(|_| operation != Operation::List) {
        push("-F");
        push(f);
    }
    if operation == Operation::Compress {
        if let Some(p) = line.preset {
            push(&format!("--preset={p}"));
        }
        if line.extreme {
            push("--extreme");
        }
        if let Some(t) = &line.threads {
            push("-T");
            push(t);
        }
        if let Some(c) = &line.check {
            push("-C");
            push(c);
        }
        if let Some((bcj, start)) = &line.bcj {
            push(&format!("--{bcj}"));
            if let Some(start) = start {
                push(&format!("--bcj-start={start}"));
            }
        }
        if let Some(dist) = &line.delta {
            push(&format!("--delta={dist}"));
        }
        if let Some(lzma) = &line.lzma {
            push(&format!("--lzma2={lzma}"));
        }
        if let Some(size) = &line.block_size {
            push(&format!("--block-size={size}"));
        }
        if let Some(list) = &line.block_list {
            push(&format!("--block-list={list}"));
        }
        if let Some(size) = &line.dict_size {
            push(&format!("--dict-size={size}"));
        }
        if let Some(m) = line.memlimit_compress.as_ref().or(line.memlimit.as_ref()) {
            push(&format!("--memlimit={m}"));
        }
    } else if operation != Operation::List {
        if let Some(m) = line.memlimit_decompress.as_ref().or(line.memlimit.as_ref()) {
            push(&format!("--memlimit={m}"));
        }
        if line.single_stream {
            push("--single-stream");
        }
        if line.ignore_check {
            push("--ignore-check");
        }
    }
    if line.no_warn {
        push("--no-warn");
    }
    if let Some(o) = output.filter(|_| writes) {
        out.push("-o".into());
        out.push(o);
    }
    out.push(OsString::from("--"));
    out.extend(line.files);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(args: &[&str]) -> Result<Vec<String>, String> {
        translate(args.iter().map(OsString::from).collect()).map(|v| {
            v.into_iter()
                .map(|s| s.into_string().unwrap())
                .collect::<Vec<_>>()
        })
    }

    #[test]
    fn subcommand_lines_are_left_alone() {
        for line in [
            vec!["lzflow", "d", "-c", "f.xz"],
            vec!["lzflow", "--help"],
            vec!["/usr/bin/lzflow", "x", "a.7z"],
        ] {
            assert_eq!(t(&line).unwrap(), line);
        }
    }

    #[test]
    fn xz_lines_become_subcommands() {
        assert_eq!(t(&["lzflow"]).unwrap(), ["lzflow", "c", "--"]);
        assert_eq!(
            t(&["lzflow", "-d"]).unwrap(),
            ["lzflow", "d", "--"],
            "tar -I lzflow -x"
        );
        assert_eq!(
            t(&["lzflow", "-dc", "f.xz"]).unwrap(),
            ["lzflow", "d", "-c", "--", "f.xz"]
        );
        assert_eq!(
            t(&["lzflow", "-9e", "-T2", "-k", "f"]).unwrap(),
            [
                "lzflow",
                "c",
                "--preset=9",
                "--extreme",
                "-T",
                "2",
                "--",
                "f"
            ]
        );
        assert_eq!(
            t(&["lzflow", "-T", "0", "--check=sha256", "f"]).unwrap(),
            ["lzflow", "c", "--rm", "-T", "0", "-C", "sha256", "--", "f"]
        );
        assert_eq!(
            t(&["lzflow", "--test", "-v", "a.xz", "--", "-b.xz"]).unwrap(),
            ["lzflow", "t", "-v", "--", "a.xz", "-b.xz"]
        );
        assert_eq!(
            t(&["lzflow", "-d", "--memlimit", "10MiB", "-F", "alone", "-"]).unwrap(),
            ["lzflow", "d", "-F", "lzma", "--memlimit=10MiB", "--", "-"]
        );
        assert!(t(&["lzflow", "-Y"]).unwrap_err().contains("-Y"));
        assert!(t(&["lzflow", "--frobnicate"]).is_err());
        assert!(t(&["lzflow", "-T"]).is_err());
    }

    #[test]
    fn filter_chains_and_block_sizes_are_passed_on() {
        // What the Linux kernel's scripts/xz_wrap.sh runs.
        assert_eq!(
            t(&[
                "xz",
                "--check=crc32",
                "--threads=1",
                "--x86",
                "--lzma2=dict=32MiB"
            ])
            .unwrap(),
            [
                "lzflow",
                "c",
                "-T",
                "1",
                "-C",
                "crc32",
                "--x86",
                "--lzma2=dict=32MiB",
                "--"
            ]
        );
        assert_eq!(
            t(&[
                "lzflow",
                "-k",
                "--arm64=start=16",
                "--delta=dist=4",
                "--lzma2",
                "--block-size=1MiB",
                "--no-sparse",
                "f"
            ])
            .unwrap(),
            [
                "lzflow",
                "c",
                "--arm64",
                "--bcj-start=16",
                "--delta=4",
                "--lzma2=",
                "--block-size=1MiB",
                "--",
                "f"
            ]
        );
        assert_eq!(
            t(&["lzma", "--lzma1=preset=1,lc=4", "-c"]).unwrap(),
            [
                "lzflow",
                "c",
                "-c",
                "-F",
                "lzma",
                "--lzma2=preset=1,lc=4",
                "--"
            ]
        );
        assert_eq!(
            t(&["xz", "-dQ", "--ignore-check", "f.xz"]).unwrap(),
            [
                "lzflow",
                "d",
                "--rm",
                "--ignore-check",
                "--no-warn",
                "--",
                "f.xz"
            ]
        );
        assert_eq!(
            t(&["xz", "--robot", "-lv", "f.xz"]).unwrap(),
            ["lzflow", "l", "-v", "--robot", "--", "f.xz"]
        );
        assert_eq!(
            t(&["unxz", "-S", ".foo", "f.foo"]).unwrap(),
            ["lzflow", "d", "--suffix=.foo", "--rm", "--", "f.foo"]
        );
        // -M limits both ways; the named ones one way each.
        assert_eq!(
            t(&["xz", "-9", "-M", "1GiB", "--memlimit-decompress=1MiB", "f"]).unwrap(),
            [
                "lzflow",
                "c",
                "--rm",
                "--preset=9",
                "--memlimit=1GiB",
                "--",
                "f"
            ]
        );
        assert_eq!(
            t(&["xz", "-d", "-M", "1GiB", "--memlimit-compress=1MiB", "f.xz"]).unwrap(),
            ["lzflow", "d", "--rm", "--memlimit=1GiB", "--", "f.xz"]
        );
        assert!(t(&["xz", "--x86=dist=3"]).unwrap_err().contains("start=N"));
        // lzip's own options under its name; -l takes no format.
        assert_eq!(
            t(&["lzip", "-9", "-s", "16", "-b", "1MiB", "-n2", "-o", "f.lz", "f"]).unwrap(),
            [
                "lzflow",
                "c",
                "-F",
                "lzip",
                "--preset=9",
                "-T",
                "2",
                "--block-size=1MiB",
                "--dict-size=65536",
                "-o",
                "f.lz",
                "--",
                "f"
            ]
        );
        assert_eq!(
            t(&["lzip", "-l", "f.lz"]).unwrap(),
            ["lzflow", "l", "--", "f.lz"]
        );
        assert_eq!(
            t(&["lzip", "-o", "-", "f"]).unwrap(),
            ["lzflow", "c", "-c", "-F", "lzip", "--", "f"]
        );
        assert!(t(&["xz", "-s", "16"]).unwrap_err().contains("-s"));
        assert!(t(&["xz", "--block-size"]).is_err());
    }

    #[test]
    fn file_lists_add_their_names() {
        let list = std::env::temp_dir().join(format!("lzflow-files-{}", std::process::id()));
        std::fs::write(&list, "x\n-\n\ny z\n").unwrap();
        let arg = format!("--files={}", list.display());
        assert_eq!(
            t(&["xz", "-k", &arg, "w"]).unwrap(),
            ["lzflow", "c", "--", "w", "x", "./-", "y z"]
        );
        std::fs::write(&list, "").unwrap();
        assert!(t(&["xz", &arg]).unwrap_err().contains("no file names"));
        let arg0 = format!("--files0={}", list.display());
        std::fs::write(&list, b"a\nb\0c").unwrap();
        assert_eq!(
            t(&["xz", "-dk", &arg0]).unwrap(),
            ["lzflow", "d", "--", "a\nb", "c"]
        );
        std::fs::remove_file(&list).unwrap();
        assert!(t(&["xz", &arg]).unwrap_err().contains("lzflow-files"));
    }

    #[test]
    fn program_names_bring_their_defaults() {
        assert_eq!(
            t(&["/usr/bin/xzcat", "f.xz"]).unwrap(),
            ["lzflow", "d", "-c", "--", "f.xz"]
        );
        assert_eq!(
            t(&["unxz", "f.xz"]).unwrap(),
            ["lzflow", "d", "--rm", "--", "f.xz"]
        );
        assert_eq!(
            t(&["lzma", "-k", "f"]).unwrap(),
            ["lzflow", "c", "-F", "lzma", "--", "f"]
        );
        // Under its own name, even a subcommand's letter is a file.
        assert_eq!(
            t(&["unxz", "d"]).unwrap(),
            ["lzflow", "d", "--rm", "--", "d"]
        );
    }
}
