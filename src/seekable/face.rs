//! The async random-access reader, generic over a runtime's source
//! adapter: the tokio face is `AsyncSeekableXzReader<TokioSource<R>>`, the
//! futures-io face `AsyncSeekableXzReader<FuturesSource<R>>`. The runtime
//! modules add the constructors and the `AsyncRead`/`AsyncSeek` impls.

use std::io;

use lzflow_core::source::PollSource;
use lzflow_xz::PollSeekableXz;

/// Random access into an `.xz` file over an async source; see
/// [`SeekableXzReader`](super::SeekableXzReader), which this mirrors.
/// Reads are cancellation-safe: a dropped read loses no state.
#[derive(Debug)]
pub struct AsyncSeekableXzReader<S> {
    pub(crate) core: PollSeekableXz<S>,
    /// The target of the last seek, reported by tokio's `poll_complete`.
    pub(crate) seek_result: Option<io::Result<u64>>,
}

impl<S: PollSource> AsyncSeekableXzReader<S> {
    pub(crate) fn new(core: PollSeekableXz<S>) -> Self {
        AsyncSeekableXzReader {
            core,
            seek_result: None,
        }
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
}
