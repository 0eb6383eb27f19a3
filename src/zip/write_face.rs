//! The async zip writer, generic over a runtime's sink adapter: the tokio
//! face is `AsyncZipWriter<TokioWriter<W>>`, the futures-io face
//! `AsyncZipWriter<FuturesWriter<W>>`. Everything but the runtimes'
//! constructors and `AsyncWrite` impls is written once, here, over the one
//! writing core ([`PollZipWriter`]).

use std::future::poll_fn;

use lzflow_core::source::{PollRead, PollWrite};
use lzflow_zip::{EntryKind, EntryOptions, PollZipWriter, ZipError, ZipWriterOptions};

/// Bytes copied from a reader per step of [`AsyncZipWriter::add_file`].
const COPY_CHUNK: usize = 8 << 10;

/// A zip archive being written into an async sink: entries pushed through
/// the runtime's `AsyncWrite` after
/// [`start_entry`](Self::start_entry), or added whole; then
/// [`finish`](Self::finish).
#[derive(Debug)]
pub struct AsyncZipWriter<S> {
    pub(crate) core: PollZipWriter<S>,
}

impl<S: PollWrite> AsyncZipWriter<S> {
    /// A writer into `sink` (a runtime adapter, seekable or not).
    pub fn from_sink(sink: S, options: ZipWriterOptions) -> Result<Self, ZipError> {
        Ok(AsyncZipWriter {
            core: PollZipWriter::new(sink, options)?,
        })
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
        self.write_all(target.as_bytes()).await
    }

    /// Adds a file entry with what `reader` (a runtime reader adapted to
    /// [`PollRead`]) gives.
    pub async fn add_file_from<R: PollRead>(
        &mut self,
        name: &str,
        mut reader: R,
        options: &EntryOptions,
    ) -> Result<(), ZipError> {
        self.start_entry(name, options).await?;
        let mut buf = [0u8; COPY_CHUNK];
        loop {
            let n = poll_fn(|cx| reader.poll_read(cx, &mut buf)).await?;
            if n == 0 {
                return Ok(());
            }
            self.write_all(&buf[..n]).await?;
        }
    }

    async fn write_all(&mut self, mut data: &[u8]) -> Result<(), ZipError> {
        while !data.is_empty() {
            let n = poll_fn(|cx| self.core.poll_write(cx, data)).await?;
            data = &data[n..];
        }
        Ok(())
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
