//! `lzflow c -F lzip`, `d`, `t` and `l` on .lz files, checked against
//! `lzip` and xz-utils' .lz test files.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_lzflow"))
}

fn xz_utils(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../fixtures/xz-utils/files")
        .join(name)
}

fn scratch(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("lzflow-cli-lzip-{}-{tag}", std::process::id()));
    let _ = fs::remove_dir_all(&d);
    fs::create_dir_all(&d).unwrap();
    d
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn sample() -> Vec<u8> {
    (0..200_000u32)
        .flat_map(|i| format!("line {} of {}\n", i % 977, i % 13).into_bytes())
        .take(300_000)
        .collect()
}

#[test]
fn compress_to_lz_then_decompress_by_magic() {
    let dir = scratch("roundtrip");
    let input = dir.join("data.txt");
    let data = sample();
    fs::write(&input, &data).unwrap();
    let out = bin()
        .args(["c", "-F", "lzip", "-1"])
        .arg(&input)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let lz = dir.join("data.txt.lz");
    assert_eq!(&fs::read(&lz).unwrap()[..5], b"LZIP\x01");
    if Command::new("lzip").arg("--version").output().is_ok() {
        let t = Command::new("lzip").arg("-t").arg(&lz).output().unwrap();
        assert!(t.status.success(), "lzip -t: {}", stderr(&t));
    } else {
        eprintln!("SKIPPED: lzip is not installed; lzip -t not run");
    }
    fs::remove_file(&input).unwrap();
    let out = bin().arg("d").arg(&lz).output().unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(
        fs::read(&input).unwrap(),
        data,
        ".lz stripped, content back"
    );
    let out = bin()
        .args(["c", "-F", "lzip", "--x86"])
        .arg(&input)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains(".lz supports neither filters"),
        "{}",
        stderr(&out)
    );
    let _ = fs::remove_dir_all(dir);
}

#[test]
fn test_and_list_xz_utils_lz_files() {
    let out = bin()
        .args(["t", "-v"])
        .arg(xz_utils("good-2-v1-v1.lz"))
        .arg(xz_utils("good-1-v1-trailing-2.lz"))
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(stdout(&out).matches("OK (13 bytes)").count(), 2);
    for (name, message) in [
        ("bad-1-v1-crc32.lz", "lzip CRC32 mismatch"),
        ("bad-1-v1-member-size.lz", "lzip member size mismatch"),
        ("bad-1-v1-dict-1.lz", "invalid lzip dictionary size"),
        ("unsupported-1-v234.lz", "unsupported lzip member version"),
    ] {
        let out = bin().arg("t").arg(xz_utils(name)).output().unwrap();
        assert_eq!(out.status.code(), Some(1), "{name}");
        assert!(stderr(&out).contains(message), "{name}: {}", stderr(&out));
    }
    let out = bin()
        .args(["l", "-v"])
        .arg(xz_utils("good-2-v1-v1.lz"))
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    let summary = text.lines().nth(1).unwrap();
    assert!(summary.trim_start().starts_with("2 "), "{text}");
    assert!(summary.contains("13 B"), "{text}");
    assert_eq!(
        text.lines().filter(|l| l.contains("  4096 B  ")).count(),
        2,
        "{text}"
    );
}

#[test]
fn single_stream_stops_after_the_first_member() {
    let dir = scratch("single");
    let out = bin()
        .args(["d", "-c", "--single-stream"])
        .arg(xz_utils("good-2-v1-v1.lz"))
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let all = bin()
        .args(["d", "-c"])
        .arg(xz_utils("good-2-v1-v1.lz"))
        .output()
        .unwrap();
    assert_eq!(all.stdout, b"Hello\nWorld!\n");
    assert!(!out.stdout.is_empty() && out.stdout.len() < all.stdout.len());
    assert!(all.stdout.starts_with(&out.stdout));
    let _ = fs::remove_dir_all(dir);
}

#[test]
fn threads_write_plzip_members_the_same_whatever_their_number() {
    let dir = scratch("threads");
    let input = dir.join("big.txt");
    let data: Vec<u8> = sample().repeat(3);
    fs::write(&input, &data).unwrap();
    let mut outputs = Vec::new();
    for threads in ["2", "3"] {
        let out = bin()
            .args(["c", "-F", "lzip", "-0", "-c", "-T", threads])
            .arg(&input)
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", stderr(&out));
        outputs.push(out.stdout);
    }
    assert!(outputs[0] == outputs[1], "-T2 and -T3 differ");
    let lz = dir.join("big.txt.lz");
    fs::write(&lz, &outputs[0]).unwrap();
    let listed = bin().arg("l").arg(&lz).output().unwrap();
    let members: usize = stdout(&listed)
        .lines()
        .nth(1)
        .unwrap()
        .split_whitespace()
        .next()
        .unwrap()
        .parse()
        .unwrap();
    assert_eq!(
        members,
        data.len().div_ceil(128 << 10),
        "members of 128 KiB at -0"
    );
    if Command::new("lzip").arg("--version").output().is_ok() {
        let t = Command::new("lzip").arg("-t").arg(&lz).output().unwrap();
        assert!(t.status.success(), "lzip -t: {}", stderr(&t));
    }
    let back = bin().args(["d", "-c"]).arg(&lz).output().unwrap();
    assert!(back.stdout == data);
    let _ = fs::remove_dir_all(dir);
}

/// Through a link named `lzip`, lzip's own options work as in lzip: `-s`
/// (a size, or 12 to 29 for a power of two), `-b` (member size), `-o`
/// (keeps the input), `-n` (threads, as plzip) and `-l`; lzip reads what
/// comes out, and `lzip -lv` shows the dictionary and member count asked.
#[cfg(unix)]
#[test]
fn a_link_named_lzip_takes_lzip_s_options() {
    let dir = scratch("as-lzip");
    let lzip_link = dir.join("lzip");
    std::os::unix::fs::symlink(env!("CARGO_BIN_EXE_lzflow"), &lzip_link).unwrap();
    let data = sample();
    let f = dir.join("f");
    fs::write(&f, &data).unwrap();
    let run = |args: &[&str]| {
        let out = Command::new(&lzip_link)
            .args(args)
            .current_dir(&dir)
            .output()
            .unwrap();
        assert!(out.status.success(), "{args:?}: {}", stderr(&out));
        out
    };
    let real = Command::new("lzip").arg("--version").output().is_ok();
    // (options, dictionary lzip -lv shows, members)
    for (args, dict, members) in [
        (&["-kf", "-s", "16", "f"][..], "64 KiB", 1),
        (&["-kf", "-s1MiB", "f"], "1 MiB", 1),
        (&["-kf", "-0", "-b", "100KiB", "f"], "64 KiB", 3),
        (
            &["-kf", "-0", "--member-size=100KiB", "-n", "2", "f"],
            "64 KiB",
            3,
        ),
    ] {
        run(args);
        let lz = dir.join("f.lz");
        let back = bin().args(["d", "-c"]).arg(&lz).output().unwrap();
        assert!(back.stdout == data, "{args:?}");
        let list = stdout(&run(&["-l", "f.lz"]));
        assert!(list.contains(&format!("{members:>7} ")), "{args:?}: {list}");
        if real {
            let lv = Command::new("lzip")
                .args(["-lv"])
                .arg(&lz)
                .output()
                .unwrap();
            let lv = stdout(&lv);
            let row = lv.lines().nth(1).unwrap_or_default();
            let fields: Vec<&str> = row.split_whitespace().collect();
            assert_eq!(
                fields[..3].join(" "),
                format!("{dict} {members}"),
                "{args:?}: {lv}"
            );
        }
    }
    // -o writes there and keeps the input; -o - is standard output.
    run(&["-o", "g.lz", "f"]);
    assert!(f.exists());
    let back = bin()
        .args(["d", "-c"])
        .arg(dir.join("g.lz"))
        .output()
        .unwrap();
    assert!(back.stdout == data);
    run(&["-d", "-o", "g.out", "g.lz"]);
    assert!(fs::read(dir.join("g.out")).unwrap() == data);
    assert!(dir.join("g.lz").exists());
    let out = run(&["-o", "-", "f"]);
    assert_eq!(&out.stdout[..4], b"LZIP");
    // Not options of xz's line.
    let out = bin().args(["-s", "16", "-k"]).arg(&f).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    fs::remove_dir_all(&dir).unwrap();
}
