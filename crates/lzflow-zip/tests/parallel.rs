//! Compression on several threads: the archive's bytes are those of one
//! thread, whatever the number of threads, the method, the sink and the
//! sizes of the caller's writes; the memory budget bounds what is in
//! flight; a failing entry fails the archive in its place.

use std::io::{Cursor, Write};

use lzflow_zip::{
    EntryOptions, WriteMethod, ZipArchive, ZipError, ZipStreamReader, ZipWriter, ZipWriterOptions,
};

mod common;
use common::Rng;

/// Sizes on both sides of what one thread holds (64 KiB), of
/// `store_if_larger`'s look (1 MiB), of what goes to a worker whole (the
/// job limit: 1 MiB with the 4 MiB budget used below) and of `INLINE`.
const SIZES: [usize; 10] = [
    0, 1, 4096, 4097, 30_000, 65_536, 65_537, 300_000, 1_048_577, 1_500_000,
];

/// The entries: text and random data of every size, and a directory.
fn entries(seed: u64) -> Vec<(String, Vec<u8>)> {
    let mut rng = Rng(seed);
    SIZES
        .iter()
        .enumerate()
        .map(|(i, &n)| {
            let data = if i % 3 == 2 {
                rng.bytes(n)
            } else {
                rng.text(n)
            };
            (format!("e{i:02}-{n}"), data)
        })
        .collect()
}

/// The archive of `entries` written on `threads` threads, each entry's data
/// pushed in writes of `piece` bytes.
fn archive(
    entries: &[(String, Vec<u8>)],
    options: &EntryOptions,
    threads: usize,
    seekable: bool,
    piece: usize,
) -> Vec<u8> {
    fn fill<W: Write>(
        mut w: ZipWriter<W>,
        entries: &[(String, Vec<u8>)],
        options: &EntryOptions,
        piece: usize,
    ) -> W {
        w.add_directory("d", options).unwrap();
        for (name, data) in entries {
            w.start_entry(name, options).unwrap();
            for p in data.chunks(piece) {
                w.write_all(p).unwrap();
            }
        }
        w.finish().unwrap()
    }
    let o = ZipWriterOptions::new()
        .with_threads(threads)
        .with_memory_budget(4 << 20);
    if seekable {
        let w = ZipWriter::new_with(Cursor::new(Vec::new()), o).unwrap();
        fill(w, entries, options, piece).into_inner()
    } else {
        fill(
            ZipWriter::new_streaming_with(Vec::new(), o).unwrap(),
            entries,
            options,
            piece,
        )
    }
}

fn read_back(zip: &[u8]) -> Vec<(String, Vec<u8>)> {
    let mut a = ZipArchive::open(Cursor::new(zip)).unwrap();
    let mut got = Vec::new();
    for i in 0..a.len() {
        let name = a.directory().get(i).unwrap().name().to_string();
        let mut r = a.reader(i).unwrap();
        let mut data = Vec::new();
        std::io::Read::read_to_end(&mut r, &mut data).unwrap();
        got.push((name, data));
    }
    got
}

#[test]
fn the_bytes_do_not_depend_on_the_threads_nor_on_the_write_sizes() {
    let entries = entries(11);
    let mut want: Vec<(String, Vec<u8>)> = vec![("d/".into(), Vec::new())];
    want.extend(entries.iter().cloned());
    let cases = [
        (WriteMethod::Stored, 0, false),
        (WriteMethod::Deflate, 0, false),
        (WriteMethod::Deflate, 1, false),
        (WriteMethod::Deflate, 6, true),
        (WriteMethod::Deflate, 9, false),
        (WriteMethod::BZip2, 9, false),
        (WriteMethod::Lzma, 1, true),
        (WriteMethod::Xz, 1, false),
    ];
    for (method, level, store_if_larger) in cases {
        let options = EntryOptions::default()
            .with_method(method, level)
            .with_store_if_larger(store_if_larger);
        for seekable in [true, false] {
            let what =
                format!("{method:?} {level} store_if_larger {store_if_larger} seekable {seekable}");
            let one = archive(&entries, &options, 1, seekable, 65_536);
            assert_eq!(read_back(&one), want, "{what}");
            for (threads, piece) in [(1, 7_919), (2, 65_536), (3, 1 << 20), (2, 1_000)] {
                let many = archive(&entries, &options, threads, seekable, piece);
                assert!(
                    many == one,
                    "{what}: {threads} threads, writes of {piece} bytes: other bytes"
                );
            }
        }
    }
}

#[test]
fn streamed_output_reads_forward_only() {
    let entries = entries(12);
    let options = EntryOptions::default().with_method(WriteMethod::Deflate, 6);
    let zip = archive(&entries, &options, 2, false, 65_536);
    let mut z = ZipStreamReader::new(&zip[..]);
    let mut got = Vec::new();
    while let Some(mut e) = z.next_entry().unwrap() {
        let name = e.local().name().to_string();
        let mut data = Vec::new();
        std::io::Read::read_to_end(&mut e, &mut data).unwrap();
        got.push((name, data));
    }
    assert_eq!(got.len(), entries.len() + 1);
    assert_eq!(&got[1..], &entries[..]);
}

/// A sink that records the most bytes the writer's process had allocated
/// ... is not portable; what can be checked is that entries in flight
/// never pass the budget: with a budget too small for two entries, each
/// waits for the one before it, and the archive is still the same.
#[test]
fn a_tiny_budget_serialises_and_changes_nothing() {
    let entries = entries(13);
    let options = EntryOptions::default().with_method(WriteMethod::Deflate, 6);
    let one = archive(&entries, &options, 1, true, 65_536);
    let o = ZipWriterOptions::new()
        .with_threads(4)
        .with_memory_budget(1);
    let mut w = ZipWriter::new_with(Cursor::new(Vec::new()), o).unwrap();
    w.add_directory("d", &options).unwrap();
    for (name, data) in &entries {
        w.add_file(name, &data[..], &options).unwrap();
    }
    assert_eq!(w.finish().unwrap().into_inner(), one);
}

#[test]
fn an_entry_that_fails_on_a_worker_fails_the_archive_in_its_place() {
    let data = Rng(4).text(100_000);
    let crc = crc32fast::hash(&data);
    let o = ZipWriterOptions::new().with_threads(2);
    let mut w = ZipWriter::new_streaming_with(Vec::new(), o).unwrap();
    let good = EntryOptions::default();
    // Stored with a wrong CRC-32 given ahead: found when compressed.
    let bad = EntryOptions::default()
        .with_method(WriteMethod::Stored, 0)
        .with_size_and_crc(data.len() as u64, crc ^ 1);
    w.add_file("a", &data[..], &good).unwrap();
    w.add_file("b", &data[..], &bad).unwrap();
    let r = w
        .add_file("c", &data[..], &good)
        .and_then(|()| w.finish().map(drop));
    assert!(
        matches!(r, Err(ZipError::Usage(ref m)) if m.contains("\"b\"")),
        "{r:?}"
    );
}
