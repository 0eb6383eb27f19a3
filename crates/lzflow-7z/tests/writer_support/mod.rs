//! Helpers shared by the writer tests: archive trees, writing them,
//! reading them back through lzflow's reader, and running `7zz`.
#![allow(dead_code)]

use std::io::Cursor;

use std::path::PathBuf;
use std::process::Command;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use lzflow_7z::{Archive, ArchiveOptions, EntryMeta, SevenZError, Writer, WriterOptions};

/// What an entry of a test tree is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Kind {
    /// A file with data (possibly empty: written through `add_file`).
    File(Vec<u8>),
    /// A directory.
    Dir,
    /// An empty file written through `add_empty_file`.
    Empty,
}

/// One entry of a test tree.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Item {
    /// Name in the archive.
    pub name: String,
    /// File, directory or empty file.
    pub kind: Kind,
    /// Modification time, whole seconds after 2001 plus 100 ns ticks.
    pub mtime: Option<SystemTime>,
}

impl Item {
    /// A file with data.
    pub fn file(name: &str, data: Vec<u8>) -> Self {
        Item {
            name: name.to_string(),
            kind: Kind::File(data),
            mtime: None,
        }
    }
    /// A directory.
    pub fn dir(name: &str) -> Self {
        Item {
            name: name.to_string(),
            kind: Kind::Dir,
            mtime: None,
        }
    }
    /// The data the reader should give back.
    pub fn data(&self) -> &[u8] {
        match &self.kind {
            Kind::File(d) => d,
            _ => &[],
        }
    }
}

/// A time with 100 ns precision (what a FILETIME keeps).
pub fn time(secs: u64, ticks: u32) -> SystemTime {
    UNIX_EPOCH + Duration::new(secs, ticks * 100)
}

/// Writes `items` with `opts` into `sink`.
pub fn write_into<W: std::io::Write + std::io::Seek>(
    sink: W,
    items: &[Item],
    opts: WriterOptions,
) -> Result<W, SevenZError> {
    let mut w = Writer::with_options(sink, opts)?;
    for it in items {
        let mut meta = EntryMeta::default();
        if let Some(t) = it.mtime {
            meta = meta.with_mtime(t);
        }
        match &it.kind {
            Kind::File(d) => w.add_file(&it.name, &d[..], meta)?,
            Kind::Dir => w.add_dir(&it.name, meta)?,
            Kind::Empty => w.add_empty_file(&it.name, meta)?,
        }
    }
    w.finish()
}

/// Writes `items` with `opts` into memory.
pub fn write_archive(items: &[Item], opts: WriterOptions) -> Vec<u8> {
    write_into(Cursor::new(Vec::new()), items, opts)
        .expect("writing the archive")
        .into_inner()
}

/// One entry as lzflow's reader sees it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReadBack {
    /// Stored name.
    pub name: String,
    /// Directory flag.
    pub is_dir: bool,
    /// Data.
    pub data: Vec<u8>,
    /// Modification time.
    pub mtime: Option<SystemTime>,
}

/// Opens `bytes` with lzflow's reader and reads every entry.
pub fn read_archive(bytes: &[u8], password: Option<&str>) -> Result<Vec<ReadBack>, SevenZError> {
    let mut opts = ArchiveOptions::default();
    if let Some(p) = password {
        opts = opts.with_password(p);
    }
    let mut a = Archive::open_with(Cursor::new(bytes), opts)?;
    let mut out = Vec::new();
    a.for_each_entry(|e, r| {
        let mut data = Vec::new();
        r.read_to_end(&mut data)?;
        out.push(ReadBack {
            name: e.name.clone(),
            is_dir: e.is_dir,
            data,
            mtime: e.mtime(),
        });
        Ok(())
    })?;
    Ok(out)
}

/// What the reader should give back for `items`.
pub fn expected(items: &[Item]) -> Vec<ReadBack> {
    items
        .iter()
        .map(|it| ReadBack {
            name: it.name.clone(),
            is_dir: it.kind == Kind::Dir,
            data: it.data().to_vec(),
            mtime: it.mtime,
        })
        .collect()
}

/// True when `7zz` runs; prints a skip note otherwise.
pub fn have_7zz() -> bool {
    let ok = Command::new("7zz")
        .arg("i")
        .output()
        .is_ok_and(|o| o.status.success());
    if !ok {
        eprintln!("SKIPPED: 7zz is not installed (apt-get install 7zip)");
    }
    ok
}

/// Runs `7zz` with `args`; returns (success, stdout + stderr).
pub fn run_7zz(args: &[&str]) -> (bool, String) {
    let out = Command::new("7zz")
        .args(args)
        .output()
        .expect("running 7zz");
    let mut text = String::from_utf8_lossy(&out.stdout).into_owned();
    text.push_str(&String::from_utf8_lossy(&out.stderr));
    (out.status.success(), text)
}

/// A fresh empty directory under the system temp dir.
pub fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("lzflow-7z-writer-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Seeded pseudo-random bytes (xorshift), mixed with runs so they
/// compress somewhat.
pub fn data(seed: u64, n: usize) -> Vec<u8> {
    let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    let mut out = Vec::with_capacity(n);
    while out.len() < n {
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        let r = x.wrapping_mul(0x2545_F491_4F6C_DD1D);
        if r.is_multiple_of(4) {
            let run = (r >> 8) as usize % 40;
            out.extend(std::iter::repeat_n((r >> 16) as u8, run));
        } else {
            out.extend_from_slice(&r.to_le_bytes());
        }
    }
    out.truncate(n);
    out
}
