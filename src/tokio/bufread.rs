//! tokio faces over an [`AsyncBufRead`]: they implement [`AsyncRead`],
//! yielding the decoded (or compressed) bytes.
//!
//! Each poll produces at most one batch (16 KiB by default) and refills the
//! input a bounded number of times, and the task's turn ends when tokio's
//! cooperative budget is spent, so reading from memory never monopolises
//! the thread. Dropping a read future loses nothing: consumed input is the
//! coder's.
//!
//! The types are the generic faces of [`async_face`](crate::async_face)
//! with the runtime fixed to tokio; this module adds their [`AsyncRead`]
//! impls.

use std::io;
use std::pin::Pin;
use std::task::{ready, Context, Poll};

use ::tokio::io::{AsyncBufRead, AsyncRead, ReadBuf};
use lzflow_core::{Decode, Encode};

use crate::async_face::{bufread as face, Tokio};
use crate::pump::Source;
use crate::tokio::coop::TOKIO_BUDGET;

crate::async_face::bufread::runtime_types!(Tokio);

/// A pinned tokio `AsyncBufRead` as a [`Source`].
struct TokioSource<'a, R>(Pin<&'a mut R>);

impl<R: AsyncBufRead> Source for TokioSource<'_, R> {
    fn poll_fill(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<&[u8]>> {
        self.0.as_mut().poll_fill_buf(cx)
    }

    fn consume(&mut self, n: usize) {
        self.0.as_mut().consume(n);
    }
}

/// Runs a pump read into the unfilled part of `buf`.
fn read_into(
    buf: &mut ReadBuf<'_>,
    read: impl FnOnce(&mut [u8]) -> Poll<io::Result<usize>>,
) -> Poll<io::Result<()>> {
    let n = ready!(read(buf.initialize_unfilled()))?;
    buf.advance(n);
    Poll::Ready(Ok(()))
}

impl<R: AsyncBufRead, D: Decode> AsyncRead for face::Decoder<R, D, Tokio>
where
    D::Error: Into<io::Error>,
{
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        read_into(buf, |out| {
            self.poll_read_via(TokioSource, cx, out, TOKIO_BUDGET)
        })
    }
}

impl<R: AsyncBufRead, E: Encode> AsyncRead for face::Encoder<R, E, Tokio>
where
    E::Error: Into<io::Error>,
{
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        read_into(buf, |out| {
            self.poll_read_via(TokioSource, cx, out, TOKIO_BUDGET)
        })
    }
}

impl<R, C> AsyncRead for face::MtDecoder<R, Tokio, C>
where
    R: AsyncBufRead,
    C: crate::MtDecoderFormat,
    C::Error: Into<io::Error>,
{
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        read_into(buf, |out| {
            self.poll_read_via(TokioSource, cx, out, TOKIO_BUDGET)
        })
    }
}
