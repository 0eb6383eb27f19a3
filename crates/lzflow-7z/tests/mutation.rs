//! Truncations and bit flips of real archives: every outcome is a value
//! (`Ok` or a typed error), never a panic or a hang, and memory stays
//! bounded by the limits.

mod common;

use std::io::Cursor;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use common::{fix_crcs, Rng};
use lzflow_7z::{Archive, ArchiveOptions, Limits, SevenZError};

fn fixture(name: &str) -> Vec<u8> {
    std::fs::read(
        PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("../../fixtures/generated/7z")
            .join(name),
    )
    .unwrap()
}

fn opts(password: bool) -> ArchiveOptions {
    let o = ArchiveOptions::default()
        .with_limits(Limits::NONE.with_memory(64 << 20).with_output(16 << 20))
        .with_max_header_size(1 << 20);
    if password {
        o.with_password("fixture-pass")
    } else {
        o
    }
}

/// Opens and fully reads `data`; the result only has to exist.
fn run(data: Vec<u8>, password: bool) -> Result<u64, SevenZError> {
    let mut a = Archive::open_with(Cursor::new(data), opts(password))?;
    let mut total = 0u64;
    a.for_each_entry(|_, r| {
        let mut buf = [0u8; 4096];
        loop {
            let n = r.read(&mut buf)?;
            if n == 0 {
                return Ok(());
            }
            total += n as u64;
        }
    })?;
    Ok(total)
}

fn survive(name: &str, what: &str, data: Vec<u8>, password: bool) {
    let t = Instant::now();
    let r = std::panic::catch_unwind(|| run(data, password));
    assert!(r.is_ok(), "{name}: {what} panicked");
    assert!(
        t.elapsed() < Duration::from_secs(20),
        "{name}: {what} took {:?}",
        t.elapsed()
    );
}

const CASES: [(&str, bool); 7] = [
    ("lzma2.7z", false),
    ("lzma.7z", false),
    ("bzip2.7z", false),
    ("deflate.7z", false),
    ("bcj-lzma2-elf.7z", false),
    ("header-uncompressed.7z", false),
    ("nested-dirs.7z", false),
];

#[test]
fn truncations_are_errors() {
    for (name, pw) in CASES {
        let data = fixture(name);
        let mut rng = Rng::new(1);
        let mut cuts: Vec<usize> = (0..40)
            .map(|_| rng.below(data.len() as u64) as usize)
            .collect();
        cuts.extend([0, 1, 6, 31, 32, 33, data.len() - 1]);
        for cut in cuts {
            let r = run(data[..cut].to_vec(), pw);
            assert!(r.is_err(), "{name} cut at {cut} must fail");
        }
    }
}

#[test]
fn bit_flips_never_panic() {
    for (name, pw) in CASES {
        let data = fixture(name);
        let mut rng = Rng::new(2);
        for _ in 0..60 {
            let mut d = data.clone();
            let at = rng.below(d.len() as u64) as usize;
            d[at] ^= 1 << rng.below(8);
            survive(name, &format!("flip at {at}"), d, pw);
        }
    }
}

#[test]
fn header_mutations_with_fixed_crcs_never_panic() {
    // With the CRCs recomputed the parser and the coders see the damage.
    for (name, pw) in [
        ("header-uncompressed.7z", false),
        ("nested-dirs.7z", false),
        ("timestamps.7z", false),
        ("unicode-names.7z", false),
        ("copy.7z", false),
    ] {
        let data = fixture(name);
        let off = u64::from_le_bytes(data[12..20].try_into().unwrap()) as usize + 32;
        let mut rng = Rng::new(3);
        for i in 0..300 {
            let mut d = data.clone();
            let span = d.len() - off;
            for _ in 0..=rng.below(3) {
                let at = off + rng.below(span as u64) as usize;
                d[at] = match i % 3 {
                    0 => d[at] ^ (1 << rng.below(8)),
                    1 => rng.next_u64() as u8,
                    _ => 0xFF,
                };
            }
            fix_crcs(&mut d);
            survive(name, &format!("header mutation {i}"), d, pw);
        }
    }
}

#[test]
fn encrypted_data_flips_are_wrong_password_or_corrupt() {
    let data = fixture("aes.7z");
    let mut rng = Rng::new(4);
    for _ in 0..8 {
        let mut d = data.clone();
        // Inside the packed data (after the signature header, before the
        // header at the end).
        let at = 32 + rng.below(30_000) as usize;
        d[at] ^= 0x10;
        match run(d, true) {
            Err(SevenZError::WrongPassword) | Err(SevenZError::Corrupt(_)) => {}
            other => panic!("flip at {at}: {other:?}"),
        }
    }
}

#[test]
fn huge_declared_sizes_hit_the_limits_not_the_allocator() {
    // A start header claiming a 1 GiB header is refused by max_header_size.
    let mut d = fixture("lzma2.7z");
    d[20..28].copy_from_slice(&(1u64 << 30).to_le_bytes());
    fix_crcs(&mut d);
    assert!(matches!(
        Archive::open_with(Cursor::new(d), opts(false)),
        Err(SevenZError::Truncated) | Err(SevenZError::Limit(_))
    ));
    // The output limit stops a big extraction before it starts.
    let a = Archive::open_with(
        Cursor::new(fixture("lzma2.7z")),
        opts(false).with_limits(Limits::NONE.with_output(1000)),
    );
    let mut a = a.unwrap();
    let r = a.for_each_entry(|_, r| std::io::copy(r, &mut std::io::sink()).map(drop));
    assert!(matches!(r, Err(SevenZError::Limit(_))), "{r:?}");
    // The memory limit refuses a 32 MiB dictionary... but the window is cut
    // to the folder size, so a small folder fits a small limit.
    let mut a = Archive::open_with(
        Cursor::new(fixture("bigdict.7z")),
        opts(false).with_limits(Limits::NONE.with_memory(1 << 20)),
    )
    .unwrap();
    assert!(a
        .for_each_entry(|_, r| std::io::copy(r, &mut std::io::sink()).map(drop))
        .is_ok());
    // Below what any LZMA decoder needs (window and probability tables,
    // counted by the method registry), even the header's coder is refused.
    let r = Archive::open_with(
        Cursor::new(fixture("bigdict.7z")),
        opts(false).with_limits(Limits::NONE.with_memory(10_000)),
    );
    assert!(matches!(r, Err(SevenZError::Limit(_))), "{r:?}");
}
