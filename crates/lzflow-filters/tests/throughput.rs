//! Rough per-filter decode throughput next to liblzma's; run with
//! `cargo test --release -p lzflow-filters --test throughput -- --ignored --nocapture`.
//!
//! liblzma's filter time is isolated by decoding LZMA2 made of uncompressed
//! chunks (nearly a copy) with and without the filter.

mod common;

use std::time::Instant;

use common::{code_like, random};
use liblzma::stream::{Action, Filters, LzmaOptions, Stream};
use lzflow_filters::{new_filter, Direction, FilterConfig, FilterKind};

const LEN: usize = 16 << 20;

/// `data` as LZMA2 uncompressed chunks.
fn stored_lzma2(data: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(data.len() + data.len() / 16 + 16);
    for (i, chunk) in data.chunks(1 << 16).enumerate() {
        out.push(if i == 0 { 1 } else { 2 });
        out.extend_from_slice(&((chunk.len() - 1) as u16).to_be_bytes());
        out.extend_from_slice(chunk);
    }
    out.push(0);
    out
}

fn liblzma_seconds(kind: Option<FilterKind>, packed: &[u8]) -> f64 {
    let mut f = Filters::new();
    match kind {
        Some(FilterKind::Delta) => f.delta_properties(&[0]).map(|_| ()).unwrap(),
        Some(FilterKind::X86) => drop(f.x86()),
        Some(FilterKind::PowerPc) => drop(f.powerpc()),
        Some(FilterKind::Ia64) => drop(f.ia64()),
        Some(FilterKind::Arm) => drop(f.arm()),
        Some(FilterKind::ArmThumb) => drop(f.arm_thumb()),
        Some(FilterKind::Sparc) => drop(f.sparc()),
        Some(FilterKind::Arm64) => drop(f.arm64()),
        Some(FilterKind::RiscV) => drop(f.riscv()),
        None => {}
    }
    f.lzma2(&LzmaOptions::new_preset(0).unwrap());
    let mut s = Stream::new_raw_decoder(&f).unwrap();
    let mut out = vec![0u8; 1 << 16];
    let t = Instant::now();
    let mut pos = 0;
    loop {
        let before = s.total_in();
        let status = s.process(&packed[pos..], &mut out, Action::Run).unwrap();
        pos += (s.total_in() - before) as usize;
        if status == liblzma::stream::Status::StreamEnd {
            break;
        }
    }
    t.elapsed().as_secs_f64()
}

fn ours_seconds(kind: FilterKind, data: &[u8]) -> f64 {
    let mut buf = data.to_vec();
    let mut f = new_filter(&FilterConfig::new(kind), Direction::Decode);
    let t = Instant::now();
    // 64 KiB spans, as a decoder hands them over.
    let (mut pos, mut tail) = (0, 0);
    while pos < buf.len() {
        let end = (pos + (64 << 10)).min(buf.len());
        let n = f.filter(&mut buf[pos - tail..end]);
        tail = end - (pos - tail) - n;
        pos = end;
    }
    t.elapsed().as_secs_f64()
}

#[test]
#[ignore = "timing only"]
fn throughput() {
    let mib = |secs: f64| LEN as f64 / secs / f64::from(1 << 20);
    // The fastest of a few runs: the machine is shared.
    let best = |f: &dyn Fn() -> f64| (0..5).map(|_| f()).fold(f64::MAX, f64::min);
    let only = std::env::var("FILTER").ok();
    for kind in FilterKind::ALL {
        if only.as_deref().is_some_and(|o| o != kind.name()) {
            continue;
        }
        for (what, data) in [
            ("code", code_like(kind, LEN, 1)),
            ("random", random(LEN, 2)),
        ] {
            let packed = stored_lzma2(&data);
            let base = best(&|| liblzma_seconds(None, &packed));
            let theirs = (best(&|| liblzma_seconds(Some(kind), &packed)) - base).max(1e-9);
            let ours = best(&|| ours_seconds(kind, &data));
            println!(
                "{kind:>10} decode {what:>6}: lzflow {:6.0} MiB/s, liblzma {:6.0} MiB/s, ratio {:.2}",
                mib(ours),
                mib(theirs),
                theirs / ours
            );
        }
    }
}
