//! tokio faces over an [`AsyncWrite`]: they implement [`AsyncWrite`];
//! bytes written are decoded (or compressed) into the inner writer.
//!
//! `poll_shutdown` completes the stream (for an encoder: writes the
//! trailer) and then shuts the inner writer down. It may be cancelled and
//! called again, or called twice: every output byte is written exactly
//! once. An unfinished stream is not completed on drop (there is no
//! runtime to write with); call `shutdown().await`.
//!
//! Each poll does bounded work and the task's turn ends when tokio's
//! cooperative budget is spent. The types are the generic faces of
//! [`async_face`](crate::async_face) with the runtime fixed to tokio; this
//! module adds their [`AsyncWrite`] impls.

use std::io;
use std::pin::Pin;
use std::task::{Context, Poll};

use ::tokio::io::AsyncWrite;
use lzflow_core::{Decode, Encode};

use crate::async_face::{write as face, Tokio};
use crate::pump::Sink;
use crate::tokio::coop::TOKIO_BUDGET;

crate::async_face::write::runtime_types!(Tokio);

/// A pinned tokio `AsyncWrite` as a [`Sink`].
struct TokioSink<'a, W>(Pin<&'a mut W>);

impl<W: AsyncWrite> Sink for TokioSink<'_, W> {
    fn poll_write(&mut self, cx: &mut Context<'_>, buf: &[u8]) -> Poll<io::Result<usize>> {
        self.0.as_mut().poll_write(cx, buf)
    }

    fn poll_flush(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        self.0.as_mut().poll_flush(cx)
    }

    fn poll_close(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        self.0.as_mut().poll_shutdown(cx)
    }
}

impl<W: AsyncWrite, D: Decode> AsyncWrite for face::Decoder<W, D, Tokio>
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
        self.poll_write_via(TokioSink, cx, TOKIO_BUDGET, buf)
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        self.poll_flush_via(TokioSink, cx, TOKIO_BUDGET)
    }

    /// Requires the compressed stream to be complete (else `UnexpectedEof`),
    /// writes the rest of the output and shuts the inner writer down.
    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        self.poll_close_via(TokioSink, cx, TOKIO_BUDGET)
    }
}

impl<W: AsyncWrite, E: Encode> AsyncWrite for face::Encoder<W, E, Tokio>
where
    E::Error: Into<io::Error>,
{
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        self.poll_write_via(TokioSink, cx, TOKIO_BUDGET, buf)
    }

    /// Makes everything written so far decodable from the inner writer's
    /// bytes, then flushes it.
    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        self.poll_flush_via(TokioSink, cx, TOKIO_BUDGET)
    }

    /// Writes the rest of the stream and its trailer, then shuts the inner
    /// writer down.
    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        self.poll_close_via(TokioSink, cx, TOKIO_BUDGET)
    }
}

impl<W: AsyncWrite> AsyncWrite for face::MtXzEncoder<W, Tokio> {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        self.poll_write_via(TokioSink, cx, TOKIO_BUDGET, buf)
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        self.poll_flush_via(TokioSink, cx, TOKIO_BUDGET)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        self.poll_close_via(TokioSink, cx, TOKIO_BUDGET)
    }
}
