//! futures-io faces over an [`AsyncWrite`]: they implement [`AsyncWrite`];
//! bytes written are decoded (or compressed) into the inner writer.
//!
//! `poll_close` completes the stream (for an encoder: writes the
//! trailer) and then shuts the inner writer down. It may be cancelled and
//! called again, or called twice: every output byte is written exactly
//! once. An unfinished stream is not completed on drop (there is no
//! runtime to write with); call `close().await`.
//!
//! Each poll does bounded work; there is no budget across polls (see the
//! module docs). The types are the generic faces of
//! [`async_face`](crate::async_face) with the runtime fixed to futures-io;
//! this module adds their [`AsyncWrite`] impls.

use std::io;
use std::pin::Pin;
use std::task::{Context, Poll};

use futures_io::AsyncWrite;
use lzflow_core::{Decode, Encode};

use crate::async_face::{write as face, Futures};
use crate::pump::{Sink, ASYNC_BUDGET};

crate::async_face::write::runtime_types!(Futures);

/// A pinned futures-io `AsyncWrite` as a [`Sink`].
struct FuturesSink<'a, W>(Pin<&'a mut W>);

impl<W: AsyncWrite> Sink for FuturesSink<'_, W> {
    fn poll_write(&mut self, cx: &mut Context<'_>, buf: &[u8]) -> Poll<io::Result<usize>> {
        self.0.as_mut().poll_write(cx, buf)
    }

    fn poll_flush(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        self.0.as_mut().poll_flush(cx)
    }

    fn poll_close(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        self.0.as_mut().poll_close(cx)
    }
}

impl<W: AsyncWrite, D: Decode> AsyncWrite for face::Decoder<W, D, Futures>
where
    D::Error: Into<io::Error>,
{
    /// Decodes some of `buf`; `Ready(Ok(0))` for a non-empty `buf` means the
    /// stream has ended and the rest is not part of it.
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        self.poll_write_via(FuturesSink, cx, ASYNC_BUDGET, buf)
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        self.poll_flush_via(FuturesSink, cx, ASYNC_BUDGET)
    }

    /// Requires the compressed stream to be complete (else `UnexpectedEof`),
    /// writes the rest of the output and shuts the inner writer down.
    fn poll_close(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        self.poll_close_via(FuturesSink, cx, ASYNC_BUDGET)
    }
}

impl<W: AsyncWrite, E: Encode> AsyncWrite for face::Encoder<W, E, Futures>
where
    E::Error: Into<io::Error>,
{
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        self.poll_write_via(FuturesSink, cx, ASYNC_BUDGET, buf)
    }

    /// Makes everything written so far decodable from the inner writer's
    /// bytes, then flushes it.
    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        self.poll_flush_via(FuturesSink, cx, ASYNC_BUDGET)
    }

    /// Writes the rest of the stream and its trailer, then shuts the inner
    /// writer down (closes it).
    fn poll_close(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        self.poll_close_via(FuturesSink, cx, ASYNC_BUDGET)
    }
}

impl<W: AsyncWrite> AsyncWrite for face::MtXzEncoder<W, Futures> {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        self.poll_write_via(FuturesSink, cx, ASYNC_BUDGET, buf)
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        self.poll_flush_via(FuturesSink, cx, ASYNC_BUDGET)
    }

    fn poll_close(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        self.poll_close_via(FuturesSink, cx, ASYNC_BUDGET)
    }
}
