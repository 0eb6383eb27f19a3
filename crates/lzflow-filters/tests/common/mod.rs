//! Shared test helpers: code-like data generators, whole-buffer reference
//! filtering, and trivial inner coders for the adapters.
#![allow(dead_code)]

use lzflow_core::{Decode, Encode, InBuf, OutBuf, Progress};
use lzflow_filters::{new_filter, Direction, FilterConfig, FilterKind};

/// Small deterministic PRNG (xorshift64*).
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Self {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    pub fn u32(&mut self) -> u32 {
        (self.next() >> 32) as u32
    }
    pub fn byte(&mut self) -> u8 {
        (self.next() >> 56) as u8
    }
    pub fn below(&mut self, n: u32) -> u32 {
        self.u32() % n
    }
}

/// Data that looks like machine code for `kind`: many instructions the
/// filter converts, mixed with random bytes and look-alikes.
pub fn code_like(kind: FilterKind, len: usize, seed: u64) -> Vec<u8> {
    let mut r = Rng::new(seed);
    let mut v = Vec::with_capacity(len + 32);
    while v.len() < len {
        match kind {
            FilterKind::X86 => x86_token(&mut r, &mut v),
            FilterKind::Arm => {
                let w = match r.below(4) {
                    0 | 1 => [r.byte(), r.byte(), r.byte(), 0xEB],
                    2 => [r.byte(), r.byte(), 0, 0xEB],
                    _ => r.u32().to_le_bytes(),
                };
                v.extend_from_slice(&w);
            }
            FilterKind::ArmThumb => match r.below(3) {
                0 => v.extend_from_slice(&[
                    r.byte(),
                    0xF0 | (r.byte() & 7),
                    r.byte(),
                    0xF8 | (r.byte() & 7),
                ]),
                1 => v.extend_from_slice(&[r.byte(), 0xF0 | (r.byte() & 7)]),
                _ => v.extend_from_slice(&[r.byte(), r.byte()]),
            },
            FilterKind::PowerPc => {
                let w = match r.below(3) {
                    0 => [
                        0x48 | (r.byte() & 3),
                        r.byte(),
                        r.byte(),
                        (r.byte() & 0xFC) | 1,
                    ],
                    1 => [0x48 | (r.byte() & 3), r.byte(), r.byte(), r.byte()],
                    _ => r.u32().to_be_bytes(),
                };
                v.extend_from_slice(&w);
            }
            FilterKind::Sparc => {
                let w = match r.below(4) {
                    0 => [0x40, r.byte() & 0x3F, r.byte(), r.byte()],
                    1 => [0x7F, 0xC0 | r.byte(), r.byte(), r.byte()],
                    2 => [0x40 | (r.byte() & 0x3F), r.byte(), r.byte(), r.byte()],
                    _ => r.u32().to_be_bytes(),
                };
                v.extend_from_slice(&w);
            }
            FilterKind::Arm64 => {
                let w = match r.below(5) {
                    0 => 0x9400_0000 | (r.u32() & 0x03FF_FFFF),
                    1 => {
                        // ADRP with a small page count (converted).
                        let pages = r.u32() & 0x3FFFF;
                        let pages = if r.below(2) == 0 {
                            pages
                        } else {
                            pages | 0x1C_0000
                        };
                        0x9000_0000 | ((pages & 3) << 29) | ((pages >> 2) << 5) | (r.u32() & 0x1F)
                    }
                    2 => 0x9000_0000 | (r.u32() & 0x60FF_FFFF),
                    _ => r.u32(),
                };
                v.extend_from_slice(&w.to_le_bytes());
            }
            FilterKind::Ia64 => ia64_bundle(&mut r, &mut v),
            FilterKind::RiscV => riscv_token(&mut r, &mut v),
            FilterKind::Delta => {
                // A slowly changing 4-channel signal.
                let base = v.len() as u32;
                for c in 0..4u32 {
                    v.push(((base / 4 + c * 40) as u8).wrapping_add(r.byte() & 3));
                }
            }
        }
    }
    v.truncate(len);
    v
}

fn x86_token(r: &mut Rng, v: &mut Vec<u8>) {
    let near = if r.below(2) == 0 { 0x00 } else { 0xFF };
    match r.below(8) {
        0..=2 => v.push(r.byte()),
        3 => v.extend_from_slice(&[0xE8, r.byte(), r.byte(), r.byte(), near]),
        4 => v.extend_from_slice(&[0xE9, r.byte(), r.byte(), near, near]),
        5 => {
            // Runs of opcodes that exercise the history mask.
            for _ in 0..r.below(6) {
                v.push(0xE8 | (r.byte() & 1));
            }
            v.extend_from_slice(&[near, r.byte(), near, near]);
        }
        6 => v.extend_from_slice(&[0x0F, 0x80 | (r.byte() & 0xF), r.byte(), 0, 0, near]),
        _ => v.extend_from_slice(&[0, 0, near]),
    }
}

fn ia64_bundle(r: &mut Rng, v: &mut Vec<u8>) {
    let template = if r.below(4) == 0 {
        r.below(32)
    } else {
        16 + r.below(16)
    };
    let mut bundle = u128::from(template);
    for slot in 0..3 {
        let mut s = u128::from(r.next()) & ((1u128 << 41) - 1);
        if r.below(3) != 0 {
            s &= !(0xFu128 << 37);
            s |= 5u128 << 37;
            s &= !(7u128 << 9);
        }
        bundle |= s << (5 + 41 * slot);
    }
    v.extend_from_slice(&bundle.to_le_bytes());
}

fn riscv_token(r: &mut Rng, v: &mut Vec<u8>) {
    let reg = |r: &mut Rng| r.below(32);
    match r.below(9) {
        0 => {
            let rd = if r.below(2) == 0 { 1 } else { 5 };
            let w = 0x6F | (rd << 7) | (r.u32() & 0xFFFF_F000);
            v.extend_from_slice(&w.to_le_bytes());
        }
        1 | 2 => {
            // AUIPC + paired 32-bit instruction.
            let rd = reg(r);
            let auipc = 0x17 | (rd << 7) | (r.u32() & 0xFFFF_F000);
            let opcode = [0x13u32, 0x67, 0x03, 0x23][r.below(4) as usize];
            let ins2 = opcode
                | (reg(r) << 7)
                | ((r.u32() & 7) << 12)
                | (rd << 15)
                | (r.u32() & 0xFFF0_0000);
            v.extend_from_slice(&auipc.to_le_bytes());
            v.extend_from_slice(&ins2.to_le_bytes());
        }
        3 => {
            // Looks like an already converted pair (AUIPC x2, 32-bit ins2).
            let w = 0x3117 | (r.u32() & 0xFFFF_C000);
            v.extend_from_slice(&w.to_le_bytes());
            v.extend_from_slice(&r.u32().to_le_bytes());
        }
        4 => {
            // AUIPC with no valid partner, or rd = x0.
            let rd = if r.below(2) == 0 { 0 } else { reg(r) };
            let w = 0x17 | (rd << 7) | (r.u32() & 0xFFFF_F000);
            v.extend_from_slice(&w.to_le_bytes());
        }
        5 | 6 => v.extend_from_slice(&[r.byte(), r.byte()]),
        7 => v.extend_from_slice(&[0xEF, r.byte() & 0xF2]),
        _ => v.extend_from_slice(&r.u32().to_le_bytes()),
    }
}

/// Random bytes.
pub fn random(len: usize, seed: u64) -> Vec<u8> {
    let mut r = Rng::new(seed);
    (0..len).map(|_| r.byte()).collect()
}

/// Applies a chain to a whole buffer in one call per filter, then passes
/// each filter's undecided tail unchanged: the reference result.
pub fn whole(cfgs: &[FilterConfig], dir: Direction, data: &[u8]) -> Vec<u8> {
    let mut buf = data.to_vec();
    for cfg in cfgs {
        let mut f = new_filter(cfg, dir);
        f.filter(&mut buf);
    }
    buf
}

/// A decoder that copies its input (stream ends with the last input),
/// producing at most `batch` bytes per call.
pub struct CopyDecoder {
    pub batch: usize,
}

impl Decode for CopyDecoder {
    type Error = std::io::Error;
    fn decode(
        &mut self,
        input: &mut InBuf<'_>,
        output: &mut OutBuf<'_>,
    ) -> Result<Progress, Self::Error> {
        let take = input.len().min(self.batch);
        let n = output.push(&input.remaining()[..take]);
        input.advance(n);
        if input.is_empty() {
            Ok(if input.is_last() {
                Progress::StreamEnd
            } else {
                Progress::NeedInput
            })
        } else {
            Ok(Progress::OutputFull)
        }
    }
}

/// An encoder that copies its input to its output.
#[derive(Default)]
pub struct CopyEncoder {
    pub flushes: usize,
    pub finished: bool,
}

impl Encode for CopyEncoder {
    type Error = std::io::Error;
    fn encode(
        &mut self,
        input: &mut InBuf<'_>,
        output: &mut OutBuf<'_>,
    ) -> Result<Progress, Self::Error> {
        assert!(!self.finished, "encode after finish");
        let n = output.push(input.remaining());
        input.advance(n);
        Ok(if input.is_empty() {
            Progress::NeedInput
        } else {
            Progress::OutputFull
        })
    }
    fn flush(&mut self, _output: &mut OutBuf<'_>) -> Result<Progress, Self::Error> {
        self.flushes += 1;
        Ok(Progress::NeedInput)
    }
    fn finish(&mut self, _output: &mut OutBuf<'_>) -> Result<Progress, Self::Error> {
        self.finished = true;
        Ok(Progress::StreamEnd)
    }
}
