//! Helpers the zip tests share: the reference tools (found or skipped
//! loudly, required under CI), scratch directories and seeded data.
#![allow(dead_code)]

use std::collections::BTreeMap;
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

/// The zip corpus, `fixtures/zip/`.
pub const CORPUS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../fixtures/zip/");

/// One entry row of the corpus manifest.
pub struct Row {
    pub method: String,
    pub password: String,
    /// What the central-directory reader must do.
    pub expected: String,
    /// What a forward-only reader must do.
    pub stream_expected: String,
    pub path: String,
    pub size: u64,
    pub sha256: String,
    pub is_dir: bool,
}

/// The corpus manifest's rows, by archive.
pub fn manifest() -> BTreeMap<String, Vec<Row>> {
    let text = fs::read_to_string(format!("{CORPUS}MANIFEST.tsv")).unwrap();
    let mut lines = text.lines();
    let head: Vec<&str> = lines.next().unwrap().split('\t').collect();
    let col = |name: &str| head.iter().position(|h| *h == name).unwrap();
    let mut out: BTreeMap<String, Vec<Row>> = BTreeMap::new();
    for line in lines {
        let c: Vec<&str> = line.split('\t').collect();
        let field = |name: &str| c[col(name)].to_string();
        out.entry(field("file")).or_default().push(Row {
            method: field("method"),
            password: field("password"),
            expected: field("expected"),
            stream_expected: field("stream_expected"),
            path: field("entry_path"),
            size: c[col("entry_size")].parse().unwrap_or(0),
            sha256: field("entry_sha256"),
            is_dir: c[col("is_dir")] == "1",
        });
    }
    out
}

/// Methods the manifest leaves outside the promised set (`unsupported_ok`:
/// decode exactly or refuse by name) that lzflow decodes: their entries
/// must decode to the manifest's content.
const DECODED_ANYWAY: &[&str] = &["deflate64", "ppmd"];

/// What `expected` (a row's `expected` or `stream_expected`) asks of
/// lzflow: `unsupported_ok` becomes `ok` for the methods lzflow decodes.
pub fn lzflow_expected<'a>(row: &Row, expected: &'a str) -> &'a str {
    if expected == "unsupported_ok" && DECODED_ANYWAY.contains(&row.method.as_str()) {
        "ok"
    } else {
        expected
    }
}
