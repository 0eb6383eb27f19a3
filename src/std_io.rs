//! `std::io` readers and writers as the pump's never-pending
//! [`Source`]/[`Sink`].

use std::io::{self, BufRead, Write};
use std::task::{Context, Poll};

use crate::pump::{Sink, Source};

/// A `BufRead` as a [`Source`].
pub(crate) struct BufReadSource<'a, R>(pub(crate) &'a mut R);

impl<R: BufRead> Source for BufReadSource<'_, R> {
    fn poll_fill(&mut self, _: &mut Context<'_>) -> Poll<io::Result<&[u8]>> {
        Poll::Ready(self.0.fill_buf())
    }

    fn consume(&mut self, n: usize) {
        self.0.consume(n);
    }
}

/// A `Write` as a [`Sink`]; closing it flushes it.
pub(crate) struct WriteSink<'a, W>(pub(crate) &'a mut W);

impl<W: Write> Sink for WriteSink<'_, W> {
    fn poll_write(&mut self, _: &mut Context<'_>, buf: &[u8]) -> Poll<io::Result<usize>> {
        Poll::Ready(self.0.write(buf))
    }

    fn poll_flush(&mut self, _: &mut Context<'_>) -> Poll<io::Result<()>> {
        Poll::Ready(self.0.flush())
    }

    fn poll_close(&mut self, _: &mut Context<'_>) -> Poll<io::Result<()>> {
        Poll::Ready(self.0.flush())
    }
}
