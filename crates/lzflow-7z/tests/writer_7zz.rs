//! Archives written by lzflow are accepted by `7zz t`, extract byte-exact
//! with `7zz x`, and list the right names, times and attributes with
//! `7zz l -slt`: every method, filter, solid mode and encryption setting.

mod writer_support;

use std::collections::BTreeMap;
use std::path::Path;

use lzflow_7z::{EntryMeta, Method, Solid, Writer, WriterOptions};
use lzflow_filters::{FilterConfig, FilterKind};
use writer_support::{
    data, have_7zz, read_archive, run_7zz, temp_dir, time, write_archive, Item, Kind,
};

/// x86-like code: E8/E9 branches among filler, so BCJ has work to do.
fn code(n: usize) -> Vec<u8> {
    let mut out = Vec::with_capacity(n + 8);
    let mut k = 0u32;
    while out.len() < n {
        k = k.wrapping_mul(1_103_515_245).wrapping_add(12345);
        if k.is_multiple_of(5) {
            out.push(0xE8);
            out.extend_from_slice(&((k >> 8) % 4096 * 16).to_le_bytes());
        } else {
            out.extend_from_slice(&[0x48, 0x89, 0xC3, 0x90][..(k as usize >> 4) % 4 + 1]);
        }
    }
    out.truncate(n);
    out
}

fn tree() -> Vec<Item> {
    let mut items = vec![
        Item::dir("docs"),
        Item::file(
            "docs/readme.txt",
            b"lzflow wrote this 7z archive\n".repeat(300),
        ),
        Item::file("docs/ünïcödé 😀 𝄞.bin", data(1, 40_000)),
        Item {
            name: "docs/empty.txt".to_string(),
            kind: Kind::Empty,
            mtime: Some(time(1_600_000_000, 1_234_567)),
        },
        Item::dir("docs/nested/deeper"),
        Item::file("code/prog.exe", code(70_000)),
        Item::file("code/libx.so.1", code(20_000)),
        Item::file("random.bin", data(2, 100_000)),
        Item::file("one.byte", vec![0x42]),
        Item::file("zero-through-add-file", Vec::new()),
    ];
    for (i, it) in items.iter_mut().enumerate() {
        if it.mtime.is_none() {
            it.mtime = Some(time(1_700_000_000 + i as u64 * 3600, i as u32 * 777));
        }
    }
    items
}

/// Formats a time the way `7zz l -slt` prints it in UTC.
fn listing_time(t: std::time::SystemTime) -> String {
    let d = t.duration_since(std::time::UNIX_EPOCH).unwrap();
    let secs = d.as_secs();
    let (days, rem) = (secs / 86_400, secs % 86_400);
    // Civil date from days since 1970 (Howard Hinnant's algorithm).
    let z = days as i64 + 719_468;
    let era = z / 146_097;
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02} {:02}:{:02}:{:02}.{:07}",
        rem / 3600,
        rem / 60 % 60,
        rem % 60,
        d.subsec_nanos() / 100
    )
}

/// `7zz l -slt` records by path: property name to value.
fn listing(archive: &Path, password: Option<&str>) -> BTreeMap<String, BTreeMap<String, String>> {
    let pw = format!("-p{}", password.unwrap_or(""));
    let out = std::process::Command::new("7zz")
        .env("TZ", "UTC")
        .args(["l", "-slt", &pw])
        .arg(archive)
        .output()
        .unwrap();
    assert!(out.status.success(), "7zz l failed");
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    let body = text.split("----------").nth(1).unwrap_or("").to_string();
    let mut map = BTreeMap::new();
    for block in body.split("\n\n") {
        let mut rec = BTreeMap::new();
        for line in block.lines() {
            if let Some((k, v)) = line.split_once(" = ") {
                rec.insert(k.to_string(), v.to_string());
            } else if let Some(k) = line.strip_suffix(" =") {
                rec.insert(k.to_string(), String::new());
            }
        }
        if let Some(p) = rec.get("Path").cloned() {
            map.insert(p, rec);
        }
    }
    map
}

/// Writes `items` with `opts`, then checks `7zz t`, `7zz x` (bytes),
/// `7zz l -slt` (names, times, encryption) and lzflow's own reader.
fn check(name: &str, items: &[Item], opts: WriterOptions) {
    let password = opts.password.clone();
    let bytes = write_archive(items, opts);
    let back = read_archive(&bytes, password.as_deref()).expect("lzflow reads it back");
    assert_eq!(
        back,
        writer_support::expected(items),
        "{name}: lzflow reader"
    );
    if !have_7zz() {
        return;
    }
    let dir = temp_dir(name);
    let archive = dir.join("out.7z");
    std::fs::write(&archive, &bytes).unwrap();
    let pw = format!("-p{}", password.as_deref().unwrap_or(""));
    let a = archive.to_str().unwrap();
    let (ok, text) = run_7zz(&["t", "-bd", &pw, a]);
    assert!(ok, "{name}: 7zz t failed:\n{text}");
    assert!(text.contains("Everything is Ok"), "{name}:\n{text}");
    let out = dir.join("x");
    let o = format!("-o{}", out.display());
    let (ok, text) = run_7zz(&["x", "-bd", "-y", &pw, &o, a]);
    assert!(ok, "{name}: 7zz x failed:\n{text}");
    for it in items {
        let p = out.join(&it.name);
        match &it.kind {
            Kind::Dir => assert!(p.is_dir(), "{name}: {} not a directory", it.name),
            _ => assert_eq!(
                std::fs::read(&p).unwrap_or_else(|e| panic!("{name}: {}: {e}", it.name)),
                it.data(),
                "{name}: {} differs",
                it.name
            ),
        }
    }
    let list = listing(&archive, password.as_deref());
    assert_eq!(list.len(), items.len(), "{name}: listed entries");
    for it in items {
        let rec = list
            .get(&it.name)
            .unwrap_or_else(|| panic!("{name}: {} not listed", it.name));
        assert_eq!(
            rec["Size"],
            it.data().len().to_string(),
            "{name}: {}",
            it.name
        );
        if let Some(t) = it.mtime {
            assert_eq!(rec["Modified"], listing_time(t), "{name}: {}", it.name);
        }
        let attrs = &rec["Attributes"];
        assert_eq!(
            attrs.starts_with('D'),
            it.kind == Kind::Dir,
            "{name}: {attrs}"
        );
        if !it.data().is_empty() {
            let enc = if password.is_some() { "+" } else { "-" };
            assert_eq!(rec["Encrypted"], enc, "{name}: {}", it.name);
        }
    }
    std::fs::remove_dir_all(&dir).ok();
}

fn fast() -> WriterOptions {
    WriterOptions::default().with_level(1)
}

#[test]
fn default_options_level_5() {
    check("default", &tree(), WriterOptions::default());
}

#[test]
fn lzma_one_folder_per_file_plain_header() {
    let opts = fast()
        .with_method(Method::Lzma)
        .with_solid(Solid::None)
        .with_compress_header(false);
    check("lzma-none", &tree(), opts);
}

#[test]
fn copy_with_delta_two_files_per_folder() {
    let opts = fast()
        .with_method(Method::Copy)
        .with_filter(FilterConfig::new(FilterKind::Delta).with_distance(4))
        .with_solid(Solid::Files(2));
    check("copy-delta", &tree(), opts);
}

#[test]
fn bcj_for_everything_in_byte_limited_blocks() {
    let opts = fast()
        .with_filter(FilterConfig::new(FilterKind::X86))
        .with_solid(Solid::Bytes(50_000));
    check("bcj-bytes", &tree(), opts);
}

#[test]
fn auto_bcj_puts_executables_in_their_own_folders() {
    check("auto-bcj", &tree(), fast().with_auto_bcj(true));
    if have_7zz() {
        let bytes = write_archive(&tree(), fast().with_auto_bcj(true));
        let dir = temp_dir("auto-bcj-list");
        let p = dir.join("a.7z");
        std::fs::write(&p, bytes).unwrap();
        let list = listing(&p, None);
        assert!(list["code/prog.exe"]["Method"].contains("BCJ"));
        assert!(list["code/libx.so.1"]["Method"].contains("BCJ"));
        assert!(!list["random.bin"]["Method"].contains("BCJ"));
        std::fs::remove_dir_all(&dir).ok();
    }
}

#[test]
fn arm64_filter_and_lzma() {
    let opts = fast()
        .with_method(Method::Lzma)
        .with_filter(FilterConfig::new(FilterKind::Arm64));
    check("arm64", &tree(), opts);
}

#[test]
fn encrypted_data_with_7zips_key_cost() {
    check("aes-data", &tree(), fast().with_password("fixture-pass"));
}

#[test]
fn encrypted_data_and_header() {
    let opts = fast()
        .with_password("pässwörd 😀")
        .with_encrypt_header(true)
        .with_aes_cycles_power(12)
        .with_solid(Solid::Files(3));
    check("aes-header", &tree(), opts);
    if have_7zz() {
        let bytes = write_archive(
            &tree(),
            fast()
                .with_password("pw")
                .with_encrypt_header(true)
                .with_aes_cycles_power(10),
        );
        let dir = temp_dir("aes-header-nopw");
        let p = dir.join("a.7z");
        std::fs::write(&p, bytes).unwrap();
        // Without the password nothing, not even a name, is listed.
        let (ok, text) = run_7zz(&["l", "-bd", "-p", p.to_str().unwrap()]);
        assert!(!ok, "listing must fail without the password:\n{text}");
        assert!(!text.contains("readme"), "{text}");
        let (ok, _) = run_7zz(&["t", "-bd", "-pwrong", p.to_str().unwrap()]);
        assert!(!ok);
        std::fs::remove_dir_all(&dir).ok();
    }
}

#[test]
fn encrypted_copy_with_plain_header() {
    let opts = fast()
        .with_method(Method::Copy)
        .with_password("pw")
        .with_aes_cycles_power(8)
        .with_compress_header(false)
        .with_solid(Solid::None);
    check("aes-copy", &tree(), opts);
}

#[test]
fn empty_archive_and_only_empty_entries() {
    check("empty", &[], fast());
    let items = vec![
        Item::dir("d"),
        Item::dir("d/e"),
        Item::file("d/zero", Vec::new()),
    ];
    check("only-empty", &items, fast());
    check(
        "only-empty-aes",
        &items,
        fast()
            .with_password("x")
            .with_encrypt_header(true)
            .with_aes_cycles_power(4),
    );
}

#[test]
fn unix_modes_and_attributes_are_listed() {
    if !have_7zz() {
        return;
    }
    let mut w = Writer::with_options(std::io::Cursor::new(Vec::new()), fast()).unwrap();
    w.add_file(
        "script.sh",
        &b"#!/bin/sh\necho hi\n"[..],
        EntryMeta::default().with_unix_mode(0o755),
    )
    .unwrap();
    w.add_dir("dir", EntryMeta::default().with_unix_mode(0o700))
        .unwrap();
    w.add_file(
        "ro.txt",
        &b"read only"[..],
        EntryMeta::default().with_attributes(0x21),
    )
    .unwrap();
    let bytes = w.finish().unwrap().into_inner();
    let dir = temp_dir("modes");
    let p = dir.join("a.7z");
    std::fs::write(&p, bytes).unwrap();
    let list = listing(&p, None);
    assert_eq!(list["script.sh"]["Attributes"], "A -rwxr-xr-x");
    assert_eq!(list["dir"]["Attributes"], "D drwx------");
    assert_eq!(list["ro.txt"]["Attributes"], "RA");
    let out = dir.join("x");
    let (ok, text) = run_7zz(&[
        "x",
        "-bd",
        "-y",
        &format!("-o{}", out.display()),
        p.to_str().unwrap(),
    ]);
    assert!(ok, "{text}");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(out.join("script.sh"))
            .unwrap()
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o755);
    }
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn add_path_stores_a_disk_tree() {
    let dir = temp_dir("add-path");
    let src = dir.join("src");
    std::fs::create_dir_all(src.join("sub/empty")).unwrap();
    std::fs::write(src.join("a.txt"), b"alpha").unwrap();
    std::fs::write(src.join("sub/b.bin"), data(9, 5000)).unwrap();
    std::fs::write(src.join("sub/zero"), b"").unwrap();
    #[cfg(unix)]
    std::os::unix::fs::symlink("a.txt", src.join("link")).unwrap();
    let mut w = Writer::with_options(std::io::Cursor::new(Vec::new()), fast()).unwrap();
    w.add_path(&src, "top").unwrap();
    let bytes = w.finish().unwrap().into_inner();
    let back = read_archive(&bytes, None).unwrap();
    let names: Vec<&str> = back.iter().map(|e| e.name.as_str()).collect();
    let mut want = vec!["top", "top/a.txt"];
    #[cfg(unix)]
    want.push("top/link");
    want.extend(["top/sub", "top/sub/b.bin", "top/sub/empty", "top/sub/zero"]);
    assert_eq!(names, want);
    let find = |n: &str| back.iter().find(|e| e.name == n).unwrap();
    assert_eq!(find("top/sub/b.bin").data, data(9, 5000));
    assert!(find("top/sub/empty").is_dir);
    assert!(!find("top/sub/zero").is_dir);
    let mtime = std::fs::metadata(src.join("a.txt"))
        .unwrap()
        .modified()
        .unwrap();
    // FILETIMEs keep 100 ns ticks.
    let ticks = lzflow_7z::system_time_to_filetime(mtime);
    assert_eq!(
        find("top/a.txt").mtime,
        Some(lzflow_7z::filetime_to_system_time(ticks))
    );
    #[cfg(unix)]
    {
        assert_eq!(find("top/link").data, b"a.txt");
        let a = lzflow_7z::Archive::open(std::io::Cursor::new(&bytes)).unwrap();
        let link = a.entries().iter().find(|e| e.name == "top/link").unwrap();
        assert!(link.is_symlink());
        if have_7zz() {
            let p = dir.join("a.7z");
            std::fs::write(&p, &bytes).unwrap();
            let out = dir.join("x");
            let (ok, text) = run_7zz(&[
                "x",
                "-bd",
                "-y",
                "-snl",
                &format!("-o{}", out.display()),
                p.to_str().unwrap(),
            ]);
            assert!(ok, "{text}");
            assert_eq!(
                std::fs::read_link(out.join("top/link")).unwrap(),
                Path::new("a.txt")
            );
            assert_eq!(
                std::fs::read(out.join("top/sub/b.bin")).unwrap(),
                data(9, 5000)
            );
        }
    }
    std::fs::remove_dir_all(&dir).ok();
}

/// The method `7zz l -slt` lists for the one entry `in.bin` of `archive`.
fn method_of(archive: &Path) -> String {
    listing(archive, None)["in.bin"]["Method"].clone()
}

/// The method of the archive `7zz a -mx<level>` makes of `dir/in.bin`
/// (one thread, no automatic filter), written as `dir/theirs<level>.7z`.
fn sevenzip_method(dir: &Path, level: u32) -> String {
    let theirs = dir.join(format!("theirs{level}.7z"));
    let mx = format!("-mx{level}");
    let (ok, text) = run_7zz(&[
        "a",
        "-bd",
        &mx,
        "-mmt=1",
        "-mf=off",
        theirs.to_str().unwrap(),
        dir.join("in.bin").to_str().unwrap(),
    ]);
    assert!(ok, "7zz a failed:\n{text}");
    method_of(&theirs)
}

/// Level N picks the dictionary `7zz a -mxN` picks: both archives of the
/// same input (larger than the dictionaries) list the same method string.
#[test]
fn levels_pick_7zips_dictionaries() {
    if !have_7zz() {
        return;
    }
    let dir = temp_dir("levels");
    let input = code(5 << 20);
    std::fs::write(dir.join("in.bin"), &input).unwrap();
    for level in 1..=3u32 {
        let items = [Item::file("in.bin", input.clone())];
        let ours = dir.join(format!("ours{level}.7z"));
        std::fs::write(&ours, write_archive(&items, fast().with_level(level))).unwrap();
        assert_eq!(
            method_of(&ours),
            sevenzip_method(&dir, level),
            "level {level}"
        );
    }
    std::fs::remove_dir_all(&dir).ok();
}

/// LZMA2 on several threads: the same archive for 2 and 3 threads, read
/// by 7-Zip and by lzflow; a solid folder of several pieces.
#[test]
fn multi_threaded_lzma2_folders() {
    let mut items = vec![
        Item::file("a/code.bin", code(2_500_000)),
        Item::file("a/random.bin", data(11, 700_000)),
        Item::file("b/text.txt", b"many threads, one stream\n".repeat(60_000)),
        Item::file("b/small", data(12, 3000)),
    ];
    for (i, it) in items.iter_mut().enumerate() {
        it.mtime = Some(time(1_650_000_000 + i as u64, 0));
    }
    let two = write_archive(&items, fast().with_threads(2));
    let three = write_archive(&items, fast().with_threads(3));
    assert!(two == three, "the thread count changed the archive");
    let one = write_archive(&items, fast());
    assert!(one != two, "pieces must differ from one stream");
    check("mt-solid", &items, fast().with_threads(2));
    check(
        "mt-per-file",
        &items,
        fast().with_threads(2).with_solid(Solid::None),
    );
}

/// With the expected size given, a medium input gets the dictionary 7-Zip
/// picks for it (the level's, reduced to fit), not the level's whole one.
#[test]
fn expected_size_fits_the_dictionary_as_7zip_does() {
    if !have_7zz() {
        return;
    }
    let dir = temp_dir("expected");
    let input = code(1_500_000);
    std::fs::write(dir.join("in.bin"), &input).unwrap();
    let items = [Item::file("in.bin", input.clone())];
    let ours = dir.join("ours.7z");
    let opts = fast().with_level(3).with_expected_size(input.len() as u64);
    std::fs::write(&ours, write_archive(&items, opts)).unwrap();
    assert_eq!(method_of(&ours), "LZMA2:1536k");
    assert_eq!(method_of(&ours), sevenzip_method(&dir, 3));
    // Without the expected size: level 3's whole 4 MiB.
    let plain = dir.join("plain.7z");
    std::fs::write(&plain, write_archive(&items, fast().with_level(3))).unwrap();
    assert_eq!(method_of(&plain), "LZMA2:22");
    std::fs::remove_dir_all(&dir).ok();
}

/// An expected size that is too small only limits the dictionary: more
/// data is still written correctly.
#[test]
fn more_data_than_expected_is_still_right() {
    let items = vec![
        Item::file("a.bin", code(300_000)),
        Item::file("b.txt", b"expected less than this\n".repeat(20_000)),
    ];
    check(
        "more-than-expected",
        &items,
        fast().with_level(5).with_expected_size(1000),
    );
}

/// The 7z method of every listed entry with data, as `7zz l -slt` names it.
fn methods(name: &str, items: &[Item], opts: WriterOptions) -> Vec<String> {
    let bytes = write_archive(items, opts);
    let dir = temp_dir(name);
    let archive = dir.join("m.7z");
    std::fs::write(&archive, &bytes).unwrap();
    let list = listing(&archive, None);
    std::fs::remove_dir_all(&dir).ok();
    let mut m: Vec<String> = list
        .values()
        .filter_map(|r| r.get("Method").filter(|m| !m.is_empty()).cloned())
        .collect();
    m.sort();
    m.dedup();
    m
}

#[test]
fn deflate_solid_and_bzip2_per_file_with_aes_and_bcj() {
    check(
        "deflate-solid",
        &tree(),
        WriterOptions::default().with_method(Method::Deflate),
    );
    check(
        "bzip2-files-aes",
        &tree(),
        fast()
            .with_method(Method::BZip2)
            .with_solid(Solid::None)
            .with_password("secret".to_string()),
    );
    check(
        "deflate-bcj-threads",
        &tree(),
        fast()
            .with_method(Method::Deflate)
            .with_filter(FilterConfig::new(FilterKind::X86))
            .with_solid(Solid::Files(2))
            .with_threads(2),
    );
    if have_7zz() {
        let m = methods(
            "deflate-method",
            &tree(),
            fast().with_method(Method::Deflate),
        );
        assert_eq!(m, ["Deflate"]);
        let m = methods("bzip2-method", &tree(), fast().with_method(Method::BZip2));
        assert_eq!(m, ["BZip2"]);
    }
}

#[test]
fn ppmd_solid_per_file_smallest_model_and_aes() {
    check("ppmd-solid", &tree(), fast().with_method(Method::ppmd(5)));
    check(
        "ppmd-o2-smallest",
        &tree(),
        fast().with_method(Method::Ppmd {
            order: 2,
            mem_size: 1 << 11,
        }),
    );
    check(
        "ppmd-o64-files-aes",
        &tree(),
        fast()
            .with_method(Method::Ppmd {
                order: 64,
                mem_size: 1 << 16,
            })
            .with_solid(Solid::None)
            .with_password("secret".to_string()),
    );
    check(
        "ppmd-bcj-threads",
        &tree(),
        fast()
            .with_method(Method::ppmd(3))
            .with_filter(FilterConfig::new(FilterKind::X86))
            .with_solid(Solid::Files(2))
            .with_threads(2),
    );
    if have_7zz() {
        // The folder's model is fitted to its size, as 7-Zip fits it: the
        // first power of two of at least 16 times the data.
        let total: usize = tree().iter().map(|it| it.data().len()).sum();
        let fitted = lzflow_methods::ppmd_fitted_memory(16 << 20, total as u64);
        assert!(fitted < 16 << 20 && fitted.is_power_of_two(), "{fitted}");
        let m = methods("ppmd-method", &tree(), fast().with_method(Method::ppmd(5)));
        assert_eq!(m, [format!("PPMD:o6:mem{}", fitted.trailing_zeros())]);
        // A folder of unknown size keeps the level's model.
        let bytes = {
            let opts = fast().with_method(Method::ppmd(5));
            let mut w = Writer::with_options(std::io::Cursor::new(Vec::new()), opts).unwrap();
            w.begin_file("big.txt", EntryMeta::default()).unwrap();
            for _ in 0..40 {
                w.write_data(&code(64 << 10)).unwrap();
            }
            w.end_file().unwrap();
            w.finish().unwrap().into_inner()
        };
        let dir = temp_dir("ppmd-unfitted");
        let archive = dir.join("u.7z");
        std::fs::write(&archive, &bytes).unwrap();
        let (ok, text) = run_7zz(&["t", "-bd", archive.to_str().unwrap()]);
        assert!(ok, "{text}");
        let list = listing(&archive, None);
        assert_eq!(list["big.txt"]["Method"], "PPMD:o6:mem24");
        std::fs::remove_dir_all(&dir).ok();
    }
}
