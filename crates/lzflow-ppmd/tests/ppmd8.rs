//! PPMd var. I (zip method 98) coders: bit-exactness against the
//! `ppmd-rust` port of 7-Zip's Ppmd8 and against 7-Zip itself, split
//! independence, truncation and corruption.

use std::io::{Read, Write};

use lzflow_core::{Decode, Encode, InBuf, OutBuf, Progress};
use lzflow_ppmd::{
    ppmd8_memory_usage, Ppmd8Decoder, Ppmd8Encoder, Ppmd8Props, PpmdError, RestoreMethod,
};

const NO_LIMIT: u64 = u64::MAX;

mod common;

use common::{check_exact_output_ends_the_stream, random_bytes, text, xorshift};

fn props(order: u8, mem_mib: u16, restore: RestoreMethod) -> Ppmd8Props {
    Ppmd8Props::new(order, mem_mib, restore).unwrap()
}

// ---- our coders ------------------------------------------------------------

fn encode_with(data: &[u8], p: Ppmd8Props, end_marker: bool, in_chunk: usize) -> Vec<u8> {
    let mut enc = Ppmd8Encoder::new(p).unwrap().with_end_marker(end_marker);
    let mut out = Vec::new();
    let mut scratch = vec![0u8; 997];
    for piece in data.chunks(in_chunk.max(1)) {
        let mut input = InBuf::new(piece);
        loop {
            let mut o = OutBuf::new(&mut scratch);
            let pr = enc.encode(&mut input, &mut o).unwrap();
            out.extend_from_slice(o.written());
            if pr == Progress::NeedInput {
                assert!(input.is_empty());
                break;
            }
        }
    }
    loop {
        let mut o = OutBuf::new(&mut scratch);
        let pr = enc.finish(&mut o).unwrap();
        out.extend_from_slice(o.written());
        if pr == Progress::StreamEnd {
            break;
        }
    }
    out
}

fn encode(data: &[u8], p: Ppmd8Props) -> Vec<u8> {
    encode_with(data, p, true, 1 << 20)
}

/// Decodes `stream` fed `in_chunk` bytes at a time (the last piece marked
/// last) into `out_chunk`-byte output buffers; stops producing at `cap`.
fn decode_with(
    stream: &[u8],
    out_size: Option<u64>,
    in_chunk: usize,
    out_chunk: usize,
    cap: usize,
) -> Result<Vec<u8>, PpmdError> {
    let mut dec = Ppmd8Decoder::new(out_size, NO_LIMIT);
    let mut out = Vec::new();
    let mut scratch = vec![0u8; out_chunk];
    let mut pos = 0;
    loop {
        let end = (pos + in_chunk).min(stream.len());
        let last = end == stream.len();
        let mut input = InBuf::new(&stream[pos..end]).with_last(last);
        let mut o = OutBuf::new(&mut scratch);
        let p = dec.decode(&mut input, &mut o)?;
        out.extend_from_slice(o.written());
        pos += input.pos();
        match p {
            Progress::StreamEnd => return Ok(out),
            Progress::NeedInput => assert!(!last, "NeedInput on the last input"),
            Progress::OutputFull => {}
        }
        if out.len() > cap {
            return Ok(out);
        }
    }
}

fn decode(stream: &[u8], out_size: Option<u64>) -> Result<Vec<u8>, PpmdError> {
    decode_with(stream, out_size, 1 << 16, 1 << 16, usize::MAX)
}

// ---- the oracle ------------------------------------------------------------

fn oracle_restore(r: RestoreMethod) -> ppmd_rust::RestoreMethod {
    match r {
        RestoreMethod::Restart => ppmd_rust::RestoreMethod::Restart,
        RestoreMethod::CutOff => ppmd_rust::RestoreMethod::CutOff,
    }
}

/// The oracle's stream with the zip header in front.
fn oracle_encode(data: &[u8], p: Ppmd8Props, end_marker: bool) -> Vec<u8> {
    let mut out = p.to_bytes().to_vec();
    let mut enc = ppmd_rust::Ppmd8Encoder::new(
        out,
        u32::from(p.order),
        p.mem_size(),
        oracle_restore(p.restore),
    )
    .unwrap();
    enc.write_all(data).unwrap();
    out = enc.finish(end_marker).unwrap();
    out
}

fn oracle_decode(stream: &[u8], size: usize) -> Vec<u8> {
    let p = Ppmd8Props::parse([stream[0], stream[1]]).unwrap();
    let mut dec = ppmd_rust::Ppmd8Decoder::new(
        &stream[2..],
        u32::from(p.order),
        p.mem_size(),
        oracle_restore(p.restore),
    )
    .unwrap();
    let mut out = vec![0u8; size];
    dec.read_exact(&mut out).unwrap();
    out
}

/// Ours and the oracle's streams are the same bytes, and both decoders
/// give the data back.
fn check_exact(data: &[u8], p: Ppmd8Props) {
    let ours = encode(data, p);
    let theirs = oracle_encode(data, p, true);
    assert_eq!(
        ours.len(),
        theirs.len(),
        "stream length, {p:?} len {}",
        data.len()
    );
    assert!(ours == theirs, "stream bytes, {p:?} len {}", data.len());
    let back = decode(&theirs, Some(data.len() as u64)).unwrap();
    assert!(back == data, "our decoder (size known), {p:?}");
    let back = decode(&theirs, None).unwrap();
    assert!(back == data, "our decoder (to the end marker), {p:?}");
    assert!(oracle_decode(&ours, data.len()) == data);
}

// ---- round trips and bit-exactness -----------------------------------------

#[test]
fn matches_7zip_at_every_order_and_memory_size() {
    let t = text(1, 150_000);
    let r = random_bytes(2, 30_000);
    let inputs: [&[u8]; 5] = [b"", b"a", &r, &t[..3000], &t];
    for order in [2u8, 4, 6, 8, 16] {
        for mem in [1u16, 16] {
            for restore in [RestoreMethod::Restart, RestoreMethod::CutOff] {
                for data in inputs {
                    check_exact(data, props(order, mem, restore));
                }
            }
        }
    }
}

#[test]
fn model_restoration_matches_7zip() {
    // 1 MiB of model (zip's smallest) over 2 MB of text at high orders runs
    // out of memory many times: restart, and cut-off.
    let t = text(3, 2 << 20);
    for restore in [RestoreMethod::Restart, RestoreMethod::CutOff] {
        for order in [16u8, 8] {
            check_exact(&t, props(order, 1, restore));
        }
    }
    // Text, then random bytes, then text: contexts of all sizes.
    let mut mixed = text(5, 400_000);
    mixed.extend(random_bytes(6, 300_000));
    mixed.extend(text(7, 400_000));
    for restore in [RestoreMethod::Restart, RestoreMethod::CutOff] {
        check_exact(&mixed, props(12, 1, restore));
    }
}

#[test]
fn long_runs_and_skewed_data_match_7zip() {
    let mut data = vec![0u8; 100_000];
    data.extend(std::iter::repeat_n(0xFFu8, 50_000));
    data.extend((0..100_000u32).map(|i| (i % 3) as u8 * 0x55));
    let mut s = 9u64;
    data.extend((0..100_000).map(|_| {
        if xorshift(&mut s).is_multiple_of(50) {
            b'b'
        } else {
            b'a'
        }
    }));
    for order in [2u8, 6, 16] {
        check_exact(&data, props(order, 1, RestoreMethod::CutOff));
    }
}

#[test]
fn without_end_marker_matches_the_oracle() {
    let t = text(8, 50_000);
    for data in [&b""[..], b"x", &t] {
        let p = props(6, 1, RestoreMethod::Restart);
        let ours = encode_with(data, p, false, 1 << 20);
        assert!(ours == oracle_encode(data, p, false));
        // 7-Zip wants the marker; the lenient mode takes code 0 instead.
        let size = Some(data.len() as u64);
        assert!(decode(&ours, size).is_err() || data.is_empty());
        let mut dec = Ppmd8Decoder::new(size, NO_LIMIT).allow_missing_end_marker(true);
        let mut out = vec![0u8; data.len() + 10];
        let mut o = OutBuf::new(&mut out);
        let r = dec.decode(&mut InBuf::last(&ours), &mut o).unwrap();
        assert_eq!(r, Progress::StreamEnd);
        assert_eq!(o.written(), data);
    }
}

/// See [`check_exact_output_ends_the_stream`].
#[test]
fn an_output_of_exactly_the_data_ends_the_stream() {
    let t = text(3, 9_000);
    for data in [&b"x"[..], &t] {
        let stream = encode(data, props(6, 1, RestoreMethod::Restart));
        check_exact_output_ends_the_stream(data, &stream, || Ppmd8Decoder::new(None, NO_LIMIT));
    }
}

#[test]
fn empty_stream() {
    let p = props(6, 1, RestoreMethod::Restart);
    let s = encode(b"", p);
    assert_eq!(&s[..2], &p.to_bytes());
    assert_eq!(decode(&s, Some(0)).unwrap(), b"");
    assert_eq!(decode(&s, None).unwrap(), b"");
    assert_eq!(decode(&s[..1], Some(0)), Err(PpmdError::Truncated));
    assert_eq!(decode(&s[..5], Some(0)), Err(PpmdError::Truncated));
    let mut bad = s.clone();
    bad[2..6].copy_from_slice(&[0xFF; 4]);
    assert!(matches!(decode(&bad, Some(0)), Err(PpmdError::Corrupt(_))));
}

// ---- 7-Zip itself -----------------------------------------------------------

/// The data of the first entry of a zip archive, and its method.
fn zip_entry_data(zip: &[u8]) -> (u16, Vec<u8>) {
    assert_eq!(&zip[..4], b"PK\x03\x04");
    let u16_at = |i: usize| u16::from_le_bytes([zip[i], zip[i + 1]]);
    let u32_at = |i: usize| u32::from_le_bytes(zip[i..i + 4].try_into().unwrap());
    let method = u16_at(8);
    let name_len = usize::from(u16_at(26));
    let extra_len = usize::from(u16_at(28));
    let start = 30 + name_len + extra_len;
    // The compressed size from the central directory (the local header
    // may defer it to a data descriptor).
    let cd = zip
        .windows(4)
        .rposition(|w| w == b"PK\x01\x02")
        .expect("a central directory");
    let mut size = u64::from(u32_at(cd + 20));
    if size == 0xFFFF_FFFF {
        panic!("zip64 sizes are not expected here");
    }
    if size == 0 {
        size = u64::from(u32_at(18));
    }
    (method, zip[start..start + size as usize].to_vec())
}

fn have_7zz() -> bool {
    std::process::Command::new("7zz").arg("i").output().is_ok()
}

#[test]
fn matches_7zz() {
    if !have_7zz() {
        eprintln!("7zz not found: skipping");
        return;
    }
    let dir = std::env::temp_dir().join(format!("lzflow-ppmd8-7zz-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let big = text(20, 3 << 20);
    let cases: Vec<(Vec<String>, Vec<u8>)> = vec![
        (vec!["-mx=1".into()], text(21, 300_000)),
        (vec!["-mx=5".into()], text(22, 500_000)),
        (vec!["-mx=7".into()], big.clone()),
        (vec!["-mx=9".into()], big.clone()),
        (vec!["-mx=9".into()], random_bytes(23, 100_000)),
        (vec!["-mx=3".into()], Vec::new()),
        (
            vec!["-mx=5".into(), "-mmem=1m".into(), "-mo=16".into()],
            big.clone(),
        ),
        (
            vec!["-mx=9".into(), "-mmem=1m".into(), "-mo=16".into()],
            big,
        ),
    ];
    for (i, (switches, data)) in cases.iter().enumerate() {
        let file = dir.join(format!("in{i}"));
        let archive = dir.join(format!("a{i}.zip"));
        std::fs::write(&file, data).unwrap();
        let _ = std::fs::remove_file(&archive);
        let out = std::process::Command::new("7zz")
            .args(["a", "-tzip", "-mm=PPMd", "-bso0", "-bsp0"])
            .args(switches)
            .arg(&archive)
            .arg(&file)
            .output()
            .unwrap();
        if !out.status.success() {
            eprintln!(
                "7zz a {switches:?} refused: {}; skipping this case",
                String::from_utf8_lossy(&out.stderr)
            );
            continue;
        }
        let (method, entry) = zip_entry_data(&std::fs::read(&archive).unwrap());
        if data.is_empty() && method == 0 {
            // 7-Zip stores empty files.
            continue;
        }
        assert_eq!(method, 98, "{switches:?}: method");
        let p = Ppmd8Props::parse([entry[0], entry[1]]).unwrap();
        eprintln!("7zz {switches:?}, {} bytes: {p:?}", data.len());
        let back = decode(&entry, Some(data.len() as u64)).unwrap();
        assert!(&back == data, "{switches:?}: decoding 7-Zip's entry");
        assert!(decode(&entry, None).unwrap() == *data);
        let ours = encode(data, p);
        assert!(
            ours == entry,
            "{switches:?} ({p:?}): our stream differs from 7-Zip's"
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn levels_are_7zips() {
    assert_eq!(
        Ppmd8Props::for_level(1),
        props(4, 1, RestoreMethod::Restart)
    );
    assert_eq!(
        Ppmd8Props::for_level(5),
        props(8, 16, RestoreMethod::Restart)
    );
    assert_eq!(
        Ppmd8Props::for_level(6),
        props(9, 32, RestoreMethod::Restart)
    );
    assert_eq!(
        Ppmd8Props::for_level(7),
        props(10, 64, RestoreMethod::CutOff)
    );
    assert_eq!(
        Ppmd8Props::for_level(9),
        props(12, 256, RestoreMethod::CutOff)
    );
    assert_eq!(Ppmd8Props::for_level(0), Ppmd8Props::for_level(1));
    assert_eq!(Ppmd8Props::for_level(12), Ppmd8Props::for_level(9));
    // An input of at most 1/16 of a smaller power of two MiB takes that.
    let p = Ppmd8Props::for_level(9);
    assert_eq!(p.reduced_for_size(1000).mem_mib, 1);
    assert_eq!(p.reduced_for_size(1 << 16).mem_mib, 1);
    assert_eq!(p.reduced_for_size((1 << 16) + 1).mem_mib, 2);
    assert_eq!(p.reduced_for_size(3 << 20).mem_mib, 64);
    assert_eq!(p.reduced_for_size(1 << 40).mem_mib, 256);
}

// ---- split independence ----------------------------------------------------

#[test]
fn any_split_gives_the_same_result() {
    let t = text(10, 30_000);
    for p in [
        props(6, 1, RestoreMethod::Restart),
        props(16, 1, RestoreMethod::CutOff),
        props(2, 1, RestoreMethod::Restart),
    ] {
        let whole = encode(&t, p);
        assert_eq!(encode_with(&t, p, true, 1), whole, "1-byte input slices");
        assert_eq!(encode_with(&t, p, true, 777), whole);
        let n = Some(t.len() as u64);
        for (size, i, o) in [
            (n, 1, 1),
            (n, 1, 4096),
            (n, 3, 1),
            (None, 1, 7),
            (None, 1, 1),
        ] {
            assert_eq!(decode_with(&whole, size, i, o, usize::MAX).unwrap(), t);
        }
    }
}

#[test]
fn input_after_the_stream_stays_with_the_caller() {
    let t = text(11, 5000);
    let mut stream = encode(&t, props(6, 1, RestoreMethod::Restart));
    let len = stream.len();
    stream.extend_from_slice(&random_bytes(15, 200));
    for size in [Some(t.len() as u64), None] {
        for (piece, mark_last) in [
            (1, false),
            (5, false),
            (1 << 20, false),
            (1, true),
            (1 << 20, true),
        ] {
            let mut dec = Ppmd8Decoder::new(size, NO_LIMIT);
            let mut out = vec![0u8; t.len()];
            let mut o = OutBuf::new(&mut out);
            let mut pos = 0;
            loop {
                let end = (pos + piece).min(stream.len());
                let last = mark_last && end == stream.len();
                let mut input = InBuf::new(&stream[pos..end]).with_last(last);
                let p = dec.decode(&mut input, &mut o).unwrap();
                pos += input.pos();
                if p == Progress::StreamEnd {
                    break;
                }
                assert!(
                    pos < stream.len(),
                    "size {size:?} piece {piece}: {p:?} at the end, {} out",
                    o.written().len()
                );
            }
            assert_eq!(o.written(), &t[..]);
            let taken_beyond = dec.unused_input();
            assert_eq!(pos - taken_beyond.len(), len, "piece {piece}");
            assert_eq!(taken_beyond, &stream[len..pos]);
            // What a container holding the decoder as `dyn Decode` sees.
            assert_eq!(Decode::unused_after_end(&dec), taken_beyond.len());
            let mut input = InBuf::new(&stream[pos..]);
            assert_eq!(dec.decode(&mut input, &mut o).unwrap(), Progress::StreamEnd);
            assert_eq!(input.pos(), 0);
        }
    }
}

// ---- truncation, corruption, errors ----------------------------------------

#[test]
fn every_truncation_is_an_error() {
    let t = text(12, 3000);
    let stream = encode(&t, props(6, 1, RestoreMethod::CutOff));
    for size in [Some(t.len() as u64), None] {
        for cut in 0..stream.len() {
            for piece in [1, 1 << 20] {
                match decode_with(&stream[..cut], size, piece, 1 << 16, 1 << 20) {
                    Err(PpmdError::Truncated) | Err(PpmdError::Corrupt(_)) => {}
                    other => panic!("cut {cut}, size {size:?}: {other:?}"),
                }
            }
        }
    }
}

#[test]
fn corrupt_streams_fail_cleanly() {
    let t = text(13, 20_000);
    for p in [
        props(6, 1, RestoreMethod::Restart),
        props(16, 1, RestoreMethod::CutOff),
        props(2, 1, RestoreMethod::Restart),
    ] {
        let stream = encode(&t, p);
        for size in [Some(t.len() as u64), None] {
            let mut s = 77u64 + u64::from(p.order);
            let mut errors = 0;
            for _ in 0..60 {
                let mut bad = stream.clone();
                for _ in 0..1 + xorshift(&mut s) % 3 {
                    let i = 6 + (xorshift(&mut s) as usize) % (bad.len() - 6);
                    bad[i] ^= 1 << (xorshift(&mut s) % 8);
                }
                match decode_with(&bad, size, 1 << 16, 1 << 16, 4 << 20) {
                    Ok(out) => assert!(out != t || size.is_some()),
                    Err(PpmdError::Truncated | PpmdError::Corrupt(_)) => errors += 1,
                    Err(e) => panic!("unexpected error {e:?}"),
                }
            }
            assert!(errors > 40, "most corruptions are caught ({errors} of 60)");
        }
    }
}

#[test]
fn random_input_never_panics() {
    for seed in 0..300u64 {
        let mut junk = random_bytes(seed + 100, 64 + (seed as usize % 2000));
        // Valid properties most of the time: order 2..16, 1 MiB, either
        // restoration method.
        if seed % 5 != 0 {
            junk[0] = (seed % 15) as u8 + 1;
            junk[1] = ((seed % 2) << 4) as u8;
        }
        let size = (seed % 2 == 0).then_some(10_000);
        let _ = decode_with(&junk, size, 1 + seed as usize % 7, 4096, 1 << 20);
    }
}

#[test]
fn errors_are_sticky() {
    let t = text(14, 2000);
    let stream = encode(&t, props(6, 1, RestoreMethod::Restart));
    let mut dec = Ppmd8Decoder::new(Some(t.len() as u64), NO_LIMIT);
    let mut out = vec![0u8; 1 << 16];
    let mut input = InBuf::last(&stream[..stream.len() / 2]);
    let e = dec
        .decode(&mut input, &mut OutBuf::new(&mut out))
        .unwrap_err();
    assert_eq!(e, PpmdError::Truncated);
    let mut input = InBuf::last(&stream[stream.len() / 2..]);
    assert_eq!(dec.decode(&mut input, &mut OutBuf::new(&mut out)), Err(e));
}

#[test]
fn properties_and_memory_limit() {
    let p = Ppmd8Props::parse([0x75, 0x10]).unwrap();
    assert_eq!(p, props(6, 8, RestoreMethod::CutOff));
    assert_eq!(p.to_bytes(), [0x75, 0x10]);
    assert_eq!(
        Ppmd8Props::parse([0xFF, 0x1F]).unwrap(),
        props(16, 256, RestoreMethod::CutOff)
    );
    // Order 1, freeze (2) and unknown methods are refused.
    for bad in [[0x00, 0x00], [0x05, 0x20], [0x05, 0x30], [0x05, 0xF0]] {
        assert!(
            matches!(Ppmd8Props::parse(bad), Err(PpmdError::InvalidProperties(_))),
            "{bad:?}"
        );
    }
    assert!(Ppmd8Props::new(17, 1, RestoreMethod::Restart).is_err());
    assert!(Ppmd8Props::new(2, 0, RestoreMethod::Restart).is_err());
    assert!(Ppmd8Props::new(2, 257, RestoreMethod::Restart).is_err());
    // Bad properties in the stream: corrupt data.
    let mut dec = Ppmd8Decoder::new(None, NO_LIMIT);
    let mut out = [0u8; 16];
    let r = dec.decode(
        &mut InBuf::last(&[0, 0, 0, 0, 0, 0]),
        &mut OutBuf::new(&mut out),
    );
    assert!(matches!(r, Err(PpmdError::InvalidProperties(_))));

    // Checked before allocating: 256 MiB is refused without being touched.
    let big = props(6, 256, RestoreMethod::Restart);
    let needed = ppmd8_memory_usage(&big);
    let mut dec = Ppmd8Decoder::new(None, 1 << 20);
    let e = dec
        .decode(&mut InBuf::new(&big.to_bytes()), &mut OutBuf::new(&mut out))
        .unwrap_err();
    assert!(matches!(
        e,
        PpmdError::Limit(lzflow_core::LimitExceeded::Memory { needed: n, limit }) if n == needed && limit == 1 << 20
    ));
    let small = props(6, 1, RestoreMethod::Restart);
    let stream = encode(b"hello", small);
    let limit = ppmd8_memory_usage(&small);
    for (limit, ok) in [(limit, true), (limit - 1, false)] {
        let mut dec = Ppmd8Decoder::new(None, limit);
        let r = dec.decode(&mut InBuf::last(&stream), &mut OutBuf::new(&mut out));
        assert_eq!(r.is_ok(), ok);
    }
}

#[test]
fn encode_after_finish_is_refused() {
    let mut enc = Ppmd8Encoder::new(props(6, 1, RestoreMethod::Restart)).unwrap();
    let mut out = vec![0u8; 64];
    assert_eq!(
        enc.finish(&mut OutBuf::new(&mut out)).unwrap(),
        Progress::StreamEnd
    );
    assert_eq!(
        enc.finish(&mut OutBuf::new(&mut out)).unwrap(),
        Progress::StreamEnd
    );
    let r = enc.encode(&mut InBuf::new(b"x"), &mut OutBuf::new(&mut out));
    assert!(matches!(r, Err(PpmdError::Usage(_))));
}

mod prop {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(32))]
        #[test]
        fn random_data_and_splits_match_7zip(
            seed in any::<u64>(),
            len in 0usize..6000,
            order in 2u8..=16,
            cut_off in any::<bool>(),
            piece in 1usize..300,
            text_like in any::<bool>(),
        ) {
            let data = if text_like {
                text(seed, len)
            } else {
                random_bytes(seed, len).iter().map(|b| b % 5).collect()
            };
            let restore = if cut_off { RestoreMethod::CutOff } else { RestoreMethod::Restart };
            let p = props(order, 1, restore);
            let ours = encode_with(&data, p, true, piece);
            prop_assert!(ours == oracle_encode(&data, p, true));
            let back = decode_with(&ours, Some(len as u64), piece, piece, usize::MAX).unwrap();
            prop_assert!(back == data);
        }
    }
}
