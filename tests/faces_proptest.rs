//! Property tests: for random chunkings of input and output, every face
//! gives the reference bytes (or the reference error kind).

mod faces_support;

use std::io::{self, Read, Write};
use std::sync::OnceLock;

use faces_support::{
    generated_dir, sample_data, write_in_pieces, PendingIo, Rng, SplitReader, SplitWriter,
};
use proptest::prelude::*;

struct Case {
    name: &'static str,
    data: Vec<u8>,
    /// Decoded bytes, or the error kind of a whole-input decode.
    expected: Result<Vec<u8>, io::ErrorKind>,
}

fn decode_whole(data: &[u8]) -> Result<Vec<u8>, io::ErrorKind> {
    let mut out = Vec::new();
    lzflow::read::XzDecoder::new(data)
        .read_to_end(&mut out)
        .map(|_| out)
        .map_err(|e| e.kind())
}

fn cases() -> &'static [Case] {
    static CASES: OnceLock<Vec<Case>> = OnceLock::new();
    CASES.get_or_init(|| {
        [
            "xz/block-list.xz",
            "xz/multistream-padding.xz",
            "xz/bcj-x86.xz",
            "xz/bad-truncated.xz",
            "xz/bad-padding-3.xz",
        ]
        .into_iter()
        .map(|name| {
            let data = std::fs::read(generated_dir().join(name)).unwrap();
            let expected = decode_whole(&data);
            Case {
                name,
                data,
                expected,
            }
        })
        .collect()
    })
}

fn check(case: &Case, got: io::Result<Vec<u8>>, how: &str) -> Result<(), TestCaseError> {
    match (&case.expected, got) {
        (Ok(want), Ok(got)) => prop_assert!(got == *want, "{}: {how}: bytes differ", case.name),
        (Err(want), Err(e)) => prop_assert_eq!(*want, e.kind(), "{}: {}: {}", case.name, how, e),
        (want, got) => prop_assert!(
            false,
            "{}: {how}: expected {want:?}, got {got:?}",
            case.name
        ),
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn std_faces_ignore_chunking(case in 0..5usize, fill in 1..300usize, out in 1..5000usize, seed in any::<u64>()) {
        let case = &cases()[case];
        // bufread over random fills, random-size output buffers
        let mut dec = lzflow::bufread::XzDecoder::new(SplitReader::new(case.data.clone(), fill, seed));
        let mut got = Vec::new();
        let mut rng = Rng::new(seed ^ 1);
        let r = loop {
            let mut buf = vec![0u8; rng.size(out)];
            match dec.read(&mut buf) {
                Ok(0) => break Ok(got),
                Ok(n) => got.extend_from_slice(&buf[..n]),
                Err(e) => break Err(e),
            }
        };
        check(case, r, "bufread")?;
        // write decoder with random writes into a random-size sink
        let mut w = lzflow::write::XzDecoder::new(SplitWriter::new(out, seed ^ 2));
        let r = write_in_pieces(&mut w, &case.data, fill, seed ^ 3)
            .and_then(|_| w.finish())
            .map(|s| s.data);
        check(case, r, "write")?;
    }

    #[test]
    fn tokio_face_ignores_chunking_and_pending(case in 0..5usize, fill in 1..300usize, out in 1..5000usize, seed in any::<u64>()) {
        let case = &cases()[case];
        let rt = tokio::runtime::Builder::new_current_thread().enable_time().build().unwrap();
        let r = rt.block_on(async { tokio::time::timeout(std::time::Duration::from_secs(60), async {
            use tokio::io::AsyncReadExt;
            let mut dec = lzflow::tokio::bufread::XzDecoder::new(PendingIo::reader(case.data.clone(), fill, seed));
            let mut got = Vec::new();
            let mut buf = vec![0u8; out];
            loop {
                match dec.read(&mut buf).await {
                    Ok(0) => return Ok(got),
                    Ok(n) => got.extend_from_slice(&buf[..n]),
                    Err(e) => return Err(e),
                }
            }
        }).await }).expect("timed out");
        check(case, r, "tokio bufread")?;
    }

    #[test]
    fn write_encoder_bytes_ignore_chunking(len in 0..60_000usize, piece in 1..9000usize, sink in 1..700usize, seed in any::<u64>()) {
        let payload = sample_data(len, seed);
        let mut w = lzflow::write::XzEncoder::new(Vec::new(), 1);
        w.write_all(&payload).unwrap();
        let want = w.finish().unwrap();
        let mut w = lzflow::write::XzEncoder::new(SplitWriter::new(sink, seed), 1);
        write_in_pieces(&mut w, &payload, piece, seed ^ 4).unwrap();
        let got = w.finish().unwrap().data;
        prop_assert!(got == want, "encoder output depends on chunking");
        prop_assert!(decode_whole(&got).unwrap() == payload);
    }
}
