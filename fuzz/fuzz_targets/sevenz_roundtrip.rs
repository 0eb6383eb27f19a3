//! Any bytes split into files (and a directory and an empty file) and
//! written as a 7z archive with options taken from the first bytes
//! (method, level 0-1, solid grouping, filter, password and header
//! encryption): lzflow's reader must list the same entries and give every
//! file's bytes back.
#![no_main]

use std::io::{self, Cursor};

use libfuzzer_sys::fuzz_target;
use lzflow_7z::{Archive, ArchiveOptions, EntryMeta, Method, Solid, Writer, WriterOptions};
use lzflow_filters::{FilterConfig, FilterKind};

fuzz_target!(|data: &[u8]| {
    let [a, b, ref rest @ ..] = *data else {
        return;
    };
    let method = [Method::Lzma2, Method::Lzma, Method::Copy][usize::from(a & 3) % 3];
    let solid =
        [Solid::All, Solid::Files(2), Solid::Bytes(100), Solid::None][usize::from(a >> 2 & 3)];
    let mut opts = WriterOptions::default()
        .with_method(method)
        .with_level(u32::from(a >> 4 & 1))
        .with_solid(solid)
        .with_compress_header(a & 0x20 != 0);
    let kinds = FilterKind::ALL;
    let pick = usize::from(b & 15) % (kinds.len() + 1);
    if pick > 0 {
        let kind = kinds[pick - 1];
        let f = if kind == FilterKind::Delta {
            FilterConfig::new(kind).with_distance(u32::from(b >> 4) + 1)
        } else {
            FilterConfig::new(kind)
        };
        opts = opts.with_filter(f);
    }
    let password = (a & 0x40 != 0).then_some("fuzz-pass");
    if let Some(p) = password {
        // Few key-stretching rounds keep each run fast.
        opts = opts
            .with_password(p)
            .with_aes_cycles_power(1)
            .with_encrypt_header(a & 0x80 != 0);
    }

    // Files split at every 0xFF byte of the rest (at most 8 files).
    let files: Vec<&[u8]> = rest.splitn(8, |&x| x == 0xFF).collect();
    let mut w = Writer::with_options(Cursor::new(Vec::new()), opts).expect("valid options");
    let mut names = Vec::new();
    for (i, f) in files.iter().enumerate() {
        let name = format!("d{}/f{i}-é.bin", i % 2);
        w.add_file(&name, *f, EntryMeta::default())
            .expect("in-memory write");
        names.push(name);
    }
    w.add_dir("d0", EntryMeta::default())
        .expect("in-memory write");
    w.add_empty_file("empty", EntryMeta::default())
        .expect("in-memory write");
    let archive = w.finish().expect("in-memory finish").into_inner();
    names.extend(["d0".to_string(), "empty".to_string()]);

    let mut ropts = ArchiveOptions::default();
    if let Some(p) = password {
        ropts = ropts.with_password(p);
    }
    let mut r =
        Archive::open_with(Cursor::new(&archive[..]), ropts).expect("reads its own archive");
    let listed: Vec<String> = r.entries().iter().map(|e| e.name.clone()).collect();
    assert_eq!(listed, names);
    let mut got = Vec::new();
    r.for_each_entry(|e, rd| {
        let mut v = Vec::new();
        io::copy(rd, &mut v)?;
        got.push((e.name.clone(), v));
        Ok(())
    })
    .expect("extracts its own archive");
    for (i, f) in files.iter().enumerate() {
        assert_eq!(got[i].0, names[i]);
        assert!(got[i].1 == *f, "entry {i} differs");
    }
    assert!(got[files.len()].1.is_empty() && got[files.len() + 1].1.is_empty());
});
