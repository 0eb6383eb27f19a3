//! `-v` progress as `xz -v` shows it, for xz's command line and `c`/`d`:
//! the summary line on a stderr that is not a terminal (checked exactly,
//! the rate and time with a pattern, and against `xz -v` itself), and the
//! redrawn line on a terminal (through `script`, where it is installed).

mod support;

use std::fs;
use std::path::Path;
use std::process::Command;

use regex::Regex;
use support::{bin, scratch, stderr, with_stdin};

/// 2 MiB that compress to roughly half.
fn data() -> Vec<u8> {
    let mut x = 0x9e37_79b9_u32;
    (0..2 << 20)
        .map(|i: u32| {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            if i.is_multiple_of(2) {
                b'a' + (x % 3) as u8
            } else {
                x as u8
            }
        })
        .collect()
}

/// A size as xz's final line shows it.
fn nice(n: u64) -> String {
    if n < 10000 {
        return format!("{n} B");
    }
    let mut d = n as f64 / 1024.0;
    let mut unit = 0;
    while d > 9999.9 {
        d /= 1024.0;
        unit += 1;
    }
    format!("{d:.1} {}", ["KiB", "MiB", "GiB"][unit])
}

/// `NAME: C / U = R`, then the optional rate and elapsed time, as a
/// pattern matching the whole of stderr.
fn summary_pattern(name: &str, compressed: u64, uncompressed: u64) -> Regex {
    let ratio = compressed as f64 / uncompressed as f64;
    let ratio = if ratio > 9.999 {
        "> 9.999".to_string()
    } else {
        format!("= {ratio:.3}")
    };
    Regex::new(&format!(
        r"\A{}: {} / {} {}(, \d+(\.\d)? [KMG]iB/s)?(, \d+:\d\d)?\n\z",
        regex::escape(name),
        regex::escape(&nice(compressed)),
        regex::escape(&nice(uncompressed)),
        regex::escape(&ratio),
    ))
    .unwrap()
}

fn run(dir: &Path, args: &[&str]) -> std::process::Output {
    bin().args(args).current_dir(dir).output().unwrap()
}

#[test]
fn the_summary_line_of_a_small_file_is_exactly_xzs() {
    let dir = scratch("progress-small");
    fs::write(dir.join("f"), "hello\n").unwrap();
    let out = run(&dir, &["-v", "-k", "f"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let packed = fs::metadata(dir.join("f.xz")).unwrap().len();
    // Too fast for a rate or a time; the ratio is beyond 9.999.
    assert_eq!(stderr(&out), format!("f: {packed} B / 6 B > 9.999\n"));
    let out = run(&dir, &["-dvc", "f.xz"]);
    assert_eq!(out.stdout, b"hello\n");
    assert_eq!(stderr(&out), format!("f.xz: {packed} B / 6 B > 9.999\n"));
    if Command::new("xz").arg("--version").output().is_ok() {
        let theirs = Command::new("xz")
            .args(["-dvc", "f.xz"])
            .current_dir(&dir)
            .output()
            .unwrap();
        assert_eq!(stderr(&out), stderr(&theirs), "as xz -dv");
    }
    // Standard input is "(stdin)", as for xz.
    let mut cmd = bin();
    cmd.args(["-dv"]);
    let out = with_stdin(cmd, &fs::read(dir.join("f.xz")).unwrap());
    assert_eq!(stderr(&out), format!("(stdin): {packed} B / 6 B > 9.999\n"));
    // No -v, or -q: no line at all.
    for args in [
        &["-dc", "f.xz"][..],
        &["d", "-q", "-c", "f.xz"],
        &["c", "-c", "f"],
    ] {
        let out = run(&dir, args);
        assert_eq!(out.status.code(), Some(0));
        assert_eq!(stderr(&out), "", "{args:?}");
    }
    fs::remove_dir_all(&dir).ok();
}

#[test]
fn c_and_d_print_the_summary_line_with_rate_and_time_fields() {
    let dir = scratch("progress-big");
    let input = data();
    fs::write(dir.join("big"), &input).unwrap();
    let size = input.len() as u64;
    // c -v, to a file: the compressed size is the file's.
    let out = run(&dir, &["c", "-v", "big"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let packed = fs::metadata(dir.join("big.xz")).unwrap().len();
    assert!(packed < size * 3 / 4, "{packed}");
    let pattern = summary_pattern("big", packed, size);
    assert!(pattern.is_match(&stderr(&out)), "{:?}", stderr(&out));
    // The same through xz's command line, to standard output.
    let out = run(&dir, &["-vkc", "big"]);
    assert_eq!(out.stdout.len() as u64, packed);
    assert!(pattern.is_match(&stderr(&out)), "{:?}", stderr(&out));
    // d -v: the same figures, now read from the .xz file.
    let out = run(&dir, &["d", "-v", "-c", "big.xz"]);
    assert!(out.stdout == input);
    let pattern = summary_pattern("big.xz", packed, size);
    assert!(pattern.is_match(&stderr(&out)), "{:?}", stderr(&out));
    if Command::new("xz").arg("--version").output().is_ok() {
        // xz's own line for the same file, rate and time aside.
        let theirs = Command::new("xz")
            .args(["-dvc", "big.xz"])
            .current_dir(&dir)
            .output()
            .unwrap();
        assert!(pattern.is_match(&stderr(&theirs)), "{:?}", stderr(&theirs));
    }
    fs::remove_dir_all(&dir).ok();
}

#[test]
fn on_a_terminal_the_line_ends_at_100_percent() {
    if Command::new("script").arg("--version").output().is_err() {
        eprintln!("SKIPPED: script (util-linux) is not installed");
        return;
    }
    let dir = scratch("progress-tty");
    fs::write(dir.join("big"), data()).unwrap();
    let line = format!("{} -v -k -c big > /dev/null", env!("CARGO_BIN_EXE_lzflow"));
    let out = Command::new("script")
        .args(["-qc", &line, "/dev/null"])
        .current_dir(&dir)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    // The terminal turns "\n" into "\r\n".
    let text = String::from_utf8_lossy(&out.stdout).replace("\r\n", "\n");
    assert!(text.starts_with("big (1/1)\n"), "{text:?}");
    let last = text.rsplit('\r').next().unwrap();
    // xz's columns: " %6s %35s   %9s %10s   %10s", the time left empty.
    let columns = Regex::new(
        r"\A  100 % +\d+\.\d KiB / 2048\.0 KiB = 0\.\d{3}   [ \d.KMGiB/s]{9} [ \d:]{10} {13}\n\z",
    )
    .unwrap();
    assert!(columns.is_match(last), "{last:?}");
    assert_eq!(last.len(), 1 + 6 + 1 + 35 + 3 + 9 + 1 + 10 + 3 + 10 + 1);
    fs::remove_dir_all(&dir).ok();
}
