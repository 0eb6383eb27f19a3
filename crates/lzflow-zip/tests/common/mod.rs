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

/// `zip` rewritten as a streaming writer would have written it: each local
/// header with flag bit 3 and zeros for its CRC-32 and sizes, a data
/// descriptor (with its signature when `signature`) after the data, and a
/// central directory to match (without extra fields, so only the
/// forward-only reader reads WinZip AES entries of it). For archives of unencrypted or WinZip AES
/// entries whose local headers give their sizes (32-bit): a ZipCrypto
/// header's check byte would change with flag bit 3.
pub fn with_descriptors(zip: &[u8], signature: bool) -> Vec<u8> {
    let u16_at = |at: usize| u16::from_le_bytes([zip[at], zip[at + 1]]);
    let u32_at = |at: usize| u32::from_le_bytes(zip[at..at + 4].try_into().unwrap());
    let (mut out, mut central, mut count) = (Vec::new(), Vec::new(), 0u16);
    let mut at = 0;
    while zip[at..].starts_with(b"PK\x03\x04") {
        let flags = u16_at(at + 6);
        assert_eq!(flags & 8, 0, "with a descriptor already");
        assert!(flags & 1 == 0 || u16_at(at + 8) == 99, "ZipCrypto");
        let (crc, packed, size) = (u32_at(at + 14), u32_at(at + 18), u32_at(at + 22));
        assert!(packed != u32::MAX && size != u32::MAX, "Zip64");
        let (name_len, extra_len) = (usize::from(u16_at(at + 26)), usize::from(u16_at(at + 28)));
        let data_at = at + 30 + name_len + extra_len;
        let name = &zip[at + 30..at + 30 + name_len];
        let offset = out.len() as u32;
        out.extend_from_slice(&zip[at..at + 6]);
        out.extend_from_slice(&(flags | 8).to_le_bytes());
        out.extend_from_slice(&zip[at + 8..at + 14]);
        out.extend_from_slice(&[0; 12]);
        out.extend_from_slice(&zip[at + 26..data_at]);
        out.extend_from_slice(&zip[data_at..data_at + packed as usize]);
        if signature {
            out.extend_from_slice(b"PK\x07\x08");
        }
        for v in [crc, packed, size] {
            out.extend_from_slice(&v.to_le_bytes());
        }
        central.extend_from_slice(b"PK\x01\x02\x14\x03");
        central.extend_from_slice(&zip[at + 4..at + 6]);
        central.extend_from_slice(&(flags | 8).to_le_bytes());
        central.extend_from_slice(&zip[at + 8..at + 14]);
        for v in [crc, packed, size] {
            central.extend_from_slice(&v.to_le_bytes());
        }
        central.extend_from_slice(&(name_len as u16).to_le_bytes());
        central.extend_from_slice(&[0; 12]);
        central.extend_from_slice(&offset.to_le_bytes());
        central.extend_from_slice(name);
        at = data_at + packed as usize;
        count += 1;
    }
    let central_at = out.len() as u32;
    out.extend_from_slice(&central);
    out.extend_from_slice(b"PK\x05\x06\0\0\0\0");
    out.extend_from_slice(&count.to_le_bytes());
    out.extend_from_slice(&count.to_le_bytes());
    out.extend_from_slice(&(central.len() as u32).to_le_bytes());
    out.extend_from_slice(&central_at.to_le_bytes());
    out.extend_from_slice(&[0, 0]);
    out
}
