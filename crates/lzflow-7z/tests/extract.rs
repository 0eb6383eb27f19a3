//! `extract_to`: contents, times and modes on disk; paths that would escape
//! the target are refused before anything is written; existing files, hard
//! links, duplicates, clashes, failures and wrong passwords are handled by
//! the rules of `lzflow_core::extract`.

mod common;

use std::io::Cursor;
use std::path::PathBuf;

use common::{copy_archive, temp_dir};
use lzflow_7z::{
    Archive, EntryMeta, ExtractError, ExtractOptions, Overwrite, PathPolicy, SevenZError, Writer,
    WriterOptions,
};

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
            Err(SevenZError::Extract(ExtractError::UnsafePath { path })) => assert_eq!(path, bad),
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
    // A directory on the way that is a link: refused, whatever the policy.
    for overwrite in [Overwrite::Never, Overwrite::Skip, Overwrite::Always] {
        let mut a =
            Archive::open(Cursor::new(copy_archive(&[("link/evil.txt", b"evil")]))).unwrap();
        let options = ExtractOptions::default().with_overwrite(overwrite);
        let err = a.extract_to_with(&target, &options).unwrap_err();
        assert!(
            matches!(err, SevenZError::Extract(ExtractError::UnsafePath { .. })),
            "{overwrite:?}: {err:?}"
        );
    }
    // A file whose name is a link: an existing file by default; replaced
    // (the link itself, not what it points to) when overwriting.
    let archive = copy_archive(&[("file-link", b"evil")]);
    let mut a = Archive::open(Cursor::new(archive.clone())).unwrap();
    let err = a.extract_to(&target).unwrap_err();
    assert!(
        matches!(&err, SevenZError::Extract(ExtractError::Exists { path }) if path.ends_with("file-link")),
        "{err:?}"
    );
    let mut a = Archive::open(Cursor::new(archive)).unwrap();
    let always = ExtractOptions::default().with_overwrite(Overwrite::Always);
    a.extract_to_with(&target, &always).unwrap();
    let meta = std::fs::symlink_metadata(target.join("file-link")).unwrap();
    assert!(meta.is_file());
    assert_eq!(std::fs::read(target.join("file-link")).unwrap(), b"evil");
    assert_eq!(std::fs::read_dir(&outside).unwrap().count(), 0);
    let _ = std::fs::remove_dir_all(out);
}

/// The process umask, as the kernel reports it.
#[cfg(target_os = "linux")]
fn umask() -> u32 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap();
    let line = status.lines().find(|l| l.starts_with("Umask:")).unwrap();
    u32::from_str_radix(line["Umask:".len()..].trim(), 8).unwrap()
}

/// Files in `dir` (names), sorted, to show nothing else was left there.
fn listing(dir: &std::path::Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    names.sort();
    names
}

fn archive_with_modes(entries: &[(&str, u32)]) -> Vec<u8> {
    let mut w = Writer::new(Cursor::new(Vec::new())).unwrap();
    for (name, mode) in entries {
        let meta = EntryMeta::default().with_unix_mode(*mode);
        if mode & 0o170000 == 0o040000 {
            w.add_dir(name, meta).unwrap();
        } else {
            w.add_file(name, &b"data"[..], meta).unwrap();
        }
    }
    w.finish().unwrap().into_inner()
}

#[cfg(target_os = "linux")]
#[test]
fn special_bits_are_never_applied_and_the_umask_is() {
    use std::os::unix::fs::PermissionsExt;
    let stored = [
        ("setuid", 0o104755),
        ("setgid", 0o102755),
        ("sticky-dir", 0o041777),
        ("world-writable", 0o100666),
        ("all", 0o107777),
        ("private", 0o100600),
    ];
    let out = temp_dir("extract-special-bits");
    let mut a = Archive::open(Cursor::new(archive_with_modes(&stored))).unwrap();
    assert_eq!(
        a.entries()[0].unix_mode(),
        Some(0o104755),
        "stored faithfully"
    );
    a.extract_to(&out).unwrap();
    let umask = umask();
    for (name, mode) in stored {
        let got = std::fs::metadata(out.join(name))
            .unwrap()
            .permissions()
            .mode()
            & 0o7777;
        assert_eq!(
            got,
            mode & 0o777 & !umask,
            "{name}: stored {mode:o}, umask {umask:o}"
        );
    }
    let _ = std::fs::remove_dir_all(out);
}

#[test]
fn existing_files_are_kept_unless_the_caller_chooses() {
    let out = temp_dir("extract-existing");
    std::fs::write(out.join("b.txt"), b"mine").unwrap();
    let archive = copy_archive(&[("a.txt", b"new a"), ("b.txt", b"new b")]);
    let open = || Archive::open(Cursor::new(archive.clone())).unwrap();
    // Default: refused before anything is written, the error names the file.
    let err = open().extract_to(&out).unwrap_err();
    match &err {
        SevenZError::Extract(ExtractError::Exists { path }) => assert_eq!(*path, out.join("b.txt")),
        other => panic!("{other:?}"),
    }
    assert!(err.to_string().contains("b.txt"), "{err}");
    assert_eq!(
        std::io::Error::from(err).kind(),
        std::io::ErrorKind::AlreadyExists
    );
    assert_eq!(listing(&out), ["b.txt"]);
    // Skip: the existing file stays, the others are written.
    let skip = ExtractOptions::default().with_overwrite(Overwrite::Skip);
    open().extract_to_with(&out, &skip).unwrap();
    assert_eq!(std::fs::read(out.join("a.txt")).unwrap(), b"new a");
    assert_eq!(std::fs::read(out.join("b.txt")).unwrap(), b"mine");
    // Always: replaced.
    let always = ExtractOptions::default().with_overwrite(Overwrite::Always);
    open().extract_to_with(&out, &always).unwrap();
    assert_eq!(std::fs::read(out.join("b.txt")).unwrap(), b"new b");
    assert_eq!(
        listing(&out),
        ["a.txt", "b.txt"],
        "no temporary file is left"
    );
    let _ = std::fs::remove_dir_all(out);
}

#[cfg(unix)]
#[test]
fn a_hard_link_in_the_target_never_carries_a_write_outside() {
    let out = temp_dir("extract-hardlink");
    let target = out.join("target");
    std::fs::create_dir_all(&target).unwrap();
    let secret = out.join("secret");
    std::fs::write(&secret, b"outside").unwrap();
    std::fs::hard_link(&secret, target.join("f.txt")).unwrap();
    let archive = copy_archive(&[("f.txt", b"from the archive")]);
    let mut a = Archive::open(Cursor::new(archive.clone())).unwrap();
    assert!(a.extract_to(&target).is_err());
    let mut a = Archive::open(Cursor::new(archive)).unwrap();
    let always = ExtractOptions::default().with_overwrite(Overwrite::Always);
    a.extract_to_with(&target, &always).unwrap();
    assert_eq!(
        std::fs::read(target.join("f.txt")).unwrap(),
        b"from the archive"
    );
    assert_eq!(std::fs::read(&secret).unwrap(), b"outside");
    let _ = std::fs::remove_dir_all(out);
}

#[test]
fn duplicate_names_follow_the_overwrite_policy() {
    let archive = copy_archive(&[("d/a.txt", b"first"), ("x", b"x"), ("d/a.txt", b"second")]);
    let out = temp_dir("extract-duplicates");
    let open = || Archive::open(Cursor::new(archive.clone())).unwrap();
    let err = open().extract_to(&out).unwrap_err();
    assert!(
        matches!(&err, SevenZError::Extract(ExtractError::Duplicate { path }) if path.ends_with("d/a.txt")),
        "{err:?}"
    );
    assert!(listing(&out).is_empty(), "nothing is written");
    let skip = ExtractOptions::default().with_overwrite(Overwrite::Skip);
    open().extract_to_with(&out, &skip).unwrap();
    assert_eq!(std::fs::read(out.join("d/a.txt")).unwrap(), b"first");
    let _ = std::fs::remove_dir_all(&out);
    let always = ExtractOptions::default().with_overwrite(Overwrite::Always);
    open().extract_to_with(&out, &always).unwrap();
    assert_eq!(std::fs::read(out.join("d/a.txt")).unwrap(), b"second");
    let _ = std::fs::remove_dir_all(out);
}

/// `Overwrite::Rename` (7-Zip's `-aou`): what is there stays, entries go
/// to the first free `stem_N.ext` (names as 7zz gives them: `noext_1`,
/// `.rc_1`, `x.tar_1.gz`), past names taken on disk or by earlier entries;
/// a directory in the way is renamed around too.
#[test]
fn rename_writes_beside_what_is_there() {
    let archive = copy_archive(&[
        ("d/a.txt", b"first"),
        ("d/a.txt", b"second"),
        ("d/a.txt", b"third"),
        ("noext", b"n"),
        (".rc", b"rc"),
        ("x.tar.gz", b"t"),
        ("dir", b"not a dir"),
    ]);
    let out = temp_dir("extract-rename");
    std::fs::create_dir_all(out.join("d")).unwrap();
    for (name, old) in [
        ("d/a.txt", "old"),
        ("d/a_2.txt", "old 2"),
        ("noext", "old"),
        (".rc", "old"),
        ("x.tar.gz", "old"),
    ] {
        std::fs::write(out.join(name), old).unwrap();
    }
    std::fs::create_dir(out.join("dir")).unwrap();
    let rename = ExtractOptions::default().with_overwrite(Overwrite::Rename);
    let mut a = Archive::open(Cursor::new(archive)).unwrap();
    a.extract_to_with(&out, &rename).unwrap();
    for (name, want) in [
        ("d/a.txt", "old"),
        ("d/a_1.txt", "first"),
        ("d/a_2.txt", "old 2"),
        ("d/a_3.txt", "second"),
        ("d/a_4.txt", "third"),
        ("noext", "old"),
        ("noext_1", "n"),
        (".rc", "old"),
        (".rc_1", "rc"),
        ("x.tar.gz", "old"),
        ("x.tar_1.gz", "t"),
        ("dir_1", "not a dir"),
    ] {
        assert_eq!(
            std::fs::read_to_string(out.join(name)).unwrap(),
            want,
            "{name}"
        );
    }
    assert!(out.join("dir").is_dir());
    let _ = std::fs::remove_dir_all(out);
}

/// Many entries of one name cost one try each: 20,000 are planned in
/// well under a second (each try looks at the disk once).
#[test]
fn renaming_many_entries_of_one_name_stays_linear() {
    let out = temp_dir("extract-rename-many");
    let mut ex = lzflow_core::extract::Extractor::new(
        &out,
        ExtractOptions::default().with_overwrite(Overwrite::Rename),
    )
    .unwrap();
    let start = std::time::Instant::now();
    let names = vec![("same.txt", lzflow_core::extract::EntryKind::File); 20_000];
    let planned = ex.plan(names).unwrap();
    assert_eq!(
        planned.last(),
        Some(&lzflow_core::extract::Planned::Write(PathBuf::from(
            "same_19999.txt"
        )))
    );
    assert!(
        start.elapsed() < std::time::Duration::from_secs(5),
        "{:?}",
        start.elapsed()
    );
    let _ = std::fs::remove_dir_all(out);
}

#[test]
fn a_file_directory_clash_says_what_clashed() {
    let out = temp_dir("extract-clash");
    let mut a = Archive::open(Cursor::new(copy_archive(&[("a", b"file"), ("a/b", b"x")]))).unwrap();
    let err = a.extract_to(&out).unwrap_err();
    assert_eq!(
        err.to_string(),
        "a is a file, but an entry needs a directory there",
        "{err:?}"
    );
    assert!(listing(&out).is_empty());
    std::fs::create_dir(out.join("c")).unwrap();
    let mut a = Archive::open(Cursor::new(copy_archive(&[("c", b"file")]))).unwrap();
    let always = ExtractOptions::default().with_overwrite(Overwrite::Always);
    let err = a.extract_to_with(&out, &always).unwrap_err();
    match err {
        SevenZError::Extract(ExtractError::Clash {
            path,
            existing,
            wanted,
        }) => {
            assert_eq!(path, out.join("c"));
            assert_eq!((existing, wanted), ("a directory", "a file"));
        }
        other => panic!("{other:?}"),
    }
    let _ = std::fs::remove_dir_all(out);
}

#[test]
fn a_failed_entry_leaves_no_file_and_earlier_entries_stay() {
    let archive = copy_archive(&[("one", b"first"), ("two", b"second"), ("three", b"third")]);
    let mut bad = archive;
    // "second" starts at 32 + 5: damage it.
    bad[32 + 6] ^= 0x01;
    let out = temp_dir("extract-failed");
    let mut a = Archive::open(Cursor::new(bad.clone())).unwrap();
    let err = a.extract_to(&out).unwrap_err();
    assert!(
        matches!(&err, SevenZError::DataCrc { entry } if entry == "two"),
        "{err:?}"
    );
    assert_eq!(listing(&out), ["one"], "no file for two, no temporary file");
    assert_eq!(std::fs::read(out.join("one")).unwrap(), b"first");
    let _ = std::fs::remove_dir_all(&out);
    // keep_broken: the damaged data is kept under its name.
    let mut a = Archive::open(Cursor::new(bad)).unwrap();
    let keep = ExtractOptions::default().with_keep_broken(true);
    assert!(a.extract_to_with(&out, &keep).is_err());
    assert_eq!(listing(&out), ["one", "two"]);
    assert_eq!(
        std::fs::read(out.join("two")).unwrap(),
        b"sdcond",
        "every byte, damage included"
    );
    let _ = std::fs::remove_dir_all(out);
}

#[test]
fn a_wrong_password_leaves_nothing() {
    let options = WriterOptions::default().with_password("right");
    let mut w = Writer::with_options(Cursor::new(Vec::new()), options).unwrap();
    w.add_dir("dir", EntryMeta::default()).unwrap();
    w.add_empty_file("dir/empty", EntryMeta::default()).unwrap();
    w.add_file("dir/data.txt", &[7u8; 250_000][..], EntryMeta::default())
        .unwrap();
    w.add_file("z.txt", &b"more data"[..], EntryMeta::default())
        .unwrap();
    let archive = w.finish().unwrap().into_inner();
    let out = temp_dir("extract-wrong-password");
    let wrong = lzflow_7z::ArchiveOptions::default().with_password("wrong");
    let mut a = Archive::open_with(Cursor::new(archive.clone()), wrong).unwrap();
    let err = a.extract_to(&out).unwrap_err();
    assert!(matches!(err, SevenZError::WrongPassword), "{err:?}");
    assert!(listing(&out).is_empty(), "{:?}", listing(&out));
    let right = lzflow_7z::ArchiveOptions::default().with_password("right");
    let mut a = Archive::open_with(Cursor::new(archive), right).unwrap();
    a.extract_to(&out).unwrap();
    assert_eq!(listing(&out), ["dir", "z.txt"]);
    assert_eq!(
        std::fs::read(out.join("dir/data.txt")).unwrap().len(),
        250_000
    );
    let _ = std::fs::remove_dir_all(out);
}

#[test]
fn unnamed_entries_take_the_callers_default_name() {
    let out = temp_dir("extract-unnamed");
    let mut a = Archive::open(Cursor::new(copy_archive(&[("", b"hello")]))).unwrap();
    let options = ExtractOptions::default().with_unnamed("archive");
    a.extract_to_with(&out, &options).unwrap();
    assert_eq!(std::fs::read(out.join("archive")).unwrap(), b"hello");
    // Two unnamed entries are duplicates like any other.
    let _ = std::fs::remove_dir_all(&out);
    let mut a =
        Archive::open(Cursor::new(copy_archive(&[("", b"hello"), ("", b"world")]))).unwrap();
    let err = a.extract_to_with(&out, &options).unwrap_err();
    assert!(
        matches!(err, SevenZError::Extract(ExtractError::Duplicate { .. })),
        "{err:?}"
    );
    let _ = std::fs::remove_dir_all(out);
}

#[test]
fn unsafe_paths_can_be_skipped() {
    let out = temp_dir("extract-skip-unsafe");
    let target = out.join("t");
    let archive = copy_archive(&[("../up.txt", b"evil"), ("fine.txt", b"ok")]);
    let mut a = Archive::open(Cursor::new(archive)).unwrap();
    let options = ExtractOptions::default().with_paths(PathPolicy::Skip);
    a.extract_to_with(&target, &options).unwrap();
    assert_eq!(listing(&target), ["fine.txt"]);
    assert_eq!(listing(&out), ["t"]);
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

/// Five text files of 100 KiB, one folder each, and the archive with the
/// packed data of folder 2 (`f2.txt`) damaged.
fn non_solid_with_a_damaged_folder() -> (Vec<(String, Vec<u8>)>, Vec<u8>) {
    let mut rng = common::Rng::new(7);
    let files: Vec<(String, Vec<u8>)> = (0..5)
        .map(|i| (format!("f{i}.txt"), common::text(&mut rng, 100 << 10)))
        .collect();
    let options = WriterOptions::default().with_solid(lzflow_7z::Solid::None);
    let mut w = Writer::with_options(Cursor::new(Vec::new()), options).unwrap();
    for (name, data) in &files {
        w.add_file(name, &data[..], EntryMeta::default()).unwrap();
    }
    let mut archive = w.finish().unwrap().into_inner();
    let a = Archive::open(Cursor::new(archive.clone())).unwrap();
    let index = a.index();
    assert_eq!(index.folder_count(), 5);
    let start: u64 = 32 + (0..2).map(|f| index.folder_packed_size(f)).sum::<u64>();
    let middle = start + index.folder_packed_size(2) / 2;
    for k in 0..8 {
        archive[middle as usize + k] ^= 0x55;
    }
    (files, archive)
}

#[test]
fn a_selection_writes_only_its_entries_and_decodes_no_other_folder() {
    let (files, bad) = non_solid_with_a_damaged_folder();
    for threads in [1, 2] {
        let opts = lzflow_7z::ArchiveOptions::default().with_threads(threads);
        let out = temp_dir(&format!("extract-select-{threads}"));
        // Everything: the damaged folder fails its entry.
        let mut a = Archive::open_with(Cursor::new(bad.clone()), opts.clone()).unwrap();
        assert!(a.extract_to(out.join("all")).is_err(), "{threads} threads");
        // All but f2.txt: its folder is never decoded, so nothing fails.
        let mut a = Archive::open_with(Cursor::new(bad.clone()), opts.clone()).unwrap();
        let select = ExtractOptions::default().with_select(|name| name != "f2.txt");
        a.extract_to_with(out.join("some"), &select).unwrap();
        assert_eq!(
            listing(&out.join("some")),
            ["f0.txt", "f1.txt", "f3.txt", "f4.txt"]
        );
        for (name, data) in files.iter().filter(|(n, _)| n != "f2.txt") {
            assert_eq!(&std::fs::read(out.join("some").join(name)).unwrap(), data);
        }
        // The walk itself: it stops at the entries picked, with their data.
        let mut a = Archive::open_with(Cursor::new(bad.clone()), opts).unwrap();
        let mut seen = Vec::new();
        a.for_each_entry_where(
            |i, e| i == 1 || e.name == "f4.txt",
            |e, data| {
                let mut bytes = Vec::new();
                data.read_to_end(&mut bytes)?;
                seen.push((e.name.clone(), bytes));
                Ok(())
            },
        )
        .unwrap();
        assert_eq!(seen, [files[1].clone(), files[4].clone()]);
        let _ = std::fs::remove_dir_all(out);
    }
}

#[test]
fn a_selection_leaves_a_solid_folder_after_its_last_pick() {
    let mut rng = common::Rng::new(11);
    let first = common::text(&mut rng, 1000);
    let rest = common::text(&mut rng, 400 << 10);
    let mut w = Writer::new(Cursor::new(Vec::new())).unwrap();
    w.add_file("first.txt", &first[..], EntryMeta::default())
        .unwrap();
    w.add_file("rest.txt", &rest[..], EntryMeta::default())
        .unwrap();
    let mut archive = w.finish().unwrap().into_inner();
    let packed = Archive::open(Cursor::new(archive.clone()))
        .unwrap()
        .index()
        .folder_packed_size(0);
    assert_eq!(
        Archive::open(Cursor::new(archive.clone()))
            .unwrap()
            .index()
            .folder_count(),
        1,
        "one solid folder"
    );
    // Damage the last packed bytes, far past what first.txt needs.
    let end = 32 + packed as usize;
    for b in &mut archive[end - 16..end] {
        *b ^= 0xA5;
    }
    let out = temp_dir("extract-select-solid");
    let mut a = Archive::open(Cursor::new(archive.clone())).unwrap();
    assert!(a.extract_to(out.join("all")).is_err());
    let mut a = Archive::open(Cursor::new(archive)).unwrap();
    let select = ExtractOptions::default().with_select(|name| name == "first.txt");
    a.extract_to_with(out.join("first"), &select).unwrap();
    assert_eq!(listing(&out.join("first")), ["first.txt"]);
    assert_eq!(std::fs::read(out.join("first/first.txt")).unwrap(), first);
    let _ = std::fs::remove_dir_all(out);
}

#[test]
fn entries_not_selected_are_not_judged() {
    // An unsafe path and a duplicate name, neither selected: no refusal.
    let archive = copy_archive(&[
        ("../evil.txt", b"evil"),
        ("dup.txt", b"one"),
        ("keep/a.txt", b"kept"),
        ("dup.txt", b"two"),
    ]);
    let out = temp_dir("extract-select-unjudged");
    let target = out.join("t");
    let mut a = Archive::open(Cursor::new(archive)).unwrap();
    let select = ExtractOptions::default().with_select(|name| name.starts_with("keep/"));
    a.extract_to_with(&target, &select).unwrap();
    assert_eq!(listing(&target), ["keep"]);
    assert_eq!(std::fs::read(target.join("keep/a.txt")).unwrap(), b"kept");
    assert_eq!(listing(&out), ["t"]);
    let _ = std::fs::remove_dir_all(out);
}
