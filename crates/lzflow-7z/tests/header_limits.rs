//! The header-size and entry-count caps are `ArchiveOptions` limits with
//! their own typed errors, and a valid archive beyond the default entry cap
//! opens once the caller raises it.

use std::io::Cursor;

use lzflow_7z::{Archive, ArchiveOptions, LimitExceeded, SevenZError};

/// A 7z number (7zFormat.txt's variable-length form), short forms only up
/// to 2^21, the 9-byte form beyond.
fn number(out: &mut Vec<u8>, v: u64) {
    if v < 0x80 {
        out.push(v as u8);
    } else if v < 0x4000 {
        out.extend_from_slice(&[0x80 | (v >> 8) as u8, v as u8]);
    } else if v < 0x20_0000 {
        out.extend_from_slice(&[0xC0 | (v >> 16) as u8, v as u8, (v >> 8) as u8]);
    } else {
        out.push(0xFF);
        out.extend_from_slice(&v.to_le_bytes());
    }
}

/// An archive of `n` empty files named `f`: no streams, a plain header
/// with kEmptyStream and kEmptyFile all set and 4 bytes of name each.
fn empty_files(n: u64) -> Vec<u8> {
    let bits = n.div_ceil(8) as usize;
    let mut h = vec![0x01, 0x05];
    number(&mut h, n);
    for id in [0x0E, 0x0F] {
        h.push(id);
        number(&mut h, bits as u64);
        h.extend(std::iter::repeat_n(0xFF, bits));
    }
    h.push(0x11);
    number(&mut h, 1 + 4 * n);
    h.push(0);
    for _ in 0..n {
        h.extend_from_slice(&[b'f', 0, 0, 0]);
    }
    h.extend_from_slice(&[0x00, 0x00]);
    let mut start = Vec::new();
    start.extend_from_slice(&0u64.to_le_bytes());
    start.extend_from_slice(&(h.len() as u64).to_le_bytes());
    start.extend_from_slice(&crc32fast::hash(&h).to_le_bytes());
    let mut out = vec![b'7', b'z', 0xBC, 0xAF, 0x27, 0x1C, 0, 4];
    out.extend_from_slice(&crc32fast::hash(&start).to_le_bytes());
    out.extend_from_slice(&start);
    out.extend_from_slice(&h);
    out
}

#[test]
fn four_million_empty_entries_open_once_the_cap_is_raised() {
    const N: u64 = 4_000_000;
    let bytes = empty_files(N);
    let err = Archive::open(Cursor::new(&bytes[..])).unwrap_err();
    match err {
        SevenZError::Limit(LimitExceeded::Entries { count, limit }) => {
            assert_eq!((count, limit), (N, 1 << 20));
        }
        other => panic!("{other:?}"),
    }
    let options = ArchiveOptions::default().with_max_entries(N as usize);
    let a = Archive::open_with(Cursor::new(&bytes[..]), options).unwrap();
    assert_eq!(a.entries().len(), N as usize);
    let last = &a.entries()[N as usize - 1];
    assert_eq!(
        (last.name.as_str(), last.size, last.is_dir),
        ("f", 0, false)
    );
}

#[test]
fn the_header_size_cap_is_its_own_limit() {
    let bytes = empty_files(1000);
    let options = ArchiveOptions::default().with_max_header_size(1000);
    match Archive::open_with(Cursor::new(&bytes[..]), options).unwrap_err() {
        SevenZError::Limit(LimitExceeded::HeaderSize { needed, limit }) => {
            assert_eq!((needed, limit), (bytes.len() as u64 - 32, 1000));
        }
        other => panic!("{other:?}"),
    }
    let options = ArchiveOptions::default().with_max_header_size(bytes.len() as u64 - 32);
    assert_eq!(
        Archive::open_with(Cursor::new(&bytes[..]), options)
            .unwrap()
            .entries()
            .len(),
        1000
    );
}
