//! Folders whose input ends within the writer's hold-back (1 MiB) get an
//! LZ encoder fitted to their size: the coder properties state the small
//! dictionary, `7zz` and lzflow still extract them, and an engine reused
//! from an earlier folder writes the same bytes as a fresh one.

mod writer_support;

use lzflow_7z::{Method, Solid, WriterOptions};
use writer_support::{data, have_7zz, read_archive, run_7zz, temp_dir, write_archive, Item};

/// The `Method = ` lines of `7zz l -slt` (the archive's and one per entry
/// with data), after `7zz t` accepted the archive.
fn methods(bytes: &[u8], name: &str) -> Vec<String> {
    let dir = temp_dir(name);
    let path = dir.join("a.7z");
    std::fs::write(&path, bytes).unwrap();
    let p = path.to_string_lossy().into_owned();
    let (ok, out) = run_7zz(&["t", &p]);
    assert!(ok, "7zz t rejects the archive:\n{out}");
    let (ok, out) = run_7zz(&["l", "-slt", &p]);
    assert!(ok, "{out}");
    let _ = std::fs::remove_dir_all(&dir);
    out.lines()
        .filter_map(|l| l.strip_prefix("Method = "))
        .map(str::to_string)
        .collect()
}

#[test]
fn small_folders_state_a_fitted_dictionary_and_extract() {
    let items = vec![
        Item::file("a.bin", data(1, 3000)),
        Item::file("b.txt", b"fitted dictionaries\n".repeat(200)),
    ];
    for method in [Method::Lzma2, Method::Lzma] {
        let opts = WriterOptions::default()
            .with_level(5)
            .with_method(method)
            .with_solid(Solid::All);
        let bytes = write_archive(&items, opts);
        let back = read_archive(&bytes, None).unwrap();
        assert_eq!(back.len(), 2);
        assert_eq!(back[0].data, items[0].data());
        assert_eq!(back[1].data, items[1].data());
        if !have_7zz() {
            continue;
        }
        // 7,000 bytes: a dictionary of 8 KiB (2^13), not level 5's 32 MiB.
        let m = methods(&bytes, "fitted");
        let want = match method {
            Method::Lzma2 => "LZMA2:13",
            _ => "LZMA:13",
        };
        assert!(!m.is_empty() && m.iter().all(|x| x == want), "{m:?}");
    }
}

#[test]
fn folders_beyond_the_hold_back_keep_the_configured_dictionary() {
    let items = vec![Item::file("big.bin", data(3, (1 << 20) + 5000))];
    let bytes = write_archive(&items, WriterOptions::default().with_level(5));
    assert_eq!(read_archive(&bytes, None).unwrap()[0].data, items[0].data());
    if have_7zz() {
        let m = methods(&bytes, "unfitted");
        // Level 5's 32 MiB, as 7-Zip's -mx5.
        assert!(!m.is_empty() && m.iter().all(|x| x == "LZMA2:25"), "{m:?}");
    }
}

/// Next-header offset from the start header: the bytes of packed streams
/// (the header is stored uncompressed, so nothing else is there).
fn packed_len(archive: &[u8]) -> usize {
    u64::from_le_bytes(archive[12..20].try_into().unwrap()) as usize
}

#[test]
fn a_reused_engine_writes_what_a_fresh_one_writes() {
    let x = Item::file("x.bin", data(5, 5000));
    let y = Item::file("y.bin", data(6, 5100));
    let z = Item::file("z.bin", data(7, 200_000));
    let opts = || {
        WriterOptions::default()
            .with_solid(Solid::None)
            .with_compress_header(false)
    };
    let alone = |it: &Item| {
        let a = write_archive(std::slice::from_ref(it), opts());
        a[32..32 + packed_len(&a)].to_vec()
    };
    let (px, py, pz) = (alone(&x), alone(&y), alone(&z));
    // x and y fit the same dictionary (the engine is reset and reused);
    // z needs another one (made anew, from pooled tables), then y again.
    let all = write_archive(&[x.clone(), y.clone(), z.clone(), y.clone()], opts());
    let streams = &all[32..32 + packed_len(&all)];
    let want: Vec<u8> = [&px[..], &py, &pz, &py].concat();
    assert_eq!(streams.len(), want.len());
    assert!(
        streams == &want[..],
        "packed streams differ from fresh writers'"
    );
    let back = read_archive(&all, None).unwrap();
    assert_eq!(back.len(), 4);
    assert_eq!(back[3].data, y.data());
    if have_7zz() {
        methods(&all, "reuse");
    }
}
