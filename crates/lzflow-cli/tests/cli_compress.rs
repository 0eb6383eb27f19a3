//! `lzflow c`: what it writes decodes (with lzflow and with xz) to the
//! input, for presets, checks, filters, threads and the .lzma format.

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_lzflow"))
}

fn scratch(test: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("cli-c-{test}"));
    let _ = fs::remove_dir_all(&dir);
    fs::create_dir_all(&dir).unwrap();
    dir
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// Seeded text-like data with some x86-like code in the middle.
fn sample(len: usize) -> Vec<u8> {
    let words = [
        "lzflow ", "stream ", "block ", "index\n", "of ", "the ", "chunk ",
    ];
    let mut x: u32 = 12345;
    let mut out = Vec::with_capacity(len + 8);
    while out.len() < len {
        x = x.wrapping_mul(1_103_515_245).wrapping_add(12345);
        if out.len() % 5000 < 600 {
            out.push(0xE8);
            out.extend_from_slice(&((x >> 20) & 0xFF0).to_le_bytes());
        } else {
            out.extend_from_slice(words[(x >> 16) as usize % words.len()].as_bytes());
        }
    }
    out.truncate(len);
    out
}

/// Runs `lzflow c -c ARGS` with `data` on stdin; returns the compressed bytes.
fn compress(data: &[u8], args: &[&str]) -> Vec<u8> {
    let out = pipe(bin().arg("c").arg("-c").args(args), data);
    assert!(out.status.success(), "c {args:?}: {}", stderr(&out));
    out.stdout
}

fn pipe(cmd: &mut Command, data: &[u8]) -> Output {
    let mut child = cmd
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let data = data.to_vec();
    // A child that fails early stops reading; its status tells the story,
    // so a broken pipe here is not an error of its own.
    let writer = std::thread::spawn(move || stdin.write_all(&data));
    let out = child.wait_with_output().unwrap();
    let _ = writer.join();
    out
}

fn lzflow_d(compressed: &[u8]) -> Vec<u8> {
    let out = pipe(bin().args(["d", "-c"]), compressed);
    assert!(out.status.success(), "lzflow d: {}", stderr(&out));
    out.stdout
}

/// `xz -dc [extra]` of `compressed`, or None when xz is not installed.
fn xz_d(compressed: &[u8], extra: &[&str]) -> Option<Vec<u8>> {
    Command::new("xz").arg("--version").output().ok()?;
    let out = pipe(Command::new("xz").arg("-dc").args(extra), compressed);
    assert!(
        out.status.success(),
        "xz -dc rejects lzflow's output: {}",
        stderr(&out)
    );
    Some(out.stdout)
}

#[test]
fn presets_round_trip_through_lzflow_and_xz() {
    let data = sample(300_000);
    let mut sizes = Vec::new();
    for args in [
        &["-0"][..],
        &["-1"],
        &["-6"],
        &["-3e"],
        &["--preset", "2", "--extreme"],
    ] {
        let xz = compress(&data, args);
        assert_eq!(&xz[..6], b"\xFD7zXZ\0", "{args:?}: .xz magic");
        assert!(lzflow_d(&xz) == data, "{args:?}: lzflow round trip");
        if let Some(back) = xz_d(&xz, &[]) {
            assert!(back == data, "{args:?}: xz round trip");
        }
        sizes.push(xz.len());
    }
    assert!(
        sizes[2] < sizes[0],
        "-6 compresses better than -0: {sizes:?}"
    );
    assert!(sizes.iter().all(|&n| n < data.len() / 2), "{sizes:?}");
}

#[test]
fn checks_are_written_as_asked() {
    let dir = scratch("checks");
    let data = sample(20_000);
    for (check, shown) in [
        ("none", "None"),
        ("crc32", "CRC32"),
        ("crc64", "CRC64"),
        ("sha256", "SHA-256"),
    ] {
        let path = dir.join(format!("{check}.xz"));
        fs::write(&path, compress(&data, &["--check", check])).unwrap();
        let out = bin().arg("l").arg(&path).output().unwrap();
        assert!(out.status.success(), "{}", stderr(&out));
        let listing = String::from_utf8_lossy(&out.stdout).into_owned();
        assert!(
            listing.contains(&format!("  {shown} ")),
            "{check}: {listing}"
        );
        assert!(lzflow_d(&fs::read(&path).unwrap()) == data);
    }
}

#[test]
fn filters_round_trip() {
    let data = sample(120_000);
    // xz 5.4 has no RISC-V filter, so that one is checked with lzflow only.
    for (flags, xz_knows) in [
        (&["--x86"][..], true),
        (&["--x86", "--bcj-start", "4096"], true),
        (&["--arm"], true),
        (&["--armthumb"], true),
        (&["--arm64"], true),
        (&["--powerpc"], true),
        (&["--sparc"], true),
        (&["--ia64"], true),
        (&["--riscv"], false),
        (&["--delta", "4"], true),
        (&["--x86", "--delta", "2"], true),
    ] {
        let xz = compress(&data, flags);
        assert!(lzflow_d(&xz) == data, "{flags:?}: lzflow round trip");
        if xz_knows {
            if let Some(back) = xz_d(&xz, &[]) {
                assert!(back == data, "{flags:?}: xz round trip");
            }
        }
    }
    let out = bin().args(["c", "-c", "--x86", "--arm"]).output().unwrap();
    assert_eq!(out.status.code(), Some(1), "one BCJ filter at a time");
}

#[test]
fn threads_and_lzma_format() {
    let data = sample(200_000);
    let xz = compress(&data, &["-T", "2", "-1"]);
    assert!(lzflow_d(&xz) == data);
    let xz = compress(&data, &["-T0"]);
    assert!(lzflow_d(&xz) == data);

    // Several 1 MiB blocks (preset 0: 256 KiB dictionary, blocks of 3x that
    // but at least 1 MiB): two threads write exactly the single-threaded bytes.
    let big = sample(3_500_000);
    let one = compress(&big, &["-0", "-T1"]);
    let two = compress(&big, &["-0", "-T2"]);
    assert!(one == two, "-T2 output differs from -T1");
    assert!(lzflow_d(&two) == big);
    if let Some(back) = xz_d(&two, &[]) {
        assert!(back == big);
    }

    let lzma = compress(&data, &["--format", "lzma", "-2"]);
    assert_eq!(lzma[0], 0x5D, "lc=3 lp=0 pb=2 properties byte");
    assert!(lzflow_d(&lzma) == data);
    if let Some(back) = xz_d(&lzma, &["--format=lzma"]) {
        assert!(back == data);
    }
    // .lzma is one stream: -T2 puts its match finder on a thread of its
    // own, with the same bytes.
    let lzma6 = compress(&big, &["--format", "lzma", "-6", "-T1"]);
    let lzma6_t2 = compress(&big, &["--format", "lzma", "-6", "-T2"]);
    assert!(lzma6 == lzma6_t2, ".lzma -T2 output differs from -T1");
    if let Some(back) = xz_d(&lzma6_t2, &["--format=lzma"]) {
        assert!(back == big);
    }
    let out = pipe(bin().args(["c", "-c", "--format", "lzma", "--x86"]), b"x");
    assert_eq!(out.status.code(), Some(1), ".lzma takes no filters");
}

#[test]
fn file_mode_names_keeps_and_refuses() {
    let dir = scratch("files");
    let input = dir.join("notes.txt");
    let data = sample(50_000);
    fs::write(&input, &data).unwrap();
    let out = bin().arg("c").arg(&input).output().unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let xz = dir.join("notes.txt.xz");
    assert!(lzflow_d(&fs::read(&xz).unwrap()) == data);
    assert!(input.exists(), "input kept by default");

    let out = bin().arg("c").arg(&input).output().unwrap();
    assert_eq!(
        out.status.code(),
        Some(1),
        "refuses to overwrite notes.txt.xz"
    );
    assert!(stderr(&out).contains("-f"), "{}", stderr(&out));

    let out = bin().arg("c").arg(&xz).output().unwrap();
    assert_eq!(
        out.status.code(),
        Some(2),
        "passes over a .xz file with a warning, as xz"
    );

    let out = bin()
        .args(["c", "-f", "--rm", "--format", "lzma"])
        .arg(&input)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(!input.exists(), "--rm removed the input");
    assert!(lzflow_d(&fs::read(dir.join("notes.txt.lzma")).unwrap()) == data);

    // d restores it under the original name.
    let out = bin()
        .arg("d")
        .arg(dir.join("notes.txt.lzma"))
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(fs::read(&input).unwrap(), data);
}

/// `lzflow ARGS` run by a shell with `umask` set first.
#[cfg(unix)]
fn under_umask(umask: &str, args: &[&std::ffi::OsStr]) -> Output {
    Command::new("sh")
        .arg("-c")
        .arg(format!("umask {umask} && exec \"$0\" \"$@\""))
        .arg(env!("CARGO_BIN_EXE_lzflow"))
        .args(args)
        .output()
        .unwrap()
}

#[cfg(unix)]
#[test]
fn outputs_take_the_input_mode_without_special_bits_and_under_the_umask() {
    use std::os::unix::fs::PermissionsExt;
    let dir = scratch("modes");
    let mode = |p: &Path| fs::metadata(p).unwrap().permissions().mode() & 0o7777;
    let input = dir.join("tool");
    fs::write(&input, b"#!/bin/sh\necho hi\n").unwrap();
    let xz = dir.join("tool.xz");
    // (input mode, umask, output mode): setuid, setgid and sticky never
    // pass; the umask takes its bits, as for any file the user makes.
    for (from, umask, want) in [
        (0o4755, "022", 0o755),
        (0o2775, "022", 0o755),
        (0o1777, "027", 0o750),
        (0o640, "000", 0o640),
        (0o444, "022", 0o444),
    ] {
        let _ = fs::remove_file(&xz);
        fs::set_permissions(&input, fs::Permissions::from_mode(from)).unwrap();
        let out = under_umask(umask, &["c".as_ref(), "-k".as_ref(), input.as_os_str()]);
        assert!(out.status.success(), "{}", stderr(&out));
        assert_eq!(mode(&xz), want, "c of {from:o} under umask {umask}");

        // d gives the .xz file's bits the same treatment.
        fs::set_permissions(&xz, fs::Permissions::from_mode(from)).unwrap();
        let back = dir.join("tool");
        fs::set_permissions(&back, fs::Permissions::from_mode(0o644)).unwrap();
        fs::remove_file(&back).unwrap();
        let out = under_umask(umask, &["d".as_ref(), "-k".as_ref(), xz.as_os_str()]);
        assert!(out.status.success(), "{}", stderr(&out));
        assert_eq!(mode(&back), want, "d of {from:o} under umask {umask}");
        assert_eq!(fs::read(&back).unwrap(), b"#!/bin/sh\necho hi\n");
    }
    // A read-only output is still replaced with -f.
    let out = under_umask("022", &["d".as_ref(), "-kf".as_ref(), xz.as_os_str()]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(mode(&dir.join("tool")), 0o444);
}

/// What `xz --robot -lvv` says of `file`: Blocks, sizes, checks, filters.
fn xz_robot_list(file: &Path) -> String {
    let list = Command::new("xz")
        .args(["--robot", "-lvv"])
        .arg(file)
        .output()
        .unwrap();
    String::from_utf8(list.stdout).unwrap()
}

/// xz's filter-chain options, as the Linux kernel's `scripts/xz_wrap.sh`
/// gives them on xz's command line, and `lzflow c --lzma2`: xz lists the
/// chain and Block sizes written, the chunks carry the literal settings,
/// and xz and lzflow read the data back.
#[test]
fn lzma2_options_and_block_sizes_are_written_as_asked() {
    let dir = scratch("lzma2-options");
    let data = sample(600_000);
    let line = [
        "--check=crc32",
        "--x86",
        "--lzma2=dict=1MiB,lc=2,pb=0",
        "--block-size=128KiB",
        "-c",
    ];
    let out = pipe(bin().args(line), &data);
    assert!(out.status.success(), "{}", stderr(&out));
    let xz = out.stdout;
    assert!(lzflow_d(&xz) == data);
    // The first chunk of the first Block (after the 12-byte Stream Header
    // and the Block Header, whose first byte gives its size) resets the
    // dictionary and gives its properties: (pb * 5 + lp) * 9 + lc.
    let chunk = 12 + (usize::from(xz[12]) + 1) * 4;
    assert_eq!((xz[chunk] & 0xE0, xz[chunk + 5]), (0xE0, 2));
    let file = dir.join("k.xz");
    fs::write(&file, &xz).unwrap();
    if let Some(back) = xz_d(&xz, &[]) {
        assert!(back == data);
        let list = xz_robot_list(&file);
        let blocks: Vec<Vec<&str>> = list
            .lines()
            .filter(|l| l.starts_with("block\t"))
            .map(|l| l.split('\t').collect())
            .collect();
        assert_eq!(blocks.len(), 5, "{list}");
        for (i, b) in blocks.iter().enumerate() {
            let size = if i < 4 {
                131_072
            } else {
                600_000 - 4 * 131_072
            };
            assert_eq!(b[7], size.to_string(), "{list}");
            assert_eq!(
                (b[9], b[15]),
                ("CRC32", "--x86 --lzma2=dict=1MiB"),
                "{list}"
            );
        }
    }

    // --dict-size replaces the preset's dictionary: .xz's filter
    // properties and .lzma's header say 1 MiB.
    let xz = compress(&data, &["-9", "--dict-size", "1MiB"]);
    let file = dir.join("d.xz");
    fs::write(&file, &xz).unwrap();
    assert!(lzflow_d(&xz) == data);
    if xz_d(&xz, &[]).is_some() {
        let list = xz_robot_list(&file);
        assert!(list.contains("\t--lzma2=dict=1MiB\n"), "{list}");
    }
    let lzma = compress(&data, &["-F", "lzma", "--dict-size", "1MiB"]);
    assert_eq!(lzma[1..5], (1u32 << 20).to_le_bytes());

    // .lzma through the subcommand: the header holds the settings.
    let lzma = compress(
        &data,
        &[
            "-F",
            "lzma",
            "--lzma1",
            "preset=1e,dict=256KiB,lc=1,lp=3,pb=0",
        ],
    );
    // Properties (pb * 5 + lp) * 9 + lc with pb = 0, then the dictionary.
    assert_eq!(lzma[..5], [3 * 9 + 1, 0, 0, 4, 0]);
    assert!(lzflow_d(&lzma) == data);
    if let Some(back) = xz_d(&lzma, &[]) {
        assert!(back == data);
    }

    // What xz refuses, we refuse, before writing anything.
    for (args, says) in [
        (&["--lzma2", "lc=4,lp=1"][..], "lc + lp <= 4"),
        (&["--lzma2", "mf=bt9"], "mf=bt9"),
        (
            &["-F", "lzip", "--lzma2", "dict=1MiB"],
            "--lzma2 needs .xz or .lzma",
        ),
        (&["-F", "lzma", "--block-size", "1MiB"], "--block-size"),
        (&["--dict-size", "2KiB"], "4KiB to 1536MiB"),
        (&["--block-size", "0"], "block size of 0"),
    ] {
        let out = pipe(bin().args(["c", "-c"]).args(args), &data);
        assert_eq!(out.status.code(), Some(1), "{args:?}");
        assert!(out.stdout.is_empty(), "{args:?}");
        assert!(stderr(&out).contains(says), "{args:?}: {}", stderr(&out));
    }
}

/// `-M`/`--memlimit` when compressing, as xz: fewer threads first, then a
/// smaller dictionary, each said on stderr (not under -q); an error and
/// no output when even a 1 MiB dictionary does not fit.
#[test]
fn a_memory_limit_makes_the_settings_fit_as_xz_does() {
    let dir = scratch("memlimit");
    let data = sample(200_000);
    let out = pipe(bin().args(["c", "-c", "-9", "-M", "100MiB"]), &data);
    assert!(out.status.success(), "{}", stderr(&out));
    let note = stderr(&out);
    let dict: String = note
        .strip_prefix("lzflow: adjusted the dictionary size from 64 MiB to ")
        .and_then(|rest| {
            rest.strip_suffix(" MiB to not exceed the memory usage limit of 100 MiB\n")
        })
        .unwrap_or_else(|| panic!("{note}"))
        .to_string();
    let dict: u32 = dict.parse().unwrap();
    assert!((1..64).contains(&dict), "{note}");
    assert!(lzflow_d(&out.stdout) == data);
    let file = dir.join("m.xz");
    fs::write(&file, &out.stdout).unwrap();
    if xz_d(&out.stdout, &[]).is_some() {
        let list = xz_robot_list(&file);
        assert!(
            list.contains(&format!("\t--lzma2=dict={dict}MiB\n")),
            "{list}"
        );
    }

    // Threads go first; -q keeps it quiet; the xz-style spelling.
    let out = pipe(
        bin().args(["c", "-c", "-9", "-T4", "--memlimit", "300MiB"]),
        &data,
    );
    assert!(out.status.success());
    assert!(
        stderr(&out).starts_with("lzflow: reduced the number of threads from 4 to 1 "),
        "{}",
        stderr(&out)
    );
    let out = pipe(bin().args(["c", "-c", "-q", "-9", "-M", "100MiB"]), &data);
    assert!(
        out.status.success() && out.stderr.is_empty(),
        "{}",
        stderr(&out)
    );
    let out = pipe(
        bin().args(["--memlimit-compress=100MiB", "-9", "-c"]),
        &data,
    );
    assert!(
        out.status.success() && stderr(&out).contains("to not exceed"),
        "{}",
        stderr(&out)
    );
    // Within the limit already: nothing changes.
    let quiet = pipe(bin().args(["c", "-c", "-1", "-M", "1GiB"]), &data);
    assert!(quiet.stderr.is_empty() && quiet.stdout == compress(&data, &["-1"]));

    let out = pipe(bin().args(["c", "-c", "-6", "-M", "3MiB"]), &data);
    assert_eq!(out.status.code(), Some(1));
    assert!(out.stdout.is_empty());
    assert!(
        stderr(&out).contains("memory usage limit is too low"),
        "{}",
        stderr(&out)
    );
}

/// Uncompressed sizes of the Blocks of `xz`, as `xz --robot -lv` lists
/// them.
fn block_sizes(dir: &Path, xz: &[u8]) -> Vec<u64> {
    let file = dir.join("sizes.xz");
    fs::write(&file, xz).unwrap();
    xz_robot_list(&file)
        .lines()
        .filter(|l| l.starts_with("block\t"))
        .map(|l| l.split('\t').nth(7).unwrap().parse().unwrap())
        .collect()
}

/// `--block-list` ends Blocks where xz ends them (checked with xz itself
/// on the same input), alone and with `--block-size`, on one and two
/// threads (the same bytes), on the xz-style line too; bad lists are
/// refused as xz refuses them.
#[test]
fn block_lists_end_blocks_where_xz_does() {
    let dir = scratch("block-list");
    let data = sample(40_000);
    let want: [(&[&str], &[u64]); 4] = [
        (
            &["--block-list=1KiB,4KiB,,10000"],
            &[1024, 4096, 4096, 10_000, 10_000, 10_000, 784],
        ),
        (&["--block-list=1KiB,0"], &[1024, 38_976]),
        (
            &["--block-list=15000", "--block-size=6000"],
            &[6000, 6000, 3000, 6000, 6000, 3000, 6000, 4000],
        ),
        (&["--block-list=40000"], &[40_000]),
    ];
    let have_xz = Command::new("xz").arg("--version").output().is_ok();
    for (args, sizes) in want {
        let one = compress(&data, args);
        let two = compress(&data, &[&["-T2"], args].concat());
        assert!(one == two, "{args:?}: threads change the bytes");
        let xz_line = pipe(bin().arg("-c").args(args), &data);
        assert!(one == xz_line.stdout, "{args:?}: the xz-style line differs");
        assert!(lzflow_d(&one) == data);
        if !have_xz {
            eprintln!("SKIPPED: xz is not installed; block sizes not listed");
            continue;
        }
        assert_eq!(block_sizes(&dir, &one), sizes, "{args:?}");
        let theirs = pipe(Command::new("xz").arg("-c").args(args), &data);
        assert_eq!(block_sizes(&dir, &theirs.stdout), sizes, "xz {args:?}");
    }
    for bad in [
        "--block-list=0,1000",
        "--block-list=,1000",
        "--block-list=1x",
    ] {
        let out = pipe(bin().args(["c", "-c", bad]), &data);
        assert_eq!(out.status.code(), Some(1), "{bad}: {}", stderr(&out));
        assert!(out.stdout.is_empty());
    }
    let out = pipe(
        bin().args(["c", "-c", "-F", "lzma", "--block-list=1000"]),
        &data,
    );
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("--block-list needs --format xz"));
    let _ = fs::remove_dir_all(&dir);
}
