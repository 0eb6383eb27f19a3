//! The std face of random access into `.xz` files: [`SeekableXzReader`],
//! the one core ([`PollSeekableXz`]) over a [`Blocking`] source.

use std::io::{self, Read, Seek, SeekFrom};

use lzflow_core::source::{block_on, block_on_poll, Blocking};

use crate::poll_seekable::PollSeekableXz;
use crate::XzDecoderOptions;

/// Random access into an `.xz` file over a `Read + Seek` source (a file,
/// a cursor, a source over HTTP range requests).
///
/// [`open`](Self::open) reads every stream's footer and Index from the end
/// of the file; then `Seek` moves anywhere in the uncompressed data and
/// `Read` decodes from the Block that holds it.
#[derive(Debug)]
pub struct SeekableXzReader<R> {
    core: PollSeekableXz<Blocking<R>>,
}

impl<R: Read + Seek> SeekableXzReader<R> {
    /// Opens `reader` with default options (checks verified, no limits).
    pub fn open(reader: R) -> io::Result<Self> {
        Self::open_with(reader, XzDecoderOptions::default())
    }

    /// Opens `reader` with decoder options (memory limit, verification).
    pub fn open_with(reader: R, opts: XzDecoderOptions) -> io::Result<Self> {
        let core = block_on(PollSeekableXz::open(Blocking(reader), opts))?;
        Ok(SeekableXzReader { core })
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
        self.core.into_source().0
    }
}

impl<R: Read + Seek> Read for SeekableXzReader<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        block_on_poll(|cx| self.core.poll_read(cx, buf, usize::MAX))
    }
}

impl<R: Read + Seek> Seek for SeekableXzReader<R> {
    fn seek(&mut self, pos: SeekFrom) -> io::Result<u64> {
        self.core.seek(pos)
    }

    fn stream_position(&mut self) -> io::Result<u64> {
        Ok(self.core.decoder().position())
    }
}
