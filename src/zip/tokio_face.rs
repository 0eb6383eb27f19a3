//! The tokio face: [`AsyncZipArchive`] over `tokio::io::AsyncRead +
//! AsyncSeek`, the generic face with the tokio adapter, and tokio's
//! `AsyncRead` for its entry reader.

use std::io;
use std::pin::Pin;
use std::task::{ready, Context, Poll};

use ::tokio::io::{AsyncRead, AsyncSeek, ReadBuf};

use super::face;
use crate::tokio::source::TokioSource;

/// A zip archive over a tokio `AsyncRead + AsyncSeek` source.
pub type AsyncZipArchive<R> = face::AsyncZipArchive<TokioSource<R>>;
/// A zip archive read forward-only from a tokio `AsyncRead`.
pub type AsyncZipStreamReader<R> = face::AsyncZipStreamReader<TokioSource<R>>;
/// One entry of an [`AsyncZipStreamReader`], readable as it arrives.
pub type AsyncZipStreamEntry<'a, R> = face::AsyncZipStreamEntry<'a, TokioSource<R>>;
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
