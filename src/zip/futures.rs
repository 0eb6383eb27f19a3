//! The futures-io face: [`AsyncZipArchive`] over futures-io's `AsyncRead`
//! and `AsyncSeek`, the generic face with the futures-io adapter, and
//! futures-io's `AsyncRead` for its entry reader.

use std::io;
use std::pin::Pin;
use std::task::{Context, Poll};

use futures_io::{AsyncRead, AsyncSeek};

use super::face;
use crate::futures::source::FuturesSource;

/// A zip archive over a futures-io `AsyncRead + AsyncSeek` source.
pub type AsyncZipArchive<R> = face::AsyncZipArchive<FuturesSource<R>>;
/// A zip archive read forward-only from a futures-io `AsyncRead`.
pub type AsyncZipStreamReader<R> = face::AsyncZipStreamReader<FuturesSource<R>>;
/// One entry of an [`AsyncZipStreamReader`], readable as it arrives.
pub type AsyncZipStreamEntry<'a, R> = face::AsyncZipStreamEntry<'a, FuturesSource<R>>;
/// Reads one entry's data (from [`AsyncZipArchive::reader`]).
pub type AsyncZipEntryReader<'a, R> = face::AsyncZipEntryReader<'a, FuturesSource<R>>;

impl<R: AsyncRead + AsyncSeek + Unpin> AsyncRead for AsyncZipEntryReader<'_, R> {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut [u8],
    ) -> Poll<io::Result<usize>> {
        self.get_mut().inner.poll_read(cx, buf)
    }
}

impl<R: AsyncRead + Unpin> AsyncRead for AsyncZipStreamEntry<'_, R> {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut [u8],
    ) -> Poll<io::Result<usize>> {
        self.get_mut().core.poll_read(cx, buf)
    }
}
