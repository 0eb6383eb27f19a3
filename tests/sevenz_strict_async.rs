//! The async 7z reader is as strict as the std one (they share the checks
//! in lzflow-7z): an entry of zero bytes has its stored CRC checked, and
//! packed bytes after a folder's data are a data error.

use std::io::Cursor;

use lzflow::sevenz::{AsyncArchive, SevenZError};
use tokio::io::AsyncReadExt;

fn crc32(data: &[u8]) -> u32 {
    let mut c = !0u32;
    for &b in data {
        c ^= u32::from(b);
        for _ in 0..8 {
            c = if c & 1 != 0 {
                (c >> 1) ^ 0xEDB8_8320
            } else {
                c >> 1
            };
        }
    }
    !c
}

/// A 7z archive of one Copy folder holding `files` (names and data, every
/// size below 128), with `crcs` stored for them and `extra` packed bytes
/// after the data.
fn copy_archive(files: &[(&str, &[u8])], crcs: &[u32], extra: &[u8]) -> Vec<u8> {
    let data: Vec<u8> = files.iter().flat_map(|(_, d)| d.iter().copied()).collect();
    let packed = [&data[..], extra].concat();
    let mut h = vec![0x01, 0x04, 0x06, 0x00, 0x01, 0x09, packed.len() as u8, 0x00];
    h.extend([
        0x07,
        0x0B,
        0x01,
        0x00,
        0x01,
        0x01,
        0x00,
        0x0C,
        data.len() as u8,
        0x00,
    ]);
    h.extend([0x08, 0x0D, files.len() as u8, 0x09]);
    h.extend(files[..files.len() - 1].iter().map(|(_, d)| d.len() as u8));
    h.extend([0x0A, 0x01]);
    for c in crcs {
        h.extend(c.to_le_bytes());
    }
    h.extend([0x00, 0x00, 0x05, files.len() as u8]);
    let mut names = vec![0u8];
    for (n, _) in files {
        for u in n.encode_utf16().chain([0]) {
            names.extend(u.to_le_bytes());
        }
    }
    h.extend([0x11, names.len() as u8]);
    h.extend(names);
    h.extend([0x00, 0x00]);
    let mut start = Vec::new();
    start.extend((packed.len() as u64).to_le_bytes());
    start.extend((h.len() as u64).to_le_bytes());
    start.extend(crc32(&h).to_le_bytes());
    let mut out = vec![b'7', b'z', 0xBC, 0xAF, 0x27, 0x1C, 0, 4];
    out.extend(crc32(&start).to_le_bytes());
    out.extend(start);
    out.extend(packed);
    out.extend(h);
    out
}

/// Walks every entry, reading all data.
async fn walk(archive: Vec<u8>) -> Result<Vec<String>, SevenZError> {
    let mut a = AsyncArchive::open(Cursor::new(archive)).await?;
    let mut entries = a.entries_stream();
    let mut names = Vec::new();
    while let Some(e) = entries.next_entry().await? {
        let mut data = Vec::new();
        entries.read_to_end(&mut data).await?;
        names.push(e.name);
    }
    Ok(names)
}

#[tokio::test]
async fn a_zero_length_entry_has_its_crc_checked() {
    let files: [(&str, &[u8]); 2] = [("a", b"hello"), ("e", b"")];
    let good = copy_archive(&files, &[crc32(b"hello"), 0], &[]);
    assert_eq!(walk(good).await.unwrap(), ["a", "e"]);
    let bad = copy_archive(&files, &[crc32(b"hello"), 1234], &[]);
    let r = walk(bad.clone()).await;
    assert!(
        matches!(&r, Err(SevenZError::DataCrc { entry }) if entry == "e"),
        "{r:?}"
    );
    // The single-entry reader too.
    let mut a = AsyncArchive::open(Cursor::new(bad)).await.unwrap();
    let mut data = Vec::new();
    let e = a.reader(1).await.unwrap().read_to_end(&mut data).await;
    assert!(matches!(
        SevenZError::from(e.unwrap_err()),
        SevenZError::DataCrc { entry } if entry == "e"
    ));
}

#[tokio::test]
async fn packed_bytes_after_the_data_are_a_data_error() {
    let files: [(&str, &[u8]); 1] = [("a", b"hello")];
    let r = walk(copy_archive(&files, &[crc32(b"hello")], b"!")).await;
    assert!(
        matches!(&r, Err(SevenZError::DataSize { folder, .. }) if folder == "folder 0"),
        "{r:?}"
    );
}
