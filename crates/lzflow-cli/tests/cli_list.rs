//! `lzflow l`: the same table as `xz -l`, and errors for what is not .xz.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_lzflow"))
}

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures")
}

fn stdout(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
fn lists_one_file_like_xz() {
    let dir = fixtures().join("generated/xz");
    let out = bin()
        .arg("l")
        .arg("check-crc64.xz")
        .current_dir(&dir)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(
        stdout(&out),
        "Strms  Blocks   Compressed Uncompressed  Ratio  Check   Filename\n\
         \x20   1       1     11.2 KiB     34.3 KiB  0.325  CRC64   check-crc64.xz\n"
    );
}

#[test]
fn lists_several_files_with_totals() {
    let dir = fixtures().join("generated/xz");
    let out = bin()
        .args(["l", "check-crc64.xz", "multistream-padding.xz", "empty.xz"])
        .current_dir(&dir)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let expected = [
        "Strms  Blocks   Compressed Uncompressed  Ratio  Check   Filename",
        "    1       1     11.2 KiB     34.3 KiB  0.325  CRC64   check-crc64.xz",
        "    2       2     11.2 KiB     34.3 KiB  0.327  CRC32,CRC64 multistream-padding.xz",
        "    1       0         32 B          0 B    ---  CRC64   empty.xz",
        "-------------------------------------------------------------------------------",
        "    4       3     22.4 KiB     68.7 KiB  0.327  CRC32,CRC64 3 files",
    ];
    assert_eq!(stdout(&out).lines().collect::<Vec<_>>(), expected);
}

#[test]
fn verbose_listing_has_stream_and_block_tables() {
    let dir = fixtures().join("generated/xz");
    let out = bin()
        .args(["l", "-v", "multiblock.xz"])
        .current_dir(&dir)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = stdout(&out);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines[0], "multiblock.xz (1/1)");
    assert!(lines.contains(&"  Blocks:            7"));
    assert!(lines.contains(&"  Compressed size:   60.5 KiB (61916 B)"));
    assert!(lines.contains(&"  Uncompressed size: 200.0 KiB (204800 B)"));
    // Same numbers as `xz -lvv` for the stream and for blocks 1, 2 and 7.
    assert!(lines.contains(
        &"         1         7               0               0           61916          204800  0.302  CRC64            0"
    ));
    assert!(lines.contains(
        &"         1         1              12               0            9828           32768  0.300  CRC64"
    ));
    assert!(lines.contains(
        &"         1         2            9840           32768            9916           32768  0.303  CRC64"
    ));
    assert!(lines.contains(
        &"         1         7           59044          196608            2820            8192  0.344  CRC64"
    ));
}

#[test]
fn non_xz_and_broken_files_are_errors() {
    let lzma = fixtures().join("generated/lzma/empty.lzma");
    let out = bin().arg("l").arg(&lzma).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let msg = String::from_utf8_lossy(&out.stderr);
    assert!(
        msg.starts_with(&format!("lzflow: {}: ", lzma.display())),
        "{msg}"
    );
    assert!(msg.contains(".lzma"), "{msg}");

    let bad = fixtures().join("generated/xz/bad-trailing-garbage.xz");
    let good = fixtures().join("generated/xz/one-byte.xz");
    let out = bin().arg("l").arg(&bad).arg(&good).output().unwrap();
    assert_eq!(out.status.code(), Some(1), "one bad file fails the run");
    assert!(
        stdout(&out).contains("one-byte.xz"),
        "the good file is still listed"
    );
    let msg = String::from_utf8_lossy(&out.stderr);
    assert!(
        msg.starts_with(&format!("lzflow: {}: ", bad.display())),
        "{msg}"
    );
}

#[test]
fn identical_to_xz_list_on_good_files() {
    if Command::new("xz").arg("--version").output().is_err() {
        eprintln!("SKIPPED: xz is not installed (CI installs xz-utils); cannot compare with xz -l");
        return;
    }
    let mut compared = 0;
    for sub in ["generated/xz", "xz-utils/files"] {
        let dir = fixtures().join(sub);
        let mut names: Vec<String> = fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| {
                n.ends_with(".xz") && !n.starts_with("bad-") && !n.starts_with("unsupported-")
            })
            .collect();
        names.sort();
        for name in names {
            let theirs = Command::new("xz")
                .args(["-l", &name])
                .current_dir(&dir)
                .output()
                .unwrap();
            if !theirs.status.success() {
                continue;
            }
            let ours = bin().args(["l", &name]).current_dir(&dir).output().unwrap();
            assert_eq!(stdout(&ours), stdout(&theirs), "{sub}/{name}");
            compared += 1;
        }
    }
    assert!(compared >= 50, "compared only {compared} files");
}
