//! Readiness of coders that wait on other threads (multi-threaded XZ), so
//! that async faces can return `Pending` instead of blocking the executor.

use std::sync::{Arc, Mutex, MutexGuard};
use std::task::{Context, Poll, Waker};

/// The state behind a [`Readiness`] handle.
#[derive(Debug, Default)]
struct State {
    /// Bumped by every [`Readiness::notify`].
    generation: u64,
    /// The generation at which the coder stopped to wait, if it did.
    waiting_at: Option<u64>,
    /// Woken by the next `notify` after a pending `poll_ready`.
    waker: Option<Waker>,
}

/// A cloneable handle shared by a coder, its worker threads and the face
/// driving it.
///
/// Protocol: a coder in non-blocking mode that would have to wait for a
/// worker reads [`generation`](Self::generation) *before* checking the
/// worker's result, and if there is none yet calls
/// [`wait_from`](Self::wait_from) with it and returns without progress.
/// Workers call [`notify`](Self::notify) after publishing a result. The face
/// calls [`poll_ready`](Self::poll_ready) before each coder call: it is
/// `Pending` (with the waker stored) exactly while the coder waits and no
/// worker has finished since, so no wake-up can be lost and nothing spins.
#[derive(Debug, Clone, Default)]
pub struct Readiness {
    state: Arc<Mutex<State>>,
}

impl Readiness {
    /// A fresh handle: not waiting.
    pub fn new() -> Self {
        Self::default()
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        // The state stays consistent under a panic (plain field writes).
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// How many notifications there have been so far.
    pub fn generation(&self) -> u64 {
        self.lock().generation
    }

    /// Records that the coder waits for a notification after `generation`.
    pub fn wait_from(&self, generation: u64) {
        self.lock().waiting_at = Some(generation);
    }

    /// Whether the coder stopped to wait (and no call since has cleared
    /// it): a call that made no progress was a wait, not a stall.
    pub fn is_waiting(&self) -> bool {
        self.lock().waiting_at.is_some()
    }

    /// Records that the coder is not waiting (it made a call that did not
    /// stall).
    pub fn clear(&self) {
        self.lock().waiting_at = None;
    }

    /// Called by a worker after it published a result: ends the wait and
    /// wakes the registered task, if any.
    pub fn notify(&self) {
        let waker = {
            let mut s = self.lock();
            s.generation += 1;
            s.waker.take()
        };
        // Woken outside the lock: the task may poll right away.
        if let Some(w) = waker {
            w.wake();
        }
    }

    /// `Ready` when the next coder call can make progress; otherwise stores
    /// `cx`'s waker for the next [`notify`](Self::notify).
    pub fn poll_ready(&self, cx: &mut Context<'_>) -> Poll<()> {
        let mut s = self.lock();
        if s.waiting_at == Some(s.generation) {
            match &mut s.waker {
                Some(w) => w.clone_from(cx.waker()),
                None => s.waker = Some(cx.waker().clone()),
            }
            Poll::Pending
        } else {
            Poll::Ready(())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::task::Wake;

    struct Count(AtomicUsize);
    impl Wake for Count {
        fn wake(self: Arc<Self>) {
            self.0.fetch_add(1, Ordering::SeqCst);
        }
    }

    #[test]
    fn pending_only_while_waiting_and_woken_by_notify() {
        let r = Readiness::new();
        let count = Arc::new(Count(AtomicUsize::new(0)));
        let waker = Waker::from(Arc::clone(&count));
        let mut cx = Context::from_waker(&waker);
        assert_eq!(r.poll_ready(&mut cx), Poll::Ready(()));
        let g = r.generation();
        r.wait_from(g);
        assert_eq!(r.poll_ready(&mut cx), Poll::Pending);
        r.notify();
        assert_eq!(count.0.load(Ordering::SeqCst), 1);
        assert_eq!(r.poll_ready(&mut cx), Poll::Ready(()));
        // A notification between reading the generation and waiting is
        // not lost.
        let g = r.generation();
        r.notify();
        r.wait_from(g);
        assert_eq!(r.poll_ready(&mut cx), Poll::Ready(()));
        r.clear();
        assert_eq!(r.poll_ready(&mut cx), Poll::Ready(()));
        assert_eq!(count.0.load(Ordering::SeqCst), 1);
    }
}
