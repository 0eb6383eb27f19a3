//! What the PPMd7 and PPMd8 tests share: seeded random bytes, realistic
//! text, and checks that hold for both decoders.
#![allow(dead_code)]

use lzflow_core::{Decode, InBuf, OutBuf, Progress};

pub fn xorshift(state: &mut u64) -> u64 {
    *state ^= *state << 13;
    *state ^= *state >> 7;
    *state ^= *state << 17;
    *state
}

pub fn random_bytes(seed: u64, len: usize) -> Vec<u8> {
    let mut s = seed | 1;
    (0..len).map(|_| xorshift(&mut s) as u8).collect()
}

/// The C headers of this machine, once.
pub fn corpus() -> &'static [u8] {
    static CORPUS: std::sync::OnceLock<Vec<u8>> = std::sync::OnceLock::new();
    CORPUS.get_or_init(|| {
        let mut paths: Vec<_> = std::fs::read_dir("/usr/include")
            .map(|d| d.filter_map(|e| e.ok()).map(|e| e.path()).collect())
            .unwrap_or_default();
        paths.retain(|p| p.extension().is_some_and(|e| e == "h"));
        paths.sort();
        let mut out = Vec::new();
        for p in paths {
            if let Ok(b) = std::fs::read(&p) {
                out.extend_from_slice(&b);
            }
        }
        out
    })
}

/// Realistic text: the C headers from a seed-chosen place, else (or then)
/// words chosen by the seed.
pub fn text(seed: u64, len: usize) -> Vec<u8> {
    let c = corpus();
    let mut out = Vec::with_capacity(len);
    if !c.is_empty() {
        let start = (seed as usize).wrapping_mul(7919) % c.len();
        out.extend_from_slice(&c[start..(start + len).min(c.len())]);
    }
    const WORDS: [&str; 16] = [
        "the ", "model ", "context ", "symbol ", "escape ", "order ", "range ", "coder ",
        "static ", "int ", "return ", "struct ", "(void)", ";\n", "{\n", "}\n",
    ];
    let mut s = seed | 1;
    while out.len() < len {
        let w = WORDS[(xorshift(&mut s) % 16) as usize];
        out.extend_from_slice(w.as_bytes());
    }
    out.truncate(len);
    out
}

/// Without a size, an output buffer exactly the data's size gets the end
/// marker decoded in the same call (it needs no room), and a full output
/// at the end is `StreamEnd`, not `OutputFull` again and again. `stream`
/// is `data` with the end marker; `new` makes a decoder without a size.
pub fn check_exact_output_ends_the_stream<D: Decode>(
    data: &[u8],
    stream: &[u8],
    new: impl Fn() -> D,
) where
    D::Error: std::fmt::Debug,
{
    let mut dec = new();
    let mut out = vec![0u8; data.len()];
    let mut input = InBuf::new(stream).with_last(true);
    let mut o = OutBuf::new(&mut out);
    assert_eq!(dec.decode(&mut input, &mut o).unwrap(), Progress::StreamEnd);
    assert_eq!(o.written(), data);

    // One byte short: the last byte waits, then comes with the end.
    let mut dec = new();
    let mut out = vec![0u8; data.len() - 1];
    let mut input = InBuf::new(stream).with_last(true);
    let mut o = OutBuf::new(&mut out);
    assert_eq!(
        dec.decode(&mut input, &mut o).unwrap(),
        Progress::OutputFull
    );
    assert_eq!(o.written(), &data[..data.len() - 1]);
    let mut empty = [0u8; 0];
    let mut o = OutBuf::new(&mut empty);
    assert_eq!(
        dec.decode(&mut input, &mut o).unwrap(),
        Progress::OutputFull
    );
    let mut one = [0u8; 1];
    let mut o = OutBuf::new(&mut one);
    assert_eq!(dec.decode(&mut input, &mut o).unwrap(), Progress::StreamEnd);
    assert_eq!(o.written(), &data[data.len() - 1..]);
    let mut o = OutBuf::new(&mut empty);
    assert_eq!(dec.decode(&mut input, &mut o).unwrap(), Progress::StreamEnd);
}
