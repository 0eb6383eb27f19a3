//! xz's command line: `tar -I lzflow` both ways, a bare `lzflow` between
//! pipes, xz's defaults for files, and the program names of a link.
#![cfg(unix)]

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

fn bin() -> &'static str {
    env!("CARGO_BIN_EXE_lzflow")
}

fn temp(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("lzflow-xz-mode-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn have(tool: &str) -> bool {
    let found = Command::new("sh")
        .args(["-c", &format!("command -v {tool}")])
        .stdout(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    if !found {
        assert!(
            std::env::var_os("CI").is_none(),
            "`{tool}` is not installed, and CI is set"
        );
        eprintln!("SKIP: `{tool}` not installed");
    }
    found
}

fn text(n: usize) -> Vec<u8> {
    (0..n as u32)
        .flat_map(|i| format!("line {i} of the xz mode test\n").into_bytes())
        .take(n)
        .collect()
}

fn run(c: &mut Command) -> std::process::Output {
    let out = c.output().unwrap();
    assert!(out.status.success(), "{c:?}: {out:?}");
    out
}

#[test]
fn tar_uses_lzflow_as_its_compressor_both_ways() {
    if !have("tar") {
        return;
    }
    let dir = temp("tar");
    let src = dir.join("src");
    std::fs::create_dir_all(src.join("sub")).unwrap();
    std::fs::write(src.join("a.txt"), text(300_000)).unwrap();
    std::fs::write(src.join("sub/b"), b"bee").unwrap();
    let archive = dir.join("x.tar.xz");
    run(Command::new("tar")
        .arg("-I")
        .arg(bin())
        .arg("-cf")
        .arg(&archive)
        .arg("-C")
        .arg(&src)
        .arg("."));
    assert!(std::fs::metadata(&archive).unwrap().len() > 0);
    if have("xz") {
        run(Command::new("xz").arg("-t").arg(&archive));
    }
    let out = dir.join("out");
    std::fs::create_dir_all(&out).unwrap();
    run(Command::new("tar")
        .arg("-I")
        .arg(bin())
        .arg("-xf")
        .arg(&archive)
        .arg("-C")
        .arg(&out));
    assert_eq!(
        std::fs::read(out.join("a.txt")).unwrap(),
        std::fs::read(src.join("a.txt")).unwrap()
    );
    assert_eq!(std::fs::read(out.join("sub/b")).unwrap(), b"bee");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Runs `program args` with `input` on standard input.
/// `program ARGS` run in `dir`, its output collected.
fn run_in(program: &str, dir: &Path, args: &[&str]) -> std::process::Output {
    Command::new(program)
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap()
}

fn piped(program: &Path, args: &[&str], input: &[u8]) -> std::process::Output {
    use std::io::Write;
    let mut child = Command::new(program)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let data = input.to_vec();
    let feeder = std::thread::spawn(move || {
        let _ = stdin.write_all(&data);
    });
    let out = child.wait_with_output().unwrap();
    feeder.join().unwrap();
    out
}

#[test]
fn a_bare_lzflow_compresses_between_pipes_and_xz_reads_it() {
    let data = text(200_000);
    let out = piped(Path::new(bin()), &[], &data);
    assert!(out.status.success(), "{out:?}");
    assert_eq!(&out.stdout[..6], b"\xFD7zXZ\0");
    let back = piped(Path::new(bin()), &["-d"], &out.stdout);
    assert!(back.status.success(), "{back:?}");
    assert_eq!(back.stdout, data);
    if have("xz") {
        let back = piped(Path::new("xz"), &["-dc"], &out.stdout);
        assert_eq!(back.stdout, data);
    }
    // An option xz does not know is an error (status 1), not a guess.
    let bad = piped(Path::new(bin()), &["-Y"], b"");
    assert_eq!(bad.status.code(), Some(1), "{bad:?}");
    assert!(String::from_utf8_lossy(&bad.stderr).contains("-Y"));
}

#[test]
fn files_follow_xz_defaults() {
    let dir = temp("files");
    let f = dir.join("f.txt");
    let data = text(50_000);
    std::fs::write(&f, &data).unwrap();
    // Compressed, the input goes; -k keeps the input.
    run(Command::new(bin()).arg("-6").arg(&f));
    assert!(!f.exists());
    let xz = dir.join("f.txt.xz");
    run(Command::new(bin()).arg("-dk").arg(&xz));
    assert_eq!(std::fs::read(&f).unwrap(), data);
    assert!(xz.exists());
    // -t and -l read it; -dc writes to standard output, keeping it.
    run(Command::new(bin()).arg("-t").arg(&xz));
    let list = run(Command::new(bin()).arg("-l").arg(&xz));
    assert!(String::from_utf8_lossy(&list.stdout).contains("CRC64"));
    let out = run(Command::new(bin()).arg("-dc").arg(&xz));
    assert_eq!(out.stdout, data);
    // An existing output is kept unless -f.
    let again = Command::new(bin()).arg("-d").arg(&xz).output().unwrap();
    assert_eq!(again.status.code(), Some(1), "{again:?}");
    run(Command::new(bin()).arg("-df").arg(&xz));
    assert!(!xz.exists());
    assert_eq!(std::fs::read(&f).unwrap(), data);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn program_names_of_a_link_choose_the_operation() {
    let dir = temp("names");
    for name in ["xzcat", "unxz", "lzma"] {
        std::os::unix::fs::symlink(bin(), dir.join(name)).unwrap();
    }
    let data = text(10_000);
    let lz = piped(&dir.join("lzma"), &[], &data);
    assert!(lz.status.success(), "{lz:?}");
    assert_eq!(lz.stdout[0], 0x5D, "an .lzma header");
    let xz = piped(Path::new(bin()), &["-z"], &data).stdout;
    let f = dir.join("g.xz");
    std::fs::write(&f, &xz).unwrap();
    let cat = run(Command::new(dir.join("xzcat")).arg(&f));
    assert_eq!(cat.stdout, data);
    assert!(f.exists());
    run(Command::new(dir.join("unxz")).arg(&f));
    assert!(!f.exists());
    assert_eq!(std::fs::read(dir.join("g")).unwrap(), data);
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The man page and the completion scripts come from the command's
/// definition: every subcommand is in them.
#[test]
fn man_page_and_completions_are_generated() {
    let man = run(Command::new(bin()).arg("manpage"));
    let man = String::from_utf8(man.stdout).unwrap();
    assert!(
        man.starts_with(".ie") || man.contains(".TH lzflow"),
        "{man}"
    );
    assert!(
        man.contains("tar \\-I lzflow"),
        "the xz mode is in the page"
    );
    for shell in ["bash", "zsh", "fish"] {
        let out = run(Command::new(bin()).args(["completions", shell]));
        let script = String::from_utf8(out.stdout).unwrap();
        for sub in ["extract", "compress", "decompress", "completions"] {
            assert!(script.contains(sub), "{shell}: {sub}");
        }
    }
    let bad = Command::new(bin())
        .args(["completions", "cmd.exe"])
        .output()
        .unwrap();
    assert_eq!(bad.status.code(), Some(1));
}

#[test]
fn inputs_xz_would_not_remove_are_passed_over_as_xz_does() {
    use std::os::unix::fs::PermissionsExt;
    let with_xz = have("xz");
    let dir = temp("keep");
    // (what the input is: a mode, or None for a second hard link; xz's
    // warning)
    let cases = [
        ("a second hard link", None, "more than one hard link"),
        ("setuid", Some(0o4755), "setuid or setgid"),
        ("setgid", Some(0o2755), "setuid or setgid"),
        ("sticky", Some(0o1644), "sticky bit"),
    ];
    let make = |f: &Path, mode: Option<u32>| match mode {
        Some(mode) => std::fs::set_permissions(f, PermissionsExt::from_mode(mode)).unwrap(),
        None => {
            let mut link = f.as_os_str().to_owned();
            link.push(".link");
            std::fs::hard_link(f, link).unwrap();
        }
    };
    let data = text(10_000);
    for (what, mode, warning) in cases {
        let mut programs = vec![(bin(), vec![]), (bin(), vec!["c", "--rm"])];
        if with_xz {
            programs.push(("xz", vec![]));
        }
        for (program, args) in programs {
            let _ = std::fs::remove_dir_all(&dir);
            std::fs::create_dir_all(&dir).unwrap();
            let f = dir.join("in.txt");
            std::fs::write(&f, &data).unwrap();
            make(&f, mode);
            // Removing the input after compressing it: passed over.
            let out = Command::new(program).args(&args).arg(&f).output().unwrap();
            let err = String::from_utf8_lossy(&out.stderr);
            assert_eq!(
                out.status.code(),
                Some(2),
                "{program} {args:?}, {what}: {err}"
            );
            assert!(err.contains(warning), "{program} {args:?}, {what}: {err}");
            assert_eq!(std::fs::read(&f).unwrap(), data, "{what}: input kept");
            assert!(!dir.join("in.txt.xz").exists(), "{what}: no output");
            // With -f it is done.
            let out = Command::new(program)
                .args(&args)
                .arg("-f")
                .arg(&f)
                .output()
                .unwrap();
            assert!(out.status.success(), "{program} -f, {what}: {out:?}");
            assert!(!f.exists(), "{program} -f, {what}: input removed");
            // Decompressing removes the .xz: the same rule for it.
            let xz = dir.join("in.txt.xz");
            make(&xz, mode);
            let out = Command::new(program)
                .args(if args.is_empty() {
                    &["-d"][..]
                } else {
                    &["d", "--rm"]
                })
                .arg(&xz)
                .output()
                .unwrap();
            assert_eq!(out.status.code(), Some(2), "{program} d, {what}: {out:?}");
            assert!(xz.exists() && !f.exists(), "{program} d, {what}");
            std::fs::remove_file(&xz).unwrap();
        }
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `-Q` keeps a warning from making the status 2, and `--ignore-check`
/// decodes a Block whose check does not match; xz does the same.
#[test]
fn no_warn_and_ignore_check_behave_as_in_xz() {
    let with_xz = have("xz");
    let dir = temp("quiet-check");
    let f = dir.join("f.txt");
    let data = text(30_000);
    std::fs::write(&f, &data).unwrap();
    std::os::unix::fs::symlink(&f, dir.join("link")).unwrap();
    run(Command::new(bin()).args(["-k"]).arg(&f));
    // The last byte of the Block's check (CRC64) comes right before the
    // Index, whose size the Stream Footer's Backward Size gives.
    let mut xz = std::fs::read(dir.join("f.txt.xz")).unwrap();
    let footer = xz.len() - 12;
    let backward = u32::from_le_bytes(xz[footer + 4..footer + 8].try_into().unwrap());
    let index = footer - (backward as usize + 1) * 4;
    xz[index - 1] ^= 0xFF;
    let bad = dir.join("bad.xz");
    std::fs::write(&bad, &xz).unwrap();
    let mut programs = vec![bin()];
    if with_xz {
        programs.push("xz");
    }
    for program in programs {
        let status = |args: &[&str]| {
            let out = run_in(program, &dir, args);
            (out.status.code(), out.stdout)
        };
        // A symbolic link to be removed is passed over: a warning.
        assert_eq!(status(&["link"]).0, Some(2), "{program}");
        assert_eq!(status(&["-Q", "link"]).0, Some(0), "{program}");
        assert_eq!(status(&["--no-warn", "link"]).0, Some(0), "{program}");
        // A bad check is an error, with or without -Q.
        assert_eq!(status(&["-dcQ", "bad.xz"]).0, Some(1), "{program}");
        let (code, out) = status(&["-dc", "--ignore-check", "bad.xz"]);
        assert_eq!(code, Some(0), "{program}");
        assert!(out == data, "{program}: --ignore-check gives the data");
        assert_eq!(
            status(&["-t", "--ignore-check", "bad.xz"]).0,
            Some(0),
            "{program}"
        );
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A file of the fixtures (`generated/xz`, `xz-utils/files`).
fn fixture(dir: &str, name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../fixtures")
        .join(dir)
        .join(name)
}

/// `two.xz` in `dir`: two streams (SHA-256, then a multi-block CRC64 one
/// with sizes in its headers) with Stream Padding between and after them.
fn two_streams(dir: &Path) -> PathBuf {
    let mut two = std::fs::read(fixture("generated/xz", "check-sha256.xz")).unwrap();
    two.extend_from_slice(&[0; 8]);
    two.extend(std::fs::read(fixture("generated/xz", "multiblock-mt.xz")).unwrap());
    two.extend_from_slice(&[0; 4]);
    let path = dir.join("two.xz");
    std::fs::write(&path, &two).unwrap();
    path
}

/// `--robot -l` and `--robot -lv` (and `-l`, `-lv`) print what xz prints,
/// byte for byte:
/// multi-block, multi-stream with padding, every check, an empty file,
/// and the totals line after a file that cannot be listed.
#[test]
fn robot_listings_are_xz_s() {
    let dir = temp("robot");
    let fixture = |name: &str| fixture("generated/xz", name);
    let mut files: Vec<PathBuf> = [
        "multiblock-mt.xz",
        "check-none.xz",
        "check-crc32.xz",
        "empty.xz",
    ]
    .iter()
    .map(|n| fixture(n))
    .collect();
    files.push(two_streams(&dir));
    let with_xz = have("xz");
    for verbose in [&["--robot", "-l"][..], &["--robot", "-lv"]] {
        let ours = run(Command::new(bin()).args(verbose).args(&files));
        let ours = String::from_utf8(ours.stdout).unwrap();
        let kinds: Vec<&str> = ours
            .lines()
            .map(|l| l.split('\t').next().unwrap())
            .collect();
        assert_eq!(kinds.iter().filter(|k| **k == "name").count(), 5, "{ours}");
        assert_eq!(kinds.last(), Some(&"totals"), "{ours}");
        assert!(
            ours.contains("\tNone,CRC32,CRC64,SHA-256\t12\t5\n"),
            "{ours}"
        );
        if with_xz {
            let theirs = run(Command::new("xz").args(verbose).args(&files));
            assert_eq!(
                ours,
                String::from_utf8(theirs.stdout).unwrap(),
                "{verbose:?}"
            );
        }
    }
    // The tables for people too, totals included.
    if with_xz {
        for args in [&["-l"][..], &["-lv"]] {
            let ours = run(Command::new(bin()).args(args).args(&files));
            let theirs = run(Command::new("xz").args(args).args(&files));
            assert_eq!(
                String::from_utf8(ours.stdout).unwrap(),
                String::from_utf8(theirs.stdout).unwrap(),
                "{args:?}"
            );
        }
    }
    // A file that is not .xz is an error, and the totals line still ends
    // the listing.
    let text = dir.join("plain.txt");
    std::fs::write(&text, "not xz").unwrap();
    for program in std::iter::once(bin()).chain(with_xz.then_some("xz")) {
        let out = Command::new(program)
            .args(["--robot", "-l"])
            .arg(&text)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(1), "{program}");
        assert_eq!(
            out.stdout, b"totals\t0\t0\t0\t0\t---\tNone\t0\t0\n",
            "{program}"
        );
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `-lvv` adds each Block's header and stored check, the memory needed and
/// the oldest xz that reads the file: byte for byte what xz prints, over
/// headers with and without sizes, every check, filter chains with start
/// offsets and odd dictionaries, an empty Block (5.0.2), ARM64 (5.4.0), an
/// empty file, and two streams with padding; `--robot -lvv` the same but
/// for the memory figures, which are lzflow's own decoder's.
#[test]
fn vv_listings_are_xz_s() {
    let dir = temp("vv");
    let generated = |name: &str| fixture("generated/xz", name);
    let xz_utils = |name: &str| fixture("xz-utils/files", name);
    let mut files: Vec<PathBuf> = [
        "multiblock-mt.xz",
        "check-none.xz",
        "check-crc32.xz",
        "empty.xz",
        "chain-x86-delta-lzma2.xz",
        "bcj-x86-start4096.xz",
        "preset-9e.xz",
    ]
    .iter()
    .map(|n| generated(n))
    .chain(
        [
            "good-1-lzma2-5.xz",
            "good-1-empty-bcj-lzma2.xz",
            "good-1-arm64-lzma2-2.xz",
        ]
        .iter()
        .map(|n| xz_utils(n)),
    )
    .collect();
    files.push(two_streams(&dir));

    // Without xz at hand: the check value is the CRC32 of the data, and
    // the versions follow the filters and empty Blocks.
    let one = run(Command::new(bin())
        .args(["-lvv"])
        .arg(generated("check-crc32.xz")));
    let data = run(Command::new(bin())
        .args(["-dc"])
        .arg(generated("check-crc32.xz")));
    let crc = format!("{:08x}", crc32fast::hash(&data.stdout));
    let text = String::from_utf8(one.stdout).unwrap();
    // The Blocks table's row: the one with a filter chain.
    let row = text.lines().find(|l| l.contains("--lzma2=")).unwrap();
    assert_eq!(row.split_whitespace().nth(8), Some(crc.as_str()), "{text}");
    assert!(text.ends_with(
        "  Memory needed:     9 MiB\n  Sizes in headers:  No\n  Minimum XZ Utils version: 5.0.0\n"
    ), "{text}");
    for (file, version) in [
        (xz_utils("good-1-lzma2-5.xz"), "5.0.2"),
        (xz_utils("good-1-arm64-lzma2-2.xz"), "5.4.0"),
    ] {
        let out = run(Command::new(bin()).args(["l", "-vv"]).arg(&file));
        let text = String::from_utf8(out.stdout).unwrap();
        assert!(
            text.ends_with(&format!("  Minimum XZ Utils version: {version}\n")),
            "{text}"
        );
    }

    if !have("xz") {
        std::fs::remove_dir_all(&dir).unwrap();
        return;
    }
    let ours = run(Command::new(bin()).arg("-lvv").args(&files));
    let theirs = run(Command::new("xz").arg("-lvv").args(&files));
    assert_eq!(
        String::from_utf8(ours.stdout).unwrap(),
        String::from_utf8(theirs.stdout).unwrap()
    );
    // Robots: the memory columns are lzflow's decoder's bytes (at least
    // the dictionary), the rest is xz's.
    let robot = |program: &str| {
        let out = run(Command::new(program).args(["--robot", "-lvv"]).args(&files));
        let text = String::from_utf8(out.stdout).unwrap();
        let mut memory = Vec::new();
        let lines: Vec<String> = text
            .lines()
            .map(|line| {
                let mut fields: Vec<&str> = line.split('\t').collect();
                let at = match fields[0] {
                    "block" => Some(14),
                    "summary" => Some(1),
                    "totals" => Some(9),
                    _ => None,
                };
                if let Some(at) = at {
                    memory.push(fields[at].parse::<u64>().unwrap());
                    fields[at] = "-";
                }
                fields.join("\t")
            })
            .collect();
        (lines, memory)
    };
    let (ours, our_memory) = robot(bin());
    let (theirs, their_memory) = robot("xz");
    assert_eq!(ours, theirs);
    for (a, b) in our_memory.iter().zip(&their_memory) {
        // Both round up to the same MiB, as the tables above showed.
        assert_eq!(a.div_ceil(1 << 20), b.div_ceil(1 << 20), "{a} {b}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `-S`/`--suffix`: compressing names the output with it and passes over
/// a file that has it; decompressing takes it besides .xz; as in xz.
#[test]
fn suffix_names_outputs_as_in_xz() {
    let with_xz = have("xz");
    let data = text(20_000);
    for program in std::iter::once(bin()).chain(with_xz.then_some("xz")) {
        let dir = temp(&format!("suffix-{}", program.len()));
        std::fs::write(dir.join("f"), &data).unwrap();
        let status = |args: &[&str]| run_in(program, &dir, args).status.code();
        assert_eq!(status(&["-k", "-S", ".foo", "f"]), Some(0), "{program}");
        assert!(
            dir.join("f.foo").exists() && !dir.join("f.xz").exists(),
            "{program}"
        );
        // Already has it: passed over with a warning.
        assert_eq!(
            status(&["-k", "--suffix=.foo", "f.foo"]),
            Some(2),
            "{program}"
        );
        std::fs::remove_file(dir.join("f")).unwrap();
        assert_eq!(status(&["-d", "-S", ".foo", "f.foo"]), Some(0), "{program}");
        assert_eq!(std::fs::read(dir.join("f")).unwrap(), data, "{program}");
        assert!(!dir.join("f.foo").exists(), "{program}: input removed");
        // Without it, the name has no known suffix.
        std::fs::rename(dir.join("f"), dir.join("g")).unwrap();
        assert_eq!(status(&["-k", "-S", ".bar", "g"]), Some(0), "{program}");
        assert_eq!(status(&["-dk", "g.bar"]), Some(2), "{program}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
    let out = Command::new(bin())
        .args(["-S", "", "-c", "x"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
}

/// `--files0` (names ended by NUL, as `find -print0` writes them) and
/// `--files=LIST` (one per line) add to the names on the command line,
/// as in xz.
#[test]
fn file_lists_name_the_inputs() {
    use std::io::Write;
    let with_xz = have("xz");
    let data = text(5_000);
    for program in std::iter::once(bin()).chain(with_xz.then_some("xz")) {
        let dir = temp(&format!("files-{}", program.len()));
        for name in ["a", "b c", "-d", "e", "f"] {
            std::fs::write(dir.join(name), &data).unwrap();
        }
        let mut child = Command::new(program)
            .args(["-k", "--files0", "e"])
            .current_dir(&dir)
            .stdin(Stdio::piped())
            .spawn()
            .unwrap();
        child
            .stdin
            .take()
            .unwrap()
            .write_all(b"a\0b c\0-d\0")
            .unwrap();
        assert!(child.wait().unwrap().success(), "{program}");
        std::fs::write(dir.join("list"), "f\n").unwrap();
        let out = run_in(program, &dir, &["-k", "--files=list"]);
        assert!(out.status.success(), "{program}: {out:?}");
        for name in ["a", "b c", "-d", "e", "f"] {
            let xz = std::fs::read(dir.join(format!("{name}.xz"))).unwrap();
            let back = piped(Path::new(bin()), &["-dc"], &xz);
            assert!(back.stdout == data, "{program}: {name}");
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
