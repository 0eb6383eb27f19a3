//! tokio's cooperative budget for the tokio faces.
//!
//! tokio gives a task a budget of 128 units per turn; its own resources
//! spend one unit per operation and, once the budget is spent, return
//! `Pending` and have the task woken after the scheduler has run the other
//! tasks and its timers and I/O. A coder fed from memory meets no such
//! resource, so the tokio faces spend the budget themselves: before each
//! coder step they check that some is left (else `Pending`, with tokio's
//! deferred wake-up), after it they charge one unit per [`UNIT`] of the
//! step's time. A busy task's turn is then about 256 µs of coding.
//!
//! Time, not bytes, is charged because the cost of a byte differs too
//! much: decoding text runs at 100-250 MB/s, xz preset 0 encodes it at
//! about 30 MB/s and preset 6 at 1.5-3 MB/s.

use std::task::{ready, Context, Poll, Waker};
use std::time::{Duration, Instant};

use ::tokio::task::coop;

use crate::pump::{Budget, Steps, ASYNC_BUDGET};

/// Coding time per unit of tokio's budget: a task's 128 units are about
/// 256 µs of decoding or encoding, 2-4 decoded batches of 16 KiB.
const UNIT: Duration = Duration::from_micros(2);

/// The largest budget tokio hands out: charging more than this is moot.
const MAX_UNITS: u128 = 128;

/// `Ready` while the current task has budget left (and outside a tokio
/// runtime or under `coop::unconstrained`); otherwise `Pending`, the task
/// to be woken once the scheduler has let the other tasks run.
pub(crate) fn poll_proceed(cx: &mut Context<'_>) -> Poll<()> {
    if coop::has_budget_remaining() {
        return Poll::Ready(());
    }
    // Spent: tokio's own check returns `Pending` and defers the wake-up.
    coop::poll_proceed(cx).map(drop)
}

/// Charges `elapsed` of coding to the current task's budget, at least one
/// unit (as tokio charges an operation) and never below zero, so it never
/// asks for a wake-up: the next check does.
fn charge(elapsed: Duration) {
    let units = elapsed
        .as_nanos()
        .div_ceil(UNIT.as_nanos())
        .clamp(1, MAX_UNITS);
    // The waker is only used when the budget is spent, which is checked
    // before each unit.
    let mut cx = Context::from_waker(Waker::noop());
    for _ in 0..units {
        if !coop::has_budget_remaining() {
            return;
        }
        if let Poll::Ready(progress) = coop::poll_proceed(&mut cx) {
            progress.made_progress();
        }
    }
}

/// One coder step at a time under tokio's budget: [`poll_start`] waits
/// for budget and starts the clock, [`done`] charges the time.
///
/// [`poll_start`]: TimedStep::poll_start
/// [`done`]: TimedStep::done
#[derive(Debug, Default, Clone, Copy)]
pub(crate) struct TimedStep(Option<Instant>);

impl TimedStep {
    /// `Ready` (the clock started) if the task has budget left, else
    /// `Pending` with tokio's deferred wake-up.
    pub(crate) fn poll_start(&mut self, cx: &mut Context<'_>) -> Poll<()> {
        ready!(poll_proceed(cx));
        self.0 = Some(Instant::now());
        Poll::Ready(())
    }

    /// Charges the time since [`poll_start`](Self::poll_start).
    pub(crate) fn done(&mut self) {
        if let Some(start) = self.0.take() {
            charge(start.elapsed());
        }
    }
}

/// The tokio faces' budget: [`ASYNC_BUDGET`]'s bound on one poll and
/// tokio's budget on the task.
#[derive(Debug, Clone, Copy)]
pub(crate) struct TokioBudget {
    steps: Steps,
    step: TimedStep,
}

/// A fresh [`TokioBudget`] for one poll.
pub(crate) const TOKIO_BUDGET: TokioBudget = TokioBudget {
    steps: ASYNC_BUDGET,
    step: TimedStep(None),
};

impl Budget for TokioBudget {
    fn poll_step(&mut self, cx: &mut Context<'_>) -> Poll<()> {
        ready!(self.step.poll_start(cx));
        self.steps.poll_step(cx)
    }

    fn encode_input(&self) -> usize {
        self.steps.encode_input()
    }

    fn step_done(&mut self) {
        self.step.done();
    }
}
