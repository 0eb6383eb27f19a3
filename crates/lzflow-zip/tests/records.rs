//! The record parsers against every archive in fixtures/zip: locate the end
//! records, parse the central directory and compare it row by row with
//! MANIFEST.tsv (name, size, kind, mode, CRC-32, compressed size, flags,
//! method, encryption, times, extra field IDs), then parse every local
//! header, check it against its central record, and read the data
//! descriptors. The damaged archives in `bad/` must fail with a typed
//! error at the record they damage, or pass where the damage is in the data.

use std::collections::HashMap;
use std::time::{SystemTime, UNIX_EPOCH};

use lzflow_zip::{
    AesVendorVersion, CentralDirectory, CentralDirectoryLocation, CentralEntry, DataDescriptor,
    DirectoryLocator, ExtraFields, LocalFileHeader, ZipError,
};

const FIXTURES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../fixtures/zip/");

fn read_fixture(path: &str) -> Vec<u8> {
    std::fs::read(format!("{FIXTURES}{path}")).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// MANIFEST.tsv's rows as column name → value, grouped by file in order.
fn manifest() -> Vec<(String, Vec<HashMap<String, String>>)> {
    let text = String::from_utf8(read_fixture("MANIFEST.tsv")).unwrap();
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().unwrap().split('\t').collect();
    let mut files: Vec<(String, Vec<HashMap<String, String>>)> = Vec::new();
    for line in lines.filter(|l| !l.is_empty()) {
        let row: HashMap<String, String> = header
            .iter()
            .zip(line.split('\t'))
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        let file = row["file"].clone();
        match files.last_mut() {
            Some((f, rows)) if *f == file => rows.push(row),
            _ => files.push((file, vec![row])),
        }
    }
    files
}

/// The test's I/O: serves the locator's requests from the file in memory.
fn locate(file: &[u8]) -> Result<CentralDirectoryLocation, ZipError> {
    let mut locator = DirectoryLocator::new(file.len() as u64);
    while let Some((offset, len)) = locator.request() {
        let start = usize::try_from(offset).unwrap().min(file.len());
        let end = start.saturating_add(len).min(file.len());
        locator.feed(&file[start..end])?;
    }
    locator.finish()
}

fn range(file: &[u8], offset: u64, len: u64) -> Result<&[u8], ZipError> {
    let start = usize::try_from(offset).map_err(|_| ZipError::Truncated)?;
    let len = usize::try_from(len).map_err(|_| ZipError::Truncated)?;
    file.get(start..)
        .and_then(|rest| rest.get(..len))
        .ok_or(ZipError::Truncated)
}

fn open(file: &[u8]) -> Result<(CentralDirectoryLocation, CentralDirectory), ZipError> {
    let location = locate(file)?;
    let bytes = range(file, location.offset, location.size)?.to_vec();
    let cd = CentralDirectory::parse(bytes, &location)?;
    Ok((location, cd))
}

/// What was read of one entry's local records.
struct LocalRecords {
    extra_ids: String,
    descriptor: bool,
}

/// Parses the entry's local header, checks it against `entry`, and reads
/// its data descriptor if it has one.
fn read_local(
    file: &[u8],
    location: &CentralDirectoryLocation,
    entry: &CentralEntry<'_>,
) -> Result<LocalRecords, ZipError> {
    let at = entry.local_header_offset();
    let mut header = LocalFileHeader::parse(range(file, at, LocalFileHeader::LEN as u64)?)?;
    let variable = range(
        file,
        at + LocalFileHeader::LEN as u64,
        header.variable_len() as u64,
    )?;
    let (name, extra) = header.parse_variable(variable)?;
    header.check_against(name, entry)?;
    let data_end = header.data_offset(at) + entry.compressed_size();
    if data_end > location.offset {
        return Err(ZipError::Corrupt(format!(
            "{}: data runs into the central directory",
            entry.name()
        )));
    }
    if header.has_data_descriptor() {
        let after = file.get(data_end as usize..).unwrap_or_default();
        let (descriptor, _len) = DataDescriptor::parse(after, header.zip64)?;
        let expected = DataDescriptor {
            crc32: entry.crc32(),
            compressed_size: entry.compressed_size(),
            uncompressed_size: entry.uncompressed_size(),
        };
        if descriptor != expected {
            return Err(ZipError::Corrupt(format!(
                "{}: data descriptor {descriptor:?} against central {expected:?}",
                entry.name()
            )));
        }
        if entry.method() == 0 && !entry.is_encrypted() {
            // What a forward-only reader of Stored data would test.
            assert!(
                DataDescriptor::recognize(after, header.zip64, &expected).is_some(),
                "{}",
                entry.name()
            );
        }
    }
    Ok(LocalRecords {
        extra_ids: extra_ids(extra),
        descriptor: header.has_data_descriptor(),
    })
}

fn extra_ids(extra: &[u8]) -> String {
    let ids: Vec<String> = ExtraFields::new(extra)
        .map(|f| format!("{:04x}", f.id))
        .collect();
    if ids.is_empty() {
        "-".into()
    } else {
        ids.join(",")
    }
}

fn method_number(name: &str) -> u16 {
    match name {
        "stored" => 0,
        "deflate" => 8,
        "deflate64" => 9,
        "bzip2" => 12,
        "lzma" => 14,
        "ppmd" => 98,
        other => panic!("unknown method {other}"),
    }
}

/// Seconds since the Unix epoch of "YYYY-MM-DDTHH:MM:SS" (optional Z), UTC.
fn iso_seconds(text: &str) -> i64 {
    let t = text.trim_end_matches('Z');
    let n = |r: std::ops::Range<usize>| t[r].parse::<i64>().unwrap();
    let (y, m, d) = (n(0..4), n(5..7), n(8..10));
    // Days from 1970-01-01 by counting from March, so leap days fall last.
    let (y, m) = if m <= 2 { (y - 1, m + 12) } else { (y, m) };
    let days = 365 * y + y / 4 - y / 100 + y / 400 + (153 * (m - 3) + 2) / 5 + d - 719_469;
    days * 86_400 + n(11..13) * 3600 + n(14..16) * 60 + n(17..19)
}

fn unix_seconds(t: SystemTime) -> i64 {
    match t.duration_since(UNIX_EPOCH) {
        Ok(after) => after.as_secs() as i64,
        Err(before) => -(before.duration().as_secs() as i64),
    }
}

/// Compares one entry with its manifest row; the differences, if any.
fn compare(
    entry: &CentralEntry<'_>,
    local: &LocalRecords,
    row: &HashMap<String, String>,
) -> Vec<String> {
    let mut diffs = Vec::new();
    let mut check = |what: &str, ours: String, theirs: &str| {
        if ours != theirs {
            diffs.push(format!("{what}: ours {ours:?}, manifest {theirs:?}"));
        }
    };
    check("entry_path", entry.name().into_owned(), &row["entry_path"]);
    if !row["entry_name_hex"].is_empty() {
        let hex: String = entry
            .name_bytes()
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect();
        check("entry_name_hex", hex, &row["entry_name_hex"]);
    }
    check(
        "entry_size",
        entry.uncompressed_size().to_string(),
        &row["entry_size"],
    );
    check(
        "is_dir",
        u8::from(entry.is_dir()).to_string(),
        &row["is_dir"],
    );
    check(
        "unix_mode",
        entry
            .unix_mode()
            .map(|m| format!("{m:o}"))
            .unwrap_or_default(),
        &row["unix_mode"],
    );
    check("crc32", format!("{:08x}", entry.crc32()), &row["crc32"]);
    check(
        "compressed_size",
        entry.compressed_size().to_string(),
        &row["compressed_size"],
    );
    check(
        "gp_flags",
        format!("{:04x}", entry.flags()),
        &row["gp_flags"],
    );

    let aes = entry.aes();
    let method = match aes {
        Some(aes) if entry.method() == 99 => aes.method,
        _ => entry.method(),
    };
    check(
        "method",
        method.to_string(),
        &method_number(&row["method"]).to_string(),
    );
    let encryption = match (entry.is_encrypted(), entry.method(), aes) {
        (false, _, _) => "none".to_string(),
        (true, 99, Some(aes)) => format!(
            "aes{}-{}",
            aes.key_bits(),
            match aes.version {
                AesVendorVersion::Ae1 => "ae1",
                AesVendorVersion::Ae2 => "ae2",
            }
        ),
        (true, 99, None) => "aes without its extra field".into(),
        (true, _, _) => "zipcrypto".into(),
    };
    check("encryption", encryption, &row["encryption"]);

    let dos = entry.dos_time();
    check(
        "mtime (DOS)",
        format!(
            "{:04}-{:02}-{:02}T{:02}:{:02}:{:02}",
            dos.year(),
            dos.month(),
            dos.day(),
            dos.hour(),
            dos.minute(),
            dos.second()
        ),
        &row["mtime"],
    );
    let expected_mtime = if row["mtime_ext"].is_empty() {
        // No extra field time: the DOS time, read as UTC.
        iso_seconds(&row["mtime"])
    } else {
        iso_seconds(&row["mtime_ext"])
    };
    check(
        "mtime()",
        entry
            .mtime()
            .map(unix_seconds)
            .unwrap_or(i64::MIN)
            .to_string(),
        &expected_mtime.to_string(),
    );

    let ids = format!("L:{} C:{}", local.extra_ids, extra_ids(entry.extra_bytes()));
    check("extra_ids", ids, &row["extra_ids"]);
    diffs
}

#[test]
fn every_good_archive_matches_the_manifest() {
    let mut archives = 0;
    let mut entries = 0;
    let mut descriptors = 0;
    let mut failures = Vec::new();
    for (path, rows) in manifest() {
        if rows[0]["expected"] == "error" {
            continue;
        }
        let file = read_fixture(&path);
        let (location, cd) = match open(&file) {
            Ok(opened) => opened,
            Err(e) => {
                failures.push(format!("{path}: {e:?}"));
                continue;
            }
        };
        let rows: Vec<_> = rows.iter().filter(|r| r["entry_path"] != "-").collect();
        if cd.len() != rows.len() {
            failures.push(format!(
                "{path}: {} entries, manifest {}",
                cd.len(),
                rows.len()
            ));
            continue;
        }
        archives += 1;
        for (i, (entry, row)) in cd.iter().zip(&rows).enumerate() {
            let local = match read_local(&file, &location, &entry) {
                Ok(local) => local,
                Err(e) => {
                    failures.push(format!("{path} #{i} {}: {e:?}", entry.name()));
                    continue;
                }
            };
            descriptors += usize::from(local.descriptor);
            let diffs = compare(&entry, &local, row);
            if diffs.is_empty() {
                entries += 1;
            }
            for d in diffs {
                failures.push(format!("{path} #{i} {}: {d}", row["entry_path"]));
            }
            assert_eq!(cd.find(entry.name_bytes()), Some(i), "{path}: find");
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    eprintln!(
        "{archives} archives, {entries} entries matched, {descriptors} data descriptors read"
    );
    // 54 archives: 50 "ok", 4 "unsupported_ok" (Deflate64, PPMd: their
    // records are ordinary); py-empty.zip has no entries.
    assert_eq!((archives, entries), (54, 2292));
}

#[test]
fn archive_level_details() {
    let opened = |path: &str| {
        let file = read_fixture(path);
        let (location, cd) = open(&file).unwrap();
        (file, location, cd)
    };
    // A 3000-byte stub before iz-level6.zip: the unadjusted offsets are
    // shifted by it, the adjusted ones already count it.
    let (file, unadjusted, cd) = opened("infozip/iz-sfx-unadjusted.zip");
    assert_eq!(unadjusted.prefix, 3000);
    assert_eq!(cd.get(0).unwrap().local_header_offset(), 3000);
    assert_eq!(&file[3000..3004], b"PK\x03\x04");
    let (_, adjusted, cd) = opened("infozip/iz-sfx-adjusted.zip");
    assert_eq!(adjusted.prefix, 0);
    assert_eq!(cd.get(0).unwrap().local_header_offset(), 3000);
    assert_eq!(adjusted.offset, unadjusted.offset);
    let (_, level6, _) = opened("infozip/iz-level6.zip");
    assert_eq!(level6.offset + 3000, adjusted.offset);

    for (path, zip64) in [
        ("crafted/zip64-eocd.zip", true),
        ("crafted/zip64-extra-all.zip", true),
        ("infozip/iz-zip64-fz.zip", true),
        ("python/py-zip64-forced.zip", false),
        ("infozip/iz-many-2000.zip", false),
    ] {
        assert_eq!(opened(path).1.zip64, zip64, "{path}");
    }

    let (_, location, cd) = opened("infozip/iz-comments.zip");
    assert_eq!(
        location.comment,
        b"Archive comment written by zip -z.\r\nIt has two lines."
    );
    let comments: Vec<_> = cd.iter().map(|e| e.comment().into_owned()).collect();
    assert_eq!(
        comments,
        ["comment for alpha", "comment for beta, with UTF-8: ü", ""]
    );
    let (_, location, cd) = opened("java/java-deflate-dd.zip");
    assert_eq!(
        location.comment,
        b"written by java.util.zip.ZipOutputStream"
    );
    assert_eq!(
        cd.get(1).unwrap().comment_bytes(),
        b"entry comment from Java"
    );

    let (_, location, cd) = opened("python/py-empty.zip");
    assert_eq!(
        (location.offset, location.size, location.entries),
        (0, 0, 0)
    );
    assert!(cd.is_empty());
}

/// Where each damaged archive must fail in the record parsers.
#[derive(Debug, PartialEq)]
enum Fails {
    /// Finding the end records or parsing the central directory.
    Directory,
    /// A local header.
    LocalHeader,
    /// Nowhere here: the damage is in the entry data or the password.
    NotInRecords,
}

#[test]
fn damaged_archives_fail_with_typed_errors() {
    let expected = [
        ("bad/truncated-mid-entry.zip", Fails::Directory),
        ("bad/truncated-central-dir.zip", Fails::Directory),
        ("bad/bad-local-signature.zip", Fails::LocalHeader),
        ("bad/central-dir-past-end.zip", Fails::Directory),
        ("bad/crc-mismatch-stored.zip", Fails::NotInRecords),
        ("bad/crc-mismatch-deflate.zip", Fails::NotInRecords),
        ("bad/bad-deflate-data.zip", Fails::NotInRecords),
        ("bad/aes256-wrong-password.zip", Fails::NotInRecords),
        ("bad/zipcrypto-wrong-password.zip", Fails::NotInRecords),
    ];
    let in_manifest: Vec<String> = manifest()
        .into_iter()
        .filter(|(_, rows)| rows[0]["expected"] == "error")
        .map(|(path, _)| path)
        .collect();
    let listed: Vec<&str> = expected.iter().map(|(p, _)| *p).collect();
    assert_eq!(
        in_manifest, listed,
        "every error archive has an expectation"
    );

    for (path, fails) in expected {
        let file = read_fixture(path);
        let outcome = match open(&file) {
            Err(e) => {
                assert!(
                    matches!(
                        e,
                        ZipError::NotZip | ZipError::Corrupt(_) | ZipError::Truncated
                    ),
                    "{path}: {e:?}"
                );
                Fails::Directory
            }
            Ok((location, cd)) => {
                let errors: Vec<ZipError> = cd
                    .iter()
                    .filter_map(|e| read_local(&file, &location, &e).err())
                    .collect();
                match errors.first() {
                    Some(ZipError::Corrupt(m)) if m.contains("signature") => Fails::LocalHeader,
                    Some(e) => panic!("{path}: {e:?}"),
                    None => Fails::NotInRecords,
                }
            }
        };
        assert_eq!(outcome, fails, "{path}");
    }
}

#[test]
fn truncated_fixtures_never_panic() {
    // Every length of the small archives with Zip64 records and extras,
    // comments, CP437 names and NTFS times: an error or a directory, never
    // a panic.
    for path in [
        "crafted/zip64-extra-all.zip",
        "crafted/zip64-eocd.zip",
        "crafted/cp437-and-utf8-names.zip",
        "infozip/iz-comments.zip",
        "infozip/iz-times.zip",
        "7zz/7z-unicode.zip",
    ] {
        let file = read_fixture(path);
        for len in 0..file.len() {
            let part = &file[..len];
            if let Ok((location, cd)) = open(part) {
                for e in cd.iter() {
                    let _ = read_local(part, &location, &e);
                }
            }
        }
    }
}
