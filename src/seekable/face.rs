//! The async random-access reader, generic over a runtime's source
//! adapter: the tokio face is `AsyncSeekableXzReader<TokioSource<R>>`, the
//! futures-io face `AsyncSeekableXzReader<FuturesSource<R>>`. The runtime
//! modules add only their `AsyncRead`/`AsyncSeek` impls.

use std::io;

use lzflow_core::source::{Adapter, PollSource};
use lzflow_xz::{PollSeekableXz, XzDecoderOptions};

/// Random access into an `.xz` file over an async source; see
/// [`SeekableXzReader`](super::SeekableXzReader), which this mirrors.
/// Reads are cancellation-safe: a dropped read loses no state.
#[derive(Debug)]
pub struct AsyncSeekableXzReader<S> {
    pub(crate) core: PollSeekableXz<S>,
    /// The target of the last seek, reported by tokio's `poll_complete`.
    #[cfg_attr(not(feature = "tokio"), allow(dead_code))]
    pub(crate) seek_result: Option<io::Result<u64>>,
}

impl<S: PollSource + Adapter> AsyncSeekableXzReader<S> {
    /// Opens `reader` with default options.
    pub async fn open(reader: S::Inner) -> io::Result<Self> {
        Self::open_with(reader, XzDecoderOptions::default()).await
    }

    /// Opens `reader`: reads every footer and Index from the end.
    pub async fn open_with(reader: S::Inner, opts: XzDecoderOptions) -> io::Result<Self> {
        Ok(AsyncSeekableXzReader {
            core: PollSeekableXz::open(S::new(reader), opts).await?,
            seek_result: None,
        })
    }

    /// Gives back the source.
    pub fn into_inner(self) -> S::Inner {
        self.core.into_source().into_inner()
    }
}

impl<S: PollSource> AsyncSeekableXzReader<S> {
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
}
