//! Whole entries compressed on worker threads, their results taken in the
//! order the entries were added.
//!
//! Blocking (the std face), a caller that has to wait for a result
//! compresses a queued job itself rather than idle, so `threads`
//! compressing threads are the caller and `threads - 1` workers.
//! Non-blocking (the async faces), a poll must not compress a whole entry
//! nor wait: all `threads` are workers, and a result not ready yet is
//! `Pending`, woken through [`Readiness`] when a worker finishes.

use std::collections::VecDeque;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::mpsc::{self, Receiver, Sender, TryRecvError};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::task::{Context, Poll};
use std::thread::JoinHandle;

use lzflow_core::Readiness;

/// One job: a closure and where its result goes.
struct Job<T> {
    work: Box<dyn FnOnce() -> T + Send>,
    reply: Sender<T>,
}

impl<T> Job<T> {
    /// Runs the job; a panic drops the reply, which its taker sees as a
    /// died job, and leaves the thread running for the next one.
    fn run(self) {
        if let Ok(r) = catch_unwind(AssertUnwindSafe(self.work)) {
            // The receiver may be gone (the writer was dropped): fine.
            let _ = self.reply.send(r);
        }
    }
}

struct Queue<T> {
    jobs: VecDeque<Job<T>>,
    closed: bool,
}

struct Shared<T> {
    queue: Mutex<Queue<T>>,
    /// Signalled when a job is queued or the queue closes.
    queued: Condvar,
}

impl<T> Shared<T> {
    fn lock(&self) -> MutexGuard<'_, Queue<T>> {
        // Plain pushes and pops: consistent even after a panic.
        self.queue.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// A job's result, not taken yet.
pub(crate) struct Ticket<T>(Receiver<T>);

/// Worker threads, started with the first job.
pub(crate) struct Workers<T> {
    threads: usize,
    nonblocking: bool,
    shared: Option<Arc<Shared<T>>>,
    handles: Vec<JoinHandle<()>>,
    readiness: Readiness,
}

impl<T: Send + 'static> Workers<T> {
    /// `threads` compressing threads (at least 2 make sense).
    pub fn new(threads: usize) -> Self {
        Workers {
            threads: threads.max(1),
            nonblocking: false,
            shared: None,
            handles: Vec::new(),
            readiness: Readiness::new(),
        }
    }

    /// Non-blocking mode; only before the first job.
    pub fn set_nonblocking(&mut self, nonblocking: bool) {
        if self.shared.is_none() {
            self.nonblocking = nonblocking;
        }
    }

    fn start(&mut self) -> Arc<Shared<T>> {
        let shared = Arc::new(Shared {
            queue: Mutex::new(Queue {
                jobs: VecDeque::new(),
                closed: false,
            }),
            queued: Condvar::new(),
        });
        let count = if self.nonblocking {
            self.threads
        } else {
            self.threads - 1
        };
        for _ in 0..count {
            let shared = Arc::clone(&shared);
            let readiness = self.readiness.clone();
            self.handles
                .push(std::thread::spawn(move || worker(&shared, &readiness)));
        }
        self.shared = Some(Arc::clone(&shared));
        shared
    }

    /// Queues `work`.
    pub fn submit(&mut self, work: Box<dyn FnOnce() -> T + Send>) -> Ticket<T> {
        let shared = match &self.shared {
            Some(s) => Arc::clone(s),
            None => self.start(),
        };
        let (reply, rx) = mpsc::channel();
        shared.lock().jobs.push_back(Job { work, reply });
        shared.queued.notify_one();
        Ticket(rx)
    }

    /// The result of `ticket` if it is done; with `wait`, blocking, it is
    /// waited for (compressing queued jobs meanwhile), non-blocking, a
    /// `Pending` is woken when a worker finishes. `None` inside: the job's
    /// thread died.
    pub fn poll_take(
        &mut self,
        cx: &mut Context<'_>,
        ticket: &Ticket<T>,
        wait: bool,
    ) -> Poll<Option<T>> {
        loop {
            // Read before looking, so that a result published in between
            // counts as a change (see `Readiness`).
            let generation = self.readiness.generation();
            match ticket.0.try_recv() {
                Ok(r) => return Poll::Ready(Some(r)),
                Err(TryRecvError::Disconnected) => return Poll::Ready(None),
                Err(TryRecvError::Empty) if !wait => return Poll::Pending,
                Err(TryRecvError::Empty) => {}
            }
            if self.nonblocking {
                self.readiness.wait_from(generation);
                if self.readiness.poll_ready(cx).is_pending() {
                    return Poll::Pending;
                }
                continue;
            }
            let job = self.shared.as_ref().and_then(|s| s.lock().jobs.pop_front());
            match job {
                Some(job) => job.run(),
                None => return Poll::Ready(ticket.0.recv().ok()),
            }
        }
    }
}

impl<T> Drop for Workers<T> {
    fn drop(&mut self) {
        // Closed, the queue lets each worker finish its job and exit;
        // jobs not started are dropped.
        if let Some(shared) = &self.shared {
            let mut q = shared.lock();
            q.closed = true;
            q.jobs.clear();
            drop(q);
            shared.queued.notify_all();
        }
        for h in self.handles.drain(..) {
            let _ = h.join();
        }
    }
}

fn worker<T>(shared: &Shared<T>, readiness: &Readiness) {
    loop {
        let job = {
            let mut q = shared.lock();
            loop {
                if q.closed {
                    return;
                }
                if let Some(job) = q.jobs.pop_front() {
                    break job;
                }
                q = shared.queued.wait(q).unwrap_or_else(|e| e.into_inner());
            }
        };
        job.run();
        readiness.notify();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::task::Waker;

    #[test]
    fn blocking_results_come_in_order_whatever_the_threads() {
        for threads in [1, 2, 4] {
            let mut w = Workers::<usize>::new(threads);
            let tickets: Vec<_> = (0..50).map(|i| w.submit(Box::new(move || i * i))).collect();
            let mut cx = Context::from_waker(Waker::noop());
            for (i, t) in tickets.iter().enumerate() {
                assert_eq!(w.poll_take(&mut cx, t, true), Poll::Ready(Some(i * i)));
            }
        }
    }

    #[test]
    fn nonblocking_waits_without_compressing_and_a_panic_is_reported() {
        let mut w = Workers::<u8>::new(1);
        w.set_nonblocking(true);
        let (go, gate) = mpsc::channel::<()>();
        let t = w.submit(Box::new(move || {
            gate.recv().unwrap();
            7
        }));
        let mut cx = Context::from_waker(Waker::noop());
        assert_eq!(w.poll_take(&mut cx, &t, true), Poll::Pending);
        assert_eq!(w.poll_take(&mut cx, &t, false), Poll::Pending);
        go.send(()).unwrap();
        let got = loop {
            if let Poll::Ready(r) = w.poll_take(&mut cx, &t, true) {
                break r;
            }
            std::thread::yield_now();
        };
        assert_eq!(got, Some(7));
        let t = w.submit(Box::new(|| panic!("a job that panics")));
        let got = loop {
            if let Poll::Ready(r) = w.poll_take(&mut cx, &t, true) {
                break r;
            }
            std::thread::yield_now();
        };
        assert_eq!(got, None);
    }
}
