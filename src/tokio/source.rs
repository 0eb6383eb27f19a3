//! The tokio adapter of [`PollSource`]: tokio's two-step seek and its
//! cooperative budget, for every container core.

use std::io::{self, SeekFrom};
use std::pin::Pin;
use std::task::{ready, Context, Poll};

use ::tokio::io::{AsyncRead, AsyncSeek, ReadBuf};

use super::coop::TimedStep;
use super::seek::TwoStepSeek;
use lzflow_core::source::{PollRead, PollSource};

/// A tokio `AsyncRead + AsyncSeek` as a [`PollSource`].
#[derive(Debug)]
pub(crate) struct TokioSource<R> {
    pub(crate) inner: R,
    seek: TwoStepSeek,
    step: TimedStep,
}

impl<R> TokioSource<R> {
    pub(crate) fn new(inner: R) -> Self {
        TokioSource {
            inner,
            seek: TwoStepSeek::default(),
            step: TimedStep::default(),
        }
    }
}

impl<R: AsyncRead + Unpin> PollRead for TokioSource<R> {
    fn poll_read(&mut self, cx: &mut Context<'_>, buf: &mut [u8]) -> Poll<io::Result<usize>> {
        let mut rb = ReadBuf::new(buf);
        ready!(Pin::new(&mut self.inner).poll_read(cx, &mut rb))?;
        Poll::Ready(Ok(rb.filled().len()))
    }
}

impl<R: AsyncRead + AsyncSeek + Unpin> PollSource for TokioSource<R> {
    fn poll_seek(&mut self, cx: &mut Context<'_>, pos: SeekFrom) -> Poll<io::Result<u64>> {
        self.seek.poll_seek(&mut self.inner, cx, pos)
    }

    fn poll_proceed(&mut self, cx: &mut Context<'_>) -> Poll<()> {
        self.step.poll_start(cx)
    }

    fn step_done(&mut self) {
        self.step.done();
    }
}
