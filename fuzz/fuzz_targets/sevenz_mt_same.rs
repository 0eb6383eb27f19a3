//! A 7z archive read on two threads and on one: the same entries, bytes
//! and errors. The archive is written here from the fuzzer's bytes (files
//! split at 0xFF, LZMA2 or LZMA, in folders of one file, two files, or
//! all), then damaged where the fuzzer says; or, with the top bit of the
//! first byte set, the raw bytes. On threads, folders are read ahead in
//! runs and decoded side by side.
//!
//! Layout: `[knobs, damage count, (offset hi, offset lo, xor) × count,
//! payload…]`. Knobs: bits 0–1 the folders, bit 2 the method, bit 3 AES
//! (the reader has the password), bit 7 raw.
#![no_main]

use std::io::Cursor;

use libfuzzer_sys::fuzz_target;
use lzflow_7z::{Archive, ArchiveOptions, EntryMeta, Method, Solid, Writer, WriterOptions};
use lzflow_fuzz::Damaged;

/// Every entry's name and bytes as read, and the error that ended the
/// walk (as text: kind and position).
type Walk = (Vec<(String, Vec<u8>)>, Option<String>);

const PASSWORD: &str = "fuzz-pass";

fn walk(archive: &[u8], threads: usize) -> Walk {
    let opts = ArchiveOptions::default()
        .with_threads(threads)
        .with_password(PASSWORD);
    let mut r = match Archive::open_with(Cursor::new(archive), opts) {
        Ok(r) => r,
        Err(e) => return (Vec::new(), Some(e.to_string())),
    };
    let mut got = Vec::new();
    let end = r.for_each_entry(|e, rd| {
        let mut v = Vec::new();
        let res = rd.read_to_end(&mut v);
        got.push((e.name.clone(), v));
        res.map(drop)
    });
    (got, end.err().map(|e| e.to_string()))
}

fuzz_target!(|data: &[u8]| {
    let Some(input) = Damaged::parse(data) else {
        return;
    };
    let knobs = input.knobs;
    let archive = input.input(|payload| {
        let solid = [Solid::None, Solid::Files(2), Solid::All, Solid::None][usize::from(knobs & 3)];
        let method = [Method::Lzma2, Method::Lzma][usize::from(knobs >> 2 & 1)];
        let mut opts = WriterOptions::default()
            .with_method(method)
            .with_level(0)
            .with_solid(solid);
        if knobs & 8 != 0 {
            // Few key-stretching rounds keep each run fast.
            opts = opts.with_password(PASSWORD).with_aes_cycles_power(1);
        }
        let mut w = Writer::with_options(Cursor::new(Vec::new()), opts).expect("valid options");
        for (i, f) in payload.splitn(16, |&x| x == 0xFF).enumerate() {
            w.add_file(&format!("f{i}"), f, EntryMeta::default())
                .expect("in-memory write");
        }
        w.finish().expect("in-memory finish").into_inner()
    });
    let one = walk(&archive, 1);
    let two = walk(&archive, 2);
    assert_eq!(one.1, two.1, "errors differ");
    assert!(one.0 == two.0, "entries differ");
});
