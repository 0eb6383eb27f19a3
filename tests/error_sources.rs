//! Every `io::Error` a face returns carries the typed error of the layer
//! that failed (`get_ref()` downcasts to it), truncation included, and the
//! typed error's `Display` names the failure once.

use std::io::{self, Read, Write};

use lzflow::{LzipError, LzmaError, XzError};

fn text() -> Vec<u8> {
    (0..20_000u32)
        .flat_map(|i| format!("line {i}\n").into_bytes())
        .collect()
}

fn encoded(mut w: impl Write, data: &[u8]) {
    w.write_all(data).unwrap();
    w.flush().unwrap();
}

/// The cut points: in the header, in the data, just before the end.
fn cuts(len: usize) -> [usize; 3] {
    [3, len / 2, len - 1]
}

fn read_err(mut r: impl Read) -> io::Error {
    let mut out = Vec::new();
    r.read_to_end(&mut out).unwrap_err()
}

fn is<E: std::error::Error + 'static>(e: &io::Error) -> bool {
    e.get_ref().is_some_and(|i| i.is::<E>())
}

#[test]
fn std_faces_report_truncation_with_the_typed_error() {
    let data = text();
    let mut xz = Vec::new();
    {
        let mut w = lzflow::write::XzEncoder::new(&mut xz, 1);
        encoded(&mut w, &data);
        w.finish().unwrap();
    }
    let mut lzma = Vec::new();
    {
        let mut w = lzflow::write::LzmaEncoder::new(&mut lzma, 1);
        encoded(&mut w, &data);
        w.finish().unwrap();
    }
    let mut lz = Vec::new();
    {
        let mut w = lzflow::write::LzipEncoder::new(&mut lz, 1);
        encoded(&mut w, &data);
        w.finish().unwrap();
    }
    for cut in cuts(xz.len()) {
        let e = read_err(lzflow::read::XzDecoder::new(&xz[..cut]));
        assert_eq!(e.kind(), io::ErrorKind::UnexpectedEof, "xz {cut}");
        assert!(is::<XzError>(&e), "xz cut at {cut}: {e:?}");
    }
    for cut in cuts(lzma.len()) {
        let e = read_err(lzflow::read::LzmaDecoder::new(&lzma[..cut]));
        assert_eq!(e.kind(), io::ErrorKind::UnexpectedEof, "lzma {cut}");
        assert!(is::<LzmaError>(&e), "lzma cut at {cut}: {e:?}");
    }
    for cut in cuts(lz.len()) {
        let e = read_err(lzflow::read::LzipDecoder::new(&lz[..cut]));
        assert_eq!(e.kind(), io::ErrorKind::UnexpectedEof, "lzip {cut}");
        assert!(is::<LzipError>(&e), "lzip cut at {cut}: {e:?}");
    }
}

#[tokio::test]
async fn async_faces_and_streams_report_truncation_with_the_typed_error() {
    use futures::StreamExt;
    use tokio::io::AsyncReadExt;
    let data = text();
    let mut xz = Vec::new();
    {
        let mut w = lzflow::write::XzEncoder::new(&mut xz, 1);
        encoded(&mut w, &data);
        w.finish().unwrap();
    }
    for cut in cuts(xz.len()) {
        let mut out = Vec::new();
        let e = lzflow::tokio::bufread::XzDecoder::new(&xz[..cut])
            .read_to_end(&mut out)
            .await
            .unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::UnexpectedEof, "tokio {cut}");
        assert!(is::<XzError>(&e), "tokio cut at {cut}: {e:?}");
        let body = futures::stream::iter([Ok::<_, io::Error>(bytes::Bytes::copy_from_slice(
            &xz[..cut],
        ))]);
        let mut s = lzflow::stream::XzDecoderStream::new(body);
        let e = loop {
            match s.next().await {
                Some(Err(e)) => break e,
                Some(Ok(_)) => {}
                None => panic!("stream cut at {cut}: no error"),
            }
        };
        assert_eq!(e.kind(), io::ErrorKind::UnexpectedEof, "stream {cut}");
        assert!(is::<XzError>(&e), "stream cut at {cut}: {e:?}");
    }
}

#[test]
fn zip_entries_cut_short_report_the_zip_error() {
    use lzflow::zip::{EntryOptions, ZipError, ZipStreamReader, ZipWriter};
    let data = text();
    let mut w = ZipWriter::new_streaming(Vec::new()).unwrap();
    w.add_file("t.txt", &data[..], &EntryOptions::default())
        .unwrap();
    let zip = w.finish().unwrap();
    let mut z = ZipStreamReader::new(&zip[..zip.len() / 2]);
    let mut e = z.next_entry().unwrap().unwrap();
    let err = read_err(&mut e);
    assert_eq!(err.kind(), io::ErrorKind::UnexpectedEof);
    assert!(is::<ZipError>(&err), "{err:?}");
}

/// Each layer of an error chain says its own part once: no layer's
/// `Display` repeats its source's (so anyhow-style chain printers print
/// each failure once).
fn assert_chain_says_each_part_once(e: &(dyn std::error::Error + 'static)) {
    let mut layer: Option<&(dyn std::error::Error + 'static)> = Some(e);
    while let Some(l) = layer {
        let text = l.to_string();
        if let Some(src) = l.source() {
            let inner = src.to_string();
            assert!(
                inner.is_empty() || !text.contains(&inner),
                "{text:?} repeats its source {inner:?}"
            );
        }
        layer = l.source();
    }
}

#[test]
fn error_chains_say_each_part_once() {
    use lzflow::zip::{EntryOptions, ZipArchive, ZipWriter};
    let data = text();
    // A zip entry whose Deflate data is damaged.
    let mut w = ZipWriter::new(io::Cursor::new(Vec::new())).unwrap();
    w.add_file("t.txt", &data[..], &EntryOptions::default())
        .unwrap();
    let mut zip = w.finish().unwrap().into_inner();
    for b in &mut zip[60..200] {
        *b ^= 0x5A;
    }
    let mut a = ZipArchive::open(io::Cursor::new(zip)).unwrap();
    let err = match a.reader(0) {
        Ok(r) => read_err(r),
        Err(e) => io::Error::from(e),
    };
    let typed = err.get_ref().expect("a typed error inside");
    assert_chain_says_each_part_once(typed);
    // Corrupt and truncated .xz, through the std face.
    let mut xz = Vec::new();
    {
        let mut w = lzflow::write::XzEncoder::new(&mut xz, 1);
        encoded(&mut w, &data);
        w.finish().unwrap();
    }
    let mut bad = xz.clone();
    let n = bad.len();
    bad[n / 2] ^= 0xFF;
    for input in [&bad[..], &xz[..n / 2]] {
        let err = read_err(lzflow::read::XzDecoder::new(input));
        assert_chain_says_each_part_once(err.get_ref().expect("typed"));
    }
}
