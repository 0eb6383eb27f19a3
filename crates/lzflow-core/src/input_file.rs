//! Opening a file on disk as an archive entry's input: the one rule every
//! writer's `add_path` follows.
//!
//! A tree being archived can change under the walk, and it can hold
//! things that are not files. Opening by path after a `symlink_metadata`
//! check would follow a symbolic link swapped in meanwhile (archiving
//! whatever it points to under the link's name) and would block for ever
//! on a FIFO. So the file is opened without following a link and without
//! waiting for a FIFO's writer, and its type is checked again on the open
//! handle: what is archived is what was checked.

use std::fs::{File, Metadata, OpenOptions};
use std::io;
use std::path::Path;

/// Opens the regular file at `path` for reading, with the metadata of the
/// file opened (`fstat`, not a second look-up of the path). A path that
/// names anything else (a symbolic link, a directory, a FIFO, a device, a
/// socket) is an [`io::ErrorKind::InvalidInput`] error naming it.
pub fn open_regular(path: &Path) -> io::Result<(File, Metadata)> {
    let mut options = OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        // O_NONBLOCK makes opening a FIFO return at once; reads from a
        // regular file ignore it.
        options.custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK);
    }
    let file = options.open(path).map_err(|e| {
        // O_NOFOLLOW's answer to a link.
        if e.raw_os_error() == Some(ELOOP) {
            not_regular(path)
        } else {
            e
        }
    })?;
    let meta = file.metadata()?;
    if !meta.is_file() {
        return Err(not_regular(path));
    }
    Ok((file, meta))
}

/// Which file a metadata record is of (device and inode numbers on Unix):
/// how a writer's `add_path` tells the archive it writes from the files
/// of the tree it adds, as `zip` and 7-Zip leave their archive out.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct FileId {
    dev: u64,
    ino: u64,
}

impl FileId {
    /// The identity of the file `meta` describes; `None` where the
    /// platform gives no such numbers.
    pub fn of(meta: &Metadata) -> Option<FileId> {
        #[cfg(unix)]
        {
            use std::os::unix::fs::MetadataExt;
            Some(FileId {
                dev: meta.dev(),
                ino: meta.ino(),
            })
        }
        #[cfg(not(unix))]
        {
            let _ = meta;
            None
        }
    }

    /// Whether `meta` describes this file (never, where the platform gives
    /// no identity).
    pub fn is_of(self, meta: &Metadata) -> bool {
        FileId::of(meta) == Some(self)
    }
}

/// The error for a path that is not a regular file where one was expected.
pub fn not_regular(path: &Path) -> io::Error {
    io::Error::new(
        io::ErrorKind::InvalidInput,
        format!("{}: not a regular file", path.display()),
    )
}

#[cfg(unix)]
const ELOOP: i32 = libc::ELOOP;
#[cfg(not(unix))]
const ELOOP: i32 = -1;

#[cfg(test)]
mod tests {
    use super::*;

    fn temp_dir(tag: &str) -> std::path::PathBuf {
        let d = std::env::temp_dir().join(format!("lzflow-core-{tag}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        d
    }

    #[test]
    fn opens_a_regular_file_with_its_own_metadata() {
        let d = temp_dir("regular");
        let p = d.join("f");
        std::fs::write(&p, b"abc").unwrap();
        let (mut f, meta) = open_regular(&p).unwrap();
        assert_eq!(meta.len(), 3);
        let mut s = String::new();
        io::Read::read_to_string(&mut f, &mut s).unwrap();
        assert_eq!(s, "abc");
        let e = open_regular(&d).unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::InvalidInput);
        std::fs::remove_dir_all(&d).unwrap();
    }

    #[cfg(unix)]
    #[test]
    fn refuses_links_and_fifos_without_waiting() {
        let d = temp_dir("special");
        std::fs::write(d.join("target"), b"secret").unwrap();
        std::os::unix::fs::symlink(d.join("target"), d.join("link")).unwrap();
        let e = open_regular(&d.join("link")).unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::InvalidInput, "{e}");
        let fifo = d.join("fifo");
        let st = std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .expect("mkfifo runs");
        assert!(st.success());
        // Without O_NONBLOCK this open would wait for a writer for ever.
        let e = open_regular(&fifo).unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::InvalidInput, "{e}");
        std::fs::remove_dir_all(&d).unwrap();
    }
}
