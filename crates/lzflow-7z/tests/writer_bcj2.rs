//! BCJ2 in the writer: archives with a BCJ2 + LZ (main) + LZMA (CALL) +
//! LZMA (JUMP) folder of four packed streams are read back by lzflow and
//! by `7zz` (test, extract, list), with every solid mode, threads and
//! encryption; automatic filters pick the branch filter by machine; and
//! the archive of a set of real ELF files is about the size of 7-Zip's
//! `-mf=BCJ2`.

mod writer_support;

use std::io::Cursor;
use std::path::{Path, PathBuf};

use lzflow_7z::{EntryMeta, Method, SevenZError, Solid, Writer, WriterOptions};
use lzflow_filters::{FilterConfig, FilterKind};
use writer_support::{data, have_7zz, read_archive, run_7zz, temp_dir, write_archive, Item};

/// Up to `n` x86-64 ELF files from `dir` with sizes in `sizes`, in name
/// order.
fn elf_files(dir: &str, n: usize, sizes: std::ops::Range<u64>) -> Vec<PathBuf> {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut paths: Vec<PathBuf> = rd.filter_map(|e| e.ok().map(|e| e.path())).collect();
    paths.sort();
    paths
        .into_iter()
        .filter(|p| {
            let Ok(md) = std::fs::symlink_metadata(p) else {
                return false;
            };
            if !md.is_file() || !sizes.contains(&md.len()) {
                return false;
            }
            let mut head = [0u8; 20];
            std::fs::File::open(p)
                .and_then(|mut f| std::io::Read::read_exact(&mut f, &mut head))
                .is_ok()
                && head.starts_with(b"\x7fELF")
                && head[18] == 62
        })
        .take(n)
        .collect()
}

/// A few real executables as items (named by their file names).
fn executables(n: usize) -> Vec<Item> {
    elf_files("/usr/bin", n, 20_000..600_000)
        .into_iter()
        .map(|p| {
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            Item::file(&format!("bin/{name}"), std::fs::read(&p).unwrap())
        })
        .collect()
}

/// x86-like code with near CALLs and JMPs among filler.
fn code(seed: u64, n: usize) -> Vec<u8> {
    let filler = data(seed, n);
    let mut out = Vec::with_capacity(n + 8);
    let mut k = seed as u32 | 1;
    while out.len() < n {
        k = k.wrapping_mul(1_103_515_245).wrapping_add(12345);
        match k >> 28 {
            0..=2 => {
                out.push(if k & 1 == 0 { 0xE8 } else { 0xE9 });
                let rel = ((k >> 8) % 60_000) as i32 - 30_000;
                out.extend_from_slice(&rel.to_le_bytes());
            }
            3 => {
                out.extend_from_slice(&[0x0F, 0x84]);
                out.extend_from_slice(&(((k >> 8) % 500) as i32).to_le_bytes());
            }
            _ => {
                let at = out.len() % filler.len().max(1);
                out.extend_from_slice(&filler[at..filler.len().min(at + 7)]);
            }
        }
    }
    out.truncate(n);
    out
}

/// Items with code, text, random data and an empty entry.
fn mixed() -> Vec<Item> {
    let mut items = vec![
        Item::file("a/code1.bin", code(1, 90_000)),
        Item::file("a/text.txt", b"BCJ2 keeps text as it is\n".repeat(2000)),
        Item::file("a/random.bin", data(3, 30_000)),
        Item::file("one", vec![0xE8]),
        Item::file("tail", vec![0x11, 0x0F, 0x85, 0x00, 0x00]),
        Item::file("b/code2.bin", code(2, 300_000)),
    ];
    items.extend(executables(3));
    items
}

fn bcj2() -> WriterOptions {
    WriterOptions::default().with_level(1).with_bcj2(true)
}

/// `7zz t`, `7zz x` (bytes) and the methods `7zz l -slt` lists.
fn check_7zz(name: &str, bytes: &[u8], items: &[Item], password: Option<&str>) -> Vec<String> {
    if !have_7zz() {
        return Vec::new();
    }
    let dir = temp_dir(name);
    let archive = dir.join("out.7z");
    std::fs::write(&archive, bytes).unwrap();
    let a = archive.to_str().unwrap();
    let pw = format!("-p{}", password.unwrap_or(""));
    let (ok, text) = run_7zz(&["t", "-bd", &pw, a]);
    assert!(
        ok && text.contains("Everything is Ok"),
        "{name}: 7zz t:\n{text}"
    );
    let out = dir.join("x");
    let o = format!("-o{}", out.display());
    let (ok, text) = run_7zz(&["x", "-bd", "-y", &pw, &o, a]);
    assert!(ok, "{name}: 7zz x:\n{text}");
    for it in items {
        let got = std::fs::read(out.join(&it.name)).unwrap();
        assert!(got == it.data(), "{name}: {} differs", it.name);
    }
    let (ok, text) = run_7zz(&["l", "-slt", &pw, a]);
    assert!(ok, "{name}: 7zz l:\n{text}");
    std::fs::remove_dir_all(&dir).ok();
    text.lines()
        .filter_map(|l| l.strip_prefix("Method = "))
        .map(str::to_string)
        .collect()
}

fn check(name: &str, items: &[Item], opts: WriterOptions) -> Vec<u8> {
    let password = opts.password.clone();
    let bytes = write_archive(items, opts);
    let back = read_archive(&bytes, password.as_deref()).expect("lzflow reads it back");
    assert_eq!(
        back,
        writer_support::expected(items),
        "{name}: lzflow reader"
    );
    let methods = check_7zz(name, &bytes, items, password.as_deref());
    for m in &methods {
        assert!(m.contains("BCJ2"), "{name}: method {m}");
    }
    bytes
}

#[test]
fn solid_bcj2_with_lzma2_main() {
    let items = mixed();
    let bytes = check("bcj2-solid", &items, bcj2());
    if have_7zz() {
        let methods = check_7zz("bcj2-solid-list", &bytes, &items, None);
        let m = methods.last().unwrap();
        assert!(
            m.starts_with("BCJ2 LZMA2:") && m.ends_with(":lc0:lp2"),
            "{m}"
        );
    }
}

#[test]
fn bcj2_per_file_and_by_size_with_lzma_main() {
    let items = mixed();
    check("bcj2-none", &items, bcj2().with_solid(Solid::None));
    check(
        "bcj2-lzma",
        &items,
        bcj2()
            .with_method(Method::Lzma)
            .with_solid(Solid::Bytes(200_000)),
    );
    check("bcj2-copy", &items, bcj2().with_method(Method::Copy));
}

#[test]
fn side_streams_beyond_their_hold_stream_through_lzma() {
    // Over 1 MiB of CALL and JUMP targets: their coders start before the
    // folder ends, with 7-Zip's 1 MiB dictionary.
    let mut dense = Vec::with_capacity(3 << 20);
    let mut k = 7u32;
    while dense.len() < 3 << 20 {
        k = k.wrapping_mul(1_103_515_245).wrapping_add(12345);
        dense.push(if k & 0x100 == 0 { 0xE8 } else { 0xE9 });
        dense.extend_from_slice(&(((k >> 12) % 100_000) as i32 - 50_000).to_le_bytes());
    }
    let items = vec![Item::file("big-code.bin", dense)];
    let bytes = check(
        "bcj2-big",
        &items,
        WriterOptions::default().with_level(0).with_bcj2(true),
    );
    if have_7zz() {
        let methods = check_7zz("bcj2-big-list", &bytes, &items, None);
        let m = methods.last().unwrap();
        assert_eq!(m.matches("LZMA:20:lc0:lp2").count(), 2, "{m}");
    }
}

#[test]
fn bcj2_with_encryption() {
    let items = mixed();
    let opts = bcj2()
        .with_password("secret")
        .with_aes_cycles_power(4)
        .with_solid(Solid::Files(2));
    check("bcj2-aes", &items, opts.clone());
    check("bcj2-aes-header", &items, opts.with_encrypt_header(true));
}

#[test]
fn threads_write_the_same_bytes() {
    let items = mixed();
    for solid in [Solid::None, Solid::Files(3), Solid::Bytes(100_000)] {
        let one = write_archive(&items, bcj2().with_solid(solid));
        for threads in [2, 3] {
            let many = write_archive(&items, bcj2().with_solid(solid).with_threads(threads));
            assert!(one == many, "{solid:?}, {threads} threads");
        }
    }
    check(
        "bcj2-threads",
        &items,
        bcj2().with_solid(Solid::Files(2)).with_threads(2),
    );
}

#[test]
fn pushed_pieces_give_the_same_archive() {
    // Entries given in small pieces through write_data convert as whole
    // ones do (the size is unknown either way).
    let items = mixed();
    let whole = write_archive(&items, bcj2());
    let mut w = Writer::with_options(Cursor::new(Vec::new()), bcj2()).unwrap();
    for (i, it) in items.iter().enumerate() {
        let mut meta = EntryMeta::default();
        if let Some(t) = it.mtime {
            meta = meta.with_mtime(t);
        }
        w.begin_file(&it.name, meta).unwrap();
        for piece in it.data().chunks(1 + i * 37 % 1000) {
            w.write_data(piece).unwrap();
        }
        w.end_file().unwrap();
    }
    let pieces = w.finish().unwrap().into_inner();
    let back = read_archive(&pieces, None).unwrap();
    assert_eq!(back, writer_support::expected(&items));
    // Sizes may differ only where the 64 KiB reads of add_file made an
    // entry's size known.
    let (a, b) = (whole.len() as f64, pieces.len() as f64);
    assert!((a - b).abs() / a < 0.01, "{a} vs {b}");
}

#[test]
fn bcj2_and_a_filter_exclude_each_other() {
    let opts = bcj2().with_filter(FilterConfig::new(FilterKind::X86));
    let err = Writer::with_options(Cursor::new(Vec::new()), opts).unwrap_err();
    assert!(matches!(err, SevenZError::InvalidWriterOptions(_)), "{err}");
}

/// A minimal ELF header for `machine` (little-endian, 64-bit) before
/// `body`.
fn fake_elf(machine: u16, body: &[u8]) -> Vec<u8> {
    let mut h = b"\x7fELF\x02\x01\x01".to_vec();
    h.resize(64, 0);
    h[16] = 2;
    h[18..20].copy_from_slice(&machine.to_le_bytes());
    h.extend_from_slice(body);
    h
}

fn fake_pe(machine: u16, body: &[u8]) -> Vec<u8> {
    let mut pe = vec![0u8; 0x200];
    pe[..2].copy_from_slice(b"MZ");
    pe[0x3C] = 0x80;
    pe[0x80..0x84].copy_from_slice(b"PE\0\0");
    pe[0x84..0x86].copy_from_slice(&machine.to_le_bytes());
    pe.extend_from_slice(body);
    pe
}

#[test]
fn automatic_filters_follow_the_machine() {
    let body = code(9, 40_000);
    let mut items = vec![
        Item::file("arm64-prog", fake_elf(183, &body)),
        Item::file("riscv-prog", fake_elf(243, &body)),
        Item::file("arm-prog", fake_elf(40, &body)),
        Item::file("arm64.dll", fake_pe(0xAA64, &body)),
        Item::file("thumb.exe", fake_pe(0x1C4, &body)),
        Item::file("x86-prog", fake_elf(62, &body)),
        Item::file("plain.txt", b"no executable here\n".repeat(500)),
    ];
    items.extend(executables(2));
    let want = |name: &str, bcj2: bool| -> Option<&'static str> {
        Some(match name {
            "arm64-prog" | "arm64.dll" => "ARM64",
            "riscv-prog" => "RISCV",
            "arm-prog" => "ARM",
            "thumb.exe" => "ARMT",
            "plain.txt" => return None,
            _ if bcj2 => "BCJ2",
            _ => "BCJ",
        })
    };
    for bcj2 in [false, true] {
        let opts = WriterOptions::default()
            .with_level(1)
            .with_auto_bcj(true)
            .with_auto_bcj2(bcj2);
        let bytes = write_archive(&items, opts);
        let back = read_archive(&bytes, None).unwrap();
        assert_eq!(back, writer_support::expected(&items));
        if !have_7zz() {
            continue;
        }
        let name = format!("auto-{bcj2}");
        check_7zz(&name, &bytes, &items, None);
        let dir = temp_dir(&format!("{name}-list"));
        let p = dir.join("a.7z");
        std::fs::write(&p, &bytes).unwrap();
        let (_, text) = run_7zz(&["l", "-slt", p.to_str().unwrap()]);
        std::fs::remove_dir_all(&dir).ok();
        for rec in text.split("\n\n").filter(|r| r.contains("Path = ")) {
            let field = |k: &str| {
                rec.lines()
                    .find_map(|l| l.strip_prefix(k))
                    .unwrap_or_default()
                    .to_string()
            };
            let path = field("Path = ");
            let Some(it) = items.iter().find(|it| it.name == path) else {
                continue;
            };
            let methods = field("Method = ");
            let first = methods.split([' ', ':']).next().unwrap_or_default();
            match want(&it.name, bcj2) {
                Some(f) => assert_eq!(first, f, "{}: {methods}", it.name),
                None => assert!(methods.starts_with("LZMA2"), "{}: {methods}", it.name),
            }
        }
    }
}

/// ~20 real ELF files: executables from /usr/bin and shared libraries.
fn size_test_files() -> Vec<PathBuf> {
    let mut files = elf_files("/usr/bin", 14, 40_000..4_000_000);
    files.extend(elf_files("/usr/lib/x86_64-linux-gnu", 6, 40_000..4_000_000));
    files
}

fn dir_size_7zz(files: &[PathBuf], dir: &Path) -> Option<u64> {
    let archive = dir.join("7zz.7z");
    let mut args: Vec<String> = ["a", "-t7z", "-bd", "-mf=BCJ2", "-mx5", "-mmt=1"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    args.push(archive.to_str()?.to_string());
    args.extend(files.iter().map(|p| p.to_str().unwrap().to_string()));
    let refs: Vec<&str> = args.iter().map(String::as_str).collect();
    let (ok, text) = run_7zz(&refs);
    assert!(ok, "7zz a:\n{text}");
    Some(std::fs::metadata(&archive).ok()?.len())
}

#[test]
fn size_is_close_to_7zips_bcj2() {
    let files = size_test_files();
    if files.len() < 5 || !have_7zz() {
        eprintln!("SKIPPED: too few ELF files or no 7zz");
        return;
    }
    let total: u64 = files
        .iter()
        .map(|p| std::fs::metadata(p).unwrap().len())
        .sum();
    let dir = temp_dir("bcj2-size");
    let theirs = dir_size_7zz(&files, &dir).unwrap();
    let write = |opts: WriterOptions, by_path: bool| -> Vec<u8> {
        let mut w = Writer::with_options(Cursor::new(Vec::new()), opts).unwrap();
        for p in &files {
            let name = p.file_name().unwrap().to_str().unwrap();
            if by_path {
                w.add_path(p, name).unwrap();
            } else {
                let f = std::fs::File::open(p).unwrap();
                w.add_file(name, f, EntryMeta::default()).unwrap();
            }
        }
        w.finish().unwrap().into_inner()
    };
    let opts = WriterOptions::default().with_level(5).with_bcj2(true);
    let ours = write(opts.clone(), true);
    let streamed = write(opts, false);
    let bcj = write(
        WriterOptions::default()
            .with_level(5)
            .with_filter(FilterConfig::new(FilterKind::X86)),
        true,
    );
    let ratio = ours.len() as f64 / theirs as f64;
    eprintln!(
        "{} ELF files, {total} bytes: lzflow BCJ2 {} (sizes known), {} (streamed), lzflow BCJ {}, 7zz -mf=BCJ2 -mx5 {theirs}: ratio {ratio:.4}",
        files.len(),
        ours.len(),
        streamed.len(),
        bcj.len(),
    );
    let back = read_archive(&ours, None).unwrap();
    assert_eq!(back.len(), files.len());
    let archive = dir.join("ours.7z");
    std::fs::write(&archive, &ours).unwrap();
    let (ok, text) = run_7zz(&["t", "-bd", archive.to_str().unwrap()]);
    assert!(ok, "7zz t:\n{text}");
    std::fs::remove_dir_all(&dir).ok();
    assert!(ratio <= 1.005, "lzflow {} vs 7zz {theirs}", ours.len());
}
