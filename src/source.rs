//! The byte source every poll-style container core reads from (the 7z
//! reader, random access into `.xz`): positioned reads and seeks in poll
//! style, plus the hooks a runtime's fairness needs. Each runtime supplies
//! one adapter (`tokio::source`, `futures::source`); std sources never
//! return `Pending` ([`Blocking`]).

use std::io::{self, Read, Seek, SeekFrom};
use std::task::{Context, Poll};

/// A pollable, seekable byte source: the one thing a runtime face supplies.
pub(crate) trait PollSource {
    /// Reads into `buf`; `Ok(0)` at the end.
    fn poll_read(&mut self, cx: &mut Context<'_>, buf: &mut [u8]) -> Poll<io::Result<usize>>;
    /// Seeks to `pos`. After `Pending` it is called again with the same
    /// `pos` (or, if the future was dropped, with a new one).
    fn poll_seek(&mut self, cx: &mut Context<'_>, pos: SeekFrom) -> Poll<io::Result<u64>>;
    /// Asked before each decoding step: `Pending`, with the task's wake-up
    /// arranged, if the task should let others run first. The tokio
    /// adapter asks tokio's cooperative budget; by default the answer is
    /// `Ready`.
    fn poll_proceed(&mut self, _cx: &mut Context<'_>) -> Poll<()> {
        Poll::Ready(())
    }
    /// The step allowed by the last `poll_proceed` is over.
    fn step_done(&mut self) {}
}

/// A std source: never pending.
#[derive(Debug)]
pub(crate) struct Blocking<R>(pub(crate) R);

impl<R: Read + Seek> PollSource for Blocking<R> {
    fn poll_read(&mut self, _: &mut Context<'_>, buf: &mut [u8]) -> Poll<io::Result<usize>> {
        loop {
            match self.0.read(buf) {
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                r => return Poll::Ready(r),
            }
        }
    }

    fn poll_seek(&mut self, _: &mut Context<'_>, pos: SeekFrom) -> Poll<io::Result<u64>> {
        Poll::Ready(self.0.seek(pos))
    }
}
