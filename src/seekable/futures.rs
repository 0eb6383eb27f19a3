//! The futures-io face: [`AsyncSeekableXzReader`] over futures-io's
//! `AsyncRead` and `AsyncSeek`: the generic face with the futures-io
//! adapter, and the futures-io traits.

use std::io::{self, SeekFrom};
use std::pin::Pin;
use std::task::{Context, Poll};

use futures_io::{AsyncRead, AsyncSeek};

use super::{face, STEPS_PER_POLL};
use crate::futures::source::FuturesSource;

/// Random access into an `.xz` file over a futures-io `AsyncRead +
/// AsyncSeek` source; see [`SeekableXzReader`](super::SeekableXzReader).
pub type AsyncSeekableXzReader<R> = face::AsyncSeekableXzReader<FuturesSource<R>>;

impl<R: AsyncRead + AsyncSeek + Unpin> AsyncRead for AsyncSeekableXzReader<R> {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut [u8],
    ) -> Poll<io::Result<usize>> {
        self.get_mut().core.poll_read(cx, buf, STEPS_PER_POLL)
    }
}

impl<R: AsyncRead + AsyncSeek + Unpin> AsyncSeek for AsyncSeekableXzReader<R> {
    fn poll_seek(
        self: Pin<&mut Self>,
        _: &mut Context<'_>,
        pos: SeekFrom,
    ) -> Poll<io::Result<u64>> {
        // The source moves on the next read.
        Poll::Ready(self.get_mut().core.seek(pos))
    }
}
