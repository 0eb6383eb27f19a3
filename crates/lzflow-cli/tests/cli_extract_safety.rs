//! `lzflow x` as a hostile archive would try it: existing files, the
//! overwrite switches (and 7-Zip's spellings), modes with special bits under
//! a umask, symbolic links and duplicate names from archives made by `7zz`,
//! entries without a name, failed entries, and the header limits' options.

mod support;

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_lzflow"))
}

/// A fresh empty directory for one test.
fn scratch(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("lzflow-cli-xs-{}-{tag}", std::process::id()));
    let _ = fs::remove_dir_all(&d);
    fs::create_dir_all(&d).unwrap();
    d
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

fn has_7zz() -> bool {
    let found = Command::new("7zz").arg("i").output().is_ok();
    if !found {
        eprintln!("SKIPPED: 7zz is not installed");
    }
    found
}

fn run_7zz(dir: &Path, args: &[&str]) {
    let out = Command::new("7zz")
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap();
    assert!(out.status.success(), "7zz {args:?}: {}", stderr(&out));
}

/// Sorted names in `dir`, to show nothing else was left there.
fn listing(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    names.sort();
    names
}

/// `a.txt` and `b.txt` packed by `lzflow a` from `dir/src`.
fn two_file_archive(dir: &Path) -> PathBuf {
    let src = dir.join("src");
    fs::create_dir_all(&src).unwrap();
    fs::write(src.join("a.txt"), b"new a").unwrap();
    fs::write(src.join("b.txt"), b"new b").unwrap();
    let archive = dir.join("two.7z");
    let out = bin()
        .args(["a"])
        .arg(&archive)
        .args(["a.txt", "b.txt"])
        .current_dir(&src)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    archive
}

fn extract(archive: &Path, dir: &Path, extra: &[&str]) -> Output {
    bin()
        .arg("x")
        .arg(archive)
        .arg("-o")
        .arg(dir)
        .args(extra)
        .output()
        .unwrap()
}

#[test]
fn existing_files_are_refused_by_name_unless_a_switch_says_otherwise() {
    let dir = scratch("existing");
    let archive = two_file_archive(&dir);
    let out_dir = dir.join("out");
    fs::create_dir_all(&out_dir).unwrap();
    let reset = || {
        let _ = fs::remove_file(out_dir.join("a.txt"));
        fs::write(out_dir.join("b.txt"), b"mine").unwrap();
    };
    reset();
    let out = extract(&archive, &out_dir, &[]);
    assert_eq!(out.status.code(), Some(2));
    let err = stderr(&out);
    assert!(
        err.contains(&format!(
            "{} already exists",
            out_dir.join("b.txt").display()
        )),
        "{err}"
    );
    assert_eq!(listing(&out_dir), ["b.txt"], "nothing is written");
    for keep in ["--skip-existing", "-aos"] {
        reset();
        let out = extract(&archive, &out_dir, &[keep]);
        assert!(out.status.success(), "{keep}: {}", stderr(&out));
        assert_eq!(fs::read(out_dir.join("a.txt")).unwrap(), b"new a");
        assert_eq!(fs::read(out_dir.join("b.txt")).unwrap(), b"mine", "{keep}");
    }
    for replace in ["-f", "--overwrite", "-aoa"] {
        reset();
        let out = extract(&archive, &out_dir, &[replace]);
        assert!(out.status.success(), "{replace}: {}", stderr(&out));
        assert_eq!(
            fs::read(out_dir.join("b.txt")).unwrap(),
            b"new b",
            "{replace}"
        );
        assert_eq!(listing(&out_dir), ["a.txt", "b.txt"], "no temporary file");
    }
    let out = extract(&archive, &out_dir, &["-f", "--skip-existing"]);
    assert_eq!(out.status.code(), Some(7), "the two switches conflict");
    let _ = fs::remove_dir_all(dir);
}

#[cfg(target_os = "linux")]
#[test]
fn archives_made_by_7zz_with_special_modes_and_symlinks_extract_safely() {
    use std::os::unix::fs::PermissionsExt;
    if !has_7zz() {
        return;
    }
    let dir = scratch("modes");
    let src = dir.join("src");
    fs::create_dir_all(src.join("d")).unwrap();
    let files = [
        ("d/setuid", 0o4755),
        ("d/setgid", 0o2755),
        ("d/shared", 0o666),
    ];
    for (name, mode) in files {
        fs::write(src.join(name), name).unwrap();
        fs::set_permissions(src.join(name), fs::Permissions::from_mode(mode)).unwrap();
    }
    fs::create_dir(src.join("sticky")).unwrap();
    fs::set_permissions(src.join("sticky"), fs::Permissions::from_mode(0o1777)).unwrap();
    std::os::unix::fs::symlink("/etc/passwd", src.join("link")).unwrap();
    run_7zz(&src, &["a", "-snl", "../m.7z", "d", "sticky", "link"]);
    let archive = dir.join("m.7z");

    // `l` shows the stored modes in full, special bits included.
    let out = bin().arg("l").arg(&archive).output().unwrap();
    let listed = String::from_utf8_lossy(&out.stdout).into_owned();
    for (shown, name) in [
        ("-rwsr-xr-x", "d/setuid"),
        ("-rwxr-sr-x", "d/setgid"),
        ("drwxrwxrwt", "sticky"),
        ("lrwxrwxrwx", "link"),
    ] {
        assert!(
            listed
                .lines()
                .any(|l| l.contains(shown) && l.ends_with(name)),
            "{shown} {name}:\n{listed}"
        );
    }

    let out_dir = dir.join("out");
    let out = Command::new("sh")
        .arg("-c")
        .arg("umask 027; exec \"$0\" x \"$1\" -o \"$2\"")
        .arg(env!("CARGO_BIN_EXE_lzflow"))
        .arg(&archive)
        .arg(&out_dir)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let mode = |name: &str| {
        fs::symlink_metadata(out_dir.join(name))
            .unwrap()
            .permissions()
            .mode()
            & 0o7777
    };
    assert_eq!(mode("d/setuid"), 0o750);
    assert_eq!(mode("d/setgid"), 0o750);
    assert_eq!(mode("d/shared"), 0o640);
    assert_eq!(mode("sticky"), 0o750);
    // The link is a regular file holding its target, never a link.
    let link = fs::symlink_metadata(out_dir.join("link")).unwrap();
    assert!(link.is_file());
    assert_eq!(fs::read(out_dir.join("link")).unwrap(), b"/etc/passwd");
    let _ = fs::remove_dir_all(dir);
}

#[test]
fn duplicate_names_made_by_7zz_follow_the_overwrite_policy() {
    if !has_7zz() {
        return;
    }
    let dir = scratch("duplicates");
    fs::create_dir_all(dir.join("d1")).unwrap();
    fs::create_dir_all(dir.join("d2")).unwrap();
    fs::write(dir.join("d1/f"), b"one").unwrap();
    fs::write(dir.join("d2/f"), b"two").unwrap();
    run_7zz(&dir, &["a", "dup.7z", "d1/f", "d2/f"]);
    // Renaming the second entry makes two entries named d1/f.
    run_7zz(&dir, &["rn", "dup.7z", "d2/f", "d1/f"]);
    let archive = dir.join("dup.7z");
    let out_dir = dir.join("out");
    let out = extract(&archive, &out_dir, &[]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("appears more than once in the archive"),
        "{}",
        stderr(&out)
    );
    assert!(!out_dir.join("d1").exists(), "nothing is written");
    let out = extract(&archive, &out_dir, &["-aos"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(
        fs::read(out_dir.join("d1/f")).unwrap(),
        b"one",
        "as 7zz -aos"
    );
    let _ = fs::remove_dir_all(&out_dir);
    let out = extract(&archive, &out_dir, &["-aoa"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(
        fs::read(out_dir.join("d1/f")).unwrap(),
        b"two",
        "as 7zz -aoa"
    );
    let _ = fs::remove_dir_all(dir);
}

/// A 7z archive of one Copy folder holding `files`, with a plain header
/// (the names may be empty or anything 7-Zip would not write).
fn copy_archive(files: &[(&str, &[u8])]) -> Vec<u8> {
    fn number(out: &mut Vec<u8>, v: u64) {
        assert!(v < 0x4000);
        if v < 0x80 {
            out.push(v as u8);
        } else {
            out.extend_from_slice(&[0x80 | (v >> 8) as u8, v as u8]);
        }
    }
    let data: Vec<u8> = files.iter().flat_map(|(_, d)| d.iter().copied()).collect();
    let mut h = vec![0x01, 0x04, 0x06, 0x00, 0x01, 0x09];
    number(&mut h, data.len() as u64);
    h.extend_from_slice(&[0x00, 0x07, 0x0B, 0x01, 0x00, 0x01, 0x01, 0x00, 0x0C]);
    number(&mut h, data.len() as u64);
    h.extend_from_slice(&[0x00, 0x08, 0x0D]);
    number(&mut h, files.len() as u64);
    h.push(0x09);
    for (_, d) in &files[..files.len() - 1] {
        number(&mut h, d.len() as u64);
    }
    h.extend_from_slice(&[0x0A, 0x01]);
    for (_, d) in files {
        h.extend_from_slice(&crc32fast::hash(d).to_le_bytes());
    }
    h.extend_from_slice(&[0x00, 0x00, 0x05]);
    number(&mut h, files.len() as u64);
    let mut names = vec![0u8];
    for (n, _) in files {
        names.extend(n.encode_utf16().flat_map(u16::to_le_bytes));
        names.extend_from_slice(&[0, 0]);
    }
    h.push(0x11);
    number(&mut h, names.len() as u64);
    h.extend_from_slice(&names);
    h.extend_from_slice(&[0x00, 0x00]);
    let mut start = Vec::new();
    start.extend_from_slice(&(data.len() as u64).to_le_bytes());
    start.extend_from_slice(&(h.len() as u64).to_le_bytes());
    start.extend_from_slice(&crc32fast::hash(&h).to_le_bytes());
    let mut out = vec![b'7', b'z', 0xBC, 0xAF, 0x27, 0x1C, 0, 4];
    out.extend_from_slice(&crc32fast::hash(&start).to_le_bytes());
    out.extend_from_slice(&start);
    out.extend_from_slice(&data);
    out.extend_from_slice(&h);
    out
}

#[test]
fn an_entry_without_a_name_is_named_after_the_archive_as_7zz_does() {
    let dir = scratch("unnamed");
    let archive = dir.join("report.7z");
    fs::write(&archive, copy_archive(&[("", b"hello")])).unwrap();
    let out_dir = dir.join("out");
    let out = extract(&archive, &out_dir, &[]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(fs::read(out_dir.join("report")).unwrap(), b"hello");
    let out = bin().arg("l").arg(&archive).output().unwrap();
    assert!(String::from_utf8_lossy(&out.stdout)
        .lines()
        .any(|l| l.ends_with(" report")));
    if has_7zz() {
        let seven = dir.join("seven");
        fs::create_dir_all(&seven).unwrap();
        run_7zz(&seven, &["x", "../report.7z"]);
        assert_eq!(listing(&seven), ["report"], "7zz picks the same name");
    }
    let _ = fs::remove_dir_all(dir);
}

#[test]
fn a_failed_entry_leaves_no_file_unless_kept() {
    let dir = scratch("failed");
    let mut bytes = copy_archive(&[("one", b"first"), ("two", b"second"), ("three", b"3")]);
    bytes[32 + 5] ^= 0x40; // the first byte of "second"
    let archive = dir.join("bad.7z");
    fs::write(&archive, bytes).unwrap();
    let out_dir = dir.join("out");
    let out = extract(&archive, &out_dir, &[]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("CRC mismatch in two"),
        "{}",
        stderr(&out)
    );
    assert_eq!(listing(&out_dir), ["one"]);
    let _ = fs::remove_dir_all(&out_dir);
    let out = extract(&archive, &out_dir, &["--keep-broken"]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(listing(&out_dir), ["one", "two"]);
    assert_eq!(fs::read(out_dir.join("two")).unwrap(), b"3econd");
    let _ = fs::remove_dir_all(dir);
}

#[test]
fn header_limits_name_the_option_that_raises_them() {
    let dir = scratch("limits");
    let archive = dir.join("three.7z");
    fs::write(
        &archive,
        copy_archive(&[("a", b"1"), ("b", b"2"), ("c", b"3")]),
    )
    .unwrap();
    for command in ["x", "t", "l"] {
        let run = |extra: &[&str]| {
            let mut cmd = bin();
            cmd.arg(command).arg(&archive);
            if command == "x" {
                cmd.arg("-o").arg(dir.join("out"));
            }
            cmd.args(extra).output().unwrap()
        };
        let out = run(&["--max-entries", "2"]);
        assert_eq!(out.status.code(), Some(2), "{command}");
        assert!(
            stderr(&out).contains("3 entries, 2 allowed (raise it with --max-entries"),
            "{command}: {}",
            stderr(&out)
        );
        let out = run(&["--max-header-size", "16"]);
        assert_eq!(out.status.code(), Some(2), "{command}");
        assert!(
            stderr(&out).contains("(raise it with --max-header-size"),
            "{command}: {}",
            stderr(&out)
        );
        let out = run(&["--max-entries", "3"]);
        assert!(out.status.success(), "{command}: {}", stderr(&out));
        let _ = fs::remove_dir_all(dir.join("out"));
    }
    let _ = fs::remove_dir_all(dir);
}

/// `dir/NAME.7z` holding `files` (stored, made here), and `dir/NAME.zip`
/// made by Python's zipfile, which writes any name it is given, duplicates
/// included (or only the 7z archive, said loudly, without python3).
fn seven_z_and_zip(dir: &Path, name: &str, files: &[(&str, &[u8])]) -> Vec<PathBuf> {
    let sevenz = dir.join(format!("{name}.7z"));
    fs::write(&sevenz, copy_archive(files)).unwrap();
    let zip = dir.join(format!("{name}.zip"));
    let script = format!(
        "import zipfile, warnings\nwarnings.simplefilter('ignore')\nz = zipfile.ZipFile({:?}, 'w')\n{}z.close()\n",
        zip.to_str().unwrap(),
        files
            .iter()
            .map(|(n, d)| format!("z.writestr({n:?}, {:?})\n", std::str::from_utf8(d).unwrap()))
            .collect::<String>()
    );
    match Command::new("python3").args(["-c", &script]).status() {
        Ok(s) if s.success() => vec![sevenz, zip],
        _ => {
            eprintln!("SKIPPED the zip half: python3 cannot write the archive");
            vec![sevenz]
        }
    }
}

/// An entry whose path would leave the target stops the extraction
/// before anything is written; with `--skip-unsafe` the others are
/// extracted and each unsafe one is a warning (status 1), 7z and zip
/// alike.
#[test]
fn skip_unsafe_extracts_the_rest_and_warns() {
    let dir = scratch("skip-unsafe");
    let files: [(&str, &[u8]); 5] = [
        ("ok.txt", b"fine"),
        ("../up.txt", b"up"),
        ("/abs.txt", b"abs"),
        ("a\\..\\..\\bs.txt", b"bs"),
        ("sub/fine.txt", b"fine too"),
    ];
    let archives = seven_z_and_zip(&dir, "evil", &files);
    for archive in archives {
        let what = archive.display().to_string();
        let out_dir = dir.join("out").join(archive.file_name().unwrap());
        let out = extract(&archive, &out_dir, &[]);
        assert_eq!(out.status.code(), Some(2), "{what}: {}", stderr(&out));
        assert!(
            stderr(&out).contains(
                "it would be written outside the target directory \
                 (--skip-unsafe extracts the other entries)"
            ),
            "{what}"
        );
        assert!(!out_dir.exists() || listing(&out_dir).is_empty(), "{what}");

        let out = extract(&archive, &out_dir, &["--skip-unsafe"]);
        assert_eq!(out.status.code(), Some(1), "{what}: {}", stderr(&out));
        assert_eq!(listing(&out_dir), ["ok.txt", "sub"], "{what}");
        assert_eq!(fs::read(out_dir.join("sub/fine.txt")).unwrap(), b"fine too");
        let err = stderr(&out);
        for unsafe_name in ["../up.txt", "/abs.txt", "a\\\\..\\\\..\\\\bs.txt"] {
            assert!(
                err.contains(&format!("\"{unsafe_name}\": not extracted: it would be written outside the target directory")),
                "{what}: {err}"
            );
        }
        assert!(!dir.join("out").join("up.txt").exists());
        assert!(!dir.join("up.txt").exists());
    }
}

/// `-aou` (`--rename`): what is on disk stays, and the entries that would
/// replace it, or an earlier entry of their name, are written under the
/// names `7zz x -aou` gives them; `e` renames its clashing last names the
/// same way. Compared with 7zz on the same archives, tree and contents.
#[test]
fn rename_writes_beside_existing_files_as_7zz_does() {
    let dir = scratch("rename");
    let files: [(&str, &[u8]); 6] = [
        ("d/a.txt", b"first"),
        ("d/a.txt", b"second"),
        ("noext", b"n"),
        (".rc", b"rc"),
        ("x.tar.gz", b"t"),
        ("e/a.txt", b"third"),
    ];
    let archives = seven_z_and_zip(&dir, "dups", &files);
    let seed = |out: &Path| {
        fs::create_dir_all(out.join("d")).unwrap();
        for name in ["d/a.txt", "noext", ".rc", "x.tar.gz", "a.txt"] {
            fs::write(out.join(name), "old").unwrap();
        }
    };
    let tree = |out: &Path| -> Vec<(String, String)> {
        support::files_below(out)
            .into_iter()
            .map(|f| {
                let text = fs::read_to_string(out.join(&f)).unwrap();
                (f, text)
            })
            .collect()
    };
    for archive in &archives {
        for (command, switch) in [("x", "-aou"), ("x", "--rename"), ("e", "-aou")] {
            let ours = dir.join(format!("ours-{command}{switch}"));
            let _ = fs::remove_dir_all(&ours);
            seed(&ours);
            let out = bin()
                .arg(command)
                .arg(archive)
                .arg("-o")
                .arg(&ours)
                .arg(switch)
                .output()
                .unwrap();
            assert!(out.status.success(), "{command} {switch}: {}", stderr(&out));
            let got = tree(&ours);
            let expected: &[(&str, &str)] = if command == "x" {
                &[
                    (".rc", "old"),
                    (".rc_1", "rc"),
                    ("a.txt", "old"),
                    ("d/a.txt", "old"),
                    ("d/a_1.txt", "first"),
                    ("d/a_2.txt", "second"),
                    ("e/a.txt", "third"),
                    ("noext", "old"),
                    ("noext_1", "n"),
                    ("x.tar.gz", "old"),
                    ("x.tar_1.gz", "t"),
                ]
            } else {
                &[
                    (".rc", "old"),
                    (".rc_1", "rc"),
                    ("a.txt", "old"),
                    ("a_1.txt", "first"),
                    ("a_2.txt", "second"),
                    ("a_3.txt", "third"),
                    ("d/a.txt", "old"),
                    ("noext", "old"),
                    ("noext_1", "n"),
                    ("x.tar.gz", "old"),
                    ("x.tar_1.gz", "t"),
                ]
            };
            let expected: Vec<(String, String)> = expected
                .iter()
                .map(|(f, t)| (f.to_string(), t.to_string()))
                .collect();
            assert_eq!(got, expected, "{} {command} {switch}", archive.display());
            if has_7zz() && switch == "-aou" {
                let theirs = dir.join(format!("7zz-{command}"));
                let _ = fs::remove_dir_all(&theirs);
                seed(&theirs);
                let st = Command::new("7zz")
                    .args([command, "-aou", "-bd"])
                    .arg(format!("-o{}", theirs.display()))
                    .arg(archive)
                    .output()
                    .unwrap();
                assert!(st.status.success(), "7zz {command}: {st:?}");
                assert_eq!(tree(&theirs), got, "7zz {command} {}", archive.display());
            }
        }
    }
    let _ = fs::remove_dir_all(dir);
}
