//! The tokio face: [`AsyncArchive`] over `tokio::io::AsyncRead +
//! AsyncSeek`: the generic face with the tokio adapter, and tokio's
//! `AsyncRead` for its readers.

use std::io;
use std::pin::Pin;
use std::task::{ready, Context, Poll};

use ::tokio::io::{AsyncRead, AsyncSeek, ReadBuf};

use super::face;
use crate::tokio::source::TokioSource;

/// A 7z archive over a tokio `AsyncRead + AsyncSeek` source (e.g.
/// `tokio::fs::File`).
pub type AsyncArchive<R> = face::AsyncArchive<TokioSource<R>>;
/// Reads one entry's data (from [`AsyncArchive::reader`]).
pub type AsyncEntryReader<'a, R> = face::AsyncEntryReader<'a, TokioSource<R>>;
/// Sequential access to every entry ([`AsyncArchive::entries_stream`]).
pub type AsyncEntries<'a, R> = face::AsyncEntries<'a, TokioSource<R>>;
/// The owned stream of entries and their data
/// ([`AsyncArchive::into_entries`]).
pub type EntryStream<R> = face::EntryStream<TokioSource<R>>;

/// Fills the unfilled part of a tokio `ReadBuf` from a slice reader.
fn fill_read_buf(
    buf: &mut ReadBuf<'_>,
    read: impl FnOnce(&mut [u8]) -> Poll<io::Result<usize>>,
) -> Poll<io::Result<()>> {
    let n = ready!(read(buf.initialize_unfilled()))?;
    buf.advance(n);
    Poll::Ready(Ok(()))
}

impl<R: AsyncRead + AsyncSeek + Unpin> AsyncRead for AsyncEntryReader<'_, R> {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        fill_read_buf(buf, |b| this.inner.poll_read(cx, b))
    }
}

impl<R: AsyncRead + AsyncSeek + Unpin> AsyncRead for AsyncEntries<'_, R> {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        fill_read_buf(buf, |b| this.inner.poll_read(cx, b))
    }
}
