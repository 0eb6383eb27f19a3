//! FilterDecoder / FilterEncoder: split independence (random input splits,
//! output buffers down to one byte), chains, flush, finish, reset, errors.

mod common;

use common::{code_like, random, whole, CopyDecoder, CopyEncoder};
use lzflow_core::{Decode, Encode, InBuf, OutBuf, Progress};
use lzflow_filters::{
    new_chain, new_filter, Direction, FilterConfig, FilterDecoder, FilterEncoder, FilterKind,
    MAX_TAIL,
};
use proptest::prelude::*;

/// Sizes cycled through for input chunks and output buffers.
struct Sizes {
    list: Vec<usize>,
    at: usize,
}

impl Sizes {
    fn new(list: Vec<usize>) -> Self {
        Sizes { list, at: 0 }
    }
    fn next(&mut self) -> usize {
        let s = self.list[self.at % self.list.len()];
        self.at += 1;
        s.max(1)
    }
}

fn decode_all(
    cfgs: &[FilterConfig],
    data: &[u8],
    batch: usize,
    ins: Vec<usize>,
    outs: Vec<usize>,
) -> Vec<u8> {
    let rev: Vec<_> = cfgs.iter().rev().cloned().collect();
    let filters = new_chain(&rev, Direction::Decode).unwrap();
    let mut dec = FilterDecoder::new(CopyDecoder { batch }, filters);
    let (mut ins, mut outs) = (Sizes::new(ins), Sizes::new(outs));
    let mut result = Vec::new();
    let mut pos = 0;
    let mut idle = 0;
    loop {
        let end = (pos + ins.next()).min(data.len());
        let mut input = InBuf::new(&data[pos..end]).with_last(end == data.len());
        let mut space = vec![0u8; outs.next()];
        let mut output = OutBuf::new(&mut space);
        let p = dec.decode(&mut input, &mut output).unwrap();
        pos += input.pos();
        result.extend_from_slice(output.written());
        if p == Progress::StreamEnd {
            break;
        }
        idle = if input.pos() == 0 && output.pos() == 0 {
            idle + 1
        } else {
            0
        };
        assert!(
            idle < 4,
            "decoder stalled at input {pos}, output {}",
            result.len()
        );
    }
    // Further calls after the end produce nothing.
    let mut space = [0u8; 64];
    let mut output = OutBuf::new(&mut space);
    let p = dec.decode(&mut InBuf::last(&[]), &mut output).unwrap();
    assert_eq!((p, output.pos()), (Progress::StreamEnd, 0));
    result
}

fn encode_all(cfgs: &[FilterConfig], data: &[u8], ins: Vec<usize>, outs: Vec<usize>) -> Vec<u8> {
    let filters = new_chain(cfgs, Direction::Encode).unwrap();
    let mut enc = FilterEncoder::new(CopyEncoder::default(), filters);
    let (mut ins, mut outs) = (Sizes::new(ins), Sizes::new(outs));
    let mut result = Vec::new();
    let mut pos = 0;
    while pos < data.len() {
        let end = (pos + ins.next()).min(data.len());
        let mut input = InBuf::new(&data[pos..end]);
        let mut space = vec![0u8; outs.next()];
        let mut output = OutBuf::new(&mut space);
        let p = enc.encode(&mut input, &mut output).unwrap();
        assert!(p != Progress::NeedInput || input.is_empty());
        pos += input.pos();
        result.extend_from_slice(output.written());
    }
    loop {
        let mut space = vec![0u8; outs.next()];
        let mut output = OutBuf::new(&mut space);
        let p = enc.finish(&mut output).unwrap();
        result.extend_from_slice(output.written());
        if p == Progress::StreamEnd {
            break;
        }
        assert_eq!(p, Progress::OutputFull);
    }
    let mut space = [0u8; 64];
    let mut output = OutBuf::new(&mut space);
    assert_eq!(enc.finish(&mut output).unwrap(), Progress::StreamEnd);
    assert_eq!(output.pos(), 0, "finish again adds nothing");
    assert!(enc.get_ref().finished);
    result
}

fn kind_strategy() -> impl Strategy<Value = FilterKind> {
    proptest::sample::select(FilterKind::ALL.to_vec())
}

fn cfg_strategy() -> impl Strategy<Value = FilterConfig> {
    (kind_strategy(), 0u32..64, 1u32..=256).prop_map(|(kind, off, distance)| {
        let start = off * 16 * 256; // a multiple of every alignment
        FilterConfig::new(kind)
            .with_start_offset(start)
            .with_distance(distance)
    })
}

fn sizes(max: usize) -> impl Strategy<Value = Vec<usize>> {
    prop_oneof![
        Just(vec![1]),
        proptest::collection::vec(1..max, 1..8),
        proptest::collection::vec(
            prop_oneof![Just(1usize), 1usize..17, 1000usize..40_000],
            1..8
        ),
    ]
}

fn data_strategy() -> impl Strategy<Value = (FilterKind, usize, u64, bool)> {
    (kind_strategy(), 0usize..6000, any::<u64>(), any::<bool>())
}

fn make_data((kind, len, seed, code): (FilterKind, usize, u64, bool)) -> Vec<u8> {
    if code {
        code_like(kind, len, seed)
    } else {
        random(len, seed)
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(96))]

    /// The bare Filter contract: feeding chunks (tail re-offered first)
    /// gives the whole-buffer result, and the tail stays short.
    #[test]
    fn filter_contract_is_split_independent(
        cfg in cfg_strategy(),
        encode in any::<bool>(),
        d in data_strategy(),
        chunks in sizes(300),
    ) {
        let data = make_data(d);
        let dir = if encode { Direction::Encode } else { Direction::Decode };
        let mut f = new_filter(&cfg, dir);
        let mut chunks = Sizes::new(chunks);
        let (mut out, mut pending, mut pos) = (Vec::new(), Vec::new(), 0);
        while pos < data.len() {
            let end = (pos + chunks.next()).min(data.len());
            pending.extend_from_slice(&data[pos..end]);
            pos = end;
            let n = f.filter(&mut pending);
            out.extend_from_slice(&pending[..n]);
            pending.drain(..n);
            prop_assert!(pending.len() < MAX_TAIL);
        }
        let n = f.filter(&mut pending);
        prop_assert!(n <= pending.len());
        out.extend_from_slice(&pending);
        prop_assert_eq!(out, whole(std::slice::from_ref(&cfg), dir, &data));
    }

    #[test]
    fn encoder_output_is_split_independent(
        cfgs in proptest::collection::vec(cfg_strategy(), 0..4),
        d in data_strategy(),
        ins in sizes(3000),
        outs in sizes(3000),
    ) {
        let data = make_data(d);
        let got = encode_all(&cfgs, &data, ins, outs);
        prop_assert_eq!(got, whole(&cfgs, Direction::Encode, &data));
    }

    #[test]
    fn decoder_output_is_split_independent(
        cfgs in proptest::collection::vec(cfg_strategy(), 0..4),
        d in data_strategy(),
        batch in prop_oneof![Just(1usize), 1usize..100, Just(usize::MAX)],
        ins in sizes(3000),
        outs in sizes(3000),
    ) {
        let data = make_data(d);
        let encoded = whole(&cfgs, Direction::Encode, &data);
        let got = decode_all(&cfgs, &encoded, batch, ins, outs);
        prop_assert_eq!(got, data);
    }
}

#[test]
fn one_byte_outputs_and_large_spans_agree() {
    let cfgs = [
        FilterConfig::new(FilterKind::X86),
        FilterConfig::new(FilterKind::Delta).with_distance(3),
        FilterConfig::new(FilterKind::Ia64),
    ];
    let data = code_like(FilterKind::X86, 100_000, 5);
    let encoded = whole(&cfgs, Direction::Encode, &data);
    assert_eq!(encode_all(&cfgs, &data, vec![1], vec![1]), encoded);
    assert_eq!(
        encode_all(&cfgs, &data, vec![1 << 20], vec![1 << 20]),
        encoded
    );
    assert_eq!(
        decode_all(&cfgs, &encoded, usize::MAX, vec![1], vec![1]),
        data
    );
    assert_eq!(
        decode_all(&cfgs, &encoded, 16 << 10, vec![1 << 20], vec![1 << 20]),
        data
    );
    assert_eq!(
        decode_all(&cfgs, &encoded, 7, vec![5, 1, 9], vec![1, 2, 1500, 17]),
        data
    );
}

#[test]
fn empty_stream_and_empty_chain() {
    let x86 = [FilterConfig::new(FilterKind::X86)];
    assert_eq!(decode_all(&x86, &[], usize::MAX, vec![1], vec![1]), b"");
    assert_eq!(encode_all(&x86, &[], vec![1], vec![1]), b"");
    let data = random(3000, 1);
    assert_eq!(decode_all(&[], &data, 100, vec![7], vec![1, 3000]), data);
    assert_eq!(encode_all(&[], &data, vec![7], vec![1, 3000]), data);
}

#[test]
fn reset_starts_a_new_stream() {
    let arm = FilterConfig::new(FilterKind::Arm);
    let data = code_like(FilterKind::Arm, 4000, 9);
    let encoded = whole(std::slice::from_ref(&arm), Direction::Encode, &data);
    let mut dec = FilterDecoder::new(
        CopyDecoder { batch: usize::MAX },
        vec![new_filter(&arm, Direction::Decode)],
    );
    for _ in 0..2 {
        let mut space = vec![0u8; 5000];
        let mut output = OutBuf::new(&mut space);
        let p = dec.decode(&mut InBuf::last(&encoded), &mut output).unwrap();
        assert_eq!(p, Progress::StreamEnd);
        assert_eq!(output.written(), &data[..]);
        // A fresh filter position: the second stream decodes identically.
        dec.reset(vec![new_filter(&arm, Direction::Decode)]);
    }
}

/// Copies its input, then fails instead of ending the stream.
struct FailAtEnd;

impl Decode for FailAtEnd {
    type Error = std::io::Error;
    fn decode(
        &mut self,
        input: &mut InBuf<'_>,
        output: &mut OutBuf<'_>,
    ) -> Result<Progress, Self::Error> {
        let n = output.push(input.remaining());
        input.advance(n);
        if input.is_empty() && input.is_last() {
            return Err(std::io::Error::new(
                std::io::ErrorKind::UnexpectedEof,
                "truncated",
            ));
        }
        Ok(if input.is_empty() {
            Progress::NeedInput
        } else {
            Progress::OutputFull
        })
    }
}

#[test]
fn inner_errors_come_after_the_bytes_before_them() {
    let x86 = FilterConfig::new(FilterKind::X86);
    let data = code_like(FilterKind::X86, 3000, 3);
    let expect = whole(std::slice::from_ref(&x86), Direction::Decode, &data);
    for out_size in [1usize, 10, 100_000] {
        let mut dec = FilterDecoder::new(FailAtEnd, vec![new_filter(&x86, Direction::Decode)]);
        let mut got = Vec::new();
        let mut input = InBuf::last(&data);
        let err = loop {
            let mut space = vec![0u8; out_size];
            let mut output = OutBuf::new(&mut space);
            let res = dec.decode(&mut input, &mut output);
            got.extend_from_slice(output.written());
            match res {
                Ok(_) => continue,
                Err(e) => break e,
            }
        };
        assert_eq!(err.kind(), std::io::ErrorKind::UnexpectedEof);
        // Everything the filter could decide was delivered, exactly.
        assert!(
            got.len() + MAX_TAIL > data.len(),
            "{out_size}: {}",
            got.len()
        );
        assert_eq!(got, expect[..got.len()], "{out_size}");
        // The failure persists.
        let mut space = [0u8; 64];
        assert!(dec
            .decode(&mut InBuf::last(&[]), &mut OutBuf::new(&mut space))
            .is_err());
    }
}

#[test]
fn flush_hands_on_every_decided_byte() {
    // Delta decides every byte at once: after flush the inner encoder has
    // all of it.
    let delta = FilterConfig::new(FilterKind::Delta).with_distance(2);
    let data = random(1000, 4);
    let mut enc = FilterEncoder::new(
        CopyEncoder::default(),
        vec![new_filter(&delta, Direction::Encode)],
    );
    let mut space = vec![0u8; 2000];
    let mut output = OutBuf::new(&mut space);
    assert_eq!(
        enc.encode(&mut InBuf::new(&data), &mut output).unwrap(),
        Progress::NeedInput
    );
    assert_eq!(enc.flush(&mut output).unwrap(), Progress::NeedInput);
    assert_eq!(enc.get_ref().flushes, 1);
    assert_eq!(output.written(), whole(&[delta], Direction::Encode, &data));

    // x86 holds back at most four bytes until it sees what follows.
    let x86 = FilterConfig::new(FilterKind::X86);
    let data = [0x90u8, 0x90, 0x90, 0xE8, 0x10, 0x00, 0x00];
    let mut enc = FilterEncoder::new(
        CopyEncoder::default(),
        vec![new_filter(&x86, Direction::Encode)],
    );
    let mut space = vec![0u8; 64];
    let mut output = OutBuf::new(&mut space);
    enc.encode(&mut InBuf::new(&data), &mut output).unwrap();
    enc.flush(&mut output).unwrap();
    assert_eq!(output.written(), &data[..3]);
    // The call completes once its last operand byte arrives.
    enc.encode(&mut InBuf::new(&[0x00]), &mut output).unwrap();
    enc.finish(&mut output).unwrap();
    // E8 at position 3: target 0x10 + (3 + 5) = 0x18.
    assert_eq!(
        output.written(),
        &[0x90, 0x90, 0x90, 0xE8, 0x18, 0x00, 0x00, 0x00]
    );
}

#[test]
fn small_output_from_encoder_is_resumable() {
    let cfgs = [FilterConfig::new(FilterKind::Sparc)];
    let data = code_like(FilterKind::Sparc, 50_000, 8);
    let got = encode_all(&cfgs, &data, vec![50_000], vec![3, 1, 4096]);
    assert_eq!(got, whole(&cfgs, Direction::Encode, &data));
}

/// Breaks the Filter contract: never decides anything, or claims more
/// than it was given.
struct Stubborn(bool);

impl lzflow_filters::Filter for Stubborn {
    fn filter(&mut self, buf: &mut [u8]) -> usize {
        for b in buf.iter_mut() {
            *b ^= 0x55;
        }
        if self.0 {
            usize::MAX
        } else {
            0
        }
    }
}

#[test]
fn contract_breaking_filters_cannot_hang_or_panic_the_adapters() {
    let data = random(20_000, 6);
    for greedy in [false, true] {
        for out in [1usize, 100, 1 << 16] {
            let mut dec = FilterDecoder::new(
                CopyDecoder { batch: 333 },
                vec![Box::new(Stubborn(greedy)) as Box<dyn lzflow_filters::Filter>],
            );
            let (mut got, mut pos) = (Vec::new(), 0);
            let mut calls = 0;
            loop {
                let end = (pos + 1000).min(data.len());
                let mut input = InBuf::new(&data[pos..end]).with_last(end == data.len());
                let mut space = vec![0u8; out];
                let mut output = OutBuf::new(&mut space);
                let p = dec.decode(&mut input, &mut output).unwrap();
                pos += input.pos();
                got.extend_from_slice(output.written());
                calls += 1;
                assert!(calls < 1_000_000, "stalled");
                if p == Progress::StreamEnd {
                    break;
                }
            }
            assert_eq!(got.len(), data.len(), "greedy {greedy} out {out}");

            let mut enc = FilterEncoder::new(
                CopyEncoder::default(),
                vec![Box::new(Stubborn(greedy)) as Box<dyn lzflow_filters::Filter>],
            );
            let mut space = vec![0u8; 40_000];
            let mut output = OutBuf::new(&mut space);
            let mut input = InBuf::new(&data);
            assert_eq!(
                enc.encode(&mut input, &mut output).unwrap(),
                Progress::NeedInput
            );
            assert_eq!(enc.finish(&mut output).unwrap(), Progress::StreamEnd);
            assert_eq!(output.pos(), data.len());
        }
    }
}

#[test]
fn debug_output_shows_the_state() {
    let x86 = FilterConfig::new(FilterKind::X86);
    let mut dec = FilterDecoder::new(
        lzflow_filters::PassThrough,
        vec![new_filter(&x86, Direction::Decode)],
    );
    let mut space = [0u8; 4096];
    let p = dec
        .decode(
            &mut InBuf::new(&[1, 2, 0xE8, 0]),
            &mut OutBuf::new(&mut space),
        )
        .unwrap();
    assert_eq!(p, Progress::NeedInput);
    assert_eq!(
        format!("{dec:?}"),
        "FilterDecoder { inner: PassThrough, filters: 1, held_back: 4, ended: false }"
    );
}
