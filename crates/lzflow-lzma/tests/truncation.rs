//! A stream cut short gives every byte xz would give before the truncation
//! error, and the same bytes however the input and output are sliced: the
//! LZMA1 (`.lzma`) and LZMA2 decoders on prefixes of fixtures. (The bytes
//! are compared with liblzma and `xz -dc` in the facade's
//! `crates/lzflow-bench/tests/partial_output.rs`.)

use lzflow_core::{Decode, InBuf, OutBuf, Progress};
use lzflow_lzma::{AloneDecoder, DecoderOptions, Lzma2Decoder, LzmaError};

fn fixture(name: &str) -> Vec<u8> {
    let path = format!(
        "{}/../../fixtures/generated/{name}",
        env!("CARGO_MANIFEST_DIR")
    );
    std::fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// Output and result of `decoder` over `data` in input slices of `step`
/// bytes (0: whole) into output slices of `room` bytes.
fn run<D: Decode<Error = LzmaError>>(
    mut decoder: D,
    data: &[u8],
    step: usize,
    room: usize,
) -> (Vec<u8>, Result<(), LzmaError>) {
    let mut out = Vec::new();
    let mut buf = vec![0u8; room];
    let mut pos = 0;
    loop {
        let end = if step == 0 {
            data.len()
        } else {
            (pos + step).min(data.len())
        };
        let mut input = InBuf::new(&data[pos..end]).with_last(end == data.len());
        let mut output = OutBuf::new(&mut buf);
        let result = decoder.decode(&mut input, &mut output);
        out.extend_from_slice(output.written());
        pos += input.pos();
        match result {
            Err(e) => return (out, Err(e)),
            Ok(Progress::StreamEnd) => return (out, Ok(())),
            Ok(_) => {}
        }
    }
}

const SPLITS: [(usize, usize); 4] = [(1, 1), (3, 7), (1, 1 << 16), (0, 5)];

#[test]
fn a_truncated_lzma_file_gives_the_same_bytes_however_split() {
    let data = fixture("lzma/unknown-size-eopm.lzma");
    let whole_file = run(
        AloneDecoder::new(&DecoderOptions::default()),
        &data,
        0,
        1 << 16,
    );
    assert_eq!(whole_file.1, Ok(()));
    for cut in (13..data.len()).step_by(5) {
        let prefix = &data[..cut];
        let whole = run(
            AloneDecoder::new(&DecoderOptions::default()),
            prefix,
            0,
            1 << 16,
        );
        assert_eq!(whole.1, Err(LzmaError::Truncated), "cut {cut}");
        assert!(
            whole_file.0.starts_with(&whole.0),
            "cut {cut}: not a prefix"
        );
        for (step, room) in SPLITS {
            let sliced = run(
                AloneDecoder::new(&DecoderOptions::default()),
                prefix,
                step,
                room,
            );
            assert!(
                sliced == whole,
                "cut {cut}, slices of {step} into {room}: {} bytes, whole {}",
                sliced.0.len(),
                whole.0.len()
            );
        }
    }
}

#[test]
fn a_truncated_lzma2_chunk_gives_its_decodable_bytes_however_split() {
    let data = fixture("raw/lzma2-dict1MiB.raw");
    let dec = || Lzma2Decoder::new(1 << 20, &DecoderOptions::default()).unwrap();
    let whole_file = run(dec(), &data, 0, 1 << 16);
    assert_eq!(whole_file.1, Ok(()));
    let mut grew = 0;
    let mut last = 0;
    for cut in (1..data.len()).step_by(7) {
        let prefix = &data[..cut];
        let whole = run(dec(), prefix, 0, 1 << 16);
        assert_eq!(whole.1, Err(LzmaError::Truncated), "cut {cut}");
        assert!(
            whole_file.0.starts_with(&whole.0),
            "cut {cut}: not a prefix"
        );
        grew += usize::from(whole.0.len() > last);
        last = whole.0.len();
        for (step, room) in SPLITS {
            let sliced = run(dec(), prefix, step, room);
            assert!(
                sliced == whole,
                "cut {cut}, slices of {step} into {room}: {} bytes, whole {}",
                sliced.0.len(),
                whole.0.len()
            );
        }
    }
    // Output grows with the cut inside chunks too, not only at chunk ends.
    assert!(grew > 100, "output grew at {grew} cuts");
}

#[test]
fn low_latency_delivers_a_chunk_as_it_arrives_with_the_same_bytes() {
    let data = fixture("raw/lzma2-dict1MiB.raw");
    let opts = DecoderOptions::default().with_low_latency(true);
    let dec = |o: &DecoderOptions| Lzma2Decoder::new(1 << 20, o).unwrap();
    let whole = run(dec(&DecoderOptions::default()), &data, 0, 1 << 16);
    assert_eq!(whole.1, Ok(()));
    for (step, room) in [(1, 1 << 16), (3, 7), (100, 1 << 16), (4096, 100)] {
        let got = run(dec(&opts), &data, step, room);
        assert!(got == whole, "slices of {step} into {room}");
    }
    // Half of the first chunk, more to come: only low latency decodes it.
    let half = &data[..data.len() / 2];
    let mut buf = vec![0u8; 1 << 16];
    for (o, early) in [(&DecoderOptions::default(), false), (&opts, true)] {
        let mut d = dec(o);
        let mut input = InBuf::new(half);
        let mut output = OutBuf::new(&mut buf);
        assert_eq!(d.decode(&mut input, &mut output), Ok(Progress::NeedInput));
        assert_eq!(input.len(), 0, "all of it taken");
        let n = output.pos();
        assert_eq!(n > 0, early, "low latency {early}: {n} bytes early");
        assert!(whole.0.starts_with(output.written()));
    }
}
