//! MtXzEncoder writes byte-for-byte what XzEncoder writes, however input
//! and output are split and however many threads it has.

mod common;

use std::io::Read;

use common::{data, drive, encode_all, Split};
use lzflow_core::{Encode, InBuf, OutBuf, Progress};
use lzflow_filters::{FilterConfig, FilterKind};
use lzflow_xz::{Check, MtXzDecoder, MtXzEncoder, MtXzEncoderOptions, XzEncoder, XzEncoderOptions};

fn mt(base: &XzEncoderOptions, threads: usize) -> MtXzEncoder {
    MtXzEncoder::new(MtXzEncoderOptions {
        base: base.clone(),
        threads,
    })
    .unwrap()
}

#[test]
fn same_bytes_as_the_single_threaded_encoder() {
    let input = data("text", 150_000, 51);
    let variants = [
        XzEncoderOptions::preset(0)
            .unwrap()
            .with_block_size(Some(10_000)),
        XzEncoderOptions::preset(1)
            .unwrap()
            .with_block_size(Some(64 << 10))
            .with_check(Check::Sha256)
            .with_filters(vec![FilterConfig::new(FilterKind::X86)]),
        XzEncoderOptions::preset(0).unwrap(),
    ];
    for opts in variants {
        let want = encode_all(
            &mut XzEncoder::new(opts.clone()).unwrap(),
            &input,
            1 << 20,
            1 << 20,
        )
        .unwrap();
        for (threads, chunk, out) in [
            (1, 1 << 20, 1 << 20),
            (2, 7, 100),
            (3, 4096, 1),
            (4, 150_000, 65536),
        ] {
            let got = encode_all(&mut mt(&opts, threads), &input, chunk, out).unwrap();
            assert!(
                got == want,
                "{opts:?} threads {threads} chunk {chunk} out {out}"
            );
        }
        let mut decoded = Vec::new();
        liblzma::read::XzDecoder::new(want.as_slice())
            .read_to_end(&mut decoded)
            .unwrap();
        assert!(decoded == input);
        let (decoded, res) = drive(&mut MtXzDecoder::default(), &want, Split::Whole);
        res.unwrap();
        assert!(decoded == input);
    }
}

fn with_flush<E: Encode>(enc: &mut E, a: &[u8], b: &[u8]) -> Vec<u8>
where
    E::Error: std::fmt::Debug,
{
    let mut buf = vec![0u8; 4096];
    let mut xz = Vec::new();
    let mut input = InBuf::new(a);
    while !input.is_empty() {
        let mut out = OutBuf::new(&mut buf);
        enc.encode(&mut input, &mut out).unwrap();
        xz.extend_from_slice(out.written());
    }
    loop {
        let mut out = OutBuf::new(&mut buf);
        let p = enc.flush(&mut out).unwrap();
        xz.extend_from_slice(out.written());
        if p == Progress::NeedInput {
            break;
        }
    }
    xz.extend_from_slice(&encode_all(enc, b, 999, 4096).unwrap());
    xz
}

#[test]
fn flush_and_finish_match_too() {
    let a = data("text", 25_000, 52);
    let b = data("random", 9_000, 53);
    let opts = XzEncoderOptions::preset(0)
        .unwrap()
        .with_block_size(Some(8_000));
    let want = with_flush(&mut XzEncoder::new(opts.clone()).unwrap(), &a, &b);
    let got = with_flush(&mut mt(&opts, 2), &a, &b);
    assert!(got == want);

    // Empty input gives the same zero-Block stream, and finish repeats.
    let mut enc = mt(&opts, 2);
    let empty = encode_all(&mut enc, b"", 1, 1).unwrap();
    assert_eq!(
        empty,
        encode_all(&mut XzEncoder::new(opts).unwrap(), b"", 1, 1).unwrap()
    );
    let mut buf = [0u8; 8];
    let mut out = OutBuf::new(&mut buf);
    assert_eq!(enc.finish(&mut out).unwrap(), Progress::StreamEnd);
    assert_eq!(out.pos(), 0);
}

#[test]
fn bad_options_fail_up_front() {
    let opts = MtXzEncoderOptions {
        base: XzEncoderOptions::default().with_block_size(Some(0)),
        threads: 2,
    };
    assert!(matches!(
        MtXzEncoder::new(opts),
        Err(lzflow_xz::XzError::InvalidOptions { .. })
    ));
    // LZMA2 allows lc + lp <= 4 only; both encoders say so before work.
    let mut base = XzEncoderOptions::preset(0).unwrap();
    base.lzma.lc = 4;
    base.lzma.lp = 1;
    let e = MtXzEncoder::new(MtXzEncoderOptions {
        base: base.clone(),
        threads: 1,
    })
    .unwrap_err();
    assert_eq!(
        lzflow_core::CoderError::culprit(&e),
        lzflow_core::Culprit::Usage,
        "{e:?}"
    );
    let e = XzEncoder::new(base).unwrap_err();
    assert_eq!(
        lzflow_core::CoderError::culprit(&e),
        lzflow_core::Culprit::Usage,
        "{e:?}"
    );
}
