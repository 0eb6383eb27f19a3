//! `lzflow l`, `t` and `x` on zip archives from the fixture corpus.

use std::path::PathBuf;
use std::process::Command;

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_lzflow"))
}

fn fixture(name: &str) -> String {
    format!("{}/../../fixtures/zip/{name}", env!("CARGO_MANIFEST_DIR"))
}

fn temp(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("lzflow-cli-zip-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    d
}

#[test]
fn list_test_and_extract_a_zip() {
    let zip = fixture("7zz/7z-aes256.zip");
    let out = bin().args(["l", &zip]).output().unwrap();
    assert!(out.status.success(), "{out:?}");
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("Deflate") && text.contains(" + "), "{text}");
    assert!(text.contains("files,"), "{text}");

    // Without the password the test fails; with it every entry checks out.
    let out = bin().args(["t", &zip]).output().unwrap();
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    let out = bin()
        .args(["t", "-v", "-p", "fixture-pass", &zip])
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    assert!(String::from_utf8_lossy(&out.stdout).contains(": OK ("));
    let out = bin()
        .args([
            "t",
            "-p",
            "wrong-pass",
            &fixture("bad/aes256-wrong-password.zip"),
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    assert!(String::from_utf8_lossy(&out.stderr).contains("wrong password"));

    // Extraction gives the bytes `t` verified; a second run keeps them.
    let dir = temp("x");
    let x = |extra: &[&str]| {
        let mut c = bin();
        c.args(["x", "-q", "-p", "fixture-pass", "-o"]).arg(&dir);
        c.args(extra).arg(&zip).output().unwrap()
    };
    let out = x(&[]);
    assert!(out.status.success(), "{out:?}");
    let bytes = std::fs::read(&zip).unwrap();
    let mut a = lzflow::zip::ZipArchive::open_with(
        std::io::Cursor::new(&bytes[..]),
        lzflow::zip::ZipOptions::new().with_password("fixture-pass"),
    )
    .unwrap();
    for i in 0..a.len() {
        let (name, is_dir) = {
            let e = a.directory().get(i).unwrap();
            (e.name().into_owned(), e.is_dir())
        };
        if is_dir {
            assert!(dir.join(&name).is_dir());
            continue;
        }
        let mut want = Vec::new();
        std::io::Read::read_to_end(&mut a.reader(i).unwrap(), &mut want).unwrap();
        assert!(std::fs::read(dir.join(&name)).unwrap() == want, "{name}");
    }
    let out = x(&[]);
    assert_eq!(out.status.code(), Some(1), "existing files must be refused");
    let out = x(&["-f"]);
    assert!(out.status.success(), "{out:?}");
    let _ = std::fs::remove_dir_all(&dir);
}
