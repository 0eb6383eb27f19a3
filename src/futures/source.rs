//! The futures-io adapter of [`PollSource`], for every container core.

use std::io::{self, SeekFrom};
use std::pin::Pin;
use std::task::{Context, Poll};

use futures_io::{AsyncRead, AsyncSeek};

use lzflow_core::source::{PollRead, PollSource};

/// A futures-io `AsyncRead + AsyncSeek` as a [`PollSource`].
#[derive(Debug)]
pub(crate) struct FuturesSource<R> {
    pub(crate) inner: R,
}

impl<R: AsyncRead + Unpin> PollRead for FuturesSource<R> {
    fn poll_read(&mut self, cx: &mut Context<'_>, buf: &mut [u8]) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.inner).poll_read(cx, buf)
    }
}

impl<R: AsyncRead + AsyncSeek + Unpin> PollSource for FuturesSource<R> {
    fn poll_seek(&mut self, cx: &mut Context<'_>, pos: SeekFrom) -> Poll<io::Result<u64>> {
        Pin::new(&mut self.inner).poll_seek(cx, pos)
    }
}
