//! `ZipArchive` against every archive of the zip corpus
//! (`fixtures/zip/MANIFEST.tsv`): each entry's data has the manifest's
//! size and SHA-256; archives expected to fail fail with a typed error
//! (never a panic or wrong output); unsupported methods say so. Deflate64
//! entries decode, and Zstandard ones (in archives made here, the corpus
//! has none).

use std::io::{Cursor, Read};

use lzflow_zip::{ZipArchive, ZipError, ZipOptions};
use sha2::{Digest, Sha256};

mod common;
use common::{lzflow_expected, manifest, Row, CORPUS as DIR};

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

/// What a row expects of the central-directory reader.
fn expected(row: &Row) -> &str {
    lzflow_expected(row, &row.expected)
}

#[test]
fn every_fixture_reads_as_its_manifest_says() {
    let (mut ok, mut failed, mut unsupported) = (0, 0, 0);
    let (mut deflate64, mut ppmd) = (0, 0);
    for (file, rows) in manifest() {
        let bytes = std::fs::read(format!("{DIR}{file}")).unwrap();
        let first = &rows[0];
        let result = read_all(&bytes, &first.password);
        let expected = if rows.iter().any(|r| expected(r) == "unsupported_ok") {
            "unsupported_ok"
        } else {
            expected(first)
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
                    if row.method == "deflate64" {
                        deflate64 += 1;
                    }
                    if row.method == "ppmd" {
                        ppmd += 1;
                    }
                    ok += 1;
                }
            }
            "unsupported_ok" => {
                let e = result.expect_err(&file);
                // PPMd (zip method 98) is the one method left, named.
                assert!(
                    matches!(
                        e,
                        ZipError::UnsupportedMethod {
                            method: 98,
                            name: "PPMd"
                        }
                    ),
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
    assert_eq!(deflate64, 2, "Deflate64 entries decoded");
    assert_eq!(ppmd, 2, "PPMd entries decoded");
    // Every method of the corpus now decodes.
    assert_eq!((failed, unsupported), (9, 0));
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

/// The Zstandard fixtures of lzflow-methods and what they hold.
const ZSTD_DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../lzflow-methods/tests/data/");
const ZSTD_SIZE: u64 = 240_000;
const ZSTD_CRC: u32 = 0x5A30_4CFF;
const ZSTD_SHA256: &str = "c16bf60619a362517699a6b3936b3e49328e50fd0b1a06cec0b9fd5ecb2dc62f";

/// A zip archive of `entries` (name, method, stored data, CRC-32 and size
/// of the content) with no extra fields.
fn zip_of(entries: &[(&str, u16, &[u8], u32, u64)]) -> Vec<u8> {
    let mut zip = Vec::new();
    let mut central = Vec::new();
    for &(name, method, data, crc, size) in entries {
        let offset = zip.len() as u32;
        // Version 6.3 (Zstandard), no flags, 1980-01-01 00:00.
        let common = |out: &mut Vec<u8>| {
            out.extend_from_slice(&63u16.to_le_bytes());
            out.extend_from_slice(&0u16.to_le_bytes());
            out.extend_from_slice(&method.to_le_bytes());
            out.extend_from_slice(&0u16.to_le_bytes());
            out.extend_from_slice(&0x21u16.to_le_bytes());
            out.extend_from_slice(&crc.to_le_bytes());
            out.extend_from_slice(&(data.len() as u32).to_le_bytes());
            out.extend_from_slice(&(size as u32).to_le_bytes());
            out.extend_from_slice(&(name.len() as u16).to_le_bytes());
            out.extend_from_slice(&0u16.to_le_bytes());
        };
        zip.extend_from_slice(b"PK\x03\x04");
        common(&mut zip);
        zip.extend_from_slice(name.as_bytes());
        zip.extend_from_slice(data);
        central.extend_from_slice(b"PK\x01\x02");
        central.extend_from_slice(&63u16.to_le_bytes());
        common(&mut central);
        // Comment length, disk, internal and external attributes.
        central.extend_from_slice(&[0; 10]);
        central.extend_from_slice(&offset.to_le_bytes());
        central.extend_from_slice(name.as_bytes());
    }
    let at = zip.len() as u32;
    zip.extend_from_slice(&central);
    zip.extend_from_slice(b"PK\x05\x06");
    zip.extend_from_slice(&[0; 4]);
    let n = (entries.len() as u16).to_le_bytes();
    zip.extend_from_slice(&n);
    zip.extend_from_slice(&n);
    zip.extend_from_slice(&(central.len() as u32).to_le_bytes());
    zip.extend_from_slice(&at.to_le_bytes());
    zip.extend_from_slice(&[0; 2]);
    zip
}

#[test]
fn zstd_entries_decode_within_the_memory_limit() {
    let single = std::fs::read(format!("{ZSTD_DIR}single-segment-checksum.zst")).unwrap();
    let streamed = std::fs::read(format!("{ZSTD_DIR}streamed-no-checksum.zst")).unwrap();
    let zip = zip_of(&[
        ("single.txt", 93, &single, ZSTD_CRC, ZSTD_SIZE),
        ("streamed.txt", 93, &streamed, ZSTD_CRC, ZSTD_SIZE),
    ]);
    let got = read_all(&zip, "").unwrap();
    assert_eq!(got.len(), 2);
    for (name, size, sha) in &got {
        assert_eq!((*size, sha.as_str()), (ZSTD_SIZE, ZSTD_SHA256), "{name}");
    }
    // The streamed frame declares a 2 MiB window: more than 3 MiB allow
    // with the decoder's own buffers.
    let tight = ZipOptions::new().with_limits(lzflow_core::Limits::NONE.with_memory(3 << 20));
    let mut a = ZipArchive::open_with(Cursor::new(&zip[..]), tight).unwrap();
    let mut data = Vec::new();
    a.reader(0).unwrap().read_to_end(&mut data).unwrap();
    assert_eq!(data.len() as u64, ZSTD_SIZE);
    let e = a
        .reader(1)
        .and_then(|mut r| Ok(r.read_to_end(&mut Vec::new())?))
        .unwrap_err();
    assert!(matches!(e, ZipError::Limit(_)), "{e:?}");
    // A cut Zstandard entry is an error, not a panic or short data.
    let cut = zip_of(&[(
        "cut.txt",
        93,
        &single[..single.len() / 2],
        ZSTD_CRC,
        ZSTD_SIZE,
    )]);
    assert!(read_all(&cut, "").is_err());
}
