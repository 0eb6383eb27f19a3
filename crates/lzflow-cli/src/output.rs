//! Opening inputs and creating outputs safely: never overwrite without -f,
//! never leave a half-written output behind after an error.

use std::fs::{self, File, OpenOptions};
use std::io::{self, BufWriter, Read, Write};
use std::path::{Path, PathBuf};

/// An input file (or standard input) ready to read.
pub struct Input {
    /// The name used in messages (`(stdin)` for standard input).
    pub name: String,
    /// The file's path; None for standard input.
    pub path: Option<PathBuf>,
    /// The bytes.
    pub reader: Box<dyn Read>,
    /// Size and permissions of a regular file, copied to the output.
    pub metadata: Option<fs::Metadata>,
}

impl Input {
    /// Opens `arg`; `-` means standard input. Directories are refused
    /// (reading one fails later with a less helpful message).
    pub fn open(arg: &str) -> io::Result<Input> {
        if arg == "-" {
            return Ok(Input {
                name: "(stdin)".into(),
                path: None,
                reader: Box::new(io::stdin().lock()),
                metadata: None,
            });
        }
        let file = File::open(arg)?;
        let metadata = file.metadata()?;
        if metadata.is_dir() {
            return Err(crate::report::skipped("is a directory, skipping"));
        }
        Ok(Input {
            name: arg.to_string(),
            path: Some(PathBuf::from(arg)),
            reader: Box::new(file),
            metadata: Some(metadata),
        })
    }

    /// [`open`](Self::open) for compressed input: as xz does, standard
    /// input on a terminal is refused rather than waited on.
    pub fn open_compressed(arg: &str) -> io::Result<Input> {
        use std::io::IsTerminal;
        if arg == "-" && io::stdin().is_terminal() {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                "compressed data cannot be read from a terminal",
            ));
        }
        Self::open(arg)
    }

    /// [`open`](Self::open) for an input whose output is a file named
    /// after it (and which is removed after it unless `keep`): as xz does,
    /// anything but a regular file (a FIFO, a device, a socket) is
    /// skipped, and never opened (opening a FIFO would wait for a writer);
    /// so is a symbolic link unless the input is kept (xz 5.4 follows one
    /// with `-k`: only removing the link instead of the file is wrong).
    pub fn open_regular(arg: &str, keep: bool) -> io::Result<Input> {
        if arg != "-" {
            if !keep && fs::symlink_metadata(arg)?.file_type().is_symlink() {
                return Err(crate::report::skipped("is a symbolic link, skipping"));
            }
            let meta = fs::metadata(arg)?;
            if !meta.is_file() && !meta.is_dir() {
                return Err(crate::report::skipped("not a regular file, skipping"));
            }
        }
        Self::open(arg)
    }

    /// For an input to be removed after it is converted (`--rm`, without
    /// `-f`): as xz, passes over (a skip warning) a file with more than
    /// one hard link, whose data would stay under its other names, and
    /// one with the setuid, setgid or sticky bit, which its output does
    /// not get.
    pub fn check_removable(&self) -> io::Result<()> {
        #[cfg(unix)]
        if let Some(meta) = &self.metadata {
            use std::os::unix::fs::MetadataExt;
            if meta.nlink() > 1 {
                return Err(crate::report::skipped(
                    "input file has more than one hard link, skipping",
                ));
            }
            if meta.mode() & 0o6000 != 0 {
                return Err(crate::report::skipped(
                    "file has setuid or setgid bit set, skipping",
                ));
            }
            if meta.mode() & 0o1000 != 0 {
                return Err(crate::report::skipped("file has sticky bit set, skipping"));
            }
        }
        Ok(())
    }

    /// The input's size when it is a regular file.
    pub fn size(&self) -> Option<u64> {
        self.metadata
            .as_ref()
            .filter(|m| m.is_file())
            .map(|m| m.len())
    }
}

/// Where decoded or encoded bytes go.
pub enum Sink {
    /// Standard output (`-c`).
    Stdout(BufWriter<io::StdoutLock<'static>>),
    /// A file that is deleted again unless [`Sink::commit`] is called.
    File(PendingFile),
}

impl Sink {
    /// Standard output.
    pub fn stdout() -> Sink {
        Sink::Stdout(BufWriter::with_capacity(1 << 16, io::stdout().lock()))
    }

    /// A new file at `path`; an existing file is an error unless `force`.
    /// With `like` (the input's metadata), the file is created with the
    /// input's permission bits less setuid, setgid and sticky, so that the
    /// umask applies to them (on Unix); else with 0o666 and the umask.
    pub fn create(path: &Path, force: bool, like: Option<&fs::Metadata>) -> io::Result<Sink> {
        PendingFile::create(path, force, like).map(Sink::File)
    }

    /// Flushes and, for a file, keeps it and copies the input's
    /// modification time onto it (and, off Unix, its read-only flag), as
    /// xz does.
    pub fn commit(self, from: Option<&fs::Metadata>) -> io::Result<()> {
        match self {
            Sink::Stdout(mut w) => w.flush(),
            Sink::File(f) => f.commit(from),
        }
    }
}

impl Write for Sink {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        match self {
            Sink::Stdout(w) => w.write(buf).map_err(closed_pipe_ends),
            Sink::File(f) => f.writer.write(buf),
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        match self {
            Sink::Stdout(w) => w.flush().map_err(closed_pipe_ends),
            Sink::File(f) => f.writer.flush(),
        }
    }
}

/// A reader that closed standard output early (`lzflow d -c f.xz | head`)
/// wants no more: the tool ends quietly with status 0, as for listings
/// (see `report::stdout`). Other errors are passed on.
fn closed_pipe_ends(e: io::Error) -> io::Error {
    if e.kind() == io::ErrorKind::BrokenPipe {
        std::process::exit(0);
    }
    e
}

/// An output file under construction; removed on drop unless committed, so
/// an error never leaves truncated output that looks complete.
pub struct PendingFile {
    writer: BufWriter<File>,
    committed: bool,
    /// Its path, also removed on a signal until committed or dropped.
    listed: crate::interrupt::Listed,
}

impl PendingFile {
    fn create(path: &Path, force: bool, like: Option<&fs::Metadata>) -> io::Result<PendingFile> {
        if force {
            // Unlink rather than truncate, so a symlink or hard link at the
            // destination is replaced instead of written through.
            match fs::symlink_metadata(path) {
                Ok(m) if m.is_dir() => {
                    return Err(io::Error::other(format!(
                        "{}: output is a directory",
                        path.display()
                    )))
                }
                Ok(_) => fs::remove_file(path)?,
                Err(e) if e.kind() == io::ErrorKind::NotFound => {}
                Err(e) => return Err(e),
            }
        }
        let mut options = OpenOptions::new();
        options.write(true).create_new(true);
        #[cfg(unix)]
        {
            use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
            // Not copied afterwards as xz does: a copied setuid bit would
            // make a program of another user's archive run as its owner,
            // and the user's umask would be overridden.
            options.mode(like.map_or(0o666, |m| m.permissions().mode() & 0o777));
        }
        #[cfg(not(unix))]
        let _ = like;
        let open = || options.open(path);
        let (file, listed) = crate::interrupt::create_listed(path, open).map_err(|e| {
            if e.kind() == io::ErrorKind::AlreadyExists {
                io::Error::new(
                    e.kind(),
                    format!(
                        "{}: output file exists; use -f to overwrite it",
                        path.display()
                    ),
                )
            } else {
                io::Error::new(
                    e.kind(),
                    format!("{}: {}", path.display(), crate::report::describe(&e)),
                )
            }
        })?;
        Ok(PendingFile {
            writer: BufWriter::with_capacity(1 << 16, file),
            committed: false,
            listed,
        })
    }

    fn commit(mut self, from: Option<&fs::Metadata>) -> io::Result<()> {
        self.writer.flush()?;
        let file = self.writer.get_ref();
        if let Some(meta) = from {
            // Best effort, like xz: failing to copy metadata is not a reason
            // to throw away correct output. Unix permission bits were given
            // when the file was created.
            #[cfg(not(unix))]
            let _ = file.set_permissions(meta.permissions());
            if let Ok(mtime) = meta.modified() {
                let _ = file.set_modified(mtime);
            }
        }
        self.committed = true;
        Ok(())
    }
}

impl Drop for PendingFile {
    fn drop(&mut self) {
        if !self.committed {
            let _ = fs::remove_file(self.listed.path());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("lzflow-cli-output-{}", std::process::id()));
        fs::create_dir_all(&dir).unwrap();
        dir.join(name)
    }

    #[test]
    fn uncommitted_output_is_removed_and_existing_is_kept() {
        let path = scratch("partial");
        let _ = fs::remove_file(&path);
        {
            let mut sink = Sink::create(&path, false, None).unwrap();
            sink.write_all(b"half").unwrap();
            sink.flush().unwrap();
            assert!(path.exists());
        }
        assert!(!path.exists(), "dropped without commit: removed");

        fs::write(&path, b"precious").unwrap();
        let err = Sink::create(&path, false, None).err().expect("must refuse");
        assert_eq!(err.kind(), io::ErrorKind::AlreadyExists);
        assert!(err.to_string().contains("use -f"));
        assert_eq!(fs::read(&path).unwrap(), b"precious");

        let mut sink = Sink::create(&path, true, None).unwrap();
        sink.write_all(b"new").unwrap();
        sink.commit(None).unwrap();
        assert_eq!(fs::read(&path).unwrap(), b"new");
        fs::remove_file(&path).unwrap();
    }
}
