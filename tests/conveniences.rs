//! The names users of xz2/flate2 and async-compression reach for:
//! `total_in`/`total_out` on the std faces, `XzEncoder::parallel` and
//! `XzDecoder::parallel` on the async ones.

use std::io::{Read, Write};

fn text() -> Vec<u8> {
    (0..50_000u32)
        .flat_map(|i| format!("line {} of {i}\n", i % 97).into_bytes())
        .collect()
}

#[test]
fn std_faces_count_what_went_in_and_out() {
    let data = text();
    let mut w = lzflow::write::XzEncoder::new(Vec::new(), 1);
    w.write_all(&data).unwrap();
    w.try_finish().unwrap();
    assert_eq!(w.total_in(), data.len() as u64);
    let made = w.total_out();
    let xz = w.finish().unwrap();
    assert_eq!(made, xz.len() as u64);
    let mut r = lzflow::read::XzEncoder::new(&data[..], 1);
    let mut again = Vec::new();
    r.read_to_end(&mut again).unwrap();
    assert_eq!(
        (r.total_in(), r.total_out()),
        (data.len() as u64, again.len() as u64)
    );
    // Trailing bytes after the stream are not taken.
    let mut padded = xz.clone();
    padded.extend_from_slice(b"trailing");
    let mut d = lzflow::bufread::XzDecoder::new(&padded[..]);
    d.multiple_members(false);
    let mut out = Vec::new();
    d.read_to_end(&mut out).unwrap();
    assert_eq!(out, data);
    assert_eq!(
        (d.total_in(), d.total_out()),
        (xz.len() as u64, data.len() as u64)
    );
    let mut r = lzflow::read::XzDecoder::new(&xz[..]);
    let mut out = Vec::new();
    r.read_to_end(&mut out).unwrap();
    assert_eq!(
        (r.total_in(), r.total_out()),
        (xz.len() as u64, data.len() as u64)
    );
    let mut w = lzflow::write::XzDecoder::new(Vec::new());
    w.write_all(&xz).unwrap();
    w.try_finish().unwrap();
    assert_eq!(
        (w.total_in(), w.total_out()),
        (xz.len() as u64, data.len() as u64)
    );
}

#[tokio::test]
async fn async_parallel_names_are_the_multi_threaded_coders() {
    use lzflow::tokio::{bufread::XzDecoder, write::XzEncoder};
    use lzflow::Level;
    use std::num::NonZeroU32;
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let data = text();
    let two = NonZeroU32::new(2).unwrap();
    let mut w = XzEncoder::parallel(Vec::new(), Level::Fastest, two);
    w.write_all(&data).await.unwrap();
    w.shutdown().await.unwrap();
    let xz = w.into_inner();
    let mut out = Vec::new();
    XzDecoder::parallel(&xz[..], two)
        .read_to_end(&mut out)
        .await
        .unwrap();
    assert_eq!(out, data);
    let mut out = Vec::new();
    lzflow::read::XzDecoder::new(&xz[..])
        .read_to_end(&mut out)
        .unwrap();
    assert_eq!(out, data);
}
