//! Ctrl+C (SIGINT), SIGTERM and SIGHUP mid-way: no output that is not
//! complete is left (not even an empty file, which would block the next
//! run without -f), inputs are kept, and the process ends by the signal,
//! as xz does.
#![cfg(unix)]

mod support;

use std::fs;
use std::os::unix::process::ExitStatusExt;
use std::path::Path;
use std::process::{Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

use support::{bin, files_below, noise, scratch};

/// Text of `len` bytes from a few words: PPMd's decoder takes its time
/// over it, so an extraction can be caught in the middle.
fn text(len: usize) -> Vec<u8> {
    const WORDS: [&str; 8] = [
        "lzma ", "range ", "coder ", "window ", "chunk ", "block ", "index ", "\n",
    ];
    let mut x = 0x9e37_79b9_u32;
    let mut out = Vec::with_capacity(len + 8);
    while out.len() < len {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        out.extend_from_slice(WORDS[(x % 8) as usize].as_bytes());
    }
    out.truncate(len);
    out
}

/// Runs `cmd`, sends `signal` once `ready` holds, and gives the status.
fn interrupt(mut cmd: Command, signal: &str, ready: impl Fn() -> bool) -> ExitStatus {
    let mut child = cmd
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let start = Instant::now();
    while !ready() {
        if let Some(status) = child.try_wait().unwrap() {
            panic!("ended ({status}) before it could be interrupted: make the input larger");
        }
        assert!(
            start.elapsed() < Duration::from_secs(120),
            "never got ready"
        );
        std::thread::sleep(Duration::from_millis(1));
    }
    let sent = Command::new("kill")
        .args(["-s", signal, &child.id().to_string()])
        .status()
        .unwrap();
    assert!(sent.success());
    child.wait().unwrap()
}

fn has_bytes(path: &Path) -> bool {
    fs::metadata(path).is_ok_and(|m| m.len() > 0)
}

#[test]
fn compressing_removes_the_unfinished_output() {
    let dir = scratch("interrupt-c");
    let input = dir.join("in.bin");
    let data = noise(16 << 20);
    fs::write(&input, &data).unwrap();
    let out = dir.join("in.bin.xz");
    let mut cmd = bin();
    cmd.args(["c", "-k", "-0"]).arg(&input);
    let status = interrupt(cmd, "INT", || has_bytes(&out));
    assert_eq!(status.signal(), Some(2), "{status}");
    assert!(!out.exists(), "the unfinished .xz is removed");
    assert_eq!(fs::read(&input).unwrap(), data, "the input is kept");

    // Interrupted as soon as the output exists, before a byte is written:
    // no empty file is left to block the next run.
    let mut cmd = bin();
    cmd.args(["c", "-k", "-0"]).arg(&input);
    let status = interrupt(cmd, "TERM", || out.exists());
    assert_eq!(status.signal(), Some(15), "{status}");
    assert!(!out.exists(), "the empty .xz is removed");
    let _ = fs::remove_dir_all(&dir);
}

/// `len` letters of 16 at random: half their size in .xz, nearly all of
/// it literals, which the decoder takes a while over.
fn letters(len: usize) -> Vec<u8> {
    noise(len).iter().map(|b| b'a' + (b & 15)).collect()
}

#[test]
fn decompressing_removes_the_unfinished_output() {
    let dir = scratch("interrupt-d");
    let input = dir.join("in.bin");
    fs::write(&input, letters(8 << 20)).unwrap();
    // Packed by lzflow itself.
    assert!(bin()
        .args(["c", "-k", "-0"])
        .arg(&input)
        .status()
        .unwrap()
        .success());
    fs::remove_file(&input).unwrap();
    let packed = dir.join("in.bin.xz");
    let mut cmd = bin();
    cmd.args(["d", "-k"]).arg(&packed);
    let status = interrupt(cmd, "HUP", || has_bytes(&input));
    assert_eq!(status.signal(), Some(1), "{status}");
    assert!(!input.exists(), "the unfinished output is removed");
    assert!(packed.exists(), "the input is kept");
    let _ = fs::remove_dir_all(&dir);
}

#[test]
fn adding_removes_the_unfinished_archive() {
    for name in ["t.7z", "t.zip"] {
        let dir = scratch(&format!("interrupt-a-{name}"));
        let input = dir.join("in.bin");
        fs::write(&input, noise(16 << 20)).unwrap();
        let archive = dir.join(name);
        let mut cmd = bin();
        cmd.args(["a", "-mx1"]).arg(&archive).arg(&input);
        let status = interrupt(cmd, "INT", || has_bytes(&archive));
        assert_eq!(status.signal(), Some(2), "{name}: {status}");
        assert!(
            !archive.exists(),
            "{name}: the unfinished archive is removed"
        );
        assert!(input.exists());
        let _ = fs::remove_dir_all(&dir);
    }
}

#[test]
fn extracting_leaves_no_temporary_file() {
    let dir = scratch("interrupt-x");
    let src = dir.join("src");
    fs::create_dir_all(&src).unwrap();
    fs::write(src.join("a.txt"), b"small, extracted first\n").unwrap();
    fs::write(src.join("b.txt"), text(12 << 20)).unwrap();
    let archive = dir.join("t.7z");
    let made = bin()
        .args(["a", "-m0=PPMd"])
        .arg(&archive)
        .arg(src.join("a.txt"))
        .arg(src.join("b.txt"))
        .output()
        .unwrap();
    assert!(made.status.success(), "{}", support::stderr(&made));
    let dest = dir.join("out");
    let mut cmd = bin();
    cmd.arg("x")
        .arg(&archive)
        .arg(format!("-o{}", dest.display()));
    // Once a.txt is in place and b.txt is being written.
    let status = interrupt(cmd, "INT", || {
        let files = files_below(&dest);
        files.iter().any(|f| f == "a.txt") && files.iter().any(|f| f.ends_with(".partial"))
    });
    assert_eq!(status.signal(), Some(2), "{status}");
    // The finished entry stays; nothing of the one being written does.
    assert_eq!(files_below(&dest), ["a.txt"]);
    let _ = fs::remove_dir_all(&dir);
}
