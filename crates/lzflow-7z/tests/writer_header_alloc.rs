//! Issue 6, scenario (c): an archive of 10,000 empty files with long and
//! short Unicode names, written by a process that already wrote one,
//! allocates at most twice the size of its serialised (uncompressed)
//! header. The records are kept by column and the header is streamed into
//! its encoder, so the names are held once and the header never whole.
//! One test per binary: the counting allocator sees every thread.

use std::alloc::System;
use std::io::Cursor;
use std::time::{Duration, UNIX_EPOCH};

use lzflow_7z::{
    ArchiveOptions, EntryMeta, HeaderStep, IndexBuilder, SignatureHeader, Writer, WriterOptions,
};
use stats_alloc::{Region, StatsAlloc, INSTRUMENTED_SYSTEM};

#[global_allocator]
static GLOBAL: &StatsAlloc<System> = &INSTRUMENTED_SYSTEM;

/// The bench's names: even entries short (`ü17`), odd ones 79 UTF-16 units
/// of Japanese, Latin-1, Greek and Cyrillic.
fn names(n: usize) -> Vec<String> {
    let long = "長いファイル名-ünïcödé-Ελληνικά-кириллица-".repeat(2);
    (0..n)
        .map(|i| {
            if i % 2 == 0 {
                format!("ü{i}")
            } else {
                format!("{long}{i:05}.txt")
            }
        })
        .collect()
}

/// Writes the archive into `out` (cleared, capacity kept, so the sink's
/// growth is not counted) and returns the bytes allocated meanwhile.
fn write(names: &[String], out: &mut Vec<u8>) -> usize {
    out.clear();
    let sink = Cursor::new(std::mem::take(out));
    // What add_path records for a file on disk: three times and a mode.
    let t = UNIX_EPOCH + Duration::new(1_700_000_000, 123_456_700);
    let meta = EntryMeta::default()
        .with_mtime(t)
        .with_atime(t + Duration::from_secs(60))
        .with_ctime(t - Duration::from_secs(60))
        .with_unix_mode(0o100644);
    let region = Region::new(GLOBAL);
    let mut w = Writer::with_options(sink, WriterOptions::default()).unwrap();
    for name in names {
        w.add_empty_file(name, meta.clone()).unwrap();
    }
    let sink = w.finish().unwrap();
    drop(w);
    let allocated = region.change().bytes_allocated;
    *out = sink.into_inner();
    allocated
}

/// The archive's header sizes: (uncompressed, packed stream).
fn header_sizes(archive: &[u8]) -> (u64, u64) {
    let mut b = IndexBuilder::new(ArchiveOptions::default());
    let start: &[u8; 32] = archive[..32].try_into().unwrap();
    let sig: SignatureHeader = b.start(start, Some(archive.len() as u64)).unwrap();
    let at = sig.header_position().unwrap() as usize;
    let record = &archive[at..at + sig.next_header_size as usize];
    match b.header(&sig, record).unwrap() {
        HeaderStep::Encoded(folders) => {
            let plain = folders.iter().map(|f| f.unpack_size()).sum();
            // No data: everything between the start header and the header
            // record is the packed header.
            (plain, at as u64 - 32)
        }
        HeaderStep::Index(_) => panic!("the header is not compressed"),
    }
}

#[test]
fn header_writing_allocates_at_most_twice_the_header() {
    let names = names(10_000);
    let mut out = Vec::with_capacity(1 << 20);
    let cold = write(&names, &mut out);
    let warm = write(&names, &mut out);
    let (plain, packed) = header_sizes(&out);
    eprintln!(
        "10,000 empty files: cold {cold} B, warm {warm} B; header {plain} B, packed {packed} B; \
         warm / header = {:.2}",
        warm as f64 / plain as f64
    );
    // The names alone are most of the header.
    let name_bytes: usize = names.iter().map(|n| n.encode_utf16().count() * 2 + 2).sum();
    assert!(plain as usize > name_bytes && packed < plain / 20);
    assert!(
        warm as u64 <= 2 * plain,
        "warm archive allocated {warm} B for a {plain} B header"
    );
    let a = lzflow_7z::Archive::open(Cursor::new(&out[..])).unwrap();
    assert_eq!(a.entries().len(), names.len());
    for (e, n) in a.entries().iter().zip(&names) {
        assert_eq!(&e.name, n);
        assert!(!e.is_dir && !e.has_stream);
    }
}
