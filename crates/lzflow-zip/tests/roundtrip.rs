//! Random trees written and read back: names (ASCII and not), sizes from
//! 0 to 1 MiB, every method, AES and ZipCrypto, a sink that seeks and one
//! that does not, one thread and two. What comes back through
//! `ZipArchive`, `ZipStreamReader` and the `zip` crate is what went in;
//! the two thread counts write the same bytes.

use std::collections::BTreeSet;
use std::io::{Cursor, Read, Write};

use lzflow_zip::{
    AesStrength, Encryption, EntryOptions, WriteMethod, ZipArchive, ZipOptions, ZipStreamReader,
    ZipWriter, ZipWriterOptions,
};
use proptest::prelude::*;

mod common;
use common::Rng;

const PASSWORD: &[u8] = b"round trip";

#[derive(Debug, Clone)]
struct Spec {
    name: String,
    size: usize,
    text: bool,
    method: WriteMethod,
    level: u32,
    /// 0 none, 1 AES-256 (AE-2), 2 AES-128 (AE-1), 3 ZipCrypto.
    crypt: u8,
}

fn method() -> impl Strategy<Value = WriteMethod> {
    prop_oneof![
        Just(WriteMethod::Stored),
        Just(WriteMethod::Deflate),
        Just(WriteMethod::BZip2),
        Just(WriteMethod::Lzma),
        Just(WriteMethod::Xz),
    ]
}

fn size() -> impl Strategy<Value = usize> {
    prop_oneof![
        4 => 0usize..5_000,
        2 => 60_000usize..70_000,
        1 => 100_000usize..(1 << 20),
    ]
}

fn spec() -> impl Strategy<Value = Spec> {
    (
        "[a-zA-Z0-9_é漢-]{1,10}(/[a-z0-9ü]{1,6}){0,2}",
        size(),
        any::<bool>(),
        method(),
        0u32..10,
        0u8..4,
    )
        .prop_map(|(name, size, text, method, level, crypt)| Spec {
            name,
            size,
            text,
            method,
            level,
            crypt,
        })
}

fn encryption(crypt: u8) -> Encryption {
    let password = zeroize::Zeroizing::new(PASSWORD.to_vec());
    match crypt {
        1 => Encryption::Aes {
            strength: AesStrength::Aes256,
            ae1: false,
            password,
        },
        2 => Encryption::Aes {
            strength: AesStrength::Aes128,
            ae1: true,
            password,
        },
        3 => Encryption::ZipCryptoWeak { password },
        _ => Encryption::None,
    }
}

fn data(spec: &Spec, seed: u64) -> Vec<u8> {
    let mut rng = Rng(seed | 1);
    if spec.text {
        rng.text(spec.size)
    } else {
        rng.bytes(spec.size)
    }
}

fn write(entries: &[(Spec, Vec<u8>)], seekable: bool, threads: usize) -> Vec<u8> {
    fn fill<W: Write>(mut w: ZipWriter<W>, entries: &[(Spec, Vec<u8>)]) -> W {
        for (spec, data) in entries {
            let o = EntryOptions::default()
                .with_method(spec.method, spec.level)
                .with_encryption(encryption(spec.crypt));
            w.add_file(&spec.name, &data[..], &o).unwrap();
        }
        w.finish().unwrap()
    }
    let o = ZipWriterOptions::new().with_threads(threads);
    if seekable {
        fill(
            ZipWriter::new_with(Cursor::new(Vec::new()), o).unwrap(),
            entries,
        )
        .into_inner()
    } else {
        fill(
            ZipWriter::new_streaming_with(Vec::new(), o).unwrap(),
            entries,
        )
    }
}

/// (name, data) through lzflow's two readers (which must agree) and the
/// `zip` crate.
fn read(zip: &[u8]) -> Vec<(String, Vec<u8>)> {
    let options = || ZipOptions::new().with_password(PASSWORD);
    let mut a = ZipArchive::open_with(Cursor::new(zip), options()).unwrap();
    let mut got = Vec::new();
    for i in 0..a.len() {
        let name = a.directory().get(i).unwrap().name().into_owned();
        let mut d = Vec::new();
        a.reader(i).unwrap().read_to_end(&mut d).unwrap();
        got.push((name, d));
    }
    let mut z = ZipStreamReader::with_options(zip, options());
    let mut streamed = Vec::new();
    while let Some(mut e) = z.next_entry().unwrap() {
        let name = e.name().into_owned();
        let mut d = Vec::new();
        e.read_to_end(&mut d).unwrap();
        streamed.push((name, d));
    }
    assert_eq!(streamed, got, "ZipStreamReader and ZipArchive differ");
    // The zip crate reads neither LZMA-in-zip with our EOS flag nor XZ at
    // this version's features: the others only.
    let mut other = zip::ZipArchive::new(Cursor::new(zip)).unwrap();
    for (i, (name, data)) in got.iter().enumerate() {
        let method = other.by_index_raw(i).unwrap().compression();
        if !matches!(
            method,
            zip::CompressionMethod::Stored
                | zip::CompressionMethod::Deflated
                | zip::CompressionMethod::Bzip2
        ) {
            continue;
        }
        let mut e = if other.by_index_raw(i).unwrap().encrypted() {
            other.by_index_decrypt(i, PASSWORD).unwrap()
        } else {
            other.by_index(i).unwrap()
        };
        assert_eq!(e.name(), name);
        let mut d = Vec::new();
        e.read_to_end(&mut d).unwrap();
        assert!(d == *data, "the zip crate reads other bytes for {name}");
    }
    got
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    #[test]
    fn random_trees_read_back(
        specs in proptest::collection::vec(spec(), 1..7),
        seekable in any::<bool>(),
        seed in any::<u64>(),
    ) {
        // Names are unique in an archive.
        let mut seen = BTreeSet::new();
        let entries: Vec<(Spec, Vec<u8>)> = specs
            .into_iter()
            .filter(|s| seen.insert(s.name.clone()))
            .enumerate()
            .map(|(i, s)| {
                let d = data(&s, seed.wrapping_add(i as u64));
                (s, d)
            })
            .collect();
        let one = write(&entries, seekable, 1);
        let want: Vec<(String, Vec<u8>)> =
            entries.iter().map(|(s, d)| (s.name.clone(), d.clone())).collect();
        prop_assert_eq!(read(&one), want.clone());
        let two = write(&entries, seekable, 2);
        let random = entries.iter().any(|(s, _)| s.crypt != 0);
        if random {
            // Salts and encryption headers are random: read back instead.
            prop_assert_eq!(read(&two), want);
        } else {
            prop_assert!(two == one, "two threads wrote other bytes");
        }
    }
}
