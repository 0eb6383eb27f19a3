//! The tokio face: [`AsyncSeekableXzReader`] over `tokio::io::AsyncRead +
//! AsyncSeek`, a thin adapter over the core.

use std::io::{self, SeekFrom};
use std::pin::Pin;
use std::task::{ready, Context, Poll};

use ::tokio::io::{AsyncRead, AsyncSeek, ReadBuf};
use lzflow_xz::XzDecoderOptions;

use super::{Core, STEPS_PER_POLL};
use crate::tokio::source::TokioSource;

type Source<R> = TokioSource<R>;

/// Random access into an `.xz` file over a tokio `AsyncRead + AsyncSeek`
/// source; see [`SeekableXzReader`](super::SeekableXzReader), which this
/// mirrors. Reads are cancellation-safe: a dropped read loses no state.
#[derive(Debug)]
pub struct AsyncSeekableXzReader<R> {
    core: Core<Source<R>>,
    /// The target of the last `start_seek`, reported by `poll_complete`.
    seek_result: Option<io::Result<u64>>,
}

impl<R: AsyncRead + AsyncSeek + Unpin> AsyncSeekableXzReader<R> {
    /// Opens `reader` with default options.
    pub async fn open(reader: R) -> io::Result<Self> {
        Self::open_with(reader, XzDecoderOptions::default()).await
    }

    /// Opens `reader`: reads every footer and Index from the end.
    pub async fn open_with(reader: R, opts: XzDecoderOptions) -> io::Result<Self> {
        let src = TokioSource::new(reader);
        let mut core = Core::new(src, opts);
        std::future::poll_fn(|cx| core.poll_open(cx)).await?;
        Ok(AsyncSeekableXzReader {
            core,
            seek_result: None,
        })
    }

    /// Bytes of uncompressed data.
    pub fn len(&self) -> u64 {
        self.core.decoder().len()
    }

    /// True when the file holds no data.
    pub fn is_empty(&self) -> bool {
        self.core.decoder().is_empty()
    }

    /// Number of Blocks in the file.
    pub fn block_count(&self) -> usize {
        self.core.decoder().map().block_count()
    }

    /// Bytes read from the source so far, Indexes included.
    pub fn bytes_read(&self) -> u64 {
        self.core.bytes_read()
    }

    /// Gives back the source.
    pub fn into_inner(self) -> R {
        self.core.src.inner
    }
}

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
