//! Exact-bytes cross-checks against liblzma's filters.
//!
//! liblzma has no "filter only" mode, so the filter output is isolated with
//! LZMA2: encoding with `[filter, LZMA2]` and decoding with `[LZMA2]` gives
//! liblzma's filter-encoded bytes; encoding with `[LZMA2]` and decoding with
//! `[filter, LZMA2]` gives liblzma's filter-decoded bytes.

mod common;

use common::{code_like, random, whole};
use liblzma::stream::{Action, Filters, LzmaOptions, Status, Stream};
use lzflow_filters::{Direction, FilterConfig, FilterKind};

const BCJ: [FilterKind; 8] = [
    FilterKind::X86,
    FilterKind::PowerPc,
    FilterKind::Ia64,
    FilterKind::Arm,
    FilterKind::ArmThumb,
    FilterKind::Sparc,
    FilterKind::Arm64,
    FilterKind::RiscV,
];

fn push(filters: &mut Filters, cfg: &FilterConfig) {
    let props = cfg.xz_props();
    let r = match cfg.kind {
        FilterKind::Delta => filters.delta_properties(&props),
        FilterKind::X86 => filters.x86_properties(&props),
        FilterKind::PowerPc => filters.powerpc_properties(&props),
        FilterKind::Ia64 => filters.ia64_properties(&props),
        FilterKind::Arm => filters.arm_properties(&props),
        FilterKind::ArmThumb => filters.arm_thumb_properties(&props),
        FilterKind::Sparc => filters.sparc_properties(&props),
        FilterKind::Arm64 => filters.arm64_properties(&props),
        FilterKind::RiscV => filters.riscv_properties(&props),
    };
    r.expect("liblzma accepts the properties");
}

fn chain(cfgs: &[FilterConfig]) -> Filters {
    let mut f = Filters::new();
    for c in cfgs {
        push(&mut f, c);
    }
    f.lzma2(&LzmaOptions::new_preset(0).unwrap());
    f
}

fn run(mut s: Stream, input: &[u8], expect_len: usize) -> Vec<u8> {
    let mut out = Vec::with_capacity(expect_len * 2 + 1024);
    let mut pos = 0;
    loop {
        let before = s.total_in() as usize;
        let status = s
            .process_vec(&input[pos..], &mut out, Action::Finish)
            .unwrap();
        pos += s.total_in() as usize - before;
        if status == Status::StreamEnd {
            return out;
        }
        if out.len() == out.capacity() {
            out.reserve(out.capacity());
        }
    }
}

/// liblzma's encoding of `data` by the filter chain `cfgs`.
fn liblzma_encode(cfgs: &[FilterConfig], data: &[u8]) -> Vec<u8> {
    let packed = run(
        Stream::new_raw_encoder(&chain(cfgs)).unwrap(),
        data,
        data.len(),
    );
    run(
        Stream::new_raw_decoder(&chain(&[])).unwrap(),
        &packed,
        data.len(),
    )
}

/// liblzma's decoding of `data` by the filter chain `cfgs`.
fn liblzma_decode(cfgs: &[FilterConfig], data: &[u8]) -> Vec<u8> {
    let packed = run(
        Stream::new_raw_encoder(&chain(&[])).unwrap(),
        data,
        data.len(),
    );
    run(
        Stream::new_raw_decoder(&chain(cfgs)).unwrap(),
        &packed,
        data.len(),
    )
}

/// Our chain in the decode direction: filters applied in reverse order.
fn our_decode(cfgs: &[FilterConfig], data: &[u8]) -> Vec<u8> {
    let rev: Vec<_> = cfgs.iter().rev().cloned().collect();
    whole(&rev, Direction::Decode, data)
}

fn check(cfgs: &[FilterConfig], data: &[u8], what: &str) {
    let ours = whole(cfgs, Direction::Encode, data);
    let theirs = liblzma_encode(cfgs, data);
    assert_eq!(ours.len(), data.len());
    if ours != theirs {
        let at = ours.iter().zip(&theirs).position(|(a, b)| a != b);
        panic!(
            "{what}: encode differs from liblzma at {at:?} (len {})",
            data.len()
        );
    }
    if data.len() >= 1000 {
        assert_ne!(
            ours, data,
            "{what}: the test data should contain convertible code"
        );
    }
    assert_eq!(
        our_decode(cfgs, &ours),
        data,
        "{what}: decode(encode(x)) != x"
    );
    // Decoding arbitrary bytes (including code that was never encoded).
    for (name, input) in [("code", data), ("encoded", &ours[..])] {
        let theirs = liblzma_decode(cfgs, input);
        let mine = our_decode(cfgs, input);
        if mine != theirs {
            let at = mine.iter().zip(&theirs).position(|(a, b)| a != b);
            panic!("{what}: decode of {name} differs from liblzma at {at:?}");
        }
    }
}

#[test]
fn every_bcj_filter_matches_liblzma_on_code() {
    for kind in BCJ {
        for (seed, len) in [(1u64, 65536usize), (2, 10_007), (3, 4099), (4, 23)] {
            let data = code_like(kind, len, seed * 100 + seed_of(kind));
            check(
                &[FilterConfig::new(kind)],
                &data,
                &format!("{kind} seed {seed} len {len}"),
            );
        }
    }
}

#[test]
fn every_bcj_filter_matches_liblzma_with_start_offsets() {
    for kind in BCJ {
        // 4096 and an offset that makes positions wrap past 2^32.
        let wrap = 0u32.wrapping_sub(4096);
        for start in [4096u32, wrap, 16 * 12345] {
            let data = code_like(kind, 20_000, u64::from(start) ^ seed_of(kind));
            let cfg = FilterConfig::new(kind).with_start_offset(start);
            check(&[cfg], &data, &format!("{kind} start {start:#x}"));
        }
    }
}

#[test]
fn bcj_filters_match_liblzma_on_random_bytes() {
    for kind in BCJ {
        let data = random(50_000, 7 + seed_of(kind));
        let cfg = FilterConfig::new(kind);
        let ours = whole(std::slice::from_ref(&cfg), Direction::Encode, &data);
        assert_eq!(
            ours,
            liblzma_encode(std::slice::from_ref(&cfg), &data),
            "{kind}"
        );
        assert_eq!(
            our_decode(std::slice::from_ref(&cfg), &data),
            liblzma_decode(std::slice::from_ref(&cfg), &data),
            "{kind}"
        );
    }
}

#[test]
fn delta_matches_liblzma_for_several_distances() {
    for distance in [1u32, 2, 3, 4, 7, 16, 100, 255, 256] {
        for len in [1usize, 255, 256, 257, 5000] {
            let data = code_like(FilterKind::Delta, len, u64::from(distance));
            let cfg = FilterConfig::new(FilterKind::Delta).with_distance(distance);
            let ours = whole(std::slice::from_ref(&cfg), Direction::Encode, &data);
            let what = format!("delta {distance} len {len}");
            assert_eq!(
                ours,
                liblzma_encode(std::slice::from_ref(&cfg), &data),
                "{what}"
            );
            assert_eq!(
                our_decode(std::slice::from_ref(&cfg), &ours),
                data,
                "{what}"
            );
            let noise = random(len, len as u64);
            assert_eq!(
                our_decode(std::slice::from_ref(&cfg), &noise),
                liblzma_decode(std::slice::from_ref(&cfg), &noise),
                "{what}"
            );
        }
    }
}

#[test]
fn chains_match_liblzma() {
    let x86 = FilterConfig::new(FilterKind::X86);
    let delta2 = FilterConfig::new(FilterKind::Delta).with_distance(2);
    let arm = FilterConfig::new(FilterKind::Arm);
    let riscv = FilterConfig::new(FilterKind::RiscV).with_start_offset(2);
    let data = code_like(FilterKind::X86, 30_001, 11);
    check(&[x86.clone(), delta2.clone()], &data, "x86+delta");
    let data = code_like(FilterKind::Arm, 30_001, 12);
    check(&[arm, delta2, x86], &data, "arm+delta+x86");
    let data = code_like(FilterKind::RiscV, 30_001, 13);
    check(
        &[riscv, FilterConfig::new(FilterKind::Ia64)],
        &data,
        "riscv+ia64",
    );
}

mod random_cases {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]

        /// Short inputs of every length, code-like or random, with random
        /// aligned start offsets: both directions equal liblzma's.
        #[test]
        fn short_inputs_match_liblzma(
            kind in proptest::sample::select(FilterKind::ALL.to_vec()),
            len in 0usize..400,
            seed in any::<u64>(),
            code in any::<bool>(),
            start in any::<u32>(),
            distance in 1u32..=256,
        ) {
            let data = if code { code_like(kind, len, seed) } else { random(len, seed) };
            let start = start - start % kind.alignment();
            let cfg = [FilterConfig::new(kind).with_start_offset(start).with_distance(distance)];
            prop_assert_eq!(whole(&cfg, Direction::Encode, &data), liblzma_encode(&cfg, &data));
            prop_assert_eq!(our_decode(&cfg, &data), liblzma_decode(&cfg, &data));
        }
    }
}

/// A seed per filter: its position in `FilterKind::ALL` plus 3 (the seeds
/// these tests always used, once the filters' XZ IDs).
fn seed_of(kind: FilterKind) -> u64 {
    3 + FilterKind::ALL.iter().position(|k| *k == kind).unwrap_or(0) as u64
}
