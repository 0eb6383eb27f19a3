//! `AsyncZipStreamReader::into_entries`: the owned `Stream` of entries
//! with their data, read forward-only on both runtimes' faces from what
//! the streaming writer wrote (data descriptors), its cap and its end
//! after an error.

use futures::TryStreamExt;
use lzflow::zip::{EntryOptions, StreamedEntry, WriteMethod, ZipError, ZipWriter};
use lzflow_core::LimitExceeded;

fn data(n: usize, seed: u8) -> Vec<u8> {
    (0..n)
        .map(|i| (i as u8).wrapping_mul(seed) ^ (i >> 9) as u8)
        .collect()
}

fn want() -> Vec<(String, Vec<u8>)> {
    vec![
        ("dir/".into(), Vec::new()),
        ("dir/deflated.bin".into(), data(200_000, 3)),
        ("stored.bin".into(), data(70_000, 5)),
        ("empty".into(), Vec::new()),
        ("xz.bin".into(), data(90_000, 7)),
    ]
}

/// A zip written to a sink that cannot seek: data descriptors throughout.
fn streaming_zip() -> Vec<u8> {
    let mut w = ZipWriter::new_streaming(Vec::new()).unwrap();
    let method = |m| EntryOptions::default().with_method(m, 6);
    w.add_directory("dir", &EntryOptions::default()).unwrap();
    let methods = [
        WriteMethod::Deflate,
        WriteMethod::Stored,
        WriteMethod::Stored,
    ];
    for ((name, bytes), m) in want()[1..4].iter().zip(methods) {
        w.add_file(name, &bytes[..], &method(m)).unwrap();
    }
    let (name, bytes) = &want()[4];
    w.add_file(name, &bytes[..], &method(WriteMethod::Xz))
        .unwrap();
    w.finish().unwrap()
}

fn check(got: &[StreamedEntry]) {
    let got: Vec<(String, Vec<u8>)> = got
        .iter()
        .map(|e| (e.name.clone(), e.data.to_vec()))
        .collect();
    assert_eq!(got, want());
}

#[tokio::test]
async fn tokio_stream_yields_every_entry_with_its_data() {
    let zip = streaming_zip();
    let r = lzflow::zip::AsyncZipStreamReader::new(std::io::Cursor::new(zip));
    // Owned and Send: it can go to another task.
    let got: Vec<StreamedEntry> = tokio::spawn(r.into_entries(1 << 20).try_collect())
        .await
        .unwrap()
        .unwrap();
    check(&got);
    assert!(got[0].is_dir);
    assert_eq!(got[0].offset, 0);
    assert!(got[1].offset > 0);
}

#[test]
fn futures_stream_yields_every_entry_with_its_data() {
    futures::executor::block_on(async {
        let r = lzflow::zip::futures::AsyncZipStreamReader::new(futures::io::Cursor::new(
            streaming_zip(),
        ));
        let got: Vec<StreamedEntry> = r.into_entries(1 << 20).try_collect().await.unwrap();
        check(&got);
    });
}

#[tokio::test]
async fn an_entry_over_the_cap_ends_the_stream() {
    let r = lzflow::zip::AsyncZipStreamReader::new(std::io::Cursor::new(streaming_zip()));
    let mut s = r.into_entries(100_000);
    assert_eq!(s.try_next().await.unwrap().unwrap().name, "dir/");
    let e = s.try_next().await.unwrap_err();
    assert!(
        matches!(e, ZipError::Limit(LimitExceeded::Output { limit: 100_000 })),
        "{e:?}"
    );
    assert!(
        s.try_next().await.unwrap().is_none(),
        "ended after the error"
    );
}

#[tokio::test]
async fn damaged_data_is_an_error_and_the_end() {
    let mut zip = streaming_zip();
    // Inside the stored entry's data: its CRC-32 no longer matches.
    let at = zip.windows(10).position(|w| w == b"stored.bin").unwrap();
    zip[at + 10 + 5_000] ^= 1;
    let r = lzflow::zip::AsyncZipStreamReader::new(std::io::Cursor::new(zip));
    let mut s = r.into_entries(1 << 20);
    let mut names = Vec::new();
    let err = loop {
        match s.try_next().await {
            Ok(Some(e)) => names.push(e.name),
            Ok(None) => panic!("the damage went unnoticed"),
            Err(e) => break e,
        }
    };
    assert_eq!(names, ["dir/", "dir/deflated.bin"], "{err:?}");
    assert!(s.try_next().await.unwrap().is_none());
}
