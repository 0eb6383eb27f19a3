//! LZMA2 folders with dictionary resets (as 7-Zip's multi-threaded
//! compression and lzflow's threaded writer make them) decode on several
//! threads with exactly the one-thread output and errors.

mod common;

use std::io::Cursor;
use std::process::Command;

use common::{temp_dir, text, Rng};
use lzflow_7z::{Archive, ArchiveOptions, EntryMeta, Solid, Writer, WriterOptions};

/// Every entry's name and data, in archive order, then how the walk
/// ended (`Debug` of the error).
fn walk(archive: &[u8], threads: usize) -> (Vec<(String, Vec<u8>)>, String) {
    walk_source(Cursor::new(archive), threads)
}

/// [`walk`] over any source.
fn walk_source<R: std::io::Read + std::io::Seek>(
    src: R,
    threads: usize,
) -> (Vec<(String, Vec<u8>)>, String) {
    let opts = ArchiveOptions::default().with_threads(threads);
    let mut a = match Archive::open_with(src, opts) {
        Ok(a) => a,
        Err(e) => return (Vec::new(), format!("open: {e:?}")),
    };
    let mut got = Vec::new();
    let end = a.for_each_entry(|e, r| {
        let mut data = Vec::new();
        let res = r.read_to_end(&mut data);
        got.push((e.name.clone(), data));
        res.map(|_| ())
    });
    (got, format!("{end:?}"))
}

fn inputs() -> Vec<(String, Vec<u8>)> {
    let mut rng = Rng::new(21);
    vec![
        ("big.txt".into(), text(&mut rng, 3_000_000)),
        ("noise.bin".into(), rng.bytes(300_000)),
        ("small.txt".into(), text(&mut rng, 20_000)),
        ("more.txt".into(), text(&mut rng, 1_500_000)),
    ]
}

/// lzflow's writer on 2 threads splits the one solid LZMA2 stream at
/// dictionary resets.
fn threaded_archive() -> Vec<u8> {
    let opts = WriterOptions::default()
        .with_level(1)
        .with_solid(Solid::All)
        .with_threads(2);
    let mut w = Writer::with_options(Cursor::new(Vec::new()), opts).unwrap();
    for (name, data) in inputs() {
        w.add_file(&name, &data[..], EntryMeta::default()).unwrap();
    }
    w.finish().unwrap().into_inner()
}

#[test]
fn threads_decode_lzflows_split_stream_to_the_same_entries() {
    let archive = threaded_archive();
    let want = walk(&archive, 1);
    assert_eq!(want.1, "Ok(())");
    assert_eq!(want.0, inputs());
    for threads in [2, 3, 0] {
        assert!(walk(&archive, threads) == want, "{threads} threads");
    }
}

#[test]
fn damage_gives_the_same_entries_and_error_on_any_thread_count() {
    let archive = threaded_archive();
    let mut rng = Rng::new(5);
    for _ in 0..12 {
        let mut bad = archive.clone();
        // Inside the packed data (after the 32-byte signature header,
        // before the header at the end).
        let at = 32 + rng.below(archive.len() as u64 * 9 / 10 - 32) as usize;
        bad[at] ^= 1 << rng.below(8);
        let want = walk(&bad, 1);
        let got = walk(&bad, 2);
        assert_eq!(got.1, want.1, "byte {at}");
        assert!(got.0 == want.0, "byte {at}: entries differ");
    }
}

#[test]
fn threads_decode_what_7zz_compressed_on_several_threads() {
    let ok = Command::new("7zz")
        .arg("i")
        .output()
        .is_ok_and(|o| o.status.success());
    if !ok {
        eprintln!("SKIPPED: 7zz is not installed (CI installs it; apt-get install 7zip)");
        return;
    }
    let dir = temp_dir("mt-decode-7zz");
    let src = dir.join("src");
    std::fs::create_dir_all(&src).unwrap();
    for (name, data) in inputs() {
        std::fs::write(src.join(&name), data).unwrap();
    }
    let archive = dir.join("out.7z");
    // A small dictionary: 7-Zip's blocks (each from a reset) are a few
    // dictionaries long, so the stream has several.
    let out = Command::new("7zz")
        .current_dir(&src)
        .args([
            "a",
            "-bd",
            "-y",
            "-m0=lzma2:d=256k",
            "-mmt=4",
            "-mx3",
            "-ms=on",
        ])
        .arg(&archive)
        .args(["big.txt", "noise.bin", "small.txt", "more.txt"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let bytes = std::fs::read(&archive).unwrap();
    let want = walk(&bytes, 1);
    assert_eq!(want.1, "Ok(())");
    let mut sorted = want.0.clone();
    sorted.sort();
    let mut expected = inputs();
    expected.sort();
    assert!(sorted == expected, "7zz's archive reads back");
    assert!(walk(&bytes, 2) == want, "2 threads");
}

/// Many small files, one folder each (and a directory and an empty file
/// between them), some folders larger than others.
fn non_solid_archive() -> (Vec<u8>, Vec<(String, Vec<u8>)>) {
    let mut rng = Rng::new(33);
    let opts = WriterOptions::default()
        .with_level(1)
        .with_solid(Solid::Files(1));
    let mut w = Writer::with_options(Cursor::new(Vec::new()), opts).unwrap();
    let mut files = Vec::new();
    for i in 0..120 {
        let n = match i % 7 {
            0 => 200_000,
            3 => 0,
            _ => 1_000 + (i * 977) % 30_000,
        };
        let name = format!("d{}/f{i:03}.txt", i % 5);
        let data = text(&mut rng, n);
        w.add_file(&name, &data[..], EntryMeta::default()).unwrap();
        files.push((name, data));
        if i == 50 {
            w.add_dir("d-empty", EntryMeta::default()).unwrap();
            files.push(("d-empty".into(), Vec::new()));
        }
    }
    (w.finish().unwrap().into_inner(), files)
}

#[test]
fn folders_decode_side_by_side_in_archive_order() {
    let (archive, files) = non_solid_archive();
    let want = walk(&archive, 1);
    assert_eq!(want.1, "Ok(())");
    assert!(want.0 == files);
    for threads in [2, 3, 0] {
        assert!(walk(&archive, threads) == want, "{threads} threads");
    }
}

#[test]
fn damaged_folders_give_the_same_entries_and_error_on_threads() {
    let (archive, _) = non_solid_archive();
    let mut rng = Rng::new(8);
    for _ in 0..16 {
        let mut bad = archive.clone();
        let at = 32 + rng.below(archive.len() as u64 * 9 / 10 - 32) as usize;
        bad[at] ^= 1 << rng.below(8);
        let want = walk(&bad, 1);
        let got = walk(&bad, 3);
        assert_eq!(got.1, want.1, "byte {at}");
        assert!(got.0 == want.0, "byte {at}: entries differ");
    }
}

#[test]
fn a_later_folder_over_the_memory_limit_fails_where_one_thread_fails() {
    // Small files first (their dictionaries fit the limit), then one whose
    // dictionary does not: the walk delivers the small ones, then fails.
    let mut rng = Rng::new(41);
    let opts = WriterOptions::default()
        .with_level(5)
        .with_solid(Solid::Files(1));
    let mut w = Writer::with_options(Cursor::new(Vec::new()), opts).unwrap();
    for i in 0..3 {
        w.add_file(
            &format!("s{i}"),
            &text(&mut rng, 2_000)[..],
            EntryMeta::default(),
        )
        .unwrap();
    }
    w.add_file("big", &text(&mut rng, 3_000_000)[..], EntryMeta::default())
        .unwrap();
    let archive = w.finish().unwrap().into_inner();
    let limited = |threads| {
        ArchiveOptions::default()
            .with_threads(threads)
            .with_limits(lzflow_core::Limits::NONE.with_memory(1 << 20))
    };
    let walk_with = |opts: ArchiveOptions| {
        let mut a = Archive::open_with(Cursor::new(&archive), opts).unwrap();
        let mut names = Vec::new();
        let end = a.for_each_entry(|e, r| {
            names.push(e.name.clone());
            std::io::copy(r, &mut std::io::sink()).map(|_| ())
        });
        (names, format!("{end:?}"))
    };
    let want = walk_with(limited(1));
    assert_eq!(want.0, ["s0", "s1", "s2"], "{}", want.1);
    assert!(want.1.contains("Limit"), "{}", want.1);
    assert_eq!(walk_with(limited(3)), want);
}

/// A source that counts its seeks.
struct CountingSeeks<R> {
    inner: R,
    seeks: std::sync::Arc<std::sync::atomic::AtomicUsize>,
}

impl<R: std::io::Read> std::io::Read for CountingSeeks<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        self.inner.read(buf)
    }
}

impl<R: std::io::Seek> std::io::Seek for CountingSeeks<R> {
    fn seek(&mut self, pos: std::io::SeekFrom) -> std::io::Result<u64> {
        self.seeks
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        self.inner.seek(pos)
    }
}

/// Folders ahead of the walk are read in runs, with one seek per run
/// (over `tokio::fs` each seek and read is a trip to the blocking pool),
/// not one per folder.
#[test]
fn folders_ahead_are_read_in_runs() {
    let (archive, files) = non_solid_archive();
    let folders = files.iter().filter(|(_, d)| !d.is_empty()).count();
    // The seeks of a source's open, then of an open and a walk.
    let seeks = |walk: bool| {
        let seeks = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
        let src = CountingSeeks {
            inner: Cursor::new(&archive),
            seeks: seeks.clone(),
        };
        if walk {
            let (got, end) = walk_source(src, 2);
            assert_eq!(end, "Ok(())");
            assert!(got == files);
        } else {
            Archive::open_with(src, ArchiveOptions::default().with_threads(2)).unwrap();
        }
        seeks.load(std::sync::atomic::Ordering::Relaxed)
    };
    let walked = seeks(true) - seeks(false);
    assert!(walked * 8 < folders, "{walked} seeks for {folders} folders");
}

/// Folders larger than a read run (incompressible, about 1 MiB packed
/// each) are read several to a run and one run after another: the same
/// entries as one thread, whole or damaged.
#[test]
fn large_folders_read_in_runs_give_the_one_thread_entries() {
    let mut rng = Rng::new(57);
    let opts = WriterOptions::default()
        .with_level(1)
        .with_solid(Solid::Files(1));
    let mut w = Writer::with_options(Cursor::new(Vec::new()), opts).unwrap();
    for i in 0..14 {
        let data = rng.bytes(900_000 + i * 10_000);
        w.add_file(&format!("r{i:02}"), &data[..], EntryMeta::default())
            .unwrap();
    }
    let archive = w.finish().unwrap().into_inner();
    let want = walk(&archive, 1);
    assert_eq!(want.1, "Ok(())");
    assert_eq!(want.0.len(), 14);
    for threads in [2, 3] {
        assert!(walk(&archive, threads) == want, "{threads} threads");
    }
    let mut bad = archive.clone();
    // Inside the seventh folder's packed stream.
    let at = 32 + 6 * 930_000 + 1_000;
    bad[at] ^= 0x40;
    let want = walk(&bad, 1);
    assert_ne!(want.1, "Ok(())", "the damage is found");
    let got = walk(&bad, 2);
    assert_eq!(got.1, want.1);
    assert!(got.0 == want.0, "entries differ");
}
