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
