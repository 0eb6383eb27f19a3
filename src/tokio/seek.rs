//! tokio's two-step seek (`start_seek`, then `poll_complete`) behind one
//! poll function, for the 7z reader's source and writer's sink.

use std::io::{self, SeekFrom};
use std::pin::Pin;
use std::task::{ready, Context, Poll};

use ::tokio::io::AsyncSeek;

/// The seek an adapter has started and not yet seen complete.
#[derive(Debug, Default)]
pub(crate) struct TwoStepSeek {
    started: Option<SeekFrom>,
}

impl TwoStepSeek {
    /// Seeks `inner` to `pos`, a poll at a time.
    ///
    /// A seek to another position, left half-done by a dropped future, is
    /// completed first. Before starting, `poll_complete` also waits for an
    /// operation still in flight: a tokio `File` reads and writes on the
    /// blocking pool and refuses `start_seek` until that ends (tokio's own
    /// `seek` waits the same way).
    pub(crate) fn poll_seek<S: AsyncSeek + Unpin>(
        &mut self,
        inner: &mut S,
        cx: &mut Context<'_>,
        pos: SeekFrom,
    ) -> Poll<io::Result<u64>> {
        if self.started.is_some_and(|started| started != pos) {
            ready!(Pin::new(&mut *inner).poll_complete(cx))?;
            self.started = None;
        }
        if self.started.is_none() {
            ready!(Pin::new(&mut *inner).poll_complete(cx))?;
            Pin::new(&mut *inner).start_seek(pos)?;
            self.started = Some(pos);
        }
        let at = ready!(Pin::new(&mut *inner).poll_complete(cx));
        self.started = None;
        Poll::Ready(at)
    }
}
