//! `ZipStreamReader` (forward-only) against every archive of the zip
//! corpus, by the manifest's `stream_expected` column, and the same
//! results whatever sizes the input arrives in; the same entries and bytes
//! as `ZipArchive` where both read an archive.

use std::io::{self, Cursor, Read};

use lzflow_zip::{ZipArchive, ZipError, ZipOptions, ZipStreamReader};
use sha2::{Digest, Sha256};

mod common;
use common::{lzflow_expected, manifest, with_descriptors, Row, CORPUS as DIR};

/// What a row expects of the forward-only reader.
fn expected(row: &Row) -> &str {
    lzflow_expected(row, &row.stream_expected)
}

/// A reader handing out at most a few bytes per call, in a repeating
/// pattern of sizes: the input split at arbitrary places.
struct Trickle<'a> {
    data: &'a [u8],
    sizes: &'a [usize],
    turn: usize,
}

impl Read for Trickle<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let want = self.sizes[self.turn % self.sizes.len()];
        self.turn += 1;
        let n = want.min(buf.len()).min(self.data.len());
        buf[..n].copy_from_slice(&self.data[..n]);
        self.data = &self.data[n..];
        Ok(n)
    }
}

type Entries = Vec<(String, u64, String)>;

/// Reads every entry forward-only, the data `read_size` bytes at a time.
fn stream_all(input: impl Read, password: &str, read_size: usize) -> Result<Entries, ZipError> {
    let mut opts = ZipOptions::new();
    if !password.is_empty() {
        opts = opts.with_password(password);
    }
    let mut z = ZipStreamReader::with_options(input, opts);
    let mut got = Vec::new();
    while let Some(mut entry) = z.next_entry()? {
        let name = entry.name().into_owned();
        let mut data = Vec::new();
        let mut buf = vec![0u8; read_size];
        loop {
            let n = entry.read(&mut buf)?;
            if n == 0 {
                break;
            }
            data.extend_from_slice(&buf[..n]);
        }
        got.push((
            name,
            data.len() as u64,
            format!("{:x}", Sha256::digest(&data)),
        ));
    }
    Ok(got)
}

/// Reads `zip` forward-only (4 KiB reads) from input arriving in each
/// pattern of `splits` (see [`Trickle`]): every time exactly `want`.
fn streams_in_pieces(zip: &[u8], password: &str, splits: &[&[usize]], want: &Entries, what: &str) {
    for &sizes in splits {
        let input = Trickle {
            data: zip,
            sizes,
            turn: 0,
        };
        let got = stream_all(input, password, 4096);
        assert_eq!(got.as_ref().ok(), Some(want), "{what} {sizes:?}: {got:?}");
    }
}

#[test]
fn every_fixture_streams_as_its_manifest_says() {
    let (mut ok, mut failed, mut unsupported) = (0, 0, 0);
    for (file, rows) in manifest() {
        let bytes = std::fs::read(format!("{DIR}{file}")).unwrap();
        let first = &rows[0];
        let result = stream_all(&bytes[..], &first.password, 64 << 10);
        let expected = if rows.iter().any(|r| expected(r) == "unsupported_ok") {
            "unsupported_ok"
        } else if rows.iter().any(|r| expected(r) == "ok_or_error") {
            "ok_or_error"
        } else {
            expected(first)
        };
        let want: Vec<_> = rows.iter().filter(|r| r.path != "-").collect();
        let check = |got: &Entries| {
            assert_eq!(got.len(), want.len(), "{file}");
            for ((name, size, sha), row) in got.iter().zip(&want) {
                assert_eq!(name, &row.path, "{file}");
                assert_eq!(*size, row.size, "{file} {name}");
                if !row.is_dir {
                    assert_eq!(sha, &row.sha256, "{file} {name}");
                }
            }
        };
        match (expected, result) {
            ("ok", Ok(got)) => {
                check(&got);
                ok += got.len();
            }
            // Rows of a broken archive may list no entries to compare.
            ("ok_or_error", Ok(got)) if !want.is_empty() => check(&got),
            ("ok_or_error", _) => {}
            ("unsupported_ok", Err(e)) => {
                assert!(
                    matches!(e, ZipError::UnsupportedMethod { .. }),
                    "{file}: {e:?}"
                );
                unsupported += 1;
            }
            ("error", Err(e)) => {
                if first.password == "wrong-pass" {
                    assert!(
                        matches!(e, ZipError::WrongPassword | ZipError::DataCrc { .. }),
                        "{file}: {e:?}"
                    );
                }
                failed += 1;
            }
            (expected, result) => panic!("{file}: expected {expected}, got {result:?}"),
        }
    }
    eprintln!("{ok} entries streamed, {failed} bad archives refused, {unsupported} unsupported");
    assert!(ok > 2000, "{ok}");
    // Every method of the corpus decodes (PPMd, the last, since stop 34).
    assert_eq!((failed, unsupported), (7, 0));
}

#[test]
fn results_do_not_depend_on_how_the_input_is_split() {
    let m = manifest();
    let splits: [&[usize]; 3] = [&[1], &[3, 1, 7, 64, 2], &[4096, 1, 65535]];
    for (file, rows) in &m {
        let bytes = std::fs::read(format!("{DIR}{file}")).unwrap();
        if bytes.len() > 300_000 {
            continue; // 1-byte reads of the big ones take long unoptimized
        }
        let password = &rows[0].password;
        let whole = stream_all(&bytes[..], password, 64 << 10).map_err(|e| e.to_string());
        for sizes in splits {
            for read_size in [1, 7, 4096] {
                let input = Trickle {
                    data: &bytes,
                    sizes,
                    turn: 0,
                };
                let split = stream_all(input, password, read_size).map_err(|e| e.to_string());
                assert_eq!(split, whole, "{file} {sizes:?} {read_size}");
            }
        }
    }
}

#[test]
fn both_readers_agree_where_both_read() {
    let mut compared = 0;
    for (file, rows) in manifest() {
        let bytes = std::fs::read(format!("{DIR}{file}")).unwrap();
        let password = &rows[0].password;
        let Ok(streamed) = stream_all(&bytes[..], password, 64 << 10) else {
            continue;
        };
        let mut opts = ZipOptions::new();
        if !password.is_empty() {
            opts = opts.with_password(password);
        }
        let Ok(mut a) = ZipArchive::open_with(Cursor::new(&bytes[..]), opts) else {
            continue;
        };
        let mut seekable = Vec::new();
        for i in 0..a.len() {
            let name = a.directory().get(i).unwrap().name().into_owned();
            let mut data = Vec::new();
            if a.reader(i)
                .and_then(|mut r| Ok(r.read_to_end(&mut data)?))
                .is_err()
            {
                break;
            }
            seekable.push((
                name,
                data.len() as u64,
                format!("{:x}", Sha256::digest(&data)),
            ));
        }
        if seekable.len() == a.len() {
            assert_eq!(streamed, seekable, "{file}");
            compared += 1;
        }
    }
    assert!(compared > 40, "{compared}");
}

#[test]
fn entries_can_be_skipped_unread() {
    let bytes = std::fs::read(format!("{DIR}java/java-deflate-dd.zip")).unwrap();
    let all = stream_all(&bytes[..], "", 4096).unwrap();
    assert!(all.len() > 2);
    let mut z = ZipStreamReader::new(&bytes[..]);
    let mut names = Vec::new();
    let mut last = Vec::new();
    while let Some(mut e) = z.next_entry().unwrap() {
        names.push(e.name().into_owned());
        if names.len() == all.len() {
            e.read_to_end(&mut last).unwrap();
        }
    }
    let want: Vec<_> = all.iter().map(|e| e.0.clone()).collect();
    assert_eq!(names, want);
    assert_eq!(
        format!("{:x}", Sha256::digest(&last)),
        all.last().unwrap().2
    );
    // After the last entry: the central directory is next.
    let (_, rest) = z.into_parts();
    assert_eq!(&rest[..4], b"PK\x01\x02");
}

#[test]
fn not_a_zip_and_empty_input() {
    let mut z = ZipStreamReader::new(&b""[..]);
    assert!(matches!(z.next_entry(), Err(ZipError::NotZip)));
    let mut z = ZipStreamReader::new(&b"hello, not a zip"[..]);
    assert!(matches!(z.next_entry(), Err(ZipError::NotZip)));
    // An empty archive: only the end record.
    let mut empty = b"PK\x05\x06".to_vec();
    empty.extend_from_slice(&[0; 18]);
    let mut z = ZipStreamReader::new(&empty[..]);
    assert!(z.next_entry().unwrap().is_none());
}

/// An AES entry of unknown length (with a data descriptor) whose whole
/// rest of the archive is already in the reader's buffer when it starts
/// (the entry before it read ahead): its decryptor reaches the end of the
/// input within the data's first call, which is not a truncation. Found
/// by tests/roundtrip.rs.
#[test]
fn an_aes_entry_of_unknown_length_ending_near_the_archive_end() {
    use lzflow_zip::{EntryOptions, WriteMethod, ZipWriter};
    let mut w = ZipWriter::new_streaming(Vec::new()).unwrap();
    let first = common::Rng(5).bytes(65_537);
    let second = common::Rng(6).text(65_537);
    let aes = |m| {
        EntryOptions::default()
            .with_method(m, 1)
            .with_password("pw")
    };
    w.add_file("a", &first[..], &aes(WriteMethod::Stored))
        .unwrap();
    w.add_file("b", &second[..], &aes(WriteMethod::Deflate))
        .unwrap();
    let zip = w.finish().unwrap();
    let mut z = ZipStreamReader::with_options(&zip[..], ZipOptions::new().with_password("pw"));
    for want in [&first, &second] {
        let mut e = z.next_entry().unwrap().unwrap();
        assert!(e.local().header().has_data_descriptor());
        let mut got = Vec::new();
        e.read_to_end(&mut got).unwrap();
        assert!(got == *want, "{}", e.name());
    }
    assert!(z.next_entry().unwrap().is_none());
}

/// Every method's decoder, reading forward-only an entry that only its
/// data descriptor sizes, must stop where its data ends, so that the
/// descriptor is found there: the fixtures of each method rewritten so.
/// Deflate64's inflater (the `deflate64` crate) loads up to 3 bytes past
/// the data into its bit buffer, so its descriptor is looked for within
/// those; whole and in pieces, each entry ends as the seekable reader says.
#[test]
fn every_method_ends_where_its_data_does_when_only_a_descriptor_sizes_it() {
    for file in [
        "7zz/7z-copy.zip",
        "7zz/7z-deflate.zip",
        "7zz/7z-deflate64.zip",
        "7zz/7z-bzip2.zip",
        "7zz/7z-lzma.zip",
        "7zz/7z-ppmd.zip",
        "infozip/iz-level9.zip",
        "infozip/iz-bzip2.zip",
    ] {
        let original = std::fs::read(format!("{DIR}{file}")).unwrap();
        let want = stream_all(&original[..], "", 64 << 10).unwrap();
        let rewritten = with_descriptors(&original, true);
        for read_size in [1, 7, 64 << 10] {
            let got = stream_all(&rewritten[..], "", read_size);
            assert_eq!(
                got.as_ref().ok(),
                Some(&want),
                "{file} {read_size}: {got:?}"
            );
        }
        streams_in_pieces(
            &rewritten,
            "",
            &[&[1], &[3, 1, 7, 64, 2], &[4096, 1, 65535]],
            &want,
            file,
        );
        // The rewritten archive is whole: the seekable reader agrees.
        let mut a = ZipArchive::open(Cursor::new(&rewritten[..])).unwrap();
        assert_eq!(a.len(), want.len(), "{file}");
        for (i, (name, size, _)) in want.iter().enumerate() {
            let mut data = Vec::new();
            a.reader(i).unwrap().read_to_end(&mut data).unwrap();
            assert_eq!(
                (
                    &a.directory().get(i).unwrap().name().into_owned(),
                    data.len() as u64
                ),
                (name, *size)
            );
        }
    }
}

/// PPMd holds a few bytes to resume symbol by symbol, so reading an entry
/// that only its data descriptor sizes, it may have taken bytes past the
/// data when the input arrives in pieces: they are given back, also from
/// behind a decryptor. Entries written by lzflow's streaming writer with
/// PPMd, plain, ZipCrypto and WinZip AES, then a Deflate one; read
/// forward-only with every split, each ends as the seekable reader says.
#[test]
fn ppmd_entries_of_unknown_length_end_where_their_data_does_however_the_input_arrives() {
    use lzflow_zip::{AesStrength, Encryption, EntryOptions, WriteMethod, ZipWriter};
    let password = |p: &[u8]| zeroize::Zeroizing::new(p.to_vec());
    let encryptions = [
        Encryption::None,
        Encryption::ZipCryptoWeak {
            password: password(b"secret"),
        },
        Encryption::Aes {
            strength: AesStrength::Aes256,
            ae1: false,
            password: password(b"secret"),
        },
    ];
    let text: Vec<u8> = (0..40_000u32)
        .flat_map(|i| format!("line {} of {}\n", i % 97, i / 7).into_bytes())
        .collect();
    for encryption in encryptions {
        let mut w = ZipWriter::new_streaming(Vec::new()).unwrap();
        for (i, len) in [1, 100, 4099, 70_001, 300_000].into_iter().enumerate() {
            let options = EntryOptions::default()
                .with_method(WriteMethod::Ppmd, 1 + i as u32 * 2)
                .with_encryption(encryption.clone());
            w.add_file(&format!("p{i}.txt"), &text[..len], &options)
                .unwrap();
        }
        let options = EntryOptions::default().with_encryption(encryption.clone());
        w.add_file("after.txt", &text[..5000], &options).unwrap();
        let zip = w.finish().unwrap();

        let mut a = ZipArchive::open_with(
            Cursor::new(&zip[..]),
            ZipOptions::new().with_password("secret"),
        )
        .unwrap();
        let mut want = Vec::new();
        for i in 0..a.len() {
            let mut data = Vec::new();
            a.reader(i).unwrap().read_to_end(&mut data).unwrap();
            let name = a.directory().get(i).unwrap().name().into_owned();
            want.push((
                name,
                data.len() as u64,
                format!("{:x}", Sha256::digest(&data)),
            ));
        }
        assert_eq!(want.len(), 6);
        streams_in_pieces(
            &zip,
            "secret",
            &[&[1], &[3, 1, 7, 64, 2], &[4096, 1, 65535], &[70_000]],
            &want,
            &format!("{encryption:?}"),
        );
    }
}

/// A BZip2 entry sized only by a data descriptor without its signature,
/// whose CRC-32 starts with "BZ", read forward-only from input arriving a
/// byte at a time: after the stream the decoder takes "BZ", which may
/// start another stream, then gives it back when the next byte is not
/// "h". It used to wait for the third byte without taking the first two,
/// and the reader, which reads on only once its buffer is used up, looped
/// for ever (found by the fuzz target `zip_stream`).
#[test]
fn a_descriptor_that_starts_like_another_bzip2_stream_is_read_in_any_pieces() {
    use lzflow_zip::{EntryOptions, WriteMethod, ZipWriter};
    // Content whose CRC-32 is stored as "BZ..." (a 1 in 65,536 find).
    let content = (0u32..)
        .map(|i| format!("text {i}\n").repeat(40).into_bytes())
        .find(|c| crc32fast::hash(c).to_le_bytes()[..2] == *b"BZ")
        .unwrap();
    let mut w = ZipWriter::new(Cursor::new(Vec::new())).unwrap();
    let options = EntryOptions::default().with_method(WriteMethod::BZip2, 9);
    w.add_file("a.txt", &content[..], &options).unwrap();
    w.add_file("b.txt", &b"after"[..], &EntryOptions::default())
        .unwrap();
    let zip = with_descriptors(&w.finish().unwrap().into_inner(), false);
    let want = vec![
        (
            "a.txt".to_string(),
            content.len() as u64,
            format!("{:x}", Sha256::digest(&content)),
        ),
        (
            "b.txt".to_string(),
            5,
            format!("{:x}", Sha256::digest(b"after")),
        ),
    ];
    streams_in_pieces(&zip, "", &[&[1], &[2, 1], &[3]], &want, "BZip2");
}
