//! The futures-io face: [`AsyncSeekableXzReader`] over `futures_io::AsyncRead
//! + AsyncSeek`, twin of the tokio face.

use std::io::{self, SeekFrom};
use std::pin::Pin;
use std::task::{Context, Poll};

use futures_io::{AsyncRead, AsyncSeek};
use lzflow_xz::XzDecoderOptions;

use super::{Core, STEPS_PER_POLL};
use crate::futures::source::FuturesSource;

type Source<R> = FuturesSource<R>;

/// Random access into an `.xz` file over a futures-io `AsyncRead +
/// AsyncSeek` source; see [`SeekableXzReader`](super::SeekableXzReader).
#[derive(Debug)]
pub struct AsyncSeekableXzReader<R> {
    core: Core<Source<R>>,
}

impl<R: AsyncRead + AsyncSeek + Unpin> AsyncSeekableXzReader<R> {
    /// Opens `reader` with default options.
    pub async fn open(reader: R) -> io::Result<Self> {
        Self::open_with(reader, XzDecoderOptions::default()).await
    }

    /// Opens `reader`: reads every footer and Index from the end.
    pub async fn open_with(reader: R, opts: XzDecoderOptions) -> io::Result<Self> {
        let mut core = Core::new(FuturesSource { inner: reader }, opts);
        std::future::poll_fn(|cx| core.poll_open(cx)).await?;
        Ok(AsyncSeekableXzReader { core })
    }

    /// Bytes of uncompressed data.
    pub fn len(&self) -> u64 {
        self.core.decoder().len()
    }

    /// True when the file holds no data.
    pub fn is_empty(&self) -> bool {
        self.core.decoder().is_empty()
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
