//! Split independence: the output and the error are the same however the
//! input and output are cut.

mod common;

use common::{decode, fixtures, Split};

fn all_xz_files() -> Vec<(String, Vec<u8>)> {
    let mut files = Vec::new();
    for dir in ["xz-utils/files", "generated/xz"] {
        for entry in std::fs::read_dir(fixtures().join(dir)).unwrap() {
            let path = entry.unwrap().path();
            if path.extension().is_some_and(|e| e == "xz") {
                let name = path.file_name().unwrap().to_string_lossy().into_owned();
                files.push((name, std::fs::read(&path).unwrap()));
            }
        }
    }
    files.sort();
    assert!(files.len() >= 110);
    files
}

#[test]
fn same_output_and_error_for_every_split() {
    for (name, data) in all_xz_files() {
        let (want, want_res) = decode(&data, Split::Whole);
        let want_err = want_res.err().map(|e| format!("{e:?}"));
        let mut splits = vec![
            Split::Random { seed: 7, max: 64 },
            Split::Random {
                seed: 99,
                max: 5000,
            },
            Split::Fixed {
                input: 1,
                output: 4096,
            },
        ];
        // Byte-at-a-time output is slow for the big files; the small ones
        // cover every header and trailer path.
        if want.len() <= 40_000 {
            splits.push(Split::Fixed {
                input: 1,
                output: 1,
            });
        }
        for split in splits {
            let (got, res) = decode(&data, split);
            let got_err = res.err().map(|e| format!("{e:?}"));
            assert_eq!(got_err, want_err, "{name} {split:?}");
            assert!(got == want, "{name} {split:?}: output differs");
        }
    }
}

/// Feeds every byte with `last` unset, then signals the end with an empty
/// final input, as a reader-driven loop does at EOF.
fn decode_then_eof<D: lzflow_core::Decode>(
    dec: &mut D,
    data: &[u8],
    chunk: usize,
) -> (Vec<u8>, Result<(), D::Error>) {
    use lzflow_core::{InBuf, OutBuf, Progress};
    let mut out = Vec::new();
    let mut buf = vec![0u8; 4096];
    let mut pieces = data.chunks(chunk).map(|c| (c, false)).collect::<Vec<_>>();
    pieces.push((&[], true));
    for (piece, last) in pieces {
        let mut input = InBuf::new(piece).with_last(last);
        loop {
            let mut output = OutBuf::new(&mut buf);
            let res = dec.decode(&mut input, &mut output);
            out.extend_from_slice(output.written());
            match res {
                Err(e) => return (out, Err(e)),
                Ok(Progress::StreamEnd) => return (out, Ok(())),
                Ok(Progress::NeedInput) => break,
                Ok(Progress::OutputFull) => {}
            }
        }
    }
    panic!("NeedInput after the last input");
}

#[test]
fn end_of_input_signalled_separately_gives_the_same_result() {
    for (name, data) in all_xz_files() {
        let (want, want_res) = decode(&data, Split::Whole);
        let want_err = want_res.err().map(|e| format!("{e:?}"));
        for chunk in [1000, data.len().max(1)] {
            let (got, res) = decode_then_eof(&mut lzflow_xz::XzDecoder::default(), &data, chunk);
            assert_eq!(
                res.err().map(|e| format!("{e:?}")),
                want_err,
                "{name} chunk {chunk}"
            );
            assert!(got == want, "{name} chunk {chunk}");
            let mut mt = lzflow_xz::MtXzDecoder::new(lzflow_xz::MtXzDecoderOptions {
                threads: 2,
                ..Default::default()
            });
            let (got, res) = decode_then_eof(&mut mt, &data, chunk);
            assert_eq!(
                res.err().map(|e| format!("{e:?}")),
                want_err,
                "mt {name} chunk {chunk}"
            );
            assert!(got == want, "mt {name} chunk {chunk}");
        }
    }
}
