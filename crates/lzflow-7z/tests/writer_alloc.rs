//! What writing one more archive allocates in a process that already wrote
//! one: with fitted encoders and pooled buffers, a small encrypted archive
//! (100 tiny files and one of 256 KiB, data and header encrypted) costs
//! less than 64 KiB of allocations beyond the key derivation and the
//! output, and an archive of many empty files allocates its header once.
//! One test per binary: the counting allocator sees every thread.

use std::alloc::System;
use std::io::Cursor;

use lzflow_7z::{EntryMeta, Solid, Writer, WriterOptions};
use stats_alloc::{Region, StatsAlloc, INSTRUMENTED_SYSTEM};

#[global_allocator]
static GLOBAL: &StatsAlloc<System> = &INSTRUMENTED_SYSTEM;

fn bytes(n: usize, seed: u64) -> Vec<u8> {
    let mut x = seed | 1;
    (0..n)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x as u8
        })
        .collect()
}

/// Writes the archive into `out` (cleared, capacity kept) and returns the
/// bytes allocated meanwhile.
fn write(files: &[(String, Vec<u8>)], opts: &WriterOptions, out: &mut Vec<u8>) -> usize {
    out.clear();
    let sink = Cursor::new(std::mem::take(out));
    let region = Region::new(GLOBAL);
    let mut w = Writer::with_options(sink, opts.clone()).unwrap();
    for (name, data) in files {
        w.add_file(name, &data[..], EntryMeta::default()).unwrap();
    }
    let sink = w.finish().unwrap();
    drop(w);
    let allocated = region.change().bytes_allocated;
    *out = sink.into_inner();
    allocated
}

#[test]
fn a_warm_writer_allocates_little() {
    let mut files: Vec<(String, Vec<u8>)> = (0..100)
        .map(|i| (format!("t{i:03}.bin"), bytes(128, i + 1)))
        .collect();
    files.push(("big.bin".to_string(), bytes(256 << 10, 999)));
    let opts = WriterOptions::default()
        .with_solid(Solid::All)
        .with_password("pw")
        .with_encrypt_header(true)
        .with_aes_cycles_power(8);
    let mut out = Vec::with_capacity(1 << 20);
    let cold = write(&files, &opts, &mut out);
    let warm = write(&files, &opts, &mut out);
    eprintln!("small encrypted archive: cold {cold} B, warm {warm} B");
    assert!(warm <= 64 << 10, "warm archive allocated {warm} bytes");
    assert!(cold > warm);
    let mut a = lzflow_7z::Archive::open_with(
        Cursor::new(&out[..]),
        lzflow_7z::ArchiveOptions::default().with_password("pw"),
    )
    .unwrap();
    assert_eq!(a.entries().len(), 101);
    let mut n = 0;
    a.for_each_entry(|e, r| {
        let mut d = Vec::new();
        std::io::Read::read_to_end(r, &mut d)?;
        let want = &files.iter().find(|f| f.0 == e.name).unwrap().1;
        assert_eq!(&d, want);
        n += 1;
        Ok(())
    })
    .unwrap();
    assert_eq!(n, 101);

    // 5,000 empty files: the warm cost is the header model (names and
    // records); the header is streamed into its encoder, whose tables are
    // pooled.
    let long = "長いファイル名-ünïcödé-".repeat(3);
    let empties: Vec<(String, Vec<u8>)> = (0..5000)
        .map(|i| (format!("{long}{i:05}"), Vec::new()))
        .collect();
    let plain_names: usize = empties
        .iter()
        .map(|(n, _)| n.encode_utf16().count() * 2 + 2)
        .sum();
    let opts = WriterOptions::default();
    write(&empties, &opts, &mut out);
    let warm = write(&empties, &opts, &mut out);
    eprintln!("5000 empty files: warm {warm} B, names in the header {plain_names} B");
    // Names are held once, in the model (UTF-8, about their UTF-16 size
    // here, in a buffer that grows by doubling); the fixed fields (a few
    // bytes per entry) add the rest. No dictionary-sized buffer is
    // allocated (the header's encoder tables alone would be several MiB).
    // writer_header_alloc.rs holds the tighter bound against the header.
    assert!(
        warm <= 4 * plain_names,
        "warm archive allocated {warm} bytes"
    );
}
