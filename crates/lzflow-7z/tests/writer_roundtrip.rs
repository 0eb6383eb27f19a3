//! Random trees written with random options read back exactly through
//! lzflow's reader: names (Unicode, non-BMP), sizes 0..1 MiB, directories,
//! empty files, every solid mode, BCJ/Delta, Copy/LZMA/LZMA2, encryption
//! with and without header encryption.

mod writer_support;

use lzflow_7z::{Method, SevenZError, Solid, WriterOptions};
use lzflow_filters::{FilterConfig, FilterKind};
use proptest::prelude::*;
use writer_support::{data, expected, read_archive, time, write_archive, Item, Kind};

fn name_part() -> impl Strategy<Value = String> {
    prop_oneof![
        "[a-z0-9_.-]{1,12}",
        "[äöüßéñ日本語кириллица]{1,6}",
        Just("😀 emoji".to_string()),
        Just("𝄞𐍈".to_string()),
        "[a-z]{1,3} [A-Z]{1,3}",
    ]
    .prop_filter("not a dot name", |s| s != "." && s != "..")
}

fn size() -> impl Strategy<Value = usize> {
    prop_oneof![
        4 => 0usize..2048,
        2 => 2048usize..70_000,
        1 => 70_000usize..(1 << 20),
    ]
}

fn item() -> impl Strategy<Value = (Vec<String>, u8, usize, u64, Option<(u64, u32)>)> {
    (
        proptest::collection::vec(name_part(), 1..4),
        0u8..6,
        size(),
        any::<u64>(),
        proptest::option::of((0u64..4_000_000_000, 0u32..10_000_000)),
    )
}

fn tree() -> impl Strategy<Value = Vec<Item>> {
    proptest::collection::vec(item(), 0..10).prop_map(|raw| {
        let mut seen = std::collections::HashSet::new();
        let mut total = 0usize;
        let mut items = Vec::new();
        for (parts, kind, size, seed, t) in raw {
            let name = parts.join("/");
            // A tree that can exist on disk: no entry lies below a file.
            let below_file = |a: &str, b: &str| b.starts_with(a) && b[a.len()..].starts_with('/');
            let clash = items.iter().any(|it: &Item| {
                (it.kind != Kind::Dir && below_file(&it.name, &name))
                    || (kind != 0 && below_file(&name, &it.name))
            });
            if clash || !seen.insert(name.clone()) {
                continue;
            }
            // Keep a case under ~1.5 MiB so debug builds stay quick.
            let size = if total + size > 1_500_000 {
                size % 1000
            } else {
                size
            };
            let kind = match kind {
                0 => Kind::Dir,
                1 => Kind::Empty,
                _ => {
                    total += size;
                    Kind::File(data(seed, size))
                }
            };
            items.push(Item {
                name,
                kind,
                mtime: t.map(|(s, n)| time(s, n)),
            });
        }
        items
    })
}

fn options() -> impl Strategy<Value = WriterOptions> {
    let method = prop_oneof![Just(Method::Lzma2), Just(Method::Lzma), Just(Method::Copy)];
    let solid = prop_oneof![
        Just(Solid::All),
        Just(Solid::None),
        (1u64..4).prop_map(Solid::Files),
        (1u64..200_000).prop_map(Solid::Bytes),
    ];
    let filter = prop_oneof![
        3 => Just(None),
        1 => Just(Some(FilterConfig::new(FilterKind::X86))),
        1 => (1u32..=256).prop_map(|d| Some(FilterConfig::new(FilterKind::Delta).with_distance(d))),
        1 => Just(Some(FilterConfig::new(FilterKind::Arm64))),
    ];
    // 0: none, 1: data, 2: data and header.
    let crypt = 0u8..3;
    (
        method,
        0u32..2,
        solid,
        filter,
        any::<bool>(),
        any::<bool>(),
        crypt,
    )
        .prop_map(
            |(method, level, solid, filter, compress_header, auto_bcj, crypt)| {
                let mut o = WriterOptions::default()
                    .with_method(method)
                    .with_level(level)
                    .with_solid(solid)
                    .with_compress_header(compress_header)
                    .with_auto_bcj(auto_bcj);
                if let Some(f) = filter {
                    o = o.with_filter(f);
                }
                if crypt > 0 {
                    o = o
                        .with_password("prop pässword 😀")
                        .with_aes_cycles_power(3)
                        .with_encrypt_header(crypt == 2);
                }
                o
            },
        )
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 40, ..ProptestConfig::default() })]

    #[test]
    fn random_trees_round_trip(items in tree(), opts in options()) {
        let password = opts.password.clone();
        let encrypt_header = opts.encrypt_header;
        let bytes = write_archive(&items, opts);
        let back = read_archive(&bytes, password.as_deref()).unwrap();
        prop_assert_eq!(back, expected(&items));
        if let Some(p) = password {
            let with_data = items.iter().any(|i| !i.data().is_empty());
            let wrong = read_archive(&bytes, Some(&format!("{p}x")));
            if with_data || (encrypt_header && !items.is_empty()) {
                prop_assert!(
                    matches!(wrong, Err(SevenZError::WrongPassword)),
                    "wrong password gave {:?}", wrong.map(|v| v.len())
                );
            }
        }
    }
}

#[test]
fn identical_input_gives_identical_archives_without_encryption() {
    let items = vec![
        Item::file("a", data(1, 50_000)),
        Item::dir("b"),
        Item::file("b/c", data(2, 3000)),
    ];
    let o = || {
        WriterOptions::default()
            .with_level(1)
            .with_solid(Solid::Files(1))
    };
    assert_eq!(write_archive(&items, o()), write_archive(&items, o()));
    // With encryption the IVs differ from run to run.
    let e = || o().with_password("p").with_aes_cycles_power(2);
    assert_ne!(write_archive(&items, e()), write_archive(&items, e()));
}

#[test]
fn pushed_pieces_give_the_same_archive_as_a_reader() {
    use lzflow_7z::{EntryMeta, Writer};
    use std::io::Cursor;
    let big = data(7, 200_000);
    let o = || WriterOptions::default().with_level(0).with_auto_bcj(true);
    let read = {
        let mut w = Writer::with_options(Cursor::new(Vec::new()), o()).unwrap();
        w.add_file("a.exe", &big[..], EntryMeta::default()).unwrap();
        w.add_file("empty", &[][..], EntryMeta::default()).unwrap();
        w.finish().unwrap().into_inner()
    };
    let pushed = {
        let mut w = Writer::with_options(Cursor::new(Vec::new()), o()).unwrap();
        w.begin_file("a.exe", EntryMeta::default()).unwrap();
        // An entry is open: nothing else may start.
        assert!(matches!(
            w.add_dir("d", EntryMeta::default()),
            Err(SevenZError::WriterUnusable(_))
        ));
        for piece in big.chunks(777) {
            w.write_data(piece).unwrap();
        }
        w.end_file().unwrap();
        w.begin_file("empty", EntryMeta::default()).unwrap();
        w.write_data(&[]).unwrap();
        w.end_file().unwrap();
        assert!(matches!(w.end_file(), Err(SevenZError::WriterUnusable(_))));
        w.finish().unwrap().into_inner()
    };
    assert_eq!(read, pushed);
    let back = read_archive(&pushed, None).unwrap();
    assert_eq!(back[0].data, big);
    assert!(back[1].data.is_empty() && !back[1].is_dir);
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 12, ..ProptestConfig::default() })]

    /// 7-Zip itself extracts random archives byte-exact (`7zz x`).
    #[test]
    fn random_trees_extract_with_7zz(items in tree(), opts in options()) {
        if !writer_support::have_7zz() {
            return Ok(());
        }
        let password = opts.password.clone();
        let bytes = write_archive(&items, opts);
        let dir = writer_support::temp_dir("prop-7zz");
        let archive = dir.join("a.7z");
        std::fs::write(&archive, &bytes).unwrap();
        let out = dir.join("x");
        let pw = format!("-p{}", password.as_deref().unwrap_or(""));
        let (ok, text) = writer_support::run_7zz(&[
            "x", "-bd", "-y", &pw, &format!("-o{}", out.display()), archive.to_str().unwrap(),
        ]);
        prop_assert!(ok, "7zz x failed:\n{}", text);
        for it in &items {
            let p = out.join(&it.name);
            match &it.kind {
                Kind::Dir => prop_assert!(p.is_dir(), "{} is not a directory", it.name),
                _ => prop_assert_eq!(&std::fs::read(&p).unwrap(), &it.data().to_vec(), "{}", it.name),
            }
        }
        std::fs::remove_dir_all(&dir).ok();
    }
}
