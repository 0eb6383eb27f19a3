//! `ZipArchive::extract_to_with` under the rules every lzflow container
//! shares: exact content, existing files kept unless asked, paths that
//! would escape the target refused before anything is written, and a
//! wrong password leaving nothing behind.

use std::io::Cursor;
use std::path::{Path, PathBuf};

use lzflow_zip::{ExtractError, ExtractOptions, Overwrite, ZipArchive, ZipError, ZipOptions};
use sha2::{Digest, Sha256};

const DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../fixtures/zip/");

fn target(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("lzflow-zip-x-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    d
}

/// (path, sha256) of every file entry of `file` in the manifest.
fn manifest_files(file: &str) -> Vec<(String, String)> {
    let text = std::fs::read_to_string(format!("{DIR}MANIFEST.tsv")).unwrap();
    let mut lines = text.lines();
    let head: Vec<&str> = lines.next().unwrap().split('\t').collect();
    let col = |n: &str| head.iter().position(|h| *h == n).unwrap();
    let (f, p, s, d) = (
        col("file"),
        col("entry_path"),
        col("entry_sha256"),
        col("is_dir"),
    );
    lines
        .map(|l| l.split('\t').collect::<Vec<_>>())
        .filter(|c| c[f] == file && c[d] == "0")
        .map(|c| (c[p].to_string(), c[s].to_string()))
        .collect()
}

fn sha(path: &Path) -> String {
    format!("{:x}", Sha256::digest(std::fs::read(path).unwrap()))
}

#[test]
fn extracted_files_match_the_manifest_and_existing_ones_are_kept() {
    for file in [
        "infozip/iz-level0.zip",
        "7zz/7z-deflate.zip",
        "7zz/7z-aes256.zip",
    ] {
        let bytes = std::fs::read(format!("{DIR}{file}")).unwrap();
        let dir = target(&file.replace('/', "-"));
        let opts = || ZipOptions::new().with_password("fixture-pass");
        let mut a = ZipArchive::open_with(Cursor::new(&bytes[..]), opts()).unwrap();
        a.extract_to(&dir).unwrap();
        let want = manifest_files(file);
        assert!(!want.is_empty(), "{file}");
        for (path, sum) in &want {
            assert_eq!(&sha(&dir.join(path)), sum, "{file} {path}");
        }
        // Again: the existing files are refused by name, nothing changes.
        let mut a = ZipArchive::open_with(Cursor::new(&bytes[..]), opts()).unwrap();
        let e = a.extract_to(&dir).unwrap_err();
        assert!(
            matches!(e, ZipError::Extract(ExtractError::Exists { .. })),
            "{e:?}"
        );
        // Unless the caller chooses to overwrite.
        let always = ExtractOptions::default().with_overwrite(Overwrite::Always);
        a.extract_to_with(&dir, &always).unwrap();
        let _ = std::fs::remove_dir_all(&dir);
    }
}

#[test]
fn a_wrong_password_leaves_nothing_behind() {
    let bytes = std::fs::read(format!("{DIR}bad/aes256-wrong-password.zip")).unwrap();
    let dir = target("wrong-pass");
    let mut a = ZipArchive::open_with(
        Cursor::new(&bytes[..]),
        ZipOptions::new().with_password("wrong-pass"),
    )
    .unwrap();
    assert!(matches!(a.extract_to(&dir), Err(ZipError::WrongPassword)));
    let left: Vec<_> = std::fs::read_dir(&dir)
        .map(|d| d.flatten().map(|e| e.path()).collect())
        .unwrap_or_default();
    assert!(left.is_empty(), "{left:?}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// A Stored zip of `entries`, byte by byte (APPNOTE 4.3).
fn stored_zip(entries: &[(&str, &[u8])]) -> Vec<u8> {
    let mut out = Vec::new();
    let mut central = Vec::new();
    for (name, data) in entries {
        let offset = out.len() as u32;
        let crc = crc32fast::hash(data);
        let fixed = |sig: u32, out: &mut Vec<u8>| {
            out.extend_from_slice(&sig.to_le_bytes());
            if sig == 0x0201_4b50 {
                out.extend_from_slice(&20u16.to_le_bytes()); // made by
            }
            out.extend_from_slice(&20u16.to_le_bytes()); // needed
            out.extend_from_slice(&0u16.to_le_bytes()); // flags
            out.extend_from_slice(&0u16.to_le_bytes()); // stored
            out.extend_from_slice(&0u32.to_le_bytes()); // time, date
            out.extend_from_slice(&crc.to_le_bytes());
            out.extend_from_slice(&(data.len() as u32).to_le_bytes());
            out.extend_from_slice(&(data.len() as u32).to_le_bytes());
            out.extend_from_slice(&(name.len() as u16).to_le_bytes());
            out.extend_from_slice(&0u16.to_le_bytes()); // extra
        };
        fixed(0x0403_4b50, &mut out);
        out.extend_from_slice(name.as_bytes());
        out.extend_from_slice(data);
        fixed(0x0201_4b50, &mut central);
        central.extend_from_slice(&[0; 6]); // comment, disk, internal attrs
        central.extend_from_slice(&0u32.to_le_bytes()); // external attrs
        central.extend_from_slice(&offset.to_le_bytes());
        central.extend_from_slice(name.as_bytes());
    }
    let cd_offset = out.len() as u32;
    out.extend_from_slice(&central);
    out.extend_from_slice(&0x0605_4b50u32.to_le_bytes());
    out.extend_from_slice(&[0; 4]);
    let n = entries.len() as u16;
    out.extend_from_slice(&n.to_le_bytes());
    out.extend_from_slice(&n.to_le_bytes());
    out.extend_from_slice(&(central.len() as u32).to_le_bytes());
    out.extend_from_slice(&cd_offset.to_le_bytes());
    out.extend_from_slice(&0u16.to_le_bytes());
    out
}

#[test]
fn paths_that_escape_are_refused_before_anything_is_written() {
    for evil in [
        "../escape.txt",
        "/tmp/abs.txt",
        "a/../../up.txt",
        "a\\..\\..\\b.txt",
    ] {
        let zip = stored_zip(&[("fine.txt", b"fine"), (evil, b"evil")]);
        let dir = target("evil");
        let mut a = ZipArchive::open(Cursor::new(&zip[..])).unwrap();
        let e = a.extract_to(&dir).unwrap_err();
        assert!(
            matches!(e, ZipError::Extract(ExtractError::UnsafePath { .. })),
            "{evil}: {e:?}"
        );
        assert!(
            !dir.join("fine.txt").exists(),
            "{evil}: wrote before refusing"
        );
        let _ = std::fs::remove_dir_all(&dir);
    }
    // The crafted writer itself makes archives the reader extracts.
    let zip = stored_zip(&[("d/one.txt", b"one"), ("two.txt", b"")]);
    let dir = target("good");
    ZipArchive::open(Cursor::new(&zip[..]))
        .unwrap()
        .extract_to(&dir)
        .unwrap();
    assert_eq!(std::fs::read(dir.join("d/one.txt")).unwrap(), b"one");
    assert_eq!(std::fs::read(dir.join("two.txt")).unwrap(), b"");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_selection_writes_only_its_entries_and_judges_no_other() {
    // An unsafe path, a duplicate name and a damaged entry, none selected.
    let mut zip = stored_zip(&[
        ("../evil.txt", b"evil"),
        ("dup.txt", b"one"),
        ("keep/a.txt", b"kept"),
        ("bad.txt", b"damaged"),
        ("dup.txt", b"two"),
    ]);
    let at = zip.windows(7).position(|w| w == b"damaged").unwrap();
    zip[at] ^= 1;
    let select = ExtractOptions::default().with_select(|name| name.starts_with("keep/"));
    let dir = target("select");
    ZipArchive::open(Cursor::new(&zip[..]))
        .unwrap()
        .extract_to_with(dir.join("cd"), &select)
        .unwrap();
    // Forward-only too: each entry is judged as it arrives, the others
    // are read past.
    lzflow_zip::ZipStreamReader::new(&zip[..])
        .extract_to_with(dir.join("stream"), &select)
        .unwrap();
    for how in ["cd", "stream"] {
        let listing: Vec<_> = std::fs::read_dir(dir.join(how))
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(listing, ["keep"], "{how}");
        assert_eq!(
            std::fs::read(dir.join(how).join("keep/a.txt")).unwrap(),
            b"kept"
        );
    }
    assert!(!dir.join("evil.txt").exists());
    // Without the selection the unsafe path is refused.
    let e = ZipArchive::open(Cursor::new(&zip[..]))
        .unwrap()
        .extract_to(dir.join("all"))
        .unwrap_err();
    assert!(
        matches!(e, ZipError::Extract(ExtractError::UnsafePath { .. })),
        "{e:?}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}
