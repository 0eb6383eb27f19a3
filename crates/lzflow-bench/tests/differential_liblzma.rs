//! Differential tests against liblzma (the C library, through the `liblzma`
//! crate): seeded data compressed by liblzma at several presets, filter
//! chains, checks and block layouts must decode through lzflow to the
//! original bytes; corrupted compressed data (bit flips, truncations) must be
//! rejected by both decoders, or accepted by both with identical output.

use std::io::{self, Read};

use liblzma::stream::{Action, Check, Filters, LzmaOptions, Status, Stream, CONCATENATED};

/// xorshift64*: small, seeded, identical on every machine.
struct Rng(u64);

impl Rng {
    fn new(seed: u64) -> Rng {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// Kinds of input that exercise different decoder paths: literals
/// (random), long matches (repetitive), short matches (text), BCJ
/// conversions (x86-like / arm64-like), Delta (sampled signal).
#[derive(Clone, Copy, Debug)]
enum Kind {
    Random,
    Text,
    Repetitive,
    X86,
    Arm64,
    Signal,
}

fn make(kind: Kind, len: usize, seed: u64) -> Vec<u8> {
    let mut rng = Rng::new(seed);
    let mut out = Vec::with_capacity(len + 16);
    const WORDS: [&str; 16] = [
        "stream",
        "block",
        "index",
        "the",
        "of",
        "lzma",
        "chunk",
        "dictionary",
        "and",
        "filter",
        "check",
        "padding",
        "to",
        "header",
        "a",
        "range",
    ];
    while out.len() < len {
        match kind {
            Kind::Random => out.extend_from_slice(&rng.next().to_le_bytes()),
            Kind::Text => {
                out.extend_from_slice(WORDS[rng.below(16) as usize].as_bytes());
                out.push(if rng.below(12) == 0 { b'\n' } else { b' ' });
            }
            Kind::Repetitive => {
                let run = 1 + rng.below(300) as usize;
                let byte = b"abcabcab"[rng.below(8) as usize];
                out.extend(std::iter::repeat_n(byte, run));
                if rng.below(4) == 0 && out.len() > 64 {
                    let start = rng.below(out.len() as u64 - 32) as usize;
                    let copy: Vec<u8> = out[start..start + 32].to_vec();
                    out.extend_from_slice(&copy);
                }
            }
            Kind::X86 => {
                // CALL/JMP rel32 among filler opcodes, targets clustered so
                // that BCJ conversion makes them compressible.
                let op = [0xE8u8, 0xE9, 0x55, 0x89, 0x48, 0x8B, 0xC3][rng.below(7) as usize];
                out.push(op);
                if op >= 0xE8 {
                    let target = (rng.below(64) as u32) * 16;
                    let rel = target.wrapping_sub(out.len() as u32 + 4);
                    out.extend_from_slice(&rel.to_le_bytes());
                }
            }
            Kind::Arm64 => {
                // BL (0x94000000 | imm26) and ADRP among other words.
                let word = match rng.below(3) {
                    0 => {
                        let target = rng.below(256) as u32 * 4;
                        0x9400_0000 | (target.wrapping_sub(out.len() as u32 / 4) & 0x03FF_FFFF)
                    }
                    1 => 0x9000_0000 | (rng.below(32) as u32) << 5 | rng.below(32) as u32,
                    _ => 0xD503_201F,
                };
                out.extend_from_slice(&word.to_le_bytes());
            }
            Kind::Signal => {
                let t = out.len() as f64 / 4.0;
                let v = ((t / 7.0).sin() * 12000.0) as i16 as u16;
                out.extend_from_slice(&v.to_le_bytes());
                out.extend_from_slice(&(v ^ 0x5A).to_le_bytes());
            }
        }
    }
    out.truncate(len);
    out
}

/// The filters of one test case, in liblzma's order (first applied first
/// when encoding).
#[derive(Clone, Copy, Debug)]
enum Pre {
    None,
    X86,
    X86Start(u32),
    Arm,
    ArmThumb,
    Arm64,
    PowerPc,
    Sparc,
    Ia64,
    RiscV,
    Delta(u16),
    X86ThenDelta(u16),
}

fn lzma_opts(preset: u32, extreme: bool, dict: Option<u32>) -> LzmaOptions {
    let level = if extreme {
        preset | liblzma::stream::PRESET_EXTREME
    } else {
        preset
    };
    let mut opts = LzmaOptions::new_preset(level).expect("preset");
    if let Some(d) = dict {
        opts.dict_size(d);
    }
    opts
}

fn filters(pre: Pre, opts: &LzmaOptions) -> Filters {
    let mut f = Filters::new();
    match pre {
        Pre::None => {}
        Pre::X86 => {
            f.x86();
        }
        Pre::X86Start(start) => {
            f.x86_properties(&start.to_le_bytes()).expect("x86 start");
        }
        Pre::Arm => {
            f.arm();
        }
        Pre::ArmThumb => {
            f.arm_thumb();
        }
        Pre::Arm64 => {
            f.arm64();
        }
        Pre::PowerPc => {
            f.powerpc();
        }
        Pre::Sparc => {
            f.sparc();
        }
        Pre::Ia64 => {
            f.ia64();
        }
        Pre::RiscV => {
            f.riscv();
        }
        Pre::Delta(dist) => {
            f.delta_properties(&[(dist - 1) as u8]).expect("delta");
        }
        Pre::X86ThenDelta(dist) => {
            f.x86();
            f.delta_properties(&[(dist - 1) as u8]).expect("delta");
        }
    }
    f.lzma2(opts);
    f
}

/// Runs `stream` over `input` with `action` until it is done.
fn pump(stream: &mut Stream, mut input: &[u8], action: Action, out: &mut Vec<u8>) {
    loop {
        out.reserve(1 << 16);
        let before = stream.total_in();
        let status = stream
            .process_vec(input, out, action)
            .expect("liblzma encode");
        input = &input[(stream.total_in() - before) as usize..];
        let done = match action {
            Action::Run => input.is_empty(),
            _ => matches!(status, Status::StreamEnd),
        };
        if done {
            return;
        }
    }
}

/// One .xz stream made by liblzma; `block` splits it into blocks of that
/// many uncompressed bytes (LZMA_FULL_FLUSH between them).
fn liblzma_xz(data: &[u8], f: &Filters, check: Check, block: Option<usize>) -> Vec<u8> {
    let mut stream = Stream::new_stream_encoder(f, check).expect("encoder");
    let mut out = Vec::new();
    match block {
        Some(n) => {
            for piece in data.chunks(n) {
                pump(&mut stream, piece, Action::Run, &mut out);
                pump(&mut stream, &[], Action::FullFlush, &mut out);
            }
        }
        None => pump(&mut stream, data, Action::Run, &mut out),
    }
    pump(&mut stream, &[], Action::Finish, &mut out);
    out
}

fn liblzma_alone(data: &[u8], opts: &LzmaOptions) -> Vec<u8> {
    let mut stream = Stream::new_lzma_encoder(opts).expect("lzma encoder");
    let mut out = Vec::new();
    pump(&mut stream, data, Action::Run, &mut out);
    pump(&mut stream, &[], Action::Finish, &mut out);
    out
}

/// Decodes with liblzma the way `xz -dc` does (concatenated streams,
/// padding, every check verified); Err when it rejects the input.
fn liblzma_decode(data: &[u8], alone: bool) -> Result<Vec<u8>, String> {
    let mut stream = if alone {
        Stream::new_lzma_decoder(u64::MAX)
    } else {
        Stream::new_stream_decoder(u64::MAX, CONCATENATED)
    }
    .expect("decoder");
    let mut out = Vec::new();
    let mut input = data;
    loop {
        out.reserve(1 << 16);
        let (in_before, out_before) = (stream.total_in(), stream.total_out());
        let status = stream
            .process_vec(input, &mut out, Action::Finish)
            .map_err(|e| format!("{e:?}"))?;
        input = &input[(stream.total_in() - in_before) as usize..];
        if matches!(status, Status::StreamEnd) {
            return Ok(out);
        }
        if stream.total_in() == in_before && stream.total_out() == out_before {
            // All input given with LZMA_FINISH and no progress: truncated.
            return Err("truncated".into());
        }
        if out.len() > 64 << 20 {
            return Err("output too large".into());
        }
    }
}

fn lzflow_decode(data: &[u8], alone: bool) -> io::Result<Vec<u8>> {
    let mut out = Vec::new();
    if alone {
        lzflow::read::LzmaDecoder::new(data).read_to_end(&mut out)?;
    } else {
        lzflow::read::XzDecoder::new(data).read_to_end(&mut out)?;
    }
    Ok(out)
}

struct Case {
    name: String,
    data: Vec<u8>,
    xz: Vec<u8>,
}

fn cases() -> Vec<Case> {
    let mut out = Vec::new();
    let mut add =
        |name: String, data: Vec<u8>, pre: Pre, opts: LzmaOptions, check: Check, block| {
            let xz = liblzma_xz(&data, &filters(pre, &opts), check, block);
            out.push(Case { name, data, xz });
        };
    let mib = Some(1u32 << 20);
    for (i, (preset, extreme)) in [
        (0, false),
        (1, false),
        (3, false),
        (6, false),
        (6, true),
        (9, false),
        (9, true),
    ]
    .into_iter()
    .enumerate()
    {
        for (j, kind) in [Kind::Text, Kind::Random, Kind::Repetitive]
            .into_iter()
            .enumerate()
        {
            let seed = (i * 10 + j) as u64;
            let len = [150_000, 40_000, 200_000][j];
            add(
                format!("preset {preset}{} {kind:?}", if extreme { "e" } else { "" }),
                make(kind, len, seed),
                Pre::None,
                lzma_opts(preset, extreme, mib),
                Check::Crc64,
                None,
            );
        }
    }
    let checks = [Check::None, Check::Crc32, Check::Crc64, Check::Sha256];
    for (i, check) in checks.into_iter().enumerate() {
        add(
            format!("check {check:?}"),
            make(Kind::Text, 60_000, 100 + i as u64),
            Pre::None,
            lzma_opts(6, false, mib),
            check,
            None,
        );
    }
    let chains = [
        (Pre::X86, Kind::X86),
        (Pre::X86Start(4096), Kind::X86),
        (Pre::Arm, Kind::Arm64),
        (Pre::ArmThumb, Kind::Arm64),
        (Pre::Arm64, Kind::Arm64),
        (Pre::PowerPc, Kind::Arm64),
        (Pre::Sparc, Kind::Arm64),
        (Pre::Ia64, Kind::X86),
        (Pre::RiscV, Kind::Arm64),
        (Pre::Delta(1), Kind::Signal),
        (Pre::Delta(4), Kind::Signal),
        (Pre::Delta(256), Kind::Signal),
        (Pre::X86ThenDelta(2), Kind::X86),
    ];
    for (i, (pre, kind)) in chains.into_iter().enumerate() {
        add(
            format!("filters {pre:?} on {kind:?}"),
            make(kind, 80_000 + 13 * i, 200 + i as u64),
            pre,
            lzma_opts(6, false, mib),
            Check::Crc32,
            None,
        );
    }
    // Multi-block streams, and odd LZMA properties.
    add(
        "blocks of 10000".into(),
        make(Kind::Text, 100_000, 300),
        Pre::None,
        lzma_opts(2, false, None),
        Check::Crc64,
        Some(10_000),
    );
    add(
        "blocks of 1 with x86".into(),
        make(Kind::X86, 40, 301),
        Pre::X86,
        lzma_opts(0, false, None),
        Check::Sha256,
        Some(1),
    );
    let mut odd = lzma_opts(6, false, Some(64 << 10));
    odd.literal_context_bits(0)
        .literal_position_bits(2)
        .position_bits(0);
    add(
        "lc0 lp2 pb0".into(),
        make(Kind::Text, 70_000, 302),
        Pre::None,
        odd,
        Check::Crc64,
        None,
    );
    let mut odd = lzma_opts(6, false, Some(4096));
    odd.literal_context_bits(4).position_bits(4);
    add(
        "lc4 pb4 dict 4KiB".into(),
        make(Kind::Repetitive, 70_000, 303),
        Pre::None,
        odd,
        Check::Crc64,
        None,
    );
    add(
        "empty".into(),
        Vec::new(),
        Pre::None,
        lzma_opts(6, false, mib),
        Check::Crc64,
        None,
    );
    add(
        "one byte".into(),
        vec![0x42],
        Pre::None,
        lzma_opts(6, false, mib),
        Check::Crc32,
        None,
    );
    out
}

#[test]
fn liblzma_made_xz_decodes_to_the_original() {
    let mut failures = Vec::new();
    let all = cases();
    for case in &all {
        match lzflow_decode(&case.xz, false) {
            Ok(out) if out == case.data => {}
            Ok(out) => failures.push(format!(
                "{}: wrong output ({} bytes, expected {})",
                case.name,
                out.len(),
                case.data.len()
            )),
            Err(e) => failures.push(format!("{}: {:?}: {e}", case.name, e.kind())),
        }
    }
    println!("{} liblzma-made .xz streams decoded", all.len());
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn concatenated_liblzma_streams_with_padding_decode_as_one() {
    let a = make(Kind::Text, 30_000, 400);
    let b = make(Kind::Random, 5_000, 401);
    let opts = lzma_opts(3, false, None);
    let mut xz = liblzma_xz(&a, &filters(Pre::None, &opts), Check::Crc32, None);
    xz.extend_from_slice(&[0; 8]);
    xz.extend(liblzma_xz(
        &b,
        &filters(Pre::Delta(3), &opts),
        Check::Sha256,
        Some(999),
    ));
    let mut expected = a.clone();
    expected.extend_from_slice(&b);
    assert_eq!(
        liblzma_decode(&xz, false).expect("liblzma accepts"),
        expected
    );
    assert_eq!(lzflow_decode(&xz, false).expect("lzflow accepts"), expected);
}

#[test]
fn liblzma_made_lzma_alone_decodes_to_the_original() {
    for (i, preset) in [0u32, 6, 9].into_iter().enumerate() {
        let data = make(Kind::Text, 50_000 + i, 500 + i as u64);
        let lzma = liblzma_alone(&data, &lzma_opts(preset, false, Some(1 << 20)));
        assert_eq!(
            lzflow_decode(&lzma, true).expect("lzflow decodes .lzma"),
            data,
            "preset {preset}"
        );
    }
}

/// Compares the decoders on one input: both reject, or both accept with
/// the same bytes.
fn agree(what: &str, data: &[u8], alone: bool) -> Result<(), String> {
    let theirs = liblzma_decode(data, alone);
    let ours = lzflow_decode(data, alone);
    match (theirs, ours) {
        (Err(_), Err(_)) => Ok(()),
        (Ok(a), Ok(b)) if a == b => Ok(()),
        (Ok(a), Ok(b)) => Err(format!(
            "{what}: both accept but outputs differ ({} vs {} bytes)",
            a.len(),
            b.len()
        )),
        (Ok(a), Err(e)) => Err(format!(
            "{what}: liblzma accepts ({} bytes), lzflow rejects: {:?}: {e}",
            a.len(),
            e.kind()
        )),
        (Err(e), Ok(b)) => Err(format!(
            "{what}: liblzma rejects ({e}), lzflow accepts ({} bytes)",
            b.len()
        )),
    }
}

#[test]
fn corrupted_input_is_judged_like_liblzma() {
    let mut failures = Vec::new();
    let mut tried = 0;
    let mut inputs: Vec<(String, Vec<u8>, bool)> = Vec::new();
    let opts = lzma_opts(6, false, Some(1 << 16));
    for (i, check) in [Check::None, Check::Crc32, Check::Crc64, Check::Sha256]
        .into_iter()
        .enumerate()
    {
        let data = make(Kind::Text, 12_000, 600 + i as u64);
        let block = if i % 2 == 0 { Some(5_000) } else { None };
        inputs.push((
            format!("xz {check:?}"),
            liblzma_xz(&data, &filters(Pre::None, &opts), check, block),
            false,
        ));
    }
    let data = make(Kind::X86, 9_000, 610);
    inputs.push((
        "xz x86+delta none".into(),
        liblzma_xz(
            &data,
            &filters(Pre::X86ThenDelta(4), &opts),
            Check::None,
            None,
        ),
        false,
    ));
    let data = make(Kind::Text, 9_000, 611);
    inputs.push(("lzma alone".into(), liblzma_alone(&data, &opts), true));

    let mut rng = Rng::new(0xC0FFEE);
    for (name, good, alone) in &inputs {
        // Every bit of the headers, then random bits of the whole file.
        let header_bits = (32.min(good.len()) * 8) as u64;
        let mut positions: Vec<u64> = (0..header_bits).collect();
        let tail_start = good.len().saturating_sub(64) as u64 * 8;
        positions.extend(tail_start..good.len() as u64 * 8);
        positions.extend((0..150).map(|_| rng.below(good.len() as u64 * 8)));
        for bit in positions {
            let mut bad = good.clone();
            bad[(bit / 8) as usize] ^= 1 << (bit % 8);
            tried += 1;
            if let Err(why) = agree(&format!("{name}, bit {bit} flipped"), &bad, *alone) {
                failures.push(why);
            }
        }
        for cut in (0..good.len()).step_by(37).chain([good.len() - 1]) {
            tried += 1;
            if let Err(why) = agree(&format!("{name}, cut to {cut} bytes"), &good[..cut], *alone) {
                failures.push(why);
            }
        }
    }
    println!(
        "{tried} corrupted inputs compared with liblzma, {} disagreements",
        failures.len()
    );
    assert!(
        failures.is_empty(),
        "{} disagreements:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
