//! `compare zip-write`: creating zip archives (Deflate, level 6) from a
//! directory on disk with lzflow's `ZipWriter` (on one and two threads,
//! and its tokio writer), the `zip` crate (on the same flate2/zlib-rs
//! backend), Info-ZIP's `zip -6` and `7zz a -tzip`.
//!
//! The inputs are `compare 7z-write`'s: 16 random files of 4 KiB; 100
//! files of 128 B and one of 256 KiB, encrypted (WinZip AES-256; Info-ZIP
//! has no AES and writes ZipCrypto); 10,000 empty files with long Unicode
//! names; the 40 MiB text tree. Every contestant reads the same input
//! files from a temporary directory and writes its archive to a file
//! there, in a fresh child process; each archive is then checked with
//! `unzip -tq` (`7zz t` with the password when encrypted). Ratios are
//! against `zip -6`. The `lzflow warm` row is lzflow's second archive in
//! one child process (the first is written unmeasured). The `lzflow
//! writer` row is the same with the input directory listed (names, kinds,
//! modification times, modes) before the measurement starts: what the
//! `ZipWriter` itself costs, without the bench's walk. Under each table a
//! line says whether lzflow's archives on one and two threads (and the
//! tokio writer's) are the same bytes, and a line gives the size of
//! lzflow's central directory and the writer row's allocations against
//! it (the issue's target: at most 2).

use std::fs::File;
use std::io::{self, Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};

use lzflow::zip::{EntryOptions, WriteMethod, ZipWriterOptions};

use crate::child::{self, interleave, summarise, ChildSample, Entrant};
use crate::sevenz::{arg, PASSWORD};
use crate::sevenz_write::{
    print_header, print_rows, remove_old, scenario_input, scenarios, walk, Scenario, INPUTS,
};

/// Jobs the child processes can run.
pub const JOBS: &[(&str, child::Job)] = &[
    ("zipw-lzflow", lzflow_write),
    ("zipw-lzflow-writer", lzflow_writer_only),
    ("zipw-lzflow-tokio", lzflow_tokio_write),
    ("zipw-zip-crate", zip_crate_write),
];

/// Deflate level of every contestant but 7-Zip (whose `-mx5` is its own
/// Deflate encoder's default).
const LEVEL: u32 = 6;

/// The arguments every job takes: `<input dir> <archive> <threads>
/// [password]`.
struct JobArgs<'a> {
    input: &'a Path,
    out: &'a str,
    threads: usize,
    password: Option<&'a str>,
}

fn job_args(args: &[String]) -> io::Result<JobArgs<'_>> {
    Ok(JobArgs {
        input: Path::new(arg(args, 0, "input dir")?),
        out: arg(args, 1, "archive")?,
        threads: arg(args, 2, "threads")?
            .parse()
            .map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, "threads: a number"))?,
        password: args.get(3).map(String::as_str),
    })
}

/// lzflow's entry options: Deflate level 6; with a password, WinZip
/// AES-256 (AE-2).
fn lzflow_entry_options(password: Option<&str>) -> EntryOptions {
    let o = EntryOptions::default().with_method(WriteMethod::Deflate, LEVEL);
    match password {
        Some(p) => o.with_password(p),
        None => o,
    }
}

/// `base` with the modification time and Unix mode of `path`, as
/// `ZipWriter::add_path` takes them, so every lzflow row writes the
/// same bytes.
fn with_metadata(base: &EntryOptions, path: &Path) -> io::Result<EntryOptions> {
    let md = std::fs::symlink_metadata(path)?;
    let mut o = base.clone();
    if let Ok(t) = md.modified() {
        o.mtime = Some(t);
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        o.unix_mode = Some(md.permissions().mode() & 0o7777);
    }
    Ok(o)
}

fn zip_err(e: lzflow::zip::ZipError) -> io::Error {
    io::Error::other(e)
}

/// `<input dir> <archive> <threads> [password]`: the contents of the input
/// directory (recursively, directories as entries) through
/// `ZipWriter::add_path` with an empty name, into a seekable file.
fn lzflow_write(args: &[String]) -> io::Result<u64> {
    let a = job_args(args)?;
    let opts = lzflow_entry_options(a.password);
    let mut w = lzflow::zip::ZipWriter::new_with(
        File::create(a.out)?,
        ZipWriterOptions::new().with_threads(a.threads),
    )
    .map_err(zip_err)?;
    w.add_path("", a.input, &opts).map_err(zip_err)?;
    let f = w.finish().map_err(zip_err)?;
    Ok(f.metadata()?.len())
}

/// The same archive as `lzflow_write`, with the input listed (paths,
/// names, kinds, each entry's options with its time and mode) before the
/// measurement starts: only the writer's calls are measured.
fn lzflow_writer_only(args: &[String]) -> io::Result<u64> {
    let a = job_args(args)?;
    let base = lzflow_entry_options(a.password);
    let mut items = Vec::new();
    walk(a.input, "", &mut items)?;
    let items: Vec<(PathBuf, String, bool, EntryOptions)> = items
        .into_iter()
        .map(|(p, name, dir)| {
            let o = with_metadata(&base, &p)?;
            Ok((p, name, dir, o))
        })
        .collect::<io::Result<_>>()?;
    child::measure_from_here();
    let mut w = lzflow::zip::ZipWriter::new_with(
        File::create(a.out)?,
        ZipWriterOptions::new().with_threads(a.threads),
    )
    .map_err(zip_err)?;
    for (p, name, dir, o) in &items {
        if *dir {
            w.add_directory(name, o).map_err(zip_err)?;
        } else {
            w.add_file(name, File::open(p)?, o).map_err(zip_err)?;
        }
    }
    let f = w.finish().map_err(zip_err)?;
    Ok(f.metadata()?.len())
}

/// `<input dir> <archive> <threads> [password]`: the same archive through
/// lzflow's tokio writer on a current-thread runtime, a `tokio::fs::File`
/// sink (seekable) and `AsyncZipWriter::add_path` (each file opened and
/// first read in one trip to the blocking pool). The writer is made with
/// `from_sink` over `TokioWriter::seekable`, the constructor that takes
/// `ZipWriterOptions`.
fn lzflow_tokio_write(args: &[String]) -> io::Result<u64> {
    let a = job_args(args)?;
    let opts = lzflow_entry_options(a.password);
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    rt.block_on(async {
        let sink =
            lzflow::tokio::source::TokioWriter::seekable(tokio::fs::File::create(a.out).await?);
        let mut w = lzflow::zip::AsyncZipWriter::from_sink(
            sink,
            ZipWriterOptions::new().with_threads(a.threads),
        )
        .map_err(zip_err)?;
        w.add_path("", a.input, &opts).await.map_err(zip_err)?;
        w.finish().await.map_err(zip_err)?;
        let f = w.into_inner();
        Ok(f.metadata().await?.len())
    })
}

/// `<input dir> <archive> 1 [password]`: the same with the `zip` crate
/// (`ZipWriter` over the file, Deflated level 6 on flate2/zlib-rs; AES-256
/// with a password), the input walked in name order.
fn zip_crate_write(args: &[String]) -> io::Result<u64> {
    use zip::write::SimpleFileOptions;
    let a = job_args(args)?;
    let mut opts = SimpleFileOptions::default()
        .compression_method(zip::CompressionMethod::Deflated)
        .compression_level(Some(i64::from(LEVEL)));
    if let Some(p) = a.password {
        opts = opts.with_aes_encryption(zip::AesMode::Aes256, p);
    }
    let mut w = zip::ZipWriter::new(File::create(a.out)?);
    let mut items = Vec::new();
    walk(a.input, "", &mut items)?;
    for (p, name, dir) in items {
        if dir {
            w.add_directory(name, opts).map_err(io::Error::other)?;
        } else {
            w.start_file(name, opts).map_err(io::Error::other)?;
            io::copy(&mut File::open(&p)?, &mut w)?;
        }
    }
    let f = w.finish().map_err(io::Error::other)?;
    Ok(f.metadata()?.len())
}

/// The size of a zip archive's central directory, from its end records.
fn central_directory_size(path: &Path) -> io::Result<u64> {
    let mut f = File::open(path)?;
    let len = f.metadata()?.len();
    let mut loc = lzflow::zip::DirectoryLocator::new(len);
    let mut buf = Vec::new();
    while let Some((at, n)) = loc.request() {
        buf.resize(n, 0);
        f.seek(SeekFrom::Start(at))?;
        f.read_exact(&mut buf)?;
        loc.feed(&buf).map_err(zip_err)?;
    }
    Ok(loc.finish().map_err(zip_err)?.size)
}

/// `unzip -tq`, or `7zz t` with the password for an encrypted archive
/// (Info-ZIP's unzip knows no AES).
fn test_archive(path: &Path, password: bool) -> Result<(), String> {
    let mut c = if password {
        let mut c = std::process::Command::new("7zz");
        c.arg("t").arg("-bsp0").arg(format!("-p{PASSWORD}"));
        c
    } else {
        let mut c = std::process::Command::new("unzip");
        c.arg("-tq");
        c
    };
    let st = c
        .arg(path)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .status()
        .map_err(|e| e.to_string())?;
    if st.success() {
        Ok(())
    } else {
        Err(format!("the archive fails its test: {st}"))
    }
}

/// Contestants, in row order: (row name, archive file stem).
const ROWS: &[(&str, &str)] = &[
    ("zip -6", "infozip"),
    ("7zz a -tzip", "7zz"),
    ("zip crate", "zip-crate"),
    ("lzflow", "lzflow"),
    ("lzflow warm", "lzflow-warm"),
    ("lzflow writer", "lzflow-writer"),
    ("lzflow 2 thr", "lzflow-2thr"),
    ("lzflow tokio 2 thr", "lzflow-tokio-2thr"),
];
/// Row indices the lines under a table use.
const LZFLOW: usize = 3;
const WRITER: usize = 5;
const TWO_THREADS: usize = 6;
const TOKIO: usize = 7;

/// Prints the zip-writing table.
pub fn compare_zip_write(rounds: usize, only: Option<&str>) -> io::Result<()> {
    print_header();
    // The inputs of `compare 7z-write`; the text tree at Deflate level 6
    // instead of a solid block.
    for sc in scenarios(INPUTS, only) {
        let (root, input) = scenario_input("zipw", sc)?;
        let outs: Vec<PathBuf> = ROWS
            .iter()
            .map(|(_, stem)| root.join(format!("{stem}.zip")))
            .collect();
        let out = |i: usize| outs[i].to_string_lossy().into_owned();
        let dir = input.to_string_lossy().into_owned();
        let mut info_zip = vec!["-6", "-r", "-q"];
        let mut zz = vec!["a", "-tzip", "-mx5", "-mmt=1", "-bsp0"];
        let zz_pw = format!("-p{PASSWORD}");
        if sc.password {
            info_zip.extend(["-P", PASSWORD]);
            zz.extend([zz_pw.as_str(), "-mem=AES256"]);
        }
        let (out0, out1) = (out(0), out(1));
        info_zip.extend([out0.as_str(), "."]);
        zz.extend([out1.as_str(), "."]);
        let cmd = |prog: &str, args: &[&str]| {
            Entrant::Cmd(
                dir.clone(),
                prog.into(),
                args.iter().map(|s| s.to_string()).collect(),
            )
        };
        let job = |name: &'static str, i: usize, threads: &str| {
            let mut v = vec![dir.clone(), out(i), threads.to_string()];
            if sc.password {
                v.push(PASSWORD.to_string());
            }
            Entrant::Job(name, v)
        };
        let entrants = [
            cmd("zip", &info_zip),
            cmd("7zz", &zz),
            job("zipw-zip-crate", 2, "1"),
            job("zipw-lzflow", LZFLOW, "1"),
            // The second archive written by one process: what one more
            // archive costs once pools and heap are warm.
            job("zipw-lzflow:warm", 4, "1"),
            // The same, without the bench's listing of the input.
            job("zipw-lzflow-writer:warm", WRITER, "1"),
            job("zipw-lzflow", TWO_THREADS, "2"),
            job("zipw-lzflow-tokio", TOKIO, "2"),
        ];
        let results = interleave(
            &entrants,
            rounds,
            |i| remove_old(&outs[i]),
            |i, _| test_archive(&outs[i], sc.password),
        )?;
        let sizes: Vec<u64> = outs
            .iter()
            .map(|p| std::fs::metadata(p).map(|m| m.len()).unwrap_or(0))
            .collect();
        let mut names: Vec<&str> = ROWS.iter().map(|(n, _)| *n).collect();
        if sc.password {
            names[0] = "zip -6 (ZipCrypto)";
        }
        print_rows(sc.name, &names, &results, &sizes);
        print_identical(sc, &outs, &results);
        print_directory_line(sc.name, &outs[LZFLOW], &results[WRITER]);
        let _ = std::fs::remove_dir_all(&root);
    }
    Ok(())
}

/// Whether lzflow's archives on one thread, two threads and through the
/// tokio writer are the same bytes (not with AES, whose salts are random).
fn print_identical(sc: &Scenario, outs: &[PathBuf], results: &[Result<Vec<ChildSample>, String>]) {
    if sc.password {
        println!(
            "{:<21} lzflow 1 thr vs 2 thr: not compared (AES salts are random)",
            sc.name
        );
        return;
    }
    let same = |i: usize| -> &'static str {
        if results[LZFLOW].is_err() || results[i].is_err() {
            return "-";
        }
        match (std::fs::read(&outs[LZFLOW]), std::fs::read(&outs[i])) {
            (Ok(a), Ok(b)) if a == b => "identical",
            (Ok(_), Ok(_)) => "DIFFER",
            _ => "-",
        }
    };
    println!(
        "{:<21} lzflow 1 thr vs 2 thr: {}; vs tokio 2 thr: {}",
        sc.name,
        same(TWO_THREADS),
        same(TOKIO)
    );
}

/// The size of lzflow's central directory and the writer row's
/// allocations per byte of it (the issue's target: at most 2).
fn print_directory_line(scenario: &str, archive: &Path, writer: &Result<Vec<ChildSample>, String>) {
    match central_directory_size(archive) {
        Err(why) => println!("{scenario:<21} lzflow central directory: {why}"),
        Ok(cd) => {
            let ratio = match writer {
                Ok(v) if !v.is_empty() => {
                    format!("{:.2}x", summarise(v).alloc_bytes as f64 / cd as f64)
                }
                _ => "-".to_string(),
            };
            println!(
                "{scenario:<21} lzflow central directory: {cd} B; \
                 lzflow writer alloc B/op / central directory = {ratio}"
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sevenz::temp_dir;

    fn have(prog: &str, arg: &str) -> bool {
        std::process::Command::new(prog)
            .arg(arg)
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .status()
            .is_ok_and(|s| s.success())
    }

    /// Every in-process job writes an archive that lzflow reads back
    /// with the right names and lengths (and that `unzip -t` / `7zz t`
    /// accept, when they are installed).
    #[test]
    fn zip_write_jobs_write_readable_archives() {
        let root = temp_dir("zipw-test").unwrap();
        let input = root.join("in");
        std::fs::create_dir_all(input.join("sub")).unwrap();
        std::fs::write(input.join("a.txt"), b"alpha alpha alpha\n").unwrap();
        std::fs::write(input.join("sub/b.bin"), [7u8; 5000]).unwrap();
        File::create(input.join("ü-empty")).unwrap();
        let (unzip, sevenzz) = (have("unzip", "-v"), have("7zz", "i"));
        if !unzip {
            eprintln!("SKIPPED: unzip not found; archives not tested with unzip -t");
        }
        if !sevenzz {
            eprintln!("SKIPPED: 7zz not found; AES archives not tested with 7zz t");
        }
        let jobs: [(&str, child::Job, &str); 5] = [
            ("lzflow", lzflow_write, "1"),
            ("lzflow 2 thr", lzflow_write, "2"),
            ("lzflow writer", lzflow_writer_only, "1"),
            ("lzflow tokio", lzflow_tokio_write, "2"),
            ("zip crate", zip_crate_write, "1"),
        ];
        let mut plain = Vec::new();
        for pw in [None, Some(PASSWORD)] {
            for (label, job, threads) in jobs {
                let out = root.join("out.zip");
                let _ = std::fs::remove_file(&out);
                let mut args = vec![
                    input.to_string_lossy().into_owned(),
                    out.to_string_lossy().into_owned(),
                    threads.to_string(),
                ];
                args.extend(pw.map(String::from));
                let len = job(&args).unwrap_or_else(|e| panic!("{label}: {e}"));
                assert_eq!(len, std::fs::metadata(&out).unwrap().len(), "{label}");
                if (pw.is_none() && unzip) || (pw.is_some() && sevenzz) {
                    test_archive(&out, pw.is_some()).unwrap_or_else(|e| panic!("{label}: {e}"));
                }
                let cd = central_directory_size(&out).unwrap();
                assert!(cd >= 4 * 46, "{label}: central directory of {cd} B");
                let mut opts = lzflow::zip::ZipOptions::new();
                if let Some(p) = pw {
                    opts = opts.with_password(p);
                }
                let mut a =
                    lzflow::zip::ZipArchive::open_with(File::open(&out).unwrap(), opts).unwrap();
                let mut got = Vec::new();
                for i in 0..a.len() {
                    let e = a.directory().get(i).unwrap();
                    let (name, size) = (e.name().into_owned(), e.uncompressed_size());
                    let mut data = Vec::new();
                    a.reader(i).unwrap().read_to_end(&mut data).unwrap();
                    assert_eq!(data.len() as u64, size, "{label}: {name}");
                    got.push((name, data.len()));
                }
                got.sort();
                let want: Vec<(String, usize)> = [
                    ("a.txt", 18),
                    ("sub/", 0),
                    ("sub/b.bin", 5000),
                    ("ü-empty", 0),
                ]
                .iter()
                .map(|(n, l)| (n.to_string(), *l))
                .collect();
                assert_eq!(got, want, "{label}");
                if pw.is_none() && label.starts_with("lzflow") {
                    plain.push((label, std::fs::read(&out).unwrap()));
                }
            }
        }
        // One thread or two, the writer alone or the tokio writer: the
        // same bytes.
        for (label, bytes) in &plain[1..] {
            assert!(*bytes == plain[0].1, "{label} differs from lzflow");
        }
        let _ = std::fs::remove_dir_all(&root);
    }
}
