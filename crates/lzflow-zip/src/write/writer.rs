//! The std face: [`ZipWriter`] over any `Write` (streaming: data
//! descriptors) or `Write + Seek` (local headers rewritten), the one
//! writing core ([`PollZipWriter`]) over a [`StdSink`].

use std::fs;
use std::io::{self, Read, Seek, Write};
use std::path::Path;

use lzflow_core::input_file::{not_regular, open_regular, FileId};
use lzflow_core::source::{block_on_poll, StdSink};
use lzflow_core::Recycler;

use crate::write::entry_options::EntryOptions;
use crate::write::poll_writer::{EntryKind, PollZipWriter};
use crate::write::writer_options::ZipWriterOptions;
use crate::ZipError;

/// Writes a zip archive: [`start_entry`](Self::start_entry), then the
/// entry's data through `Write`; or whole entries with
/// [`add_file`](Self::add_file), [`add_directory`](Self::add_directory),
/// [`add_symlink`](Self::add_symlink) and [`add_path`](Self::add_path);
/// then [`finish`](Self::finish). An archive not finished has no central
/// directory, so no reader takes it for complete.
pub struct ZipWriter<W> {
    core: PollZipWriter<StdSink<W>>,
    progress: Option<Box<dyn FnMut(u64) + Send>>,
    /// The file `add_path` passes over (the archive itself).
    skip: Option<FileId>,
}

/// Bytes `add_file` reads at a time: 64 KiB, what the core takes in one
/// write, so a large file is read in few calls.
const COPY_BUF: usize = 64 << 10;

/// `add_file`'s copy buffers, reused from call to call and from writer to
/// writer (so a warm writer allocates none).
static COPY_BUFS: Recycler<Vec<u8>> = Recycler::new(4);

impl<W> std::fmt::Debug for ZipWriter<W> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ZipWriter")
            .field("core", &self.core)
            .field("progress", &self.progress.is_some())
            .finish()
    }
}

impl<W: Write> ZipWriter<W> {
    /// A writer into a sink that cannot seek (a pipe, a socket, stdout):
    /// entries longer than what is held in memory get data descriptors.
    pub fn new_streaming(sink: W) -> Result<Self, ZipError> {
        Self::with_sink(StdSink::streaming(sink), ZipWriterOptions::new())
    }

    /// [`new_streaming`](Self::new_streaming) with options.
    pub fn new_streaming_with(sink: W, options: ZipWriterOptions) -> Result<Self, ZipError> {
        Self::with_sink(StdSink::streaming(sink), options)
    }

    fn with_sink(sink: StdSink<W>, options: ZipWriterOptions) -> Result<Self, ZipError> {
        let mut core = PollZipWriter::new(sink, options)?;
        // Driven through a no-op waker: waiting for a worker must block.
        core.set_blocking(true);
        Ok(ZipWriter {
            core,
            progress: None,
            skip: None,
        })
    }

    /// Calls `progress` with the bytes of entry data each write takes (a
    /// progress bar's feed).
    pub fn on_progress(&mut self, progress: Box<dyn FnMut(u64) + Send>) {
        self.progress = Some(progress);
    }

    /// Makes [`add_path`](Self::add_path) pass over the file `meta`
    /// describes: give it the archive's own file, which would otherwise
    /// be added to itself when it lies in the tree being added.
    pub fn skip_in_add_path(&mut self, meta: &fs::Metadata) {
        self.skip = FileId::of(meta);
    }

    /// Entries written so far (the one being written included).
    pub fn len(&self) -> usize {
        self.core.len()
    }

    /// True before the first entry.
    pub fn is_empty(&self) -> bool {
        self.core.is_empty()
    }

    /// Starts an entry; the one before it is closed first. Write its data
    /// through `Write`.
    pub fn start_entry(&mut self, name: &str, options: &EntryOptions) -> Result<(), ZipError> {
        self.start(name, EntryKind::File, options)
    }

    fn start(
        &mut self,
        name: &str,
        kind: EntryKind,
        options: &EntryOptions,
    ) -> Result<(), ZipError> {
        block_on_poll(|cx| self.core.poll_close_entry(cx))?;
        self.core.begin_entry(name, kind, options)
    }

    /// Adds a file entry with the data `reader` gives. If reading fails,
    /// the entry is dropped when none of it was written yet (entries up to
    /// 64 KiB, or the job limit on several threads); otherwise the writer
    /// fails, so that no archive looks complete with a part of the entry.
    pub fn add_file(
        &mut self,
        name: &str,
        mut reader: impl Read,
        options: &EntryOptions,
    ) -> Result<(), ZipError> {
        self.start_entry(name, options)?;
        if let Err(e) = self.copy_from(&mut reader) {
            // Not closed as if whole: dropped, or the writer fails.
            self.core.abandon_entry();
            return Err(e.into());
        }
        Ok(())
    }

    /// Copies `reader` to its end into the open entry.
    fn copy_from(&mut self, reader: &mut impl Read) -> io::Result<()> {
        let mut buf = COPY_BUFS.take(|| vec![0; COPY_BUF], |_| {});
        loop {
            match reader.read(&mut buf) {
                Ok(0) => return Ok(()),
                Ok(n) => self.write_all(&buf[..n])?,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
    }

    /// Adds a directory entry (its name gets a trailing `/`).
    pub fn add_directory(&mut self, name: &str, options: &EntryOptions) -> Result<(), ZipError> {
        self.start(name, EntryKind::Directory, options)
    }

    /// Adds a symbolic link to `target`, as Info-ZIP stores one.
    pub fn add_symlink(
        &mut self,
        name: &str,
        target: &str,
        options: &EntryOptions,
    ) -> Result<(), ZipError> {
        self.start(name, EntryKind::Symlink, options)?;
        self.write_all(target.as_bytes())?;
        Ok(())
    }

    /// Adds `path` as `name`: a file, a symbolic link (not followed), or a
    /// directory with everything below it (in name order), with their
    /// modification times and Unix modes; `options` give the method,
    /// level and encryption. Anything else (a FIFO, a device, a socket)
    /// is an [`io::ErrorKind::InvalidInput`] error, never opened; files are
    /// opened as [`open_regular`] says, and read up to the size they had
    /// when opened (as tar reads them).
    pub fn add_path(
        &mut self,
        name: &str,
        path: impl AsRef<Path>,
        options: &EntryOptions,
    ) -> Result<(), ZipError> {
        let path = path.as_ref();
        let kind = fs::symlink_metadata(path)?.file_type();
        self.add_tree(name.trim_end_matches('/'), path, kind, options)
    }

    /// [`add_path`](Self::add_path) for a path of a known type (a
    /// directory listing tells it without a look-up).
    fn add_tree(
        &mut self,
        name: &str,
        path: &Path,
        kind: fs::FileType,
        options: &EntryOptions,
    ) -> Result<(), ZipError> {
        if kind.is_file() {
            let (file, meta) = open_regular(path)?;
            if self.skip.is_some_and(|id| id.is_of(&meta)) {
                return Ok(());
            }
            // Up to the size it had when opened, as tar reads: a file that
            // grows meanwhile cannot make the walk endless.
            let options = options.clone().with_metadata(&meta);
            return self.add_file(name, file.take(meta.len()), &options);
        }
        if !kind.is_dir() && !kind.is_symlink() {
            return Err(not_regular(path).into());
        }
        let meta = fs::symlink_metadata(path)?;
        let options = options.clone().with_metadata(&meta);
        if meta.file_type().is_symlink() {
            let target = fs::read_link(path)?;
            return self.add_symlink(name, &target.to_string_lossy(), &options);
        }
        if !meta.is_dir() {
            // Replaced since it was listed.
            return Err(not_regular(path).into());
        }
        if !name.is_empty() {
            self.add_directory(name, &options)?;
        }
        let mut children: Vec<_> = fs::read_dir(path)?.collect::<Result<_, _>>()?;
        children.sort_by_key(|c| c.file_name());
        for child in children {
            let child_name = child.file_name().to_string_lossy().into_owned();
            let full = if name.is_empty() {
                child_name
            } else {
                format!("{name}/{child_name}")
            };
            self.add_tree(&full, &child.path(), child.file_type()?, &options)?;
        }
        Ok(())
    }

    /// Writes the central directory and the end records and flushes; gives
    /// back the sink.
    pub fn finish(mut self) -> Result<W, ZipError> {
        block_on_poll(|cx| self.core.poll_finish(cx))?;
        Ok(self.core.into_sink().into_inner())
    }
}

impl<W: Write + Seek> ZipWriter<W> {
    /// A writer into a sink that can seek (a file, a `Cursor`): no data
    /// descriptors; each local header is rewritten with its entry's CRC-32
    /// and sizes.
    pub fn new(sink: W) -> Result<Self, ZipError> {
        Self::with_sink(StdSink::seekable(sink), ZipWriterOptions::new())
    }

    /// [`new`](Self::new) with options.
    pub fn new_with(sink: W, options: ZipWriterOptions) -> Result<Self, ZipError> {
        Self::with_sink(StdSink::seekable(sink), options)
    }
}

impl<W: Write> Write for ZipWriter<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let n = block_on_poll(|cx| self.core.poll_write(cx, buf))?;
        if let Some(p) = &mut self.progress {
            p(n as u64);
        }
        Ok(n)
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}
