//! A damaged archive reads the same on two threads as on one: the same
//! entries, the same bytes and the same error, wherever the damage is.
//! On threads, folders are read ahead in runs and decoded side by side by
//! workers, which must check everything the one-thread walk checks (found
//! by fuzzing, `sevenz_mt_same`: a worker stopped at the folder's size and
//! never checked the end of its LZMA2 stream or the folder's CRC).

use std::io::Cursor;

use lzflow_7z::{Archive, ArchiveOptions, EntryMeta, Method, Solid, Writer, WriterOptions};

/// Every entry's name and bytes as read, and the error that ended the
/// walk.
type Walk = (Vec<(String, Vec<u8>)>, Option<String>);

fn walk(archive: &[u8], threads: usize) -> Walk {
    let opts = ArchiveOptions::default().with_threads(threads);
    let mut r = match Archive::open_with(Cursor::new(archive), opts) {
        Ok(r) => r,
        Err(e) => return (Vec::new(), Some(format!("{e:?}"))),
    };
    let mut got = Vec::new();
    let end = r.for_each_entry(|e, rd| {
        let mut v = Vec::new();
        let res = rd.read_to_end(&mut v);
        got.push((e.name.clone(), v));
        res.map(drop)
    });
    (got, end.err().map(|e| format!("{e:?}")))
}

/// Small text-like files, different enough that each compresses alone.
fn files() -> Vec<Vec<u8>> {
    let words: [&[u8]; 6] = [b"folder ", b"pack ", b"stream ", b"the ", b"of ", b"\n"];
    let mut x = 0x2545_F491u32;
    (0..24)
        .map(|i| {
            let mut f = Vec::new();
            while f.len() < 60 + 37 * i {
                x ^= x << 13;
                x ^= x >> 17;
                x ^= x << 5;
                f.extend_from_slice(words[(x % 6) as usize]);
            }
            f
        })
        .collect()
}

fn archive(method: Method, solid: Solid) -> Vec<u8> {
    let opts = WriterOptions::default()
        .with_method(method)
        .with_level(0)
        .with_solid(solid);
    let mut w = Writer::with_options(Cursor::new(Vec::new()), opts).unwrap();
    for (i, f) in files().iter().enumerate() {
        w.add_file(&format!("f{i}"), &f[..], EntryMeta::default())
            .unwrap();
    }
    w.finish().unwrap().into_inner()
}

#[test]
fn damage_anywhere_reads_the_same_on_two_threads() {
    let mut errors = 0;
    for (method, solid) in [
        (Method::Lzma2, Solid::Files(2)),
        (Method::Lzma2, Solid::None),
        (Method::Lzma, Solid::Files(3)),
    ] {
        let good = archive(method, solid);
        let clean = walk(&good, 1);
        assert_eq!(clean.1, None);
        assert_eq!(walk(&good, 2), clean);
        // Every byte of the packed streams (they start at 32) and of the
        // headers, in three ways.
        for at in 32..good.len() {
            for xor in [0x01, 0x80, 0xFF] {
                let mut bad = good.clone();
                bad[at] ^= xor;
                let one = walk(&bad, 1);
                errors += usize::from(one.1.is_some());
                let two = walk(&bad, 2);
                assert_eq!(two.1, one.1, "{method:?} {solid:?}: byte {at} ^ {xor:#x}");
                assert!(
                    two.0 == one.0,
                    "{method:?} {solid:?}: byte {at} ^ {xor:#x}: entries differ"
                );
            }
        }
    }
    // Most damage is caught (the rest: bits the formats do not use).
    assert!(errors > 1000, "{errors} errors");
}

#[test]
fn a_filter_gives_what_it_holds_before_the_error_of_the_coder_feeding_it() {
    // Found by fuzzing (sevenz_mt_same, from the fixture): with LZMA2
    // damaged under BCJ, the one-thread walk gave 50,432 bytes before the
    // error and the two-thread walk 32, because BCJ held the rest of what
    // the multi-threaded decoder had handed it in one piece when that
    // decoder's error came.
    let fixture = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../fixtures/generated/7z/bcj-lzma2-elf.7z"
    );
    let mut bad = std::fs::read(fixture).unwrap();
    // Byte 16,982 (1-based, as `cmp -l` counts): 0o325 -> 0o327.
    bad[16_981] ^= 0x02;
    let one = walk(&bad, 1);
    assert!(one
        .1
        .as_deref()
        .is_some_and(|e| e.contains("DistanceTooFar")));
    assert_eq!(one.0[0].1.len(), 50_432);
    let two = walk(&bad, 2);
    assert_eq!(two.1, one.1);
    assert!(two.0 == one.0, "entries differ");
}
