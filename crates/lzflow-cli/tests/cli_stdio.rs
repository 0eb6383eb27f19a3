//! 7-Zip's standard streams: `x -so` / `e -so` (the selected files'
//! data on standard output, nothing on disk), `a -si[NAME]` (one entry
//! read from standard input) and `a -tzip -so` (a streaming zip on
//! standard output).

mod support;

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use support::{bin, files_below, has_7zz, scratch, stderr, with_stdin};

/// Packs three files into `dir/t.7z` and `dir/t.zip`.
fn archives(dir: &Path) -> [PathBuf; 2] {
    let src = dir.join("src");
    fs::create_dir_all(src.join("sub")).unwrap();
    fs::write(src.join("one.txt"), "first\n").unwrap();
    fs::write(src.join("sub/two.txt"), "second\n").unwrap();
    fs::write(src.join("sub/three.bin"), [0u8, 1, 2, 255]).unwrap();
    ["t.7z", "t.zip"].map(|name| {
        let archive = dir.join(name);
        let out = bin()
            .arg("a")
            .arg(&archive)
            .args(["one.txt", "sub", "-q"])
            .current_dir(&src)
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", stderr(&out));
        archive
    })
}

/// Bytes that compress a little but not to nothing.
fn data(len: usize) -> Vec<u8> {
    let mut x = 0x2545_f491_u32;
    (0..len)
        .map(|i| {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            if i.is_multiple_of(3) {
                b'a' + (x % 4) as u8
            } else {
                x as u8
            }
        })
        .collect()
}

#[test]
fn so_writes_the_selected_files_and_creates_nothing() {
    let dir = scratch("stdio-so");
    let compare = has_7zz();
    for archive in archives(&dir) {
        let cwd = dir.join("cwd");
        fs::create_dir_all(&cwd).unwrap();
        for command in ["x", "e"] {
            let out = bin()
                .arg(command)
                .arg(&archive)
                .args(["-so", "*.txt"])
                .current_dir(&cwd)
                .output()
                .unwrap();
            assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
            assert_eq!(stderr(&out), "");
            assert_eq!(out.stdout, b"first\nsecond\n", "{command}");
            assert_eq!(fs::read_dir(&cwd).unwrap().count(), 0, "nothing on disk");
            if compare {
                let theirs = Command::new("7zz")
                    .args([command, "-r", "-so"])
                    .arg(&archive)
                    .arg("*.txt")
                    .output()
                    .unwrap();
                assert_eq!(out.stdout, theirs.stdout, "as 7zz {command} -so");
            }
        }
        // Every file, in archive order; -o is ignored, as 7-Zip ignores it.
        let out = bin()
            .arg("e")
            .arg(&archive)
            .arg("-so")
            .arg("-o")
            .arg(dir.join("unused"))
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        // The files' data in the order the listing shows the entries.
        let listing = bin().arg("l").arg(&archive).output().unwrap();
        let text = String::from_utf8_lossy(&listing.stdout).into_owned();
        let want: Vec<u8> = text
            .lines()
            .filter_map(|row| match row.split_whitespace().last() {
                Some("one.txt") => Some(&b"first\n"[..]),
                Some("sub/two.txt") => Some(&b"second\n"[..]),
                Some("sub/three.bin") => Some(&[0u8, 1, 2, 255][..]),
                _ => None,
            })
            .flatten()
            .copied()
            .collect();
        assert_eq!(want.len(), 17);
        assert_eq!(out.stdout, want);
        assert!(!dir.join("unused").exists());
    }
    // A zip archive on standard input, read forward-only.
    let zip = fs::read(dir.join("t.zip")).unwrap();
    let mut cmd = bin();
    cmd.args(["x", "-", "-so", "one.txt"]);
    let out = with_stdin(cmd, &zip);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert_eq!(out.stdout, b"first\n");
    // -so and the overwrite switches exclude each other: a usage error.
    let out = bin()
        .arg("x")
        .arg(dir.join("t.7z"))
        .args(["-so", "-aoa"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(7), "{}", stderr(&out));
    assert!(out.stdout.is_empty());
    fs::remove_dir_all(&dir).ok();
}

#[test]
fn so_of_a_damaged_archive_is_a_fatal_error() {
    let dir = scratch("stdio-so-bad");
    let [sevenz, _] = archives(&dir);
    let mut bytes = fs::read(&sevenz).unwrap();
    // The packed stream starts right after the 32-byte signature header.
    bytes[40] ^= 0x55;
    let bad = dir.join("bad.7z");
    fs::write(&bad, &bytes).unwrap();
    let out = bin().arg("x").arg(&bad).arg("-so").output().unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).starts_with(&format!("lzflow: {}: ", bad.display())));
    fs::remove_dir_all(&dir).ok();
}

#[test]
fn si_stores_standard_input_as_one_entry() {
    let dir = scratch("stdio-si");
    let input = data(300_000);
    // (switches, archive, the entry's name)
    let cases: [(&[&str], &str, &str); 4] = [
        (&["-si"], "piped.7z", "piped"),
        (&["-sidata.bin"], "named.7z", "data.bin"),
        (&["-tzip", "-si"], "piped.zip", "piped"),
        (&["--stdin-name=x/y.txt"], "long.zip", "x/y.txt"),
    ];
    for (switches, archive, entry) in cases {
        let mut cmd = bin();
        cmd.arg("a").args(switches).arg(archive).current_dir(&dir);
        let out = with_stdin(cmd, &input);
        assert_eq!(out.status.code(), Some(0), "{switches:?}: {}", stderr(&out));
        let listing = bin().arg("l").arg(dir.join(archive)).output().unwrap();
        let text = String::from_utf8_lossy(&listing.stdout).into_owned();
        let rows: Vec<&str> = text.lines().collect();
        assert_eq!(rows.len(), 3, "one entry: {text}");
        assert!(rows[1].ends_with(&format!(" {entry}")), "{text}");
        let back = bin()
            .args(["x", "-so"])
            .arg(dir.join(archive))
            .output()
            .unwrap();
        assert!(back.stdout == input, "{archive}: the data comes back");
        if has_7zz() {
            let theirs = Command::new("7zz")
                .args(["e", "-so"])
                .arg(dir.join(archive))
                .output()
                .unwrap();
            assert!(theirs.stdout == input, "{archive}: 7zz reads it");
        }
    }
    // -si with files is a usage error, and nothing is created.
    let mut cmd = bin();
    cmd.args(["a", "-si", "both.7z", "piped.7z"])
        .current_dir(&dir);
    let out = with_stdin(cmd, b"x");
    assert_eq!(out.status.code(), Some(7), "{}", stderr(&out));
    assert!(!dir.join("both.7z").exists());
    fs::remove_dir_all(&dir).ok();
}

#[test]
fn a_tzip_so_writes_a_streaming_zip_to_standard_output() {
    let dir = scratch("stdio-a-so");
    archives(&dir);
    let src = dir.join("src");
    let out = bin()
        .args(["a", "-tzip", "-so", "ignored.zip", "one.txt", "sub"])
        .current_dir(&src)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(!src.join("ignored.zip").exists(), "nothing but stdout");
    let zip = dir.join("streamed.zip");
    fs::write(&zip, &out.stdout).unwrap();
    let target = dir.join("back");
    let back = bin()
        .arg("x")
        .arg(&zip)
        .arg("-o")
        .arg(&target)
        .output()
        .unwrap();
    assert_eq!(back.status.code(), Some(0), "{}", stderr(&back));
    assert_eq!(
        files_below(&target),
        ["one.txt", "sub/three.bin", "sub/two.txt"]
    );
    assert_eq!(fs::read(target.join("sub/two.txt")).unwrap(), b"second\n");
    if Command::new("unzip").arg("-v").output().is_ok() {
        let tested = Command::new("unzip").arg("-t").arg(&zip).output().unwrap();
        assert!(tested.status.success(), "{}", stderr(&tested));
    }

    // Standard input through to standard output.
    let input = data(200_000);
    let mut cmd = bin();
    cmd.args(["a", "-tzip", "-so", "-sipayload", "-"]);
    let out = with_stdin(cmd, &input);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let mut cmd = bin();
    cmd.args(["x", "-", "-so", "payload"]);
    let back = with_stdin(cmd, &out.stdout);
    assert!(back.stdout == input);

    // A 7z archive needs seeking: refused as a usage error, nothing
    // written.
    let out = bin()
        .args(["a", "-so", "out.7z", "one.txt"])
        .current_dir(&src)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(7));
    assert!(out.stdout.is_empty());
    assert_eq!(
        stderr(&out),
        "lzflow: a 7z archive cannot be written to standard output (its header is patched in place); use -tzip\n"
    );
    fs::remove_dir_all(&dir).ok();
}
