//! The harness of the extraction targets: a target directory beside a
//! file and links pointing out of it, the rules every extraction keeps
//! checked after it, and what it left, to compare the extraction thread of
//! the async faces with the inline calls of the std faces.

use std::fs;
use std::os::unix::fs::{symlink, PermissionsExt};
use std::path::{Path, PathBuf};

use lzflow_core::extract::{ExtractOptions, Overwrite, PathPolicy};

/// The options one input byte picks: the overwrite policy (bits 0–1),
/// unsafe paths skipped (2), modes not applied (3), a selection of the
/// names without an `x` (4), broken files kept (5).
pub fn options(byte: u8) -> ExtractOptions {
    let overwrite = [
        Overwrite::Never,
        Overwrite::Skip,
        Overwrite::Always,
        Overwrite::Rename,
    ][usize::from(byte & 3)];
    let mut options = ExtractOptions::default()
        .with_overwrite(overwrite)
        .with_preserve_permissions(byte & 8 == 0)
        .with_keep_broken(byte & 32 != 0);
    if byte & 4 != 0 {
        options = options.with_paths(PathPolicy::Skip);
    }
    if byte & 16 != 0 {
        options = options.with_select(|name| !name.contains('x'));
    }
    options
}

/// What one extraction left: its result, and every path below the target
/// (relative, sorted) with its kind, permission bits and contents.
pub type Outcome = (String, Vec<(String, char, u32, Vec<u8>)>);

/// Polls `f` to its end, parking while it is pending (the extraction's
/// thread wakes it).
pub fn park_on<T>(f: impl std::future::Future<Output = T>) -> T {
    struct Unpark(std::thread::Thread);
    impl std::task::Wake for Unpark {
        fn wake(self: std::sync::Arc<Self>) {
            self.0.unpark();
        }
    }
    let waker = std::task::Waker::from(std::sync::Arc::new(Unpark(std::thread::current())));
    let mut cx = std::task::Context::from_waker(&waker);
    let mut f = std::pin::pin!(f);
    loop {
        if let std::task::Poll::Ready(v) = f.as_mut().poll(&mut cx) {
            return v;
        }
        std::thread::park();
    }
}

/// Every path below `dir` (not following links), with its metadata.
fn tree(dir: &Path, out: &mut Vec<(PathBuf, fs::Metadata)>) {
    let Ok(list) = fs::read_dir(dir) else { return };
    for e in list.flatten() {
        let path = e.path();
        let Ok(m) = fs::symlink_metadata(&path) else {
            continue;
        };
        if m.is_dir() {
            tree(&path, out);
        }
        out.push((path, m));
    }
}

/// Runs `extract` on `base/t`, made afresh beside `base/outside` and
/// holding a file and three links out of it, then checks what every
/// extraction must keep: nothing written outside the target or beside
/// it, no temporary file left, no setuid/setgid/sticky bit, and unless
/// `overwrites` the file and the links untouched. Says what was left.
pub fn extract_and_check<E: std::fmt::Debug>(
    base: &Path,
    overwrites: bool,
    extract: impl FnOnce(&Path) -> Result<(), E>,
) -> Outcome {
    let _ = fs::remove_dir_all(base);
    let (target, outside) = (base.join("t"), base.join("outside"));
    fs::create_dir_all(&target).unwrap();
    fs::create_dir_all(&outside).unwrap();
    fs::write(target.join("pre.txt"), "kept").unwrap();
    symlink("../outside", target.join("link")).unwrap();
    symlink(&outside, target.join("abs")).unwrap();
    symlink("../outside/new", target.join("dangling")).unwrap();
    let result = extract(&target);
    let mut out = Vec::new();
    tree(&outside, &mut out);
    assert!(out.is_empty(), "written outside the target: {out:?}");
    let top: Vec<_> = fs::read_dir(base)
        .unwrap()
        .flatten()
        .map(|e| e.file_name())
        .collect();
    assert_eq!(top.len(), 2, "beside the target: {top:?}");
    let mut inside = Vec::new();
    tree(&target, &mut inside);
    let mut seen = Vec::new();
    for (path, m) in &inside {
        let name = path.file_name().unwrap().to_string_lossy();
        // The extractor's own: `.lzflow-PID-N.partial`.
        let ours = format!(".lzflow-{}-", std::process::id());
        assert!(
            !(name.starts_with(&ours) && name.ends_with(".partial")),
            "a temporary file left: {path:?}"
        );
        assert_eq!(
            m.permissions().mode() & 0o7000,
            0,
            "special bits on {path:?}"
        );
        let kind = if m.file_type().is_symlink() {
            'l'
        } else if m.is_dir() {
            'd'
        } else {
            'f'
        };
        let data = if kind == 'f' {
            fs::read(path).unwrap()
        } else {
            Vec::new()
        };
        let rel = path
            .strip_prefix(&target)
            .unwrap()
            .to_string_lossy()
            .into_owned();
        seen.push((rel, kind, m.permissions().mode() & 0o7777, data));
    }
    if !overwrites {
        assert_eq!(fs::read(target.join("pre.txt")).unwrap(), b"kept");
        for link in ["link", "abs", "dangling"] {
            let m = fs::symlink_metadata(target.join(link)).unwrap();
            assert!(m.file_type().is_symlink(), "{link} replaced without Always");
        }
    }
    seen.sort();
    let result = match result {
        Ok(()) => "ok".to_string(),
        Err(e) => format!("{e:?}"),
    };
    (result, seen)
}
