//! Damaged input: every truncation is an error, random byte flips never
//! panic or hang, and the error does not depend on how input is split.

mod common;

use common::{decode, fixtures, Split};
use lzflow_core::{CoderError, Culprit};
use proptest::prelude::*;

fn file(path: &str) -> Vec<u8> {
    std::fs::read(fixtures().join(path)).unwrap()
}

#[test]
fn every_truncation_of_a_single_stream_fails() {
    for path in [
        "xz-utils/files/good-1-block_header-1.xz",
        "xz-utils/files/good-1-check-sha256.xz",
        "xz-utils/files/good-1-3delta-lzma2.xz",
        "xz-utils/files/good-2-lzma2.xz",
        "generated/xz/one-byte.xz",
    ] {
        let data = file(path);
        for cut in 0..data.len() {
            let (_, res) = decode(&data[..cut], Split::Whole);
            let e = res.expect_err(&format!("{path} cut at {cut}"));
            assert_eq!(
                e.culprit(),
                Culprit::Truncated,
                "{path} cut at {cut}: {e:?}"
            );
            let (_, res1) = decode(
                &data[..cut],
                Split::Fixed {
                    input: 1,
                    output: 1,
                },
            );
            assert_eq!(format!("{:?}", res1.unwrap_err()), format!("{e:?}"));
        }
    }
}

fn sample() -> Vec<u8> {
    // A small multi-block file with a BCJ filter and sizes in the headers,
    // so that flips hit every structure.
    let opts = lzflow_xz::XzEncoderOptions::preset(0)
        .unwrap()
        .with_block_size(Some(300))
        .with_filters(vec![lzflow_filters::FilterConfig::new(
            lzflow_filters::FilterKind::X86,
        )]);
    let mut enc = lzflow_xz::XzEncoder::new(opts).unwrap();
    let input = common::data("text", 1000, 31);
    common::encode_all(&mut enc, &input, 1000, 1 << 16).unwrap()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn flipped_bytes_give_an_error_or_the_data_never_a_panic(
        flips in proptest::collection::vec((any::<prop::sample::Index>(), 1u8..=255), 1..4),
        seed in any::<u64>(),
    ) {
        let mut data = sample();
        let len = data.len();
        for (i, x) in &flips {
            data[i.index(len)] ^= x;
        }
        let (out, res) = decode(&data, Split::Whole);
        let (out2, res2) = decode(&data, Split::Random { seed, max: 40 });
        prop_assert_eq!(format!("{:?}", res), format!("{:?}", res2));
        prop_assert!(out == out2);
        // The multi-threaded decoder takes these Blocks (their headers have
        // both sizes) and must agree exactly.
        let mut mt = lzflow_xz::MtXzDecoder::new(lzflow_xz::MtXzDecoderOptions {
            threads: 2,
            ..Default::default()
        });
        let (out3, res3) = common::drive(&mut mt, &data, Split::Random { seed, max: 100 });
        prop_assert_eq!(format!("{:?}", res), format!("{:?}", res3));
        prop_assert!(out == out3);
        if res.is_ok() {
            // Only a flip the checks cannot see (none here: every byte is
            // covered by a CRC, a check or a size) could decode.
            prop_assert!(out == common::data("text", 1000, 31));
        }
    }
}
