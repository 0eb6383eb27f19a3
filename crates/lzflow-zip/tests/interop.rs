//! Interop: zip archives made at test time by the real tools (Info-ZIP's
//! `zip`, 7-Zip's `7zz` and Python's `zipfile`) from a small deterministic
//! tree, read back and compared with that tree entry by entry: exact bytes,
//! names, directory and symlink flags, Unix modes and modification times
//! where the tool stores them, comments, the method the tool was asked for,
//! encryption and data descriptors.
//!
//! Every archive goes through [`check_archive`], which asks every reader
//! ([`readers`]) for a [`GotArchive`] and compares it with the reader-free
//! [`Expected`] model; a second reader joins by adding itself to
//! [`readers`].
//!
//! A test whose tool is missing is skipped with a loud `SKIP:` line, or
//! fails when the `CI` environment variable is set (`.ci/run` installs
//! `zip`, `unzip`, `python3` and `7zz`). Tools run with `TZ=UTC` (MS-DOS
//! times are local times, read back as UTC) and `LC_ALL=C.UTF-8` (file
//! names are UTF-8).
#![cfg(unix)]

use std::fs;
use std::io::{Cursor, Read};
use std::os::unix::fs::{symlink, PermissionsExt};
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use lzflow_zip::{DirectoryLocator, ZipArchive, ZipError, ZipOptions, ZipStreamReader};

mod common;
use common::{have, run, run_sh, tool, Rng, TempDir};

// ---------------------------------------------------------------------------
// Tools
// ---------------------------------------------------------------------------

// ---------------------------------------------------------------------------
// The input tree
// ---------------------------------------------------------------------------

/// Every file and directory of the tree has this modification time:
/// 2023-05-06T07:08:10Z, an even second (MS-DOS times count in 2 s).
const MTIME: u64 = 1_683_356_890;

/// The link's target, a file of the tree.
const LINK_TARGET: &str = "words.txt";

/// A zip64 entry Python writes (see [`PYTHON_WRITER`]).
const PYTHON_ZIP64_NAME: &str = "zip64.txt";
const PYTHON_ARCHIVE_COMMENT: &[u8] = b"lzflow interop: archive comment";
const PYTHON_ENTRY_COMMENT: &[u8] = b"lzflow interop: entry comment";
const PYTHON_COMMENTED: &str = "words.txt";

fn python_zip64_data() -> Vec<u8> {
    b"zip64 entry line\n".repeat(1000)
}

/// The input tree, under `dir/src`, and where archives go (`dir`).
struct Tree {
    dir: TempDir,
    src: PathBuf,
    files: Vec<(&'static str, Vec<u8>, u32)>,
    dirs: Vec<&'static str>,
}

impl Tree {
    /// Writes the tree: compressible text, 200 KiB of seeded noise, an
    /// empty file, a UTF-8 name, an executable, a subdirectory with a file
    /// and an empty directory in it, and a symbolic link.
    fn new(tag: &str) -> Self {
        let dir = TempDir::new(tag);
        let src = dir.0.join("src");
        let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
        let files: Vec<(&'static str, Vec<u8>, u32)> = vec![
            ("words.txt", rng.text(64 << 10), 0o644),
            ("random.bin", rng.bytes(200 << 10), 0o644),
            ("empty.txt", Vec::new(), 0o644),
            (
                "naïve-日本.txt",
                "naïve 日本語 text\n".repeat(40).into(),
                0o644,
            ),
            ("run.sh", b"#!/bin/sh\necho lzflow\n".to_vec(), 0o755),
            ("sub/inner.txt", rng.text(3000), 0o644),
        ];
        let dirs = vec!["sub/deeper", "sub"]; // deepest first
        for d in &dirs {
            fs::create_dir_all(src.join(d)).unwrap();
        }
        let mtime = UNIX_EPOCH + Duration::from_secs(MTIME);
        for (name, data, mode) in &files {
            let path = src.join(name);
            fs::write(&path, data).unwrap();
            fs::set_permissions(&path, fs::Permissions::from_mode(*mode)).unwrap();
            fs::File::options()
                .write(true)
                .open(&path)
                .unwrap()
                .set_modified(mtime)
                .unwrap();
        }
        symlink(LINK_TARGET, src.join("link")).unwrap();
        // Directories last: their times change as entries are added.
        for d in &dirs {
            let path = src.join(d);
            fs::set_permissions(&path, fs::Permissions::from_mode(0o755)).unwrap();
            fs::File::open(&path).unwrap().set_modified(mtime).unwrap();
        }
        Tree {
            dir,
            src,
            files,
            dirs,
        }
    }

    /// A path for an archive next to the tree.
    fn archive(&self, name: &str) -> PathBuf {
        self.dir.0.join(name)
    }

    /// What an archive of the whole tree holds: `links` says whether the
    /// tool stored the link as a link or followed it.
    fn expected(&self, links: Links) -> Expected {
        let mtime = Some(UNIX_EPOCH + Duration::from_secs(MTIME));
        let mut entries: Vec<ExpectedEntry> = self
            .files
            .iter()
            .map(|(name, data, mode)| ExpectedEntry {
                name: name.to_string(),
                kind: Kind::File,
                data: data.clone(),
                mode: Some(0o100_000 | mode),
                mtime,
                comment: Vec::new(),
            })
            .collect();
        entries.extend(self.dirs.iter().map(|d| ExpectedEntry {
            name: format!("{d}/"),
            kind: Kind::Dir,
            data: Vec::new(),
            mode: Some(0o040_755),
            mtime,
            comment: Vec::new(),
        }));
        let target = self
            .files
            .iter()
            .find(|(name, ..)| *name == LINK_TARGET)
            .unwrap();
        entries.push(match links {
            // The link's own time is whenever the test ran: not checked.
            Links::Stored => ExpectedEntry {
                name: "link".into(),
                kind: Kind::Symlink,
                data: LINK_TARGET.as_bytes().to_vec(),
                mode: Some(0o120_777),
                mtime: None,
                comment: Vec::new(),
            },
            Links::Followed => ExpectedEntry {
                name: "link".into(),
                kind: Kind::File,
                data: target.1.clone(),
                mode: Some(0o100_000 | target.2),
                mtime,
                comment: Vec::new(),
            },
        });
        Expected::new(entries)
    }
}

#[derive(Debug, Clone, Copy)]
enum Links {
    /// The archive holds the link (its target as data, mode `S_IFLNK`).
    Stored,
    /// The tool followed the link: a regular file with the target's data.
    Followed,
}

// ---------------------------------------------------------------------------
// The expected model (no reader in it)
// ---------------------------------------------------------------------------

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    File,
    Dir,
    Symlink,
}

/// One entry as the tool was given it.
#[derive(Debug, Clone)]
struct ExpectedEntry {
    /// The name in the archive (directories end with `/`).
    name: String,
    kind: Kind,
    /// A file's bytes, a link's target, nothing for a directory.
    data: Vec<u8>,
    /// The Unix mode (type and permission bits), when the tool stores it.
    mode: Option<u32>,
    /// The modification time (to 2 s), when the tool stores it.
    mtime: Option<SystemTime>,
    /// The entry comment.
    comment: Vec<u8>,
}

/// How an entry's data is encrypted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Encryption {
    None,
    ZipCrypto,
    /// WinZip AES with this strength byte (1, 2, 3: AES-128, -192, -256).
    Aes(u8),
}

/// What an archive holds, and what the tool was asked to do.
#[derive(Debug, Clone)]
struct Expected {
    entries: Vec<ExpectedEntry>,
    /// The archive comment.
    comment: Vec<u8>,
    /// A compression method some entry must use: the one the tool was
    /// asked for (inside WinZip AES, the real one).
    method: Option<u16>,
    /// Entries with this method must fail with
    /// `ZipError::UnsupportedMethod` naming it; every other entry reads.
    unsupported: Option<(u16, &'static str)>,
    /// How every non-empty file and link is encrypted (`None`: no entry
    /// is encrypted).
    encryption: Encryption,
    /// Whether every entry but the directories has a data descriptor.
    descriptors: bool,
}

impl Expected {
    fn new(entries: Vec<ExpectedEntry>) -> Self {
        Expected {
            entries,
            comment: Vec::new(),
            method: None,
            unsupported: None,
            encryption: Encryption::None,
            descriptors: false,
        }
    }

    fn method(mut self, method: u16) -> Self {
        self.method = Some(method);
        self
    }

    fn unsupported(mut self, method: u16, name: &'static str) -> Self {
        self.unsupported = Some((method, name));
        self
    }

    fn encryption(mut self, encryption: Encryption) -> Self {
        self.encryption = encryption;
        self
    }

    fn descriptors(mut self) -> Self {
        self.descriptors = true;
        self
    }
}

// ---------------------------------------------------------------------------
// What a reader found
// ---------------------------------------------------------------------------

/// One entry as a reader saw it. `None` marks what a reader cannot know
/// (a forward-only reader sees no central directory: no Unix mode, no
/// comment).
#[derive(Debug)]
struct GotEntry {
    name: String,
    is_dir: bool,
    is_symlink: Option<bool>,
    unix_mode: Option<Option<u32>>,
    mtime: Option<SystemTime>,
    comment: Option<Vec<u8>>,
    /// The compression method (inside WinZip AES, the real one).
    method: u16,
    encryption: Encryption,
    descriptor: bool,
    data: Result<Vec<u8>, ZipError>,
}

#[derive(Debug)]
struct GotArchive {
    /// The archive comment, if the reader sees it.
    comment: Option<Vec<u8>>,
    entries: Vec<GotEntry>,
}

/// Every reader's view of `bytes`, by name. A new reader joins here.
fn readers(bytes: &[u8], options: &ZipOptions) -> Vec<(&'static str, GotArchive)> {
    vec![
        (
            "ZipArchive",
            read_with_zip_archive(bytes, options.clone())
                .unwrap_or_else(|e| panic!("ZipArchive::open: {e:?}")),
        ),
        (
            "ZipStreamReader",
            read_with_stream_reader(bytes, options.clone())
                .unwrap_or_else(|e| panic!("ZipStreamReader: {e:?}")),
        ),
    ]
}

/// `ZipStreamReader`: the local headers and data, forward-only. It cannot
/// know modes, links or comments (they are in the central directory).
fn read_with_stream_reader(bytes: &[u8], options: ZipOptions) -> Result<GotArchive, ZipError> {
    let mut z = ZipStreamReader::with_options(bytes, options);
    let mut entries = Vec::new();
    while let Some(mut e) = z.next_entry()? {
        let local = e.local();
        let aes = local.aes();
        let mut got = GotEntry {
            name: local.name().into_owned(),
            is_dir: local.is_dir(),
            is_symlink: None,
            unix_mode: None,
            mtime: local.mtime(),
            comment: None,
            method: local.method(),
            encryption: match aes {
                _ if !local.is_encrypted() => Encryption::None,
                Some(a) => Encryption::Aes(a.strength),
                None => Encryption::ZipCrypto,
            },
            descriptor: local.header().has_data_descriptor(),
            data: Ok(Vec::new()),
        };
        let mut data = Vec::new();
        got.data = e
            .read_to_end(&mut data)
            .map(|_| data)
            .map_err(ZipError::from);
        entries.push(got);
    }
    Ok(GotArchive {
        comment: None,
        entries,
    })
}

/// `ZipArchive`: the central directory, then every entry's data.
fn read_with_zip_archive(bytes: &[u8], options: ZipOptions) -> Result<GotArchive, ZipError> {
    let mut archive = ZipArchive::open_with(Cursor::new(bytes), options)?;
    let mut entries = Vec::new();
    for index in 0..archive.len() {
        let e = archive.directory().get(index).unwrap();
        let aes = e.aes();
        let mut got = GotEntry {
            name: e.name().into_owned(),
            is_dir: e.is_dir(),
            is_symlink: Some(e.is_symlink()),
            unix_mode: Some(e.unix_mode()),
            mtime: e.mtime(),
            comment: Some(e.comment_bytes().to_vec()),
            method: aes.map_or(e.method(), |a| a.method),
            encryption: match aes {
                _ if !e.is_encrypted() => Encryption::None,
                Some(a) => Encryption::Aes(a.strength),
                None => Encryption::ZipCrypto,
            },
            descriptor: e.has_data_descriptor(),
            data: Ok(Vec::new()),
        };
        got.data = archive.reader(index).and_then(|mut r| {
            let mut data = Vec::new();
            r.read_to_end(&mut data)?;
            Ok(data)
        });
        entries.push(got);
    }
    Ok(GotArchive {
        comment: Some(archive_comment(bytes)?),
        entries,
    })
}

/// The archive comment, from the end records.
fn archive_comment(bytes: &[u8]) -> Result<Vec<u8>, ZipError> {
    let mut locator = DirectoryLocator::new(bytes.len() as u64);
    while let Some((at, n)) = locator.request() {
        let at = usize::try_from(at).unwrap();
        locator.feed(&bytes[at..bytes.len().min(at + n)])?;
    }
    Ok(locator.finish()?.comment)
}

// ---------------------------------------------------------------------------
// The checks
// ---------------------------------------------------------------------------

/// Reads `path` with every reader under `options` and compares what each
/// found with `expected`; panics listing every difference.
fn check_archive(path: &Path, expected: &Expected, options: ZipOptions) {
    let bytes = fs::read(path).unwrap();
    let mut problems = Vec::new();
    for (reader, got) in readers(&bytes, &options) {
        for problem in compare(&got, expected) {
            problems.push(format!("{reader}: {problem}"));
        }
    }
    assert!(
        problems.is_empty(),
        "{}:\n  {}",
        path.display(),
        problems.join("\n  ")
    );
}

fn compare(got: &GotArchive, expected: &Expected) -> Vec<String> {
    let mut problems = Vec::new();
    let mut got_names: Vec<&str> = got.entries.iter().map(|e| e.name.as_str()).collect();
    let mut want_names: Vec<&str> = expected.entries.iter().map(|e| e.name.as_str()).collect();
    got_names.sort_unstable();
    want_names.sort_unstable();
    if got_names != want_names {
        problems.push(format!("names {got_names:?}, expected {want_names:?}"));
    }
    if let Some(comment) = &got.comment {
        if *comment != expected.comment {
            problems.push(format!(
                "archive comment {:?}, expected {:?}",
                String::from_utf8_lossy(comment),
                String::from_utf8_lossy(&expected.comment)
            ));
        }
    }
    if let Some(method) = expected.method {
        if !got.entries.iter().any(|e| e.method == method) {
            let methods: Vec<u16> = got.entries.iter().map(|e| e.method).collect();
            problems.push(format!("no entry uses method {method}: {methods:?}"));
        }
    }
    for g in &got.entries {
        let Some(want) = expected.entries.iter().find(|e| e.name == g.name) else {
            continue;
        };
        let mut problem = |what: String| problems.push(format!("{}: {what}", g.name));
        if g.is_dir != (want.kind == Kind::Dir) {
            problem(format!("is_dir {}, expected {:?}", g.is_dir, want.kind));
        }
        if let Some(is_symlink) = g.is_symlink {
            if is_symlink != (want.kind == Kind::Symlink) {
                problem(format!("is_symlink {is_symlink}, expected {:?}", want.kind));
            }
        }
        if let (Some(mode), Some(got_mode)) = (want.mode, g.unix_mode) {
            if got_mode != Some(mode) {
                let got_mode = got_mode.map(|m| format!("{m:o}"));
                problem(format!("unix mode {got_mode:?}, expected {mode:o}"));
            }
        }
        if let Some(mtime) = want.mtime {
            match g.mtime {
                Some(t) if within(t, mtime, Duration::from_secs(2)) => {}
                other => problem(format!("mtime {other:?}, expected {mtime:?} (± 2 s)")),
            }
        }
        if let Some(comment) = &g.comment {
            if *comment != want.comment {
                problem(format!(
                    "comment {:?}, expected {:?}",
                    String::from_utf8_lossy(comment),
                    String::from_utf8_lossy(&want.comment)
                ));
            }
        }
        if want.kind == Kind::Dir {
            if g.encryption != Encryption::None {
                problem(format!("directory encrypted: {:?}", g.encryption));
            }
        } else {
            // Some tools leave empty files unencrypted.
            let plain_empty = want.data.is_empty() && g.encryption == Encryption::None;
            if g.encryption != expected.encryption && !plain_empty {
                problem(format!(
                    "encryption {:?}, expected {:?}",
                    g.encryption, expected.encryption
                ));
            }
            if expected.descriptors && !g.descriptor {
                problem("no data descriptor (the tool wrote to a stream)".into());
            }
        }
        match (&g.data, expected.unsupported) {
            (Err(ZipError::UnsupportedMethod { method, name }), Some((m, n)))
                if g.method == m && *method == m && *name == n => {}
            (_, Some((m, n))) if g.method == m => {
                let read = match &g.data {
                    Ok(data) if *data == want.data => {
                        "the exact bytes (the method is supported now: update the test)".into()
                    }
                    Ok(data) => format!("{} wrong bytes", data.len()),
                    Err(e) => format!("{e:?}"),
                };
                problem(format!(
                    "read {read}, expected UnsupportedMethod {{ method: {m}, name: {n:?} }}"
                ));
            }
            (Ok(data), _) => {
                if let Err(e) = same_bytes(data, &want.data) {
                    problem(format!("method {}: {e}", g.method));
                }
            }
            (Err(e), _) => problem(format!("method {}: {e:?}", g.method)),
        }
    }
    problems
}

/// Reading `path` without the password and with a wrong one fails for
/// every encrypted entry, with `PasswordRequired` and `WrongPassword`.
/// A wrong password gets past ZipCrypto's one-byte header check once in
/// 256 entries, and past WinZip AES's two-byte verifier once in 65536;
/// such an entry must then fail its CRC, its decoder or its
/// authentication code, and most entries must say `WrongPassword`. An
/// empty ZipCrypto entry has nothing else to fail: once in 256 it reads
/// as the empty data it is (the format cannot tell).
fn check_password_errors(path: &Path) {
    let bytes = fs::read(path).unwrap();
    let mut problems = Vec::new();
    for (reader, got) in readers(&bytes, &ZipOptions::new()) {
        for g in got
            .entries
            .iter()
            .filter(|g| g.encryption != Encryption::None)
        {
            if !matches!(g.data, Err(ZipError::PasswordRequired)) {
                problems.push(format!("{reader}: {}: no password: {:?}", g.name, g.data));
            }
        }
    }
    let wrong = ZipOptions::new().with_password("not-the-password");
    for (reader, got) in readers(&bytes, &wrong) {
        let (mut encrypted, mut refused) = (0, 0);
        for g in got
            .entries
            .iter()
            .filter(|g| g.encryption != Encryption::None)
        {
            encrypted += 1;
            match (&g.data, g.encryption) {
                (Err(ZipError::WrongPassword), _) => refused += 1,
                (
                    Err(ZipError::DataCrc { .. } | ZipError::Method(_) | ZipError::Corrupt(_)),
                    Encryption::ZipCrypto,
                )
                | (Err(ZipError::Authentication { .. }), Encryption::Aes(_)) => {}
                (Ok(data), Encryption::ZipCrypto) if data.is_empty() => {}
                (other, _) => problems.push(format!(
                    "{reader}: {}: wrong password: {:?}",
                    g.name,
                    other.as_ref().map(Vec::len)
                )),
            }
        }
        if encrypted == 0 || refused * 2 < encrypted {
            problems.push(format!(
                "{reader}: {refused} of {encrypted} encrypted entries said WrongPassword"
            ));
        }
    }
    assert!(
        problems.is_empty(),
        "{}:\n  {}",
        path.display(),
        problems.join("\n  ")
    );
}

fn within(got: SystemTime, want: SystemTime, slack: Duration) -> bool {
    match got.duration_since(want) {
        Ok(d) => d <= slack,
        Err(e) => e.duration() <= slack,
    }
}

fn same_bytes(got: &[u8], want: &[u8]) -> Result<(), String> {
    if got == want {
        return Ok(());
    }
    let at = got
        .iter()
        .zip(want)
        .position(|(a, b)| a != b)
        .unwrap_or(got.len().min(want.len()));
    Err(format!(
        "{} bytes, expected {}; first difference at byte {at}",
        got.len(),
        want.len()
    ))
}

// ---------------------------------------------------------------------------
// Info-ZIP zip
// ---------------------------------------------------------------------------

/// `zip -r -y ARGS archive .` in the tree (`-y`: links stored as links).
fn infozip(test: &str, args: &[&str]) -> Option<(Tree, PathBuf)> {
    if !have("zip", test) {
        return None;
    }
    let tree = Tree::new(test);
    let archive = tree.archive("out.zip");
    let mut command = tool("zip");
    command
        .args(["-q", "-r", "-y"])
        .args(args)
        .arg(&archive)
        .arg(".")
        .current_dir(&tree.src);
    run(&mut command, &format!("zip {args:?}"));
    Some((tree, archive))
}

#[test]
fn infozip_deflate() {
    // Deflate with the extended timestamp (0x5455) and Unix (0x7875)
    // extra fields; the 200 KiB of noise may be stored.
    let Some((tree, archive)) = infozip("infozip_deflate", &[]) else {
        return;
    };
    let expected = tree.expected(Links::Stored).method(8);
    check_archive(&archive, &expected, ZipOptions::new());
}

#[test]
fn infozip_stored() {
    let Some((tree, archive)) = infozip("infozip_stored", &["-0"]) else {
        return;
    };
    let expected = tree.expected(Links::Stored).method(0);
    check_archive(&archive, &expected, ZipOptions::new());
}

#[test]
fn infozip_bzip2() {
    let Some((tree, archive)) = infozip("infozip_bzip2", &["-Z", "bzip2"]) else {
        return;
    };
    let expected = tree.expected(Links::Stored).method(12);
    check_archive(&archive, &expected, ZipOptions::new());
}

#[test]
fn infozip_zipcrypto() {
    let Some((tree, archive)) = infozip("infozip_zipcrypto", &["-e", "-P", "secret"]) else {
        return;
    };
    let expected = tree
        .expected(Links::Stored)
        .method(8)
        .encryption(Encryption::ZipCrypto);
    check_archive(
        &archive,
        &expected,
        ZipOptions::new().with_password("secret"),
    );
    check_password_errors(&archive);
}

/// Info-ZIP writing to a pipe cannot go back to the local headers: every
/// entry's CRC and sizes follow its data in a data descriptor. (zip 3.0
/// has no option forcing descriptors into a file, and refuses `-y` when
/// writing to a pipe, so the link is followed.)
#[test]
fn infozip_streaming_tree() {
    let test = "infozip_streaming_tree";
    if !have("zip", test) {
        return;
    }
    let tree = Tree::new(test);
    let archive = tree.archive("out.zip");
    run_sh(
        &tree.src,
        r#"zip -q -r - . | cat > "$1""#,
        &[&archive],
        "zip -r - . | cat",
    );
    let expected = tree.expected(Links::Followed).method(8).descriptors();
    check_archive(&archive, &expected, ZipOptions::new());
}

/// `cat file | zip - -`: standard input as an entry named `-`, with a
/// data descriptor and (Info-ZIP's default for streamed input) Zip64
/// fields, since the size is not known in advance.
#[test]
fn infozip_streaming_stdin() {
    let test = "infozip_streaming_stdin";
    if !have("zip", test) {
        return;
    }
    let tree = Tree::new(test);
    let archive = tree.archive("out.zip");
    let input = tree.src.join("words.txt");
    run_sh(
        &tree.src,
        r#"cat "$1" | zip -q - - | cat > "$2""#,
        &[&input, &archive],
        "cat | zip - - | cat",
    );
    // The entry's mode is the pipe's and its time is now: not checked.
    let expected = Expected::new(vec![ExpectedEntry {
        name: "-".into(),
        kind: Kind::File,
        data: fs::read(&input).unwrap(),
        mode: None,
        mtime: None,
        comment: Vec::new(),
    }])
    .method(8)
    .descriptors();
    check_archive(&archive, &expected, ZipOptions::new());
}

// ---------------------------------------------------------------------------
// 7-Zip
// ---------------------------------------------------------------------------

/// `7zz a -tzip -snl ARGS archive .` in the tree (`-snl`: links stored as
/// links). `None` when 7zz is missing, or rejects the arguments as not
/// implemented (a build without the method): the test is skipped.
fn sevenzip(test: &str, args: &[&str]) -> Option<(Tree, PathBuf)> {
    if !have("7zz", test) {
        return None;
    }
    let tree = Tree::new(test);
    let archive = tree.archive("out.zip");
    let out = tool("7zz")
        .args(["a", "-tzip", "-snl", "-bd"])
        .args(args)
        .arg(&archive)
        .arg(".")
        .current_dir(&tree.src)
        .output()
        .unwrap_or_else(|e| panic!("7zz: {e}"));
    let stderr = String::from_utf8_lossy(&out.stderr);
    if !out.status.success() && (stderr.contains("E_NOTIMPL") || stderr.contains("E_INVALIDARG")) {
        eprintln!("SKIP: {test}: 7zz rejects {args:?}: {}", stderr.trim());
        return None;
    }
    assert!(
        out.status.success(),
        "7zz {args:?}: {}\n{}\n{stderr}",
        out.status,
        String::from_utf8_lossy(&out.stdout)
    );
    Some((tree, archive))
}

/// 7zz with `-mm=METHOD`: every entry reads, or (for `unsupported`) the
/// entries with that method fail as unsupported and the rest (stored
/// empty files, directories, links) read.
fn sevenzip_method(test: &str, method: &str, id: u16, unsupported: Option<&'static str>) {
    let Some((tree, archive)) = sevenzip(test, &[&format!("-mm={method}")]) else {
        return;
    };
    let mut expected = tree.expected(Links::Stored).method(id);
    if let Some(name) = unsupported {
        expected = expected.unsupported(id, name);
    }
    check_archive(&archive, &expected, ZipOptions::new());
}

#[test]
fn sevenzip_copy() {
    sevenzip_method("sevenzip_copy", "Copy", 0, None);
}

#[test]
fn sevenzip_deflate() {
    sevenzip_method("sevenzip_deflate", "Deflate", 8, None);
}

#[test]
fn sevenzip_deflate64() {
    sevenzip_method("sevenzip_deflate64", "Deflate64", 9, None);
}

#[test]
fn sevenzip_bzip2() {
    sevenzip_method("sevenzip_bzip2", "BZip2", 12, None);
}

#[test]
fn sevenzip_lzma() {
    sevenzip_method("sevenzip_lzma", "LZMA", 14, None);
}

#[test]
fn sevenzip_ppmd() {
    sevenzip_method("sevenzip_ppmd", "PPMd", 98, None);
}

/// 7-Zip's WinZip AES entries of PPMd and of Deflate64 data, rewritten so
/// that only data descriptors size them (as a streaming writer would
/// write them), read forward-only from input arriving in pieces: PPMd's
/// give back the bytes it held past its data, also from behind the
/// decryptor, and read as the seekable reader reads the original; for
/// Deflate64, whose inflater does not say where its data ended, the
/// forward-only reader refuses the entry as unsupported.
#[test]
fn sevenzip_aes_entries_sized_only_by_descriptors_read_forward_only() {
    for (method, readable) in [("PPMd", true), ("Deflate64", false)] {
        let test = "sevenzip_aes_entries_sized_only_by_descriptors_read_forward_only";
        if !have("7zz", test) {
            return;
        }
        // Files only: 7-Zip stores empty ones, and an encrypted Stored
        // entry sized only by its descriptor is not read forward-only.
        let dir = TempDir::new(&format!("aes-descriptors-{method}"));
        let mut rng = Rng(0xdec0de);
        for (i, len) in [300, 333, 5000, 70_001].into_iter().enumerate() {
            fs::write(dir.0.join(format!("f{i}.txt")), rng.text(len)).unwrap();
        }
        run(
            tool("7zz")
                .args(["a", "-tzip", "-bd", &format!("-mm={method}"), "-mem=AES256"])
                .args([
                    "-psecret", "out.zip", "f0.txt", "f1.txt", "f2.txt", "f3.txt",
                ])
                .current_dir(&dir.0),
            "7zz a",
        );
        let original = fs::read(dir.0.join("out.zip")).unwrap();
        let options = ZipOptions::new().with_password("secret");
        let mut a = ZipArchive::open_with(Cursor::new(&original[..]), options.clone()).unwrap();
        let mut want = Vec::new();
        for i in 0..a.len() {
            let mut data = Vec::new();
            a.reader(i).unwrap().read_to_end(&mut data).unwrap();
            want.push((a.directory().get(i).unwrap().name().into_owned(), data));
        }
        let rewritten = common::with_descriptors(&original, true);
        for piece in [1, 5, 4096] {
            let mut z = ZipStreamReader::with_options(Pieces(&rewritten, piece), options.clone());
            let mut got = Vec::new();
            let error = loop {
                match z.next_entry() {
                    Ok(Some(mut e)) => {
                        let name = e.name().into_owned();
                        let mut data = Vec::new();
                        if let Err(err) = e.read_to_end(&mut data) {
                            break Some(err);
                        }
                        got.push((name, data));
                    }
                    Ok(None) => break None,
                    Err(err) => break Some(err.into()),
                }
            };
            if readable {
                assert!(error.is_none(), "{method} {piece}: {error:?}");
                assert_eq!(got, want, "{method} {piece}");
            } else {
                let error = error.expect("a Deflate64 entry is refused");
                let error = error.get_ref().and_then(|e| e.downcast_ref::<ZipError>());
                assert!(
                    matches!(error, Some(ZipError::UnsupportedFeature(_))),
                    "{method} {piece}: {error:?}"
                );
                assert!(got.iter().all(|(_, d)| d.is_empty()), "{method}: {got:?}");
            }
        }
    }
}

/// A reader giving out at most `.1` bytes per call.
struct Pieces<'a>(&'a [u8], usize);

impl Read for Pieces<'_> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = buf.len().min(self.1).min(self.0.len());
        buf[..n].copy_from_slice(&self.0[..n]);
        self.0 = &self.0[n..];
        Ok(n)
    }
}

#[test]
fn sevenzip_xz() {
    sevenzip_method("sevenzip_xz", "XZ", 95, None);
}

fn sevenzip_encrypted(test: &str, em: &str, encryption: Encryption) {
    let Some((tree, archive)) = sevenzip(test, &["-psecret", &format!("-mem={em}")]) else {
        return;
    };
    let expected = tree
        .expected(Links::Stored)
        .method(8)
        .encryption(encryption);
    check_archive(
        &archive,
        &expected,
        ZipOptions::new().with_password("secret"),
    );
    check_password_errors(&archive);
}

#[test]
fn sevenzip_aes128() {
    sevenzip_encrypted("sevenzip_aes128", "AES128", Encryption::Aes(1));
}

#[test]
fn sevenzip_aes192() {
    sevenzip_encrypted("sevenzip_aes192", "AES192", Encryption::Aes(2));
}

#[test]
fn sevenzip_aes256() {
    sevenzip_encrypted("sevenzip_aes256", "AES256", Encryption::Aes(3));
}

#[test]
fn sevenzip_zipcrypto() {
    sevenzip_encrypted("sevenzip_zipcrypto", "ZipCrypto", Encryption::ZipCrypto);
}

// ---------------------------------------------------------------------------
// Python's zipfile
// ---------------------------------------------------------------------------

/// `python3 -c PYTHON_WRITER out src method seekable|stream`: the tree
/// with `ZipFile.write` (directories and files, their modes and times),
/// the link as a `ZipInfo` with mode `S_IFLNK` and its target as data,
/// an entry comment on `words.txt`, an archive comment, and `zip64.txt`
/// through `ZipFile.open(..., force_zip64=True)`. `stream` writes to a
/// file object that cannot seek or tell, as a pipe: Python then gives
/// every entry a data descriptor, Stored ones too.
const PYTHON_WRITER: &str = r#"
import io, os, sys, time, zipfile

out, src, method, mode = sys.argv[1:5]
compression = {
    "stored": zipfile.ZIP_STORED,
    "deflated": zipfile.ZIP_DEFLATED,
    "bzip2": zipfile.ZIP_BZIP2,
    "lzma": zipfile.ZIP_LZMA,
}[method]

class Unseekable(io.RawIOBase):
    def __init__(self, f):
        self.f = f
    def writable(self):
        return True
    def seekable(self):
        return False
    def write(self, b):
        return self.f.write(b)
    def flush(self):
        self.f.flush()

paths = []
for dirpath, dirnames, filenames in os.walk(src):
    dirnames.sort()
    paths += [os.path.join(dirpath, d) for d in dirnames]
    paths += [os.path.join(dirpath, f) for f in sorted(filenames)]

with open(out, "wb") as raw:
    target = Unseekable(raw) if mode == "stream" else raw
    with zipfile.ZipFile(target, "w", compression=compression) as z:
        for path in paths:
            arcname = os.path.relpath(path, src)
            if os.path.islink(path):
                st = os.lstat(path)
                info = zipfile.ZipInfo(arcname, time.localtime(st.st_mtime)[:6])
                info.create_system = 3
                info.external_attr = (st.st_mode & 0xFFFF) << 16
                info.compress_type = compression
                z.writestr(info, os.readlink(path))
            else:
                z.write(path, arcname)
        info = zipfile.ZipInfo("zip64.txt", (2023, 5, 6, 7, 8, 10))
        info.create_system = 3
        info.external_attr = 0o100644 << 16
        info.compress_type = compression
        with z.open(info, "w", force_zip64=True) as f:
            f.write(b"zip64 entry line\n" * 1000)
        z.getinfo("words.txt").comment = b"lzflow interop: entry comment"
        z.comment = b"lzflow interop: archive comment"
"#;

fn python(test: &str, method: &str, id: u16, stream: bool) {
    if !have("python3", test) {
        return;
    }
    let tree = Tree::new(test);
    let archive = tree.archive("out.zip");
    let mut command = tool("python3");
    command
        .arg("-c")
        .arg(PYTHON_WRITER)
        .arg(&archive)
        .arg(&tree.src)
        .arg(method)
        .arg(if stream { "stream" } else { "seekable" });
    run(&mut command, &format!("python3 zipfile {method}"));
    let mut expected = tree.expected(Links::Stored).method(id);
    expected.comment = PYTHON_ARCHIVE_COMMENT.to_vec();
    for e in &mut expected.entries {
        if e.name == PYTHON_COMMENTED {
            e.comment = PYTHON_ENTRY_COMMENT.to_vec();
        }
    }
    expected.entries.push(ExpectedEntry {
        name: PYTHON_ZIP64_NAME.into(),
        kind: Kind::File,
        data: python_zip64_data(),
        mode: Some(0o100_644),
        mtime: Some(UNIX_EPOCH + Duration::from_secs(MTIME)),
        comment: Vec::new(),
    });
    if stream {
        expected = expected.descriptors();
    }
    check_archive(&archive, &expected, ZipOptions::new());
}

#[test]
fn python_stored() {
    python("python_stored", "stored", 0, false);
}

#[test]
fn python_deflated() {
    python("python_deflated", "deflated", 8, false);
}

#[test]
fn python_bzip2() {
    python("python_bzip2", "bzip2", 12, false);
}

#[test]
fn python_lzma() {
    python("python_lzma", "lzma", 14, false);
}

#[test]
fn python_stream_deflated() {
    python("python_stream_deflated", "deflated", 8, true);
}

/// Stored entries followed by data descriptors: the size is known only
/// from the central directory (or the descriptor).
#[test]
fn python_stream_stored() {
    python("python_stream_stored", "stored", 0, true);
}
