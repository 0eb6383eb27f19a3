//! The tokio face: [`AsyncSeekableXzReader`] over `tokio::io::AsyncRead +
//! AsyncSeek`: the generic face with the tokio adapter, and the tokio traits.

use std::io::{self, SeekFrom};
use std::pin::Pin;
use std::task::{ready, Context, Poll};

use ::tokio::io::{AsyncRead, AsyncSeek, ReadBuf};

use super::{face, STEPS_PER_POLL};
use crate::tokio::source::TokioSource;

/// Random access into an `.xz` file over a tokio `AsyncRead + AsyncSeek`
/// source; see [`SeekableXzReader`](super::SeekableXzReader), which this
/// mirrors. Reads are cancellation-safe: a dropped read loses no state.
pub type AsyncSeekableXzReader<R> = face::AsyncSeekableXzReader<TokioSource<R>>;

impl<R: AsyncRead + AsyncSeek + Unpin> AsyncRead for AsyncSeekableXzReader<R> {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        let n = ready!(this
            .core
            .poll_read(cx, buf.initialize_unfilled(), STEPS_PER_POLL))?;
        buf.advance(n);
        Poll::Ready(Ok(()))
    }
}

impl<R: AsyncRead + AsyncSeek + Unpin> AsyncSeek for AsyncSeekableXzReader<R> {
    fn start_seek(self: Pin<&mut Self>, pos: SeekFrom) -> io::Result<()> {
        let this = self.get_mut();
        // The source moves on the next read; nothing to wait for here.
        this.seek_result = Some(this.core.seek(pos));
        Ok(())
    }

    fn poll_complete(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<io::Result<u64>> {
        let this = self.get_mut();
        Poll::Ready(
            this.seek_result
                .take()
                .unwrap_or_else(|| Ok(this.core.decoder().position())),
        )
    }
}
