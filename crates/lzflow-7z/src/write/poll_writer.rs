//! The poll-style 7z writer over any [`PollSink`], behind every async
//! face: the one writer state machine ([`Writer`]) compresses into an
//! [`OutputSpool`] that is drained to the sink after every piece, and the
//! start header patch is replayed with seeks at the end. A face only says
//! how to poll its sink and a file's source ([`PollRead`]).

use std::future::poll_fn;
use std::io::{self, SeekFrom};
use std::task::{ready, Context, Poll};

use lzflow_core::source::{PollRead, PollSink};

use crate::write::entry_name::check_entry_name;
use crate::write::output_spool::OutputSpool;
use crate::write::writer::Writer;
use crate::write::writer_options::{EntryMeta, WriterOptions};
use crate::write::writer_thread::{Command, WriterThread};
use crate::SevenZError;

/// Input compressed per step in the caller's polls (as the XZ faces'
/// encoding step): small enough that one step stays well under a
/// millisecond at any level.
const ENCODE_STEP: usize = 512;

/// Bytes read from a source at a time (enough for automatic BCJ to see
/// an executable header).
const PIECE: usize = 64 << 10;

/// Where the writer core runs.
#[derive(Debug)]
enum Core {
    /// In the caller's polls: one compressing thread never waits.
    Inline(Box<Writer<OutputSpool>>),
    /// On a thread of its own, when compressing threads would make the
    /// core's calls wait for them.
    Thread(WriterThread),
}

const FINISHED: SevenZError = SevenZError::WriterUnusable("the archive is finished");

/// The poll-style writer over any [`PollSink`]: the one writer state
/// machine ([`Writer`]) compresses into memory that is drained to the sink
/// after every piece. With more than one compressing thread the state
/// machine runs on a thread of its own instead (its calls wait for the
/// workers, which a poll must not), and its output is drained while the
/// caller waits for room to queue the next piece.
///
/// Every byte handed to the sink is accounted for before the next await,
/// so a dropped [`finish`](Self::finish) future can be called again.
#[derive(Debug)]
pub struct PollWriter<S> {
    core: Core,
    sink: Option<S>,
    /// Sink position where the archive starts.
    base: u64,
    /// The spool given back by the core's `finish`.
    finished: Option<OutputSpool>,
    next_patch: usize,
    /// Bytes of patch `next_patch` already written: a retried `finish`
    /// goes on from there, so repeated cancellation still makes progress.
    patch_written: usize,
    /// An `add_file` future was dropped mid-file.
    in_file: bool,
    piece: Vec<u8>,
    /// `Finish` is queued on the writer thread.
    finish_sent: bool,
    /// The file being written, its data gathered in `piece`.
    push: Option<Push>,
    /// A command for the writer thread that waits for queue room.
    outgoing: Option<Command>,
}

/// The open file's place in its piece: `piece[..filled]` gathered,
/// `piece[..done]` of that compressed (or queued).
#[derive(Debug)]
struct Push {
    filled: usize,
    done: usize,
    /// No data compressed yet: the first piece goes whole (it decides
    /// automatic BCJ).
    first: bool,
}

impl<S: PollSink> PollWriter<S> {
    /// A writer whose archive starts at the sink's current position.
    pub async fn new(mut sink: S, opts: WriterOptions) -> Result<Self, SevenZError> {
        let base = poll_fn(|cx| sink.poll_seek(cx, SeekFrom::Current(0))).await?;
        // Compressing threads make the core's calls wait for them: that
        // happens on a thread of its own, never in a poll.
        let core = if opts.threads == 1 {
            Core::Inline(Box::new(Writer::with_options(
                OutputSpool::default(),
                opts,
            )?))
        } else {
            Core::Thread(WriterThread::start(opts)?)
        };
        let mut w = PollWriter {
            core,
            sink: Some(sink),
            base,
            finished: None,
            next_patch: 0,
            patch_written: 0,
            in_file: false,
            piece: vec![0; PIECE],
            finish_sent: false,
            push: None,
            outgoing: None,
        };
        w.drain().await?;
        Ok(w)
    }

    /// Writes what the core has spooled (on a writer thread, that happens
    /// while commands are queued). Each byte the sink takes leaves the
    /// spool at once, so a dropped future loses nothing.
    fn poll_drain(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), SevenZError>> {
        let sink = self.sink.as_mut().ok_or(FINISHED)?;
        let spool = match (self.finished.as_mut(), &mut self.core) {
            (Some(s), _) => s,
            (None, Core::Inline(w)) => w.get_mut().ok_or(FINISHED)?,
            (None, Core::Thread(_)) => return Poll::Ready(Ok(())),
        };
        while spool.pending() > 0 {
            let n = ready!(sink.poll_write(cx, spool.front()))?;
            if n == 0 {
                return Poll::Ready(Err(io::Error::from(io::ErrorKind::WriteZero).into()));
            }
            spool.consume(n);
        }
        Poll::Ready(Ok(()))
    }

    async fn drain(&mut self) -> Result<(), SevenZError> {
        poll_fn(|cx| self.poll_drain(cx)).await
    }

    /// Queues `command` on the writer thread, waiting for room.
    async fn send(&mut self, command: Command) -> Result<(), SevenZError> {
        let sink = self.sink.as_mut().ok_or(FINISHED)?;
        let Core::Thread(t) = &mut self.core else {
            return Err(SevenZError::WriterUnusable("no writer thread"));
        };
        let mut command = Some(command);
        poll_fn(|cx| t.poll_send(cx, sink, &mut command)).await
    }

    fn check_not_interrupted(&self) -> Result<(), SevenZError> {
        if self.in_file {
            return Err(SevenZError::WriterUnusable(
                "an add_file() future was dropped in the middle of a file",
            ));
        }
        Ok(())
    }

    /// Compresses the gathered piece in the caller's polls: the first
    /// piece of a file whole (it decides automatic BCJ), later ones in
    /// [`ENCODE_STEP`]s, asking the face before each. With a writer
    /// thread the piece is queued instead. Resumable: where it stopped is
    /// in `push`.
    fn poll_compress(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), SevenZError>> {
        let Some(p) = self.push.as_mut() else {
            return Poll::Ready(Ok(()));
        };
        let sink = self.sink.as_mut().ok_or(FINISHED)?;
        match &mut self.core {
            Core::Inline(w) => {
                let step = if p.first { p.filled } else { ENCODE_STEP };
                while p.done < p.filled {
                    ready!(sink.poll_proceed(cx));
                    let end = p.filled.min(p.done + step);
                    w.write_data(&self.piece[p.done..end])?;
                    sink.step_done();
                    p.done = end;
                }
            }
            Core::Thread(t) => {
                if p.done < p.filled {
                    // Here a piece is only copied: one operation's charge,
                    // not the time spent waiting for queue room.
                    ready!(sink.poll_proceed(cx));
                    sink.step_done();
                    self.outgoing = Some(Command::Data(self.piece[..p.filled].to_vec()));
                    p.done = p.filled;
                }
                ready!(t.poll_send(cx, sink, &mut self.outgoing))?;
            }
        }
        if p.filled > 0 {
            p.first = false;
        }
        p.filled = 0;
        p.done = 0;
        self.poll_drain(cx)
    }

    /// Starts a file entry whose data is then pushed with
    /// [`poll_write_data`](Self::poll_write_data) and ended by
    /// [`end_file`](Self::end_file) (or the next entry, or `finish`). The
    /// data is gathered and compressed in the same pieces as
    /// [`add_file`](Self::add_file) reads, so the archive has the same
    /// bytes whatever the sizes of the writes.
    pub async fn begin_file(&mut self, name: &str, meta: EntryMeta) -> Result<(), SevenZError> {
        self.check_not_interrupted()?;
        self.end_file().await?;
        match &mut self.core {
            Core::Inline(w) => w.begin_file(name, meta)?,
            Core::Thread(_) => {
                check_entry_name(name)?;
                self.send(Command::Begin(name.to_owned(), meta)).await?;
            }
        }
        self.push = Some(Push {
            filled: 0,
            done: 0,
            first: true,
        });
        Ok(())
    }

    /// Takes some of `buf` as data of the file begun by
    /// [`begin_file`](Self::begin_file): `Ready(Ok(n))` once `n > 0` bytes
    /// are the writer's (a dropped future loses none of them), `Pending`
    /// while earlier data waits for the sink or, with threads, for room in
    /// the queue.
    pub fn poll_write_data(
        &mut self,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<Result<usize, SevenZError>> {
        self.check_not_interrupted()?;
        if self.push.is_none() {
            return Poll::Ready(Err(SevenZError::WriterUnusable(
                "data written with no file begun (call begin_file first)",
            )));
        }
        if buf.is_empty() {
            return Poll::Ready(Ok(0));
        }
        loop {
            ready!(self.poll_drain(cx))?;
            let p = self.push.as_mut().expect("checked above");
            if p.filled == self.piece.len() {
                ready!(self.poll_compress(cx))?;
                continue;
            }
            let n = buf.len().min(self.piece.len() - p.filled);
            self.piece[p.filled..p.filled + n].copy_from_slice(&buf[..n]);
            p.filled += n;
            return Poll::Ready(Ok(n));
        }
    }

    /// Ends the file begun by [`begin_file`](Self::begin_file) (nothing to
    /// do without one): its last piece is compressed and everything the
    /// core wrote is handed to the sink. Resumable after `Pending` or an
    /// error of the sink.
    pub fn poll_end_file(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), SevenZError>> {
        if self.push.is_some() {
            ready!(self.poll_compress(cx))?;
            match &mut self.core {
                Core::Inline(w) => w.end_file()?,
                Core::Thread(_) => self.outgoing = Some(Command::End),
            }
            self.push = None;
        }
        if self.outgoing.is_some() {
            let sink = self.sink.as_mut().ok_or(FINISHED)?;
            if let Core::Thread(t) = &mut self.core {
                ready!(t.poll_send(cx, sink, &mut self.outgoing))?;
            }
        }
        self.poll_drain(cx)
    }

    /// Hands what the core has written so far to the sink and flushes it
    /// (data gathered but not yet compressed stays: compressing it early
    /// would change the archive's bytes).
    pub fn poll_flush(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), SevenZError>> {
        ready!(self.poll_drain(cx))?;
        let sink = self.sink.as_mut().ok_or(FINISHED)?;
        ready!(sink.poll_flush(cx))?;
        Poll::Ready(Ok(()))
    }

    /// Ends the file begun by [`begin_file`](Self::begin_file) and flushes
    /// the sink: what a face's `AsyncWrite` shutdown does (the archive
    /// goes on; `finish` ends it).
    pub fn poll_shutdown(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), SevenZError>> {
        ready!(self.poll_end_file(cx))?;
        self.poll_flush(cx)
    }

    /// [`poll_end_file`](Self::poll_end_file) as a future.
    pub async fn end_file(&mut self) -> Result<(), SevenZError> {
        poll_fn(|cx| self.poll_end_file(cx)).await
    }

    /// Adds a file whose data is read from `reader` to its end.
    pub async fn add_file<R: PollRead>(
        &mut self,
        name: &str,
        reader: &mut R,
        meta: EntryMeta,
    ) -> Result<(), SevenZError> {
        self.begin_file(name, meta).await?;
        self.in_file = true;
        loop {
            let p = self.push.as_mut().expect("begun above");
            while p.filled < self.piece.len() {
                let piece = &mut self.piece[p.filled..];
                match poll_fn(|cx| reader.poll_read(cx, piece)).await {
                    Ok(0) => break,
                    Ok(n) => p.filled += n,
                    Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                    Err(e) => {
                        match &mut self.core {
                            Core::Inline(w) => w.cancel_file(),
                            Core::Thread(t) => t.push(Command::Cancel),
                        }
                        self.push = None;
                        self.in_file = false;
                        return Err(e.into());
                    }
                }
            }
            if p.filled == 0 {
                break;
            }
            poll_fn(|cx| self.poll_compress(cx)).await?;
        }
        self.in_file = false;
        self.end_file().await
    }

    /// Adds a directory entry.
    pub async fn add_dir(&mut self, name: &str, meta: EntryMeta) -> Result<(), SevenZError> {
        self.check_not_interrupted()?;
        self.end_file().await?;
        match &mut self.core {
            Core::Inline(w) => w.add_dir(name, meta),
            Core::Thread(_) => {
                check_entry_name(name)?;
                self.send(Command::Dir(name.to_owned(), meta)).await
            }
        }
    }

    /// Adds an empty file.
    pub async fn add_empty_file(&mut self, name: &str, meta: EntryMeta) -> Result<(), SevenZError> {
        self.check_not_interrupted()?;
        self.end_file().await?;
        match &mut self.core {
            Core::Inline(w) => w.add_empty_file(name, meta),
            Core::Thread(_) => {
                check_entry_name(name)?;
                self.send(Command::Empty(name.to_owned(), meta)).await
            }
        }
    }

    /// Ends the archive and gives back the sink, flushed and positioned at
    /// the end of the archive; resumable after an error or a dropped future.
    pub async fn finish(&mut self) -> Result<S, SevenZError> {
        self.check_not_interrupted()?;
        if self.finished.is_none() {
            self.end_file().await?;
            let spool = match &mut self.core {
                // The core writes into memory: it cannot fail on I/O.
                Core::Inline(w) => w.finish()?,
                Core::Thread(_) => {
                    if !self.finish_sent {
                        self.send(Command::Finish).await?;
                        self.finish_sent = true;
                    }
                    let sink = self.sink.as_mut().ok_or(FINISHED)?;
                    let Core::Thread(t) = &mut self.core else {
                        return Err(FINISHED);
                    };
                    poll_fn(|cx| t.poll_finished(cx, sink)).await?
                }
            };
            self.finished = Some(spool);
        }
        self.drain().await?;
        let base = self.base;
        while let Some((at, bytes)) = self
            .finished
            .as_ref()
            .and_then(|s| s.patch(self.next_patch).cloned())
        {
            let sink = self.sink.as_mut().ok_or(FINISHED)?;
            let done = self.patch_written;
            poll_fn(|cx| sink.poll_seek(cx, SeekFrom::Start(base + at + done as u64))).await?;
            let mut rest = &bytes[done..];
            while !rest.is_empty() {
                let n = poll_fn(|cx| sink.poll_write(cx, rest)).await?;
                if n == 0 {
                    return Err(io::Error::from(io::ErrorKind::WriteZero).into());
                }
                rest = &rest[n..];
                self.patch_written += n;
            }
            self.next_patch += 1;
            self.patch_written = 0;
        }
        let end = base + self.finished.as_ref().map_or(0, |s| s.drained());
        let sink = self.sink.as_mut().ok_or(FINISHED)?;
        poll_fn(|cx| sink.poll_seek(cx, SeekFrom::Start(end))).await?;
        poll_fn(|cx| sink.poll_flush(cx)).await?;
        self.sink.take().ok_or(FINISHED)
    }
}
