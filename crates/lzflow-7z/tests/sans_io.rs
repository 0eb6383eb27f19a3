//! The folder decoder as a plain sans-I/O `Decode`: packed bytes in, any
//! split, the folder's output out.

use std::path::PathBuf;

use lzflow_7z::{Archive, ArchiveOptions, FolderStep, IndexBuilder, SevenZError};
use lzflow_core::{Decode, InBuf, OutBuf, Progress};

fn fixture(name: &str) -> Vec<u8> {
    std::fs::read(
        PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("../../fixtures/generated/7z")
            .join(name),
    )
    .unwrap()
}

#[test]
fn folder_decoder_is_split_independent() {
    for (name, pw) in [
        ("lzma2.7z", None),
        ("bzip2.7z", None),
        ("aes.7z", Some("fixture-pass")),
    ] {
        let file = fixture(name);
        let mut opts = ArchiveOptions::default();
        if let Some(p) = pw {
            opts = opts.with_password(p);
        }
        let mut a = Archive::open_with(std::io::Cursor::new(file.clone()), opts).unwrap();
        // The folder's output is its entries' data in order.
        let mut want = Vec::new();
        a.for_each_entry(|_, r| r.read_to_end(&mut want).map(drop))
            .unwrap();
        for split in [1usize, 3, 1000, usize::MAX] {
            let mut dec = a.index().folder_decoder(0).unwrap();
            let FolderStep::NeedPack(req) = dec.read(&mut [0u8; 1]).unwrap() else {
                panic!("{name}: a fresh folder needs packed bytes");
            };
            let packed = &file[req.offset as usize..];
            let mut got = Vec::new();
            let mut pos: usize = 0;
            let mut out = vec![0u8; 777];
            loop {
                let end = pos.saturating_add(split).min(packed.len());
                let mut input = InBuf::new(&packed[pos..end]).with_last(end == packed.len());
                let mut output = OutBuf::new(&mut out);
                let p = dec.decode(&mut input, &mut output).unwrap();
                pos += input.pos();
                got.extend_from_slice(output.written());
                if p == Progress::StreamEnd {
                    break;
                }
            }
            assert_eq!(got.len(), want.len(), "{name} split {split}");
            assert!(got == want, "{name} split {split}");
        }
    }
}

#[test]
fn index_builder_works_from_byte_slices() {
    let file = fixture("header-uncompressed.7z");
    let mut b = IndexBuilder::new(ArchiveOptions::default());
    let sig = b
        .start(file[..32].try_into().unwrap(), Some(file.len() as u64))
        .unwrap();
    let at = sig.header_position().unwrap() as usize;
    let lzflow_7z::HeaderStep::Index(index) = b
        .header(&sig, &file[at..at + sig.next_header_size as usize])
        .unwrap()
    else {
        panic!("a plain header needs no decoding");
    };
    assert_eq!(index.entries().len(), 9);
    assert_eq!(index.folder_count(), 1);
    // A header byte changed: the CRC catches it.
    let mut bad = file[at..at + sig.next_header_size as usize].to_vec();
    bad[3] ^= 1;
    assert!(matches!(b.header(&sig, &bad), Err(SevenZError::HeaderCrc)));
}
