//! Helpers the zip tests share: the reference tools (found or skipped
//! loudly, required under CI), scratch directories and seeded data.
#![allow(dead_code)]

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

/// Whether `tool` is installed (on the PATH, as `which` finds it). When it
/// is not, the calling test is skipped loudly, or fails if `CI` is set:
/// CI installs every tool these tests use.
pub fn have(tool: &str, test: &str) -> bool {
    let found = match Command::new("which")
        .arg(tool)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
    {
        Ok(status) => status.success(),
        // No `which`: look through PATH as it would.
        Err(_) => std::env::var_os("PATH")
            .is_some_and(|path| std::env::split_paths(&path).any(|dir| dir.join(tool).is_file())),
    };
    if !found {
        assert!(
            std::env::var_os("CI").is_none(),
            "{test}: `{tool}` is not installed, and CI is set (.ci/run installs it)"
        );
        eprintln!("SKIP: {test}: `{tool}` not installed");
    }
    found
}

/// `command` with the environment every tool runs in.
pub fn tool(program: &str) -> Command {
    let mut command = Command::new(program);
    command.env("TZ", "UTC").env("LC_ALL", "C.UTF-8");
    command
}

/// Runs `command`; its output, or a panic naming `what` with its stderr.
pub fn run(command: &mut Command, what: &str) -> Output {
    let out = command
        .output()
        .unwrap_or_else(|e| panic!("{what}: cannot run: {e}"));
    assert!(
        out.status.success(),
        "{what}: {}\nstdout: {}\nstderr: {}",
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

/// Runs a shell pipeline (`sh -c script sh args...`) in `dir`.
pub fn run_sh(dir: &Path, script: &str, args: &[&Path], what: &str) {
    let mut command = tool("sh");
    command
        .arg("-c")
        .arg(script)
        .arg("sh")
        .args(args)
        .current_dir(dir);
    run(&mut command, what);
}

/// A scratch directory, removed when dropped (kept, and named, when the
/// test failed).
pub struct TempDir(pub PathBuf);

impl TempDir {
    pub fn new(tag: &str) -> Self {
        let dir =
            std::env::temp_dir().join(format!("lzflow-zip-test-{}-{tag}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(&dir).unwrap();
        TempDir(dir)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        if std::thread::panicking() {
            eprintln!("kept {} for inspection", self.0.display());
        } else {
            let _ = fs::remove_dir_all(&self.0);
        }
    }
}

/// xorshift64*: the same bytes on every machine.
pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    pub fn bytes(&mut self, n: usize) -> Vec<u8> {
        (0..n).map(|_| (self.next() >> 32) as u8).collect()
    }

    /// Compressible text: words from a small vocabulary, in lines.
    pub fn text(&mut self, n: usize) -> Vec<u8> {
        const WORDS: [&str; 12] = [
            "zip",
            "entry",
            "central",
            "directory",
            "deflate",
            "the",
            "of",
            "archive",
            "local",
            "header",
            "stream",
            "method",
        ];
        let mut out = Vec::with_capacity(n + 16);
        while out.len() < n {
            out.extend_from_slice(WORDS[(self.next() % 12) as usize].as_bytes());
            out.push(if self.next().is_multiple_of(9) {
                b'\n'
            } else {
                b' '
            });
        }
        out.truncate(n);
        out
    }
}
