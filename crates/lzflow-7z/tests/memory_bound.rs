//! Hostile archives cost bounded memory: the bytes allocated while opening
//! and reading a damaged or lying archive stay under a fixed budget when
//! limits are set. Alone in its test binary so that no other test's
//! allocations are counted.

mod common;

use std::alloc::System;
use std::io::Cursor;
use std::path::PathBuf;

use common::{fix_crcs, Rng};
use lzflow_7z::{Archive, ArchiveOptions, Limits, SevenZError};
use stats_alloc::{Region, StatsAlloc, INSTRUMENTED_SYSTEM};

#[global_allocator]
static GLOBAL: &StatsAlloc<System> = &INSTRUMENTED_SYSTEM;

/// Everything one run may allocate in total (so also its peak).
const BUDGET: usize = 48 << 20;

fn fixture(name: &str) -> Vec<u8> {
    std::fs::read(
        PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("../../fixtures/generated/7z")
            .join(name),
    )
    .unwrap()
}

fn run(data: Vec<u8>) -> Result<(), SevenZError> {
    let opts = ArchiveOptions::default()
        .with_limits(Limits::NONE.with_memory(16 << 20).with_output(8 << 20))
        .with_max_header_size(1 << 20)
        .with_max_entries(10_000);
    let mut a = Archive::open_with(Cursor::new(data), opts)?;
    a.for_each_entry(|_, r| std::io::copy(r, &mut std::io::sink()).map(drop))
}

fn allocated(data: Vec<u8>) -> (usize, Result<(), SevenZError>) {
    let region = Region::new(GLOBAL);
    let r = run(data);
    (region.change().bytes_allocated, r)
}

#[test]
fn damaged_and_lying_archives_stay_within_budget() {
    // Sanity: a good archive reads within the budget.
    let (n, r) = allocated(fixture("header-uncompressed.7z"));
    r.unwrap();
    assert!(n < BUDGET, "good archive allocated {n}");

    // A header that declares a 4 GiB LZMA2 dictionary and a huge unpack
    // size: refused by the memory limit, not allocated.
    let mut lying = fixture("header-uncompressed.7z");
    let off = u64::from_le_bytes(lying[12..20].try_into().unwrap()) as usize + 32;
    let dict_at = lying[off..]
        .windows(3)
        .position(|w| w == [0x21, 0x01, 0x10] || w[0] == 0x21 && w[1] == 0x01)
        .map(|p| off + p + 2)
        .expect("LZMA2 coder record in the header");
    lying[dict_at] = 40;
    let size_at = lying[dict_at..]
        .iter()
        .position(|&b| b == 0x0C)
        .map(|p| dict_at + p + 1)
        .expect("kCodersUnPackSize");
    // 0xFE: 7 extra bytes: a 56-bit unpack size.
    lying.splice(
        size_at..size_at + 3,
        [0xFE, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x7F],
    );
    let grow = 5u64;
    let hs = u64::from_le_bytes(lying[20..28].try_into().unwrap()) + grow;
    lying[20..28].copy_from_slice(&hs.to_le_bytes());
    fix_crcs(&mut lying);
    let (n, r) = allocated(lying);
    assert!(
        matches!(r, Err(SevenZError::Limit(_))),
        "the lie must hit the memory limit: {r:?}"
    );
    assert!(n < BUDGET, "lying archive allocated {n}");

    // Random header damage with fixed CRCs, and random truncations.
    let data = fixture("header-uncompressed.7z");
    let mut rng = Rng::new(9);
    for i in 0..200 {
        let mut d = data.clone();
        for _ in 0..=rng.below(4) {
            let at = off + rng.below((d.len() - off) as u64) as usize;
            d[at] = rng.next_u64() as u8;
        }
        fix_crcs(&mut d);
        let (n, _) = allocated(d);
        assert!(n < BUDGET, "mutation {i} allocated {n}");
    }
    for name in ["lzma2.7z", "bcj-lzma2-elf.7z", "bzip2.7z"] {
        let data = fixture(name);
        for _ in 0..20 {
            let mut d = data.clone();
            let at = rng.below(d.len() as u64) as usize;
            d[at] ^= 1 << rng.below(8);
            let (n, _) = allocated(d);
            assert!(n < BUDGET, "{name} flip allocated {n}");
        }
    }
}
