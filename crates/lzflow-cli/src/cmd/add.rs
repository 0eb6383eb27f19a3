//! `lzflow a`: create a 7z or zip archive from files and directories (the
//! zip side is in `zip.rs`).
//!
//! The archive is written front to back and its start header (7z) or its
//! local headers (zip) patched as it goes; on any error the half-written
//! archive is removed.

use std::fs::{self, File};
use std::io::{self, BufWriter};
use std::path::{Component, Path};

use lzflow::sevenz_writer::{Method, Solid, Writer, WriterOptions};
use lzflow::{FilterConfig, FilterKind};

use super::Status;
use crate::report;
use crate::size::{human, parse_size, ratio};

/// Options of `lzflow a`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The archive to create (it must not exist yet).
    #[arg(value_name = "ARCHIVE")]
    pub archive: String,
    /// Files and directories to add (directories with all they hold).
    #[arg(value_name = "FILE", required_unless_present = "stdin_name")]
    pub files: Vec<String>,
    /// Store standard input as one file entry named NAME (7-Zip's
    /// -siNAME); without NAME, the archive's name without its extension,
    /// as 7-Zip names it.
    #[arg(long, value_name = "NAME", num_args = 0..=1, default_missing_value = "", conflicts_with = "files")]
    pub stdin_name: Option<String>,
    /// Write the archive to standard output instead of ARCHIVE (7-Zip's
    /// -so; zip only: a streaming zip, each entry followed by a data
    /// descriptor where its sizes could not be written first).
    #[arg(long)]
    pub stdout: bool,
    /// The archive type: `7z` or `zip` (default: from the archive's
    /// extension, `.zip` for zip, else 7z).
    #[arg(short = 't', long = "type", value_name = "7z|zip")]
    pub kind: Option<String>,
    /// 7-Zip style method switches: `-mx5` / `-mx=5` (level 0-9, as
    /// 7-Zip's: 0 stores, 5 is LZMA2 with a 32 MiB dictionary; in zip,
    /// Deflate's level), `-m0=LZMA2|LZMA|Deflate|BZip2|PPMd|Copy` (7z's
    /// method; PPMd also as `PPMd:o=ORDER:mem=SIZE`),
    /// `-mm=Deflate|BZip2|LZMA|XZ|PPMd|Copy` (zip's method), `-mf=FILTER`
    /// (BCJ2, BCJ, ARM, ARMT, ARM64, PPC, SPARC, IA64, RISCV, Delta; off:
    /// no automatic filter for executables), `-mhe=on` (encrypt headers), `-mhc=off` (plain header), `-mmt=N`
    /// (N threads: within the LZMA2 stream of one solid block, or N solid
    /// blocks at once when --solid is not `on`; `on` = one per CPU;
    /// default 1).
    #[arg(short = 'm', value_name = "SWITCH")]
    pub method: Vec<String>,
    /// Compression level 0-9 (same as -mxN; 0 stores).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(0..=9))]
    pub level: Option<u32>,
    /// Encrypt the data with AES-256 using this password.
    #[arg(short = 'p', long, value_name = "PASSWORD")]
    pub password: Option<String>,
    /// Also encrypt the header (hides names; needs -p).
    #[arg(long)]
    pub encrypt_headers: bool,
    /// Solid blocks: `on` (one block), `off` (one per file), `N` (N files
    /// per block) or a size such as `64MiB` (bytes per block).
    #[arg(long, value_name = "on|off|N|SIZE", default_value = "on", value_parser = parse_solid)]
    pub solid: Solid,
    /// Print nothing on success.
    #[arg(short, long)]
    pub quiet: bool,
}

fn parse_solid(text: &str) -> Result<Solid, String> {
    match text {
        "on" => Ok(Solid::All),
        "off" => Ok(Solid::None),
        _ => {
            if let Ok(n) = text.parse::<u64>() {
                if n == 0 {
                    return Err("the number of files per block must be at least 1".into());
                }
                return Ok(Solid::Files(n));
            }
            let files = text.strip_suffix('f').and_then(|n| n.parse::<u64>().ok());
            if let Some(n) = files.filter(|n| *n > 0) {
                return Ok(Solid::Files(n));
            }
            parse_size(text)
                .map(Solid::Bytes)
                .map_err(|e| format!("expected on, off, a file count or a size: {e}"))
        }
    }
}

/// The thread count of `-mmt=VALUE`: `on` is one per CPU (0), `off` 1.
pub(super) fn threads(switch: &str, value: &str) -> Result<usize, String> {
    match value {
        "off" => Ok(1),
        "on" | "" => Ok(0),
        n => n
            .parse::<usize>()
            .map_err(|_| format!("-m{switch}: expected on, off or a thread count")),
    }
}

/// Level 0 stores, as in 7-Zip; 1-9 compress with the writer's levels
/// (and `method`, LZMA2 unless `-m0=` chose another). From level 8, x86
/// executables get BCJ2 rather than BCJ, as 7-Zip's automatic filters do.
fn with_level(opts: WriterOptions, level: u32, method: Option<Method>) -> WriterOptions {
    match level {
        0 => opts.with_method(Method::Copy),
        _ => opts
            .with_method(method.unwrap_or(Method::Lzma2))
            .with_level(level)
            .with_auto_bcj2(level >= 8),
    }
}

/// The 7z method `-m0=NAME` names. PPMd takes 7-Zip's parameters after
/// its name, `PPMd:o=ORDER:mem=SIZE` (SIZE in bytes with an optional
/// suffix, or a power of two: `mem=24` is 16 MiB); what they leave out
/// comes from the level, as 7-Zip's does ([`ppmd_for_level`]).
fn method_named(switch: &str, spec: &str) -> Result<Method, String> {
    let mut parts = spec.split(':');
    let name = parts.next().unwrap_or_default().to_ascii_lowercase();
    let method = match name.as_str() {
        "lzma2" => Method::Lzma2,
        "lzma" => Method::Lzma,
        "deflate" => Method::Deflate,
        "bzip2" => Method::BZip2,
        "copy" => Method::Copy,
        "ppmd" => Method::Ppmd {
            order: 0,
            mem_size: 0,
        },
        _ => {
            return Err(format!(
                "-m{switch}: unknown 7z method (known: LZMA2, LZMA, Deflate, BZip2, PPMd, Copy)"
            ))
        }
    };
    let Method::Ppmd {
        mut order,
        mut mem_size,
    } = method
    else {
        return match parts.next() {
            Some(p) => Err(format!("-m{switch}: {name} takes no parameter `{p}`")),
            None => Ok(method),
        };
    };
    for p in parts {
        let bad = || format!("-m{switch}: PPMd parameter `{p}` (expected o=2..64 or mem=SIZE)");
        match p.split_once('=') {
            Some(("o", v)) => {
                order = v
                    .parse()
                    .ok()
                    .filter(|o| (2..=64).contains(o))
                    .ok_or_else(bad)?
            }
            Some(("mem", v)) => {
                let bytes = match v.parse::<u32>() {
                    Ok(power) if power < 32 => 1u64 << power,
                    _ => crate::size::parse_bytes(v).map_err(|_| bad())?,
                };
                mem_size = u32::try_from(bytes)
                    .ok()
                    .filter(|m| *m >= 1 << 11 && *m <= u32::MAX - 36)
                    .ok_or_else(bad)?;
            }
            _ => return Err(bad()),
        }
    }
    Ok(Method::Ppmd { order, mem_size })
}

/// PPMd's order and memory: those `-m0=PPMd:…` gave (0 when not), the
/// rest as 7-Zip chooses them for `level`.
fn ppmd_for_level(method: Method, level: u32) -> Method {
    match (method, Method::ppmd(level)) {
        (
            Method::Ppmd { order, mem_size },
            Method::Ppmd {
                order: o,
                mem_size: m,
            },
        ) => Method::Ppmd {
            order: if order == 0 { o } else { order },
            mem_size: if mem_size == 0 { m } else { mem_size },
        },
        _ => method,
    }
}

/// `-mf=NAME`: the filter in front of every entry's compression, as
/// 7-Zip names them; `off` turns automatic filters off, `on` back on.
fn with_filter_named(
    opts: WriterOptions,
    switch: &str,
    name: &str,
) -> Result<WriterOptions, String> {
    let kind = match name.to_ascii_lowercase().as_str() {
        "bcj2" => return Ok(opts.with_bcj2(true)),
        "off" | "-" => return Ok(opts.with_auto_bcj(false)),
        "on" | "+" => return Ok(opts.with_auto_bcj(true)),
        "bcj" | "x86" => FilterKind::X86,
        "arm" => FilterKind::Arm,
        "armt" => FilterKind::ArmThumb,
        "arm64" => FilterKind::Arm64,
        "ppc" => FilterKind::PowerPc,
        "sparc" => FilterKind::Sparc,
        "ia64" => FilterKind::Ia64,
        "riscv" => FilterKind::RiscV,
        "delta" => FilterKind::Delta,
        _ => {
            return Err(format!(
                "-m{switch}: unknown filter (known: BCJ2, BCJ, ARM, ARMT, ARM64, PPC, SPARC, IA64, RISCV, Delta, off)"
            ))
        }
    };
    Ok(opts.with_filter(FilterConfig::new(kind)))
}

/// The options the switches ask for.
fn options(args: &Args) -> Result<WriterOptions, String> {
    let mut opts = WriterOptions::default().with_auto_bcj(true);
    // The method first, so that a level in any order applies to it.
    let mut method = None;
    for switch in &args.method {
        if let Some(("0" | "m", name)) = switch.split_once('=') {
            method = Some(method_named(switch, name)?);
        }
    }
    if let Some(m) = method {
        opts = opts.with_method(m);
    }
    if let Some(level) = args.level {
        opts = with_level(opts, level, method);
    }
    let mut solid = args.solid;
    for switch in &args.method {
        let (key, value) = match switch.split_once('=') {
            Some((k, v)) => (k, v),
            None if switch.starts_with('x') => ("x", &switch[1..]),
            None => (switch.as_str(), "on"),
        };
        let on = |v: &str| match v {
            "on" | "+" | "" => Ok(true),
            "off" | "-" => Ok(false),
            _ => Err(format!("-m{switch}: expected on or off")),
        };
        match key {
            "x" => {
                let level = value
                    .parse::<u32>()
                    .ok()
                    .filter(|l| *l <= 9)
                    .ok_or_else(|| format!("-m{switch}: the level must be 0-9"))?;
                opts = with_level(opts, level, method);
            }
            "f" => opts = with_filter_named(opts, switch, value)?,
            "he" => opts = opts.with_encrypt_header(on(value)?),
            "mt" => opts = opts.with_threads(threads(switch, value)?),
            "hc" => opts = opts.with_compress_header(on(value)?),
            // 7-Zip's -ms=on|off|{N}f|{SIZE}: as --solid.
            "s" => solid = parse_solid(value).map_err(|e| format!("-m{switch}: {e}"))?,
            // The method, read above.
            "0" | "m" => {}
            _ => {
                return Err(format!(
                    "-m{switch}: unknown switch (known: x, 0, f, he, hc, mt, s)"
                ))
            }
        }
    }
    let level = opts.level;
    opts.method = ppmd_for_level(opts.method, level);
    if args.encrypt_headers {
        opts = opts.with_encrypt_header(true);
    }
    if let Some(p) = &args.password {
        opts = opts.with_password(p.clone());
    }
    Ok(opts.with_solid(solid))
}

/// The name a path gets in the archive: as given, relative, with `/`
/// separators; an absolute path or one with `..` keeps only its last part.
pub(crate) fn archive_name(path: &Path) -> Option<String> {
    let escapes = path
        .components()
        .any(|c| !matches!(c, Component::Normal(_) | Component::CurDir));
    let parts: Vec<String> = if escapes {
        path.file_name()
            .map(|n| vec![n.to_string_lossy().into_owned()])
            .unwrap_or_default()
    } else {
        path.components()
            .filter_map(|c| match c {
                Component::Normal(p) => Some(p.to_string_lossy().into_owned()),
                _ => None,
            })
            .collect()
    };
    (!parts.is_empty()).then(|| parts.join("/"))
}

/// The name of the entry `-si` reads: the one given, else the archive's
/// name without its extension (as 7-Zip), else `stdin`.
pub(crate) fn stdin_entry_name(args: &Args) -> Option<String> {
    let given = args.stdin_name.as_deref()?;
    if !given.is_empty() {
        return Some(given.to_string());
    }
    let stem = Path::new(&args.archive)
        .file_stem()
        .and_then(|s| s.to_str())
        .filter(|s| !s.is_empty() && args.archive != "-");
    Some(stem.unwrap_or("stdin").to_string())
}

/// The metadata of the entry read from standard input: made now.
fn stdin_meta() -> lzflow::sevenz_writer::EntryMeta {
    lzflow::sevenz_writer::EntryMeta::default().with_mtime(std::time::SystemTime::now())
}

/// Runs `lzflow a`.
pub fn run(args: &Args) -> Status {
    let mut status = Status::archive();
    let zip = match super::zip::is_zip_kind(args) {
        Ok(zip) => zip,
        Err(e) => {
            report::error(&e);
            status.usage();
            return status;
        }
    };
    if args.stdout && !zip {
        report::error(
            "a 7z archive cannot be written to standard output (its header is patched in place); use -tzip",
        );
        status.usage();
        return status;
    }
    // Switches are checked before the archive is created.
    let opts = if zip {
        super::zip::add_options(args).map(Kind::Zip)
    } else {
        options(args).map(Kind::SevenZ)
    };
    let opts = match opts {
        Ok(o) => o,
        Err(e) => {
            report::error(&e);
            status.usage();
            return status;
        }
    };
    if args.stdout {
        if let Kind::Zip(opts) = opts {
            if let Err((name, e)) = super::zip::write_stdout(args, opts) {
                report::file_error(&name, &e);
                status.fail_with(&e);
            }
        }
        return status;
    }
    let path = Path::new(&args.archive);
    let open = || File::options().write(true).create_new(true).open(path);
    // Listed until written or removed: a signal removes it too.
    let (file, _listed) = match crate::interrupt::create_listed(path, open) {
        Ok(made) => made,
        Err(e) => {
            let e = if e.kind() == io::ErrorKind::AlreadyExists {
                io::Error::new(
                    e.kind(),
                    "the archive exists; lzflow a only creates archives (remove it first)",
                )
            } else {
                e
            };
            report::file_error(&args.archive, &e);
            status.fail_with(&e);
            return status;
        }
    };
    let written = match opts {
        Kind::SevenZ(opts) => write(file, args, opts),
        Kind::Zip(opts) => super::zip::write_archive(file, args, opts),
    };
    match written {
        Ok((entries, size)) => {
            if !args.quiet {
                let packed = fs::metadata(path).map(|m| m.len()).unwrap_or(0);
                eprintln!(
                    "lzflow: {}: {entries} entries, {} -> {} ({})",
                    args.archive,
                    human(size),
                    human(packed),
                    ratio(packed, size)
                );
            }
        }
        Err((name, e)) => {
            report::file_error(&name, &e);
            // Never leave a half-written archive behind.
            let _ = fs::remove_file(path);
            status.fail_with(&e);
        }
    }
    status
}

/// The archive being made and its options.
enum Kind {
    SevenZ(WriterOptions),
    Zip(super::zip::AddOptions),
}

/// Writes every input; on error, the name to blame and the error.
fn write(
    file: File,
    args: &Args,
    opts: WriterOptions,
) -> Result<(usize, u64), (String, io::Error)> {
    let archive = || args.archive.clone();
    // Known sizes let the dictionary fit the data, as 7-Zip's does; the
    // same total goes into the summary line.
    let size: u64 = args.files.iter().map(|f| disk_size(Path::new(f))).sum();
    // Standard input's size is unknown: the preset's dictionary stays.
    let stdin_name = stdin_entry_name(args);
    let opts = match stdin_name {
        Some(_) => opts,
        None => opts.with_expected_size(size),
    };
    let meta = file.metadata().map_err(|e| (archive(), e))?;
    let mut w =
        Writer::with_options(BufWriter::new(file), opts).map_err(|e| (archive(), e.into()))?;
    // The archive is not added to itself, as 7-Zip leaves it out.
    w.skip_in_add_path(&meta);
    for input in &args.files {
        let p = Path::new(input);
        let name = archive_name(p).ok_or_else(|| {
            (
                input.clone(),
                io::Error::new(io::ErrorKind::InvalidInput, "no name to store it under"),
            )
        })?;
        w.add_path(p, &name)
            .map_err(|e| (input.clone(), e.into()))?;
    }
    let mut size = size;
    if let Some(name) = &stdin_name {
        let mut stdin = Counting::new(io::stdin().lock());
        w.add_file(name, &mut stdin, stdin_meta())
            .map_err(|e| ("(stdin)".to_string(), e.into()))?;
        size += stdin.count;
    }
    let entries = w.len();
    let file = w.finish().map_err(|e| (archive(), e.into()))?;
    sync_archive(file).map_err(|e| (archive(), e))?;
    Ok((entries, size))
}

/// A reader that counts what it gives (standard input's size, for the
/// summary).
pub(super) struct Counting<R> {
    inner: R,
    /// Bytes read so far.
    pub count: u64,
}

impl<R> Counting<R> {
    pub(super) fn new(inner: R) -> Self {
        Counting { inner, count: 0 }
    }
}

impl<R: io::Read> io::Read for Counting<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.count += n as u64;
        Ok(n)
    }
}

/// The written archive's buffer flushed and the file synced to disk, so
/// that a success means the archive is there.
pub(super) fn sync_archive(file: BufWriter<File>) -> io::Result<()> {
    file.into_inner().map_err(|e| e.into_error())?.sync_all()
}

/// Bytes of the regular files at and below `path` (for the summary).
pub(crate) fn disk_size(path: &Path) -> u64 {
    match fs::symlink_metadata(path) {
        Ok(m) if m.is_dir() => fs::read_dir(path)
            .map(|rd| rd.flatten().map(|e| disk_size(&e.path())).sum())
            .unwrap_or(0),
        Ok(m) if m.is_file() => m.len(),
        _ => 0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn solid_values() {
        assert_eq!(parse_solid("on"), Ok(Solid::All));
        assert_eq!(parse_solid("off"), Ok(Solid::None));
        assert_eq!(parse_solid("10"), Ok(Solid::Files(10)));
        assert_eq!(parse_solid("3f"), Ok(Solid::Files(3)));
        assert_eq!(parse_solid("64MiB"), Ok(Solid::Bytes(64 << 20)));
        assert!(parse_solid("0").is_err());
        assert!(parse_solid("lots").is_err());
    }

    #[test]
    fn mx0_stores_and_other_levels_compress() {
        let dir = Path::new("out.7z");
        let o = options(&args(dir, &[dir], &["-mx0"])).unwrap();
        assert_eq!(o.method, Method::Copy);
        let o = options(&args(dir, &[dir], &["-mx=7"])).unwrap();
        assert_eq!((o.method, o.level), (Method::Lzma2, 7));
        let o = options(&args(dir, &[dir], &["--level", "0"])).unwrap();
        assert_eq!(o.method, Method::Copy);
        let o = options(&args(dir, &[dir], &["-mmt=3"])).unwrap();
        assert_eq!(o.threads, 3);
        assert_eq!(options(&args(dir, &[dir], &[])).unwrap().threads, 1);
        assert!(options(&args(dir, &[dir], &["-mmt=lots"])).is_err());
        // -m0= names the method, whatever the order of the level.
        let o = options(&args(dir, &[dir], &["-m0=Deflate", "-mx9"])).unwrap();
        assert_eq!((o.method, o.level), (Method::Deflate, 9));
        let o = options(&args(dir, &[dir], &["-mx3", "-m0=bzip2"])).unwrap();
        assert_eq!((o.method, o.level), (Method::BZip2, 3));
        let o = options(&args(dir, &[dir], &["-m0=LZMA"])).unwrap();
        assert_eq!(o.method, Method::Lzma);
        // PPMd: 7-Zip's order and memory for the level, or as given.
        let o = options(&args(dir, &[dir], &["-m0=PPMd"])).unwrap();
        assert_eq!(
            o.method,
            Method::Ppmd {
                order: 6,
                mem_size: 16 << 20
            }
        );
        let o = options(&args(dir, &[dir], &["-mx9", "-m0=ppmd:o=4"])).unwrap();
        assert_eq!(
            o.method,
            Method::Ppmd {
                order: 4,
                mem_size: 192 << 20
            }
        );
        let o = options(&args(dir, &[dir], &["-m0=PPMd:mem=24:o=32", "-mx1"])).unwrap();
        assert_eq!(
            o.method,
            Method::Ppmd {
                order: 32,
                mem_size: 1 << 24
            }
        );
        let o = options(&args(dir, &[dir], &["-m0=PPMd:mem=1m"])).unwrap();
        assert_eq!(
            o.method,
            Method::Ppmd {
                order: 6,
                mem_size: 1 << 20
            }
        );
        for bad in [
            "-m0=PPMd:o=1",
            "-m0=PPMd:o=65",
            "-m0=PPMd:mem=1k",
            "-m0=PPMd:x=1",
            "-m0=LZMA:o=4",
        ] {
            assert!(options(&args(dir, &[dir], &[bad])).is_err(), "{bad}");
        }
    }

    #[test]
    fn filter_switches_as_7zip_names_them() {
        let dir = Path::new("out.7z");
        let o = options(&args(dir, &[dir], &["-mf=BCJ2"])).unwrap();
        assert!(o.bcj2 && o.filter.is_none());
        let o = options(&args(dir, &[dir], &["-mf=ARM64"])).unwrap();
        assert_eq!(o.filter.map(|f| f.kind), Some(FilterKind::Arm64));
        let o = options(&args(dir, &[dir], &["-mf=off"])).unwrap();
        assert!(!o.auto_bcj && !o.bcj2 && o.filter.is_none());
        assert!(options(&args(dir, &[dir], &["-mf=zap"])).is_err());
        // 7-Zip's automatic filters: BCJ2 for x86 executables from -mx8.
        assert!(options(&args(dir, &[dir], &[])).unwrap().auto_bcj);
        assert!(!options(&args(dir, &[dir], &["-mx7"])).unwrap().auto_bcj2);
        assert!(options(&args(dir, &[dir], &["-mx8"])).unwrap().auto_bcj2);
        assert!(options(&args(dir, &[dir], &["-mx9"])).unwrap().auto_bcj2);
    }

    #[test]
    fn names_stay_inside_the_archive() {
        assert_eq!(
            archive_name(Path::new("a/b.txt")).as_deref(),
            Some("a/b.txt")
        );
        assert_eq!(archive_name(Path::new("./a/./b")).as_deref(), Some("a/b"));
        assert_eq!(
            archive_name(Path::new("/etc/hosts")).as_deref(),
            Some("hosts")
        );
        assert_eq!(archive_name(Path::new("../x/y")).as_deref(), Some("y"));
        assert_eq!(archive_name(Path::new(".")), None);
    }

    fn args(archive: &Path, files: &[&Path], extra: &[&str]) -> Args {
        use clap::Parser;
        #[derive(Parser)]
        struct Cli {
            #[command(flatten)]
            a: Args,
        }
        let mut argv = vec!["a".to_string()];
        argv.extend(extra.iter().map(|s| s.to_string()));
        argv.push(archive.display().to_string());
        argv.extend(files.iter().map(|f| f.display().to_string()));
        Cli::try_parse_from(argv).unwrap().a
    }

    #[test]
    fn creates_an_encrypted_archive_and_refuses_to_overwrite() {
        use lzflow::sevenz::{Archive, ArchiveOptions};
        let dir = std::env::temp_dir().join(format!("lzflow-cli-add-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(dir.join("in/sub")).unwrap();
        fs::write(dir.join("in/a.txt"), b"alpha alpha alpha").unwrap();
        fs::write(dir.join("in/sub/b.bin"), vec![9u8; 70_000]).unwrap();
        let archive = dir.join("out.7z");
        let a = args(
            &archive,
            &[&dir.join("in")],
            &["-mx1", "-psecret", "-mhe=on", "--solid", "off", "-q"],
        );
        assert_eq!(run(&a).code(), 0);
        let opened = Archive::open(File::open(&archive).unwrap());
        assert!(opened.is_err(), "the header must be encrypted");
        let mut ar = Archive::open_with(
            File::open(&archive).unwrap(),
            ArchiveOptions::default().with_password("secret"),
        )
        .unwrap();
        let names: Vec<String> = ar.entries().iter().map(|e| e.name.clone()).collect();
        assert_eq!(names, ["in", "in/a.txt", "in/sub", "in/sub/b.bin"]);
        assert_eq!(ar.index().folder_count(), 2);
        let mut data = Vec::new();
        io::Read::read_to_end(&mut ar.reader(3).unwrap(), &mut data).unwrap();
        assert_eq!(data, vec![9u8; 70_000]);
        // An existing archive is left alone (7-Zip's fatal error, 2).
        let before = fs::read(&archive).unwrap();
        assert_eq!(run(&a).code(), 2);
        assert_eq!(fs::read(&archive).unwrap(), before);
        // A missing input removes the half-written archive.
        let missing = dir.join("missing.7z");
        let b = args(&missing, &[&dir.join("nope")], &["-q"]);
        assert_eq!(run(&b).code(), 2);
        assert!(!missing.exists());
        let _ = fs::remove_dir_all(&dir);
    }
}
