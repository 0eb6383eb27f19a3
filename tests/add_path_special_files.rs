//! Every writer's `add_path` refuses what is not a file, a directory or a
//! symbolic link, without opening it: a FIFO in the tree used to make the
//! walk wait for a writer on the FIFO for ever. And a file that grows as
//! it is read (the archive itself, in the tree it adds) ends the walk.
#![cfg(unix)]

use std::io::{self, Cursor};
use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::time::Duration;

/// A fresh empty directory for one test.
fn fresh_dir(tag: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("lzflow-special-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// The entry names of the zip archive at `path`, in order.
fn zip_names(path: &Path) -> Vec<String> {
    let a = lzflow::zip::ZipArchive::open(std::fs::File::open(path).unwrap()).unwrap();
    (0..a.len())
        .map(|i| a.directory().get(i).unwrap().name().into_owned())
        .collect()
}

/// A tree `tree/` with a file and a FIFO, `fifo` beside it alone.
fn tree_with_fifo(tag: &str) -> PathBuf {
    let dir = fresh_dir(tag);
    std::fs::create_dir_all(dir.join("tree")).unwrap();
    std::fs::write(dir.join("tree/a.txt"), b"a").unwrap();
    for fifo in [dir.join("tree/pipe"), dir.join("fifo")] {
        let st = std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .expect("mkfifo runs");
        assert!(st.success(), "mkfifo");
    }
    dir
}

/// Runs `f` on a thread; fails the test if it has not answered in 10 s.
fn within_10s(f: impl FnOnce() -> io::Error + Send + 'static) -> io::Error {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(f());
    });
    rx.recv_timeout(Duration::from_secs(10))
        .expect("add_path waited on a FIFO")
}

fn check(e: io::Error, fifo: &Path) {
    assert_eq!(e.kind(), io::ErrorKind::InvalidInput, "{e}");
    assert!(
        e.to_string().contains(&fifo.display().to_string()),
        "the error names the path: {e}"
    );
}

/// Runs `add_path` (as `refuse` does it, returning its error) over the
/// tree holding a FIFO and over a FIFO alone; checks each error.
fn each_refusal(tag: &str, refuse: impl Fn(PathBuf) -> io::Error + Clone + Send + 'static) {
    let dir = tree_with_fifo(tag);
    for (path, fifo) in [
        (dir.join("tree"), dir.join("tree/pipe")),
        (dir.join("fifo"), dir.join("fifo")),
    ] {
        let refuse = refuse.clone();
        check(within_10s(move || refuse(path)), &fifo);
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn zip_add_path_refuses_a_fifo() {
    use lzflow::zip::{EntryOptions, ZipWriter};
    each_refusal("zip", |path| {
        let mut w = ZipWriter::new(Cursor::new(Vec::new())).unwrap();
        w.add_path("top", &path, &EntryOptions::default())
            .unwrap_err()
            .into()
    });
}

#[test]
fn sevenz_add_path_refuses_a_fifo() {
    use lzflow::sevenz_writer::Writer;
    each_refusal("7z", |path| {
        let mut w = Writer::new(Cursor::new(Vec::new())).unwrap();
        w.add_path(&path, "top").unwrap_err().into()
    });
}

#[test]
fn tokio_add_paths_refuse_a_fifo() {
    use lzflow::sevenz_writer::AsyncWriter;
    use lzflow::zip::{AsyncZipWriter, EntryOptions};
    let dir = tree_with_fifo("tokio");
    let (tree, pipe) = (dir.join("tree"), dir.join("tree/pipe"));
    let e = within_10s(move || {
        let rt = tokio::runtime::Runtime::new().unwrap();
        rt.block_on(async {
            let mut w = AsyncZipWriter::new(Cursor::new(Vec::new())).unwrap();
            w.add_path("top", &tree, &EntryOptions::default())
                .await
                .unwrap_err()
                .into()
        })
    });
    check(e, &pipe);
    let (tree, pipe) = (dir.join("tree"), dir.join("tree/pipe"));
    let e = within_10s(move || {
        let rt = tokio::runtime::Runtime::new().unwrap();
        rt.block_on(async {
            let mut w = AsyncWriter::new(Cursor::new(Vec::new())).await.unwrap();
            w.add_path(&tree, "top").await.unwrap_err().into()
        })
    });
    check(e, &pipe);
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A file that grows while it is read (here the archive being written,
/// inside the tree being added) is read up to the size it had when
/// opened, so the walk ends; `skip_in_add_path` leaves it out.
#[test]
fn the_archive_inside_its_own_tree_ends_the_walk() {
    use lzflow::zip::{EntryOptions, ZipArchive, ZipWriter};
    let dir = fresh_dir("self");
    let data: Vec<u8> = (0..200_000u32)
        .map(|i| i.wrapping_mul(2654435761) as u8)
        .collect();
    std::fs::write(dir.join("a.bin"), &data).unwrap();
    let opts = EntryOptions::default().with_method(lzflow::zip::WriteMethod::Stored, 0);
    for skip in [false, true] {
        let path = dir.join("out.zip");
        let _ = std::fs::remove_file(&path);
        let (dir2, path2, opts2) = (dir.clone(), path.clone(), opts.clone());
        let e = within_10s(move || {
            let file = std::fs::File::create(&path2).unwrap();
            let meta = file.metadata().unwrap();
            let mut w = ZipWriter::new(file).unwrap();
            if skip {
                w.skip_in_add_path(&meta);
            }
            w.add_path("t", &dir2, &opts2).unwrap();
            w.finish().unwrap();
            io::Error::other("done")
        });
        assert_eq!(e.to_string(), "done");
        let names = zip_names(&path);
        if skip {
            assert_eq!(names, ["t/", "t/a.bin"]);
        } else {
            assert_eq!(names, ["t/", "t/a.bin", "t/out.zip"]);
            // Stored, so the entry is the file's bytes at the time it was
            // opened: fewer than the archive's in the end.
            let len = std::fs::metadata(&path).unwrap().len() as usize;
            let mut a = ZipArchive::open(std::fs::File::open(&path).unwrap()).unwrap();
            let mut inner = Vec::new();
            std::io::Read::read_to_end(&mut a.reader(2).unwrap(), &mut inner).unwrap();
            assert!(inner.len() < len, "{} of {len}", inner.len());
            assert!(inner.starts_with(b"PK\x03\x04"), "the archive's own start");
        }
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The tokio writers' `add_path` end over their own archive too, and
/// leave it out with `skip_in_add_path`.
#[test]
fn tokio_add_paths_over_their_own_archive() {
    use lzflow::sevenz_writer::AsyncWriter;
    use lzflow::zip::{AsyncZipWriter, EntryOptions};
    let dir = fresh_dir("self-tokio");
    std::fs::write(dir.join("a.bin"), vec![7u8; 100_000]).unwrap();
    for skip in [false, true] {
        let (d, s) = (dir.clone(), skip);
        let e = within_10s(move || {
            let rt = tokio::runtime::Runtime::new().unwrap();
            rt.block_on(async {
                let path = d.join("out.zip");
                let _ = std::fs::remove_file(&path);
                let file = tokio::fs::File::create(&path).await.unwrap();
                let meta = file.metadata().await.unwrap();
                let mut w = AsyncZipWriter::new(file).unwrap();
                if s {
                    w.skip_in_add_path(&meta);
                }
                w.add_path("t", &d, &EntryOptions::default()).await.unwrap();
                w.finish().await.unwrap();
                let path = d.join("out.7z");
                let _ = std::fs::remove_file(&path);
                let file = tokio::fs::File::create(&path).await.unwrap();
                let meta = file.metadata().await.unwrap();
                let mut w = AsyncWriter::new(file).await.unwrap();
                if s {
                    w.skip_in_add_path(&meta);
                }
                w.add_path(&d, "t").await.unwrap();
                w.finish().await.unwrap();
                io::Error::other("done")
            })
        });
        assert_eq!(e.to_string(), "done");
        let names = zip_names(&dir.join("out.zip"));
        let a7 = lzflow::sevenz::Archive::open(std::fs::File::open(dir.join("out.7z")).unwrap())
            .unwrap();
        let names7: Vec<String> = a7.entries().iter().map(|e| e.name.clone()).collect();
        if skip {
            // The zip is in the tree the 7z adds, and the other way round
            // from the second pass on: only each archive itself is left out.
            assert!(!names.contains(&"t/out.zip".to_string()), "{names:?}");
            assert!(!names7.contains(&"t/out.7z".to_string()), "{names7:?}");
        } else {
            assert!(names.contains(&"t/out.zip".to_string()), "{names:?}");
            assert!(names7.contains(&"t/out.7z".to_string()), "{names7:?}");
        }
        assert!(names.contains(&"t/a.bin".to_string()), "{names:?}");
        assert!(names7.contains(&"t/a.bin".to_string()), "{names7:?}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}
