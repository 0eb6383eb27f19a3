//! Wildcards choosing entries for `x`, `e`, `l` and `t` (positional,
//! `-i!`/`-x!`, `--include`/`--exclude`), and `e`'s extraction without
//! paths, checked against exact file sets and, where `7zz` is installed,
//! against what `7zz x -r` and `7zz e -r` select on the same archive.

mod support;

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use support::{bin, files_below, has_7zz, scratch, stderr};

/// The tree every test packs: two `a.txt` at different depths, a nested
/// directory, and contents whose sizes add up recognisably.
const TREE: [(&str, &str); 5] = [
    ("a.txt", "top a"),
    ("b/a.txt", "b a"),
    ("b/e.bin", "e"),
    ("docs/c.md", "c md"),
    ("docs/sub/d.txt", "d"),
];

/// Packs [`TREE`] into `dir/t.7z` and `dir/t.zip` with `lzflow a`.
fn archives(dir: &Path) -> [PathBuf; 2] {
    let src = dir.join("src");
    for (name, text) in TREE {
        let path = src.join(name);
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(path, text).unwrap();
    }
    ["t.7z", "t.zip"].map(|name| {
        let archive = dir.join(name);
        let out = bin()
            .arg("a")
            .arg(&archive)
            .args(["a.txt", "b", "docs", "-q"])
            .current_dir(&src)
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", stderr(&out));
        archive
    })
}

fn lzflow(command: &str, archive: &Path, target: &Path, extra: &[&str]) -> Output {
    bin()
        .arg(command)
        .arg(archive)
        .arg("-o")
        .arg(target)
        .args(extra)
        .output()
        .unwrap()
}

/// `7zz COMMAND -r -y ARCHIVE -oTARGET EXTRA…`, which must succeed.
fn seven_zip(command: &str, archive: &Path, target: &Path, extra: &[&str]) {
    let out = Command::new("7zz")
        .args([command, "-r", "-bd"])
        .arg(archive)
        .arg(format!("-o{}", target.display()))
        .args(extra)
        .output()
        .unwrap();
    assert!(out.status.success(), "7zz {extra:?}: {}", stderr(&out));
}

/// Each wildcard line with the files `x` extracts for it.
const SELECTIONS: [(&[&str], &[&str]); 7] = [
    (&["*.txt"], &["a.txt", "b/a.txt", "docs/sub/d.txt"]),
    (&["docs/*"], &["docs/c.md", "docs/sub/d.txt"]),
    (&["*.txt", "-x!b/*"], &["a.txt", "docs/sub/d.txt"]),
    (&["-i!sub"], &["docs/sub/d.txt"]),
    (&["-x!*.txt"], &["b/e.bin", "docs/c.md"]),
    (&["*/a.txt", "?.bin"], &["b/a.txt", "b/e.bin"]),
    (&["--include", "*.md", "--exclude", "c*"], &[]),
];

#[test]
fn x_extracts_what_the_wildcards_select_as_7zz_does() {
    let dir = scratch("filters-x");
    let compare = has_7zz();
    for archive in archives(&dir) {
        for (i, (wildcards, want)) in SELECTIONS.iter().enumerate() {
            let target = dir.join(format!("x{i}"));
            let out = lzflow("x", &archive, &target, wildcards);
            assert_eq!(
                out.status.code(),
                Some(0),
                "{wildcards:?}: {}",
                stderr(&out)
            );
            assert_eq!(files_below(&target), *want, "{wildcards:?}");
            if compare {
                // 7-Zip spells the long options -i! and -x!.
                let spelled: Vec<String> = wildcards
                    .join(" ")
                    .replace("--include ", "-i!")
                    .replace("--exclude ", "-x!")
                    .split(' ')
                    .map(str::to_string)
                    .collect();
                let spelled: Vec<&str> = spelled.iter().map(String::as_str).collect();
                let theirs = dir.join(format!("7zz-x{i}"));
                seven_zip("x", &archive, &theirs, &spelled);
                assert_eq!(files_below(&target), files_below(&theirs), "{wildcards:?}");
                fs::remove_dir_all(&theirs).ok();
            }
            for file in *want {
                let stored = TREE.iter().find(|(n, _)| n == file).unwrap().1;
                assert_eq!(fs::read_to_string(target.join(file)).unwrap(), stored);
            }
            fs::remove_dir_all(&target).ok();
        }
    }
    fs::remove_dir_all(&dir).ok();
}

#[test]
fn a_wildcard_that_selects_nothing_is_reported_and_exits_0_as_in_7zip() {
    let dir = scratch("filters-none");
    for archive in archives(&dir) {
        let target = dir.join("out");
        let out = lzflow("x", &archive, &target, &["nothing*", "*.md"]);
        let name = archive.display();
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        assert_eq!(
            stderr(&out),
            format!("lzflow: {name}: no entry matches 'nothing*'\n")
        );
        assert_eq!(files_below(&target), ["docs/c.md"]);
        fs::remove_dir_all(&target).ok();
        // Nothing at all: 7-Zip says "No files to process" and exits 0.
        let out = lzflow("x", &archive, &target, &["nothing*"]);
        assert_eq!(out.status.code(), Some(0));
        assert_eq!(
            stderr(&out),
            format!(
                "lzflow: {name}: no entry matches 'nothing*'\n\
                 lzflow: {name}: no files to process\n"
            )
        );
        assert_eq!(files_below(&target), Vec::<String>::new());
        fs::remove_dir_all(&target).ok();
    }
    if has_7zz() {
        let out = Command::new("7zz")
            .args(["x", "-r", "-bd", "-y"])
            .arg(dir.join("t.7z"))
            .arg(format!("-o{}", dir.join("7zz").display()))
            .arg("nothing*")
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0));
        assert!(String::from_utf8_lossy(&out.stdout).contains("No files to process"));
    }
    fs::remove_dir_all(&dir).ok();
}

#[test]
fn e_writes_files_without_paths_and_keeps_the_first_of_a_name() {
    let dir = scratch("filters-e");
    let compare = has_7zz();
    for archive in archives(&dir) {
        let name = archive.display().to_string();
        let target = dir.join("e");
        // Two entries are named a.txt: the first is kept, the other
        // reported, status 1 (some files were not extracted).
        let out = lzflow("e", &archive, &target, &[]);
        assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
        assert_eq!(
            stderr(&out),
            format!(
                "lzflow: {name}: b/a.txt: not extracted: an earlier entry is also named a.txt (-aoa overwrites)\n"
            )
        );
        assert_eq!(files_below(&target), ["a.txt", "c.md", "d.txt", "e.bin"]);
        let dirs = fs::read_dir(&target)
            .unwrap()
            .filter(|e| e.as_ref().unwrap().path().is_dir())
            .count();
        assert_eq!(dirs, 0, "e creates no directory");
        assert_eq!(fs::read_to_string(target.join("a.txt")).unwrap(), "top a");
        assert_eq!(fs::read_to_string(target.join("d.txt")).unwrap(), "d");
        // -aos keeps the first quietly, as it keeps existing files.
        let quiet = dir.join("aos");
        let out = lzflow("e", &archive, &quiet, &["-aos"]);
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        assert_eq!(stderr(&out), "");
        assert_eq!(files_below(&quiet), files_below(&target));
        assert_eq!(fs::read_to_string(quiet.join("a.txt")).unwrap(), "top a");
        fs::remove_dir_all(&quiet).ok();
        if compare {
            // 7-Zip asks about the second a.txt; -aos answers "keep".
            let theirs = dir.join("7zz-e");
            seven_zip("e", &archive, &theirs, &["-aos"]);
            let mut their_files = files_below(&theirs);
            their_files.retain(|f| !theirs.join(f).is_dir());
            assert_eq!(files_below(&target), their_files);
            assert_eq!(fs::read(theirs.join("a.txt")).unwrap(), b"top a");
            fs::remove_dir_all(&theirs).ok();
        }
        fs::remove_dir_all(&target).ok();

        // -aoa (and -y): the later entry replaces the earlier one.
        for replace in ["-aoa", "-y", "--overwrite"] {
            let out = lzflow("e", &archive, &target, &[replace, "*.txt"]);
            assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
            assert_eq!(stderr(&out), "");
            assert_eq!(files_below(&target), ["a.txt", "d.txt"]);
            assert_eq!(fs::read_to_string(target.join("a.txt")).unwrap(), "b a");
            fs::remove_dir_all(&target).ok();
        }
        if compare {
            let theirs = dir.join("7zz-e");
            seven_zip("e", &archive, &theirs, &["-aoa", "*.txt"]);
            assert_eq!(fs::read(theirs.join("a.txt")).unwrap(), b"b a");
            fs::remove_dir_all(&theirs).ok();
        }

        // An existing file stops `e` as it stops `x`, before anything is
        // written; -aos keeps it.
        fs::create_dir_all(&target).unwrap();
        fs::write(target.join("c.md"), "mine").unwrap();
        let out = lzflow("e", &archive, &target, &["docs/*", "-x!sub"]);
        assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
        assert!(
            stderr(&out).contains("c.md already exists"),
            "{}",
            stderr(&out)
        );
        assert_eq!(files_below(&target), ["c.md"]);
        let out = lzflow("e", &archive, &target, &["-aos", "docs/*"]);
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        assert_eq!(files_below(&target), ["c.md", "d.txt"]);
        assert_eq!(fs::read_to_string(target.join("c.md")).unwrap(), "mine");
        fs::remove_dir_all(&target).ok();
    }
    fs::remove_dir_all(&dir).ok();
}

#[cfg(unix)]
#[test]
fn e_never_writes_through_a_link_in_the_target() {
    let dir = scratch("filters-e-link");
    let [sevenz, zip] = archives(&dir);
    for archive in [sevenz, zip] {
        let target = dir.join("out");
        fs::create_dir_all(&target).unwrap();
        let victim = dir.join("victim");
        fs::write(&victim, "precious").unwrap();
        std::os::unix::fs::symlink(&victim, target.join("e.bin")).unwrap();
        let out = lzflow("e", &archive, &target, &["*.bin"]);
        assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
        assert!(target.join("e.bin").is_symlink());
        let out = lzflow("e", &archive, &target, &["-aoa", "*.bin"]);
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        assert_eq!(fs::read_to_string(&victim).unwrap(), "precious");
        assert!(
            !target.join("e.bin").is_symlink(),
            "the link itself is replaced"
        );
        assert_eq!(fs::read_to_string(target.join("e.bin")).unwrap(), "e");
        fs::remove_dir_all(&target).ok();
    }
    fs::remove_dir_all(&dir).ok();
}

#[test]
fn e_refuses_a_last_name_that_climbs() {
    // A zip whose entry ends in `..`: without its path it would be the
    // target's parent. Nothing is written.
    let dir = scratch("filters-e-dotdot");
    let mut zip = Vec::new();
    let name = b"x/..";
    let data = b"evil";
    let crc = crc32fast::hash(data);
    let local = |zip: &mut Vec<u8>| {
        zip.extend_from_slice(b"PK\x03\x04\x0a\x00\x00\x00\x00\x00\x00\x00\x21\x00");
        zip.extend_from_slice(&crc.to_le_bytes());
        zip.extend_from_slice(&(data.len() as u32).to_le_bytes());
        zip.extend_from_slice(&(data.len() as u32).to_le_bytes());
        zip.extend_from_slice(&(name.len() as u16).to_le_bytes());
        zip.extend_from_slice(&0u16.to_le_bytes());
        zip.extend_from_slice(name);
        zip.extend_from_slice(data);
    };
    local(&mut zip);
    let directory_at = zip.len() as u32;
    zip.extend_from_slice(b"PK\x01\x02\x14\x00\x0a\x00\x00\x00\x00\x00\x00\x00\x21\x00");
    zip.extend_from_slice(&crc.to_le_bytes());
    zip.extend_from_slice(&(data.len() as u32).to_le_bytes());
    zip.extend_from_slice(&(data.len() as u32).to_le_bytes());
    zip.extend_from_slice(&(name.len() as u16).to_le_bytes());
    zip.extend_from_slice(&[0; 12]);
    zip.extend_from_slice(&0u32.to_le_bytes());
    zip.extend_from_slice(name);
    let directory_len = zip.len() as u32 - directory_at;
    zip.extend_from_slice(b"PK\x05\x06\x00\x00\x00\x00\x01\x00\x01\x00");
    zip.extend_from_slice(&directory_len.to_le_bytes());
    zip.extend_from_slice(&directory_at.to_le_bytes());
    zip.extend_from_slice(&0u16.to_le_bytes());
    let archive = dir.join("dotdot.zip");
    fs::write(&archive, &zip).unwrap();
    let target = dir.join("deep/out");
    let out = lzflow("e", &archive, &target, &[]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("outside the target"),
        "{}",
        stderr(&out)
    );
    assert_eq!(files_below(&dir.join("deep")), Vec::<String>::new());
    fs::remove_dir_all(&dir).ok();
}

/// The names in the last column of a listing's entry rows (a zip
/// directory's trailing `/` left out).
fn listed(stdout: &[u8]) -> Vec<String> {
    let text = String::from_utf8_lossy(stdout);
    let lines: Vec<&str> = text.lines().collect();
    lines[1..lines.len() - 1]
        .iter()
        .map(|l| {
            let name = l.split_whitespace().last().unwrap();
            name.trim_end_matches('/').to_string()
        })
        .collect()
}

#[test]
fn l_and_t_work_on_the_selected_entries() {
    let dir = scratch("filters-lt");
    for archive in archives(&dir) {
        let out = bin()
            .arg("l")
            .arg(&archive)
            .args(["*.txt", "-x!docs"])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        assert_eq!(listed(&out.stdout), ["a.txt", "b/a.txt"]);
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(
            text.lines()
                .last()
                .unwrap()
                .starts_with("2 files, 0 folders, "),
            "{text}"
        );
        let out = bin()
            .arg("l")
            .arg(&archive)
            .args(["--include", "docs"])
            .output()
            .unwrap();
        assert_eq!(
            listed(&out.stdout),
            ["docs", "docs/c.md", "docs/sub", "docs/sub/d.txt"]
        );

        // "top a" + "b a" + "d": 9 bytes in 3 entries.
        let out = bin()
            .args(["t", "-v"])
            .arg(&archive)
            .arg("*.txt")
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        assert_eq!(
            String::from_utf8_lossy(&out.stdout),
            format!("{}: OK (3 entries, 9 bytes)\n", archive.display())
        );
        let out = bin()
            .args(["t", "-v"])
            .arg(&archive)
            .args(["-x!*.txt", "-x!*.md"])
            .output()
            .unwrap();
        // b, b/e.bin, docs, docs/sub: one byte.
        assert_eq!(
            String::from_utf8_lossy(&out.stdout),
            format!("{}: OK (4 entries, 1 bytes)\n", archive.display())
        );
    }
    fs::remove_dir_all(&dir).ok();
}

#[test]
fn a_bad_wildcard_is_a_command_line_error() {
    let dir = scratch("filters-bad");
    let [sevenz, _] = archives(&dir);
    for command in ["x", "e", "l", "t"] {
        let out = bin()
            .arg(command)
            .arg(&sevenz)
            .args(["--exclude", ""])
            .current_dir(&dir)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(7), "{command}: {}", stderr(&out));
        assert_eq!(
            stderr(&out),
            "lzflow: '': an empty wildcard matches nothing\n",
            "{command}"
        );
    }
    fs::remove_dir_all(&dir).ok();
}

#[test]
fn wildcards_decode_only_what_the_selected_entries_need() {
    // Stored, one folder per file; the bytes of big.bin damaged in place.
    let dir = scratch("filters-undecoded");
    let src = dir.join("src");
    fs::create_dir_all(&src).unwrap();
    let big: Vec<u8> = (0..200_000u32).map(|i| (i % 253) as u8).collect();
    fs::write(src.join("a.txt"), "first").unwrap();
    fs::write(src.join("big.bin"), &big).unwrap();
    fs::write(src.join("c.txt"), "third").unwrap();
    let archive = dir.join("t.7z");
    let out = bin()
        .arg("a")
        .arg(&archive)
        .args(["a.txt", "big.bin", "c.txt", "-mx0", "-ms=off", "-q"])
        .current_dir(&src)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let mut bytes = fs::read(&archive).unwrap();
    let at = bytes
        .windows(64)
        .position(|w| w == &big[1000..1064])
        .unwrap();
    bytes[at] ^= 1;
    fs::write(&archive, bytes).unwrap();

    let out = lzflow("x", &archive, &dir.join("some"), &["*.txt"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(files_below(&dir.join("some")), ["a.txt", "c.txt"]);
    assert_eq!(fs::read(dir.join("some/c.txt")).unwrap(), b"third");
    let out = bin().arg("t").arg(&archive).arg("*.txt").output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    // The damage is there for whoever asks for big.bin.
    let out = lzflow("x", &archive, &dir.join("all"), &[]);
    assert_ne!(out.status.code(), Some(0));
    assert!(stderr(&out).contains("big.bin"), "{}", stderr(&out));
    let out = bin().arg("t").arg(&archive).output().unwrap();
    assert_ne!(out.status.code(), Some(0));
    fs::remove_dir_all(&dir).ok();
}

/// The `Key = Value` lines after the `----------` separator whose keys are
/// in `keys`.
fn technical(listing: &str, keys: &[&str]) -> Vec<String> {
    listing
        .split("\n----------\n")
        .nth(1)
        .unwrap_or("")
        .lines()
        .filter(|l| keys.iter().any(|k| l.starts_with(&format!("{k} = "))))
        .map(str::to_string)
        .collect()
}

#[test]
fn l_slt_gives_7zip_s_technical_listing() {
    if !has_7zz() {
        return;
    }
    let dir = scratch("filters-slt");
    let src = dir.join("src");
    for (name, text) in TREE {
        let path = src.join(name);
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(path, text).unwrap();
    }
    fs::set_permissions(
        src.join("b/e.bin"),
        std::os::unix::fs::PermissionsExt::from_mode(0o751),
    )
    .unwrap();
    // Made by 7zz itself (times to 100 ns) and by Info-ZIP when present.
    let mut archives = Vec::new();
    let seven = dir.join("t.7z");
    let out = Command::new("7zz")
        .args(["a", "-bd", "-bso0"])
        .arg(&seven)
        .args(["a.txt", "b", "docs"])
        .current_dir(&src)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    archives.push((
        seven,
        &[
            "Path",
            "Size",
            "Packed Size",
            "Modified",
            "Attributes",
            "CRC",
            "Encrypted",
            "Method",
            "Block",
        ][..],
    ));
    let zip = dir.join("t.zip");
    if Command::new("zip")
        .args(["-qr"])
        .arg(&zip)
        .args(["a.txt", "b", "docs"])
        .current_dir(&src)
        .status()
        .is_ok_and(|s| s.success())
    {
        archives.push((
            zip.clone(),
            &[
                "Path",
                "Folder",
                "Size",
                "Packed Size",
                "Modified",
                "Attributes",
                "Encrypted",
                "CRC",
                "Method",
                "Host OS",
                "Offset",
            ][..],
        ));
        // Forward-only from standard input: what the local headers give
        // (Info-ZIP writes sizes and CRCs there, not in descriptors).
        let keys = [
            "Path",
            "Folder",
            "Size",
            "Packed Size",
            "CRC",
            "Method",
            "Offset",
        ];
        let file = bin().arg("l").arg(&zip).arg("-slt").output().unwrap();
        let piped = support::with_stdin(
            {
                let mut c = bin();
                c.args(["l", "-slt", "-"]);
                c
            },
            &fs::read(&zip).unwrap(),
        );
        assert_eq!(piped.status.code(), Some(0), "{}", stderr(&piped));
        assert_eq!(
            technical(&stdout_text(&piped), &keys),
            technical(&stdout_text(&file), &keys)
        );
    } else {
        eprintln!("SKIPPED: zip is not installed; the zip half of the test");
    }
    for (archive, keys) in archives {
        let ours = bin().arg("l").arg(&archive).arg("-slt").output().unwrap();
        assert_eq!(ours.status.code(), Some(0), "{}", stderr(&ours));
        let theirs = Command::new("7zz")
            .args(["l", "-slt"])
            .arg(&archive)
            .env("TZ", "UTC")
            .output()
            .unwrap();
        let (ours, theirs) = (stdout_text(&ours), stdout_text(&theirs));
        let want = technical(&theirs, keys);
        assert_eq!(want.len(), 8 * keys.len(), "{archive:?}: {theirs}");
        assert_eq!(technical(&ours, keys), want, "{archive:?}");
        // With a wildcard, the selected entries only.
        let some = bin()
            .arg("l")
            .arg(&archive)
            .args(["-slt", "*.txt"])
            .output()
            .unwrap();
        assert_eq!(
            technical(&stdout_text(&some), &["Path"]),
            ["Path = a.txt", "Path = b/a.txt", "Path = docs/sub/d.txt"]
        );
    }
    fs::remove_dir_all(&dir).ok();
}

fn stdout_text(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}
