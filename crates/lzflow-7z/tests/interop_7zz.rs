//! Archives made by `7zz` at test time, over seeded content, across methods,
//! filters, solid modes and header encryption.

mod common;

use std::path::Path;
use std::process::Command;

use common::{code, temp_dir, text, Rng};
use lzflow_7z::{Archive, ArchiveOptions, SevenZError};

fn have_7zz() -> bool {
    let ok = Command::new("7zz")
        .arg("i")
        .output()
        .is_ok_and(|o| o.status.success());
    if !ok {
        eprintln!("SKIPPED: 7zz is not installed (CI installs it; apt-get install 7zip)");
    }
    ok
}

/// Seeded inputs: text, random, x86-like code, an empty file and a nested
/// directory.
fn make_inputs(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut rng = Rng::new(7);
    let mut files = vec![
        ("a/text.txt".to_string(), text(&mut rng, 70_000)),
        ("a/b/random.bin".to_string(), rng.bytes(20_000)),
        ("code.bin".to_string(), code(&mut rng, 150_000)),
        ("empty.txt".to_string(), Vec::new()),
        ("small.txt".to_string(), b"hello 7z".to_vec()),
        ("more/text2.txt".to_string(), text(&mut rng, 5_000)),
    ];
    // A real executable gives BCJ/BCJ2 realistic branches.
    if let Ok(elf) = std::fs::read("/bin/ls") {
        files.push(("ls.bin".to_string(), elf));
    }
    for (name, data) in &files {
        let p = dir.join(name);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, data).unwrap();
    }
    std::fs::create_dir_all(dir.join("emptydir")).unwrap();
    files
}

fn make_archive(name: &str, args: &[&str]) -> (std::path::PathBuf, Vec<(String, Vec<u8>)>) {
    let dir = temp_dir(name);
    let src = dir.join("src");
    std::fs::create_dir_all(&src).unwrap();
    let files = make_inputs(&src);
    let archive = dir.join("out.7z");
    let out = Command::new("7zz")
        .current_dir(&src)
        .args(["a", "-bd", "-y", "-mmt=off"])
        .args(args)
        .arg(&archive)
        .args([
            "a",
            "code.bin",
            "empty.txt",
            "small.txt",
            "more",
            "emptydir",
        ])
        .args(files.iter().any(|(n, _)| n == "ls.bin").then_some("ls.bin"))
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "7zz {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    (archive, files)
}

fn check(name: &str, args: &[&str], password: Option<&str>) {
    let (archive, files) = make_archive(name, args);
    let mut opts = ArchiveOptions::default();
    if let Some(p) = password {
        opts = opts.with_password(p);
    }
    let mut a = Archive::open_with(std::fs::File::open(&archive).unwrap(), opts).unwrap();
    let mut seen = 0;
    a.for_each_entry(|e, r| {
        let mut data = Vec::new();
        r.read_to_end(&mut data)?;
        if e.is_dir {
            assert!(data.is_empty());
            return Ok(());
        }
        let (_, want) = files
            .iter()
            .find(|(n, _)| *n == e.name)
            .unwrap_or_else(|| panic!("{name}: unexpected entry {}", e.name));
        assert_eq!(data.len(), want.len(), "{name}: {}", e.name);
        assert!(data == *want, "{name}: {} differs", e.name);
        seen += 1;
        Ok(())
    })
    .unwrap_or_else(|e| panic!("{name} {args:?}: {e}"));
    assert_eq!(seen, files.len(), "{name}: every file was visited");
    if args.iter().any(|a| a.contains("BCJ2")) {
        // BCJ2 juggles four inputs: resume at every byte of each of them.
        let src = common::Trickle {
            inner: std::fs::File::open(&archive).unwrap(),
            step: 7,
            turn: 0,
        };
        let mut opts = ArchiveOptions::default();
        if let Some(p) = password {
            opts = opts.with_password(p);
        }
        let mut a = Archive::open_with(src, opts).unwrap();
        a.for_each_entry(|e, r| {
            let mut data = Vec::new();
            r.read_to_end(&mut data)?;
            if let Some((_, want)) = files.iter().find(|(n, _)| *n == e.name) {
                assert!(data == *want, "{name} trickled: {} differs", e.name);
            }
            Ok(())
        })
        .unwrap();
    }
    let _ = std::fs::remove_dir_all(archive.parent().unwrap());
}

#[test]
fn methods_and_solid_modes() {
    if !have_7zz() {
        return;
    }
    check("lzma-solid", &["-m0=lzma", "-ms=on"], None);
    check("lzma-eos", &["-m0=lzma:eos", "-ms=on"], None);
    check("lzma2-nonsolid", &["-m0=lzma2", "-ms=off"], None);
    check("lzma2-fast", &["-m0=lzma2", "-mx=1", "-ms=on"], None);
    check("copy", &["-m0=copy"], None);
    check("deflate", &["-m0=deflate"], None);
    check("bzip2", &["-m0=bzip2"], None);
}

#[test]
fn filters() {
    if !have_7zz() {
        return;
    }
    check("bcj", &["-mf=BCJ", "-m0=lzma2"], None);
    check("bcj2", &["-mf=BCJ2"], None);
    check("bcj2-lzma", &["-mf=BCJ2", "-m0=lzma"], None);
    // Four AES coders, one per packed stream.
    check("bcj2-aes", &["-mf=BCJ2", "-pbcj2"], Some("bcj2"));
    check("arm64", &["-mf=ARM64"], None);
    check("delta4", &["-mf=Delta:4"], None);
    for f in ["ARM", "ARMT", "PPC", "SPARC", "IA64", "RISCV"] {
        check(&format!("bcj-{f}"), &[&format!("-mf={f}")], None);
    }
}

#[test]
fn header_encryption() {
    if !have_7zz() {
        return;
    }
    check(
        "mhe",
        &["-mhe=on", "-psecret-pw", "-m0=lzma2"],
        Some("secret-pw"),
    );
    check(
        "aes-bzip2",
        &["-psecret-pw", "-m0=bzip2"],
        Some("secret-pw"),
    );
    let (archive, _) = make_archive("mhe-wrong", &["-mhe=on", "-psecret-pw"]);
    let open = |pw: Option<&str>| {
        let mut o = ArchiveOptions::default();
        if let Some(p) = pw {
            o = o.with_password(p);
        }
        Archive::open_with(std::fs::File::open(&archive).unwrap(), o)
    };
    assert!(matches!(open(None), Err(SevenZError::PasswordRequired)));
    assert!(matches!(
        open(Some("nope")),
        Err(SevenZError::WrongPassword)
    ));
    assert!(open(Some("secret-pw")).is_ok());
}

#[test]
fn ppmd_archives_of_7zz() {
    if !have_7zz() {
        return;
    }
    // 7-Zip's default (order 6, 16 MiB), the smallest model it writes
    // (64 KiB: restarts on these inputs), high orders, solid and not, AES.
    check("ppmd", &["-m0=PPMd"], None);
    check("ppmd-o2-64k", &["-m0=PPMd:o=2:mem=64k"], None);
    check("ppmd-o32-1m", &["-m0=PPMd:o=32:mem=1m", "-ms=off"], None);
    check("ppmd-o16-mem20", &["-m0=PPMd:o=16:mem=20"], None);
    check(
        "ppmd-aes",
        &["-m0=PPMd:o=8", "-pppmd-pw", "-mhe=on"],
        Some("ppmd-pw"),
    );
    check("ppmd-bcj", &["-m0=PPMd", "-mf=BCJ"], None);
}
