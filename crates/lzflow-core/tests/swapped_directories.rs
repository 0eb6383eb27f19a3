//! A directory of the target swapped for a symbolic link while an
//! extraction runs (by another process with write access to the target):
//! nothing the extraction does afterwards reaches outside the target. The
//! swap is made between the `Extractor` calls a container makes.
#![cfg(unix)]

use std::fs;
use std::io::Write;
use std::os::unix::fs::{symlink, PermissionsExt};
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use lzflow_core::extract::{EntryAttrs, EntryKind, ExtractOptions, Extractor, Overwrite};

/// A scratch directory with an empty target `t` and, beside it, a
/// `victim` directory (mode 0755) holding `victim/f` ("theirs").
fn setup(tag: &str) -> (PathBuf, PathBuf, PathBuf) {
    let base = std::env::temp_dir().join(format!("lzflow-core-swap-{tag}-{}", std::process::id()));
    let _ = fs::remove_dir_all(&base);
    let (target, victim) = (base.join("t"), base.join("victim"));
    fs::create_dir_all(&target).unwrap();
    fs::create_dir_all(&victim).unwrap();
    fs::set_permissions(&victim, fs::Permissions::from_mode(0o755)).unwrap();
    fs::write(victim.join("f"), "theirs").unwrap();
    (base, target, victim)
}

/// Moves `t/d` aside to `t/d.moved` and puts a link to `victim` there.
fn swap(target: &Path, victim: &Path) {
    fs::rename(target.join("d"), target.join("d.moved")).unwrap();
    symlink(victim, target.join("d")).unwrap();
}

fn mode(p: &Path) -> u32 {
    fs::metadata(p).unwrap().permissions().mode() & 0o7777
}

fn attrs(mode: u32) -> EntryAttrs {
    EntryAttrs {
        mode: Some(mode),
        readonly: false,
        mtime: Some(SystemTime::UNIX_EPOCH + Duration::from_secs(1_000_000_000)),
    }
}

fn write(x: &mut Extractor, rel: &str, data: &str) -> lzflow_core::extract::OutputFile {
    let mut out = x
        .create_file(Path::new(rel), attrs(0o644))
        .unwrap()
        .unwrap();
    out.write_all(data.as_bytes()).unwrap();
    out
}

#[test]
fn directory_modes_and_times_are_not_applied_through_a_swapped_in_link() {
    let (base, target, victim) = setup("finish");
    let before = fs::metadata(&victim).unwrap().modified().unwrap();
    let mut x = Extractor::new(&target, ExtractOptions::default()).unwrap();
    x.plan([("d", EntryKind::Directory), ("d/f", EntryKind::File)])
        .unwrap();
    x.make_dir(Path::new("d"), attrs(0o700)).unwrap();
    let out = write(&mut x, "d/f", "ours");
    x.commit(out).unwrap();
    swap(&target, &victim);
    x.finish().unwrap();
    assert_eq!(mode(&victim), 0o755, "the victim's mode is untouched");
    assert_eq!(fs::metadata(&victim).unwrap().modified().unwrap(), before);
    assert_eq!(
        fs::read_to_string(target.join("d.moved/f")).unwrap(),
        "ours"
    );
    let _ = fs::remove_dir_all(base);
}

#[test]
fn a_file_being_written_lands_in_the_directory_it_was_begun_in() {
    for overwrite in [Overwrite::Never, Overwrite::Always] {
        let (base, target, victim) = setup("commit");
        let options = ExtractOptions::default().with_overwrite(overwrite);
        let mut x = Extractor::new(&target, options).unwrap();
        x.plan([("d/f", EntryKind::File)]).unwrap();
        let out = write(&mut x, "d/f", "ours");
        swap(&target, &victim);
        x.commit(out).unwrap();
        assert_eq!(fs::read_to_string(victim.join("f")).unwrap(), "theirs");
        assert_eq!(
            fs::read_to_string(target.join("d.moved/f")).unwrap(),
            "ours"
        );
        let left: Vec<_> = fs::read_dir(&victim).unwrap().collect();
        assert_eq!(
            left.len(),
            1,
            "{overwrite:?}: no temporary file in the victim"
        );
        let _ = fs::remove_dir_all(base);
    }
}

#[test]
fn a_rollback_removes_nothing_through_a_swapped_in_link() {
    let (base, target, victim) = setup("rollback");
    let mut x = Extractor::new(&target, ExtractOptions::default()).unwrap();
    x.plan([("d/f", EntryKind::File)]).unwrap();
    let out = write(&mut x, "d/f", "ours");
    x.commit(out).unwrap();
    swap(&target, &victim);
    // As after a wrong password: what this extraction made goes, and
    // only that.
    x.rollback();
    assert_eq!(fs::read_to_string(victim.join("f")).unwrap(), "theirs");
    let _ = fs::remove_dir_all(base);
}
