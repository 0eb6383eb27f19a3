//! Seeded inputs shared by the criterion benches (small, so that building
//! them takes well under a second).

#![allow(dead_code)]

/// A deterministic xorshift64* generator: no dependency, same bytes on
/// every machine.
pub struct Rng(u64);

impl Rng {
    /// A generator from a non-zero seed.
    pub fn new(seed: u64) -> Self {
        Rng(seed | 1)
    }

    /// The next 64 random bits.
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    /// A value below `n`.
    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// `len` bytes of word salad with C-like punctuation: compresses about
/// like source text.
pub fn text(len: usize) -> Vec<u8> {
    const WORDS: &[&str] = &[
        "the", "struct", "int", "return", "buffer", "stream", "decoder", "static", "const", "void",
        "if", "else", "for", "while", "size_t", "length", "window", "match", "literal", "range",
        "coder", "block", "index", "check", "header", "#define", "unsigned", "char",
    ];
    let mut rng = Rng::new(0x7465_7874);
    let mut out = Vec::with_capacity(len + 32);
    while out.len() < len {
        out.extend_from_slice(WORDS[rng.below(WORDS.len() as u64) as usize].as_bytes());
        out.push(match rng.below(12) {
            0 => b'\n',
            1 => b';',
            2 => b'(',
            3 => b')',
            _ => b' ',
        });
    }
    out.truncate(len);
    out
}

/// `len` bytes alternating 64 KiB of random bytes and 64 KiB of 16-byte
/// x86 records with CALL/JMP rel32 to a few absolute targets.
pub fn mixed_x86(len: usize) -> Vec<u8> {
    let mut rng = Rng::new(0x6c7a_666c_6f77);
    let targets: Vec<u32> = (0..64)
        .map(|_| 0x1000 + rng.below(0x40_0000) as u32)
        .collect();
    let mut out = Vec::with_capacity(len + (128 << 10));
    while out.len() < len {
        let start = out.len();
        out.extend((0..64 * 1024).map(|_| rng.next() as u8));
        while out.len() - start < 128 * 1024 {
            let pos = out.len() as u32;
            let target = targets[rng.below(64) as usize];
            out.push(0xB8);
            out.extend_from_slice(&(rng.below(256) as u32).to_le_bytes());
            out.push(if rng.below(2) == 0 { 0xE8 } else { 0xE9 });
            out.extend_from_slice(&target.wrapping_sub(pos + 10).to_le_bytes());
            out.extend_from_slice(&[0x90, 0x90, 0x90, 0x90, 0x90, 0xC3]);
        }
    }
    out.truncate(len);
    out
}

fn run(mut stream: liblzma::stream::Stream, input: &[u8]) -> Vec<u8> {
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

fn lzma2(preset: u32, dict: u32) -> liblzma::stream::LzmaOptions {
    let mut o = liblzma::stream::LzmaOptions::new_preset(preset).expect("preset");
    o.dict_size(dict);
    o
}

/// One-block .xz of `input` made by liblzma (preset 6, optional x86 BCJ).
pub fn xz(input: &[u8], x86: bool) -> Vec<u8> {
    let mut f = liblzma::stream::Filters::new();
    if x86 {
        f.x86();
    }
    f.lzma2(&lzma2(6, 8 << 20));
    run(
        liblzma::stream::Stream::new_stream_encoder(&f, liblzma::stream::Check::Crc64)
            .expect("encoder"),
        input,
    )
}

/// Raw LZMA2 of `input` in independent `piece`-byte parts, each starting
/// with a dictionary reset, then one end byte.
pub fn raw_lzma2_resets(input: &[u8], piece: usize, dict: u32) -> Vec<u8> {
    let mut out = Vec::new();
    for p in input.chunks(piece) {
        let mut f = liblzma::stream::Filters::new();
        f.lzma2(&lzma2(6, dict));
        let mut one = run(
            liblzma::stream::Stream::new_raw_encoder(&f).expect("raw encoder"),
            p,
        );
        assert_eq!(one.pop(), Some(0), "raw LZMA2 ends with 0x00");
        out.extend_from_slice(&one);
    }
    out.push(0);
    out
}
