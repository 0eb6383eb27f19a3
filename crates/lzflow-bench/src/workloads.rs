//! Seeded benchmark inputs; nothing large is committed.
//!
//! Every workload is rebuilt from a seed (or from the host's /usr/include for
//! the text one) and compressed with liblzma so that all contestants decode
//! the very same bytes.

use std::sync::atomic::{AtomicBool, Ordering};

use liblzma::stream::{Check, Filters, LzmaOptions, MtStreamBuilder, Stream};

/// One input to decode: the container bytes and what they decode to.
pub struct Workload {
    /// Short name for the table.
    pub name: &'static str,
    /// The compressed bytes.
    pub compressed: Vec<u8>,
    /// Decoded size, for MB/s.
    pub decoded_len: usize,
    /// How to feed it to a decoder.
    pub kind: Kind,
}

/// The container of a workload.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// A .xz file.
    Xz,
    /// Raw LZMA2 with this dictionary size.
    RawLzma2(u32),
}

/// Set by `--quick`: every size is divided by 16 so that a whole mode runs
/// end to end in seconds (the numbers then say little; the wiring is checked).
static QUICK: AtomicBool = AtomicBool::new(false);

/// Turns quick mode on or off.
pub fn set_quick(on: bool) {
    QUICK.store(on, Ordering::Relaxed);
}

/// True in quick mode.
pub fn is_quick() -> bool {
    QUICK.load(Ordering::Relaxed)
}

/// `n`, or `n / 16` in quick mode.
pub fn scaled(n: usize) -> usize {
    if is_quick() {
        n / 16
    } else {
        n
    }
}

/// `len` bytes alternating 64 KiB of random bytes and 64 KiB of 16-byte x86
/// records holding CALL/JMP rel32 to fixed absolute targets, so BCJ matters.
pub fn mixed_x86(len: usize, seed: u64) -> Vec<u8> {
    let mut rng = fastrand::Rng::with_seed(seed);
    let mut out = Vec::with_capacity(len + (128 << 10));
    let targets: Vec<u32> = (0..64).map(|_| rng.u32(0x1000..0x40_0000)).collect();
    while out.len() < len {
        let start = out.len();
        out.extend((0..64 * 1024).map(|_| rng.u8(..)));
        while out.len() - start < 128 * 1024 {
            let pos = out.len() as u32;
            let target = targets[rng.usize(..targets.len())];
            let op = if rng.bool() { 0xE8 } else { 0xE9 };
            // mov eax, imm32 ; call/jmp rel32 ; padding: a 16-byte record.
            out.push(0xB8);
            out.extend_from_slice(&rng.u32(..256).to_le_bytes());
            out.push(op);
            out.extend_from_slice(&target.wrapping_sub(pos + 10).to_le_bytes());
            out.extend_from_slice(&[0x90, 0x90, 0x90, 0x90, 0x90, 0xC3]);
        }
    }
    out.truncate(len);
    out
}

/// The mixed-x86 workload: 32 MiB of [`mixed_x86`].
pub fn mixed_x86_input() -> Vec<u8> {
    mixed_x86(scaled(32 << 20), 0x6c7a_666c_6f77)
}

/// The sorted files of /usr/include, as (path below /usr/include, bytes),
/// until they hold at least `limit` bytes.
pub fn text_files(limit: usize) -> Vec<(std::path::PathBuf, Vec<u8>)> {
    let root = std::path::Path::new("/usr/include");
    let mut files = Vec::new();
    collect(root, &mut files);
    files.sort();
    let mut out = Vec::new();
    let mut total = 0;
    for f in files {
        if total >= limit {
            break;
        }
        if let Ok(bytes) = std::fs::read(&f) {
            total += bytes.len();
            let rel = f.strip_prefix(root).unwrap_or(&f).to_path_buf();
            out.push((rel, bytes));
        }
    }
    out
}

/// About 40 MiB of real text: the sorted files of /usr/include concatenated.
pub fn text_input() -> Vec<u8> {
    let limit = scaled(40 << 20);
    let mut out = Vec::with_capacity(limit + (1 << 20));
    for (_, bytes) in text_files(limit) {
        out.extend_from_slice(&bytes);
    }
    out.truncate(limit);
    out
}

fn collect(dir: &std::path::Path, files: &mut Vec<std::path::PathBuf>) {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return;
    };
    for e in rd.flatten() {
        let p = e.path();
        match e.file_type() {
            Ok(t) if t.is_dir() => collect(&p, files),
            Ok(t) if t.is_file() => files.push(p),
            _ => {}
        }
    }
}

fn run(mut stream: Stream, input: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(input.len() / 2 + 1024);
    loop {
        let consumed = stream.total_in() as usize;
        out.reserve(1 << 16);
        let status = stream
            .process_vec(
                &input[consumed..],
                &mut out,
                liblzma::stream::Action::Finish,
            )
            .expect("liblzma encode");
        if status == liblzma::stream::Status::StreamEnd {
            return out;
        }
    }
}

fn lzma_opts(preset: u32, dict: Option<u32>) -> LzmaOptions {
    let mut o = LzmaOptions::new_preset(preset).expect("preset");
    if let Some(d) = dict {
        o.dict_size(d);
    }
    o
}

/// XZ of `input`: optional x86 BCJ, LZMA2 at `preset`, CRC64, one block.
pub fn xz_one_block(input: &[u8], preset: u32, dict: Option<u32>, x86: bool) -> Vec<u8> {
    let mut f = Filters::new();
    if x86 {
        f.x86();
    }
    f.lzma2(&lzma_opts(preset, dict));
    run(
        Stream::new_stream_encoder(&f, Check::Crc64).expect("encoder"),
        input,
    )
}

/// XZ of `input` in blocks of `block` bytes with sizes in the block headers
/// (liblzma's threaded encoder writes them), CRC64.
pub fn xz_blocks(input: &[u8], preset: u32, block: u64) -> Vec<u8> {
    let mut b = MtStreamBuilder::new();
    b.threads(2)
        .block_size(block)
        .preset(preset)
        .check(Check::Crc64);
    run(b.encoder().expect("mt encoder"), input)
}

/// A raw LZMA2 stream of independent 4 KiB pieces, each chunk starting with
/// a dictionary reset: the single-piece raw streams concatenated without
/// their end byte, then one end byte.
pub fn raw_lzma2_resets(input: &[u8], piece: usize, dict: u32) -> Vec<u8> {
    let mut out = Vec::new();
    for p in input.chunks(piece) {
        let mut f = Filters::new();
        f.lzma2(&lzma_opts(6, Some(dict)));
        let mut one = run(Stream::new_raw_encoder(&f).expect("raw encoder"), p);
        assert_eq!(one.pop(), Some(0), "raw LZMA2 ends with 0x00");
        out.extend_from_slice(&one);
    }
    out.push(0);
    out
}

/// All decode workloads of the comparison table.
pub fn decode_workloads() -> Vec<Workload> {
    let x86 = mixed_x86_input();
    let text = text_input();
    let mut rng = fastrand::Rng::with_seed(7);
    let small: Vec<u8> = (0..64 * 4096)
        .map(|i| {
            if i % 7 == 0 {
                rng.u8(..)
            } else {
                b"lzflow "[i % 7]
            }
        })
        .collect();
    vec![
        Workload {
            name: "mixed-x86",
            compressed: xz_one_block(&x86, 6, Some(8 << 20), true),
            decoded_len: x86.len(),
            kind: Kind::Xz,
        },
        Workload {
            name: "text",
            compressed: xz_one_block(&text, 6, None, false),
            decoded_len: text.len(),
            kind: Kind::Xz,
        },
        Workload {
            name: "text-10-blocks",
            compressed: xz_blocks(&text, 6, scaled(4 << 20) as u64),
            decoded_len: text.len(),
            kind: Kind::Xz,
        },
        Workload {
            name: "reset-64-blocks",
            compressed: xz_blocks(&small, 6, 4096),
            decoded_len: small.len(),
            kind: Kind::Xz,
        },
        Workload {
            name: "reset-64-chunks-raw",
            compressed: raw_lzma2_resets(&small, 4096, 1 << 20),
            decoded_len: small.len(),
            kind: Kind::RawLzma2(1 << 20),
        },
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Same seed, same bytes; the second 64 KiB holds 16-byte records
    /// whose CALL/JMP targets decode to one of a few absolute addresses.
    #[test]
    fn mixed_x86_is_seeded_and_has_records() {
        let a = mixed_x86(300_000, 5);
        assert_eq!(a.len(), 300_000);
        assert_eq!(a, mixed_x86(300_000, 5));
        assert_ne!(a, mixed_x86(300_000, 6));
        let mut targets = std::collections::BTreeSet::new();
        for rec in (64 << 10..128 << 10).step_by(16) {
            assert_eq!(a[rec], 0xB8);
            assert!(matches!(a[rec + 5], 0xE8 | 0xE9));
            assert_eq!(a[rec + 15], 0xC3);
            let rel = u32::from_le_bytes(a[rec + 6..rec + 10].try_into().unwrap());
            targets.insert(rel.wrapping_add(rec as u32 + 10));
        }
        assert!(targets.len() <= 64, "{} targets", targets.len());
    }

    /// The raw reset stream decodes (with liblzma) to the input.
    #[test]
    fn raw_lzma2_resets_round_trips() {
        let input: Vec<u8> = (0..20_000u32)
            .map(|i| (i % 251) as u8 ^ (i / 997) as u8)
            .collect();
        let raw = raw_lzma2_resets(&input, 4096, 1 << 20);
        let mut o = LzmaOptions::new();
        o.dict_size(1 << 20);
        let mut f = Filters::new();
        f.lzma2(&o);
        let mut d = Stream::new_raw_decoder(&f).unwrap();
        let mut out = Vec::with_capacity(input.len() + 16);
        d.process_vec(&raw, &mut out, liblzma::stream::Action::Finish)
            .unwrap();
        assert_eq!(out, input);
    }
}
