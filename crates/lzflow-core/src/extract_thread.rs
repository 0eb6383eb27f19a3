//! An [`Extractor`] for async code: its file-system calls (creating,
//! writing, moving and removing files) run on a thread of their own, so a
//! task that extracts an archive never blocks its executor on a disk, and
//! decoding overlaps writing.
//!
//! [`ExtractThread`] has one set of async methods whatever runs the calls,
//! so each container has one extraction walk: the async faces start it with
//! [`FsCalls::Thread`], the std faces (which drive the same walk with
//! [`block_on`](crate::source::block_on)) with [`FsCalls::Inline`], where
//! every call completes at once on the calling thread.
//!
//! On the thread, calls are queued without waiting for them, up to a
//! [`QUEUE_LOAD`] (file data goes in writes of up to [`WRITE_BATCH`]
//! bytes, at most 512 KiB of it queued, and a small file is one call); the
//! task waits (`Pending`, woken through a [`Readiness`]) only when the
//! queue is full, until it is half empty, or when it needs an answer: the
//! plan, a discarded file, the end of the extraction. So a call's error
//! comes with a later call. The thread makes no call after one failed,
//! except to settle the file that was being written, so what is on disk is
//! what the calls made one by one would leave, and the error returned is
//! the first, as then.
//!
//! Dropped before [`close`](ExtractThread::close) (a cancelled
//! extraction), the handle lets the thread finish its current call and
//! end: the file being written is removed then, as a dropped
//! [`OutputFile`] is, without the task waiting for it.

use std::future::poll_fn;
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc::{self, Receiver, Sender, TryRecvError};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};

use crate::extract::{
    EntryAttrs, EntryKind, ExtractError, ExtractOptions, Extractor, OutputFile, Planned,
};
use crate::Readiness;

/// Bytes of file data gathered before they go to the thread as one write.
pub const WRITE_BATCH: usize = 128 << 10;

/// How much the queue holds at most: a call counts 1, plus 1 for every
/// 8 KiB of file data it carries. So 64 small calls, or 3 full write
/// batches and a few calls.
pub const QUEUE_LOAD: usize = 64;

/// The load of `command` in the queue.
fn load(command: &Command) -> usize {
    match command {
        Command::File { data, .. } => 1 + data.len() / (8 << 10),
        _ => 1,
    }
}

/// Where an [`ExtractThread`]'s file-system calls run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FsCalls {
    /// On the calling thread, each call completing at once (std faces).
    Inline,
    /// On a thread of their own (async faces).
    Thread,
}

/// Why an extraction step failed.
#[derive(Debug)]
pub enum CallError {
    /// Reading an entry's data failed (the error given to
    /// [`ExtractThread::end_file`]), or writing it to its file did.
    Data(io::Error),
    /// The extractor refused or failed a step (see [`ExtractError`]).
    Extract(ExtractError),
}

impl CallError {
    /// The container's error for it.
    pub fn into_error<E: From<io::Error> + From<ExtractError>>(self) -> E {
        match self {
            CallError::Data(e) => e.into(),
            CallError::Extract(e) => e.into(),
        }
    }
}

impl From<ExtractError> for CallError {
    fn from(e: ExtractError) -> Self {
        CallError::Extract(e)
    }
}

/// How an extraction ends ([`ExtractThread::close`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Close {
    /// Successfully: directories get their permissions and times
    /// ([`Extractor::finish`]).
    Finish,
    /// Everything this extraction created is removed
    /// ([`Extractor::rollback`]).
    Rollback,
    /// On an error: what was completed stays as it is.
    Abandon,
}

enum Command {
    Plan(Vec<(String, EntryKind)>),
    MakeDir(PathBuf, EntryAttrs),
    /// A step of the current file, in one call so that a small file is
    /// one: creating it (`create`), writing `data`, and ending it (`end`:
    /// the data was good, commit; or not, discard).
    File {
        create: Option<(PathBuf, EntryAttrs)>,
        data: Vec<u8>,
        end: Option<bool>,
    },
    /// Answered once every call before it is made.
    Sync,
    Close(Close),
}

enum Reply {
    Started(Result<(), ExtractError>),
    Planned(Result<Vec<Planned>, ExtractError>),
    Synced,
    Closed(Result<(), CallError>),
}

/// The calls themselves, on whichever thread makes them.
struct Calls {
    ex: Extractor,
    out: Option<OutputFile>,
    /// A write to `out` failed: later writes are dropped.
    write_failed: bool,
}

impl Calls {
    fn new(ex: Extractor) -> Self {
        Calls {
            ex,
            out: None,
            write_failed: false,
        }
    }

    fn plan(&mut self, entries: &[(String, EntryKind)]) -> Result<Vec<Planned>, ExtractError> {
        self.ex.plan(entries.iter().map(|(n, k)| (n.as_str(), *k)))
    }

    fn create_file(&mut self, rel: &Path, attrs: EntryAttrs) -> Result<bool, ExtractError> {
        // A file not ended (its future was dropped) is removed.
        self.out = None;
        self.write_failed = false;
        self.out = self.ex.create_file(rel, attrs)?;
        Ok(self.out.is_some())
    }

    fn write(&mut self, data: &[u8]) -> io::Result<()> {
        match &mut self.out {
            Some(out) if !self.write_failed => {
                let r = out.write_all(data);
                self.write_failed = r.is_err();
                r
            }
            _ => Ok(()),
        }
    }

    /// Commits the file when its data is `good` and every write succeeded,
    /// else discards it (removed, or kept under `keep_broken`).
    fn end_file(&mut self, good: bool) -> Result<(), ExtractError> {
        match self.out.take() {
            Some(out) if good && !self.write_failed => self.ex.commit(out),
            Some(out) => self.ex.discard(out),
            None => Ok(()),
        }
    }

    fn close(self, how: Close) -> Result<(), ExtractError> {
        drop(self.out);
        match how {
            Close::Finish => self.ex.finish(),
            Close::Rollback => {
                self.ex.rollback();
                Ok(())
            }
            Close::Abandon => Ok(()),
        }
    }
}

/// What the thread and the task share besides the queues.
#[derive(Default)]
struct Shared {
    /// A call failed: the thread makes no more.
    failed: AtomicBool,
    /// The first error, until the task takes it.
    error: Mutex<Option<CallError>>,
    /// The load of the calls queued and not yet made.
    load: AtomicUsize,
    /// The thread ended (it makes no more calls, answers nothing more).
    gone: AtomicBool,
}

/// Held by the thread: tells the task when it ends, even by a panic, so
/// that a task waiting for room or an answer is not left waiting.
struct Ending<'a>(&'a Shared, &'a Readiness);

impl Drop for Ending<'_> {
    fn drop(&mut self) {
        self.0.gone.store(true, Ordering::Release);
        self.1.notify();
    }
}

impl Shared {
    /// The first error of the calls made so far, unless the task was
    /// given it already.
    fn first_error(&self) -> Result<(), CallError> {
        if !self.failed.load(Ordering::Acquire) {
            return Ok(());
        }
        match self.error.lock().unwrap_or_else(|e| e.into_inner()).take() {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }
}

/// The task's end of a thread making the calls.
struct Remote {
    root: PathBuf,
    commands: Sender<Command>,
    replies: Receiver<Reply>,
    readiness: Readiness,
    shared: Arc<Shared>,
    /// The current file, while it is not asked for yet.
    create: Option<(PathBuf, EntryAttrs)>,
    /// File data not sent yet.
    batch: Vec<u8>,
}

impl Remote {
    /// Queues `command`, pending while the queue is full (until it is
    /// half empty).
    async fn send(&mut self, command: Command) -> Result<(), ExtractError> {
        let cost = load(&command);
        poll_fn(|cx| loop {
            // Read before looking, so that room made in between counts.
            let generation = self.readiness.generation();
            let queued = self.shared.load.load(Ordering::Acquire);
            if queued == 0
                || queued + cost <= QUEUE_LOAD
                || self.shared.gone.load(Ordering::Acquire)
            {
                return Poll::Ready(());
            }
            self.readiness.wait_from(generation);
            if self.readiness.poll_ready(cx).is_pending() {
                return Poll::Pending;
            }
        })
        .await;
        self.shared.load.fetch_add(cost, Ordering::AcqRel);
        self.commands.send(command).map_err(|_| self.gone())
    }

    /// Sends `command` and waits for the thread's answer.
    async fn call(&mut self, command: Command) -> Result<Reply, ExtractError> {
        self.send(command).await?;
        self.reply().await
    }

    /// The thread's next answer.
    async fn reply(&mut self) -> Result<Reply, ExtractError> {
        // The receiver is held by `&mut` across the wait: it is `Send`,
        // not `Sync`, and the future must stay `Send`.
        let (replies, readiness, shared) = (&mut self.replies, &self.readiness, &self.shared);
        let got = poll_fn(move |cx| loop {
            let generation = readiness.generation();
            match replies.try_recv() {
                Ok(reply) => return Poll::Ready(Some(reply)),
                Err(TryRecvError::Disconnected) => return Poll::Ready(None),
                Err(TryRecvError::Empty) if shared.gone.load(Ordering::Acquire) => {
                    // Answers sent before it ended are in the queue.
                    return Poll::Ready(replies.try_recv().ok());
                }
                Err(TryRecvError::Empty) => {
                    readiness.wait_from(generation);
                    if readiness.poll_ready(cx).is_pending() {
                        return Poll::Pending;
                    }
                }
            }
        })
        .await;
        got.ok_or_else(|| self.gone())
    }

    /// The first error of the calls made so far, if the task has not
    /// been given it yet.
    fn check(&self) -> Result<(), CallError> {
        self.shared.first_error()
    }

    /// Sends the current file's step: its creation if not asked for
    /// yet, the gathered data, and its `end`.
    async fn file_step(&mut self, end: Option<bool>) -> Result<(), ExtractError> {
        let command = Command::File {
            create: self.create.take(),
            data: std::mem::take(&mut self.batch),
            end,
        };
        self.send(command).await
    }

    /// The thread ended before answering (it panicked).
    fn gone(&self) -> ExtractError {
        ExtractError::io(&self.root, io::Error::other("the extraction thread ended"))
    }

    /// An answer to another call: a call was abandoned while pending.
    fn out_of_step(&self) -> ExtractError {
        ExtractError::io(
            &self.root,
            io::Error::other("extraction calls out of step (a call was cancelled)"),
        )
    }
}

enum Side {
    Inline(Box<Calls>),
    Thread(Remote),
}

/// An [`Extractor`] behind async methods, its calls made inline or on a
/// thread of their own (see the module documentation). The methods follow
/// the extractor's steps: [`plan`](Self::plan) or
/// [`plan_one`](Self::plan_one), then per entry
/// [`make_dir`](Self::make_dir) or [`create_file`](Self::create_file),
/// [`write`](Self::write)s and [`end_file`](Self::end_file), then
/// [`close`](Self::close). After an error, only `close` is called. A call
/// abandoned while pending (its future dropped) leaves the handle out of
/// step: drop it too.
pub struct ExtractThread {
    side: Side,
}

impl std::fmt::Debug for ExtractThread {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let calls = match self.side {
            Side::Inline(_) => FsCalls::Inline,
            Side::Thread(_) => FsCalls::Thread,
        };
        f.debug_struct("ExtractThread")
            .field("calls", &calls)
            .finish_non_exhaustive()
    }
}

impl ExtractThread {
    /// Starts an extraction below `root` (created if missing, by whichever
    /// thread makes the calls).
    pub async fn start(
        root: &Path,
        options: ExtractOptions,
        calls: FsCalls,
    ) -> Result<Self, ExtractError> {
        if calls == FsCalls::Inline {
            let calls = Box::new(Calls::new(Extractor::new(root, options)?));
            return Ok(ExtractThread {
                side: Side::Inline(calls),
            });
        }
        let (commands, inbox) = mpsc::channel();
        let (outbox, replies) = mpsc::channel();
        let readiness = Readiness::new();
        let shared = Arc::new(Shared::default());
        let serving = Serving {
            root: root.to_path_buf(),
            options,
            inbox,
            outbox,
            readiness: readiness.clone(),
            shared: Arc::clone(&shared),
        };
        std::thread::Builder::new()
            .name("lzflow-extract".into())
            .spawn(move || serving.serve())
            .map_err(|e| ExtractError::io(root, e))?;
        let mut remote = Remote {
            root: root.to_path_buf(),
            commands,
            replies,
            readiness,
            shared,
            create: None,
            batch: Vec::new(),
        };
        // The first answer comes unasked.
        match remote.reply().await? {
            Reply::Started(r) => r.map(|()| ExtractThread {
                side: Side::Thread(remote),
            }),
            _ => Err(remote.out_of_step()),
        }
    }

    /// [`Extractor::plan`] of every entry, by name and kind; waits for the
    /// answer.
    pub async fn plan(
        &mut self,
        entries: Vec<(String, EntryKind)>,
    ) -> Result<Vec<Planned>, CallError> {
        let remote = match &mut self.side {
            Side::Inline(calls) => return Ok(calls.plan(&entries)?),
            Side::Thread(remote) => remote,
        };
        remote.check()?;
        match remote.call(Command::Plan(entries)).await? {
            Reply::Planned(r) => Ok(r?),
            // Refused: an earlier call failed.
            Reply::Synced => remote.check().and(Ok(Vec::new())),
            _ => Err(remote.out_of_step().into()),
        }
    }

    /// [`Extractor::plan_one`]: one more entry, after those planned before.
    pub async fn plan_one(&mut self, name: &str, kind: EntryKind) -> Result<Planned, CallError> {
        let mut planned = self.plan(vec![(name.to_owned(), kind)]).await?;
        Ok(planned.pop().unwrap_or(Planned::Skip))
    }

    /// [`Extractor::make_dir`] (on the thread: queued).
    pub async fn make_dir(&mut self, rel: PathBuf, attrs: EntryAttrs) -> Result<(), CallError> {
        match &mut self.side {
            Side::Inline(calls) => Ok(calls.ex.make_dir(&rel, attrs)?),
            Side::Thread(remote) => {
                remote.check()?;
                Ok(remote.send(Command::MakeDir(rel, attrs)).await?)
            }
        }
    }

    /// [`Extractor::create_file`]: false when the entry is skipped (read
    /// nothing), true when its data is to be written
    /// ([`write`](Self::write)). One file at a time, each ended by
    /// [`end_file`](Self::end_file). On the thread the call is queued and
    /// the answer is true: the data of an entry whose file turns out to be
    /// skipped (it appeared since the plan, under [`Overwrite::Skip`](crate::extract::Overwrite::Skip)) is dropped there.
    pub async fn create_file(
        &mut self,
        rel: PathBuf,
        attrs: EntryAttrs,
    ) -> Result<bool, CallError> {
        match &mut self.side {
            Side::Inline(calls) => Ok(calls.create_file(&rel, attrs)?),
            Side::Thread(remote) => {
                remote.check()?;
                // Asked for with the file's first data.
                remote.create = Some((rel, attrs));
                Ok(true)
            }
        }
    }

    /// Writes `data` to the current file (at once, or gathered for the
    /// thread). An error means the extraction failed (this write, or on
    /// the thread any call before it): the caller ends the file with it
    /// ([`end_file`](Self::end_file)), which tells the first error.
    pub async fn write(&mut self, mut data: &[u8]) -> io::Result<()> {
        let remote = match &mut self.side {
            Side::Inline(calls) => return calls.write(data),
            Side::Thread(remote) => remote,
        };
        if remote.shared.failed.load(Ordering::Acquire) {
            return Err(io::Error::other("an extraction call failed"));
        }
        while !data.is_empty() {
            let n = (WRITE_BATCH - remote.batch.len()).min(data.len());
            remote.batch.extend_from_slice(&data[..n]);
            data = &data[n..];
            if remote.batch.len() == WRITE_BATCH {
                remote.file_step(None).await?;
            }
        }
        Ok(())
    }

    /// Ends the current file: with `data` `Ok` (all of the entry's data
    /// was written and checked) it is committed, unless a write failed;
    /// otherwise it is discarded ([`discard_file`](Self::discard_file))
    /// and the first error returned: a call's before this one, the
    /// discard's, `data`'s.
    pub async fn end_file(&mut self, data: io::Result<()>) -> Result<(), CallError> {
        if let Err(e) = data {
            self.discard_file().await?;
            return Err(CallError::Data(e));
        }
        match &mut self.side {
            Side::Inline(calls) => Ok(calls.end_file(true)?),
            Side::Thread(remote) => {
                remote.file_step(Some(true)).await?;
                remote.check()
            }
        }
    }

    /// Writes the current file's data, read by `read` into `buf` until it
    /// gives 0 bytes, then ends the file ([`end_file`](Self::end_file),
    /// with the read's or the write's error if one fails): every
    /// container's copy of an entry to its file.
    pub async fn copy_file(
        &mut self,
        buf: &mut [u8],
        mut read: impl FnMut(&mut Context<'_>, &mut [u8]) -> Poll<io::Result<usize>>,
    ) -> Result<(), CallError> {
        let data = loop {
            match poll_fn(|cx| read(cx, buf)).await {
                Ok(0) => break Ok(()),
                Ok(n) => {
                    if let Err(e) = self.write(&buf[..n]).await {
                        break Err(e);
                    }
                }
                Err(e) => break Err(e),
            }
        };
        self.end_file(data).await
    }

    /// Discards the current file, whose data failed for a reason the
    /// caller reports: removed, or kept under
    /// [`ExtractOptions::keep_broken`] with what was written. Waits for
    /// the calls before it: the error is the first of theirs, or the
    /// discard's.
    pub async fn discard_file(&mut self) -> Result<(), CallError> {
        let remote = match &mut self.side {
            Side::Inline(calls) => return Ok(calls.end_file(false)?),
            Side::Thread(remote) => remote,
        };
        // What was read goes to the file too (kept under `keep_broken`).
        remote.file_step(Some(false)).await?;
        match remote.call(Command::Sync).await? {
            Reply::Synced => remote.check(),
            _ => Err(remote.out_of_step().into()),
        }
    }

    /// Ends the extraction as `how` says, once every call before it is
    /// made; the error is the first of the calls' (then nothing is
    /// finished or rolled back: the extraction stopped at that call).
    pub async fn close(self, how: Close) -> Result<(), CallError> {
        match self.side {
            Side::Inline(calls) => Ok(calls.close(how)?),
            Side::Thread(mut remote) => {
                remote.check()?;
                match remote.call(Command::Close(how)).await? {
                    Reply::Closed(r) => r,
                    _ => Err(remote.out_of_step().into()),
                }
            }
        }
    }

    /// Ends the extraction after the walk's `result`: finished when it is
    /// `Ok`, rolled back when `rolls_back` says the error makes all that
    /// was written worthless (a wrong password), else abandoned with what
    /// was completed kept ([`close`](Self::close)). An earlier step's
    /// error comes first: the extraction stopped there.
    pub async fn close_after<E: From<CallError>>(
        self,
        result: Result<(), E>,
        rolls_back: impl FnOnce(&E) -> bool,
    ) -> Result<(), E> {
        let how = match &result {
            Ok(()) => Close::Finish,
            Err(e) if rolls_back(e) => Close::Rollback,
            Err(_) => Close::Abandon,
        };
        self.close(how).await?;
        result
    }
}

/// What the thread is given.
struct Serving {
    root: PathBuf,
    options: ExtractOptions,
    inbox: Receiver<Command>,
    outbox: Sender<Reply>,
    readiness: Readiness,
    shared: Arc<Shared>,
}

impl Serving {
    /// Makes the calls in the order they come, answers those that have an
    /// answer, and tells the task after each (a queue slot is free).
    fn serve(self) {
        let _ending = Ending(&self.shared, &self.readiness);
        let answer = |reply: Reply| {
            // A reply the task no longer waits for (it was dropped) is
            // fine to lose.
            let _ = self.outbox.send(reply);
            self.readiness.notify();
        };
        let fail = |e: CallError| {
            let mut slot = self.shared.error.lock().unwrap_or_else(|e| e.into_inner());
            if !self.shared.failed.swap(true, Ordering::AcqRel) {
                *slot = Some(e);
            }
        };
        let mut calls = match Extractor::new(&self.root, self.options.clone()) {
            Ok(ex) => Calls::new(ex),
            Err(e) => return answer(Reply::Started(Err(e))),
        };
        answer(Reply::Started(Ok(())));
        // Ends when the task drops its handle; `calls` then drops the file
        // being written, which removes it.
        while let Ok(command) = self.inbox.recv() {
            let failed = self.shared.failed.load(Ordering::Acquire);
            let cost = load(&command);
            // Made room: a task waiting for it is woken once the queue is
            // half empty, not at every call.
            let made_room = || {
                let before = self.shared.load.fetch_sub(cost, Ordering::AcqRel);
                if before - cost <= QUEUE_LOAD / 2 && before > QUEUE_LOAD / 2 {
                    self.readiness.notify();
                }
            };
            // The answered calls wake the task with their answer.
            let unload = || self.shared.load.fetch_sub(cost, Ordering::AcqRel);
            match command {
                Command::Sync => {
                    unload();
                    answer(Reply::Synced);
                }
                Command::Close(how) => {
                    let r = match failed {
                        // The first error, unless the task took it.
                        true => self.shared.first_error(),
                        false => calls.close(how).map_err(CallError::Extract),
                    };
                    return answer(Reply::Closed(r));
                }
                // Refused after a failure: the task learns why from
                // `Shared`.
                Command::Plan(_) if failed => {
                    unload();
                    answer(Reply::Synced);
                }
                Command::Plan(entries) => {
                    let planned = calls.plan(&entries);
                    unload();
                    answer(Reply::Planned(planned));
                }
                // Nothing more is made after a failure, but the file
                // being written is settled.
                Command::File { create, data, end } => {
                    if let (Some((rel, attrs)), false) = (create, failed) {
                        if let Err(e) = calls.create_file(&rel, attrs) {
                            fail(CallError::Extract(e));
                        }
                    }
                    if !self.shared.failed.load(Ordering::Acquire) {
                        if let Err(e) = calls.write(&data) {
                            fail(CallError::Data(e));
                        }
                    }
                    drop(data);
                    if let Some(good) = end {
                        let failed = self.shared.failed.load(Ordering::Acquire);
                        if let Err(e) = calls.end_file(good && !failed) {
                            fail(CallError::Extract(e));
                        }
                    }
                    made_room();
                }
                _ if failed => made_room(),
                Command::MakeDir(rel, attrs) => {
                    if let Err(e) = calls.ex.make_dir(&rel, attrs) {
                        fail(CallError::Extract(e));
                    }
                    made_room();
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::block_on;
    use std::fs;

    fn scratch(tag: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!(
            "lzflow-extract-thread-{}-{tag}",
            std::process::id()
        ));
        let _ = fs::remove_dir_all(&d);
        d
    }

    /// Polls `f` to the end on this thread, parking between polls (the
    /// thread's notifications wake it).
    fn run<T>(f: impl std::future::Future<Output = T>) -> T {
        use std::sync::Arc;
        use std::task::{Context, Wake, Waker};
        struct Unpark(std::thread::Thread);
        impl Wake for Unpark {
            fn wake(self: Arc<Self>) {
                self.0.unpark();
            }
        }
        let waker = Waker::from(Arc::new(Unpark(std::thread::current())));
        let mut cx = Context::from_waker(&waker);
        let mut f = std::pin::pin!(f);
        loop {
            if let Poll::Ready(v) = f.as_mut().poll(&mut cx) {
                return v;
            }
            std::thread::park();
        }
    }

    use std::future::Future;

    /// The same steps, inline and on the thread: the same tree, the same
    /// answers; a bad entry's file is gone and the good ones stay.
    #[test]
    fn inline_and_thread_calls_make_the_same_files() {
        for calls in [FsCalls::Inline, FsCalls::Thread] {
            let root = scratch(&format!("{calls:?}"));
            let big: Vec<u8> = (0..1_000_000u32).map(|i| (i * 7 % 251) as u8).collect();
            let steps = async {
                let mut x = ExtractThread::start(&root, ExtractOptions::default(), calls).await?;
                let plan = x.plan(vec![("../up".into(), EntryKind::File)]).await;
                assert!(
                    matches!(
                        plan,
                        Err(CallError::Extract(ExtractError::UnsafePath { .. }))
                    ),
                    "{plan:?}"
                );
                let plan = x
                    .plan(vec![
                        ("d".into(), EntryKind::Directory),
                        ("d/big".into(), EntryKind::File),
                        ("bad".into(), EntryKind::File),
                    ])
                    .await?;
                let rel = |i: usize| match &plan[i] {
                    Planned::Write(p) => p.clone(),
                    other => panic!("{other:?}"),
                };
                x.make_dir(rel(0), EntryAttrs::default()).await?;
                assert!(x.create_file(rel(1), EntryAttrs::default()).await?);
                for piece in big.chunks(16 << 10) {
                    x.write(piece).await.unwrap();
                }
                x.end_file(Ok(())).await.unwrap();
                assert!(x.create_file(rel(2), EntryAttrs::default()).await?);
                x.write(b"half of it").await.unwrap();
                let bad = io::Error::new(io::ErrorKind::InvalidData, "crc");
                match x.end_file(Err(bad)).await {
                    Err(CallError::Data(e)) => assert_eq!(e.kind(), io::ErrorKind::InvalidData),
                    other => panic!("{other:?}"),
                }
                x.close(Close::Finish).await
            };
            let r = match calls {
                // One poll: inline calls never wait.
                FsCalls::Inline => block_on(async { steps.await.map_err(CallError::into_error) }),
                FsCalls::Thread => run(steps).map_err(CallError::into_error::<io::Error>),
            };
            r.unwrap();
            assert!(fs::read(root.join("d/big")).unwrap() == big, "{calls:?}");
            let mut names: Vec<_> = fs::read_dir(&root)
                .unwrap()
                .map(|e| e.unwrap().file_name())
                .collect();
            names.sort();
            assert_eq!(
                names,
                ["d"],
                "{calls:?}: no file for the bad entry, no partial"
            );
            let _ = fs::remove_dir_all(&root);
        }
    }

    /// An extraction on its thread below `root`, its one file `name`
    /// created and waiting for data.
    async fn one_file(root: &Path, name: &str) -> ExtractThread {
        let mut x = ExtractThread::start(root, ExtractOptions::default(), FsCalls::Thread)
            .await
            .unwrap();
        let plan = x.plan(vec![(name.into(), EntryKind::File)]).await.unwrap();
        let Planned::Write(rel) = plan[0].clone() else {
            panic!("{plan:?}")
        };
        assert!(x.create_file(rel, EntryAttrs::default()).await.unwrap());
        x
    }

    /// A rollback removes what the extraction made; a dropped handle
    /// (cancelled extraction) leaves no partial file once its thread ends.
    #[test]
    fn rollback_and_drop_leave_nothing() {
        let root = scratch("rollback");
        run(async {
            let mut x = one_file(&root, "f").await;
            x.write(b"data").await.unwrap();
            x.end_file(Ok(())).await.unwrap();
            // Answered after every call before it: the file is in place.
            assert_eq!(x.plan(Vec::new()).await.unwrap(), []);
            assert_eq!(fs::read(root.join("f")).unwrap(), b"data");
            x.close(Close::Rollback).await.unwrap();
        });
        assert_eq!(fs::read_dir(&root).unwrap().count(), 0);

        run(async {
            let mut x = one_file(&root, "g").await;
            x.write(&[1; 300 << 10]).await.unwrap();
            drop(x);
        });
        // The thread removes the partial file as it ends.
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
        while fs::read_dir(&root).unwrap().count() > 0 && std::time::Instant::now() < deadline {
            std::thread::sleep(std::time::Duration::from_millis(5));
        }
        assert_eq!(fs::read_dir(&root).unwrap().count(), 0);
        let _ = fs::remove_dir_all(&root);
    }

    /// A call that fails stops the calls after it (on the thread too,
    /// though they were queued): its error is the one returned, and
    /// nothing after it is made.
    #[test]
    fn a_failed_call_stops_the_calls_after_it() {
        for calls in [FsCalls::Inline, FsCalls::Thread] {
            let root = scratch(&format!("failed-{calls:?}"));
            let steps = async {
                let mut x = ExtractThread::start(&root, ExtractOptions::default(), calls)
                    .await
                    .unwrap();
                let plan = x
                    .plan(vec![
                        ("x".into(), EntryKind::File),
                        ("y".into(), EntryKind::File),
                    ])
                    .await
                    .unwrap();
                let rel = |i: usize| match &plan[i] {
                    Planned::Write(p) => p.clone(),
                    other => panic!("{other:?}"),
                };
                // A directory where the file goes, made since the plan.
                fs::create_dir(root.join("x")).unwrap();
                let first = async {
                    x.create_file(rel(0), EntryAttrs::default()).await?;
                    x.write(b"xx").await.map_err(CallError::Data)?;
                    x.end_file(Ok(())).await?;
                    x.create_file(rel(1), EntryAttrs::default()).await?;
                    x.write(b"yy").await.map_err(CallError::Data)?;
                    x.end_file(Ok(())).await
                }
                .await;
                // On the thread the error may come only when the
                // extraction ends.
                let first = match first {
                    Err(CallError::Data(_)) => x.end_file(Err(io::Error::other("write"))).await,
                    Ok(()) => {
                        let closed = x.close(Close::Finish).await;
                        assert!(closed.is_err());
                        closed
                    }
                    other => other,
                };
                assert!(
                    matches!(first, Err(CallError::Extract(ExtractError::Clash { .. }))),
                    "{calls:?}: {first:?}"
                );
            };
            match calls {
                FsCalls::Inline => block_on(async {
                    steps.await;
                    Ok::<_, io::Error>(())
                })
                .unwrap(),
                FsCalls::Thread => run(steps),
            }
            assert!(root.join("x").is_dir());
            assert!(!root.join("y").exists(), "{calls:?}");
            assert_eq!(fs::read_dir(&root).unwrap().count(), 1, "{calls:?}");
            let _ = fs::remove_dir_all(&root);
        }
    }

    /// A full queue makes `write` pending (it never blocks the task), and
    /// the thread's progress wakes it.
    #[test]
    fn a_full_queue_is_pending_not_blocking() {
        let root = scratch("pending");
        let mut pendings = 0;
        {
            use std::task::{Context, Waker};
            let mut f = std::pin::pin!(async {
                let mut x = one_file(&root, "f").await;
                for _ in 0..64 {
                    x.write(&[7; WRITE_BATCH]).await.unwrap();
                }
                x.end_file(Ok(())).await.unwrap();
                x.close(Close::Finish).await.unwrap();
            });
            let mut cx = Context::from_waker(Waker::noop());
            // Polled without a waker that works: progress only by retrying.
            while f.as_mut().poll(&mut cx).is_pending() {
                pendings += 1;
                std::thread::yield_now();
            }
        }
        assert!(pendings > 0);
        assert_eq!(
            fs::metadata(root.join("f")).unwrap().len(),
            64 * WRITE_BATCH as u64
        );
        let _ = fs::remove_dir_all(&root);
    }
}
