//! `lzflow l`, `t` and `x` on zip archives from the fixture corpus.

mod support;

use std::path::PathBuf;
use std::process::Command;

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_lzflow"))
}

fn fixture(name: &str) -> String {
    format!("{}/../../fixtures/zip/{name}", env!("CARGO_MANIFEST_DIR"))
}

fn temp(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("lzflow-cli-zip-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    d
}

#[test]
fn list_test_and_extract_a_zip() {
    let zip = fixture("7zz/7z-aes256.zip");
    let out = bin().args(["l", &zip]).output().unwrap();
    assert!(out.status.success(), "{out:?}");
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("Deflate") && text.contains(" + "), "{text}");
    assert!(text.contains("files,"), "{text}");

    // Without the password the test fails; with it every entry checks out.
    let out = bin().args(["t", &zip]).output().unwrap();
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    let out = bin()
        .args(["t", "-v", "-p", "fixture-pass", &zip])
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    assert!(String::from_utf8_lossy(&out.stdout).contains(": OK ("));
    let out = bin()
        .args([
            "t",
            "-p",
            "wrong-pass",
            &fixture("bad/aes256-wrong-password.zip"),
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    assert!(String::from_utf8_lossy(&out.stderr).contains("wrong password"));

    // Extraction gives the bytes `t` verified; a second run keeps them.
    let dir = temp("x");
    let x = |extra: &[&str]| {
        let mut c = bin();
        c.args(["x", "-q", "-p", "fixture-pass", "-o"]).arg(&dir);
        c.args(extra).arg(&zip).output().unwrap()
    };
    let out = x(&[]);
    assert!(out.status.success(), "{out:?}");
    let bytes = std::fs::read(&zip).unwrap();
    let mut a = lzflow::zip::ZipArchive::open_with(
        std::io::Cursor::new(&bytes[..]),
        lzflow::zip::ZipOptions::new().with_password("fixture-pass"),
    )
    .unwrap();
    for i in 0..a.len() {
        let (name, is_dir) = {
            let e = a.directory().get(i).unwrap();
            (e.name().into_owned(), e.is_dir())
        };
        if is_dir {
            assert!(dir.join(&name).is_dir());
            continue;
        }
        let mut want = Vec::new();
        std::io::Read::read_to_end(&mut a.reader(i).unwrap(), &mut want).unwrap();
        assert!(std::fs::read(dir.join(&name)).unwrap() == want, "{name}");
    }
    let out = x(&[]);
    assert_eq!(out.status.code(), Some(2), "existing files must be refused");
    let out = x(&["-f"]);
    assert!(out.status.success(), "{out:?}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// Runs `lzflow ARGS` with `input` on standard input.
fn with_stdin(args: &[&str], input: &[u8]) -> std::process::Output {
    use std::io::Write;
    let mut child = bin()
        .args(args)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
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

#[test]
fn zip_archives_on_standard_input_are_read_forward_only() {
    // Written by Java's ZipOutputStream: data descriptors on every entry.
    let zip = std::fs::read(fixture("java/java-deflate-dd.zip")).unwrap();
    let out = with_stdin(&["t", "-v", "-"], &zip);
    assert!(out.status.success(), "{out:?}");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.starts_with("(stdin): OK ("), "{text}");

    // `l -` lists what `l FILE` lists, but for modes and packed sizes
    // only the central directory has.
    let out = with_stdin(&["l", "-"], &zip);
    assert!(out.status.success(), "{out:?}");
    let streamed = String::from_utf8(out.stdout).unwrap();
    let out = bin()
        .args(["l", &fixture("java/java-deflate-dd.zip")])
        .output()
        .unwrap();
    let seekable = String::from_utf8(out.stdout).unwrap();
    let names = |t: &str| -> Vec<String> {
        t.lines()
            .skip(1)
            .filter(|l| !l.contains("files,"))
            .map(|l| l.rsplit(' ').next().unwrap().to_string())
            .collect()
    };
    assert_eq!(names(&streamed), names(&seekable));
    let last = |t: &str| t.lines().last().unwrap().to_string();
    assert_eq!(last(&streamed), last(&seekable));

    // `x -` writes the bytes the seekable reader reads.
    let dir = temp("stdin-x");
    let out = with_stdin(&["x", "-q", "-o", dir.to_str().unwrap(), "-"], &zip);
    assert!(out.status.success(), "{out:?}");
    let mut a = lzflow::zip::ZipArchive::open(std::io::Cursor::new(&zip[..])).unwrap();
    for i in 0..a.len() {
        let e = a.directory().get(i).unwrap();
        if e.is_dir() {
            continue;
        }
        let name = e.name().into_owned();
        let mut want = Vec::new();
        std::io::Read::read_to_end(&mut a.reader(i).unwrap(), &mut want).unwrap();
        assert_eq!(std::fs::read(dir.join(&name)).unwrap(), want, "{name}");
    }
    std::fs::remove_dir_all(&dir).unwrap();

    // A damaged archive on standard input fails with exit status 2 (7-Zip's
    // fatal error) and names the entry.
    let bad = std::fs::read(fixture("bad/crc-mismatch-deflate.zip")).unwrap();
    let out = with_stdin(&["t", "-"], &bad);
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("CRC"),
        "{out:?}"
    );

    // Anything else on standard input still goes to the stream decoders.
    let xz = std::fs::read(format!(
        "{}/../../fixtures/generated/xz/preset-0.xz",
        env!("CARGO_MANIFEST_DIR")
    ));
    if let Ok(xz) = xz {
        let out = with_stdin(&["t", "-"], &xz);
        assert!(out.status.success(), "{out:?}");
    }
}

#[test]
fn the_compression_ratio_cap_has_its_option() {
    // 64 MiB of zeros in one XZ entry (method 95): a ratio far past the
    // default cap of 1,100. Local header, data, then the central
    // directory's signature, where the forward-only reader stops.
    let zeros = vec![0u8; 64 << 20];
    let mut enc = lzflow::write::XzEncoder::new(Vec::new(), 0);
    std::io::Write::write_all(&mut enc, &zeros).unwrap();
    let xz = enc.finish().unwrap();
    let mut zip = b"PK\x03\x04\x14\x00\x00\x00\x5f\x00\x00\x00\x00\x00".to_vec();
    zip.extend_from_slice(&crc32fast::hash(&zeros).to_le_bytes());
    zip.extend_from_slice(&(xz.len() as u32).to_le_bytes());
    zip.extend_from_slice(&(zeros.len() as u32).to_le_bytes());
    zip.extend_from_slice(b"\x05\x00\x00\x00zeros");
    zip.extend_from_slice(&xz);
    zip.extend_from_slice(b"PK\x01\x02");
    let out = with_stdin(&["t", "-"], &zip);
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("--max-ratio"), "{err}");
    let out = with_stdin(&["t", "-v", "--max-ratio", "0", "-"], &zip);
    assert!(out.status.success(), "{out:?}");
    assert!(String::from_utf8_lossy(&out.stdout).contains("67108864 bytes"));
}

#[test]
fn self_extracting_archives_are_recognised_by_their_end_record() {
    for file in [
        "infozip/iz-sfx-adjusted.zip",
        "infozip/iz-sfx-unadjusted.zip",
    ] {
        let path = fixture(file);
        assert_ne!(
            &std::fs::read(&path).unwrap()[..2],
            b"PK",
            "{file}: has a stub"
        );
        let out = bin().args(["t", "-v", &path]).output().unwrap();
        assert!(out.status.success(), "{file}: {out:?}");
        assert!(
            String::from_utf8_lossy(&out.stdout).contains(": OK (4 entries"),
            "{out:?}"
        );
    }
}

#[test]
fn lzflow_a_makes_zip_archives_it_and_unzip_read_back() {
    let dir = temp("a-zip");
    let src = dir.join("src");
    std::fs::create_dir_all(src.join("sub")).unwrap();
    std::fs::write(src.join("a.txt"), b"alpha ".repeat(20_000)).unwrap();
    std::fs::write(
        src.join("sub/b.bin"),
        (0..70_000u32)
            .map(|i| (i * 7919 % 251) as u8)
            .collect::<Vec<_>>(),
    )
    .unwrap();
    std::fs::write(src.join("empty"), b"").unwrap();
    for (switches, name) in [
        (vec![], "default.zip"),
        (vec!["-mm=BZip2"], "bzip2.zip"),
        (vec!["-mm=LZMA", "-mx9"], "lzma.zip"),
        (vec!["-mm=XZ"], "xz.zip"),
        (vec!["-mx0"], "stored.zip"),
        (vec!["-p", "secret"], "aes.zip"),
    ] {
        let archive = dir.join(name);
        let out = bin()
            .current_dir(&dir)
            .arg("a")
            .args(&switches)
            .arg(&archive)
            .arg("src")
            .output()
            .unwrap();
        assert!(out.status.success(), "{name}: {out:?}");
        let mut t = bin();
        t.args(["t", "-v"]);
        if name == "aes.zip" {
            t.args(["-p", "secret"]);
        }
        let out = t.arg(&archive).output().unwrap();
        assert!(out.status.success(), "{name}: {out:?}");
        assert!(
            String::from_utf8_lossy(&out.stdout).contains("(5 entries, 190000 bytes)"),
            "{name}: {out:?}"
        );
        // Extracted, the files are the sources.
        let x = dir.join(format!("x-{name}"));
        let mut c = bin();
        c.args(["x", "-q", "-o"]).arg(&x);
        if name == "aes.zip" {
            c.args(["-p", "secret"]);
        }
        let out = c.arg(&archive).output().unwrap();
        assert!(out.status.success(), "{name}: {out:?}");
        for f in ["a.txt", "sub/b.bin", "empty"] {
            assert_eq!(
                std::fs::read(x.join("src").join(f)).unwrap(),
                std::fs::read(src.join(f)).unwrap(),
                "{name} {f}"
            );
        }
        let unzip_knows = ["default.zip", "bzip2.zip", "stored.zip"].contains(&name);
        if unzip_knows && which("unzip") {
            let out = Command::new("unzip")
                .arg("-tq")
                .arg(&archive)
                .output()
                .unwrap();
            assert!(out.status.success(), "unzip -t {name}: {out:?}");
        }
    }
    // On two threads the archive is the one thread's, byte for byte.
    let out = bin()
        .current_dir(&dir)
        .args(["a", "-mmt=2", "mt2.zip", "src"])
        .output()
        .unwrap();
    assert!(out.status.success(), "-mmt=2: {out:?}");
    assert!(
        std::fs::read(dir.join("mt2.zip")).unwrap()
            == std::fs::read(dir.join("default.zip")).unwrap(),
        "-mmt=2 wrote other bytes"
    );
    // PPMd (98): written, and read back by lzflow.
    let out = bin()
        .current_dir(&dir)
        .args(["a", "-mm=PPMd", "-mx7", "ppmd.zip", "src"])
        .output()
        .unwrap();
    assert!(out.status.success(), "-mm=PPMd: {out:?}");
    let out = bin()
        .current_dir(&dir)
        .args(["t", "ppmd.zip"])
        .output()
        .unwrap();
    assert!(out.status.success(), "t ppmd.zip: {out:?}");
    // An unknown method is refused before anything is created.
    let out = bin()
        .current_dir(&dir)
        .args(["a", "-mm=Brotli", "bad.zip", "src"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(7), "{out:?}");
    assert!(!dir.join("bad.zip").exists());
    std::fs::remove_dir_all(&dir).unwrap();
}

fn which(tool: &str) -> bool {
    let found = Command::new("which")
        .arg(tool)
        .output()
        .is_ok_and(|o| o.status.success());
    assert!(
        found || std::env::var_os("CI").is_none(),
        "{tool} is not installed and CI is set"
    );
    found
}

/// As Info-ZIP and 7-Zip do, `a` stores what does not shrink, small or
/// large: at -mx1 zlib-rs's fixed Huffman codes would make noise 6 %
/// larger. Text is still compressed.
#[test]
fn lzflow_a_stores_zip_entries_that_do_not_shrink() {
    let dir = temp("zip-store");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("small.bin"), support::noise(100_000)).unwrap();
    std::fs::write(dir.join("large.bin"), support::noise(3 << 20)).unwrap();
    std::fs::write(dir.join("text.txt"), b"stored or not ".repeat(100_000)).unwrap();
    for level in ["-mx1", "-mx5"] {
        let archive = dir.join(format!("t{level}.zip"));
        let out = bin()
            .current_dir(&dir)
            .args(["a", level])
            .arg(&archive)
            .args(["small.bin", "large.bin", "text.txt"])
            .output()
            .unwrap();
        assert!(out.status.success(), "{level}: {out:?}");
        let a = lzflow::zip::ZipArchive::open(std::fs::File::open(&archive).unwrap()).unwrap();
        let methods: Vec<_> = a
            .directory()
            .iter()
            .map(|e| (e.name().into_owned(), e.method()))
            .collect();
        let want =
            [("small.bin", 0), ("large.bin", 0), ("text.txt", 8)].map(|(n, m)| (n.to_string(), m));
        assert_eq!(methods, want, "{level}");
        let out = bin().args(["t", "-q"]).arg(&archive).output().unwrap();
        assert!(out.status.success(), "{level}: {out:?}");
    }
}

/// `l -slt` writes each entry's method as 7-Zip does, from the central
/// directory and forward-only alike: the encryption first (`AES-256
/// Deflate`, `ZipCrypto Store`), 7-Zip's names (`Store`, `xz`), and what
/// the flags' bits 1 and 2 say (`Deflate:Maximum`, `LZMA:eos`, `Store:v1`).
#[test]
fn l_slt_writes_zip_methods_as_7_zip_does() {
    if !support::has_7zz() {
        eprintln!("SKIPPED: 7zz is not installed");
        return;
    }
    // And the CRC, empty for AE-2 entries (which store none).
    let methods = |text: &[u8]| -> Vec<String> {
        String::from_utf8_lossy(text)
            .lines()
            .filter(|l| l.starts_with("Method = ") || l.starts_with("CRC = "))
            .map(str::to_string)
            .collect()
    };
    let mut seen = std::collections::BTreeSet::new();
    for name in [
        "7zz/7z-aes256.zip",
        "7zz/7z-zipcrypto.zip",
        "7zz/7z-lzma.zip",
        "7zz/7z-ppmd.zip",
        "7zz/7z-bzip2.zip",
        "7zz/7z-deflate64.zip",
        "infozip/iz-level1.zip",
        "infozip/iz-level9.zip",
        "infozip/iz-level0.zip",
        "python/py-lzma.zip",
    ] {
        let path = fixture(name);
        let theirs = Command::new("7zz")
            .args(["l", "-slt", "-pfixture-pass", &path])
            .output()
            .unwrap();
        let want = methods(&theirs.stdout);
        assert!(!want.is_empty(), "{name}");
        let ours = bin()
            .args(["l", "-slt", "-pfixture-pass", &path])
            .output()
            .unwrap();
        assert!(ours.status.success(), "{name}");
        assert_eq!(methods(&ours.stdout), want, "{name}");
        let piped = with_stdin(
            &["l", "-slt", "-pfixture-pass", "-"],
            &std::fs::read(&path).unwrap(),
        );
        assert_eq!(methods(&piped.stdout), want, "{name} from standard input");
        seen.extend(want);
    }
    for m in [
        "AES-256 Deflate",
        "ZipCrypto ",
        "LZMA:eos",
        "Deflate:Maximum",
        "Store:v1",
    ] {
        assert!(seen.iter().any(|s| s.contains(m)), "{m} is among {seen:?}");
    }
}
