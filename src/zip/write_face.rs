//! The async zip writer, generic over a runtime's sink adapter: the tokio
//! face is `AsyncZipWriter<TokioWriter<W>>`, the futures-io face
//! `AsyncZipWriter<FuturesWriter<W>>`. Everything but the runtimes'
//! constructors and `AsyncWrite` impls is written once, here, over the one
//! writing core ([`PollZipWriter`]).

use std::future::poll_fn;

use lzflow_core::source::{Adapter, PollRead, PollWrite};
use lzflow_zip::{EntryKind, EntryOptions, PollZipWriter, ZipError, ZipWriterOptions};

/// The entry being added, given up unless the add completes: a reader's
/// error or a dropped (cancelled) call leaves no entry closed as if whole.
/// See [`PollZipWriter::abandon_entry`].
struct Unfinished<'a, S: PollWrite>(Option<&'a mut PollZipWriter<S>>);

impl<S: PollWrite> Drop for Unfinished<'_, S> {
    fn drop(&mut self) {
        if let Some(core) = self.0.take() {
            core.abandon_entry();
        }
    }
}

/// Writes all of `data` into the current entry.
async fn write_all<S: PollWrite>(
    core: &mut PollZipWriter<S>,
    mut data: &[u8],
) -> Result<(), ZipError> {
    while !data.is_empty() {
        let n = poll_fn(|cx| core.poll_write(cx, data)).await?;
        data = &data[n..];
    }
    Ok(())
}

/// Bytes copied from a reader per step of [`AsyncZipWriter::add_file`].
const COPY_CHUNK: usize = 8 << 10;

/// A zip archive being written into an async sink: entries pushed through
/// the runtime's `AsyncWrite` after
/// [`start_entry`](Self::start_entry), or added whole; then
/// [`finish`](Self::finish).
#[derive(Debug)]
pub struct AsyncZipWriter<S> {
    pub(crate) core: PollZipWriter<S>,
    /// The file `add_path` passes over (the archive itself).
    pub(crate) skip: Option<lzflow_core::input_file::FileId>,
}

impl<S: PollWrite> AsyncZipWriter<S> {
    /// A writer into `sink` (a runtime adapter, seekable or not).
    pub fn from_sink(sink: S, options: ZipWriterOptions) -> Result<Self, ZipError> {
        Ok(AsyncZipWriter {
            core: PollZipWriter::new(sink, options)?,
            skip: None,
        })
    }

    /// Makes `add_path` pass over the file `meta` describes: give it the
    /// archive's own file, which would otherwise be added to itself when
    /// it lies in the tree being added.
    pub fn skip_in_add_path(&mut self, meta: &std::fs::Metadata) {
        self.skip = lzflow_core::input_file::FileId::of(meta);
    }

    /// Starts a file entry (closing the one before it); write its data
    /// through the runtime's `AsyncWrite`.
    pub async fn start_entry(
        &mut self,
        name: &str,
        options: &EntryOptions,
    ) -> Result<(), ZipError> {
        self.start(name, EntryKind::File, options).await
    }

    async fn start(
        &mut self,
        name: &str,
        kind: EntryKind,
        options: &EntryOptions,
    ) -> Result<(), ZipError> {
        poll_fn(|cx| self.core.poll_close_entry(cx)).await?;
        self.core.begin_entry(name, kind, options)
    }

    /// Adds a directory entry.
    pub async fn add_directory(
        &mut self,
        name: &str,
        options: &EntryOptions,
    ) -> Result<(), ZipError> {
        self.start(name, EntryKind::Directory, options).await
    }

    /// Adds a symbolic link to `target`, as Info-ZIP stores one.
    pub async fn add_symlink(
        &mut self,
        name: &str,
        target: &str,
        options: &EntryOptions,
    ) -> Result<(), ZipError> {
        self.start(name, EntryKind::Symlink, options).await?;
        let mut guard = Unfinished(Some(&mut self.core));
        write_all(guard.0.as_mut().expect("set above"), target.as_bytes()).await?;
        guard.0 = None;
        Ok(())
    }

    /// Adds a file entry with what `reader` (a runtime reader adapted to
    /// [`PollRead`]) gives. If reading fails or the call is dropped
    /// (cancelled in a `select!`), the entry is dropped when none of it
    /// reached the sink yet (held in memory: up to 64 KiB, or the job
    /// limit with threads) and the archive goes on without it; otherwise
    /// the writer fails, so no archive looks complete with part of it.
    pub async fn add_file_from<R: PollRead>(
        &mut self,
        name: &str,
        mut reader: R,
        options: &EntryOptions,
    ) -> Result<(), ZipError> {
        self.start_entry(name, options).await?;
        let mut guard = Unfinished(Some(&mut self.core));
        let mut buf = [0u8; COPY_CHUNK];
        loop {
            let n = match poll_fn(|cx| reader.poll_read(cx, &mut buf)).await {
                Ok(n) => n,
                Err(e) => return Err(e.into()),
            };
            if n == 0 {
                guard.0 = None;
                return Ok(());
            }
            write_all(guard.0.as_mut().expect("set above"), &buf[..n]).await?;
        }
    }

    /// Closes the last entry, writes the central directory and the end
    /// records, and flushes. Cancel-safe: after a dropped call, call it
    /// again; it goes on where it stopped and writes the same archive.
    pub async fn finish(&mut self) -> Result<(), ZipError> {
        poll_fn(|cx| self.core.poll_finish(cx)).await
    }

    /// Gives back the sink adapter.
    pub fn into_sink(self) -> S {
        self.core.into_sink()
    }
}

/// What both runtimes' faces share: the streaming constructors, entries
/// from the runtime's readers, the writer given back. (The seekable
/// constructors need the runtime's seek trait: one per face.)
impl<S: PollWrite + Adapter> AsyncZipWriter<S> {
    /// A writer into a sink that cannot seek (a socket, an HTTP body):
    /// entries past what is held in memory get data descriptors.
    pub fn new_streaming(sink: S::Inner) -> Result<Self, ZipError> {
        Self::new_streaming_with(sink, ZipWriterOptions::new())
    }

    /// [`new_streaming`](Self::new_streaming) with options (the comment,
    /// compressing threads: with more than one, entries are compressed on
    /// worker threads and no poll waits for them).
    pub fn new_streaming_with(sink: S::Inner, options: ZipWriterOptions) -> Result<Self, ZipError> {
        Self::from_sink(S::new(sink), options)
    }

    /// Adds a file entry with what a reader of the runtime gives.
    pub async fn add_file<R>(
        &mut self,
        name: &str,
        reader: R,
        options: &EntryOptions,
    ) -> Result<(), ZipError>
    where
        S::Reader<R>: PollRead,
    {
        self.add_file_from(name, S::reader(reader), options).await
    }

    /// Gives back the writer.
    pub fn into_inner(self) -> S::Inner {
        Adapter::into_inner(self.into_sink())
    }
}
