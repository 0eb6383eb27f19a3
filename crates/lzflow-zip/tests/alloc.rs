//! Allocation per entry: a warm read of many small entries allocates next
//! to nothing per entry beyond its output (the central directory is one
//! buffer and borrowed views; inflaters and read buffers are reused).

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

#[test]
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
