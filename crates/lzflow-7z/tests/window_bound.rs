//! With no memory limit at all, a folder's window is never larger than
//! its unpack size: a dictionary lie (4 GiB declared for a few KiB of
//! data) or a generous real one (32 and 48 MiB) costs only what the data
//! needs. Alone in its test binary so that no other test's allocations are
//! counted.

mod common;

use std::alloc::System;
use std::io::Cursor;
use std::path::PathBuf;

use common::fix_crcs;
use lzflow_7z::{Archive, SevenZError};
use stats_alloc::{Region, StatsAlloc, INSTRUMENTED_SYSTEM};

#[global_allocator]
static GLOBAL: &StatsAlloc<System> = &INSTRUMENTED_SYSTEM;

/// Far below every declared dictionary, far above the data (< 200 KiB).
const BUDGET: usize = 12 << 20;

fn fixture(name: &str) -> Vec<u8> {
    std::fs::read(
        PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("../../fixtures/generated/7z")
            .join(name),
    )
    .unwrap()
}

/// Every entry's data, with no limits set.
fn contents(data: Vec<u8>) -> Result<Vec<Vec<u8>>, SevenZError> {
    let mut a = Archive::open(Cursor::new(data))?;
    let mut out = Vec::new();
    a.for_each_entry(|_, r| {
        let mut d = Vec::new();
        r.read_to_end(&mut d)?;
        out.push(d);
        Ok(())
    })?;
    Ok(out)
}

fn peak_of(data: Vec<u8>) -> (usize, Result<Vec<Vec<u8>>, SevenZError>) {
    let region = Region::new(GLOBAL);
    let r = contents(data);
    (region.change().bytes_allocated, r)
}

#[test]
fn window_is_capped_by_the_unpack_size_without_any_limit() {
    let honest = fixture("header-uncompressed.7z");
    let want = contents(honest.clone()).unwrap();

    // Declare a 4 GiB LZMA2 dictionary (property 40), sizes left true.
    let mut lying = honest.clone();
    let off = u64::from_le_bytes(lying[12..20].try_into().unwrap()) as usize + 32;
    let dict_at = lying[off..]
        .windows(3)
        .position(|w| w[0] == 0x21 && w[1] == 0x01)
        .map(|p| off + p + 2)
        .expect("LZMA2 coder record in the header");
    assert!(lying[dict_at] < 40, "found the dictionary property");
    lying[dict_at] = 40;
    fix_crcs(&mut lying);
    let (n, got) = peak_of(lying);
    assert_eq!(
        got.unwrap(),
        want,
        "the lie decodes like the honest archive"
    );
    assert!(n < BUDGET, "4 GiB dictionary lie allocated {n} bytes");

    // Real large dictionaries on small data.
    for name in ["bigdict.7z", "lzma-bigdict.7z"] {
        let (n, got) = peak_of(fixture(name));
        let got = got.unwrap();
        assert_eq!(got.iter().map(Vec::len).sum::<usize>(), 72_026, "{name}");
        assert!(n < BUDGET, "{name} allocated {n} bytes");
    }
}
