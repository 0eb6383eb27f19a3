//! [`AsyncSpooled`]: a spooled copy of a non-seekable async source, served
//! to the async faces.

use std::io::{self, Read, Seek, SeekFrom};
use std::pin::Pin;
use std::task::{Context, Poll};

use lzflow_7z::Spooled;

/// The copy that the async faces' `open_spooled` constructors read from:
/// memory, or an anonymous temporary file. Its reads and seeks complete at once; on the temporary file they
/// are short blocking reads of a local file.
#[derive(Debug)]
pub struct AsyncSpooled(pub(crate) Spooled);

impl AsyncSpooled {
    /// True when the copy is held in memory (not in a temporary file).
    pub fn is_in_memory(&self) -> bool {
        self.0.is_in_memory()
    }

    /// The blocking copy.
    pub fn into_inner(self) -> Spooled {
        self.0
    }

    pub(crate) fn read_now(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        loop {
            match self.0.read(buf) {
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                r => return r,
            }
        }
    }

    pub(crate) fn seek_now(&mut self, pos: SeekFrom) -> io::Result<u64> {
        self.0.seek(pos)
    }
}

#[cfg(feature = "tokio")]
impl ::tokio::io::AsyncRead for AsyncSpooled {
    fn poll_read(
        self: Pin<&mut Self>,
        _: &mut Context<'_>,
        buf: &mut ::tokio::io::ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        let n = this.read_now(buf.initialize_unfilled())?;
        buf.advance(n);
        Poll::Ready(Ok(()))
    }
}

#[cfg(feature = "tokio")]
impl ::tokio::io::AsyncSeek for AsyncSpooled {
    fn start_seek(self: Pin<&mut Self>, pos: SeekFrom) -> io::Result<()> {
        self.get_mut().seek_now(pos).map(drop)
    }

    fn poll_complete(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<io::Result<u64>> {
        Poll::Ready(self.get_mut().seek_now(SeekFrom::Current(0)))
    }
}

#[cfg(feature = "futures-io")]
impl futures_io::AsyncRead for AsyncSpooled {
    fn poll_read(
        self: Pin<&mut Self>,
        _: &mut Context<'_>,
        buf: &mut [u8],
    ) -> Poll<io::Result<usize>> {
        Poll::Ready(self.get_mut().read_now(buf))
    }
}

#[cfg(feature = "futures-io")]
impl futures_io::AsyncSeek for AsyncSpooled {
    fn poll_seek(
        self: Pin<&mut Self>,
        _: &mut Context<'_>,
        pos: SeekFrom,
    ) -> Poll<io::Result<u64>> {
        Poll::Ready(self.get_mut().seek_now(pos))
    }
}
