//! Passwords typed on the terminal: `x`, `t` and `l` ask for one when an
//! archive needs it and `-p` did not give it (as 7-Zip and unzip ask).
//! The terminal comes from `script`, which runs the command on a pseudo
//! terminal fed from its own standard input.
#![cfg(unix)]

mod support;

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use support::{bin, files_below, scratch, with_stdin};

fn generated(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../fixtures/generated/7z")
        .join(name)
}

fn zip_fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../fixtures/zip")
        .join(name)
}

/// Whether `script` (util-linux) is here; CI must have it.
fn have_script() -> bool {
    let found = Command::new("script").arg("--version").output().is_ok();
    if !found {
        assert!(std::env::var_os("CI").is_none(), "`script` missing in CI");
        eprintln!("SKIP: `script` (util-linux) is not installed");
    }
    found
}

/// `lzflow ARGS` on a terminal where `typed` is typed; the terminal's
/// text (prompt and messages) comes back as stdout.
fn on_terminal(args: &[&str], typed: &str) -> Output {
    let quoted: Vec<String> = std::iter::once(env!("CARGO_BIN_EXE_lzflow"))
        .chain(args.iter().copied())
        .map(|a| format!("'{}'", a.replace('\'', r"'\''")))
        .collect();
    let mut script = Command::new("script");
    script.args(["-qec", &quoted.join(" "), "/dev/null"]);
    with_stdin(script, typed.as_bytes())
}

fn text(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn path(p: &Path) -> &str {
    p.to_str().unwrap()
}

#[test]
fn a_missing_password_is_asked_for_on_the_terminal() {
    if !have_script() {
        return;
    }
    let dir = scratch("password");
    // A 7z archive whose header is encrypted, extracted with the typed
    // password, gives what -p gives.
    let archive = generated("aes-header.7z");
    let (typed, given) = (dir.join("typed"), dir.join("given"));
    let out = on_terminal(
        &["x", "-q", path(&archive), "-o", path(&typed)],
        "fixture-pass\n",
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    assert!(text(&out).contains(&format!("Enter password for {}:", path(&archive))));
    let out = bin()
        .args(["x", "-q", "-p", "fixture-pass"])
        .arg(&archive)
        .arg("-o")
        .arg(&given)
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let files = files_below(&given);
    assert!(files.len() > 2, "{files:?}");
    assert_eq!(files_below(&typed), files);
    for f in &files {
        assert!(
            fs::read(typed.join(f)).unwrap() == fs::read(given.join(f)).unwrap(),
            "{f}"
        );
    }

    // A wrong one typed is a wrong password, and nothing is left.
    let wrong = dir.join("wrong");
    let out = on_terminal(&["x", "-q", path(&archive), "-o", path(&wrong)], "nope\n");
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert!(text(&out).contains("wrong password"), "{}", text(&out));
    assert!(files_below(&wrong).is_empty());

    // Listing needs it for an encrypted header only.
    let out = on_terminal(&["l", path(&archive)], "fixture-pass\n");
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    assert!(text(&out).contains("Enter password") && text(&out).contains("words.txt"));
    let out = on_terminal(&["l", path(&generated("aes.7z"))], "");
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    assert!(!text(&out).contains("Enter password"), "{}", text(&out));

    // Testing encrypted data: 7z and zip.
    for archive in [generated("aes.7z"), zip_fixture("7zz/7z-aes256.zip")] {
        let out = on_terminal(&["t", path(&archive)], "fixture-pass\n");
        assert_eq!(out.status.code(), Some(0), "{archive:?}: {}", text(&out));
        assert!(text(&out).contains("Enter password"), "{}", text(&out));
        let out = on_terminal(&["t", path(&archive)], "nope\n");
        assert_eq!(out.status.code(), Some(2), "{archive:?}: {}", text(&out));
    }

    // With -p, or standard input not a terminal, nobody is asked.
    let out = on_terminal(&["t", "-p", "fixture-pass", path(&generated("aes.7z"))], "");
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    assert!(!text(&out).contains("Enter password"), "{}", text(&out));
    let out = bin().arg("t").arg(generated("aes.7z")).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("pass -p PASSWORD"));
    fs::remove_dir_all(&dir).unwrap();
}
