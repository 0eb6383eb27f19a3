//! The tokio face: [`AsyncZipArchive`] over `tokio::io::AsyncRead +
//! AsyncSeek`, the generic face with the tokio adapter, and tokio's
//! `AsyncRead` for its entry reader.

use std::io;
use std::pin::Pin;
use std::task::{ready, Context, Poll};

use ::tokio::io::{AsyncRead, AsyncSeek, AsyncWrite, ReadBuf};

use super::face;
use crate::tokio::source::{TokioSource, TokioWriter};

/// A zip archive over a tokio `AsyncRead + AsyncSeek` source.
pub type AsyncZipArchive<R> = face::AsyncZipArchive<TokioSource<R>>;
/// A zip archive read forward-only from a tokio `AsyncRead`.
pub type AsyncZipStreamReader<R> = face::AsyncZipStreamReader<TokioSource<R>>;
/// One entry of an [`AsyncZipStreamReader`], readable as it arrives.
pub type AsyncZipStreamEntry<'a, R> = face::AsyncZipStreamEntry<'a, TokioSource<R>>;
/// The owned stream of entries and their data
/// ([`AsyncZipStreamReader::into_entries`]).
pub type ZipEntryStream<R> = face::ZipEntryStream<TokioSource<R>>;
/// The entries of an archive listed from its central directory one at a
/// time, without holding the directory.
pub type AsyncCentralDirectoryReader<R> = face::AsyncCentralDirectoryReader<TokioSource<R>>;
/// Reads one entry's data (from [`AsyncZipArchive::reader`]).
pub type AsyncZipEntryReader<'a, R> = face::AsyncZipEntryReader<'a, TokioSource<R>>;

impl<R: AsyncRead + AsyncSeek + Unpin> AsyncRead for AsyncZipEntryReader<'_, R> {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        let n = ready!(this.inner.poll_read(cx, buf.initialize_unfilled()))?;
        buf.advance(n);
        Poll::Ready(Ok(()))
    }
}

impl<R: AsyncRead + Unpin> AsyncRead for AsyncZipStreamEntry<'_, R> {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        let n = ready!(this.core.poll_read(cx, buf.initialize_unfilled()))?;
        buf.advance(n);
        Poll::Ready(Ok(()))
    }
}

/// A zip archive being written into a tokio `AsyncWrite`.
pub type AsyncZipWriter<W> = super::write_face::AsyncZipWriter<TokioWriter<W>>;

impl<W: AsyncWrite + AsyncSeek + Unpin> AsyncZipWriter<W> {
    /// A writer into a sink that seeks (a file): local headers rewritten
    /// with sizes, no data descriptors.
    pub fn new(sink: W) -> Result<Self, lzflow_zip::ZipError> {
        Self::new_with(sink, lzflow_zip::ZipWriterOptions::new())
    }

    /// [`new`](Self::new) with options (the comment, compressing
    /// threads: with more than one, entries are compressed on worker
    /// threads and no poll waits for them).
    pub fn new_with(
        sink: W,
        options: lzflow_zip::ZipWriterOptions,
    ) -> Result<Self, lzflow_zip::ZipError> {
        Self::from_sink(TokioWriter::seekable(sink), options)
    }
}

/// The current entry's data; shutting down finishes the archive.
impl<S: lzflow_core::source::PollWrite + Unpin> AsyncWrite
    for super::write_face::AsyncZipWriter<S>
{
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        self.get_mut().core.poll_write(cx, buf)
    }

    fn poll_flush(self: Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Poll::Ready(Ok(()))
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        self.get_mut().core.poll_finish(cx).map_err(io::Error::from)
    }
}

#[cfg(feature = "tokio-fs")]
impl<W: AsyncWrite + Unpin> AsyncZipWriter<W> {
    /// Adds `path` as `name`, as the std `ZipWriter::add_path` does and
    /// with the same bytes: a file, a symbolic link (not followed), or a
    /// directory with everything below it (depth first, each directory's
    /// children in name order), with their modification times and Unix
    /// modes; `options` give the method, level and encryption. Anything
    /// else (a FIFO, a device, a socket) is an `InvalidInput` error, never
    /// opened. Files are read through
    /// [`ReadAheadFile::open_regular`](crate::tokio::fs::ReadAheadFile::open_regular),
    /// up to the size they had when opened (as tar reads them).
    pub async fn add_path(
        &mut self,
        name: &str,
        path: impl AsRef<std::path::Path>,
        options: &lzflow_zip::EntryOptions,
    ) -> Result<(), lzflow_zip::ZipError> {
        let mut walk = crate::tokio::fs::TreeWalk::new(path, name);
        while let Some((path, name, meta)) = walk.next().await? {
            let options = options.clone().with_metadata(&meta);
            if meta.file_type().is_symlink() {
                let target = ::tokio::fs::read_link(&path).await?;
                self.add_symlink(&name, &target.to_string_lossy(), &options)
                    .await?;
            } else if meta.is_dir() {
                if !name.is_empty() {
                    self.add_directory(&name, &options).await?;
                }
            } else if meta.is_file() {
                // Options from the metadata of the file opened.
                let (file, meta) = crate::tokio::fs::ReadAheadFile::open_regular(&path).await?;
                if self.skip.is_some_and(|id| id.is_of(&meta)) {
                    continue;
                }
                let options = options.with_metadata(&meta);
                // Up to the size it had when opened, as tar reads.
                let file = ::tokio::io::AsyncReadExt::take(file, meta.len());
                self.add_file(&name, file, &options).await?;
            } else {
                return Err(lzflow_core::input_file::not_regular(&path).into());
            }
        }
        Ok(())
    }
}
