//! PPMd var. H (7z) coders: round trips, bit-exactness against the
//! `ppmd-rust` port of 7-Zip's code, split independence, truncation and
//! corruption.

use std::io::{Read, Write};

use lzflow_core::{Decode, Encode, InBuf, OutBuf, Progress};
use lzflow_ppmd::{memory_usage, Ppmd7Decoder, Ppmd7Encoder, Ppmd7Props, PpmdError};

const NO_LIMIT: u64 = u64::MAX;

mod common;

use common::{check_exact_output_ends_the_stream, random_bytes, text, xorshift};

// ---- our coders ------------------------------------------------------------

fn encode(data: &[u8], order: u8, mem: u32, end_marker: bool, in_chunk: usize) -> Vec<u8> {
    let mut enc = Ppmd7Encoder::new(order, mem)
        .unwrap()
        .with_end_marker(end_marker);
    let mut out = Vec::new();
    let mut scratch = vec![0u8; 997];
    for piece in data.chunks(in_chunk.max(1)) {
        let mut input = InBuf::new(piece);
        loop {
            let mut o = OutBuf::new(&mut scratch);
            let p = enc.encode(&mut input, &mut o).unwrap();
            out.extend_from_slice(o.written());
            if p == Progress::NeedInput {
                assert!(input.is_empty());
                break;
            }
        }
    }
    loop {
        let mut o = OutBuf::new(&mut scratch);
        let p = enc.finish(&mut o).unwrap();
        out.extend_from_slice(o.written());
        if p == Progress::StreamEnd {
            break;
        }
    }
    out
}

/// Decodes `stream` fed `in_chunk` bytes at a time (the last piece marked
/// last) into `out_chunk`-byte output buffers; stops producing at `cap`.
fn decode_with(
    stream: &[u8],
    order: u8,
    mem: u32,
    out_size: Option<u64>,
    in_chunk: usize,
    out_chunk: usize,
    cap: usize,
) -> Result<Vec<u8>, PpmdError> {
    let mut dec = Ppmd7Decoder::new(order, mem, out_size, NO_LIMIT)?;
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

fn decode(stream: &[u8], order: u8, mem: u32, out_size: Option<u64>) -> Result<Vec<u8>, PpmdError> {
    decode_with(stream, order, mem, out_size, 1 << 16, 1 << 16, usize::MAX)
}

// ---- the oracle ------------------------------------------------------------

fn oracle_encode(data: &[u8], order: u8, mem: u32, end_marker: bool) -> Vec<u8> {
    let mut enc = ppmd_rust::Ppmd7Encoder::new(Vec::new(), u32::from(order), mem).unwrap();
    enc.write_all(data).unwrap();
    enc.finish(end_marker).unwrap()
}

fn oracle_decode(stream: &[u8], order: u8, mem: u32, size: usize) -> Vec<u8> {
    let mut dec = ppmd_rust::Ppmd7Decoder::new(stream, u32::from(order), mem).unwrap();
    let mut out = vec![0u8; size];
    dec.read_exact(&mut out).unwrap();
    out
}

/// Ours and the oracle's streams are the same bytes, and both decoders
/// give the data back.
fn check_exact(data: &[u8], order: u8, mem: u32) {
    let ours = encode(data, order, mem, false, 1 << 20);
    let theirs = oracle_encode(data, order, mem, false);
    assert_eq!(
        ours.len(),
        theirs.len(),
        "stream length, order {order} mem {mem} len {}",
        data.len()
    );
    assert!(
        ours == theirs,
        "stream bytes, order {order} mem {mem} len {}",
        data.len()
    );
    let back = decode(&theirs, order, mem, Some(data.len() as u64)).unwrap();
    assert!(back == data, "our decoder, order {order} mem {mem}");
    assert!(oracle_decode(&ours, order, mem, data.len()) == data);
}

// ---- round trips and bit-exactness -----------------------------------------

#[test]
fn matches_7zip_at_every_order_and_memory_size() {
    let t = text(1, 120_000);
    let r = random_bytes(2, 20_000);
    let inputs: [&[u8]; 5] = [b"", b"a", &r, &t[..3000], &t];
    for order in [2u8, 3, 6, 16, 32, 64] {
        for mem in [1 << 11, 1 << 16, 16 << 20] {
            for data in inputs {
                check_exact(data, order, mem);
            }
        }
    }
}

#[test]
fn model_restarts_match_7zip() {
    // 64 KiB of model over 1 MB of text restarts the model many times.
    let t = text(3, 1 << 20);
    check_exact(&t, 6, 64 << 10);
    // The smallest memory, the highest orders, and memory sizes that are no
    // multiple of the unit or of 4 (7-Zip aligns the arena's end).
    let t = text(4, 200_000);
    for (order, mem) in [(64, 1 << 11), (32, 3000), (8, 40_001), (4, 100_003)] {
        check_exact(&t, order, mem);
    }
    // Text, then random bytes, then text: contexts of all sizes.
    let mut mixed = text(5, 100_000);
    mixed.extend(random_bytes(6, 50_000));
    mixed.extend(text(7, 100_000));
    check_exact(&mixed, 16, 256 << 10);
}

#[test]
fn long_runs_and_skewed_data_match_7zip() {
    // Long runs drive the binary contexts and their probabilities to the
    // extremes, and the range encoder's carry through 0xFF runs.
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
    for order in [2u8, 6, 64] {
        check_exact(&data, order, 1 << 20);
        check_exact(&data, order, 1 << 12);
    }
}

#[test]
fn end_marker_matches_7zip_and_ends_unknown_sizes() {
    let t = text(8, 50_000);
    for data in [&b""[..], b"x", &t] {
        for order in [2u8, 6, 64] {
            let ours = encode(data, order, 1 << 20, true, 1 << 20);
            let theirs = oracle_encode(data, order, 1 << 20, true);
            assert!(ours == theirs, "order {order}, {} bytes", data.len());
            assert_eq!(decode(&ours, order, 1 << 20, None).unwrap(), data);
            // A size and a marker: accepted (7-Zip would want code 0).
            assert_eq!(
                decode(&ours, order, 1 << 20, Some(data.len() as u64)).unwrap(),
                data
            );
        }
    }
}

/// See [`check_exact_output_ends_the_stream`].
#[test]
fn an_output_of_exactly_the_data_ends_the_stream() {
    let t = text(3, 9_000);
    for data in [&b"x"[..], &t] {
        let stream = encode(data, 6, 1 << 20, true, 1 << 20);
        check_exact_output_ends_the_stream(data, &stream, || {
            Ppmd7Decoder::new(6, 1 << 20, None, NO_LIMIT).unwrap()
        });
    }
}

#[test]
fn empty_stream_is_five_zero_bytes() {
    assert_eq!(encode(b"", 6, 1 << 16, false, 1), [0, 0, 0, 0, 0]);
    assert_eq!(decode(&[0; 5], 6, 1 << 16, Some(0)).unwrap(), b"");
    assert_eq!(
        decode(&[0; 4], 6, 1 << 16, Some(0)),
        Err(PpmdError::Truncated)
    );
    assert!(matches!(
        decode(&[1, 0, 0, 0, 0], 6, 1 << 16, Some(0)),
        Err(PpmdError::Corrupt(_))
    ));
    assert!(matches!(
        decode(&[0, 255, 255, 255, 255], 6, 1 << 16, Some(0)),
        Err(PpmdError::Corrupt(_))
    ));
    // Without a size the end marker is needed; five zero bytes lack it.
    assert!(decode(&[0; 5], 6, 1 << 16, None).is_err());
}

// ---- 7-Zip itself -----------------------------------------------------------

/// The packed stream and PPMd properties of a one-file 7z archive written
/// with an uncompressed header: the stream follows the signature header,
/// and the header follows the stream.
fn pack_stream_of(archive: &[u8]) -> (Vec<u8>, Ppmd7Props) {
    let next_header = u64::from_le_bytes(archive[12..20].try_into().unwrap()) as usize;
    let pack = archive[32..32 + next_header].to_vec();
    let header = &archive[32 + next_header..];
    // The coder: flags 0x23 (3-byte ID, has properties), 03 04 01, 5 bytes.
    let at = header
        .windows(5)
        .position(|w| w == [0x23, 3, 4, 1, 5])
        .expect("a PPMd coder in the header");
    (pack, Ppmd7Props::parse(&header[at + 5..at + 10]).unwrap())
}

#[test]
fn matches_7zz() {
    if std::process::Command::new("7zz").arg("i").output().is_err() {
        eprintln!("7zz not found: skipping");
        return;
    }
    let dir = std::env::temp_dir().join(format!("lzflow-ppmd-7zz-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let cases = [
        ("o=6:mem=16m", text(20, 300_000)),
        ("o=32:mem=1m", text(21, 400_000)),
        // 64 KiB (7-Zip's smallest for its encoder): restarts.
        ("o=16:mem=64k", text(22, 600_000)),
        ("o=2:mem=64k", random_bytes(23, 100_000)),
    ];
    for (i, (method, data)) in cases.iter().enumerate() {
        let file = dir.join(format!("in{i}"));
        let archive = dir.join(format!("a{i}.7z"));
        std::fs::write(&file, data).unwrap();
        let _ = std::fs::remove_file(&archive);
        let status = std::process::Command::new("7zz")
            .args([
                "a",
                "-t7z",
                &format!("-m0=PPMd:{method}"),
                "-mhc=off",
                "-bso0",
                "-bsp0",
            ])
            .arg(&archive)
            .arg(&file)
            .status()
            .unwrap();
        assert!(status.success(), "7zz a {method}");
        let (pack, props) = pack_stream_of(&std::fs::read(&archive).unwrap());
        let ours = encode(data, props.order, props.mem_size, false, 1 << 20);
        assert!(
            ours == pack,
            "{method} ({props:?}): our stream differs from 7-Zip's"
        );
        let back = decode(&pack, props.order, props.mem_size, Some(data.len() as u64)).unwrap();
        assert!(&back == data, "{method}: decoding 7-Zip's stream");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

// ---- split independence ----------------------------------------------------

#[test]
fn any_split_gives_the_same_result() {
    let t = text(10, 30_000);
    for (order, mem) in [(6u8, 1 << 16), (64, 1 << 11), (2, 1 << 20)] {
        let whole = encode(&t, order, mem, false, 1 << 20);
        assert_eq!(
            encode(&t, order, mem, false, 1),
            whole,
            "1-byte input slices"
        );
        assert_eq!(encode(&t, order, mem, false, 777), whole);
        let n = Some(t.len() as u64);
        assert_eq!(
            decode_with(&whole, order, mem, n, 1, 1, usize::MAX).unwrap(),
            t
        );
        assert_eq!(
            decode_with(&whole, order, mem, n, 1, 4096, usize::MAX).unwrap(),
            t
        );
        assert_eq!(
            decode_with(&whole, order, mem, n, 3, 1, usize::MAX).unwrap(),
            t
        );
        let marked = encode(&t, order, mem, true, 1 << 20);
        assert_eq!(
            decode_with(&marked, order, mem, None, 1, 7, usize::MAX).unwrap(),
            t
        );
    }
}

#[test]
fn input_after_the_stream_stays_with_the_caller() {
    let t = text(11, 5000);
    let mut stream = encode(&t, 6, 1 << 16, false, 1 << 20);
    let len = stream.len();
    // More than one symbol's worth (2 * (order + 2) bytes).
    let trailing = random_bytes(15, 100);
    stream.extend_from_slice(&trailing);
    for (piece, mark_last) in [
        (1, false),
        (5, false),
        (1 << 20, false),
        (1, true),
        (1 << 20, true),
    ] {
        let mut dec = Ppmd7Decoder::new(6, 1 << 16, Some(t.len() as u64), NO_LIMIT).unwrap();
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
        }
        assert_eq!(o.written(), &t[..]);
        let taken_beyond = dec.unused_input();
        assert_eq!(pos - taken_beyond.len(), len, "piece {piece}");
        assert_eq!(taken_beyond, &stream[len..pos]);
        // What a container holding the decoder as `dyn Decode` sees.
        assert_eq!(Decode::unused_after_end(&dec), taken_beyond.len());
        // Done stays done, taking nothing.
        let mut input = InBuf::new(&stream[pos..]);
        assert_eq!(dec.decode(&mut input, &mut o).unwrap(), Progress::StreamEnd);
        assert_eq!(input.pos(), 0);
    }
}

// ---- truncation, corruption, errors ----------------------------------------

#[test]
fn every_truncation_is_an_error() {
    let t = text(12, 3000);
    for end_marker in [false, true] {
        let stream = encode(&t, 6, 1 << 16, end_marker, 1 << 20);
        let size = (!end_marker).then_some(t.len() as u64);
        for cut in 0..stream.len() {
            for piece in [1, 1 << 20] {
                let r = decode_with(&stream[..cut], 6, 1 << 16, size, piece, 1 << 16, 1 << 20);
                match r {
                    Err(PpmdError::Truncated) | Err(PpmdError::Corrupt(_)) => {}
                    other => panic!("cut {cut}, marker {end_marker}: {other:?}"),
                }
            }
        }
    }
}

#[test]
fn corrupt_streams_fail_cleanly() {
    let t = text(13, 20_000);
    for (order, mem) in [(6u8, 1 << 16), (64, 1 << 11), (16, 1 << 20)] {
        for end_marker in [false, true] {
            let stream = encode(&t, order, mem, end_marker, 1 << 20);
            let size = (!end_marker).then_some(t.len() as u64);
            let mut s = 77u64 + u64::from(order);
            let mut errors = 0;
            for _ in 0..60 {
                let mut bad = stream.clone();
                for _ in 0..1 + xorshift(&mut s) % 3 {
                    let i = 5 + (xorshift(&mut s) as usize) % (bad.len() - 5);
                    bad[i] ^= 1 << (xorshift(&mut s) % 8);
                }
                // Never a panic; garbage without a size is capped.
                match decode_with(&bad, order, mem, size, 1 << 16, 1 << 16, 4 << 20) {
                    Ok(out) => assert!(size.is_some() || out.len() > t.len() || out != t),
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
    for seed in 0..200u64 {
        let mut junk = random_bytes(seed + 100, 64 + (seed as usize % 500));
        junk[0] = 0;
        let order = [2u8, 6, 64][seed as usize % 3];
        let size = (seed % 2 == 0).then_some(10_000);
        let _ = decode_with(
            &junk,
            order,
            1 << 11,
            size,
            1 + seed as usize % 7,
            4096,
            1 << 20,
        );
    }
}

#[test]
fn errors_are_sticky() {
    let t = text(14, 2000);
    let stream = encode(&t, 6, 1 << 16, false, 1 << 20);
    let mut dec = Ppmd7Decoder::new(6, 1 << 16, Some(t.len() as u64), NO_LIMIT).unwrap();
    let mut out = vec![0u8; 1 << 16];
    let mut input = InBuf::last(&stream[..stream.len() / 2]);
    let e = dec
        .decode(&mut input, &mut OutBuf::new(&mut out))
        .unwrap_err();
    assert_eq!(e, PpmdError::Truncated);
    let mut input = InBuf::last(&stream[stream.len() / 2..]);
    assert_eq!(dec.decode(&mut input, &mut OutBuf::new(&mut out)), Err(e));
    let io: std::io::Error = PpmdError::Truncated.into();
    assert_eq!(io.kind(), std::io::ErrorKind::UnexpectedEof);
    let io: std::io::Error = PpmdError::Corrupt("x").into();
    assert_eq!(io.kind(), std::io::ErrorKind::InvalidData);
}

#[test]
fn properties_and_memory_limit() {
    let p = Ppmd7Props::parse(&[6, 0, 0, 0, 1]).unwrap();
    assert_eq!(
        p,
        Ppmd7Props {
            order: 6,
            mem_size: 16 << 20
        }
    );
    assert_eq!(p.to_bytes(), [6, 0, 0, 0, 1]);
    assert_eq!(Ppmd7Props::parse(&[6, 0, 0, 0, 1, 9]).unwrap(), p);
    for bad in [
        &[6u8, 0, 0, 0][..],
        &[1, 0, 0, 0, 1],
        &[65, 0, 0, 0, 1],
        &[6, 0xFF, 7, 0, 0],
    ] {
        assert!(
            matches!(Ppmd7Props::parse(bad), Err(PpmdError::InvalidProperties(_))),
            "{bad:?}"
        );
    }
    assert!(Ppmd7Props::parse(&[64, 0, 8, 0, 0]).is_ok());
    assert!(Ppmd7Props::parse(&[2, 0xDB, 0xFF, 0xFF, 0xFF]).is_ok());
    assert!(Ppmd7Props::parse(&[2, 0xDC, 0xFF, 0xFF, 0xFF]).is_err());
    assert!(Ppmd7Encoder::new(1, 1 << 20).is_err());

    // Checked before allocating: 4 GiB is refused without being touched.
    let needed = memory_usage(u32::MAX - 36);
    let e = Ppmd7Decoder::new(6, u32::MAX - 36, None, 1 << 30).unwrap_err();
    assert!(matches!(
        e,
        PpmdError::Limit(lzflow_core::LimitExceeded::Memory { needed: n, limit }) if n == needed && limit == 1 << 30
    ));
    assert!(e.to_string().contains("memory limit"));
    assert!(Ppmd7Decoder::new(6, 1 << 20, None, memory_usage(1 << 20)).is_ok());
    assert!(Ppmd7Decoder::new(6, 1 << 20, None, memory_usage(1 << 20) - 1).is_err());
}

#[test]
fn encode_after_finish_is_refused() {
    let mut enc = Ppmd7Encoder::new(6, 1 << 16).unwrap();
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
        #![proptest_config(ProptestConfig::with_cases(48))]
        #[test]
        fn random_data_and_splits_match_7zip(
            seed in any::<u64>(),
            len in 0usize..6000,
            order in 2u8..=64,
            mem_kib in 2u32..512,
            piece in 1usize..300,
            text_like in any::<bool>(),
        ) {
            let data = if text_like {
                text(seed, len)
            } else {
                // Few distinct bytes: deep contexts quickly.
                random_bytes(seed, len).iter().map(|b| b % 5).collect()
            };
            let mem = mem_kib << 10;
            let ours = encode(&data, order, mem, false, piece);
            prop_assert!(ours == oracle_encode(&data, order, mem, false));
            let back = decode_with(&ours, order, mem, Some(len as u64), piece, piece, usize::MAX).unwrap();
            prop_assert!(back == data);
        }
    }
}

/// Not a benchmark: a rough comparison with `ppmd-rust`, run by hand with
/// `cargo test --release -p lzflow-ppmd -- --ignored speed`.
#[test]
#[ignore]
fn speed_against_ppmd_rust() {
    use std::time::{Duration, Instant};
    /// The fastest of 3 runs: the machine is shared.
    fn best<T>(mut f: impl FnMut() -> T) -> (T, Duration) {
        let mut fastest = Duration::MAX;
        let mut out = None;
        for _ in 0..3 {
            let t = Instant::now();
            out = Some(f());
            fastest = fastest.min(t.elapsed());
        }
        (out.unwrap(), fastest)
    }
    let data = text(16, 10 << 20);
    let (order, mem) = (6, 16 << 20);
    let (ours, enc_ours) = best(|| encode(&data, order, mem, false, 1 << 20));
    let (theirs, enc_theirs) = best(|| oracle_encode(&data, order, mem, false));
    assert!(ours == theirs);
    let size = Some(data.len() as u64);
    let (back, dec_ours) = best(|| decode(&ours, order, mem, size).unwrap());
    let (back2, dec_theirs) = best(|| oracle_decode(&ours, order, mem, data.len()));
    assert!(back == data && back2 == data);
    eprintln!(
        "{} -> {} bytes; encode: lzflow {enc_ours:?}, ppmd-rust {enc_theirs:?}; \
         decode: lzflow {dec_ours:?}, ppmd-rust {dec_theirs:?}",
        data.len(),
        ours.len()
    );
}
