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
