//! futures-io faces over an [`AsyncBufRead`]: they implement [`AsyncRead`],
//! yielding the decoded (or compressed) bytes.
//!
//! Each poll produces at most one batch (16 KiB by default) and refills the
//! input a bounded number of times, so one read is short; there is no
//! budget across reads (see the module docs). Dropping a read future loses
//! nothing: consumed input is the coder's.
//!
//! The types are the generic faces of [`async_face`](crate::async_face)
//! with the runtime fixed to futures-io; this module adds their [`AsyncRead`]
//! impls.

use std::io;
use std::pin::Pin;
use std::task::{Context, Poll};

use futures_io::{AsyncBufRead, AsyncRead};
use lzflow_core::{Decode, Encode};

use crate::async_face::{bufread as face, Futures};
use crate::pump::{Source, ASYNC_BUDGET};

crate::async_face::bufread::runtime_types!(Futures);

/// A pinned futures-io `AsyncBufRead` as a [`Source`].
struct FuturesSource<'a, R>(Pin<&'a mut R>);

impl<R: AsyncBufRead> Source for FuturesSource<'_, R> {
    fn poll_fill(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<&[u8]>> {
        self.0.as_mut().poll_fill_buf(cx)
    }

    fn consume(&mut self, n: usize) {
        self.0.as_mut().consume(n);
    }
}

impl<R: AsyncBufRead, D: Decode> AsyncRead for face::Decoder<R, D, Futures>
where
    D::Error: Into<io::Error>,
{
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut [u8],
    ) -> Poll<io::Result<usize>> {
        self.poll_read_via(FuturesSource, cx, buf, ASYNC_BUDGET)
    }
}

impl<R: AsyncBufRead, E: Encode> AsyncRead for face::Encoder<R, E, Futures>
where
    E::Error: Into<io::Error>,
{
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut [u8],
    ) -> Poll<io::Result<usize>> {
        self.poll_read_via(FuturesSource, cx, buf, ASYNC_BUDGET)
    }
}

impl<R, C> AsyncRead for face::MtDecoder<R, Futures, C>
where
    R: AsyncBufRead,
    C: crate::MtDecoderFormat,
    C::Error: Into<io::Error>,
{
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut [u8],
    ) -> Poll<io::Result<usize>> {
        self.poll_read_via(FuturesSource, cx, buf, ASYNC_BUDGET)
    }
}
