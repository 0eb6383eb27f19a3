//! Bad input: every case is a typed error, never a panic or a hang.

mod common;

use std::io;

use common::*;
use lzflow_core::{CoderError, Culprit, Decode, InBuf, LimitExceeded, Limits, OutBuf, Progress};
use lzflow_lzma::{AloneDecoder, DecoderOptions, Lzma2Decoder, LzmaDecoder, LzmaError, LzmaProps};

fn lzma2_outcome(data: &[u8]) -> Outcome {
    let mut dec = Lzma2Decoder::new(1 << 20, &DecoderOptions::default()).unwrap();
    let whole = drive_whole(&mut dec, data);
    let mut dec = Lzma2Decoder::new(1 << 20, &DecoderOptions::default()).unwrap();
    assert_eq!(
        drive_bytewise_in(&mut dec, data),
        whole,
        "split independence"
    );
    let mut dec = Lzma2Decoder::new(1 << 20, &DecoderOptions::default()).unwrap();
    assert_eq!(
        drive_bytewise_out(&mut dec, data),
        whole,
        "split independence"
    );
    whole
}

#[test]
fn lzma2_control_bytes() {
    assert_eq!(
        lzma2_outcome(&[0x03]).1,
        Err(LzmaError::InvalidControlByte(3))
    );
    assert_eq!(
        lzma2_outcome(&[0x7F]).1,
        Err(LzmaError::InvalidControlByte(0x7F))
    );
    // First chunk without a dictionary reset.
    assert_eq!(
        lzma2_outcome(&[0x02, 0, 0, b'x', 0]).1,
        Err(LzmaError::MissingDictReset)
    );
    assert_eq!(
        lzma2_outcome(&[0xC0, 0, 0, 0, 4, 0x5D]).1,
        Err(LzmaError::MissingDictReset)
    );
    // LZMA chunk before any properties.
    assert_eq!(
        lzma2_outcome(&[0x01, 0, 0, b'x', 0xA0, 0, 0, 0, 4]).1,
        Err(LzmaError::MissingProps)
    );
    // Invalid properties: lc + lp > 4, and a byte >= 225.
    let p = LzmaProps {
        lc: 3,
        lp: 2,
        pb: 0,
    }
    .to_byte();
    assert_eq!(
        lzma2_outcome(&[0xE0, 0, 0, 0, 4, p]).1,
        Err(LzmaError::InvalidLcLpPb {
            lc: 3,
            lp: 2,
            pb: 0
        })
    );
    assert_eq!(
        lzma2_outcome(&[0xE0, 0, 0, 0, 4, 225]).1,
        Err(LzmaError::InvalidProps(225))
    );
    // Uncompressed chunks and the end byte.
    let (out, end) = lzma2_outcome(&[0x01, 0, 2, b'a', b'b', b'c', 0x02, 0, 0, b'd', 0x00, 9]);
    assert_eq!(out, b"abcd");
    assert_eq!(end, Ok(11), "the byte after 0x00 is not consumed");
}

#[test]
fn lzma2_truncated_anywhere() {
    let data = mixed(200_000, 21);
    let comp = lzma2(&data, &opts(6, 1 << 20, 3, 0, 2));
    for cut in [0, 1, 3, 6, 100, comp.len() / 2, comp.len() - 1] {
        let (out, end) = lzma2_outcome(&comp[..cut]);
        assert_eq!(end, Err(LzmaError::Truncated), "cut at {cut}");
        assert!(data.starts_with(&out), "cut at {cut}: output is a prefix");
    }
}

#[test]
fn lzma2_chunk_sizes_must_match() {
    let data = text_like(30_000, 22);
    let comp = lzma2(&data, &opts(6, 1 << 20, 3, 0, 2));
    assert_eq!(comp[0], 0xE0, "one LZMA chunk with dictionary reset");
    let unpacked =
        (usize::from(comp[0] & 0x1F) << 16) + usize::from(comp[1]) * 256 + usize::from(comp[2]) + 1;
    assert_eq!(unpacked, data.len());
    // Declared unpacked size one less / one more than the real one.
    for delta in [-1i32, 1] {
        let mut bad = comp.clone();
        let v = (u16::from_be_bytes([bad[1], bad[2]]) as i32 + delta) as u16;
        bad[1..3].copy_from_slice(&v.to_be_bytes());
        let end = lzma2_outcome(&bad).1;
        assert!(
            matches!(
                end,
                Err(LzmaError::ChunkSizeMismatch) | Err(LzmaError::Truncated)
            ),
            "unpacked {delta:+}: {end:?}"
        );
    }
    // Declared packed size one less / one more.
    for delta in [-1i32, 1] {
        let mut bad = comp.clone();
        let v = (u16::from_be_bytes([bad[3], bad[4]]) as i32 + delta) as u16;
        bad[3..5].copy_from_slice(&v.to_be_bytes());
        let end = lzma2_outcome(&bad).1;
        assert!(end.is_err(), "packed {delta:+}: {end:?}");
        assert_eq!(
            end.unwrap_err().culprit(),
            Culprit::Corrupt,
            "packed {delta:+}"
        );
    }
}

#[test]
fn corrupted_streams_fail_identically_for_every_split() {
    let data = mixed(scaled(150_000, 40_000), 23);
    let l2 = lzma2(&data, &opts(6, 1 << 20, 3, 0, 2));
    let l1 = lzma1(&data, &opts(6, 1 << 20, 3, 0, 2));
    let mut r = Rng(99);
    for i in 0..scaled(40, 12) as u64 {
        let (src, is2) = if i % 2 == 0 {
            (&l2, true)
        } else {
            (&l1, false)
        };
        let mut bad = src.clone();
        for _ in 0..1 + r.below(3) {
            let at = 6 + r.below(bad.len() - 6);
            bad[at] ^= 1 << r.below(8);
        }
        let outcomes: Vec<Outcome> = (0..4)
            .map(|mode| {
                let mut d2 = Lzma2Decoder::new(1 << 20, &DecoderOptions::default()).unwrap();
                let mut d1 = LzmaDecoder::new(
                    LzmaProps::default(),
                    1 << 20,
                    None,
                    &DecoderOptions::default(),
                )
                .unwrap();
                let dec: &mut dyn FnMut(&[u8]) -> Outcome = &mut |b| match (is2, mode) {
                    (true, 0) => drive_whole(&mut d2, b),
                    (true, 1) => drive_bytewise_in(&mut d2, b),
                    (true, 2) => drive_bytewise_out(&mut d2, b),
                    (true, _) => drive_random(&mut d2, b, i),
                    (false, 0) => drive_whole(&mut d1, b),
                    (false, 1) => drive_bytewise_in(&mut d1, b),
                    (false, 2) => drive_bytewise_out(&mut d1, b),
                    (false, _) => drive_random(&mut d1, b, i),
                };
                dec(&bad)
            })
            .collect();
        for o in &outcomes[1..] {
            assert!(
                o.1 == outcomes[0].1,
                "case {i}: {:?} vs {:?}",
                o.1,
                outcomes[0].1
            );
            assert!(
                o.0 == outcomes[0].0,
                "case {i}: output differs ({} vs {})",
                o.0.len(),
                outcomes[0].0.len()
            );
        }
    }
}

#[test]
fn errors_are_sticky() {
    let mut dec = Lzma2Decoder::new(1 << 20, &DecoderOptions::default()).unwrap();
    let mut space = [0u8; 16];
    for _ in 0..3 {
        let mut input = InBuf::new(&[0x42, 0x00]);
        let mut out = OutBuf::new(&mut space);
        assert_eq!(
            dec.decode(&mut input, &mut out),
            Err(LzmaError::InvalidControlByte(0x42))
        );
    }
    let mut dec = AloneDecoder::new(&DecoderOptions::default());
    for _ in 0..2 {
        let mut input = InBuf::new(&[0xE1; 13]);
        let mut out = OutBuf::new(&mut space);
        assert_eq!(
            dec.decode(&mut input, &mut out),
            Err(LzmaError::InvalidProps(0xE1))
        );
    }
}

#[test]
fn memory_limit_is_checked_before_allocating() {
    let o = DecoderOptions::default().with_limits(Limits::NONE.with_memory(1 << 20));
    let needed = Lzma2Decoder::memory_usage(64 << 20);
    assert!(needed > 64 << 20);
    let e = Lzma2Decoder::new(64 << 20, &o).unwrap_err();
    assert_eq!(
        e,
        LzmaError::Limit(LimitExceeded::Memory {
            needed,
            limit: 1 << 20
        })
    );
    let msg = e.to_string();
    assert!(
        msg.contains(&needed.to_string()) && msg.contains("1 MiB"),
        "{msg}"
    );
    let io: io::Error = e.into();
    assert_eq!(io.kind(), io::ErrorKind::OutOfMemory);

    let mut ok = Lzma2Decoder::new(4096, &o).unwrap();
    assert!(matches!(ok.reset(u32::MAX), Err(LzmaError::Limit(_))));

    // .lzma: checked once the header says how big the dictionary is.
    let mut file = vec![0x5D, 0, 0, 0, 0x10];
    file.extend_from_slice(&[0xFF; 8]);
    file.extend_from_slice(&[0; 8]);
    let mut dec = AloneDecoder::new(&o);
    let end = drive_whole(&mut dec, &file).1;
    assert!(
        matches!(
            end,
            Err(LzmaError::Limit(LimitExceeded::Memory {
                limit: 1048576,
                ..
            }))
        ),
        "{end:?}"
    );
}

#[test]
fn huge_declared_dictionary_costs_nothing_up_front() {
    // 4 GiB dictionary, tiny payload: decodes (and fails) without allocating it.
    let data = b"hello hello hello".to_vec();
    let mut file = alone(&data, &opts(6, 1 << 16, 3, 0, 2));
    file[1..5].copy_from_slice(&u32::MAX.to_le_bytes());
    let mut dec = AloneDecoder::new(&DecoderOptions::default());
    let (out, end) = drive_whole(&mut dec, &file);
    assert_eq!(end, Ok(file.len()));
    assert_eq!(out, data);
    let mut dec = Lzma2Decoder::new(u32::MAX, &DecoderOptions::default()).unwrap();
    assert_eq!(
        drive_whole(&mut dec, &[0xE0, 0, 0, 0, 4, 0x5D, 0, 0, 0, 0, 0]).1,
        Err(LzmaError::ChunkSizeMismatch)
    );
}

#[test]
fn output_limit() {
    let data = vec![5u8; 100_000];
    let comp = lzma2(&data, &opts(6, 1 << 20, 3, 0, 2));
    let o = DecoderOptions::default().with_limits(Limits::NONE.with_output(1000));
    let mut dec = Lzma2Decoder::new(1 << 20, &o).unwrap();
    let (out, end) = drive_whole(&mut dec, &comp);
    assert_eq!(out.len(), 1000, "everything up to the limit is delivered");
    assert_eq!(
        end,
        Err(LzmaError::Limit(LimitExceeded::Output { limit: 1000 }))
    );
    assert_eq!(end.unwrap_err().culprit(), Culprit::Limit);
}

#[test]
fn lzma1_end_conditions() {
    let data = text_like(10_000, 24);
    let raw = lzma1(&data, &opts(6, 1 << 20, 3, 0, 2));
    let p = LzmaProps::default();
    let o = DecoderOptions::default();
    // Unknown size: the marker ends it; without it the stream is truncated.
    let mut dec = LzmaDecoder::new(p, 1 << 20, None, &o).unwrap();
    assert_eq!(
        drive_whole(&mut dec, &raw[..raw.len() - 6]).1,
        Err(LzmaError::Truncated)
    );
    // Known size smaller than the data: what follows is not the marker.
    let mut dec = LzmaDecoder::new(p, 1 << 20, Some(5_000), &o).unwrap();
    let (out, end) = drive_whole(&mut dec, &raw);
    assert_eq!(end, Err(LzmaError::SizeMismatch { expected: 5_000 }));
    assert_eq!(out, &data[..5_000]);
    // Known size larger: the marker comes too early.
    let mut dec = LzmaDecoder::new(p, 1 << 20, Some(20_000), &o).unwrap();
    assert_eq!(
        drive_whole(&mut dec, &raw).1,
        Err(LzmaError::SizeMismatch { expected: 20_000 })
    );
    // Range coder must start with a zero byte.
    let mut bad = raw.clone();
    bad[0] = 1;
    let mut dec = LzmaDecoder::new(p, 1 << 20, None, &o).unwrap();
    assert_eq!(
        drive_whole(&mut dec, &bad).1,
        Err(LzmaError::BadRangeCoderInit)
    );
    // A distance before the start of the data.
    let mut dec = LzmaDecoder::new(p, 1 << 20, None, &o).unwrap();
    let end = drive_whole(
        &mut dec,
        &[0, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF],
    )
    .1;
    assert!(
        matches!(
            end,
            Err(LzmaError::DistanceTooFar { .. }) | Err(LzmaError::Truncated)
        ),
        "{end:?}"
    );
    // Invalid properties.
    assert!(LzmaDecoder::new(
        LzmaProps {
            lc: 9,
            lp: 0,
            pb: 0
        },
        1 << 20,
        None,
        &o
    )
    .is_err());
}

#[test]
fn io_error_kinds() {
    let k = |e: LzmaError| io::Error::from(e).kind();
    assert_eq!(k(LzmaError::Truncated), io::ErrorKind::UnexpectedEof);
    assert_eq!(
        k(LzmaError::InvalidControlByte(3)),
        io::ErrorKind::InvalidData
    );
    let e = io::Error::from(LzmaError::Corrupt);
    assert_eq!(
        e.get_ref().unwrap().downcast_ref::<LzmaError>(),
        Some(&LzmaError::Corrupt)
    );
}

#[test]
fn need_input_then_stream_end_across_calls() {
    let mut dec = Lzma2Decoder::new(4096, &DecoderOptions::default()).unwrap();
    let mut space = [0u8; 8];
    let mut out = OutBuf::new(&mut space);
    assert_eq!(
        dec.decode(&mut InBuf::new(&[0x01, 0]), &mut out),
        Ok(Progress::NeedInput)
    );
    assert_eq!(
        dec.decode(&mut InBuf::new(&[1, b'h']), &mut out),
        Ok(Progress::NeedInput)
    );
    assert_eq!(
        dec.decode(&mut InBuf::new(&[b'i', 0]), &mut out),
        Ok(Progress::StreamEnd)
    );
    assert_eq!(out.written(), b"hi");
}

#[test]
fn lzma2_end_byte_optional_only_between_chunks() {
    let data = text_like(30_000, 23);
    let comp = lzma2(&data, &opts(6, 1 << 20, 3, 0, 2));
    assert_eq!(comp.last(), Some(&0x00), "the end byte");
    let body = &comp[..comp.len() - 1];
    // By default (xz) the end byte is required.
    assert_eq!(lzma2_outcome(body).1, Err(LzmaError::Truncated));
    // Optional (7z folders): input ending between chunks ends the stream,
    // however it arrives; inside a chunk it is still truncated.
    let optional = |d: &[u8], bytewise: bool| {
        let mut dec = Lzma2Decoder::new(1 << 20, &DecoderOptions::default()).unwrap();
        dec.set_end_byte_optional(true);
        if bytewise {
            drive_bytewise_in(&mut dec, d)
        } else {
            drive_whole(&mut dec, d)
        }
    };
    for bytewise in [false, true] {
        assert_eq!(optional(body, bytewise), (data.clone(), Ok(body.len())));
        assert_eq!(optional(&comp, bytewise), (data.clone(), Ok(comp.len())));
        let cut = optional(&body[..body.len() - 1], bytewise);
        assert_eq!(cut.1, Err(LzmaError::Truncated), "bytewise {bytewise}");
    }
}
