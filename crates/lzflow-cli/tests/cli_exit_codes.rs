//! Exit codes: xz's for the single-file commands and xz's command line (0
//! ok, 1 error, 2 warning), 7-Zip's for the archive commands (0 ok, 1
//! warning, 2 fatal error, 7 command-line error, 8 not enough memory),
//! each code that can be triggered, and both tables in `--help`.

mod support;

use std::fs;
use std::path::Path;
use std::process::Command;

use support::{bin, has_7zz, scratch, stderr};

#[test]
fn help_states_both_tables() {
    let out = bin().arg("--help").output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    let text = String::from_utf8_lossy(&out.stdout).replace('\n', " ");
    let text = text.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(
        text.contains(
            "Exit status of c, d, the xz command line, and t and l on .xz/.lzma/.lz files (as xz): \
             0 success, 1 error, 2 warning."
        ),
        "{text}"
    );
    assert!(
        text.contains(
            "Exit status of a, x, e, and t and l on 7z/zip archives (as 7-Zip): 0 success, \
             1 warning (some files not extracted), 2 fatal error, 7 command-line error, \
             8 not enough memory (a memory limit was reached)."
        ),
        "{text}"
    );
}

/// `a.txt`, `b/a.txt` and a larger `big.bin` in `dir/t.7z`.
fn archive(dir: &Path) -> std::path::PathBuf {
    let src = dir.join("src");
    fs::create_dir_all(src.join("b")).unwrap();
    fs::write(src.join("a.txt"), "top").unwrap();
    fs::write(src.join("b/a.txt"), "deep").unwrap();
    fs::write(src.join("big.bin"), vec![7u8; 1 << 20]).unwrap();
    let archive = dir.join("t.7z");
    let out = bin()
        .arg("a")
        .arg(&archive)
        .args(["a.txt", "b", "big.bin", "-q"])
        .current_dir(&src)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    archive
}

#[test]
fn archive_commands_exit_as_7zip() {
    let dir = scratch("exit-7z");
    let archive = archive(&dir);
    let target = dir.join("out");
    let run = |args: &[&str]| bin().args(args).current_dir(&dir).output().unwrap();
    // 0: everything extracted.
    let out = run(&["x", "t.7z", "-oout"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    // 0: existing files kept as asked (-aos), as 7-Zip.
    let out = run(&["x", "t.7z", "-oout", "-aos"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    // 2: existing files stop the extraction (a fatal error: nothing done).
    let out = run(&["x", "t.7z", "-oout"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    fs::remove_dir_all(&target).unwrap();
    // 1: a file skipped because an earlier entry has its name.
    let out = run(&["e", "t.7z", "-oout"]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    fs::remove_dir_all(&target).unwrap();
    // 7: command-line errors, from clap and from the switches' values.
    for args in [
        &["x", "t.7z", "--no-such-switch"][..],
        &["x"],
        &["e", "t.7z", "-aoa", "-aos"],
        &["a", "-mx=12", "new.7z", "src"],
        &["a", "-tbz", "new.7z", "src"],
    ] {
        let out = run(args);
        assert_eq!(out.status.code(), Some(7), "{args:?}: {}", stderr(&out));
    }
    assert!(!dir.join("new.7z").exists());
    // 8: the memory limit is too low for the archive's dictionary.
    for args in [
        &["x", "t.7z", "-oout", "--memlimit", "1KiB"][..],
        &["t", "t.7z", "--memlimit", "1KiB"],
    ] {
        let out = run(args);
        assert_eq!(out.status.code(), Some(8), "{args:?}: {}", stderr(&out));
        assert!(
            stderr(&out).contains("memory limit exceeded"),
            "{}",
            stderr(&out)
        );
    }
    // 2: damaged data, for x, t and l.
    let mut bytes = fs::read(&archive).unwrap();
    bytes.truncate(bytes.len() - 10);
    fs::write(dir.join("cut.7z"), &bytes).unwrap();
    for command in ["x", "t", "l"] {
        let out = run(&[command, "cut.7z", "-oout"][..if command == "x" { 3 } else { 2 }]);
        assert_eq!(out.status.code(), Some(2), "{command}: {}", stderr(&out));
    }
    // 2: `a` that cannot read an input (and leaves no archive).
    let out = run(&["a", "new.7z", "missing-input"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(!dir.join("new.7z").exists());
    if has_7zz() {
        // The same codes from 7-Zip itself, where its behaviour is the
        // same: -aos skips quietly, a bad switch is 7, damage is 2.
        let seven = |args: &[&str]| {
            Command::new("7zz")
                .args(args)
                .current_dir(&dir)
                .output()
                .unwrap()
                .status
                .code()
        };
        assert_eq!(seven(&["x", "t.7z", "-o7out", "-bd"]), Some(0));
        assert_eq!(seven(&["x", "t.7z", "-o7out", "-bd", "-aos"]), Some(0));
        assert_eq!(seven(&["x", "t.7z", "-bd", "--no-such-switch"]), Some(7));
        assert_eq!(seven(&["t", "cut.7z", "-bd"]), Some(2));
    }
    fs::remove_dir_all(&dir).ok();
}

#[test]
fn xz_command_line_exits_as_xz() {
    let dir = scratch("exit-xz");
    fs::write(dir.join("f"), "hello\n").unwrap();
    let out = bin().args(["-k", "f"]).current_dir(&dir).output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let xz = fs::read(dir.join("f.xz")).unwrap();
    fs::write(dir.join("copy.xz"), &xz).unwrap();
    let mut junk = xz.clone();
    junk.extend_from_slice(b"junk\n");
    fs::write(dir.join("junk.xz"), &junk).unwrap();
    fs::write(dir.join("cut.xz"), &xz[..xz.len() - 9]).unwrap();
    fs::create_dir_all(dir.join("folder")).unwrap();
    // (arguments, exit code): success, errors, and the files xz passes
    // over with a warning.
    let cases: [(&[&str], i32); 10] = [
        (&["-dc", "copy.xz"], 0),
        (&["-t", "copy.xz"], 0),
        (&["-d", "missing.xz"], 1),
        (&["--bogus"], 1),
        (&["-k", "f"], 1),
        (&["-dc", "junk.xz"], 1),
        (&["-dc", "cut.xz"], 1),
        (&["-t", "f"], 1),
        (&["-k", "copy.xz"], 2),
        (&["-k", "folder"], 2),
    ];
    let compare = Command::new("xz").arg("--version").output().is_ok();
    for (args, code) in cases {
        let out = bin().args(args).current_dir(&dir).output().unwrap();
        assert_eq!(out.status.code(), Some(code), "{args:?}: {}", stderr(&out));
        if compare {
            let theirs = Command::new("xz")
                .args(args)
                .current_dir(&dir)
                .output()
                .unwrap();
            assert_eq!(theirs.status.code(), Some(code), "xz {args:?}");
        }
    }
    // The warning's text, as xz words it after the file name.
    let out = bin()
        .args(["-k", "folder"])
        .current_dir(&dir)
        .output()
        .unwrap();
    assert_eq!(stderr(&out), "lzflow: folder: is a directory, skipping\n");
    // The subcommands share the table: `c` passing over a .xz file warns.
    let out = bin()
        .args(["c", "copy.xz"])
        .current_dir(&dir)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(!dir.join("copy.xz.xz").exists());
    fs::remove_dir_all(&dir).ok();
}

/// Runs `cmd`, killing it (and failing) if it has not ended in 20 s.
#[cfg(unix)]
fn output_within_20s(cmd: &mut Command) -> std::process::Output {
    let mut child = cmd
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let start = std::time::Instant::now();
    while child.try_wait().unwrap().is_none() {
        if start.elapsed() > std::time::Duration::from_secs(20) {
            let _ = child.kill();
            panic!("{cmd:?} waited on a FIFO");
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    child.wait_with_output().unwrap()
}

/// A FIFO, or a symbolic link that would be removed, named on the xz
/// command line is passed over with xz's warning (exit 2) when the output
/// would be a file named after it: opening the FIFO used to wait for a
/// writer for ever, and the link was compressed through and then removed.
#[cfg(unix)]
#[test]
fn a_fifo_or_a_link_is_skipped_as_xz_skips_it() {
    let dir = scratch("exit-fifo");
    for name in ["pipe", "pipe.xz"] {
        let st = Command::new("mkfifo").arg(dir.join(name)).status().unwrap();
        assert!(st.success(), "mkfifo");
    }
    fs::write(dir.join("target"), "hello\n").unwrap();
    std::os::unix::fs::symlink("target", dir.join("link")).unwrap();
    let compare = Command::new("xz").arg("--version").output().is_ok();
    for (args, name, why) in [
        (["-k", "pipe"], "pipe", "not a regular file"),
        (["-dk", "pipe.xz"], "pipe.xz", "not a regular file"),
        (["-z", "link"], "link", "is a symbolic link"),
    ] {
        let out = output_within_20s(bin().args(args).current_dir(&dir));
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", stderr(&out));
        assert_eq!(stderr(&out), format!("lzflow: {name}: {why}, skipping\n"));
        if compare {
            let theirs = output_within_20s(Command::new("xz").args(args).current_dir(&dir));
            assert_eq!(theirs.status.code(), Some(2), "xz {args:?}");
        }
    }
    // Neither removed the link nor wrote beside it.
    assert!(fs::symlink_metadata(dir.join("link")).is_ok());
    assert!(!dir.join("link.xz").exists());
    // Kept, the link is followed (as xz 5.4 follows it with -k); with
    // --rm it is passed over.
    for args in [&["-k", "link"][..], &["c", "link"], &["c", "--rm", "link"]] {
        let _ = fs::remove_file(dir.join("link.xz"));
        let out = output_within_20s(bin().args(args).current_dir(&dir));
        let rm = args.contains(&"--rm");
        assert_eq!(out.status.code(), Some(if rm { 2 } else { 0 }), "{args:?}");
        assert_eq!(dir.join("link.xz").exists(), !rm, "{args:?}");
        assert!(fs::symlink_metadata(dir.join("link")).is_ok(), "{args:?}");
        if !rm {
            let out = output_within_20s(bin().args(["d", "-c", "link.xz"]).current_dir(&dir));
            assert_eq!(out.stdout, b"hello\n", "{args:?}");
        }
    }
    // xz follows a link under -k since 5.4.0 (earlier versions want -f).
    if compare && xz_version().expect("xz --version names its version") >= (5, 4) {
        assert!(!dir.join("link.xz").exists(), "--rm wrote nothing");
        let theirs = output_within_20s(Command::new("xz").args(["-k", "link"]).current_dir(&dir));
        assert_eq!(theirs.status.code(), Some(0), "xz -k link");
        assert!(dir.join("link.xz").exists(), "xz -k follows the link");
    }
    fs::remove_dir_all(&dir).ok();
}

/// The installed xz's (major, minor) version, from `xz --version`.
fn xz_version() -> Option<(u32, u32)> {
    let out = Command::new("xz").arg("--version").output().ok()?;
    let text = String::from_utf8(out.stdout).ok()?;
    let version = text.lines().next()?.rsplit(' ').next()?;
    let mut parts = version.split('.').map(|p| p.parse::<u32>().ok());
    Some((parts.next()??, parts.next()??))
}

/// Decompressing or testing standard input on a terminal is refused, as
/// xz refuses it, rather than waited on (through `script`, which gives
/// the command a terminal).
#[cfg(unix)]
#[test]
fn compressed_data_is_not_read_from_a_terminal() {
    if Command::new("script").arg("--version").output().is_err() {
        eprintln!("SKIPPED: script (util-linux) is not installed");
        return;
    }
    for args in ["-d", "-dc", "-t"] {
        let line = format!("{} {args}", env!("CARGO_BIN_EXE_lzflow"));
        let out = output_within_20s(
            Command::new("script")
                .args(["-qec", &line, "/dev/null"])
                .stdin(std::process::Stdio::null()),
        );
        assert_eq!(out.status.code(), Some(1), "{args}");
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(
            text.contains("compressed data cannot be read from a terminal"),
            "{args}: {text:?}"
        );
    }
}
