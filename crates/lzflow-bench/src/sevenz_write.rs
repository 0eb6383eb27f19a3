//! `compare 7z-write`: creating 7z archives from a directory on disk with
//! lzflow's `Writer`, sevenz-rust2's `ArchiveWriter` and `7zz a`.
//!
//! Every contestant reads the same input files from a temporary directory
//! and writes its archive to a file there, in a fresh child process; each
//! archive is then checked with `7zz t`. Ratios are against `7zz a`. The
//! `lzflow warm` row is lzflow's second archive in one child process (the
//! first is written unmeasured), so its allocations are what a long-lived
//! process pays per archive. The `lzflow writer` row is the same with the
//! input directory listed before the measurement starts: what the
//! `Writer` itself costs (`add_path` included), without the bench's own
//! walk. Under each table a line gives the sizes of lzflow's header
//! (uncompressed and packed) and the writer row's allocations against the
//! uncompressed header. A last table, "text blocks, threads", writes four
//! 10 MiB text files as a block each on one and on two threads (and on
//! two through the tokio writer).

use std::fs::File;
use std::io::{self, Read};
use std::path::{Path, PathBuf};

use crate::child::{self, alloc_cell, interleave, summarise, ChildSample, Entrant};
use crate::sevenz::{arg, temp_dir, PASSWORD};
use crate::workloads::{is_quick, scaled, text_files};

/// Jobs the child processes can run.
pub const JOBS: &[(&str, child::Job)] = &[
    ("7zw-lzflow", lzflow_write),
    ("7zw-lzflow-writer", lzflow_writer_only),
    ("7zw-sevenz-rust2", sevenz_rust2_write),
    ("7zw-lzflow-blocks", lzflow_blocks),
    ("7zw-lzflow-bcj2", lzflow_bcj2),
];

/// Preset of every contestant (7-Zip's default).
const LEVEL: u32 = 5;
/// Key derivation rounds as 7-Zip writes them.
const AES_CYCLES_POWER: u8 = 19;

/// The direct children of `dir`, sorted by name.
fn sorted_children(dir: &Path) -> io::Result<Vec<PathBuf>> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)?
        .map(|e| e.map(|e| e.path()))
        .collect::<Result<_, _>>()?;
    v.sort();
    Ok(v)
}

fn name_of(p: &Path) -> String {
    p.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// The options of both lzflow jobs: solid, level 5; with a password the
/// data and the header are encrypted.
fn lzflow_options(args: &[String]) -> lzflow_7z::WriterOptions {
    let mut o = lzflow_7z::WriterOptions::default()
        .with_level(LEVEL)
        .with_solid(lzflow_7z::Solid::All);
    if let Some(p) = args.get(2) {
        o = o
            .with_password(p.clone())
            .with_encrypt_header(true)
            .with_aes_cycles_power(AES_CYCLES_POWER);
    }
    o
}

/// `<input dir> <archive> [password]`: every top-level item of the input
/// directory (recursively) into one solid archive.
fn lzflow_write(args: &[String]) -> io::Result<u64> {
    lzflow_archive(args, false)
}

/// The same archive as `lzflow_write`, the top-level items listed (with
/// their names) before the measurement starts.
fn lzflow_writer_only(args: &[String]) -> io::Result<u64> {
    lzflow_archive(args, true)
}

/// The two lzflow jobs; `writer_only` starts the measurement after the
/// input is listed.
fn lzflow_archive(args: &[String], writer_only: bool) -> io::Result<u64> {
    let (input, out) = (
        Path::new(arg(args, 0, "input dir")?),
        arg(args, 1, "archive")?,
    );
    let items: Vec<(PathBuf, String)> = sorted_children(input)?
        .into_iter()
        .map(|p| {
            let name = name_of(&p);
            (p, name)
        })
        .collect();
    if writer_only {
        child::measure_from_here();
    }
    let mut w = lzflow_7z::Writer::with_options(File::create(out)?, lzflow_options(args))?;
    for (p, name) in &items {
        w.add_path(p, name)?;
    }
    let f = w.finish()?;
    Ok(f.metadata()?.len())
}

/// `<input dir> <archive> <bcj2|bcj>`: every top-level file of the input
/// directory into one solid archive at level 5 on one thread, behind BCJ2
/// (7-Zip's `-mf=BCJ2`) or the automatic x86 BCJ.
fn lzflow_bcj2(args: &[String]) -> io::Result<u64> {
    let (input, out, filter) = (
        Path::new(arg(args, 0, "input dir")?),
        arg(args, 1, "archive")?,
        arg(args, 2, "bcj2|bcj")?,
    );
    let opts = lzflow_7z::WriterOptions::default()
        .with_level(LEVEL)
        .with_solid(lzflow_7z::Solid::All)
        .with_auto_bcj(true)
        .with_bcj2(filter == "bcj2");
    let mut w = lzflow_7z::Writer::with_options(File::create(out)?, opts)?;
    for p in sorted_children(input)? {
        w.add_path(&p, &name_of(&p))?;
    }
    let f = w.finish()?;
    Ok(f.metadata()?.len())
}

/// `<input dir> <archive> <threads> [tokio]`: every top-level file of the input
/// directory in a solid block of its own (level 5), on `threads` threads.
fn lzflow_blocks(args: &[String]) -> io::Result<u64> {
    let (input, out, threads) = (
        Path::new(arg(args, 0, "input dir")?),
        arg(args, 1, "archive")?,
        arg(args, 2, "threads")?,
    );
    let threads = threads
        .parse()
        .map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, "threads: a number"))?;
    let opts = lzflow_7z::WriterOptions::default()
        .with_level(LEVEL)
        .with_solid(lzflow_7z::Solid::Files(1))
        .with_threads(threads);
    if args.get(3).map(String::as_str) == Some("tokio") {
        return lzflow_blocks_tokio(input, out, opts);
    }
    let mut w = lzflow_7z::Writer::with_options(File::create(out)?, opts)?;
    for p in sorted_children(input)? {
        w.add_path(&p, &name_of(&p))?;
    }
    let f = w.finish()?;
    Ok(f.metadata()?.len())
}

/// [`lzflow_blocks`] through the tokio writer, on a current-thread
/// runtime: files and archive are tokio files.
fn lzflow_blocks_tokio(input: &Path, out: &str, opts: lzflow_7z::WriterOptions) -> io::Result<u64> {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    rt.block_on(async {
        let sink = tokio::fs::File::create(out).await?;
        let mut w = lzflow::sevenz_writer::AsyncWriter::with_options(sink, opts).await?;
        for p in sorted_children(input)? {
            let f = tokio::fs::File::open(&p).await?;
            w.add_file(&name_of(&p), f, lzflow_7z::EntryMeta::default())
                .await?;
        }
        let f = w.finish().await?;
        Ok(f.metadata().await?.len())
    })
}

/// The sizes of an lzflow archive's header: (uncompressed, packed
/// stream). The packed stream lies between the data's packed streams and
/// the header record.
fn header_sizes(path: &Path, password: Option<&str>) -> Result<(u64, u64), String> {
    use lzflow_7z::{ArchiveOptions, HeaderStep, IndexBuilder};
    let bytes = std::fs::read(path).map_err(|e| e.to_string())?;
    let mut opts = ArchiveOptions::default();
    if let Some(p) = password {
        opts = opts.with_password(p);
    }
    let mut b = IndexBuilder::new(opts.clone());
    let start: &[u8; 32] = bytes
        .get(..32)
        .and_then(|s| s.try_into().ok())
        .ok_or("archive too short")?;
    let sig = b
        .start(start, Some(bytes.len() as u64))
        .map_err(|e| e.to_string())?;
    let at = sig.header_position().map_err(|e| e.to_string())?;
    let record = &bytes[at as usize..(at + sig.next_header_size) as usize];
    let plain = match b.header(&sig, record).map_err(|e| e.to_string())? {
        HeaderStep::Encoded(folders) => folders.iter().map(|f| f.unpack_size()).sum(),
        // Not compressed: the record is the header.
        HeaderStep::Index(_) => return Ok((sig.next_header_size, sig.next_header_size)),
    };
    let a = lzflow_7z::Archive::open_with(std::io::Cursor::new(&bytes), opts)
        .map_err(|e| e.to_string())?;
    let data: u64 = (0..a.index().folder_count())
        .map(|i| a.index().folder_packed_size(i))
        .sum();
    Ok((plain, at - 32 - data))
}

/// A file opened only when first read, so a solid block of thousands of
/// files does not hold thousands of descriptors.
struct LazyFile {
    path: PathBuf,
    file: Option<File>,
}

impl Read for LazyFile {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if self.file.is_none() {
            self.file = Some(File::open(&self.path)?);
        }
        let f = self.file.as_mut().expect("opened above");
        let n = f.read(buf)?;
        if n == 0 {
            // Done with it: close early.
            self.file = None;
            self.path = PathBuf::new();
        }
        Ok(n)
    }
}

/// Files (with data), empty files and directories below `dir`, with their
/// archive names, in name order (directories before their contents).
pub(crate) fn walk(
    dir: &Path,
    prefix: &str,
    items: &mut Vec<(PathBuf, String, bool)>,
) -> io::Result<()> {
    for p in sorted_children(dir)? {
        let name = if prefix.is_empty() {
            name_of(&p)
        } else {
            format!("{prefix}/{}", name_of(&p))
        };
        let md = std::fs::symlink_metadata(&p)?;
        if md.is_dir() {
            items.push((p.clone(), name.clone(), true));
            walk(&p, &name, items)?;
        } else {
            items.push((p, name, false));
        }
    }
    Ok(())
}

/// The same with sevenz-rust2: directories and empty files as entries
/// without data, all files with data in one solid block.
fn sevenz_rust2_write(args: &[String]) -> io::Result<u64> {
    use sevenz_rust2::encoder_options::{AesEncoderOptions, Lzma2Options};
    use sevenz_rust2::{ArchiveEntry, ArchiveWriter, EncoderConfiguration, SourceReader};
    let (input, out) = (
        Path::new(arg(args, 0, "input dir")?),
        arg(args, 1, "archive")?,
    );
    let mut w = ArchiveWriter::create(out).map_err(io::Error::other)?;
    let lzma2: EncoderConfiguration = Lzma2Options::from_level(LEVEL).into();
    match args.get(2) {
        Some(p) => {
            let mut aes = AesEncoderOptions::new(sevenz_rust2::Password::new(p));
            aes.num_cycles_power = AES_CYCLES_POWER;
            w.set_content_methods(vec![aes.into(), lzma2]);
            w.set_encrypt_header(true);
        }
        None => {
            w.set_content_methods(vec![lzma2]);
            w.set_encrypt_header(false);
        }
    }
    let mut items = Vec::new();
    walk(input, "", &mut items)?;
    let mut solid_entries = Vec::new();
    let mut solid_readers = Vec::new();
    for (path, name, is_dir) in items {
        let entry = ArchiveEntry::from_path(&path, name);
        if is_dir || std::fs::metadata(&path)?.len() == 0 {
            w.push_archive_entry::<File>(entry, None)
                .map_err(io::Error::other)?;
        } else {
            solid_entries.push(entry);
            solid_readers.push(SourceReader::from(LazyFile { path, file: None }));
        }
    }
    if !solid_entries.is_empty() {
        w.push_archive_entries(solid_entries, solid_readers)
            .map_err(io::Error::other)?;
    }
    let f = w.finish()?;
    Ok(f.metadata()?.len())
}

/// One input set of the table.
pub(crate) struct Scenario {
    pub(crate) name: &'static str,
    pub(crate) password: bool,
    /// Writes the input files into the directory.
    pub(crate) make: fn(&Path) -> io::Result<()>,
}

fn random(len: usize, rng: &mut fastrand::Rng) -> Vec<u8> {
    (0..len).map(|_| rng.u8(..)).collect()
}

pub(crate) fn small_random(dir: &Path) -> io::Result<()> {
    let mut rng = fastrand::Rng::with_seed(16);
    for i in 0..16 {
        std::fs::write(dir.join(format!("r{i:02}.bin")), random(4096, &mut rng))?;
    }
    Ok(())
}

pub(crate) fn tiny_and_one_big(dir: &Path) -> io::Result<()> {
    let mut rng = fastrand::Rng::with_seed(100);
    for i in 0..100 {
        std::fs::write(dir.join(format!("t{i:03}.bin")), random(128, &mut rng))?;
    }
    std::fs::write(dir.join("big.bin"), random(256 << 10, &mut rng))
}

pub(crate) fn empty_unicode(dir: &Path) -> io::Result<()> {
    let n = if is_quick() { 625 } else { 10_000 };
    // Long names stay under 255 bytes, the usual file-name limit.
    let long = "長いファイル名-ünïcödé-Ελληνικά-кириллица-".repeat(2);
    for i in 0..n {
        let name = if i % 2 == 0 {
            format!("ü{i}")
        } else {
            format!("{long}{i:05}.txt")
        };
        File::create(dir.join(name))?;
    }
    Ok(())
}

pub(crate) fn text_tree(dir: &Path) -> io::Result<()> {
    for (rel, bytes) in text_files(scaled(40 << 20)) {
        let p = dir.join(rel);
        if let Some(parent) = p.parent() {
            std::fs::create_dir_all(parent)?;
        }
        std::fs::write(p, bytes)?;
    }
    Ok(())
}

/// The inputs of both archive-writing tables (`7z-write`, `zip-write`).
pub(crate) const INPUTS: &[Scenario] = &[
    Scenario {
        name: "16 x 4 KiB random",
        password: false,
        make: small_random,
    },
    Scenario {
        name: "100x128B+256KiB AES",
        password: true,
        make: tiny_and_one_big,
    },
    Scenario {
        name: "empty, Unicode names",
        password: false,
        make: empty_unicode,
    },
    Scenario {
        name: "text tree",
        password: false,
        make: text_tree,
    },
];

/// Removes an archive left by an earlier round: 7zz a would update it,
/// and every contestant starts from nothing.
pub(crate) fn remove_old(path: &Path) -> io::Result<()> {
    match std::fs::remove_file(path) {
        Err(e) if e.kind() != io::ErrorKind::NotFound => Err(e),
        _ => Ok(()),
    }
}

fn test_archive(path: &Path, password: bool) -> Result<(), String> {
    let mut c = std::process::Command::new("7zz");
    c.arg("t").arg("-bsp0");
    if password {
        c.arg(format!("-p{PASSWORD}"));
    }
    let st = c
        .arg(path)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .status()
        .map_err(|e| e.to_string())?;
    if st.success() {
        Ok(())
    } else {
        Err(format!("7zz t rejects the archive: {st}"))
    }
}

/// The header of an archive-writing table (columns of [`print_rows`]).
pub(crate) fn print_header() {
    println!(
        "{:<21} {:<18} {:>10} {:>8} {:>11} {:>8} {:>13} {:>9} {:>10}",
        "input",
        "contestant",
        "median ms",
        "ratio",
        "size",
        "size ×",
        "alloc B/op",
        "allocs/op",
        "peak RSS"
    );
}

/// The scenarios of `list` that `only` selects.
pub(crate) fn scenarios<'a>(
    list: &'a [Scenario],
    only: Option<&'a str>,
) -> impl Iterator<Item = &'a Scenario> {
    list.iter()
        .filter(move |s| only.is_none_or(|o| s.name.contains(o)))
}

/// A scratch directory tagged `tag` and, in its `in/`, the input of `sc`.
pub(crate) fn scenario_input(tag: &str, sc: &Scenario) -> io::Result<(PathBuf, PathBuf)> {
    let root = temp_dir(tag)?;
    let input = root.join("in");
    std::fs::create_dir_all(&input)?;
    (sc.make)(&input)?;
    Ok((root, input))
}

/// One contestant's samples, or why it failed.
type Samples = Result<Vec<ChildSample>, String>;

/// Runs `entrants` interleaved, each writing the archive `outs[i]`, which
/// `7zz t` then tests: the samples and the archives' sizes.
fn run_archives(
    entrants: &[Entrant],
    outs: &[PathBuf],
    rounds: usize,
    password: bool,
) -> io::Result<(Vec<Samples>, Vec<u64>)> {
    let results = interleave(
        entrants,
        rounds,
        |i| remove_old(&outs[i]),
        |i, _| test_archive(&outs[i], password),
    )?;
    let sizes = outs
        .iter()
        .map(|p| std::fs::metadata(p).map(|m| m.len()).unwrap_or(0))
        .collect();
    Ok((results, sizes))
}

/// Prints the archive-writing table.
pub fn compare_7z_write(rounds: usize, only: Option<&str>) -> io::Result<()> {
    print_header();
    for sc in scenarios(INPUTS, only) {
        let (root, input) = scenario_input("7zw", sc)?;
        let outs: Vec<PathBuf> = [
            "7zz",
            "lzflow",
            "sevenz-rust2",
            "lzflow-warm",
            "lzflow-writer",
        ]
        .iter()
        .map(|n| root.join(format!("{n}.7z")))
        .collect();
        let pw = format!("-p{PASSWORD}");
        let mut zz = vec!["a", "-mx5", "-mmt=1", "-bsp0"];
        if sc.password {
            zz.extend([pw.as_str(), "-mhe=on"]);
        }
        let out0 = outs[0].to_string_lossy().into_owned();
        zz.extend([out0.as_str(), "*"]);
        let job_args = |i: usize| {
            let mut v = vec![
                input.to_string_lossy().into_owned(),
                outs[i].to_string_lossy().into_owned(),
            ];
            if sc.password {
                v.push(PASSWORD.to_string());
            }
            v
        };
        let entrants = [
            Entrant::Cmd(
                input.to_string_lossy().into_owned(),
                "7zz".into(),
                zz.iter().map(|s| s.to_string()).collect(),
            ),
            Entrant::Job("7zw-lzflow", job_args(1)),
            Entrant::Job("7zw-sevenz-rust2", job_args(2)),
            // The second archive written by one process: what one more
            // archive costs once pools and heap are warm.
            Entrant::Job("7zw-lzflow:warm", job_args(3)),
            // The same, without the bench's listing of the input.
            Entrant::Job("7zw-lzflow-writer:warm", job_args(4)),
        ];
        let (results, sizes) = run_archives(&entrants, &outs, rounds, sc.password)?;
        print_rows(sc.name, ROW_NAMES, &results, &sizes);
        print_header_line(
            sc.name,
            &outs[4],
            sc.password.then_some(PASSWORD),
            &results[4],
        );
        let _ = std::fs::remove_dir_all(&root);
    }
    if only.is_none_or(|o| BLOCKS.contains(o)) {
        compare_blocks(rounds)?;
    }
    if only.is_none_or(|o| BCJ2.contains(o)) {
        compare_bcj2(rounds)?;
    }
    Ok(())
}

const BCJ2: &str = "x86 ELF, BCJ2";

/// Most bytes of executables the BCJ2 table takes.
const ELF_BYTES: u64 = 24 << 20;

/// Copies x86-64 ELF files from the system's `/usr/bin` and
/// `/usr/lib/x86_64-linux-gnu` (sorted by name, 16 KiB to 4 MiB each) into
/// `dir` until [`ELF_BYTES`]: the same files on every run of a machine.
fn copy_elf_files(dir: &Path) -> io::Result<u64> {
    let mut total = 0;
    for from in ["/usr/bin", "/usr/lib/x86_64-linux-gnu"] {
        let Ok(children) = sorted_children(Path::new(from)) else {
            continue;
        };
        for p in children {
            let Ok(md) = std::fs::symlink_metadata(&p) else {
                continue;
            };
            if !md.is_file() || !(16 << 10..=4 << 20).contains(&md.len()) {
                continue;
            }
            let mut head = [0u8; 20];
            let is_x86_elf = File::open(&p)
                .and_then(|mut f| io::Read::read_exact(&mut f, &mut head))
                .is_ok()
                && head.starts_with(b"\x7fELF")
                && u16::from_le_bytes([head[18], head[19]]) == 62;
            if !is_x86_elf || total + md.len() > ELF_BYTES {
                continue;
            }
            std::fs::copy(&p, dir.join(name_of(&p)))?;
            total += md.len();
        }
    }
    Ok(total)
}

/// Issue 26's BCJ2 target: a solid archive of x86 executables behind
/// BCJ2, lzflow against `7zz a -mf=BCJ2 -mx5 -mmt=1` (size ≤ +0.5 %, time
/// ≤ 1.1×); the automatic BCJ of both for reference.
fn compare_bcj2(rounds: usize) -> io::Result<()> {
    let root = temp_dir("7zw-bcj2")?;
    let input = root.join("in");
    std::fs::create_dir_all(&input)?;
    let bytes = copy_elf_files(&input)?;
    if bytes == 0 {
        println!("{BCJ2:<21} no x86-64 ELF files found on this system: not measured");
        return Ok(());
    }
    let outs: Vec<PathBuf> = (0..4).map(|i| root.join(format!("{i}.7z"))).collect();
    let out = |i: usize| outs[i].to_string_lossy().into_owned();
    let dir = input.to_string_lossy().into_owned();
    let zz = |i: usize, filter: &str| {
        let mut args = vec!["a", "-mx5", "-mmt=1", "-bsp0"];
        if !filter.is_empty() {
            args.push(filter);
        }
        let o = out(i);
        args.extend([o.as_str(), "*"]);
        Entrant::Cmd(
            dir.clone(),
            "7zz".into(),
            args.iter().map(|s| s.to_string()).collect(),
        )
    };
    let ours = |i: usize, filter: &str| {
        Entrant::Job(
            "7zw-lzflow-bcj2",
            vec![dir.clone(), out(i), filter.to_string()],
        )
    };
    let entrants = [
        zz(0, "-mf=BCJ2"),
        ours(1, "bcj2"),
        zz(2, ""),
        ours(3, "bcj"),
    ];
    let (results, sizes) = run_archives(&entrants, &outs, rounds, false)?;
    println!("{BCJ2}: {bytes} bytes of executables");
    let names = [
        "7zz -mf=BCJ2",
        "lzflow BCJ2",
        "7zz (auto BCJ)",
        "lzflow (auto BCJ)",
    ];
    print_rows(BCJ2, &names, &results, &sizes);
    if let (Ok(zz), Ok(ours)) = (&results[0], &results[1]) {
        let time = summarise(ours).time.as_secs_f64() / summarise(zz).time.as_secs_f64();
        let size = sizes[1] as f64 / sizes[0] as f64;
        let verdict = |ok: bool| if ok { "met" } else { "MISSED" };
        println!(
            "  target: lzflow BCJ2 / 7zz -mf=BCJ2: size {size:.4}x (≤ 1.005x): {}, time {time:.3}x (≤ 1.10x): {}",
            verdict(size <= 1.005),
            verdict(time <= 1.10)
        );
    }
    let _ = std::fs::remove_dir_all(&root);
    Ok(())
}

const BLOCKS: &str = "text blocks, threads";

/// Four text files of 10 MiB (the text workload cut in four), a solid
/// block each, at level 5 on one and on two threads: 7-Zip's two threads
/// share each block's match finding; lzflow's compress two blocks at once.
fn compare_blocks(rounds: usize) -> io::Result<()> {
    let root = temp_dir("7zw-blocks")?;
    let input = root.join("in");
    std::fs::create_dir_all(&input)?;
    let text = crate::workloads::text_input();
    for (i, part) in text.chunks(text.len().div_ceil(4)).enumerate() {
        std::fs::write(input.join(format!("part{i}.txt")), part)?;
    }
    let outs: Vec<PathBuf> = (0..5).map(|i| root.join(format!("{i}.7z"))).collect();
    let out = |i: usize| outs[i].to_string_lossy().into_owned();
    let dir = input.to_string_lossy().into_owned();
    let zz = |i: usize, mt: &str| {
        let args = ["a", "-mx5", "-ms=1f", mt, "-bsp0", &out(i), "*"];
        Entrant::Cmd(
            dir.clone(),
            "7zz".into(),
            args.iter().map(|s| s.to_string()).collect(),
        )
    };
    let ours = |i: usize, threads: &str| {
        Entrant::Job(
            "7zw-lzflow-blocks",
            vec![dir.clone(), out(i), threads.to_string()],
        )
    };
    let tokio2 = Entrant::Job(
        "7zw-lzflow-blocks",
        vec![dir.clone(), out(4), "2".into(), "tokio".into()],
    );
    let entrants = [
        zz(0, "-mmt=1"),
        zz(1, "-mmt=2"),
        ours(2, "1"),
        ours(3, "2"),
        tokio2,
    ];
    let (results, sizes) = run_archives(&entrants, &outs, rounds, false)?;
    let names = [
        "7zz mmt=1",
        "7zz mmt=2",
        "lzflow 1 thr",
        "lzflow 2 thr",
        "lzflow tokio 2 thr",
    ];
    print_rows(BLOCKS, &names, &results, &sizes);
    let _ = std::fs::remove_dir_all(&root);
    Ok(())
}

/// Rows of the contestants in `ROW_NAMES` order.
const ROW_NAMES: &[&str] = &[
    "7zz a",
    "lzflow",
    "sevenz-rust2",
    "lzflow warm",
    "lzflow writer",
];

pub(crate) fn print_rows(
    scenario: &str,
    names: &[&str],
    results: &[Result<Vec<ChildSample>, String>],
    sizes: &[u64],
) {
    let base = match &results[0] {
        Ok(v) => summarise(v).time.as_secs_f64(),
        Err(_) => f64::NAN,
    };
    for (i, r) in results.iter().enumerate() {
        match r {
            Err(why) => println!("{scenario:<21} {:<18} {why}", names[i]),
            Ok(v) => {
                let sm = summarise(v);
                let ext = v[0].external;
                println!(
                    "{:<21} {:<18} {:>10.2} {:>7.3}x {:>11} {:>7.4}x {:>13} {:>9} {:>7.1}MiB",
                    scenario,
                    names[i],
                    sm.time.as_secs_f64() * 1e3,
                    sm.time.as_secs_f64() / base,
                    sizes[i],
                    sizes[i] as f64 / sizes[0] as f64,
                    alloc_cell(sm.alloc_bytes, ext),
                    alloc_cell(sm.alloc_count, ext),
                    sm.peak_rss_kib as f64 / 1024.0
                );
            }
        }
    }
}

/// lzflow's header sizes and the writer row's allocations per
/// uncompressed header byte (issue 6's target for the empty-files input:
/// at most 2).
fn print_header_line(
    scenario: &str,
    archive: &Path,
    password: Option<&str>,
    writer: &Result<Vec<ChildSample>, String>,
) {
    match header_sizes(archive, password) {
        Err(why) => println!("{scenario:<21} lzflow header: {why}"),
        Ok((plain, packed)) => {
            let ratio = match writer {
                Ok(v) if !v.is_empty() => {
                    format!("{:.2}x", summarise(v).alloc_bytes as f64 / plain as f64)
                }
                _ => "-".to_string(),
            };
            println!(
                "{scenario:<21} lzflow header: {plain} B uncompressed, {packed} B packed; \
                 lzflow writer alloc B/op / uncompressed header = {ratio}"
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Both writing jobs make archives that 7zz accepts and that lzflow
    /// reads back with the same names and contents.
    #[test]
    fn jobs_write_archives_7zz_accepts() {
        let have = std::process::Command::new("7zz")
            .arg("i")
            .stdout(std::process::Stdio::null())
            .status()
            .is_ok_and(|s| s.success());
        if !have {
            eprintln!("SKIPPED: 7zz not found");
            return;
        }
        let root = temp_dir("7zw-test").unwrap();
        let input = root.join("in");
        std::fs::create_dir_all(input.join("sub")).unwrap();
        std::fs::write(input.join("a.txt"), b"alpha alpha alpha\n").unwrap();
        std::fs::write(input.join("sub/b.bin"), [7u8; 5000]).unwrap();
        File::create(input.join("ü-empty")).unwrap();
        for (job, lzflow, pw) in [
            (lzflow_write as child::Job, true, None),
            (lzflow_writer_only, true, None),
            (sevenz_rust2_write, false, None),
            (lzflow_write, true, Some(PASSWORD)),
            (lzflow_writer_only, true, Some(PASSWORD)),
            (sevenz_rust2_write, false, Some(PASSWORD)),
        ] {
            let out = root.join("out.7z");
            let _ = std::fs::remove_file(&out);
            let mut args = vec![
                input.to_string_lossy().into_owned(),
                out.to_string_lossy().into_owned(),
            ];
            args.extend(pw.map(String::from));
            let len = job(&args).unwrap();
            assert_eq!(len, std::fs::metadata(&out).unwrap().len());
            test_archive(&out, pw.is_some()).unwrap();
            if lzflow {
                // The names alone take this much of the uncompressed
                // header (UTF-16 with terminators).
                let names: usize = ["a.txt", "sub", "sub/b.bin", "ü-empty"]
                    .iter()
                    .map(|n| n.encode_utf16().count() * 2 + 2)
                    .sum();
                let (plain, packed) = header_sizes(&out, pw).unwrap();
                assert!(plain > names as u64 && packed > 0, "{plain} {packed}");
            }
            let mut opts = lzflow_7z::ArchiveOptions::default();
            if let Some(p) = pw {
                opts = opts.with_password(p);
            }
            let mut a = lzflow_7z::Archive::open_with(File::open(&out).unwrap(), opts).unwrap();
            let mut got = Vec::new();
            a.for_each_entry(|e, r| {
                let mut data = Vec::new();
                r.read_to_end(&mut data)?;
                got.push((e.name.clone(), data.len()));
                Ok(())
            })
            .unwrap();
            got.sort();
            let want: Vec<(String, usize)> = [
                ("a.txt", 18),
                ("sub", 0),
                ("sub/b.bin", 5000),
                ("ü-empty", 0),
            ]
            .iter()
            .map(|(n, l)| (n.to_string(), *l))
            .collect();
            assert_eq!(got, want);
        }
        let _ = std::fs::remove_dir_all(&root);
    }
}
