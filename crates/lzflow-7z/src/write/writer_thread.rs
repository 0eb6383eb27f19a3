//! The blocking writer core on a thread of its own, for async writers
//! whose options ask for compressing threads.
//!
//! With more than one thread the core's calls wait for its workers (a free
//! worker, room in a folder's input queue, the last folders at `finish`),
//! which a poll must never do. So the async writer hands its calls to this
//! thread as [`Command`]s through a bounded queue, and the thread writes
//! the archive into a bounded [`OutputSpool`] that the async side drains to the
//! sink. Either side waits only for the other: the thread on its condvar,
//! the task on a [`Readiness`] that the thread notifies after every change.

use std::collections::VecDeque;
use std::io::{self, Seek, SeekFrom, Write};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::task::{Context, Poll};

use lzflow_core::source::PollSink;
use lzflow_core::Readiness;
use zeroize::Zeroize;

use crate::write::output_spool::OutputSpool;
use crate::write::writer::Writer;
use crate::write::writer_options::{EntryMeta, WriterOptions};
use crate::SevenZError;

/// Bytes of entry data queued for the thread at most (besides one piece
/// beyond it, so that any piece fits an empty queue).
const INPUT_CAP: usize = 4 << 20;
/// Bytes of archive the thread spools before it waits for the async side
/// to drain them.
const SPOOL_CAP: usize = 4 << 20;

/// One call of the core, in the order the caller made them.
pub(crate) enum Command {
    /// [`Writer::begin_file`].
    Begin(String, EntryMeta),
    /// [`Writer::write_data`]; the piece is wiped once compressed.
    Data(Vec<u8>),
    /// [`Writer::end_file`].
    End,
    /// [`Writer::cancel_file`].
    Cancel,
    /// [`Writer::add_dir`].
    Dir(String, EntryMeta),
    /// [`Writer::add_empty_file`].
    Empty(String, EntryMeta),
    /// [`Writer::finish`]; the thread ends after it.
    Finish,
}

/// The command's kind and size, not the data it carries.
impl std::fmt::Debug for Command {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Command::Begin(name, _) => write!(f, "Begin({name:?})"),
            Command::Data(d) => write!(f, "Data({} bytes)", d.len()),
            Command::End => f.write_str("End"),
            Command::Cancel => f.write_str("Cancel"),
            Command::Dir(name, _) => write!(f, "Dir({name:?})"),
            Command::Empty(name, _) => write!(f, "Empty({name:?})"),
            Command::Finish => f.write_str("Finish"),
        }
    }
}

impl Command {
    /// Bytes the command holds in the input queue.
    fn weight(&self) -> usize {
        match self {
            Command::Data(d) => d.len(),
            _ => 0,
        }
    }
}

#[derive(Default)]
struct State {
    commands: VecDeque<Command>,
    queued: usize,
    /// The archive as written so far, less what the sink has taken.
    spool: OutputSpool,
    /// The first error of a command, until the caller is told.
    error: Option<SevenZError>,
    /// A command failed: the rest are skipped.
    failed: bool,
    /// `Finish` succeeded.
    finished: bool,
    /// The async writer is gone: the thread stops.
    dropped: bool,
}

#[derive(Default)]
struct Shared {
    state: Mutex<State>,
    /// Wakes the thread: a command queued, spool drained, writer dropped.
    changed: Condvar,
    /// Wakes the task: a command taken, bytes spooled, a command failed.
    ready: Readiness,
}

impl Shared {
    fn lock(&self) -> MutexGuard<'_, State> {
        // Every update is a few plain field writes; a panic elsewhere
        // leaves the state consistent.
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn wait<'a>(&self, g: MutexGuard<'a, State>) -> MutexGuard<'a, State> {
        self.changed.wait(g).unwrap_or_else(|e| e.into_inner())
    }
}

/// The core's sink on the thread: the shared spool, bounded.
struct ThreadSink(Arc<Shared>);

impl Write for ThreadSink {
    fn write(&mut self, data: &[u8]) -> io::Result<usize> {
        let mut s = self.0.lock();
        while s.spool.pending() >= SPOOL_CAP && !s.dropped {
            s = self.0.wait(s);
        }
        if s.dropped {
            return Err(io::Error::new(
                io::ErrorKind::BrokenPipe,
                "the async writer was dropped",
            ));
        }
        let n = s.spool.write(data)?;
        drop(s);
        self.0.ready.notify();
        Ok(n)
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

impl Seek for ThreadSink {
    fn seek(&mut self, to: SeekFrom) -> io::Result<u64> {
        self.0.lock().spool.seek(to)
    }
}

/// The writer thread's handle; dropping it stops the thread (the core's
/// workers are cancelled with it).
pub(crate) struct WriterThread {
    shared: Arc<Shared>,
}

impl std::fmt::Debug for WriterThread {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("WriterThread").finish_non_exhaustive()
    }
}

impl WriterThread {
    /// Makes the core with `opts` (errors come back here) and starts its
    /// thread.
    pub(crate) fn start(opts: WriterOptions) -> Result<Self, SevenZError> {
        let shared = Arc::new(Shared::default());
        let core = Writer::with_options(ThreadSink(Arc::clone(&shared)), opts)?;
        let for_thread = Arc::clone(&shared);
        std::thread::Builder::new()
            .name("lzflow-7z-writer".into())
            .spawn(move || run(&for_thread, core))
            .map_err(|_| SevenZError::WriterUnusable("cannot start the writer thread"))?;
        Ok(WriterThread { shared })
    }

    /// `Ready(Ok)` once `command` is queued (a data piece waits for room
    /// in the queue), `Ready(Err)` with the first error of an earlier
    /// command. Spooled bytes are written to `sink` first, so the thread
    /// never waits on a task that waits on it.
    pub(crate) fn poll_send(
        &mut self,
        cx: &mut Context<'_>,
        sink: &mut impl PollSink,
        command: &mut Option<Command>,
    ) -> Poll<Result<(), SevenZError>> {
        self.poll_until(cx, sink, |s| {
            let weight = command.as_ref().map_or(0, Command::weight);
            if weight > 0 && s.queued > 0 && s.queued + weight > INPUT_CAP {
                return false;
            }
            if let Some(c) = command.take() {
                s.queued += weight;
                s.commands.push_back(c);
            }
            true
        })
    }

    /// Queues `command` without waiting (for commands that carry no data).
    pub(crate) fn push(&mut self, command: Command) {
        let mut s = self.shared.lock();
        s.queued += command.weight();
        s.commands.push_back(command);
        drop(s);
        self.shared.changed.notify_all();
    }

    /// `Ready(Ok)` once `Finish` has been carried out and every byte
    /// spooled before it was written to `sink`; the spool, with the start
    /// header patches to replay, is then taken out.
    pub(crate) fn poll_finished(
        &mut self,
        cx: &mut Context<'_>,
        sink: &mut impl PollSink,
    ) -> Poll<Result<OutputSpool, SevenZError>> {
        let mut spool = None;
        std::task::ready!(self.poll_until(cx, sink, |s| {
            if s.finished {
                spool = Some(std::mem::take(&mut s.spool));
            }
            s.finished
        }))?;
        Poll::Ready(spool.ok_or(SevenZError::WriterUnusable("the archive is finished")))
    }

    /// Writes spooled bytes to `sink` until `done` holds (checked under the
    /// lock); `Pending` while the sink or the thread has to move first.
    fn poll_until(
        &mut self,
        cx: &mut Context<'_>,
        sink: &mut impl PollSink,
        mut done: impl FnMut(&mut State) -> bool,
    ) -> Poll<Result<(), SevenZError>> {
        loop {
            // Read before looking, so that a change made in between ends
            // the wait below at once (see `Readiness`).
            let generation = self.shared.ready.generation();
            let mut s = self.shared.lock();
            if let Some(e) = s.error.take() {
                return Poll::Ready(Err(e));
            }
            if s.failed {
                return Poll::Ready(Err(SevenZError::WriterUnusable(
                    "an earlier error left the archive unfinished; start a new archive",
                )));
            }
            if s.spool.pending() > 0 {
                let n = std::task::ready!(sink.poll_write(cx, s.spool.front()))?;
                if n == 0 {
                    return Poll::Ready(Err(io::Error::from(io::ErrorKind::WriteZero).into()));
                }
                s.spool.consume(n);
                drop(s);
                self.shared.changed.notify_all();
                continue;
            }
            if done(&mut s) {
                drop(s);
                self.shared.changed.notify_all();
                return Poll::Ready(Ok(()));
            }
            drop(s);
            self.shared.ready.wait_from(generation);
            std::task::ready!(self.shared.ready.poll_ready(cx));
        }
    }
}

impl Drop for WriterThread {
    fn drop(&mut self) {
        self.shared.lock().dropped = true;
        self.shared.changed.notify_all();
    }
}

/// The thread: carries out commands in order until `Finish`, a drop, or
/// (skipping the rest) the first error.
fn run(shared: &Shared, mut core: Writer<ThreadSink>) {
    loop {
        let (command, failed) = {
            let mut s = shared.lock();
            loop {
                if s.dropped {
                    return;
                }
                if let Some(c) = s.commands.pop_front() {
                    s.queued -= c.weight();
                    break (c, s.failed);
                }
                s = shared.wait(s);
            }
        };
        shared.ready.notify();
        if failed {
            continue;
        }
        let finish = matches!(command, Command::Finish);
        // A panic must still end in an error the task sees, or it would
        // wait for this thread forever.
        let result = catch_unwind(AssertUnwindSafe(|| match command {
            Command::Begin(name, meta) => core.begin_file(&name, meta),
            Command::Data(mut piece) => {
                let r = core.write_data(&piece);
                piece.zeroize();
                r
            }
            Command::End => core.end_file(),
            Command::Cancel => {
                core.cancel_file();
                Ok(())
            }
            Command::Dir(name, meta) => core.add_dir(&name, meta),
            Command::Empty(name, meta) => core.add_empty_file(&name, meta),
            Command::Finish => core.finish().map(drop),
        }))
        .unwrap_or(Err(SevenZError::WriterUnusable(
            "the writer thread panicked",
        )));
        {
            let mut s = shared.lock();
            match result {
                Err(e) => {
                    s.error = Some(e);
                    s.failed = true;
                }
                Ok(()) => s.finished |= finish,
            }
        }
        shared.ready.notify();
        if finish {
            return;
        }
    }
}
