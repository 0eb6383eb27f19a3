//! `AsyncArchive::into_entries`: the owned `Stream` of entries with their
//! data, on both runtimes' faces, against what was written; its per-entry
//! cap and its end after an error.

use std::io::Cursor;

use futures::TryStreamExt;
use lzflow::sevenz::{OwnedEntry, SevenZError};
use lzflow::sevenz_writer::{EntryMeta, Solid, Writer, WriterOptions};
use lzflow_core::LimitExceeded;

fn data(n: usize, seed: u8) -> Vec<u8> {
    (0..n)
        .map(|i| (i as u8).wrapping_mul(seed) ^ (i >> 9) as u8)
        .collect()
}

/// Files in two solid folders, a directory and an empty file.
fn files() -> Vec<(&'static str, Vec<u8>)> {
    vec![
        ("a.bin", data(300_000, 3)),
        ("d/b.txt", data(70_000, 5)),
        ("d/c", data(9, 7)),
        ("e.bin", data(120_000, 11)),
    ]
}

fn archive() -> Vec<u8> {
    let opts = WriterOptions::default()
        .with_level(1)
        .with_solid(Solid::Files(2));
    let mut w = Writer::with_options(Cursor::new(Vec::new()), opts).unwrap();
    w.add_dir("d", EntryMeta::default()).unwrap();
    for (name, bytes) in files() {
        w.add_file(name, &bytes[..], EntryMeta::default()).unwrap();
    }
    w.add_empty_file("empty", EntryMeta::default()).unwrap();
    w.finish().unwrap().into_inner()
}

fn check(got: &[OwnedEntry]) {
    let mut want: Vec<(String, Vec<u8>)> = vec![("d".into(), Vec::new())];
    want.extend(files().into_iter().map(|(n, d)| (n.to_string(), d)));
    want.push(("empty".into(), Vec::new()));
    let got: Vec<(String, Vec<u8>)> = got
        .iter()
        .map(|(e, d)| (e.name.clone(), d.to_vec()))
        .collect();
    assert_eq!(got, want);
}

#[tokio::test]
async fn tokio_stream_yields_every_entry_with_its_data() {
    let a = lzflow::sevenz::AsyncArchive::open(Cursor::new(archive()))
        .await
        .unwrap();
    let stream = a.into_entries(1 << 20);
    // Owned and Send: it can go to another task.
    let got: Vec<OwnedEntry> = tokio::spawn(stream.try_collect()).await.unwrap().unwrap();
    check(&got);
    assert!(got[0].0.is_dir);
}

#[test]
fn futures_stream_yields_every_entry_with_its_data() {
    futures::executor::block_on(async {
        let a = lzflow::sevenz::futures::AsyncArchive::open(futures::io::Cursor::new(archive()))
            .await
            .unwrap();
        let got: Vec<OwnedEntry> = a.into_entries(1 << 20).try_collect().await.unwrap();
        check(&got);
    });
}

#[tokio::test]
async fn an_entry_over_the_cap_ends_the_stream_before_it_is_decoded() {
    let a = lzflow::sevenz::AsyncArchive::open(Cursor::new(archive()))
        .await
        .unwrap();
    let mut s = a.into_entries(100_000);
    let first = s.try_next().await.unwrap().unwrap();
    assert_eq!(first.0.name, "d");
    let e = s.try_next().await.unwrap_err();
    assert!(
        matches!(
            e,
            SevenZError::Limit(LimitExceeded::Output { limit: 100_000 })
        ),
        "{e:?}"
    );
    assert!(
        s.try_next().await.unwrap().is_none(),
        "ended after the error"
    );
}

#[tokio::test]
async fn damaged_data_is_a_crc_error_and_the_end() {
    let mut bytes = archive();
    // A byte of the first folder's packed data (it starts after the
    // 32-byte signature header).
    bytes[32 + 1_000] ^= 0x40;
    let a = lzflow::sevenz::AsyncArchive::open(Cursor::new(bytes))
        .await
        .unwrap();
    let mut s = a.into_entries(1 << 20);
    let mut seen = Vec::new();
    let err = loop {
        match s.try_next().await {
            Ok(Some((e, _))) => seen.push(e.name),
            Ok(None) => panic!("the damage went unnoticed"),
            Err(e) => break e,
        }
    };
    assert!(
        matches!(
            err,
            SevenZError::DataCrc { .. } | SevenZError::Lzma(_) | SevenZError::Io(_)
        ),
        "{err:?}"
    );
    assert!(!seen.contains(&"d/b.txt".to_string()), "{seen:?}");
    assert!(s.try_next().await.unwrap().is_none());
}

#[tokio::test]
async fn a_selective_stream_yields_the_picked_entries_only() {
    // Two folders (a.bin + d/b.txt, d/c + e.bin): picking from the second
    // only; the first folder's packed bytes are damaged and never read.
    let mut bytes = archive();
    let a = lzflow::sevenz::Archive::open(Cursor::new(bytes.clone())).unwrap();
    assert_eq!(a.index().folder_count(), 2);
    let first = a.index().folder_packed_size(0) as usize;
    for b in &mut bytes[32 + first / 2..32 + first / 2 + 8] {
        *b ^= 0x5A;
    }
    let a = lzflow::sevenz::AsyncArchive::open(Cursor::new(bytes))
        .await
        .unwrap();
    let stream = a.into_entries_where(1 << 20, |_, e| e.name == "e.bin" || e.name == "empty");
    let got: Vec<OwnedEntry> = tokio::spawn(stream.try_collect()).await.unwrap().unwrap();
    let got: Vec<(String, Vec<u8>)> = got
        .iter()
        .map(|(e, d)| (e.name.clone(), d.to_vec()))
        .collect();
    assert_eq!(
        got,
        [
            ("e.bin".to_string(), data(120_000, 11)),
            ("empty".to_string(), Vec::new())
        ]
    );
}
