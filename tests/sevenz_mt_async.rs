//! The async 7z reader with threads: a solid LZMA2 stream with dictionary
//! resets decodes on worker threads that never block the runtime (the
//! face returns `Pending` while they work), with the one-thread bytes.

use std::io::Cursor;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use lzflow::sevenz::{ArchiveOptions, AsyncArchive};
use lzflow::sevenz_writer::{EntryMeta, Solid, Writer, WriterOptions};
use tokio::io::AsyncReadExt;

fn text(n: usize, seed: u64) -> Vec<u8> {
    let words = [
        &b"lorem "[..],
        b"ipsum ",
        b"dolor ",
        b"sit ",
        b"amet\n",
        b"7z ",
    ];
    let mut x = seed;
    let mut out = Vec::with_capacity(n + 8);
    while out.len() < n {
        x = x
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        out.extend_from_slice(words[(x >> 33) as usize % words.len()]);
        if x.is_multiple_of(7) {
            out.extend_from_slice(&(x >> 20).to_le_bytes()[..3]);
        }
    }
    out.truncate(n);
    out
}

fn files() -> Vec<(String, Vec<u8>)> {
    vec![
        ("a.txt".into(), text(2_500_000, 1)),
        ("b.txt".into(), text(40_000, 2)),
        ("c.txt".into(), text(1_800_000, 3)),
    ]
}

/// One solid LZMA2 stream split at dictionary resets by 2 threads.
fn archive() -> Vec<u8> {
    let opts = WriterOptions::default()
        .with_level(1)
        .with_solid(Solid::All)
        .with_threads(2);
    let mut w = Writer::with_options(Cursor::new(Vec::new()), opts).unwrap();
    for (name, data) in files() {
        w.add_file(&name, &data[..], EntryMeta::default()).unwrap();
    }
    w.finish().unwrap().into_inner()
}

async fn read_all(archive: Vec<u8>, threads: usize) -> Vec<(String, Vec<u8>)> {
    let opts = ArchiveOptions::default().with_threads(threads);
    let mut a = AsyncArchive::open_with(Cursor::new(archive), opts)
        .await
        .unwrap();
    let mut entries = a.entries_stream();
    let mut got = Vec::new();
    while let Some(e) = entries.next_entry().await.unwrap() {
        let mut data = Vec::new();
        entries.read_to_end(&mut data).await.unwrap();
        got.push((e.name, data));
    }
    got
}

#[test]
fn threads_decode_without_blocking_the_runtime() {
    let archive = archive();
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .build()
        .unwrap();
    rt.block_on(async {
        // On a one-thread runtime, a ticker runs only when the reader
        // yields: while the workers decode, it must.
        let ticks = Arc::new(AtomicUsize::new(0));
        let t = Arc::clone(&ticks);
        let ticker = tokio::spawn(async move {
            loop {
                t.fetch_add(1, Ordering::Relaxed);
                tokio::task::yield_now().await;
            }
        });
        let got = read_all(archive.clone(), 2).await;
        ticker.abort();
        assert!(got == files(), "2 threads: entries differ");
        assert!(ticks.load(Ordering::Relaxed) > 0);
        let got = read_all(archive, 1).await;
        assert!(got == files(), "1 thread: entries differ");
    });
}

#[test]
fn futures_face_with_threads_reads_the_same_entries() {
    use futures::AsyncReadExt as _;
    let archive = archive();
    futures::executor::block_on(async {
        let opts = ArchiveOptions::default().with_threads(3);
        let mut a = lzflow::sevenz::futures::AsyncArchive::open_with(
            futures::io::Cursor::new(archive),
            opts,
        )
        .await
        .unwrap();
        let mut got = Vec::new();
        let mut entries = a.entries_stream();
        while let Some(e) = entries.next_entry().await.unwrap() {
            let mut data = Vec::new();
            entries.read_to_end(&mut data).await.unwrap();
            got.push((e.name, data));
        }
        assert!(got == files());
    });
}

#[test]
fn non_solid_folders_decode_on_workers_without_blocking_the_runtime() {
    let opts = WriterOptions::default()
        .with_level(1)
        .with_solid(Solid::Files(1));
    let mut w = Writer::with_options(Cursor::new(Vec::new()), opts).unwrap();
    let mut want = Vec::new();
    for i in 0..60u64 {
        let data = text(5_000 + (i as usize * 7919) % 90_000, i);
        let name = format!("f{i:02}");
        w.add_file(&name, &data[..], EntryMeta::default()).unwrap();
        want.push((name, data));
    }
    let archive = w.finish().unwrap().into_inner();
    let rt = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    rt.block_on(async {
        for threads in [1, 2, 3] {
            let got = read_all(archive.clone(), threads).await;
            assert!(got == want, "{threads} threads");
        }
    });
}
