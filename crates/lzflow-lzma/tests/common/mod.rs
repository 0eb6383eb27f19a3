//! Shared helpers: data generators, liblzma encoders, a decode driver.
#![allow(dead_code)]

use liblzma::stream::{Action, Filters, LzmaOptions, Status, Stream};
use lzflow_core::{Decode, Encode, InBuf, OutBuf, Progress};
use lzflow_lzma::LzmaError;
use sha2::{Digest, Sha256};

/// xorshift64*: deterministic test data without a dependency.
pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

/// `release` in release builds, `debug` otherwise (debug builds of the
/// tests and of liblzma's C code are slow).
pub fn scaled(release: usize, debug: usize) -> usize {
    if cfg!(debug_assertions) {
        debug
    } else {
        release
    }
}

pub fn random_bytes(n: usize, seed: u64) -> Vec<u8> {
    let mut r = Rng(seed | 1);
    (0..n).map(|_| r.next() as u8).collect()
}

/// Text-like data: words from a small vocabulary with punctuation and
/// numbers, so it has literals, short and long matches.
pub fn text_like(n: usize, seed: u64) -> Vec<u8> {
    const WORDS: &[&str] = &[
        "the",
        "of",
        "and",
        "to",
        "in",
        "a",
        "is",
        "that",
        "for",
        "it",
        "as",
        "was",
        "with",
        "be",
        "by",
        "on",
        "not",
        "he",
        "I",
        "this",
        "are",
        "or",
        "his",
        "from",
        "at",
        "which",
        "but",
        "have",
        "an",
        "had",
        "they",
        "you",
        "were",
        "their",
        "one",
        "all",
        "we",
        "can",
        "her",
        "has",
        "there",
        "been",
        "if",
        "more",
        "when",
        "will",
        "would",
        "who",
        "so",
        "compression",
        "dictionary",
        "stream",
        "window",
        "decoder",
        "probability",
        "range",
    ];
    let mut r = Rng(seed | 1);
    let mut out = Vec::with_capacity(n + 16);
    while out.len() < n {
        match r.below(20) {
            0 => out.extend_from_slice(format!("{}", r.next() % 100_000).as_bytes()),
            1 => out.extend_from_slice(b".\n"),
            2 => out.extend_from_slice(b", "),
            _ => {
                out.extend_from_slice(WORDS[r.below(WORDS.len())].as_bytes());
                out.push(b' ');
            }
        }
    }
    out.truncate(n);
    out
}

/// Alternating runs of text, zeros, random bytes and repeats of earlier data.
pub fn mixed(n: usize, seed: u64) -> Vec<u8> {
    let mut r = Rng(seed | 1);
    let mut out = Vec::with_capacity(n);
    while out.len() < n {
        let len = 1 + r.below(70_000);
        match r.below(4) {
            0 => out.extend(text_like(len, r.next())),
            1 => out.extend(std::iter::repeat_n(r.next() as u8, len)),
            2 => out.extend(random_bytes(len, r.next())),
            _ if !out.is_empty() => {
                let start = r.below(out.len());
                let end = (start + len).min(out.len());
                let copy = out[start..end].to_vec();
                out.extend(copy);
            }
            _ => {}
        }
    }
    out.truncate(n);
    out
}

fn run_stream(mut s: Stream, data: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(data.len() / 2 + 1024);
    let mut pos = 0;
    loop {
        if out.capacity() - out.len() < 4096 {
            out.reserve(out.capacity().max(4096));
        }
        let before = s.total_in();
        let st = s
            .process_vec(&data[pos..], &mut out, Action::Finish)
            .unwrap();
        pos += (s.total_in() - before) as usize;
        if st == Status::StreamEnd {
            return out;
        }
    }
}

pub fn opts(preset: u32, dict: u32, lc: u32, lp: u32, pb: u32) -> LzmaOptions {
    let mut o = LzmaOptions::new_preset(preset).unwrap();
    o.dict_size(dict)
        .literal_context_bits(lc)
        .literal_position_bits(lp)
        .position_bits(pb);
    o
}

/// Raw LZMA2 stream by liblzma.
pub fn lzma2(data: &[u8], o: &LzmaOptions) -> Vec<u8> {
    run_stream(
        Stream::new_raw_encoder(Filters::new().lzma2(o)).unwrap(),
        data,
    )
}

/// Raw LZMA1 stream (with end marker) by liblzma.
pub fn lzma1(data: &[u8], o: &LzmaOptions) -> Vec<u8> {
    run_stream(
        Stream::new_raw_encoder(Filters::new().lzma1(o)).unwrap(),
        data,
    )
}

/// .lzma file (unknown size, end marker) by liblzma.
pub fn alone(data: &[u8], o: &LzmaOptions) -> Vec<u8> {
    run_stream(Stream::new_lzma_encoder(o).unwrap(), data)
}

/// Decodes raw LZMA2 with liblzma (for the timing comparison).
pub fn liblzma_lzma2_decode(comp: &[u8], dict: u32, size_hint: usize) -> Vec<u8> {
    let mut o = LzmaOptions::new_preset(6).unwrap();
    o.dict_size(dict);
    let mut s = Stream::new_raw_decoder(Filters::new().lzma2(&o)).unwrap();
    let mut out = Vec::with_capacity(size_hint + 1);
    let mut pos = 0;
    loop {
        if out.capacity() == out.len() {
            out.reserve(out.capacity().max(4096));
        }
        let before = s.total_in();
        let st = s.process_vec(&comp[pos..], &mut out, Action::Run).unwrap();
        pos += (s.total_in() - before) as usize;
        if st == Status::StreamEnd {
            return out;
        }
    }
}

pub fn sha256_hex(data: &[u8]) -> String {
    Sha256::digest(data)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// What a full decode produced: output, and either the input bytes consumed
/// at `StreamEnd` or the error.
pub type Outcome = (Vec<u8>, Result<usize, LzmaError>);

/// Drives `dec` over `data`, offering input slices of `in_step()` bytes and
/// output space of `out_step()` bytes per call; checks the Decode contract
/// (NeedInput only when the slice was used up and more may come; no
/// endless stalls).
pub fn drive<D: Decode<Error = LzmaError>>(
    dec: &mut D,
    data: &[u8],
    in_step: &mut dyn FnMut() -> usize,
    out_step: &mut dyn FnMut() -> usize,
) -> Outcome {
    let mut out = Vec::new();
    let mut pos = 0;
    let mut stalls = 0;
    let mut space = Vec::new();
    loop {
        let end = (pos + in_step().max(1)).min(data.len());
        let mut input = InBuf::new(&data[pos..end]).with_last(end == data.len());
        let room = out_step().max(1);
        if space.len() < room {
            space.resize(room, 0);
        }
        let mut output = OutBuf::new(&mut space[..room]);
        let r = dec.decode(&mut input, &mut output);
        out.extend_from_slice(output.written());
        let progressed = input.pos() > 0 || output.pos() > 0;
        pos += input.pos();
        match r {
            Err(e) => return (out, Err(e)),
            Ok(Progress::StreamEnd) => return (out, Ok(pos)),
            Ok(Progress::NeedInput) => {
                assert!(input.is_empty(), "NeedInput with unconsumed input");
                // Input that ends for good is a stream's end or its error.
                assert!(!input.is_last(), "NeedInput after the last input");
            }
            Ok(Progress::OutputFull) => {}
        }
        stalls = if progressed { 0 } else { stalls + 1 };
        assert!(stalls < 1000, "decoder stalls");
    }
}

/// Whole input, generous output.
pub fn drive_whole<D: Decode<Error = LzmaError>>(dec: &mut D, data: &[u8]) -> Outcome {
    let n = data.len();
    drive(dec, data, &mut || n, &mut || 1 << 20)
}

/// Input in 1-byte slices.
pub fn drive_bytewise_in<D: Decode<Error = LzmaError>>(dec: &mut D, data: &[u8]) -> Outcome {
    drive(dec, data, &mut || 1, &mut || 1 << 16)
}

/// Output in 1-byte slices.
pub fn drive_bytewise_out<D: Decode<Error = LzmaError>>(dec: &mut D, data: &[u8]) -> Outcome {
    let n = data.len();
    drive(dec, data, &mut || n, &mut || 1)
}

/// Random input and output slice sizes.
pub fn drive_random<D: Decode<Error = LzmaError>>(dec: &mut D, data: &[u8], seed: u64) -> Outcome {
    let mut r1 = Rng(seed | 1);
    let mut r2 = Rng(seed.rotate_left(17) | 1);
    drive(
        dec,
        data,
        &mut || match r1.below(4) {
            0 => 1 + r1.below(8),
            1 => 1 + r1.below(100),
            _ => 1 + r1.below(20_000),
        },
        &mut || match r2.below(3) {
            0 => 1 + r2.below(10),
            _ => 1 + r2.below(50_000),
        },
    )
}

/// Encodes `data` offered in slices of `in_step` bytes into output buffers
/// of `out_step` bytes.
pub fn encode_with<E: Encode<Error = LzmaError>>(
    enc: &mut E,
    data: &[u8],
    in_step: usize,
    out_step: usize,
) -> Vec<u8> {
    let mut out = Vec::new();
    let mut buf = vec![0u8; out_step];
    for piece in data.chunks(in_step.max(1)) {
        encode_into(enc, piece, &mut buf, &mut out);
    }
    finish_into(enc, &mut buf, &mut out);
    out
}

/// Gives `enc` all of `data` (through `buf`), appending output to `out`.
pub fn encode_into<E: Encode<Error = LzmaError>>(
    enc: &mut E,
    data: &[u8],
    buf: &mut [u8],
    out: &mut Vec<u8>,
) {
    let mut input = InBuf::new(data);
    loop {
        let mut o = OutBuf::new(buf);
        let p = enc.encode(&mut input, &mut o).unwrap();
        out.extend_from_slice(o.written());
        if p == Progress::NeedInput {
            assert!(input.is_empty());
            return;
        }
        assert_eq!(p, Progress::OutputFull);
    }
}

/// Flushes `enc` completely (through `buf`), appending output to `out`.
pub fn flush_into<E: Encode<Error = LzmaError>>(enc: &mut E, buf: &mut [u8], out: &mut Vec<u8>) {
    loop {
        let mut o = OutBuf::new(buf);
        let p = enc.flush(&mut o).unwrap();
        out.extend_from_slice(o.written());
        if p == Progress::NeedInput {
            return;
        }
    }
}

/// Finishes `enc` (through `buf`), appending output to `out`.
pub fn finish_into<E: Encode<Error = LzmaError>>(enc: &mut E, buf: &mut [u8], out: &mut Vec<u8>) {
    loop {
        let mut o = OutBuf::new(buf);
        let p = enc.finish(&mut o).unwrap();
        out.extend_from_slice(o.written());
        if p == Progress::StreamEnd {
            break;
        }
    }
}
