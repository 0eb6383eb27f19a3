//! Allocation per entry: a warm read of many small entries allocates next
//! to nothing per entry beyond its output (the central directory is one
//! buffer and borrowed views; inflaters and read buffers are reused); a
//! warm write allocates less than twice its central directory.

use std::io::{Cursor, Read, Write};

use lzflow_zip::{ZipArchive, ZipOptions, ZipStreamReader};
use stats_alloc::{Region, StatsAlloc, INSTRUMENTED_SYSTEM};

#[global_allocator]
static GLOBAL: &StatsAlloc<std::alloc::System> = &INSTRUMENTED_SYSTEM;

const ENTRIES: usize = 2000;

/// A zip of `ENTRIES` small Deflate entries, written by hand (local
/// headers, central directory, end record).
fn archive() -> Vec<u8> {
    let mut out = Vec::new();
    let mut central = Vec::new();
    for i in 0..ENTRIES {
        let name = format!("dir/{i:06}.txt");
        let data = format!("entry {i}\n").repeat(3);
        let mut e = flate2::write::DeflateEncoder::new(Vec::new(), flate2::Compression::fast());
        e.write_all(data.as_bytes()).unwrap();
        let packed = e.finish().unwrap();
        let crc = crc32fast::hash(data.as_bytes());
        let offset = out.len() as u32;
        let fields = |buf: &mut Vec<u8>| {
            buf.extend_from_slice(&20u16.to_le_bytes());
            buf.extend_from_slice(&0u16.to_le_bytes());
            buf.extend_from_slice(&8u16.to_le_bytes());
            buf.extend_from_slice(&[0; 4]);
            buf.extend_from_slice(&crc.to_le_bytes());
            buf.extend_from_slice(&(packed.len() as u32).to_le_bytes());
            buf.extend_from_slice(&(data.len() as u32).to_le_bytes());
            buf.extend_from_slice(&(name.len() as u16).to_le_bytes());
            buf.extend_from_slice(&0u16.to_le_bytes());
        };
        out.extend_from_slice(b"PK\x03\x04");
        fields(&mut out);
        out.extend_from_slice(name.as_bytes());
        out.extend_from_slice(&packed);
        central.extend_from_slice(b"PK\x01\x02\x14\x00");
        fields(&mut central);
        central.extend_from_slice(&[0; 6]);
        central.extend_from_slice(&0u32.to_le_bytes());
        central.extend_from_slice(&offset.to_le_bytes());
        central.extend_from_slice(name.as_bytes());
    }
    let cd = out.len() as u32;
    out.extend_from_slice(&central);
    out.extend_from_slice(b"PK\x05\x06\0\0\0\0");
    out.extend_from_slice(&(ENTRIES as u16).to_le_bytes());
    out.extend_from_slice(&(ENTRIES as u16).to_le_bytes());
    out.extend_from_slice(&(central.len() as u32).to_le_bytes());
    out.extend_from_slice(&cd.to_le_bytes());
    out.extend_from_slice(&0u16.to_le_bytes());
    out
}

/// Reads every entry with `ZipArchive` into one reused buffer: bytes
/// allocated per entry for opening (the directory) and for reading.
fn read_seekable(zip: &[u8], out: &mut Vec<u8>) -> (usize, usize) {
    let open = Region::new(GLOBAL);
    let mut a = ZipArchive::open_with(Cursor::new(zip), ZipOptions::new()).unwrap();
    let opening = open.change().bytes_allocated / ENTRIES;
    let reading = Region::new(GLOBAL);
    for i in 0..a.len() {
        out.clear();
        a.reader(i).unwrap().read_to_end(out).unwrap();
    }
    (opening, reading.change().bytes_allocated / ENTRIES)
}

/// Reads every entry forward-only into one reused buffer: bytes allocated
/// per entry (nothing is opened first).
fn read_stream(zip: &[u8], out: &mut Vec<u8>) -> (usize, usize) {
    let reading = Region::new(GLOBAL);
    let mut z = ZipStreamReader::new(zip);
    while let Some(mut e) = z.next_entry().unwrap() {
        out.clear();
        e.read_to_end(out).unwrap();
    }
    (0, reading.change().bytes_allocated / ENTRIES)
}

/// The measurements of this binary count the one global allocator, which
/// the test harness's own thread uses too (it records a finished test's
/// result and output): so they run in one test, one after the other, with
/// no other test to finish meanwhile.
#[test]
fn warm_reads_and_writes_allocate_little() {
    a_warm_read_allocates_little_per_entry();
    a_warm_write_allocates_less_than_twice_its_central_directory();
}

fn a_warm_read_allocates_little_per_entry() {
    let zip = archive();
    let mut out = Vec::with_capacity(1 << 16);
    for (what, read) in [
        (
            "ZipArchive",
            read_seekable as fn(&[u8], &mut Vec<u8>) -> (usize, usize),
        ),
        ("ZipStreamReader", read_stream),
    ] {
        read(&zip, &mut out); // warm: pools and buffers filled
        let (opening, reading) = read(&zip, &mut out);
        eprintln!("{what}: {reading} bytes allocated per entry read, {opening} per entry to open");
        assert!(reading <= 64, "{what}: {reading}");
        // The central directory is one buffer of its records and one
        // 4-byte offset per entry; the layout check sorts 16 bytes per
        // entry, then frees them.
        assert!(opening <= 128, "{what}: {opening}");
    }
}

/// Writes 64 entries of 4 KiB at Deflate 6 with times into `sink` (room
/// reserved, so the output's growth is not counted): allocated bytes and
/// the archive's central directory size.
fn write_archive(sink: Vec<u8>) -> (usize, usize) {
    use lzflow_zip::{EntryOptions, WriteMethod, ZipWriter};
    let data: Vec<u8> = (0..4096u32)
        .map(|i| (i.wrapping_mul(2_654_435_761) >> 24) as u8)
        .collect();
    let options = EntryOptions::default()
        .with_method(WriteMethod::Deflate, 6)
        .with_mtime(std::time::UNIX_EPOCH + std::time::Duration::from_secs(1_700_000_000));
    let writing = Region::new(GLOBAL);
    let mut w = ZipWriter::new(Cursor::new(sink)).unwrap();
    for i in 0..64 {
        w.add_file(&format!("dir/{i:06}.bin"), &data[..], &options)
            .unwrap();
    }
    let zip = w.finish().unwrap().into_inner();
    let allocated = writing.change().bytes_allocated;
    let end = &zip[zip.len() - 22..];
    let central = u32::from_le_bytes(end[12..16].try_into().unwrap()) as usize;
    (allocated, central)
}

fn a_warm_write_allocates_less_than_twice_its_central_directory() {
    // The first archive warms the pools (deflater, buffers).
    write_archive(Vec::with_capacity(1 << 20));
    let sink = Vec::with_capacity(1 << 20);
    let (allocated, central) = write_archive(sink);
    // Each entry's name, formatted here, is the test's (14 bytes, in
    // a 16-byte allocation at most).
    let names = 64 * 16;
    eprintln!("ZipWriter: {allocated} bytes allocated, central directory {central}");
    assert!(
        allocated - names <= 2 * central,
        "{allocated} bytes allocated for a central directory of {central}"
    );
}
