//! Helpers shared by the integration tests: drive a decoder over split
//! input and output, read the fixture tables.
#![allow(dead_code)]

use std::path::PathBuf;

use lzflow_core::{Decode, Encode, InBuf, OutBuf, Progress};
use lzflow_xz::{XzDecoder, XzDecoderOptions, XzError};
use sha2::{Digest, Sha256};

/// The repository's fixtures directory.
pub fn fixtures() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../fixtures")
}

/// How to cut input and output into pieces.
#[derive(Clone, Copy, Debug)]
pub enum Split {
    /// Everything at once, with a large output buffer.
    Whole,
    /// Fixed input and output sizes.
    Fixed { input: usize, output: usize },
    /// Pseudo-random sizes from a seed, between 1 and `max`.
    Random { seed: u64, max: usize },
}

struct Rng(u64);
impl Rng {
    fn next(&mut self, max: usize) -> usize {
        // xorshift64*
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        let v = self.0.wrapping_mul(0x2545_F491_4F6C_DD1D);
        1 + (v % max as u64) as usize
    }
}

/// Runs `dec` over `data` split as asked; returns the output produced and
/// how it ended. Fails the test if the decoder breaks the trait contract
/// (leaves offered input on `NeedInput`, or makes no progress forever).
pub fn drive<D: Decode>(dec: &mut D, data: &[u8], split: Split) -> (Vec<u8>, Result<(), D::Error>) {
    let mut rng = match split {
        Split::Random { seed, .. } => Some(Rng(seed | 1)),
        _ => None,
    };
    let sizes = |rng: &mut Option<Rng>| match split {
        Split::Whole => (usize::MAX, 1 << 20),
        Split::Fixed { input, output } => (input, output),
        Split::Random { max, .. } => {
            let r = rng.as_mut().unwrap();
            (r.next(max), r.next(max))
        }
    };
    let mut out = Vec::new();
    let mut buf = vec![0u8; 1 << 20];
    let mut pos = 0;
    let mut idle = 0;
    loop {
        let (isz, osz) = sizes(&mut rng);
        let end = pos + isz.min(data.len() - pos);
        let mut input = InBuf::new(&data[pos..end]).with_last(end == data.len());
        let mut output = OutBuf::new(&mut buf[..osz.min(1 << 20)]);
        let offered = end - pos;
        let res = dec.decode(&mut input, &mut output);
        out.extend_from_slice(output.written());
        let consumed = input.pos();
        let produced = output.pos();
        pos += consumed;
        match res {
            Err(e) => return (out, Err(e)),
            Ok(Progress::StreamEnd) => return (out, Ok(())),
            Ok(Progress::NeedInput) => {
                assert_eq!(consumed, offered, "NeedInput must consume all input");
                assert!(end < data.len(), "NeedInput with the last input");
            }
            Ok(Progress::OutputFull) => {}
        }
        if consumed == 0 && produced == 0 {
            idle += 1;
            assert!(idle < 1000, "decoder makes no progress");
        } else {
            idle = 0;
        }
    }
}

/// Decodes `data` with a fresh default decoder.
pub fn decode(data: &[u8], split: Split) -> (Vec<u8>, Result<(), XzError>) {
    decode_with(data, split, XzDecoderOptions::default())
}

/// Decodes `data` with a fresh decoder made with `opts`.
pub fn decode_with(
    data: &[u8],
    split: Split,
    opts: XzDecoderOptions,
) -> (Vec<u8>, Result<(), XzError>) {
    let mut dec = XzDecoder::new(opts);
    drive(&mut dec, data, split)
}

/// Runs an encoder over `data` in pieces of `chunk` bytes with an output
/// buffer of `out` bytes, then finishes.
pub fn encode_all<E: Encode>(
    enc: &mut E,
    data: &[u8],
    chunk: usize,
    out: usize,
) -> Result<Vec<u8>, E::Error> {
    let mut result = Vec::new();
    let mut buf = vec![0u8; out];
    for piece in data.chunks(chunk.max(1)) {
        let mut input = InBuf::new(piece);
        while !input.is_empty() {
            let mut output = OutBuf::new(&mut buf);
            enc.encode(&mut input, &mut output)?;
            result.extend_from_slice(output.written());
        }
    }
    loop {
        let mut output = OutBuf::new(&mut buf);
        let p = enc.finish(&mut output)?;
        result.extend_from_slice(output.written());
        if p == Progress::StreamEnd {
            return Ok(result);
        }
    }
}

/// Lower-case hex SHA-256.
pub fn sha256_hex(data: &[u8]) -> String {
    Sha256::digest(data)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// Rows of a tab-separated table with a header line, as maps.
pub fn read_tsv(path: &str) -> Vec<std::collections::HashMap<String, String>> {
    let text = std::fs::read_to_string(fixtures().join(path)).unwrap();
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().unwrap().split('\t').collect();
    lines
        .filter(|l| !l.is_empty())
        .map(|l| {
            header
                .iter()
                .zip(l.split('\t').chain(std::iter::repeat("")))
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect()
        })
        .collect()
}

/// Seeded test data of a few kinds.
pub fn data(kind: &str, len: usize, seed: u64) -> Vec<u8> {
    let mut rng = Rng(seed | 1);
    match kind {
        "zeros" => vec![0; len],
        "random" => (0..len).map(|_| rng.next(256) as u8).collect(),
        "text" => {
            const WORDS: [&str; 12] = [
                "stream ",
                "block ",
                "index ",
                "padding ",
                "the ",
                "of ",
                "check ",
                "filter\n",
                "LZMA2 ",
                "dictionary ",
                "a ",
                "decoder, ",
            ];
            let mut out = Vec::with_capacity(len + 16);
            while out.len() < len {
                out.extend_from_slice(WORDS[rng.next(WORDS.len()) - 1].as_bytes());
                if rng.next(50) == 1 {
                    out.push(rng.next(256) as u8);
                }
            }
            out.truncate(len);
            out
        }
        other => panic!("unknown data kind {other}"),
    }
}
