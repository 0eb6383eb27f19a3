//! One owned `Stream` over an async step that takes its state by value and
//! gives it back with an item: how an archive's lending cursor becomes a
//! stream of owned items (7z's `into_entries`, the zip stream reader's).

use std::future::{poll_fn, Future};
use std::io;
use std::pin::Pin;
use std::task::{Context, Poll};

use bytes::Bytes;
use futures_core::Stream;
use lzflow_core::LimitExceeded;

/// A step in flight: it owns the state until it gives it back.
pub(crate) type Step<T, X, E> = Pin<Box<dyn Future<Output = (T, Option<Result<X, E>>)> + Send>>;

/// Runs `step` over the state, one item per step; ends after `None` or
/// the first error.
pub(crate) struct StepStream<T, X, E> {
    state: State<T, X, E>,
    step: fn(T) -> Step<T, X, E>,
}

enum State<T, X, E> {
    Idle(T),
    Busy(Step<T, X, E>),
    Done,
}

impl<T, X, E> StepStream<T, X, E> {
    pub(crate) fn new(state: T, step: fn(T) -> Step<T, X, E>) -> Self {
        StepStream {
            state: State::Idle(state),
            step,
        }
    }
}

// The state lives boxed in the step or by value in `Idle`; neither is
// pinned in place.
impl<T, X, E> Unpin for StepStream<T, X, E> {}

impl<T, X, E> Stream for StepStream<T, X, E> {
    type Item = Result<X, E>;

    fn poll_next(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        let this = self.get_mut();
        loop {
            match std::mem::replace(&mut this.state, State::Done) {
                State::Idle(state) => this.state = State::Busy((this.step)(state)),
                State::Busy(mut fut) => {
                    let Poll::Ready((state, item)) = fut.as_mut().poll(cx) else {
                        this.state = State::Busy(fut);
                        return Poll::Pending;
                    };
                    if matches!(item, Some(Ok(_))) {
                        this.state = State::Idle(state);
                    }
                    return Poll::Ready(item);
                }
                State::Done => return Poll::Ready(None),
            }
        }
    }
}

/// Reads an entry's data whole through `poll_read` (`Ok(0)` at its end),
/// with `hint` bytes reserved first; more than `max` bytes is
/// [`LimitExceeded::Output`].
pub(crate) async fn read_whole<E: From<io::Error> + From<LimitExceeded>>(
    mut poll_read: impl FnMut(&mut Context<'_>, &mut [u8]) -> Poll<io::Result<usize>>,
    max: u64,
    hint: usize,
) -> Result<Bytes, E> {
    let mut data = Vec::with_capacity(hint);
    let mut buf = [0u8; 16 << 10];
    loop {
        let n = poll_fn(|cx| poll_read(cx, &mut buf)).await?;
        if n == 0 {
            return Ok(Bytes::from(data));
        }
        if (data.len() + n) as u64 > max {
            return Err(LimitExceeded::Output { limit: max }.into());
        }
        data.extend_from_slice(&buf[..n]);
    }
}
