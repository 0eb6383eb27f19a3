//! What several CLI test binaries share. Each binary uses only some of
//! it, so what one leaves unused is not dead code.
#![allow(dead_code)]

use std::process::{Command, Stdio};

/// Runs `cmd` with its stdout a pipe that nobody reads (closed at once)
/// and asserts that it ends quietly: status 0, nothing on stderr. The
/// command must write far more than a pipe buffer holds.
pub fn assert_quiet_into_a_closed_pipe(mut cmd: Command) {
    let mut child = cmd
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    let out = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{err}");
    assert!(err.is_empty(), "{err}");
}

/// The `lzflow` binary under test.
pub fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_lzflow"))
}

/// A fresh empty directory for one test of one binary.
pub fn scratch(tag: &str) -> std::path::PathBuf {
    let d = std::env::temp_dir().join(format!("lzflow-cli-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// Runs `cmd` with `input` on its standard input.
pub fn with_stdin(mut cmd: Command, input: &[u8]) -> std::process::Output {
    use std::io::Write;
    let mut child = cmd
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let input = input.to_vec();
    let writer = std::thread::spawn(move || {
        // The reader may stop early (on an error); a broken pipe is fine.
        let _ = stdin.write_all(&input);
    });
    let out = child.wait_with_output().unwrap();
    writer.join().unwrap();
    out
}

/// The regular files below `dir`, as sorted `/`-separated relative paths.
pub fn files_below(dir: &std::path::Path) -> Vec<String> {
    fn walk(root: &std::path::Path, at: &std::path::Path, out: &mut Vec<String>) {
        let Ok(entries) = std::fs::read_dir(at) else {
            return;
        };
        for e in entries {
            let path = e.unwrap().path();
            let meta = std::fs::symlink_metadata(&path).unwrap();
            if meta.is_dir() {
                walk(root, &path, out);
            } else {
                let rel = path.strip_prefix(root).unwrap();
                out.push(rel.to_string_lossy().replace('\\', "/"));
            }
        }
    }
    let mut out = Vec::new();
    walk(dir, dir, &mut out);
    out.sort();
    out
}

/// Whether `7zz` can be run (tests comparing with it are skipped, and say
/// so, when it cannot).
pub fn has_7zz() -> bool {
    let found = Command::new("7zz").arg("i").output().is_ok();
    if !found {
        eprintln!("SKIPPED: 7zz is not installed");
    }
    found
}

/// Standard error as text.
pub fn stderr(out: &std::process::Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// `len` bytes of xorshift noise (a multiple of 8): nothing a compressor
/// can shrink.
pub fn noise(len: usize) -> Vec<u8> {
    let mut x = 0x2545_f491_4f6c_dd1d_u64;
    (0..len / 8)
        .flat_map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x.to_le_bytes()
        })
        .collect()
}
