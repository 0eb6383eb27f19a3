//! `ZipArchive` against every archive of the zip corpus
//! (`fixtures/zip/MANIFEST.tsv`): each entry's data has the manifest's
//! size and SHA-256; archives expected to fail fail with a typed error
//! (never a panic or wrong output); unsupported methods say so.

use std::collections::BTreeMap;
use std::io::{Cursor, Read};

use lzflow_zip::{ZipArchive, ZipError, ZipOptions};
use sha2::{Digest, Sha256};

const DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../fixtures/zip/");

struct Row {
    method: String,
    password: String,
    expected: String,
    path: String,
    size: u64,
    sha256: String,
    is_dir: bool,
}

fn manifest() -> BTreeMap<String, Vec<Row>> {
    let text = std::fs::read_to_string(format!("{DIR}MANIFEST.tsv")).unwrap();
    let mut lines = text.lines();
    let head: Vec<&str> = lines.next().unwrap().split('\t').collect();
    let col = |name: &str| head.iter().position(|h| *h == name).unwrap();
    let (f, m, p, e, path, size, sha, dir) = (
        col("file"),
        col("method"),
        col("password"),
        col("expected"),
        col("entry_path"),
        col("entry_size"),
        col("entry_sha256"),
        col("is_dir"),
    );
    let mut out: BTreeMap<String, Vec<Row>> = BTreeMap::new();
    for line in lines {
        let c: Vec<&str> = line.split('\t').collect();
        out.entry(c[f].to_string()).or_default().push(Row {
            method: c[m].to_string(),
            password: c[p].to_string(),
            expected: c[e].to_string(),
            path: c[path].to_string(),
            size: c[size].parse().unwrap_or(0),
            sha256: c[sha].to_string(),
            is_dir: c[dir] == "1",
        });
    }
    out
}

/// Reads every entry; the first error stops the archive.
fn read_all(bytes: &[u8], password: &str) -> Result<Vec<(String, u64, String)>, ZipError> {
    let mut opts = ZipOptions::new();
    if !password.is_empty() {
        opts = opts.with_password(password);
    }
    let mut a = ZipArchive::open_with(Cursor::new(bytes), opts)?;
    let mut got = Vec::new();
    for i in 0..a.len() {
        let name = a.directory().get(i).unwrap().name().into_owned();
        let mut data = Vec::new();
        a.reader(i)?.read_to_end(&mut data)?;
        let sha = format!("{:x}", Sha256::digest(&data));
        got.push((name, data.len() as u64, sha));
    }
    Ok(got)
}

#[test]
fn every_fixture_reads_as_its_manifest_says() {
    let (mut ok, mut failed, mut unsupported) = (0, 0, 0);
    for (file, rows) in manifest() {
        let bytes = std::fs::read(format!("{DIR}{file}")).unwrap();
        let first = &rows[0];
        let result = read_all(&bytes, &first.password);
        let expected = if rows.iter().any(|r| r.expected == "unsupported_ok") {
            "unsupported_ok"
        } else {
            first.expected.as_str()
        };
        match expected {
            "ok" => {
                let got = result.unwrap_or_else(|e| panic!("{file}: {e:?}"));
                let want: Vec<_> = rows.iter().filter(|r| r.path != "-").collect();
                assert_eq!(got.len(), want.len(), "{file}");
                for ((name, size, sha), row) in got.iter().zip(want) {
                    assert_eq!(name, &row.path, "{file}");
                    assert_eq!(*size, row.size, "{file} {name}");
                    if !row.is_dir {
                        assert_eq!(sha, &row.sha256, "{file} {name}");
                    }
                    ok += 1;
                }
            }
            "unsupported_ok" => {
                let e = result.expect_err(&file);
                assert!(
                    matches!(e, ZipError::UnsupportedMethod { .. }),
                    "{file}: {e:?} ({})",
                    first.method
                );
                unsupported += 1;
            }
            _ => {
                let e = result.expect_err(&file);
                if first.password == "wrong-pass" {
                    assert!(
                        matches!(e, ZipError::WrongPassword | ZipError::DataCrc { .. }),
                        "{file}: {e:?}"
                    );
                }
                failed += 1;
            }
        }
    }
    eprintln!("{ok} entries read, {failed} bad archives refused, {unsupported} unsupported");
    assert!(ok > 2000, "{ok}");
    assert_eq!((failed, unsupported), (9, 2));
}

#[test]
fn a_missing_password_is_asked_for_and_names_are_found() {
    let bytes = std::fs::read(format!("{DIR}7zz/7z-aes256.zip")).unwrap();
    let mut a = ZipArchive::open(Cursor::new(&bytes[..])).unwrap();
    let i = (0..a.len())
        .find(|&i| a.directory().get(i).unwrap().is_encrypted())
        .unwrap();
    assert!(matches!(a.reader(i), Err(ZipError::PasswordRequired)));
    let name = a.directory().get(i).unwrap().name().into_owned();
    let mut a = ZipArchive::open_with(
        Cursor::new(&bytes[..]),
        ZipOptions::new().with_password("fixture-pass"),
    )
    .unwrap();
    let mut data = Vec::new();
    a.reader_by_name(&name)
        .unwrap()
        .read_to_end(&mut data)
        .unwrap();
    assert_eq!(
        data.len() as u64,
        a.directory().get(i).unwrap().uncompressed_size()
    );
    assert!(matches!(
        a.reader_by_name("no such"),
        Err(ZipError::NoSuchEntry)
    ));
}

#[test]
fn every_truncation_is_an_error_not_a_panic() {
    let bytes = std::fs::read(format!("{DIR}infozip/iz-level0.zip")).unwrap();
    for cut in (0..bytes.len()).step_by(97) {
        assert!(read_all(&bytes[..cut], "").is_err(), "cut at {cut}");
    }
}
