//! Every 7z fixture of fixtures/generated decodes to what MANIFEST.tsv says.

use std::collections::BTreeMap;
use std::fs::File;
use std::io::Read;
use std::path::PathBuf;

use lzflow_7z::{Archive, ArchiveOptions, Entry, SevenZError};
use sha2::{Digest, Sha256};

mod common;

fn generated() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/generated")
}

#[derive(Debug, Clone)]
struct Row {
    file: String,
    password: String,
    expected: String,
    path: String,
    size: u64,
    sha256: String,
    is_dir: bool,
    mtime: String,
    atime: String,
    ctime: String,
    attributes: String,
}

fn manifest() -> Vec<Row> {
    let text = std::fs::read_to_string(generated().join("MANIFEST.tsv")).unwrap();
    text.lines()
        .skip(1)
        .map(|l| l.split('\t').collect::<Vec<_>>())
        .filter(|c| c[1] == "7z")
        .map(|c| Row {
            file: c[0].to_string(),
            password: c[3].to_string(),
            expected: c[4].to_string(),
            path: c[5].to_string(),
            size: c[6].parse().unwrap_or(0),
            sha256: c[7].to_string(),
            is_dir: c[8] == "1",
            mtime: c[9].to_string(),
            atime: c[10].to_string(),
            ctime: c[11].to_string(),
            attributes: c[12].to_string(),
        })
        .collect()
}

/// FILETIME as `YYYY-MM-DDTHH:MM:SS.fffffffZ`.
fn iso(ft: Option<u64>) -> String {
    let Some(ft) = ft else { return String::new() };
    let secs = (ft / 10_000_000) as i64 - 11_644_473_600;
    let frac = ft % 10_000_000;
    let days = secs.div_euclid(86_400);
    let rem = secs.rem_euclid(86_400);
    // Civil date from days since 1970-01-01 (Howard Hinnant's algorithm).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}.{frac:07}Z",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60
    )
}

/// Attributes the way 7zz lists them: Windows letters, then the unix mode.
fn attr_string(e: &Entry) -> String {
    let Some(a) = e.attributes else {
        return String::new();
    };
    let letters = "RHS8DAdNTsLCOIEV";
    let mut s: String = letters
        .chars()
        .enumerate()
        .filter(|(i, _)| a & (1 << i) != 0 && *i != 15)
        .map(|(_, c)| c)
        .collect();
    if let Some(mode) = e.unix_mode() {
        let kind = match mode & 0o170000 {
            0o040000 => 'd',
            0o120000 => 'l',
            _ => '-',
        };
        s.push(' ');
        s.push(kind);
        for shift in [6, 3, 0] {
            let bits = (mode >> shift) & 7;
            s.push(if bits & 4 != 0 { 'r' } else { '-' });
            s.push(if bits & 2 != 0 { 'w' } else { '-' });
            s.push(if bits & 1 != 0 { 'x' } else { '-' });
        }
    }
    s
}

fn open(file: &str, password: &str) -> Result<Archive<File>, SevenZError> {
    let f = File::open(generated().join(file)).unwrap();
    let mut opts = ArchiveOptions::default();
    if !password.is_empty() {
        opts = opts.with_password(password);
    }
    Archive::open_with(f, opts)
}

struct Got {
    entry: Entry,
    sha: String,
    len: u64,
}

fn extract_all<R: std::io::Read + std::io::Seek>(
    a: &mut Archive<R>,
) -> Result<Vec<Got>, SevenZError> {
    let mut got = Vec::new();
    a.for_each_entry(|e, r| {
        let mut data = Vec::new();
        r.read_to_end(&mut data)?;
        got.push(Got {
            entry: e.clone(),
            sha: hex(&Sha256::digest(&data)),
            len: data.len() as u64,
        });
        Ok(())
    })?;
    Ok(got)
}

fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

#[test]
fn every_good_7z_fixture_matches_the_manifest() {
    let rows = manifest();
    let mut by_file: BTreeMap<String, Vec<Row>> = BTreeMap::new();
    for r in rows.iter().filter(|r| r.expected == "ok") {
        by_file.entry(r.file.clone()).or_default().push(r.clone());
    }
    assert!(by_file.len() >= 23, "found {} archives", by_file.len());
    for (file, rows) in &by_file {
        let mut a = open(file, &rows[0].password).unwrap_or_else(|e| panic!("{file}: {e}"));
        let got = extract_all(&mut a).unwrap_or_else(|e| panic!("{file}: {e}"));
        assert_eq!(got.len(), rows.len(), "{file}: entry count");
        for row in rows {
            let g = got
                .iter()
                .find(|g| g.entry.name == row.path)
                .unwrap_or_else(|| panic!("{file}: no entry {}", row.path));
            let what = format!("{file}:{}", row.path);
            assert_eq!(g.entry.is_dir, row.is_dir, "{what} is_dir");
            assert_eq!(g.entry.size, row.size, "{what} size");
            assert_eq!(g.len, row.size, "{what} decoded length");
            if !row.is_dir {
                assert_eq!(g.sha, row.sha256, "{what} sha256");
            }
            assert_eq!(iso(g.entry.mtime_filetime), row.mtime, "{what} mtime");
            assert_eq!(iso(g.entry.atime_filetime), row.atime, "{what} atime");
            assert_eq!(iso(g.entry.ctime_filetime), row.ctime, "{what} ctime");
            assert_eq!(attr_string(&g.entry), row.attributes, "{what} attributes");
        }
        // Random access gives the same bytes as the sequential pass.
        let n = a.entries().len();
        for i in [n - 1, n / 2, 0] {
            let mut data = Vec::new();
            a.reader(i).unwrap().read_to_end(&mut data).unwrap();
            let want = &got
                .iter()
                .find(|g| g.entry.name == a.entries()[i].name)
                .unwrap()
                .sha;
            assert_eq!(&hex(&Sha256::digest(&data)), want, "{file} reader({i})");
        }
    }
}

#[test]
fn trickled_reads_give_the_same_entries() {
    for (file, pw) in [
        ("7z/lzma.7z", ""),
        ("7z/bcj-lzma2-elf.7z", ""),
        ("7z/aes-copy.7z", "fixture-pass"),
        ("7z/aes-header.7z", "fixture-pass"),
        ("7z/bzip2.7z", ""),
        ("7z/deflate.7z", ""),
        ("7z/solid-3f.7z", ""),
    ] {
        let want: Vec<(String, String)> = extract_all(&mut open(file, pw).unwrap())
            .unwrap()
            .into_iter()
            .map(|g| (g.entry.name, g.sha))
            .collect();
        for step in [1, 5, 4099] {
            let f = File::open(generated().join(file)).unwrap();
            let src = common::Trickle {
                inner: f,
                step,
                turn: 0,
            };
            let mut opts = ArchiveOptions::default();
            if !pw.is_empty() {
                opts = opts.with_password(pw);
            }
            let mut a = Archive::open_with(src, opts).unwrap();
            let mut got = Vec::new();
            a.for_each_entry(|e, r| {
                let mut data = Vec::new();
                r.read_to_end(&mut data)?;
                got.push((e.name.clone(), hex(&Sha256::digest(&data))));
                Ok(())
            })
            .unwrap();
            assert_eq!(got, want, "{file} step {step}");
        }
    }
}

/// Counts the bytes read through it.
struct Counting<R> {
    inner: R,
    read: std::rc::Rc<std::cell::Cell<u64>>,
}

impl<R: Read> Read for Counting<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.read.set(self.read.get() + n as u64);
        Ok(n)
    }
}

impl<R: std::io::Seek> std::io::Seek for Counting<R> {
    fn seek(&mut self, pos: std::io::SeekFrom) -> std::io::Result<u64> {
        self.inner.seek(pos)
    }
}

#[test]
fn solid_folder_is_decoded_once_for_all_entries() {
    let path = generated().join("7z/solid.7z");
    let len = std::fs::metadata(&path).unwrap().len();
    let read = std::rc::Rc::new(std::cell::Cell::new(0));
    let src = Counting {
        inner: File::open(&path).unwrap(),
        read: read.clone(),
    };
    let mut a = Archive::open(src).unwrap();
    assert_eq!(a.index().folder_count(), 1);
    assert_eq!(a.entries().len(), 8);
    read.set(0);
    let mut n = 0;
    a.for_each_entry(|_, r| {
        n += std::io::copy(r, &mut std::io::sink())?;
        Ok(())
    })
    .unwrap();
    assert_eq!(n, 69_864);
    // Eight entries from one pass: the packed stream is read once, not
    // once per entry.
    assert!(
        read.get() <= len,
        "read {} of a {len}-byte file",
        read.get()
    );
}

#[test]
fn empty_archive_has_no_entries() {
    // 7-Zip writes a bare signature header for an archive with nothing in it.
    let mut b = vec![b'7', b'z', 0xBC, 0xAF, 0x27, 0x1C, 0, 4];
    b.extend_from_slice(&[0; 24]);
    let crc = crc32fast::hash(&b[12..32]);
    b[8..12].copy_from_slice(&crc.to_le_bytes());
    let mut a = Archive::open(std::io::Cursor::new(b)).unwrap();
    assert!(a.entries().is_empty());
    a.for_each_entry(|_, _| panic!("no entries")).unwrap();
}

#[test]
fn pack_stream_crc_is_verified() {
    let good = common::copy_archive_with_pack_crc(&[("a.txt", b"alpha"), ("b.txt", b"beta")]);
    let mut a = Archive::open(std::io::Cursor::new(good.clone())).unwrap();
    assert_eq!(extract_all(&mut a).unwrap().len(), 2);
    // Damage the packed bytes and the entry CRCs alike, so that only the
    // packed-stream CRC can notice.
    let mut bad = good;
    bad[32] = b'A';
    let hdr = 32 + 9;
    let pos = bad[hdr..]
        .windows(4)
        .position(|w| w == crc32fast::hash(b"alpha").to_le_bytes())
        .unwrap()
        + hdr;
    bad[pos..pos + 4].copy_from_slice(&crc32fast::hash(b"Alpha").to_le_bytes());
    common::fix_crcs(&mut bad);
    let mut a = Archive::open(std::io::Cursor::new(bad)).unwrap();
    assert!(matches!(
        extract_all(&mut a),
        Err(SevenZError::DataCrc { .. })
    ));
}

#[test]
fn wrong_password_is_reported_as_such() {
    let mut a = open("7z/aes-wrong-password.7z", "wrong-pass").unwrap();
    assert!(matches!(
        extract_all(&mut a),
        Err(SevenZError::WrongPassword)
    ));
    // With the encrypted header the error comes at open.
    assert!(matches!(
        open("7z/aes-header.7z", "wrong-pass"),
        Err(SevenZError::WrongPassword)
    ));
    let mut a = open("7z/aes-copy.7z", "wrong-pass").unwrap();
    assert!(matches!(
        extract_all(&mut a),
        Err(SevenZError::WrongPassword)
    ));
}

#[test]
fn missing_password_is_reported_as_such() {
    let mut a = open("7z/aes.7z", "").unwrap();
    assert!(a.index().is_encrypted());
    assert_eq!(
        a.entries().len(),
        9,
        "the header is readable without a password"
    );
    assert!(matches!(
        extract_all(&mut a),
        Err(SevenZError::PasswordRequired)
    ));
    assert!(matches!(
        open("7z/aes-header.7z", ""),
        Err(SevenZError::PasswordRequired)
    ));
}

#[test]
fn truncated_archive_is_a_typed_error() {
    assert!(matches!(
        open("7z/bad-truncated.7z", ""),
        Err(SevenZError::Truncated)
    ));
    let e = std::io::Error::from(open("7z/bad-truncated.7z", "").unwrap_err());
    assert_eq!(e.kind(), std::io::ErrorKind::UnexpectedEof);
}

#[test]
fn not_a_7z_file() {
    let mut data = std::io::Cursor::new(b"PK\x03\x04 definitely a zip file, not 7z".to_vec());
    assert!(matches!(
        Archive::open(&mut data),
        Err(SevenZError::NotSevenZ)
    ));
    assert!(matches!(
        Archive::open(std::io::Cursor::new(b"7z\xBC\xAF".to_vec())),
        Err(SevenZError::Truncated)
    ));
}
