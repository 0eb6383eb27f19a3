//! `lzflow t`: integrity tests over the XZ Utils test files, with the exit
//! status and messages of xz.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_lzflow"))
}

fn xz_utils() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/xz-utils")
}

/// (file, expected) for the .xz and .lzma rows of EXPECT.tsv.
fn expectations() -> Vec<(String, String)> {
    let text = fs::read_to_string(xz_utils().join("EXPECT.tsv")).unwrap();
    text.lines()
        .skip(1)
        .map(|l| l.split('\t').collect::<Vec<_>>())
        .filter(|f| f[1] != "lzip")
        .map(|f| (f[0].to_string(), f[2].to_string()))
        .collect()
}

#[test]
fn good_files_pass_silently() {
    let good: Vec<PathBuf> = expectations()
        .into_iter()
        .filter(|(_, e)| e == "ok")
        .map(|(f, _)| xz_utils().join("files").join(f))
        .collect();
    assert_eq!(good.len(), 25);
    let out = bin().arg("t").args(&good).output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.stdout.is_empty() && out.stderr.is_empty());

    let out = bin().args(["t", "-v"]).arg(&good[0]).output().unwrap();
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        format!("{}: OK (0 bytes)\n", good[0].display()),
        "good-0-empty.xz decodes to nothing"
    );
}

#[test]
fn every_bad_file_fails_with_its_own_message() {
    for (file, expected) in expectations() {
        if expected == "ok" || file == "unsupported-check.xz" {
            continue;
        }
        let path = xz_utils().join("files").join(&file);
        let out = bin().arg("t").arg(&path).output().unwrap();
        assert_eq!(out.status.code(), Some(1), "{file} must fail");
        let msg = String::from_utf8_lossy(&out.stderr);
        let prefix = format!("lzflow: {}: ", path.display());
        assert!(msg.starts_with(&prefix), "{file}: {msg}");
        assert!(
            msg.trim_end().len() > prefix.len() + 5,
            "{file}: message too short: {msg}"
        );
        assert!(out.stdout.is_empty(), "t writes no data");
    }
}

#[test]
fn one_bad_file_among_good_ones_fails_the_run_but_all_are_tested() {
    let files = xz_utils().join("files");
    let out = bin()
        .arg("t")
        .arg(files.join("good-1-check-crc32.xz"))
        .arg(files.join("bad-1-check-crc32.xz"))
        .arg(files.join("good-1-check-sha256.xz"))
        .arg(files.join("bad-0-empty-truncated.xz"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let msg = String::from_utf8_lossy(&out.stderr);
    let lines: Vec<&str> = msg.lines().collect();
    assert_eq!(lines.len(), 2, "{msg}");
    assert!(lines[0].contains("bad-1-check-crc32.xz"));
    assert!(lines[1].contains("bad-0-empty-truncated.xz"));
}

#[test]
fn usage_errors_exit_1_and_help_exits_0() {
    let out = bin().args(["t", "--no-such-option"]).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let out = bin().arg("--help").output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    let help = String::from_utf8_lossy(&out.stdout);
    for sub in ["d", "t", "l", "c"] {
        assert!(
            help.contains(&format!("  {sub} ")),
            "help lists `{sub}`: {help}"
        );
    }
}

#[test]
fn unverifiable_check_is_a_warning_with_status_2_like_xz() {
    let path = xz_utils().join("files/unsupported-check.xz");
    let out = bin().arg("t").arg(&path).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let msg = String::from_utf8_lossy(&out.stderr);
    assert!(
        msg.starts_with(&format!("lzflow: {}: ", path.display())) && msg.contains("not verified"),
        "{msg}"
    );

    // d still writes the data (EXPECT.tsv: 13 bytes, what xz writes too).
    let out = bin().args(["d", "-c"]).arg(&path).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(out.stdout.len(), 13);

    // An error elsewhere outranks the warning.
    let out = bin()
        .arg("t")
        .arg(&path)
        .arg(xz_utils().join("files/bad-1-check-crc64.xz"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
}
