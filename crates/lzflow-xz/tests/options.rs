//! Limits, single-stream mode, check verification switch, sticky errors and
//! error-after-output ordering.

mod common;

use common::{decode, decode_with, fixtures, Split};
use lzflow_core::{Decode, InBuf, LimitExceeded, Limits, OutBuf, Progress};
use lzflow_lzma::DecoderOptions;
use lzflow_xz::{XzDecoder, XzDecoderOptions, XzError};

fn file(path: &str) -> Vec<u8> {
    std::fs::read(fixtures().join(path)).unwrap()
}

fn with_limits(limits: Limits) -> XzDecoderOptions {
    XzDecoderOptions::default().with_lzma(DecoderOptions::default().with_limits(limits))
}

#[test]
fn memory_limit_is_checked_before_allocating() {
    let data = file("generated/xz/preset-9e.xz");
    let (out, res) = decode_with(
        &data,
        Split::Whole,
        with_limits(Limits::NONE.with_memory(1 << 20)),
    );
    assert!(out.is_empty());
    match res {
        Err(XzError::Limit(LimitExceeded::Memory { needed, limit })) => {
            assert_eq!(limit, 1 << 20);
            assert!(needed >= 64 << 20, "needed {needed}");
        }
        other => panic!("{other:?}"),
    }
    // A limit the dictionary fits in decodes.
    let (out, res) = decode_with(
        &data,
        Split::Whole,
        with_limits(Limits::NONE.with_memory(80 << 20)),
    );
    res.unwrap();
    assert_eq!(out.len(), 204800);
}

#[test]
fn output_limit_stops_at_the_limit() {
    let data = file("generated/xz/zeros-1MiB.xz");
    for split in [Split::Whole, Split::Random { seed: 3, max: 300 }] {
        let (out, res) = decode_with(&data, split, with_limits(Limits::NONE.with_output(1000)));
        assert_eq!(out.len(), 1000);
        assert!(matches!(
            res,
            Err(XzError::Limit(LimitExceeded::Output { limit: 1000 }))
        ));
    }
    let (out, res) = decode_with(
        &data,
        Split::Whole,
        with_limits(Limits::NONE.with_output(1 << 20)),
    );
    res.unwrap();
    assert_eq!(out.len(), 1 << 20);

    // The limit covers all streams together.
    let data = file("generated/xz/multistream.xz");
    let total = 275098;
    let (out, res) = decode_with(
        &data,
        Split::Whole,
        with_limits(Limits::NONE.with_output(total - 1)),
    );
    assert_eq!(out.len() as u64, total - 1);
    assert!(matches!(res, Err(XzError::Limit(_))));
}

#[test]
fn single_stream_mode_leaves_what_follows() {
    let data = file("xz-utils/files/good-0cat-empty.xz");
    let mut dec = XzDecoder::new(XzDecoderOptions::default().with_multi_stream(false));
    let mut input = InBuf::last(&data);
    let mut buf = [0u8; 16];
    let mut out = OutBuf::new(&mut buf);
    assert_eq!(
        dec.decode(&mut input, &mut out).unwrap(),
        Progress::StreamEnd
    );
    assert_eq!(input.pos(), 32, "stopped right after the first footer");
    assert_eq!(dec.streams(), 1);

    // Trailing garbage is not this decoder's business in that mode.
    let mut data = file("xz-utils/files/good-1-check-crc32.xz");
    data.extend_from_slice(b"garbage");
    let mut dec = XzDecoder::new(XzDecoderOptions::default().with_multi_stream(false));
    let (out, res) = common::drive(&mut dec, &data, Split::Whole);
    res.unwrap();
    assert_eq!(out, b"Hello\nWorld!\n");
    assert_eq!(dec.total_in() as usize, data.len() - 7);
}

#[test]
fn check_verification_can_be_switched_off() {
    let data = file("xz-utils/files/bad-1-check-crc64.xz");
    let (_, res) = decode(&data, Split::Whole);
    assert!(matches!(res, Err(XzError::CheckMismatch { block: 1, .. })));
    let (out, res) = decode_with(
        &data,
        Split::Whole,
        XzDecoderOptions::default().with_verify_check(false),
    );
    res.unwrap();
    assert_eq!(out, b"Hello\nWorld!\n");
}

#[test]
fn output_comes_before_the_error_and_errors_stick() {
    let data = file("xz-utils/files/bad-1-check-crc32.xz");
    let mut dec = XzDecoder::default();
    let mut input = InBuf::last(&data);
    let mut buf = [0u8; 64];
    let mut out = OutBuf::new(&mut buf);
    // The data is delivered first ...
    assert_eq!(
        dec.decode(&mut input, &mut out).unwrap(),
        Progress::OutputFull
    );
    assert_eq!(out.written(), b"Hello\nWorld!\n");
    // ... then the error, again and again.
    for _ in 0..2 {
        let mut out = OutBuf::new(&mut buf);
        let e = dec.decode(&mut input, &mut out).unwrap_err();
        assert!(matches!(e, XzError::CheckMismatch { .. }), "{e:?}");
        assert_eq!(out.pos(), 0);
    }
}

#[test]
fn empty_and_non_xz_input() {
    let (_, res) = decode(&[], Split::Whole);
    assert!(matches!(
        res,
        Err(XzError::Truncated {
            during: "stream header"
        })
    ));
    let (_, res) = decode(b"PK\x03\x04 not xz", Split::Whole);
    assert!(matches!(res, Err(XzError::NotXz)));
    let e: std::io::Error = XzError::NotXz.into();
    assert_eq!(e.kind(), std::io::ErrorKind::InvalidData);
}

#[test]
fn coders_can_move_between_threads() {
    fn send<T: Send + 'static>() {}
    fn send_sync<T: Send + Sync + 'static>() {}
    send::<XzDecoder>();
    send::<lzflow_xz::MtXzDecoder>();
    send::<lzflow_xz::XzEncoder>();
    send::<lzflow_xz::MtXzEncoder>();
    send_sync::<XzError>();
    // And MtXzDecoder really works from another thread.
    let data = file("generated/xz/multiblock-mt.xz");
    let out = std::thread::spawn(move || {
        let mut dec = lzflow_xz::MtXzDecoder::default();
        common::drive(&mut dec, &data, Split::Whole)
    })
    .join()
    .unwrap();
    out.1.unwrap();
    assert_eq!(out.0.len(), 204800);
}
