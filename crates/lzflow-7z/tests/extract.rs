//! `extract_to`: contents, times and modes on disk; paths that would escape
//! the target are refused before anything is written.

mod common;

use std::io::Cursor;
use std::path::PathBuf;

use common::{copy_archive, temp_dir};
use lzflow_7z::{Archive, SevenZError};

fn fixture(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../fixtures/generated/7z")
        .join(name)
}

#[test]
fn extracts_nested_dirs_with_contents_and_times() {
    let out = temp_dir("extract-nested");
    let mut a = Archive::open(std::fs::File::open(fixture("nested-dirs.7z")).unwrap()).unwrap();
    a.extract_to(&out).unwrap();
    assert_eq!(
        std::fs::read(out.join("a/b/c/d/e/deep.txt")).unwrap().len(),
        5
    );
    assert!(out.join("a/x/y").is_dir());
    assert!(out.join("z").is_dir());
    let top = std::fs::metadata(out.join("top.txt")).unwrap();
    let mtime = a
        .entries()
        .iter()
        .find(|e| e.name == "top.txt")
        .unwrap()
        .mtime();
    assert_eq!(top.modified().unwrap(), mtime.unwrap());
    let dir_mtime = a
        .entries()
        .iter()
        .find(|e| e.name == "a/b")
        .unwrap()
        .mtime();
    assert_eq!(
        std::fs::metadata(out.join("a/b"))
            .unwrap()
            .modified()
            .unwrap(),
        dir_mtime.unwrap()
    );
    let _ = std::fs::remove_dir_all(out);
}

#[cfg(unix)]
#[test]
fn extracts_unix_modes() {
    use std::os::unix::fs::PermissionsExt;
    let out = temp_dir("extract-modes");
    let mut a = Archive::open(std::fs::File::open(fixture("timestamps.7z")).unwrap()).unwrap();
    a.extract_to(&out).unwrap();
    let mode = |n: &str| std::fs::metadata(out.join(n)).unwrap().permissions().mode() & 0o7777;
    assert_eq!(mode("exec.sh"), 0o755);
    assert_eq!(mode("private.txt"), 0o600);
    assert_eq!(mode("readonly.txt"), 0o444);
    let m = std::fs::metadata(out.join("private.txt"))
        .unwrap()
        .modified()
        .unwrap();
    // 2038-01-19T03:14:08Z
    assert_eq!(
        m.duration_since(std::time::UNIX_EPOCH).unwrap().as_secs(),
        2_147_483_648
    );
    // Leave the directory removable.
    std::fs::set_permissions(
        out.join("readonly.txt"),
        std::fs::Permissions::from_mode(0o644),
    )
    .unwrap();
    let _ = std::fs::remove_dir_all(out);
}

#[test]
fn escaping_entries_are_refused_and_nothing_is_written() {
    for bad in [
        "../evil.txt",
        "a/../../evil.txt",
        "/tmp/evil.txt",
        "C:\\evil.txt",
        "..\\evil.txt",
    ] {
        let out = temp_dir("extract-escape");
        let target = out.join("target");
        let archive = copy_archive(&[("fine.txt", b"ok"), (bad, b"evil")]);
        let mut a = Archive::open(Cursor::new(archive)).unwrap();
        assert_eq!(a.entries()[1].name, bad);
        match a.extract_to(&target) {
            Err(SevenZError::UnsafePath { path }) => assert_eq!(path, bad),
            other => panic!("{bad}: expected UnsafePath, got {other:?}"),
        }
        assert!(
            !target.join("fine.txt").exists(),
            "{bad}: nothing is written"
        );
        assert!(!out.join("evil.txt").exists());
        let _ = std::fs::remove_dir_all(out);
    }
}

#[cfg(unix)]
#[test]
fn symlinks_in_the_target_are_not_followed() {
    let out = temp_dir("extract-symlink");
    let target = out.join("target");
    let outside = out.join("outside");
    std::fs::create_dir_all(&target).unwrap();
    std::fs::create_dir_all(&outside).unwrap();
    std::os::unix::fs::symlink(&outside, target.join("link")).unwrap();
    std::os::unix::fs::symlink(outside.join("f"), target.join("file-link")).unwrap();
    for name in ["link/evil.txt", "file-link"] {
        let mut a = Archive::open(Cursor::new(copy_archive(&[(name, b"evil")]))).unwrap();
        assert!(
            matches!(a.extract_to(&target), Err(SevenZError::UnsafePath { .. })),
            "{name}"
        );
    }
    assert_eq!(std::fs::read_dir(&outside).unwrap().count(), 0);
    let _ = std::fs::remove_dir_all(out);
}

#[test]
fn hand_made_archive_reads_back() {
    let archive = copy_archive(&[("x/one.txt", b"first"), ("two.txt", b"second!")]);
    let mut a = Archive::open(Cursor::new(archive.clone())).unwrap();
    let mut got = Vec::new();
    a.for_each_entry(|e, r| {
        let mut s = String::new();
        r.read_to_string(&mut s)?;
        got.push((e.name.clone(), s));
        Ok(())
    })
    .unwrap();
    assert_eq!(
        got,
        [
            ("x/one.txt".to_string(), "first".to_string()),
            ("two.txt".to_string(), "second!".to_string())
        ]
    );
    // A corrupted data byte is caught by the entry CRC.
    let mut bad = archive;
    bad[32] ^= 0x20;
    let mut a = Archive::open(Cursor::new(bad)).unwrap();
    let err = a
        .for_each_entry(|_, r| std::io::copy(r, &mut std::io::sink()).map(drop))
        .unwrap_err();
    assert!(
        matches!(&err, SevenZError::DataCrc { entry } if entry == "x/one.txt"),
        "{err:?}"
    );
}
