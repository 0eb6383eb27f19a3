//! Shared driver for the fuzz targets: runs a sans-I/O decoder over input
//! and output slices of chosen sizes, checking the `Decode` contract.
#![forbid(unsafe_code)]

pub mod extract;

use lzflow_core::{CoderError, Culprit, Decode, InBuf, Limits, OutBuf, Progress};

/// Limits every target decodes under, so that a hostile header cannot make
/// the fuzzer run out of memory: 64 MiB of dictionary, 16 MiB of output.
pub const LIMITS: Limits = Limits {
    memory: 64 << 20,
    output: 16 << 20,
};

/// How decoding ended.
#[derive(Debug, PartialEq, Eq)]
pub struct Outcome {
    /// Every byte produced, including bytes produced before an error.
    pub output: Vec<u8>,
    /// None for a clean `StreamEnd`, else the error's culprit.
    pub error: Option<Culprit>,
    /// Input bytes consumed when decoding stopped (at the end, less those
    /// the decoder says lie past it).
    pub consumed: usize,
}

/// Decodes `data` handing the decoder input slices of the sizes `in_sizes`
/// yields and output slices of the sizes `out_sizes` yields (sizes 0 are
/// treated as 1; when a size list runs out the rest is given at once).
///
/// Panics (a fuzz finding) when the decoder breaks the contract: claims to
/// need input that was offered but not consumed, makes no progress with
/// room and input, reports `NeedInput` after the last input, or produces
/// more than the output limit.
pub fn drive<D>(
    decoder: &mut D,
    data: &[u8],
    mut in_sizes: impl Iterator<Item = usize>,
    mut out_sizes: impl Iterator<Item = usize>,
) -> Outcome
where
    D: Decode,
    D::Error: CoderError,
{
    let mut output = Vec::new();
    let mut scratch = vec![0u8; 1 << 16];
    let mut pos = 0usize;
    // The input window currently offered: data[pos..end].
    let mut end = 0usize;
    let mut idle_calls = 0u32;
    loop {
        if end == pos || end < pos {
            let step = in_sizes.next().map_or(data.len() - pos, |n| n.max(1));
            end = (pos + step).min(data.len());
        }
        let last = end == data.len();
        let room = out_sizes
            .next()
            .map_or(scratch.len(), |n| n.clamp(1, scratch.len()));
        let mut input = InBuf::new(&data[pos..end]).with_last(last);
        let mut out = OutBuf::new(&mut scratch[..room]);
        let result = decoder.decode(&mut input, &mut out);
        let taken = input.pos();
        let produced = out.pos();
        output.extend_from_slice(&scratch[..produced]);
        pos += taken;
        assert!(
            output.len() as u64 <= LIMITS.output,
            "decoder produced {} bytes, more than the output limit",
            output.len()
        );
        match result {
            Err(e) => {
                let culprit = e.culprit();
                // Sticky errors: asking again must fail again.
                let mut again_in = InBuf::new(&data[pos..end]).with_last(last);
                let mut again_out = OutBuf::new(&mut scratch[..room]);
                assert!(
                    decoder.decode(&mut again_in, &mut again_out).is_err(),
                    "error was not sticky"
                );
                return Outcome {
                    output,
                    error: Some(culprit),
                    consumed: pos,
                };
            }
            Ok(Progress::StreamEnd) => {
                // Bytes taken past the end and said so are not the stream's.
                let held = decoder.unused_after_end();
                assert!(held <= pos, "more bytes held past the end than taken");
                return Outcome {
                    output,
                    error: None,
                    consumed: pos - held,
                };
            }
            Ok(Progress::NeedInput) => {
                assert!(
                    pos == end,
                    "NeedInput with {} offered bytes left unconsumed",
                    end - pos
                );
                assert!(
                    !last,
                    "NeedInput after the last input (must be a truncation error)"
                );
            }
            Ok(Progress::OutputFull) => {}
        }
        if taken == 0 && produced == 0 {
            idle_calls += 1;
            assert!(idle_calls < 64, "decoder makes no progress (hang)");
        } else {
            idle_calls = 0;
        }
    }
}

/// Turns fuzzer bytes into slice sizes 1..=256 (an empty list means whole).
pub fn sizes(seed: &[u8]) -> impl Iterator<Item = usize> + '_ {
    seed.iter().map(|&b| usize::from(b) + 1).cycle()
}

/// The split-independence check: `data` is `[n_in, n_out, n_in size
/// bytes, n_out size bytes, stream]` (`n_in`, `n_out` taken modulo 16);
/// decoding the stream whole and in the slices the size bytes give must
/// produce the same output, the same error culprit and, on success, the
/// same consumed count. `make` builds a fresh decoder for each run.
pub fn assert_split_independent<D>(make: impl Fn() -> D, data: &[u8])
where
    D: Decode,
    D::Error: CoderError,
{
    let [n_in, n_out, rest @ ..] = data else {
        return;
    };
    let (n_in, n_out) = (usize::from(*n_in % 16), usize::from(*n_out % 16));
    if rest.len() < n_in + n_out {
        return;
    }
    let (in_seed, rest) = rest.split_at(n_in);
    let (out_seed, stream) = rest.split_at(n_out);

    let whole = drive(&mut make(), stream, std::iter::empty(), std::iter::empty());
    let sliced = drive(&mut make(), stream, sizes(in_seed), sizes(out_seed));
    assert_eq!(whole.error, sliced.error, "error kind depends on the split");
    assert!(
        whole.output == sliced.output,
        "output depends on the split: {} bytes whole, {} sliced (error {:?})",
        whole.output.len(),
        sliced.output.len(),
        whole.error
    );
    if whole.error.is_none() {
        assert_eq!(
            whole.consumed, sliced.consumed,
            "consumed count depends on the split"
        );
    }
}

/// Limits the zip targets read under: 256 MiB for an entry's decoders,
/// 64 MiB of output.
pub const ZIP_LIMITS: Limits = Limits {
    memory: 256 << 20,
    output: 64 << 20,
};

/// The options both zip targets read with: the fixtures' password, the
/// zip limits, and at most 4,096 entries.
pub fn zip_options() -> lzflow_zip::ZipOptions {
    lzflow_zip::ZipOptions::new()
        .with_password("fixture-pass")
        .with_limits(ZIP_LIMITS)
        .with_max_entries(1 << 12)
}

/// The differential targets' input (`mt_*_same`, `sevenz_mt_same`):
/// `[knobs, damage count, (offset hi, offset lo, xor) × count, payload…]`.
/// A target builds its input from the payload as its knobs say, then
/// damages it.
pub struct Damaged<'a> {
    /// The target's choices; bit 7 (raw) means the payload is the input.
    pub knobs: u8,
    /// The damage: up to 7 triples.
    damage: &'a [u8],
    /// The rest.
    payload: &'a [u8],
}

impl<'a> Damaged<'a> {
    /// Splits fuzzer bytes; `None` when there are too few.
    pub fn parse(data: &'a [u8]) -> Option<Self> {
        let [knobs, count, rest @ ..] = data else {
            return None;
        };
        let (damage, payload) = rest.split_at_checked(3 * usize::from(count % 8))?;
        Some(Damaged {
            knobs: *knobs,
            damage,
            payload,
        })
    }

    /// The damaged input: the payload itself when the raw bit is set,
    /// else what `build` makes of it; the chosen bits flipped (offsets
    /// modulo its length).
    pub fn input(&self, build: impl FnOnce(&[u8]) -> Vec<u8>) -> Vec<u8> {
        let mut input = if self.knobs & 0x80 != 0 {
            self.payload.to_vec()
        } else {
            build(self.payload)
        };
        if !input.is_empty() {
            for d in self.damage.chunks_exact(3) {
                let at = usize::from(u16::from_be_bytes([d[0], d[1]])) % input.len();
                input[at] ^= d[2];
            }
        }
        input
    }
}
