//! `detect`, `decoder` and `open_archive`: the format from the bytes, not
//! the name, for every format lzflow reads.

use std::io::{self, Cursor, Read, Write};

use lzflow::{decoder, detect, open_archive, Format};

fn text() -> Vec<u8> {
    (0..5_000u32)
        .flat_map(|i| format!("line {i}\n").into_bytes())
        .collect()
}

fn streams(data: &[u8]) -> Vec<(Format, Vec<u8>)> {
    let mut xz = lzflow::write::XzEncoder::new(Vec::new(), 1);
    xz.write_all(data).unwrap();
    let mut lzma = lzflow::write::LzmaEncoder::new(Vec::new(), 1);
    lzma.write_all(data).unwrap();
    let mut lz = lzflow::write::LzipEncoder::new(Vec::new(), 1);
    lz.write_all(data).unwrap();
    vec![
        (Format::Xz, xz.finish().unwrap()),
        (Format::Lzma, lzma.finish().unwrap()),
        (Format::Lzip, lz.finish().unwrap()),
    ]
}

fn archives(data: &[u8]) -> Vec<(Format, Vec<u8>)> {
    use lzflow::zip::{EntryOptions, ZipWriter};
    let mut z = ZipWriter::new(Cursor::new(Vec::new())).unwrap();
    z.add_file("t.txt", data, &EntryOptions::default()).unwrap();
    let zip = z.finish().unwrap().into_inner();
    let mut w = lzflow::sevenz_writer::Writer::new(Cursor::new(Vec::new())).unwrap();
    w.add_file("t.txt", data, lzflow::sevenz_writer::EntryMeta::default())
        .unwrap();
    let sz = w.finish().unwrap().into_inner();
    vec![(Format::Zip, zip), (Format::SevenZ, sz)]
}

#[test]
fn every_format_is_told_by_its_bytes() {
    let data = text();
    for (format, bytes) in streams(&data).into_iter().chain(archives(&data)) {
        assert_eq!(detect(&bytes[..13]), Some(format));
        assert_eq!(
            format.is_archive(),
            matches!(format, Format::Zip | Format::SevenZ)
        );
    }
    assert_eq!(detect(b"hello, world!"), None);
    assert_eq!(detect(b""), None);
    // An empty zip archive is its end record alone.
    assert_eq!(detect(b"PK\x05\x06\0\0\0\0\0\0\0\0\0"), Some(Format::Zip));
}

#[test]
fn decoder_reads_each_stream_and_refuses_archives() {
    let data = text();
    for (format, bytes) in streams(&data) {
        // A reader that gives a byte at a time still gets its head read.
        struct Trickle<'a>(&'a [u8]);
        impl Read for Trickle<'_> {
            fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
                let n = self.0.len().min(buf.len()).min(1);
                buf[..n].copy_from_slice(&self.0[..n]);
                self.0 = &self.0[n..];
                Ok(n)
            }
        }
        let mut d = decoder(Trickle(&bytes)).unwrap();
        assert_eq!(d.format(), format);
        let mut out = Vec::new();
        d.read_to_end(&mut out).unwrap();
        assert_eq!(out, data, "{format:?}");
    }
    for (format, bytes) in archives(&data) {
        let e = decoder(&bytes[..]).unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::InvalidData, "{format:?}");
    }
    let e = decoder(&b"plain text, nothing else"[..]).unwrap_err();
    assert_eq!(e.kind(), io::ErrorKind::InvalidData);
}

#[test]
fn open_archive_opens_7z_zip_and_self_extracting_zip() {
    let data = text();
    for (format, bytes) in archives(&data) {
        let mut a = open_archive(Cursor::new(bytes)).unwrap();
        assert_eq!(a.format(), format);
        assert_eq!(a.names(), ["t.txt"]);
        let dir = std::env::temp_dir().join(format!(
            "lzflow-front-door-{}-{format:?}",
            std::process::id()
        ));
        let _ = std::fs::remove_dir_all(&dir);
        a.extract_to_with(&dir, &lzflow::extract::ExtractOptions::default())
            .unwrap();
        assert_eq!(std::fs::read(dir.join("t.txt")).unwrap(), data);
        std::fs::remove_dir_all(&dir).unwrap();
    }
    // A stub in front of a zip archive: found by its end record.
    let zip = archives(&data).remove(0).1;
    let mut sfx = b"#!/bin/sh\necho a self-extracting stub\nexit 0\n".to_vec();
    sfx.extend_from_slice(&zip);
    let a = open_archive(Cursor::new(sfx)).unwrap();
    assert_eq!((a.format(), a.len()), (Format::Zip, 1));
    // Streams and other data are not archives.
    for (_, bytes) in streams(&data) {
        let e = open_archive(Cursor::new(bytes)).unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::InvalidData);
    }
    let e = open_archive(Cursor::new(b"not an archive at all".to_vec())).unwrap_err();
    assert_eq!(e.kind(), io::ErrorKind::InvalidData);
}

/// The tokio 7z writer's `add_path` writes the bytes of the blocking
/// writer's: the same walk, names, links and `EntryMeta::from_metadata`.
#[tokio::test]
async fn tokio_7z_add_path_writes_what_the_blocking_one_writes() {
    use lzflow::sevenz_writer::{AsyncWriter, EntryMeta, Writer};
    let dir = std::env::temp_dir().join(format!("lzflow-7z-add-path-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("tree/sub/deeper")).unwrap();
    std::fs::write(dir.join("tree/b.txt"), text()).unwrap();
    std::fs::write(dir.join("tree/a.txt"), b"a").unwrap();
    std::fs::write(dir.join("tree/sub/deeper/empty"), b"").unwrap();
    #[cfg(unix)]
    std::os::unix::fs::symlink("../a.txt", dir.join("tree/sub/link")).unwrap();
    // Read (and list) once, so that neither walk moves an access time the
    // other sees; after a pause, since file times tick in jiffies (a read
    // within the tick of the creation leaves the access time as it was).
    std::thread::sleep(std::time::Duration::from_millis(50));
    for f in ["tree/b.txt", "tree/a.txt", "tree/sub/deeper/empty"] {
        std::fs::read(dir.join(f)).unwrap();
    }
    for d in ["tree", "tree/sub", "tree/sub/deeper"] {
        std::fs::read_dir(dir.join(d)).unwrap().for_each(drop);
    }
    #[cfg(unix)]
    std::fs::read_link(dir.join("tree/sub/link")).unwrap();
    let mut w = Writer::new(Cursor::new(Vec::new())).unwrap();
    w.add_path(dir.join("tree"), "top").unwrap();
    let blocking = w.finish().unwrap().into_inner();
    let mut w = AsyncWriter::new(Cursor::new(Vec::new())).await.unwrap();
    w.add_path(dir.join("tree"), "top").await.unwrap();
    let tokio = w.finish().await.unwrap().into_inner();
    assert!(tokio == blocking, "other bytes");
    // Entries by name, blocking and async.
    let mut a = lzflow::sevenz::Archive::open(Cursor::new(blocking.clone())).unwrap();
    let i = a.index_of("top/b.txt").unwrap();
    let mut got = Vec::new();
    a.reader(i).unwrap().read_to_end(&mut got).unwrap();
    assert_eq!(got, text());
    assert_eq!(a.index_of("top/nothing"), None);
    let mut aa = lzflow::sevenz::AsyncArchive::open(Cursor::new(blocking.clone()))
        .await
        .unwrap();
    let i = aa.index_of("top/a.txt").unwrap();
    let mut got = Vec::new();
    tokio::io::AsyncReadExt::read_to_end(&mut aa.reader(i).await.unwrap(), &mut got)
        .await
        .unwrap();
    assert_eq!(got, b"a");
    let names: Vec<&str> = a.entries().iter().map(|e| e.name.as_str()).collect();
    let mut want = vec![
        "top",
        "top/a.txt",
        "top/b.txt",
        "top/sub",
        "top/sub/deeper",
        "top/sub/deeper/empty",
    ];
    if cfg!(unix) {
        want.push("top/sub/link");
    }
    let mut sorted = names.clone();
    sorted.sort();
    assert_eq!(sorted, want);
    let md = std::fs::metadata(dir.join("tree/b.txt")).unwrap();
    assert_eq!(EntryMeta::from_metadata(&md).mtime, md.modified().ok());
    std::fs::remove_dir_all(&dir).unwrap();
}
