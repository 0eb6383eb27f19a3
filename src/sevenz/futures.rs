//! The futures-io face: [`AsyncArchive`] over `futures_io::AsyncRead +
//! AsyncSeek` (async-std, smol, `futures::io::AllowStdIo`, …): the
//! generic face with the futures-io adapter, and futures-io's `AsyncRead`
//! for its readers.

use std::io;
use std::pin::Pin;
use std::task::{Context, Poll};

use futures_io::{AsyncRead, AsyncSeek};

use super::face;
use crate::futures::source::FuturesSource;

/// A 7z archive over a futures-io `AsyncRead + AsyncSeek` source.
pub type AsyncArchive<R> = face::AsyncArchive<FuturesSource<R>>;
/// Reads one entry's data (from [`AsyncArchive::reader`]).
pub type AsyncEntryReader<'a, R> = face::AsyncEntryReader<'a, FuturesSource<R>>;
/// Sequential access to every entry ([`AsyncArchive::entries_stream`]).
pub type AsyncEntries<'a, R> = face::AsyncEntries<'a, FuturesSource<R>>;
/// The owned stream of entries and their data
/// ([`AsyncArchive::into_entries`]).
pub type EntryStream<R> = face::EntryStream<FuturesSource<R>>;

impl<R: AsyncRead + AsyncSeek + Unpin> AsyncRead for AsyncEntryReader<'_, R> {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut [u8],
    ) -> Poll<io::Result<usize>> {
        self.get_mut().inner.poll_read(cx, buf)
    }
}

impl<R: AsyncRead + AsyncSeek + Unpin> AsyncRead for AsyncEntries<'_, R> {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut [u8],
    ) -> Poll<io::Result<usize>> {
        self.get_mut().inner.poll_read(cx, buf)
    }
}
