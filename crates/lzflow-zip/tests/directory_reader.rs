//! `CentralDirectoryReader`, the listing that streams the central
//! directory through one window, against `ZipArchive`'s held directory:
//! the same records on every corpus archive and on archives whose records
//! cross window boundaries or outgrow the window; the same error for a
//! damaged record; memory of one window whatever the entry count.

use std::io::Cursor;

use lzflow_zip::{
    CentralDirectoryReader, CentralEntry, EntryOptions, ZipArchive, ZipError, ZipOptions,
    ZipWriter, ZipWriterOptions,
};

mod common;
use common::{Rng, CORPUS};

/// Everything a record says, as owned values.
#[derive(Debug, PartialEq, Eq)]
struct Record {
    name: Vec<u8>,
    extra: Vec<u8>,
    comment: Vec<u8>,
    method: u16,
    flags: u16,
    crc32: u32,
    compressed: u64,
    uncompressed: u64,
    offset: u64,
    external: u32,
}

fn record(e: &CentralEntry<'_>) -> Record {
    Record {
        name: e.name_bytes().to_vec(),
        extra: e.extra_bytes().to_vec(),
        comment: e.comment_bytes().to_vec(),
        method: e.method(),
        flags: e.flags(),
        crc32: e.crc32(),
        compressed: e.compressed_size(),
        uncompressed: e.uncompressed_size(),
        offset: e.local_header_offset(),
        external: e.external_attributes(),
    }
}

fn held(bytes: &[u8]) -> Result<Vec<Record>, ZipError> {
    let a = ZipArchive::open_with(Cursor::new(bytes), ZipOptions::new())?;
    Ok(a.directory().iter().map(|e| record(&e)).collect())
}

/// The streamed listing: the records before the first error, and the
/// error.
fn streamed(bytes: &[u8]) -> (Vec<Record>, Result<(), ZipError>) {
    let mut out = Vec::new();
    let mut list = match CentralDirectoryReader::open(Cursor::new(bytes)) {
        Ok(list) => list,
        Err(e) => return (out, Err(e)),
    };
    loop {
        match list.next_entry() {
            Ok(Some(e)) => out.push(record(&e)),
            Ok(None) => return (out, Ok(())),
            Err(e) => {
                // Failed for good.
                assert!(list.next_entry().is_err());
                return (out, Err(e));
            }
        }
    }
}

/// Errors only the held directory reports: the entries' data layout.
fn layout_error(e: &ZipError) -> bool {
    let text = e.to_string();
    text.contains("overlap") || text.contains("runs into the central directory")
}

/// The streamed listing says what `ZipArchive` says: the same records, or
/// the same error (`ZipArchive` alone checks the data layout).
fn check_same(bytes: &[u8], what: &str) {
    let (records, end) = streamed(bytes);
    match (held(bytes), end) {
        (Ok(want), Ok(())) => assert_eq!(records, want, "{what}"),
        (Err(want), Err(got)) => assert_eq!(got.to_string(), want.to_string(), "{what}"),
        (Err(want), Ok(())) => assert!(layout_error(&want), "{what}: only held fails: {want}"),
        (Ok(_), Err(got)) => panic!("{what}: only streamed fails: {got}"),
    }
}

fn corpus_files() -> Vec<std::path::PathBuf> {
    let mut files = Vec::new();
    for dir in [
        "7zz", "bad", "bsdtar", "crafted", "infozip", "java", "python",
    ] {
        for e in std::fs::read_dir(format!("{CORPUS}{dir}")).unwrap() {
            let path = e.unwrap().path();
            if path.extension().is_some_and(|x| x == "zip") {
                files.push(path);
            }
        }
    }
    files.sort();
    files
}

#[test]
fn every_corpus_archive_lists_as_the_held_directory() {
    let files = corpus_files();
    assert!(files.len() > 40, "{} archives", files.len());
    let mut listed = 0;
    for path in &files {
        let bytes = std::fs::read(path).unwrap();
        check_same(&bytes, &path.display().to_string());
        listed += usize::from(held(&bytes).is_ok());
    }
    assert!(listed > 30, "{listed} archives listed");
}

/// An archive of `n` entries with names of varied lengths (so records end
/// at every offset of a window), some with entry comments.
fn many(n: usize, seed: u64) -> Vec<u8> {
    let mut rng = Rng(seed);
    let mut w = ZipWriter::new(Cursor::new(Vec::new())).unwrap();
    for i in 0..n {
        let name = format!(
            "d{}/{}-{}",
            i % 7,
            "x".repeat((rng.next() % 90) as usize),
            i
        );
        let mut opts = EntryOptions::default();
        if i % 5 == 0 {
            opts = opts.with_comment(format!("entry {i}"));
        }
        let len = (rng.next() % 40) as usize;
        let data = rng.bytes(len);
        w.add_file(&name, &data[..], &opts).unwrap();
    }
    w.finish().unwrap().into_inner()
}

#[test]
fn records_across_many_windows() {
    let bytes = many(3000, 7);
    let (records, end) = streamed(&bytes);
    end.unwrap();
    assert_eq!(records.len(), 3000);
    assert_eq!(records, held(&bytes).unwrap());
}

#[test]
fn a_record_longer_than_the_window_grows_it() {
    let mut w = ZipWriter::new(Cursor::new(Vec::new())).unwrap();
    w.add_file("first", &b"1"[..], &EntryOptions::default())
        .unwrap();
    let long = "n".repeat(65_000);
    let comment = "c".repeat(65_000);
    w.add_file(
        &long,
        &b"22"[..],
        &EntryOptions::default().with_comment(comment.clone()),
    )
    .unwrap();
    w.add_file("last", &b"333"[..], &EntryOptions::default())
        .unwrap();
    let bytes = w.finish().unwrap().into_inner();
    let (records, end) = streamed(&bytes);
    end.unwrap();
    assert_eq!(records.len(), 3);
    assert_eq!(records[1].name, long.as_bytes());
    assert_eq!(records[1].comment, comment.as_bytes());
    assert_eq!(records, held(&bytes).unwrap());
}

/// The central directory's offset and size, from the end record (the
/// writer's archives here have no archive comment and no Zip64).
fn directory_span(bytes: &[u8]) -> (usize, usize) {
    let eocd = bytes.len() - 22;
    assert_eq!(&bytes[eocd..eocd + 4], b"PK\x05\x06");
    let u32_at = |at: usize| u32::from_le_bytes(bytes[at..at + 4].try_into().unwrap()) as usize;
    (u32_at(eocd + 16), u32_at(eocd + 12))
}

#[test]
fn damaged_directories_fail_as_the_held_directory_fails() {
    let bytes = many(400, 11);
    let (start, size) = directory_span(&bytes);
    let mut rng = Rng(5);
    for round in 0..600 {
        let mut b = bytes.clone();
        for _ in 0..1 + rng.next() % 3 {
            let at = start + (rng.next() as usize) % size;
            b[at] = match rng.next() % 3 {
                0 => b[at] ^ (1 << (rng.next() % 8)),
                1 => 0xFF,
                _ => rng.next() as u8,
            };
        }
        check_same(&b, &format!("mutation round {round}"));
    }
}

#[test]
fn trailing_bytes_and_short_counts_are_errors() {
    let bytes = many(20, 3);
    let (start, size) = directory_span(&bytes);
    let eocd = bytes.len() - 22;
    // One record fewer counted than written: the last record's bytes are
    // left over.
    let mut b = bytes.clone();
    for at in [eocd + 8, eocd + 10] {
        b[at..at + 2].copy_from_slice(&19u16.to_le_bytes());
    }
    let (records, end) = streamed(&b);
    assert_eq!(records.len(), 19);
    let err = end.unwrap_err().to_string();
    assert!(err.contains("follow the last of the 19"), "{err}");
    check_same(&b, "one record fewer");
    // One record more counted than written.
    let mut b = bytes.clone();
    for at in [eocd + 8, eocd + 10] {
        b[at..at + 2].copy_from_slice(&21u16.to_le_bytes());
    }
    let (records, end) = streamed(&b);
    assert_eq!(records.len(), 20);
    assert!(matches!(end, Err(ZipError::Corrupt(_))), "{end:?}");
    check_same(&b, "one record more");
    // The directory cut short by its stated size.
    let mut b = bytes.clone();
    b[eocd + 12..eocd + 16].copy_from_slice(&((size - 10) as u32).to_le_bytes());
    check_same(&b, "directory size 10 short");
    assert!(start > 0);
}

#[test]
fn caps_apply_before_reading_the_directory() {
    let bytes = many(50, 9);
    let opts = ZipOptions::new().with_max_entries(49);
    let err = CentralDirectoryReader::open_with(Cursor::new(&bytes), &opts).unwrap_err();
    assert!(matches!(err, ZipError::Limit(_)), "{err:?}");
    let opts = ZipOptions::new().with_max_directory_size(100);
    let err = CentralDirectoryReader::open_with(Cursor::new(&bytes), &opts).unwrap_err();
    assert!(matches!(err, ZipError::Limit(_)), "{err:?}");
    let err = CentralDirectoryReader::open(Cursor::new(&b"not a zip"[..])).unwrap_err();
    assert!(matches!(err, ZipError::NotZip), "{err:?}");
}

#[test]
fn location_and_comment_come_from_the_end_record() {
    let opts = ZipWriterOptions::new().with_comment("archive comment");
    let mut w = ZipWriter::new_with(Cursor::new(Vec::new()), opts).unwrap();
    w.add_file("a", &b"x"[..], &EntryOptions::default())
        .unwrap();
    let bytes = w.finish().unwrap().into_inner();
    let list = CentralDirectoryReader::open(Cursor::new(&bytes)).unwrap();
    assert_eq!(list.location().entries, 1);
    assert_eq!(list.location().comment, b"archive comment");
}
