//! `compare 7z`: extracting a solid archive (output discarded), and key
//! derivation, against 7-Zip, sevenz-rust2 and liblzma.
//!
//! The archive is made by `7zz` at bench time from seeded files. The
//! baseline is liblzma decoding the archive's one packed LZMA2 stream raw:
//! the least work any extractor can do. Every contestant runs in a fresh
//! child process (see `child`), reading the archive from the file.

use std::fs::File;
use std::io::{self, Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};

use crate::child::{self, alloc_cell, interleave, summarise, ChildSample, Entrant};
use crate::workloads::{mixed_x86, scaled};

/// The 7z fixtures' password.
pub const PASSWORD: &str = "fixture-pass";

/// Jobs the child processes can run.
pub const JOBS: &[(&str, child::Job)] = &[
    ("7z-liblzma-raw", liblzma_raw),
    ("7z-lzflow", lzflow_extract),
    ("7z-lzflow-walk", lzflow_walk),
    ("7z-lzflow-tokio", tokio_extract),
    ("7z-lzflow-tokio-walk", tokio_walk),
    ("7z-lzflow-futures", futures_extract),
    ("7z-lzflow-futures-walk", futures_walk),
    ("7z-sevenz-rust2", sevenz_rust2_extract),
    ("7z-lzflow-mt", lzflow_extract_mt),
    ("7z-lzflow-tokio-mt", tokio_extract_mt),
];

const BUF: usize = 64 * 1024;

fn drain(r: &mut dyn Read) -> io::Result<u64> {
    // On the stack: the harness's buffer is not the contestant's allocation.
    let mut buf = [0u8; BUF];
    let mut n = 0u64;
    loop {
        match r.read(&mut buf) {
            Ok(0) => return Ok(n),
            Ok(k) => n += k as u64,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
}

pub(crate) fn arg<'a>(args: &'a [String], i: usize, what: &str) -> io::Result<&'a str> {
    args.get(i)
        .map(String::as_str)
        .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, format!("missing {what}")))
}

/// `<archive> <offset> <size> <dict>`: raw LZMA2 decode of the packed stream.
fn liblzma_raw(args: &[String]) -> io::Result<u64> {
    let num = |i, what| {
        arg(args, i, what)?
            .parse::<u64>()
            .map_err(|e| io::Error::new(io::ErrorKind::InvalidInput, e))
    };
    let (offset, size, dict) = (num(1, "offset")?, num(2, "size")?, num(3, "dict")?);
    let mut f = File::open(arg(args, 0, "archive")?)?;
    f.seek(SeekFrom::Start(offset))?;
    let mut o = liblzma::stream::LzmaOptions::new();
    o.dict_size(dict as u32);
    let mut filters = liblzma::stream::Filters::new();
    filters.lzma2(&o);
    let s = liblzma::stream::Stream::new_raw_decoder(&filters).map_err(io::Error::other)?;
    let input = io::BufReader::with_capacity(BUF, f.take(size));
    drain(&mut liblzma::bufread::XzDecoder::new_stream(input, s))
}

fn lzflow_options(args: &[String]) -> lzflow_7z::ArchiveOptions {
    let o = lzflow_7z::ArchiveOptions::default();
    match args.get(1) {
        Some(p) => o.with_password(p.clone()),
        None => o,
    }
}

/// `<archive> [password]`: sequential extraction of every entry.
fn lzflow_extract(args: &[String]) -> io::Result<u64> {
    let f = File::open(arg(args, 0, "archive")?)?;
    let mut a = lzflow_7z::Archive::open_with(f, lzflow_options(args))?;
    let mut total = 0;
    a.for_each_entry(|_, r| {
        total += drain(r)?;
        Ok(())
    })?;
    Ok(total)
}

/// `<archive> <threads>`: sequential extraction of every entry, LZMA2
/// streams with dictionary resets decoded on `threads` threads.
fn lzflow_extract_mt(args: &[String]) -> io::Result<u64> {
    let threads = arg(args, 1, "threads")?
        .parse()
        .map_err(|e| io::Error::new(io::ErrorKind::InvalidInput, e))?;
    let f = File::open(arg(args, 0, "archive")?)?;
    let opts = lzflow_7z::ArchiveOptions::default().with_threads(threads);
    let mut a = lzflow_7z::Archive::open_with(f, opts)?;
    let mut total = 0;
    a.for_each_entry(|_, r| {
        total += drain(r)?;
        Ok(())
    })?;
    Ok(total)
}

/// `<archive> [password]`: the walk alone over the archive in memory,
/// opened before the measurement starts (the rows that show what a face
/// and the core allocate, without the source's own costs).
fn lzflow_walk(args: &[String]) -> io::Result<u64> {
    let bytes = std::fs::read(arg(args, 0, "archive")?)?;
    let mut a = lzflow_7z::Archive::open_with(io::Cursor::new(bytes), lzflow_options(args))?;
    child::measure_from_here();
    let mut total = 0;
    a.for_each_entry(|_, r| {
        total += drain(r)?;
        Ok(())
    })?;
    Ok(total)
}

/// A current-thread tokio runtime, made before the measurement starts.
fn runtime() -> io::Result<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_current_thread().build()
}

/// Reads an async entry walk to the end of every entry.
macro_rules! async_walk {
    ($archive:expr, $read:path) => {{
        let mut entries = $archive.entries_stream();
        let mut buf = [0u8; BUF];
        let mut total = 0u64;
        while entries.next_entry().await?.is_some() {
            loop {
                let n = $read(&mut entries, &mut buf).await?;
                if n == 0 {
                    break;
                }
                total += n as u64;
            }
        }
        Ok::<u64, io::Error>(total)
    }};
}

/// `<archive> [password]`: open and walk with the tokio face, the file
/// read through `tokio::fs::File`.
fn tokio_extract(args: &[String]) -> io::Result<u64> {
    let rt = runtime()?;
    child::measure_from_here();
    rt.block_on(async {
        let f = tokio::fs::File::open(arg(args, 0, "archive")?).await?;
        let mut a = lzflow::sevenz::AsyncArchive::open_with(f, lzflow_options(args)).await?;
        async_walk!(a, tokio::io::AsyncReadExt::read)
    })
}

/// `<archive> [password]`: the tokio walk alone, over the archive in
/// memory.
fn tokio_walk(args: &[String]) -> io::Result<u64> {
    let rt = runtime()?;
    let bytes = std::fs::read(arg(args, 0, "archive")?)?;
    rt.block_on(async {
        let src = io::Cursor::new(bytes);
        let mut a = lzflow::sevenz::AsyncArchive::open_with(src, lzflow_options(args)).await?;
        child::measure_from_here();
        async_walk!(a, tokio::io::AsyncReadExt::read)
    })
}

/// `<archive> [password]`: open and walk with the futures-io face over a
/// std file (`AllowStdIo`), on `futures::executor`.
fn futures_extract(args: &[String]) -> io::Result<u64> {
    let f = futures::io::AllowStdIo::new(File::open(arg(args, 0, "archive")?)?);
    child::measure_from_here();
    futures::executor::block_on(async {
        let mut a =
            lzflow::sevenz::futures::AsyncArchive::open_with(f, lzflow_options(args)).await?;
        async_walk!(a, futures::io::AsyncReadExt::read)
    })
}

/// `<archive> [password]`: the futures-io walk alone, over the archive in
/// memory.
fn futures_walk(args: &[String]) -> io::Result<u64> {
    let src = futures::io::Cursor::new(std::fs::read(arg(args, 0, "archive")?)?);
    futures::executor::block_on(async {
        let mut a =
            lzflow::sevenz::futures::AsyncArchive::open_with(src, lzflow_options(args)).await?;
        child::measure_from_here();
        async_walk!(a, futures::io::AsyncReadExt::read)
    })
}

/// `<archive> [password]`: the same with sevenz-rust2 (one thread).
fn sevenz_rust2_extract(args: &[String]) -> io::Result<u64> {
    let pw = match args.get(1) {
        Some(p) => sevenz_rust2::Password::new(p),
        None => sevenz_rust2::Password::empty(),
    };
    let mut a = sevenz_rust2::ArchiveReader::open(arg(args, 0, "archive")?, pw)
        .map_err(io::Error::other)?;
    a.set_thread_count(1);
    let mut total = 0;
    a.for_each_entries(|_, r| {
        total += drain(r)?;
        Ok(true)
    })
    .map_err(io::Error::other)?;
    Ok(total)
}

/// Where the one packed stream of a single-folder LZMA2 archive lies:
/// (absolute offset, size). Refuses archives the raw baseline cannot decode.
fn pack_stream(path: &Path) -> io::Result<(u64, u64)> {
    let mut f = File::open(path)?;
    let a = sevenz_rust2::Archive::read(&mut f, &sevenz_rust2::Password::empty())
        .map_err(io::Error::other)?;
    let lzma2_only = a.blocks.len() == 1
        && a.blocks[0].coders.len() == 1
        && a.blocks[0].coders[0].encoder_method_id() == [0x21];
    if !lzma2_only || a.pack_sizes().len() != 1 {
        return Err(io::Error::other(
            "7zz made more than one folder or coder; the raw baseline needs one LZMA2 stream",
        ));
    }
    Ok((32 + a.pack_pos(), a.pack_sizes()[0]))
}

/// A fresh temporary directory for one mode.
pub fn temp_dir(tag: &str) -> io::Result<PathBuf> {
    let d = std::env::temp_dir().join(format!("lzflow-bench-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d)?;
    Ok(d)
}

fn s(p: &Path) -> String {
    p.to_string_lossy().into_owned()
}

fn seven_zip(dir: &Path, args: &[&str]) -> io::Result<()> {
    let st = std::process::Command::new("7zz")
        .args(args)
        .current_dir(dir)
        .stdout(std::process::Stdio::null())
        .status()?;
    if st.success() {
        Ok(())
    } else {
        Err(io::Error::other(format!("7zz {args:?} failed: {st}")))
    }
}

fn print_header(first: &str) {
    println!(
        "{:<22} {:>10} {:>9} {:>8} {:>13} {:>9} {:>10} {:>9}",
        first, "median ms", "MB/s", "ratio", "alloc B/op", "allocs/op", "peak RSS", "RSS+"
    );
}

fn print_rows(
    names: &[&str],
    results: &[Result<Vec<ChildSample>, String>],
    base: usize,
    bytes: u64,
) {
    let base_t = match &results[base] {
        Ok(v) => summarise(v).time,
        Err(_) => {
            println!("baseline {} failed; no ratios", names[base]);
            std::time::Duration::ZERO
        }
    };
    for (name, r) in names.iter().zip(results) {
        match r {
            Err(why) => println!("{name:<22} {why}"),
            Ok(v) => {
                let sm = summarise(v);
                let ext = v[0].external;
                let mbs = if bytes == 0 {
                    "-".to_string()
                } else {
                    format!("{:.1}", bytes as f64 / sm.time.as_secs_f64() / 1e6)
                };
                let plus = if ext {
                    "-".to_string()
                } else {
                    format!("{:.1}MiB", sm.rss_plus_kib as f64 / 1024.0)
                };
                println!(
                    "{:<22} {:>10.2} {:>9} {:>7.3}x {:>13} {:>9} {:>7.1}MiB {:>9}",
                    name,
                    sm.time.as_secs_f64() * 1e3,
                    mbs,
                    sm.time.as_secs_f64() / base_t.as_secs_f64(),
                    alloc_cell(sm.alloc_bytes, ext),
                    alloc_cell(sm.alloc_count, ext),
                    sm.peak_rss_kib as f64 / 1024.0,
                    plus
                );
            }
        }
    }
}

/// Runs `entrants` (each must extract `total` bytes) and prints their
/// rows under `title`, the first one the ratios' baseline.
fn extraction_rows(
    title: &str,
    entrants: &[Entrant],
    labels: &[&str],
    total: u64,
    rounds: usize,
) -> io::Result<()> {
    let results = interleave(
        entrants,
        rounds,
        |_| Ok(()),
        |_, c| {
            if c.external || c.out_bytes == total {
                Ok(())
            } else {
                Err(format!("wrong size {} (want {total})", c.out_bytes))
            }
        },
    )?;
    println!("{title}");
    print_header("extract (discard)");
    print_rows(labels, &results, 0, total);
    Ok(())
}

/// One extraction table: `base` first (the ratios' baseline), then every
/// lzflow face (open and walk, then the walk alone), sevenz-rust2 and 7zz.
fn extraction_table(
    title: &str,
    file: &str,
    base: Entrant,
    arc: &Path,
    dir: &str,
    total: u64,
    rounds: usize,
) -> io::Result<()> {
    let sevenzz = |args: &[&str]| {
        Entrant::Cmd(
            dir.to_string(),
            "7zz".into(),
            args.iter().map(|x| x.to_string()).collect(),
        )
    };
    let base_label = match &base {
        Entrant::Job(name, _) if *name == "7z-liblzma-raw" => "liblzma raw LZMA2",
        _ => "lzflow Archive (base)",
    };
    let job = |name: &'static str| Entrant::Job(name, vec![s(arc)]);
    let entrants = [
        base,
        job("7z-lzflow"),
        job("7z-lzflow:warm"),
        job("7z-lzflow-walk:warm"),
        job("7z-lzflow-tokio:warm"),
        job("7z-lzflow-tokio-walk:warm"),
        job("7z-lzflow-futures:warm"),
        job("7z-lzflow-futures-walk:warm"),
        job("7z-sevenz-rust2"),
        sevenzz(&["t", "-bsp0", file]),
        sevenzz(&["x", "-so", "-bsp0", file]),
    ];
    let labels = [
        base_label,
        "lzflow Archive",
        "lzflow warm",
        "lzflow walk (memory)",
        "lzflow tokio warm",
        "tokio walk (memory)",
        "lzflow futures warm",
        "futures walk (memory)",
        "sevenz-rust2",
        "7zz t",
        "7zz x -so >/dev/null",
    ];
    extraction_rows(title, &entrants, &labels, total, rounds)
}

/// Prints the extraction tables and the key-derivation table.
pub fn compare_7z(rounds: usize) -> io::Result<()> {
    let dir = temp_dir("7z")?;
    eprintln!("building the archive in {}…", dir.display());
    let file_len = scaled(16 << 20);
    let mut names = Vec::new();
    for i in 0..4u64 {
        let name = format!("part{i}.bin");
        std::fs::write(dir.join(&name), mixed_x86(file_len, 0x7a00 + i))?;
        names.push(name);
    }
    let total = 4 * file_len as u64;
    // -mf=off: no automatic BCJ, so the folder is one LZMA2 coder, as the
    // raw baseline needs (7-Zip would pick none for this data anyway).
    let mut a = vec![
        "a", "-mx=3", "-mmt=1", "-md=8m", "-mf=off", "-bsp0", "solid.7z",
    ];
    a.extend(names.iter().map(String::as_str));
    seven_zip(&dir, &a)?;
    let arc = dir.join("solid.7z");
    let (offset, size) = pack_stream(&arc)?;
    let d = s(&dir);
    let sevenzz = |args: &[&str]| {
        Entrant::Cmd(
            d.clone(),
            "7zz".into(),
            args.iter().map(|x| x.to_string()).collect(),
        )
    };
    let raw = Entrant::Job(
        "7z-liblzma-raw",
        vec![
            s(&arc),
            offset.to_string(),
            size.to_string(),
            (8u32 << 20).to_string(),
        ],
    );
    let title = format!(
        "solid 7z: 4 × {} MiB mixed-x86, LZMA2 -mx=3 -md=8m, packed {size} bytes",
        file_len >> 20
    );
    extraction_table(&title, "solid.7z", raw, &arc, &d, total, rounds)?;

    // Many entries: what a walk costs per entry (101 files of 4-260 KiB).
    let mut many = vec!["a", "-mx=3", "-mmt=1", "-md=8m", "-bsp0", "many.7z"];
    let mut many_total = 0u64;
    let mut many_names = Vec::new();
    for i in 0..101u64 {
        let name = format!("m{i:03}.bin");
        let len = scaled(4096 + (i as usize * 2609) % (256 << 10));
        std::fs::write(dir.join(&name), mixed_x86(len, 0x3300 + i))?;
        many_total += len as u64;
        many_names.push(name);
    }
    many.extend(many_names.iter().map(String::as_str));
    seven_zip(&dir, &many)?;
    let many_arc = dir.join("many.7z");
    let title = format!("solid 7z: 101 entries, {many_total} bytes");
    println!();
    let baseline = Entrant::Job("7z-lzflow", vec![s(&many_arc)]);
    extraction_table(
        &title, "many.7z", baseline, &many_arc, &d, many_total, rounds,
    )?;
    for name in many_names {
        let _ = std::fs::remove_file(dir.join(name));
    }

    // Key derivation: opening and testing a tiny archive whose header is
    // encrypted costs one 2^19-round SHA-256 key derivation (the header and
    // the data share the key) and almost nothing else.
    std::fs::write(
        dir.join("small.txt"),
        b"lzflow key derivation bench\n".repeat(40),
    )?;
    let pw = format!("-p{PASSWORD}");
    seven_zip(&dir, &["a", "-mhe=on", &pw, "-bsp0", "enc.7z", "small.txt"])?;
    let enc = dir.join("enc.7z");
    let small = std::fs::metadata(dir.join("small.txt"))?.len();
    let entrants = [
        sevenzz(&["t", &pw, "-bsp0", "enc.7z"]),
        Entrant::Job("7z-lzflow", vec![s(&enc), PASSWORD.into()]),
        Entrant::Job("7z-sevenz-rust2", vec![s(&enc), PASSWORD.into()]),
    ];
    let labels = ["7zz t -p", "lzflow Archive", "sevenz-rust2"];
    let results = interleave(
        &entrants,
        rounds,
        |_| Ok(()),
        |_, c| {
            if c.external || c.out_bytes == small {
                Ok(())
            } else {
                Err(format!("wrong size {} (want {small})", c.out_bytes))
            }
        },
    )?;
    println!();
    println!(
        "key derivation: open + test a header-encrypted archive of one small file (2^19 rounds)"
    );
    print_header("open+test encrypted");
    // No MB/s: the time is the key derivation, not the bytes.
    print_rows(&labels, &results, 0, 0);
    let _ = std::fs::remove_dir_all(&dir);
    Ok(())
}

/// One `7z-mt` table: `arc` (in `dir`) extracted by lzflow on 1 and 2
/// threads (std and tokio) and tested by `7zz t` on 1 and 2 threads.
fn threads_table(title: &str, dir: &Path, arc: &Path, total: u64, rounds: usize) -> io::Result<()> {
    let d = s(dir);
    let file = s(arc);
    let sevenzz = |threads: &str| {
        Entrant::Cmd(
            d.clone(),
            "7zz".into(),
            ["t", threads, "-bsp0", &file].map(String::from).to_vec(),
        )
    };
    let job = |name: &'static str, threads: &str| {
        Entrant::Job(name, vec![file.clone(), threads.to_string()])
    };
    let entrants = [
        job("7z-lzflow-mt", "1"),
        job("7z-lzflow-mt", "2"),
        job("7z-lzflow-tokio-mt", "2"),
        sevenzz("-mmt=1"),
        sevenzz("-mmt=2"),
    ];
    let labels = [
        "lzflow 1 thread",
        "lzflow 2 threads",
        "lzflow tokio 2 threads",
        "7zz t -mmt=1",
        "7zz t -mmt=2",
    ];
    extraction_rows(title, &entrants, &labels, total, rounds)
}

/// The second `7z-mt` table: a non-solid archive of 2,000 files (one
/// folder each), extracted on 1 and 2 threads (folders side by side).
fn non_solid_table(dir: &Path, rounds: usize) -> io::Result<()> {
    let src = dir.join("many");
    std::fs::create_dir_all(&src)?;
    let mut total = 0u64;
    let mut names = Vec::new();
    let count = if crate::workloads::is_quick() {
        200
    } else {
        2000
    };
    for (i, (_, bytes)) in crate::workloads::text_files(usize::MAX)
        .into_iter()
        .filter(|(_, b)| b.len() >= 4096)
        .take(count)
        .enumerate()
    {
        let name = format!("f{i:04}.h");
        std::fs::write(src.join(&name), &bytes)?;
        total += bytes.len() as u64;
        names.push(name);
    }
    let mut a = vec!["a", "-ms=off", "-mx3", "-mmt=1", "-bsp0", "../many.7z"];
    a.extend(names.iter().map(String::as_str));
    seven_zip(&src, &a)?;
    let arc = dir.join("many.7z");
    let title = format!(
        "non-solid 7z by 7zz -ms=off -mx3: {} files of /usr/include, {total} bytes",
        names.len()
    );
    threads_table(&title, dir, &arc, total, rounds)
}

/// `compare 7z-mt`: extracting a large solid archive that 7-Zip compressed
/// on 4 threads (its LZMA2 stream has a dictionary reset at each of its
/// blocks), on 1 and 2 threads, beside `7zz t` on 1 and 2 threads.
pub fn compare_7z_mt(rounds: usize) -> io::Result<()> {
    let dir = temp_dir("7z-mt")?;
    let r = tables_7z_mt(&dir, rounds);
    // About 330 MiB of inputs and archives: never left behind.
    let _ = std::fs::remove_dir_all(&dir);
    r
}

fn tables_7z_mt(dir: &Path, rounds: usize) -> io::Result<()> {
    eprintln!("building the archive in {}…", dir.display());
    let want = scaled(200 << 20);
    let mut names = Vec::new();
    let mut total = 0u64;
    // Real text (the files of /usr/include), then mixed x86 up to the size.
    let mut text = Vec::new();
    for (_, bytes) in crate::workloads::text_files(want.min(96 << 20)) {
        text.extend_from_slice(&bytes);
    }
    for (i, part) in text.chunks(32 << 20).enumerate() {
        let name = format!("text{i}.txt");
        std::fs::write(dir.join(&name), part)?;
        total += part.len() as u64;
        names.push(name);
    }
    let mut i = 0u64;
    while (total as usize) < want {
        let n = (want - total as usize).min(32 << 20);
        let name = format!("x86-{i}.bin");
        std::fs::write(dir.join(&name), mixed_x86(n, 0x5eed + i))?;
        total += n as u64;
        names.push(name);
        i += 1;
    }
    let mut a = vec![
        "a",
        "-m0=lzma2:d=8m",
        "-mmt=4",
        "-mx3",
        "-mf=off",
        "-bsp0",
        "mt.7z",
    ];
    a.extend(names.iter().map(String::as_str));
    seven_zip(dir, &a)?;
    let arc = dir.join("mt.7z");
    let packed = std::fs::metadata(&arc)?.len();
    let title = format!(
        "solid 7z by 7zz -m0=lzma2:d=8m -mmt=4 -mx3: {} MiB in {} files, packed {packed} bytes",
        total >> 20,
        names.len()
    );
    threads_table(&title, dir, &arc, total, rounds)?;
    println!();
    non_solid_table(dir, rounds)
}

/// `<archive> <threads>`: the same with the tokio face on a current-thread
/// runtime (the workers never block it).
fn tokio_extract_mt(args: &[String]) -> io::Result<u64> {
    let threads = arg(args, 1, "threads")?
        .parse()
        .map_err(|e| io::Error::new(io::ErrorKind::InvalidInput, e))?;
    let rt = runtime()?;
    child::measure_from_here();
    rt.block_on(async {
        let f = tokio::fs::File::open(arg(args, 0, "archive")?).await?;
        let opts = lzflow_7z::ArchiveOptions::default().with_threads(threads);
        let mut a = lzflow::sevenz::AsyncArchive::open_with(f, opts).await?;
        async_walk!(a, tokio::io::AsyncReadExt::read)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn have_7zz() -> bool {
        let ok = std::process::Command::new("7zz")
            .arg("i")
            .stdout(std::process::Stdio::null())
            .status()
            .is_ok_and(|s| s.success());
        if !ok {
            eprintln!("SKIPPED: 7zz not found");
        }
        ok
    }

    /// Every extraction job decodes a 7zz-made solid archive to the exact
    /// total, the raw baseline included (so the pack stream was found).
    #[test]
    fn jobs_extract_a_7zz_archive() {
        if !have_7zz() {
            return;
        }
        let dir = temp_dir("7z-test").unwrap();
        let mut want = 0;
        for i in 0..3u64 {
            let data = mixed_x86(200_000 + i as usize, i);
            want += data.len() as u64;
            std::fs::write(dir.join(format!("f{i}")), data).unwrap();
        }
        seven_zip(
            &dir,
            &[
                "a", "-mx=3", "-mmt=1", "-md=8m", "-mf=off", "-bsp0", "a.7z", "f0", "f1", "f2",
            ],
        )
        .unwrap();
        let arc = s(&dir.join("a.7z"));
        let (offset, size) = pack_stream(Path::new(&arc)).unwrap();
        assert_eq!(offset, 32);
        let raw = [
            arc.clone(),
            offset.to_string(),
            size.to_string(),
            (8 << 20).to_string(),
        ];
        assert_eq!(liblzma_raw(&raw).unwrap(), want);
        let one = std::slice::from_ref(&arc);
        for job in [
            lzflow_extract,
            lzflow_walk,
            tokio_extract,
            tokio_walk,
            futures_extract,
            futures_walk,
        ] {
            assert_eq!(job(one).unwrap(), want);
        }
        assert_eq!(
            sevenz_rust2_extract(std::slice::from_ref(&arc)).unwrap(),
            want
        );
        // A pack size one byte short is a truncated LZMA2 stream: an error.
        let short = [
            arc,
            offset.to_string(),
            (size - 1).to_string(),
            (8 << 20).to_string(),
        ];
        assert!(liblzma_raw(&short).is_err());
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// The encrypted-header archive opens with the password and not without.
    #[test]
    fn jobs_open_an_encrypted_header() {
        if !have_7zz() {
            return;
        }
        let dir = temp_dir("7z-test-enc").unwrap();
        std::fs::write(dir.join("small.txt"), b"secret words\n".repeat(10)).unwrap();
        let pw = format!("-p{PASSWORD}");
        seven_zip(&dir, &["a", "-mhe=on", &pw, "-bsp0", "e.7z", "small.txt"]).unwrap();
        let arc = s(&dir.join("e.7z"));
        let with = [arc.clone(), PASSWORD.to_string()];
        assert_eq!(lzflow_extract(&with).unwrap(), 130);
        assert_eq!(sevenz_rust2_extract(&with).unwrap(), 130);
        assert!(lzflow_extract(std::slice::from_ref(&arc)).is_err());
        let _ = std::fs::remove_dir_all(&dir);
    }
}
