//! Async 7z extraction (tokio and futures-io) runs the same `Extraction` as
//! the sync one: the same tree on disk, the same refusals of existing files,
//! the same policies, and a wrong password leaves nothing.

use std::fs;
use std::io::Cursor;
use std::path::{Path, PathBuf};

use lzflow::sevenz::{
    Archive, ArchiveOptions, ExtractError, ExtractOptions, Overwrite, SevenZError,
};
use lzflow::sevenz_writer::{EntryMeta, Writer, WriterOptions};

fn scratch(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("lzflow-7z-async-x-{}-{tag}", std::process::id()));
    let _ = fs::remove_dir_all(&d);
    fs::create_dir_all(&d).unwrap();
    d
}

fn archive(options: WriterOptions) -> Vec<u8> {
    let mut w = Writer::with_options(Cursor::new(Vec::new()), options).unwrap();
    w.add_dir("dir", EntryMeta::default().with_unix_mode(0o040750))
        .unwrap();
    w.add_file(
        "dir/a.bin",
        &(0..200_000u32).map(|i| (i % 251) as u8).collect::<Vec<_>>()[..],
        EntryMeta::default().with_unix_mode(0o100640),
    )
    .unwrap();
    w.add_empty_file("dir/empty", EntryMeta::default()).unwrap();
    w.add_file("b.txt", &b"bee"[..], EntryMeta::default())
        .unwrap();
    w.finish().unwrap().into_inner()
}

/// Every path below `root` with its contents (directories as `None`),
/// sorted.
fn tree(root: &Path) -> Vec<(String, Option<Vec<u8>>)> {
    let mut out = Vec::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for e in fs::read_dir(&dir).unwrap() {
            let path = e.unwrap().path();
            let rel = path.strip_prefix(root).unwrap().display().to_string();
            if path.is_dir() {
                out.push((rel, None));
                stack.push(path);
            } else {
                out.push((rel, Some(fs::read(&path).unwrap())));
            }
        }
    }
    out.sort();
    out
}

#[tokio::test]
async fn tokio_and_futures_extraction_equal_the_sync_one() {
    let bytes = archive(WriterOptions::default().with_level(1));
    let base = scratch("equal");
    let (sync_dir, tokio_dir, futures_dir) =
        (base.join("sync"), base.join("tokio"), base.join("futures"));
    Archive::open(Cursor::new(bytes.clone()))
        .unwrap()
        .extract_to(&sync_dir)
        .unwrap();
    lzflow::sevenz::AsyncArchive::open(Cursor::new(bytes.clone()))
        .await
        .unwrap()
        .extract_to(&tokio_dir)
        .await
        .unwrap();
    lzflow::sevenz::futures::AsyncArchive::open(futures::io::Cursor::new(bytes))
        .await
        .unwrap()
        .extract_to(&futures_dir)
        .await
        .unwrap();
    let want = tree(&sync_dir);
    assert_eq!(want.len(), 4);
    assert_eq!(tree(&tokio_dir), want);
    assert_eq!(tree(&futures_dir), want);
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = |d: &Path| {
            fs::metadata(d.join("dir/a.bin"))
                .unwrap()
                .permissions()
                .mode()
        };
        assert_eq!(mode(&tokio_dir), mode(&sync_dir));
    }
    let _ = fs::remove_dir_all(base);
}

#[tokio::test]
async fn async_extraction_keeps_existing_files_unless_told() {
    let bytes = archive(WriterOptions::default().with_level(1));
    let out = scratch("existing");
    fs::write(out.join("b.txt"), b"mine").unwrap();
    let mut a = lzflow::sevenz::AsyncArchive::open(Cursor::new(bytes.clone()))
        .await
        .unwrap();
    let err = a.extract_to(&out).await.unwrap_err();
    assert!(
        matches!(&err, SevenZError::Extract(ExtractError::Exists { path }) if path.ends_with("b.txt")),
        "{err:?}"
    );
    assert!(!out.join("dir").exists(), "nothing is written");
    let skip = ExtractOptions::default().with_overwrite(Overwrite::Skip);
    let mut a = lzflow::sevenz::AsyncArchive::open(Cursor::new(bytes))
        .await
        .unwrap();
    a.extract_to_with(&out, &skip).await.unwrap();
    assert_eq!(fs::read(out.join("b.txt")).unwrap(), b"mine");
    assert_eq!(fs::read(out.join("dir/a.bin")).unwrap().len(), 200_000);
    let _ = fs::remove_dir_all(out);
}

#[tokio::test]
async fn async_extraction_with_a_wrong_password_leaves_nothing() {
    let bytes = archive(
        WriterOptions::default()
            .with_level(1)
            .with_password("right"),
    );
    let out = scratch("password");
    let wrong = ArchiveOptions::default().with_password("wrong");
    let mut a = lzflow::sevenz::AsyncArchive::open_with(Cursor::new(bytes), wrong)
        .await
        .unwrap();
    let err = a.extract_to(&out).await.unwrap_err();
    assert!(matches!(err, SevenZError::WrongPassword), "{err:?}");
    assert_eq!(fs::read_dir(&out).unwrap().count(), 0);
    let _ = fs::remove_dir_all(out);
}

#[tokio::test]
async fn async_selection_walks_and_extracts_only_what_it_picks() {
    use tokio::io::AsyncReadExt;
    // One folder per file; the folder of "skip.bin" is damaged, and a
    // selection that leaves it out never decodes it.
    let options = WriterOptions::default()
        .with_level(1)
        .with_solid(lzflow::sevenz_writer::Solid::None);
    let mut w = Writer::with_options(Cursor::new(Vec::new()), options).unwrap();
    let data = |seed: u32| -> Vec<u8> {
        (0..100_000u32)
            .map(|i| (i.wrapping_mul(seed) >> 7) as u8)
            .collect()
    };
    for (name, seed) in [("a.bin", 3), ("skip.bin", 5), ("c.bin", 7)] {
        w.add_file(name, &data(seed)[..], EntryMeta::default())
            .unwrap();
    }
    let mut bytes = w.finish().unwrap().into_inner();
    let index = Archive::open(Cursor::new(bytes.clone())).unwrap();
    let at = 32 + index.index().folder_packed_size(0) + index.index().folder_packed_size(1) / 2;
    bytes[at as usize] ^= 0xFF;
    bytes[at as usize + 1] ^= 0xFF;
    let mut a = lzflow::sevenz::AsyncArchive::open(Cursor::new(bytes.clone()))
        .await
        .unwrap();
    let mut entries = a.entries_stream_where(|_, e| e.name != "skip.bin");
    let mut got = Vec::new();
    while let Some(e) = entries.next_entry().await.unwrap() {
        let mut d = Vec::new();
        entries.read_to_end(&mut d).await.unwrap();
        got.push((e.name, d));
    }
    assert_eq!(
        got,
        [
            ("a.bin".to_string(), data(3)),
            ("c.bin".to_string(), data(7))
        ]
    );
    let out = scratch("select");
    let select = ExtractOptions::default().with_select(|name| name != "skip.bin");
    lzflow::sevenz::AsyncArchive::open(Cursor::new(bytes.clone()))
        .await
        .unwrap()
        .extract_to_with(&out, &select)
        .await
        .unwrap();
    let names: Vec<_> = tree(&out).into_iter().map(|(n, _)| n).collect();
    assert_eq!(names, ["a.bin", "c.bin"]);
    // Without the selection the damaged folder fails.
    let err = lzflow::sevenz::AsyncArchive::open(Cursor::new(bytes))
        .await
        .unwrap()
        .extract_to(out.join("all"))
        .await
        .unwrap_err();
    assert!(
        matches!(
            err,
            SevenZError::DataCrc { .. } | SevenZError::Corrupt(_) | SevenZError::Lzma(_)
        ),
        "{err:?}"
    );
    let _ = fs::remove_dir_all(out);
}

/// A tokio source that never answers a read from `stall_at` on before
/// `resume_at` (a client gone quiet mid-upload): the extraction then waits
/// inside an entry's data.
struct Stall {
    inner: Cursor<Vec<u8>>,
    stall_at: u64,
    resume_at: u64,
}

impl tokio::io::AsyncRead for Stall {
    fn poll_read(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
        buf: &mut tokio::io::ReadBuf<'_>,
    ) -> std::task::Poll<std::io::Result<()>> {
        let pos = self.inner.position();
        if (self.stall_at..self.resume_at).contains(&pos) {
            return std::task::Poll::Pending;
        }
        // A read never runs past the stall.
        let room = match pos < self.stall_at {
            true => (self.stall_at - pos) as usize,
            false => usize::MAX,
        };
        let mut tmp = vec![0; buf.remaining().min(room)];
        let mut part = tokio::io::ReadBuf::new(&mut tmp);
        let r = std::pin::Pin::new(&mut self.inner).poll_read(cx, &mut part);
        buf.put_slice(part.filled());
        r
    }
}

impl tokio::io::AsyncSeek for Stall {
    fn start_seek(
        mut self: std::pin::Pin<&mut Self>,
        position: std::io::SeekFrom,
    ) -> std::io::Result<()> {
        std::pin::Pin::new(&mut self.inner).start_seek(position)
    }

    fn poll_complete(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<std::io::Result<u64>> {
        std::pin::Pin::new(&mut self.inner).poll_complete(cx)
    }
}

/// The files of an async extraction are written by a thread of its own
/// (the task never blocks on the disk), and a cancelled extraction keeps
/// the files it completed and leaves no partial one.
#[tokio::test]
async fn a_cancelled_async_extraction_leaves_complete_files_only() {
    // Incompressible (xorshift), so that half of b.bin's packed stream
    // decodes to half of it.
    let data = |mut x: u64, len: usize| -> Vec<u8> {
        (0..len)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                (x >> 24) as u8
            })
            .collect()
    };
    let (a, b) = (data(3, 1 << 20), data(5, 4 << 20));
    let options = WriterOptions::default()
        .with_level(1)
        .with_solid(lzflow::sevenz_writer::Solid::None);
    let mut w = Writer::with_options(Cursor::new(Vec::new()), options).unwrap();
    w.add_file("a.bin", &a[..], EntryMeta::default()).unwrap();
    w.add_file("b.bin", &b[..], EntryMeta::default()).unwrap();
    let bytes = w.finish().unwrap().into_inner();
    let index = Archive::open(Cursor::new(bytes.clone())).unwrap();
    let (pa, pb) = (
        index.index().folder_packed_size(0),
        index.index().folder_packed_size(1),
    );
    let src = Stall {
        inner: Cursor::new(bytes),
        stall_at: 32 + pa + pb / 2,
        resume_at: 32 + pa + pb,
    };
    let out = scratch("cancelled");
    let mut archive = lzflow::sevenz::AsyncArchive::open(src).await.unwrap();
    // Until a.bin is in place and b.bin's partial file is there (the
    // source stalls inside b.bin's data).
    let probe = async {
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
        loop {
            let names: Vec<String> = fs::read_dir(&out)
                .unwrap()
                .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
                .collect();
            let partial = names.iter().any(|n| n.ends_with(".partial"));
            if partial && names.iter().any(|n| n == "a.bin") {
                return true;
            }
            if std::time::Instant::now() > deadline {
                return false;
            }
            tokio::time::sleep(std::time::Duration::from_millis(5)).await;
        }
    };
    tokio::select! {
        r = archive.extract_to(&out) => panic!("the source stalls, yet: {r:?}"),
        seen = probe => assert!(seen, "a.bin written, b.bin begun"),
    }
    #[cfg(target_os = "linux")]
    {
        // The file-system calls run on the extraction's own thread.
        let threads: Vec<String> = fs::read_dir("/proc/self/task")
            .unwrap()
            .filter_map(|t| fs::read_to_string(t.unwrap().path().join("comm")).ok())
            .collect();
        assert!(
            threads.iter().any(|t| t.trim() == "lzflow-extract"),
            "{threads:?}"
        );
    }
    drop(archive);
    // The thread removes b.bin's partial file as it ends.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    let names = loop {
        let names: Vec<String> = tree(&out).into_iter().map(|(n, _)| n).collect();
        if names == ["a.bin"] || std::time::Instant::now() > deadline {
            break names;
        }
        tokio::time::sleep(std::time::Duration::from_millis(5)).await;
    };
    assert_eq!(names, ["a.bin"]);
    assert!(fs::read(out.join("a.bin")).unwrap() == a);
    let _ = fs::remove_dir_all(out);
}

/// Through the extraction's thread as inline: an entry whose data fails
/// leaves no file (nor a temporary one) and stops the extraction, the
/// entries before it stay; with `keep_broken` its damaged bytes are kept,
/// every one of them.
#[tokio::test]
async fn async_extraction_of_a_failed_entry_leaves_no_file_unless_kept() {
    let options = WriterOptions::default()
        .with_method(lzflow::sevenz_writer::Method::Copy)
        .with_solid(lzflow::sevenz_writer::Solid::None)
        .with_compress_header(false);
    let mut w = Writer::with_options(Cursor::new(Vec::new()), options).unwrap();
    let second = vec![b's'; 300_000];
    w.add_file("one", &b"first"[..], EntryMeta::default())
        .unwrap();
    w.add_file("two", &second[..], EntryMeta::default())
        .unwrap();
    w.add_file("three", &b"third"[..], EntryMeta::default())
        .unwrap();
    let mut bytes = w.finish().unwrap().into_inner();
    // Stored: "two" starts right after "first"; damage its last byte.
    let at = 32 + 5 + second.len() - 1;
    assert_eq!(bytes[at], b's');
    bytes[at] ^= 0x01;
    let out = scratch("failed");
    let open = || lzflow::sevenz::AsyncArchive::open(Cursor::new(bytes.clone()));
    let err = open().await.unwrap().extract_to(&out).await.unwrap_err();
    assert!(
        matches!(&err, SevenZError::DataCrc { entry } if entry == "two"),
        "{err:?}"
    );
    let names: Vec<_> = tree(&out).into_iter().map(|(n, _)| n).collect();
    assert_eq!(names, ["one"], "no file for two, no temporary file");
    let _ = fs::remove_dir_all(&out);
    let keep = ExtractOptions::default().with_keep_broken(true);
    let err = open()
        .await
        .unwrap()
        .extract_to_with(&out, &keep)
        .await
        .unwrap_err();
    assert!(matches!(err, SevenZError::DataCrc { .. }), "{err:?}");
    let mut damaged = second;
    let last = damaged.len() - 1;
    damaged[last] ^= 0x01;
    assert_eq!(
        tree(&out),
        [
            ("one".to_string(), Some(b"first".to_vec())),
            ("two".to_string(), Some(damaged))
        ]
    );
    let _ = fs::remove_dir_all(out);
}
