//! Extraction to a directory, refusing every path that would land outside
//! it.

use std::fs;
use std::io::{self, Read, Seek};
use std::path::{Component, Path, PathBuf};

use crate::archive::Archive;
use crate::entry::{filetime_to_system_time, Entry};
use crate::SevenZError;

/// The entry's path below the target, or an error when it is absolute,
/// climbs with `..`, names a drive, or is empty. Both `/` and `\` count as
/// separators so an archive made on either system is checked the same way.
pub fn safe_relative_path(name: &str) -> Result<PathBuf, SevenZError> {
    let unsafe_path = || SevenZError::UnsafePath {
        path: name.to_string(),
    };
    if name.starts_with('/') || name.starts_with('\\') || name.contains('\0') {
        return Err(unsafe_path());
    }
    let mut out = PathBuf::new();
    for (i, part) in name.split(['/', '\\']).enumerate() {
        match part {
            "" | "." => continue,
            ".." => return Err(unsafe_path()),
            _ => {}
        }
        let b = part.as_bytes();
        if i == 0 && b.len() >= 2 && b[1] == b':' && b[0].is_ascii_alphabetic() {
            return Err(unsafe_path());
        }
        // Whatever the platform makes of the component must stay a plain
        // name (no prefix, root or parent).
        let mut comps = Path::new(part).components();
        match (comps.next(), comps.next()) {
            (Some(Component::Normal(_)), None) => out.push(part),
            _ => return Err(unsafe_path()),
        }
    }
    if out.as_os_str().is_empty() {
        return Err(unsafe_path());
    }
    Ok(out)
}

/// Creates the directories from `root` down to `root/rel`, refusing to go
/// through a symbolic link (which could point anywhere).
fn make_dirs(root: &Path, rel: &Path, name: &str) -> Result<PathBuf, SevenZError> {
    let mut at = root.to_path_buf();
    for comp in rel.components() {
        at.push(comp);
        match fs::symlink_metadata(&at) {
            Ok(m) if m.file_type().is_symlink() => {
                return Err(SevenZError::UnsafePath {
                    path: name.to_string(),
                })
            }
            Ok(m) if m.is_dir() => {}
            Ok(_) => {
                return Err(SevenZError::Io(io::Error::new(
                    io::ErrorKind::AlreadyExists,
                    format!("{} exists and is not a directory", at.display()),
                )))
            }
            Err(e) if e.kind() == io::ErrorKind::NotFound => fs::create_dir(&at)?,
            Err(e) => return Err(e.into()),
        }
    }
    Ok(at)
}

#[cfg(unix)]
fn set_mode(path: &Path, entry: &Entry) -> io::Result<()> {
    use std::os::unix::fs::PermissionsExt;
    // A stored mode of 0 carries no permissions worth applying.
    if let Some(mode) = entry.unix_mode().filter(|m| m & 0o7777 != 0) {
        fs::set_permissions(path, fs::Permissions::from_mode(mode & 0o7777))?;
    } else if entry
        .attributes
        .is_some_and(|a| a & crate::ATTR_READONLY != 0)
    {
        let mut p = fs::metadata(path)?.permissions();
        p.set_readonly(true);
        fs::set_permissions(path, p)?;
    }
    Ok(())
}

#[cfg(not(unix))]
fn set_mode(path: &Path, entry: &Entry) -> io::Result<()> {
    if entry
        .attributes
        .is_some_and(|a| a & crate::ATTR_READONLY != 0)
    {
        let mut p = fs::metadata(path)?.permissions();
        p.set_readonly(true);
        fs::set_permissions(path, p)?;
    }
    Ok(())
}

fn set_mtime(file: &fs::File, entry: &Entry) -> io::Result<()> {
    match entry.mtime_filetime {
        Some(ft) => file.set_modified(filetime_to_system_time(ft)),
        None => Ok(()),
    }
}

impl<R: Read + Seek> Archive<R> {
    /// Extracts every entry below `dir` (created if missing), decoding each
    /// folder once. Sets modification times and, on unix, the stored mode.
    /// Refuses entries whose path is absolute, contains `..`, names a drive,
    /// or leads through a symbolic link; symbolic-link entries are written
    /// as regular files holding the link target (never as links).
    /// Anti-items are skipped.
    pub fn extract_to(&mut self, dir: impl AsRef<Path>) -> Result<(), SevenZError> {
        let root = dir.as_ref().to_path_buf();
        fs::create_dir_all(&root)?;
        // Check every path before writing anything.
        let paths: Vec<PathBuf> = self
            .entries()
            .iter()
            .map(|e| safe_relative_path(&e.name))
            .collect::<Result<_, _>>()?;
        let mut dirs: Vec<(PathBuf, Entry)> = Vec::new();
        let mut i = 0usize;
        self.for_each_entry(|entry, data| {
            let rel = &paths[i];
            i += 1;
            if entry.is_anti {
                return Ok(());
            }
            if entry.is_dir {
                let at = make_dirs(&root, rel, &entry.name)?;
                dirs.push((at, entry.clone()));
                return Ok(());
            }
            let parent = match rel.parent() {
                Some(p) if !p.as_os_str().is_empty() => make_dirs(&root, p, &entry.name)?,
                _ => root.clone(),
            };
            let at = parent.join(rel.file_name().unwrap_or_default());
            match fs::symlink_metadata(&at) {
                Ok(m) if m.file_type().is_symlink() || m.is_dir() => {
                    return Err(SevenZError::UnsafePath {
                        path: entry.name.clone(),
                    }
                    .into())
                }
                _ => {}
            }
            let mut file = fs::File::create(&at)?;
            io::copy(data, &mut file)?;
            set_mtime(&file, entry)?;
            drop(file);
            set_mode(&at, entry)?;
            Ok(())
        })?;
        // Directories last, deepest first, so that writing into them does
        // not undo their times and a read-only mode does not block children.
        for (at, entry) in dirs.iter().rev() {
            if entry.mtime_filetime.is_some() {
                if let Ok(f) = fs::File::open(at) {
                    let _ = set_mtime(&f, entry);
                }
            }
            set_mode(at, entry)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escaping_paths_are_refused() {
        for bad in [
            "/etc/passwd",
            "\\x",
            "../x",
            "a/../../x",
            "a\\..\\x",
            "C:\\x",
            "c:x",
            "",
            ".",
            "a/\0b",
        ] {
            assert!(
                matches!(safe_relative_path(bad), Err(SevenZError::UnsafePath { .. })),
                "{bad:?}"
            );
        }
        assert_eq!(
            safe_relative_path("a/./b\\c").unwrap(),
            Path::new("a").join("b").join("c")
        );
        #[cfg(unix)]
        assert_eq!(
            safe_relative_path("d/x:y").unwrap(),
            Path::new("d").join("x:y")
        );
    }
}
