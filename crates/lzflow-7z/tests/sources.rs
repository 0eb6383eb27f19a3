//! Archives that are not one seekable file: split volumes and sources that
//! cannot seek (spooled to memory or a temporary file).

mod common;

use std::io::{self, Cursor, Read};
use std::path::{Path, PathBuf};
use std::process::Command;

use lzflow_7z::{Archive, ArchiveOptions, MultiVolume, SevenZError, SpoolOptions};

fn fixture_path(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../fixtures/generated/7z")
        .join(name)
}

type Contents = Vec<(String, Vec<u8>)>;

fn contents<R: Read + io::Seek>(a: &mut Archive<R>) -> Result<Contents, SevenZError> {
    let mut out = Vec::new();
    a.for_each_entry(|e, r| {
        let mut d = Vec::new();
        r.read_to_end(&mut d)?;
        out.push((e.name.clone(), d));
        Ok(())
    })?;
    Ok(out)
}

fn file_contents(name: &str, pw: Option<&str>) -> Contents {
    let mut o = ArchiveOptions::default();
    if let Some(p) = pw {
        o = o.with_password(p);
    }
    let mut a = Archive::open_with(std::fs::File::open(fixture_path(name)).unwrap(), o).unwrap();
    contents(&mut a).unwrap()
}

/// Implements `Read` only: no `Seek`, like a pipe.
struct Pipe<R>(R);

impl<R: Read> Read for Pipe<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        // Small reads, as a pipe gives.
        let n = buf.len().min(1000);
        self.0.read(&mut buf[..n])
    }
}

#[test]
fn a_non_seekable_source_is_spooled_to_memory_or_a_temp_file() {
    let dir = common::temp_dir("spool");
    for (name, pw) in [("aes-header.7z", Some("fixture-pass")), ("solid.7z", None)] {
        let want = file_contents(name, pw);
        let bytes = std::fs::read(fixture_path(name)).unwrap();
        for limit in [64 << 20, 4096] {
            let mut o = ArchiveOptions::default();
            if let Some(p) = pw {
                o = o.with_password(p);
            }
            let spool = SpoolOptions::default()
                .with_memory_limit(limit)
                .with_temp_dir(&dir);
            let mut a = Archive::open_spooled_with(Pipe(&bytes[..]), spool, o).unwrap();
            assert_eq!(contents(&mut a).unwrap(), want, "{name} limit {limit}");
            assert_eq!(
                a.into_inner().is_in_memory(),
                limit > bytes.len(),
                "{name} limit {limit}"
            );
        }
    }
    // The temporary files have no name and are gone.
    assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 0);
    // A truncated pipe is a truncated archive.
    let bytes = std::fs::read(fixture_path("bad-truncated.7z")).unwrap();
    let r = Archive::open_spooled(
        Pipe(&bytes[..]),
        SpoolOptions::default().with_memory_limit(0),
    );
    assert!(matches!(r, Err(SevenZError::Truncated)), "{r:?}");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Writes `data` as `stem.001`, `stem.002`, … of `size` bytes each.
fn split_into(dir: &Path, stem: &str, data: &[u8], size: usize) -> PathBuf {
    for (i, part) in data.chunks(size).enumerate() {
        std::fs::write(dir.join(format!("{stem}.{:03}", i + 1)), part).unwrap();
    }
    dir.join(format!("{stem}.001"))
}

#[test]
fn split_volumes_read_as_one_archive() {
    let dir = common::temp_dir("volumes");
    let want = file_contents("aes.7z", Some("fixture-pass"));
    let bytes = std::fs::read(fixture_path("aes.7z")).unwrap();
    // Volume boundaries inside the signature header, the packed data and
    // the header.
    for size in [7, 4096, 30_000] {
        let first = split_into(&dir, &format!("v{size}.7z"), &bytes, size);
        let opts = ArchiveOptions::default().with_password("fixture-pass");
        let mut a = Archive::open_volumes_with(&first, opts).unwrap();
        assert_eq!(contents(&mut a).unwrap(), want, "volumes of {size}");
        assert_eq!(a.into_inner().volume_count(), bytes.len().div_ceil(size));
    }
    // In-memory volumes through MultiVolume directly.
    let parts: Vec<Cursor<Vec<u8>>> = bytes
        .chunks(5000)
        .map(|c| Cursor::new(c.to_vec()))
        .collect();
    let opts = ArchiveOptions::default().with_password("fixture-pass");
    let mut a = Archive::open_with(MultiVolume::new(parts).unwrap(), opts).unwrap();
    assert_eq!(contents(&mut a).unwrap(), want);

    // A missing last volume: the header is not where the start header
    // says.
    let first = split_into(&dir, "cut.7z", &bytes, 10_000);
    let last = bytes.len().div_ceil(10_000);
    std::fs::remove_file(dir.join(format!("cut.7z.{last:03}"))).unwrap();
    let r = Archive::open_volumes(&first);
    assert!(matches!(r, Err(SevenZError::Truncated)), "{r:?}");
    // Not a first volume.
    let r = Archive::open_volumes(dir.join("cut.7z.002"));
    assert!(matches!(r, Err(SevenZError::Io(_))), "{r:?}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn volumes_made_by_7zz() {
    if Command::new("7zz").arg("i").output().is_err() {
        eprintln!("SKIPPED: 7zz is not installed; 7zz -v64k volumes not tested");
        return;
    }
    let dir = common::temp_dir("7zz-volumes");
    let mut rng = common::Rng::new(5);
    let noise = rng.bytes(200_000);
    let text = common::text(&mut rng, 100_000);
    std::fs::write(dir.join("noise.bin"), &noise).unwrap();
    std::fs::write(dir.join("text.txt"), &text).unwrap();
    let out = Command::new("7zz")
        .args([
            "a",
            "-v64k",
            "-bd",
            "-y",
            "-mhe=on",
            "-pvol-pass",
            "split.7z",
        ])
        .args(["noise.bin", "text.txt"])
        .current_dir(&dir)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(dir.join("split.7z.004").exists(), "7zz made fewer volumes");
    let opts = ArchiveOptions::default().with_password("vol-pass");
    let mut a = Archive::open_volumes_with(dir.join("split.7z.001"), opts).unwrap();
    let got = contents(&mut a).unwrap();
    assert_eq!(
        got,
        [
            ("noise.bin".to_string(), noise),
            ("text.txt".to_string(), text)
        ]
    );
    std::fs::remove_dir_all(&dir).unwrap();
}
