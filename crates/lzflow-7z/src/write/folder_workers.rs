//! Independent folders compressed in parallel, written in order.
//!
//! The writer's thread reads the entries and hands each folder's input to
//! a worker thread running the folder's [`FolderEncoder`]; the workers'
//! packed output comes back in pieces, and the writer's thread writes the
//! oldest folder's pieces to the sink (and records the folder once it is
//! done), so folders land in the archive in the order they were opened.
//!
//! A folder runs in parallel with the next one only while its input is
//! queued: the writer's thread reads entries one after the other, so it
//! reads ahead up to a bound (the dictionary size, at least 4 MiB) and
//! moves on to the next folder while the worker compresses the queue.
//! Folders within the bound are compressed wholly in parallel; larger ones
//! overlap by that much.
//!
//! Memory is bounded: at most one folder per worker is in flight, each
//! with at most the input bound queued and [`OUTPUT_CAP`] bytes of output
//! waiting (a worker whose folder is not the oldest waits when it gets
//! there), besides the engines themselves.
//!
//! Every wait of the writer's thread also writes out the oldest folder's
//! output, so it never waits on a worker that waits on it. Dropping the
//! [`Workers`] cancels every folder still in flight; the threads then end.

use std::collections::VecDeque;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};

use lzflow_core::{Lease, Pool};

use crate::secret_buf::SecretBuf;
use crate::write::folder_encoder::{FolderEncoder, PackedOut};
use crate::SevenZError;

/// The least input queued for one folder.
pub(crate) const MIN_INPUT_CAP: usize = 4 << 20;
/// Packed bytes a folder may have waiting to be written before its worker
/// waits: room for a later folder to run ahead of the oldest one.
pub(crate) const OUTPUT_CAP: usize = 8 << 20;
/// Packed bytes a worker gathers before handing them over.
const OUTPUT_PIECE: usize = 64 << 10;

const CANCELLED: SevenZError = SevenZError::WriterUnusable("the writer was dropped");

/// The worker threads and the folders in flight; `M` is what the writer
/// keeps about a folder until it is recorded.
pub(crate) struct Workers<M> {
    hub: Arc<Hub<M>>,
    /// Folders in flight at most: one per thread.
    threads: usize,
    /// Input bytes queued for one folder at most.
    input_cap: usize,
    spawned: usize,
}

struct Hub<M> {
    state: Mutex<HubState<M>>,
    /// Signalled on every change of the state.
    changed: Condvar,
}

struct HubState<M> {
    /// Folders in flight, oldest first; the oldest has number `head`.
    jobs: VecDeque<Job<M>>,
    head: u64,
    cancel: bool,
}

/// One folder in flight.
struct Job<M> {
    /// The encoder, until a worker takes it.
    waiting: Option<Box<FolderEncoder>>,
    input: VecDeque<SecretBuf>,
    input_len: usize,
    /// Entry starts (folder offset, size if known) for the encoder, sent
    /// ahead of the entries' data.
    marks: Vec<(u64, Option<u64>)>,
    /// All input is queued; set with the writer's record of the folder.
    closed: Option<M>,
    output: Vec<Lease<u8>>,
    output_len: usize,
    /// The worker's result: the encoder back (its stream ended) or why not.
    done: Option<Result<Box<FolderEncoder>, SevenZError>>,
}

impl<M> HubState<M> {
    fn job(&mut self, id: u64) -> Option<&mut Job<M>> {
        let at = id.checked_sub(self.head)?;
        self.jobs.get_mut(usize::try_from(at).ok()?)
    }
}

impl<M> Hub<M> {
    fn lock(&self) -> MutexGuard<'_, HubState<M>> {
        // A worker that panics does so outside the lock (its panic is
        // caught around the encoder), so poisoning carries no meaning.
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn wait<'a>(&self, g: MutexGuard<'a, HubState<M>>) -> MutexGuard<'a, HubState<M>> {
        self.changed.wait(g).unwrap_or_else(|e| e.into_inner())
    }
}

impl<M: Send + 'static> Workers<M> {
    /// Workers for up to `threads` folders at a time (spawned as needed),
    /// each with up to `input_cap` bytes of input queued (at least
    /// [`MIN_INPUT_CAP`]).
    pub(crate) fn new(threads: usize, input_cap: usize) -> Self {
        Workers {
            hub: Arc::new(Hub {
                state: Mutex::new(HubState {
                    jobs: VecDeque::new(),
                    head: 0,
                    cancel: false,
                }),
                changed: Condvar::new(),
            }),
            threads: threads.max(1),
            input_cap: input_cap.max(MIN_INPUT_CAP),
            spawned: 0,
        }
    }

    /// Waits until a worker is free for another folder, writing out and
    /// recording finished folders meanwhile.
    pub(crate) fn room(
        &mut self,
        out: &mut impl PackedOut,
        record: impl FnMut(M, Box<FolderEncoder>) -> Result<(), SevenZError>,
    ) -> Result<(), SevenZError> {
        let threads = self.threads;
        self.wait_until(out, record, |s| s.jobs.len() < threads)?;
        if self.spawned < self.threads {
            let hub = Arc::clone(&self.hub);
            std::thread::Builder::new()
                .name("lzflow-7z-folder".into())
                .spawn(move || work(&hub))
                .map_err(|_| SevenZError::WriterUnusable("cannot start a compressing thread"))?;
            self.spawned += 1;
        }
        Ok(())
    }

    /// Hands `enc` (its engine made) to a worker, after [`room`](Self::room);
    /// gives the folder's number.
    pub(crate) fn start(&mut self, enc: Box<FolderEncoder>) -> u64 {
        let mut s = self.hub.lock();
        let id = s.head + s.jobs.len() as u64;
        s.jobs.push_back(Job {
            waiting: Some(enc),
            input: VecDeque::new(),
            input_len: 0,
            marks: Vec::new(),
            closed: None,
            output: Vec::new(),
            output_len: 0,
            done: None,
        });
        drop(s);
        self.hub.changed.notify_all();
        id
    }

    /// Queues a copy of `data` as input of folder `id`, waiting for room.
    pub(crate) fn send(
        &mut self,
        id: u64,
        data: &[u8],
        out: &mut impl PackedOut,
        record: impl FnMut(M, Box<FolderEncoder>) -> Result<(), SevenZError>,
    ) -> Result<(), SevenZError> {
        let mut piece = SecretBuf::with_capacity(data.len());
        piece.extend_from_slice(data);
        let mut piece = Some(piece);
        let mut failed = None;
        let cap = self.input_cap;
        self.wait_until(out, record, |s| {
            let Some(job) = s.job(id) else {
                failed = Some(SevenZError::WriterUnusable("folder already recorded"));
                return true;
            };
            if let Some(Err(e)) = &mut job.done {
                // The folder failed: its error, once.
                failed = Some(std::mem::replace(e, CANCELLED));
                return true;
            }
            if job.input.is_empty() || job.input_len + data.len() <= cap {
                job.input_len += data.len();
                job.input.extend(piece.take());
                return true;
            }
            false
        })?;
        self.hub.changed.notify_all();
        failed.map_or(Ok(()), Err)
    }

    /// Tells folder `id`'s encoder that an entry of `size` bytes (if
    /// known) starts at folder offset `at`; sent before the entry's data.
    pub(crate) fn mark_file(&mut self, id: u64, at: u64, size: Option<u64>) {
        if let Some(job) = self.hub.lock().job(id) {
            job.marks.push((at, size));
        }
    }

    /// Marks folder `id`'s input complete; `meta` comes back with the
    /// encoder once the folder is written out.
    pub(crate) fn close(&mut self, id: u64, meta: M) {
        if let Some(job) = self.hub.lock().job(id) {
            job.closed = Some(meta);
        }
        self.hub.changed.notify_all();
    }

    /// Writes out and records every folder in flight.
    pub(crate) fn drain(
        &mut self,
        out: &mut impl PackedOut,
        record: impl FnMut(M, Box<FolderEncoder>) -> Result<(), SevenZError>,
    ) -> Result<(), SevenZError> {
        self.wait_until(out, record, |s| s.jobs.is_empty())
    }

    /// Writes out the oldest folder's output (and records it when done)
    /// until `ready` holds; waits for the workers when there is nothing to
    /// write. Output is queued in `out` before it is written, so an I/O
    /// error loses none of it and a later call goes on.
    fn wait_until(
        &mut self,
        out: &mut impl PackedOut,
        mut record: impl FnMut(M, Box<FolderEncoder>) -> Result<(), SevenZError>,
        mut ready: impl FnMut(&mut HubState<M>) -> bool,
    ) -> Result<(), SevenZError> {
        loop {
            let mut s = self.hub.lock();
            let (pieces, finished) = loop {
                let Some(head) = s.jobs.front_mut() else {
                    if ready(&mut s) {
                        return Ok(());
                    }
                    s = self.hub.wait(s);
                    continue;
                };
                let pieces = std::mem::take(&mut head.output);
                head.output_len = 0;
                // Done: its stream ended (all input was queued) or it failed.
                let finished = if head.done.is_some() {
                    s.head += 1;
                    s.jobs.pop_front()
                } else {
                    None
                };
                if !pieces.is_empty() || finished.is_some() {
                    break (pieces, finished);
                }
                if ready(&mut s) {
                    return Ok(());
                }
                s = self.hub.wait(s);
            };
            drop(s);
            self.hub.changed.notify_all();
            for p in &pieces {
                out.queue(p);
            }
            drop(pieces);
            if let Some(job) = finished {
                let enc = job.done.expect("finished jobs are done")?;
                // A stream ends only after its input was closed.
                let meta = job.closed.ok_or(CANCELLED)?;
                record(meta, enc)?;
                out.write_pending()?;
            } else {
                out.write_if_full()?;
            }
        }
    }
}

impl<M> Drop for Workers<M> {
    fn drop(&mut self) {
        self.hub.lock().cancel = true;
        self.hub.changed.notify_all();
    }
}

/// A worker: runs folders' encoders until the workers are dropped.
fn work<M>(hub: &Hub<M>) {
    loop {
        let (id, mut enc) = {
            let mut s = hub.lock();
            loop {
                if s.cancel {
                    return;
                }
                let head = s.head;
                let found = s
                    .jobs
                    .iter_mut()
                    .enumerate()
                    .find_map(|(i, j)| j.waiting.take().map(|e| (head + i as u64, e)));
                if let Some(f) = found {
                    break f;
                }
                s = hub.wait(s);
            }
        };
        let result = catch_unwind(AssertUnwindSafe(|| run(hub, id, &mut enc))).unwrap_or(Err(
            SevenZError::WriterUnusable("a compressing thread panicked"),
        ));
        if let Some(job) = hub.lock().job(id) {
            job.done = Some(result.map(|()| enc));
        }
        hub.changed.notify_all();
    }
}

/// Compresses folder `id`'s input as it arrives, to its end.
fn run<M>(hub: &Hub<M>, id: u64, enc: &mut FolderEncoder) -> Result<(), SevenZError> {
    let mut out = JobOut {
        hub,
        id,
        buf: Pool::<u8>::global().lease(OUTPUT_PIECE * 2),
    };
    enc.encode_held(&mut out)?;
    loop {
        let piece = {
            let mut s = hub.lock();
            loop {
                if s.cancel {
                    return Err(CANCELLED);
                }
                let job = s.job(id).ok_or(CANCELLED)?;
                for (at, size) in job.marks.drain(..) {
                    enc.mark_file(at, size);
                }
                if let Some(p) = job.input.pop_front() {
                    job.input_len -= p.len();
                    break Some(p);
                }
                if job.closed.is_some() {
                    break None;
                }
                s = hub.wait(s);
            }
        };
        hub.changed.notify_all();
        match piece {
            Some(p) => enc.encode(&p, &mut 0, &mut out)?,
            None => return enc.finish(&mut out),
        }
    }
}

/// A worker's output: gathered, then handed to the writer's thread.
struct JobOut<'a, M> {
    hub: &'a Hub<M>,
    id: u64,
    buf: Lease<u8>,
}

impl<M> JobOut<'_, M> {
    /// Hands the gathered bytes over, waiting while the folder has
    /// [`OUTPUT_CAP`] bytes not yet written.
    fn hand_over(&mut self) -> Result<(), SevenZError> {
        if self.buf.is_empty() {
            return Ok(());
        }
        let mut s = self.hub.lock();
        loop {
            if s.cancel {
                return Err(CANCELLED);
            }
            let job = s.job(self.id).ok_or(CANCELLED)?;
            if job.output_len < OUTPUT_CAP {
                let full =
                    std::mem::replace(&mut self.buf, Pool::<u8>::global().lease(OUTPUT_PIECE * 2));
                job.output_len += full.len();
                job.output.push(full);
                break;
            }
            s = self.hub.wait(s);
        }
        drop(s);
        self.hub.changed.notify_all();
        Ok(())
    }
}

impl<M> PackedOut for JobOut<'_, M> {
    fn queue(&mut self, data: &[u8]) {
        self.buf.extend_from_slice(data);
    }

    fn write_if_full(&mut self) -> Result<(), SevenZError> {
        if self.buf.len() >= OUTPUT_PIECE {
            self.hand_over()?;
        }
        Ok(())
    }

    fn write_pending(&mut self) -> Result<(), SevenZError> {
        self.hand_over()
    }
}
