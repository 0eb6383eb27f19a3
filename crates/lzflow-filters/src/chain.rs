//! A chain of filters run over one window of bytes, each remembering how
//! far into the window it has got.
//!
//! Filter `k` may only look at bytes filter `k - 1` has finished, so the
//! positions never increase along the chain. The bytes before the last
//! filter's position are final; the rest (a few bytes per filter) wait for
//! more data or for the end of the stream.

use crate::{Filter, MAX_TAIL};

pub(crate) struct Chain {
    filters: Vec<Box<dyn Filter>>,
    /// `done[k]`: leading window bytes filter `k` has transformed.
    done: Vec<usize>,
}

impl Chain {
    pub(crate) fn new(filters: Vec<Box<dyn Filter>>) -> Self {
        let done = vec![0; filters.len()];
        Chain { filters, done }
    }

    /// Number of filters.
    pub(crate) fn len(&self) -> usize {
        self.filters.len()
    }

    /// Replaces the filters, keeping the position storage.
    pub(crate) fn reset(&mut self, filters: Vec<Box<dyn Filter>>) {
        self.filters = filters;
        self.done.clear();
        self.done.resize(self.filters.len(), 0);
    }

    /// Leading bytes of a window of `len` bytes that every filter has done.
    pub(crate) fn ready(&self, len: usize) -> usize {
        self.done.last().copied().unwrap_or(len)
    }

    /// Lets every filter process what it can of `window`; returns
    /// [`ready`](Self::ready).
    pub(crate) fn run(&mut self, window: &mut [u8]) -> usize {
        let mut limit = window.len();
        for (f, done) in self.filters.iter_mut().zip(self.done.iter_mut()) {
            let span = &mut window[*done..limit];
            // A filter breaking its contract (claiming more than it was
            // given, or holding back MAX_TAIL bytes or more) must not break
            // the bookkeeping or grow the held-back tail without bound.
            let got = f.filter(span).min(span.len());
            *done = (*done + got).max(limit.saturating_sub(MAX_TAIL - 1));
            limit = *done;
        }
        limit
    }

    /// End of stream: each filter, in order, processes what it can and
    /// leaves the rest unchanged. Returns `window.len()`.
    pub(crate) fn finish(&mut self, window: &mut [u8]) -> usize {
        let len = window.len();
        for (f, done) in self.filters.iter_mut().zip(self.done.iter_mut()) {
            let span = &mut window[*done..];
            f.filter(span);
            *done = len;
        }
        len
    }

    /// The first `n` window bytes (all final) have left the window.
    pub(crate) fn consume(&mut self, n: usize) {
        for done in &mut self.done {
            *done -= n;
        }
    }
}
