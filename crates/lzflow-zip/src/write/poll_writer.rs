//! The one zip writing core, in poll style, over any
//! [`PollWrite`](lzflow_core::source::PollWrite): entries pushed by the
//! caller, compressed (and encrypted) into an output buffer that is
//! drained into the sink, then the central directory and end records.
//! The std face ([`ZipWriter`](crate::ZipWriter)) drives it over a
//! [`StdSink`](lzflow_core::source::StdSink); the facade's tokio and
//! futures-io faces over their runtime's adapter.
//!
//! # How an entry is laid out
//! * Up to [`HOLD`] bytes (or [`STORE_CHECK_LIMIT`] with
//!   `store_if_larger`) are held in memory: an entry that ends within
//!   them is compressed whole and written with its CRC-32 and sizes in its
//!   local header, whatever the sink.
//! * A longer entry is streamed (with `store_if_larger`, Stored when its
//!   first 64 KiB do not shrink). In a sink that can seek, its local header
//!   is rewritten with the CRC-32 and sizes after the data (no data
//!   descriptor); in one that cannot, flag bit 3 is set and a data
//!   descriptor follows the data, with 8-byte sizes when they need them.
//!   ZipCrypto entries always take the descriptor form (their check byte
//!   is the time's, as Info-ZIP writes them).
//! * Sizes and offsets that do not fit 32 bits get Zip64 fields in the
//!   central directory, and the archive Zip64 end records, decided from
//!   the values themselves; a streamed entry in a seekable sink that
//!   outgrows 32 bits turns into the descriptor form.
//!
//! # On several threads
//! With [`ZipWriterOptions::with_threads`] above 1, an entry is collected
//! in memory up to [`job_limit`](ZipWriterOptions::job_limit) bytes and
//! compressed whole on a worker thread while the caller goes on with the
//! next entries; finished entries are written in the order they were
//! added, laid out exactly as one thread lays them out (held or streamed
//! by the same sizes), so the archive's bytes do not depend on the number
//! of threads. Entries in flight are bounded by the memory budget; an
//! entry longer than the job limit waits for those before it and is then
//! streamed on the calling thread. Blocking (the std face) the caller
//! compresses queued entries itself while it waits; non-blocking (the
//! async faces, [`set_blocking(false)`](PollZipWriter::set_blocking), the
//! default) polls never compress an entry whole nor wait: they return
//! `Pending` and are woken when a worker finishes.
//!
//! A failed write leaves the writer failed: no central directory is ever
//! written after an error, so no reader takes the archive for complete.
//! [`poll_finish`](PollZipWriter::poll_finish) can be called again after a
//! `Pending` (or a dropped future) and goes on where it stopped.

use std::collections::{HashSet, VecDeque};
use std::hash::{BuildHasher, RandomState};
use std::io::{self, SeekFrom};
use std::task::{ready, Context, Poll};

use lzflow_core::parallel::{OrderedPool, PieceWorker, WorkerDied};
use lzflow_core::source::PollWrite;
use lzflow_core::{Pool, Recycled, Recycler};

use crate::read::dos_time::DosDateTime;
use crate::write::central_directory::CentralRecord;
use crate::write::entry_encoder::{Crypt, EntryEncoder};
use crate::write::entry_options::{Encryption, EntryOptions, WriteMethod};
use crate::write::local_file_header::LocalFields;
use crate::write::writer_options::ZipWriterOptions;
use crate::write::zip_crypto::ZipCryptoEncoder;
use crate::write::{end_of_central_directory, extra_field, method};
use crate::{DataDescriptor, LocalFileHeader, ZipError};

/// Entries up to this size are compressed in memory first and written
/// with their sizes in the local header.
pub const HOLD: usize = 64 << 10;
/// How much of an entry `store_if_larger` holds to compare.
pub const STORE_CHECK_LIMIT: usize = 1 << 20;
/// The first bytes of a longer entry `store_if_larger` compresses on their
/// own to decide: data that does not shrink there (a photo, a video, an
/// archive) is stored. Small, so that the trial costs little even for
/// LZMA at level 9.
const STORE_SAMPLE: usize = 64 << 10;
/// Output held before it is written to the sink.
const FLUSH_AT: usize = 64 << 10;
/// Input compressed per call: bounded work per poll.
const INPUT_STEP: usize = 64 << 10;
/// Entries up to this size are compressed on the calling thread even when
/// there are workers: handing them over would cost more.
const INLINE: usize = 4 << 10;
/// What an entry in flight counts against the memory budget beyond its
/// data and its compressed form (each at most about the data's size).
const JOB_OVERHEAD: usize = 1 << 10;

const FLAG_ENCRYPTED: u16 = 1;
const FLAG_LZMA_EOS: u16 = 1 << 1;
const FLAG_DATA_DESCRIPTOR: u16 = 1 << 3;
const FLAG_UTF8: u16 = 1 << 11;
const METHOD_AES: u16 = 99;
const S_IFREG: u32 = 0o100_000;
const S_IFDIR: u32 = 0o040_000;
const S_IFLNK: u32 = 0o120_000;
const DOS_DIRECTORY: u32 = 0x10;

/// What an entry is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EntryKind {
    /// A regular file: its data follows.
    File,
    /// A directory (the name gets a trailing `/`); no data.
    Directory,
    /// A symbolic link: its data is the target, stored as Info-ZIP does
    /// (Stored, Unix mode `S_IFLNK`).
    Symlink,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    Open,
    /// Writing the central directory: the next record, and where the
    /// directory starts. A buffer's worth at a time, so that the output
    /// buffer stays small whatever the number of entries.
    Central {
        next: usize,
        start: u64,
    },
    /// The end records in the output buffer; draining.
    Closing,
    Flushing,
    Done,
    Failed,
}

/// Steps of closing a streamed entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Close {
    Finish,
    Drain,
    SeekHeader,
    WriteHeader(usize),
    SeekEnd,
    Done,
}

/// The entry being written.
struct Entry {
    record: CentralRecord,
    options: EntryOptions,
    crc: crc32fast::Hasher,
    size: u64,
    held: Vec<u8>,
    hold: usize,
    /// Collected in memory up to this many bytes before streaming: `hold`
    /// on one thread, the job limit with workers.
    collect: usize,
    /// Of `held`, what the streaming encoder has taken.
    held_pos: usize,
    /// Streaming (its local header written) once set.
    enc: Option<EntryEncoder>,
    /// Offset of the data in the archive.
    data_start: u64,
    descriptor: bool,
    /// A Stored entry whose size and CRC-32 were given ahead and written
    /// in its local header.
    given: bool,
    close: Close,
    /// The local header to write over the first one (seekable sinks).
    patch: [u8; LocalFileHeader::LEN],
    /// Where the data ended.
    end: u64,
}

/// A zip writer over any [`PollWrite`]: the core every face drives.
pub struct PollZipWriter<S> {
    sink: S,
    comment: Vec<u8>,
    b: Recycled<Box<Buffers>>,
    out_pos: usize,
    /// Bytes handed to the sink.
    written: u64,
    entry: Option<Box<Entry>>,
    state: State,
    blocking: bool,
    /// Compressing threads when there is more than one.
    workers: Option<OrderedPool<Packer>>,
    /// Entries compressed (or being compressed) whole, to be written in
    /// this order.
    pending: VecDeque<Pending>,
    /// What the pending entries count against `budget`.
    in_flight: usize,
    budget: usize,
    job_limit: usize,
}

/// An entry compressed whole: the entry (its record filled in but for its
/// offset) and its local header, data and descriptor.
type Packed = Result<(Box<Entry>, Vec<u8>), ZipError>;

/// Compresses entries collected whole, on the workers.
struct Packer;

impl PieceWorker for Packer {
    type Config = ();
    /// The entry, and whether the sink can seek.
    type Input = (Box<Entry>, bool);
    type Output = Packed;

    fn run(_: &mut Option<Self>, _: &(), (entry, can_seek): (Box<Entry>, bool)) -> Packed {
        pack(entry, can_seek)
    }
}

/// An entry handed to the workers, or compressed already. The workers'
/// entries come back in the order they were handed over, which is this
/// queue's order.
struct Pending {
    /// Compressed here (`None` while the workers have it).
    done: Option<Packed>,
    weight: usize,
    /// Its name, to tell a duplicate from a hash collision.
    name: Vec<u8>,
}

/// What a writer allocates as it goes and the next writer reuses, so that
/// a process writing archive after archive allocates little more than
/// each entry's name and extra field.
struct Buffers {
    /// Output not handed to the sink yet.
    out: Vec<u8>,
    records: Vec<CentralRecord>,
    /// Hashes of the names in the archive (see `begin_entry`).
    names: HashSet<u64>,
    hasher: RandomState,
    /// A spare buffer for an entry's data, and a spare entry.
    held: Vec<u8>,
    entry: Option<Box<Entry>>,
}

/// Buffers kept between writers beyond this capacity are let go.
const KEEP_CAPACITY: usize = 1 << 20;

impl Buffers {
    fn new() -> Box<Self> {
        Box::new(Buffers {
            out: Vec::new(),
            records: Vec::new(),
            names: HashSet::new(),
            hasher: RandomState::new(),
            held: Vec::new(),
            entry: None,
        })
    }

    fn reset(&mut self) {
        for v in [&mut self.out, &mut self.held] {
            v.clear();
            if v.capacity() > KEEP_CAPACITY {
                *v = Vec::new();
            }
        }
        self.records.clear();
        self.names.clear();
    }

    fn hash(&self, name: &[u8]) -> u64 {
        self.hasher.hash_one(name)
    }
}

/// Idle writers' buffers.
static BUFFERS: Recycler<Box<Buffers>> = Recycler::new(4);

impl<S> std::fmt::Debug for PollZipWriter<S> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PollZipWriter")
            .field("entries", &self.b.records.len())
            .field("written", &self.written)
            .field("state", &self.state)
            .finish_non_exhaustive()
    }
}

fn usage(what: impl Into<String>) -> ZipError {
    ZipError::Usage(what.into())
}

impl<S: PollWrite> PollZipWriter<S> {
    /// A writer of a new archive into `sink`, from its first byte.
    pub fn new(sink: S, options: ZipWriterOptions) -> Result<Self, ZipError> {
        if options.comment.len() > 0xFFFF {
            return Err(usage("the archive comment is longer than 65,535 bytes"));
        }
        let threads = lzflow_core::parallel::resolve_threads(options.threads);
        // Non-blocking (the async faces'); the pool starts in the same mode.
        let blocking = false;
        Ok(PollZipWriter {
            sink,
            workers: (threads > 1).then(|| {
                let mut pool = OrderedPool::new((), threads);
                pool.set_nonblocking(!blocking);
                pool
            }),
            pending: VecDeque::new(),
            in_flight: 0,
            budget: options.memory_budget,
            job_limit: options.job_limit(),
            blocking,
            comment: options.comment.into_bytes(),
            b: BUFFERS.take(Buffers::new, |b| b.reset()),
            out_pos: 0,
            written: 0,
            entry: None,
            state: State::Open,
        })
    }

    /// Blocking mode (for faces that drive the core through a no-op
    /// waker, as the std one does): with workers, a call that has to wait
    /// for one blocks, compressing queued entries meanwhile. Non-blocking
    /// (the default) it returns `Pending` and is woken when a worker
    /// finishes. Set it before the first entry.
    pub fn set_blocking(&mut self, blocking: bool) {
        self.blocking = blocking;
        if let Some(w) = &mut self.workers {
            w.set_nonblocking(!blocking);
        }
    }

    /// The sink.
    pub fn sink_mut(&mut self) -> &mut S {
        &mut self.sink
    }

    /// Gives back the sink.
    pub fn into_sink(self) -> S {
        self.sink
    }

    /// Entries written or being written.
    pub fn len(&self) -> usize {
        self.b.records.len() + self.pending.len() + usize::from(self.entry.is_some())
    }

    /// True before the first entry.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Archive bytes so far (written or buffered).
    fn offset(&self) -> u64 {
        self.written + (self.b.out.len() - self.out_pos) as u64
    }

    fn check_open(&self) -> Result<(), ZipError> {
        match self.state {
            State::Open => Ok(()),
            State::Failed => Err(usage("the writer failed earlier")),
            _ => Err(usage("the archive is finished")),
        }
    }

    /// Starts entry `name` of `kind`; the current entry must be closed
    /// ([`poll_close_entry`](Self::poll_close_entry)) first.
    pub fn begin_entry(
        &mut self,
        name: &str,
        kind: EntryKind,
        options: &EntryOptions,
    ) -> Result<(), ZipError> {
        self.check_open()?;
        if self.entry.is_some() {
            return Err(usage("the current entry is not closed"));
        }
        let mut name = name.to_string();
        if kind == EntryKind::Directory && !name.ends_with('/') {
            name.push('/');
        }
        if name.is_empty() || name.len() > 0xFFFF {
            return Err(usage("an entry name must have 1 to 65,535 bytes"));
        }
        if options.comment.len() > 0xFFFF {
            return Err(usage("an entry comment is longer than 65,535 bytes"));
        }
        // Names are kept as 64-bit hashes; a hash seen before is a
        // duplicate only if a name before is the same.
        let hash = self.b.hash(name.as_bytes());
        if !self.b.names.insert(hash) {
            let same = |n: &[u8]| n == name.as_bytes();
            if self.b.records.iter().any(|r| same(&r.name))
                || self.pending.iter().any(|p| same(&p.name))
            {
                return Err(usage(format!("{name:?} is in the archive already")));
            }
        }
        let mut options = options.clone();
        if kind != EntryKind::File {
            // Directories have no data; links are their target, stored.
            options.method = WriteMethod::Stored;
            options.store_if_larger = false;
        }
        let mode = match kind {
            EntryKind::File => S_IFREG | options.unix_mode.unwrap_or(0o644) & 0o7777,
            EntryKind::Directory => S_IFDIR | options.unix_mode.unwrap_or(0o755) & 0o7777,
            EntryKind::Symlink => S_IFLNK | 0o777,
        };
        let dos_dir = if kind == EntryKind::Directory {
            DOS_DIRECTORY
        } else {
            0
        };
        let mut flags = if name.is_ascii() { 0 } else { FLAG_UTF8 };
        if !matches!(options.encryption, Encryption::None) {
            flags |= FLAG_ENCRYPTED;
        }
        if options.method == WriteMethod::Lzma {
            flags |= FLAG_LZMA_EOS;
        }
        let extra = entry_extra(&options, options.method);
        let version_needed = version_needed(options.method, &options.encryption);
        let record_method = match options.encryption {
            Encryption::Aes { .. } => METHOD_AES,
            _ => options.method.id(),
        };
        let hold = if options.store_if_larger {
            STORE_CHECK_LIMIT
        } else {
            HOLD
        };
        let collect = if self.workers.is_some() {
            hold.max(self.job_limit)
        } else {
            hold
        };
        let dos_time = options
            .mtime
            .map_or(DosDateTime::new(0x21, 0), DosDateTime::from_system_time);
        let record = CentralRecord {
            version_needed,
            flags,
            method: record_method,
            dos_time,
            crc32: 0,
            compressed_size: 0,
            uncompressed_size: 0,
            offset: self.offset(),
            external_attributes: (mode << 16) | dos_dir,
            name: name.into_bytes(),
            extra,
            comment: options.comment.clone().into_bytes(),
        };
        let fresh = Entry {
            record,
            options,
            crc: crc32fast::Hasher::new(),
            size: 0,
            held: std::mem::take(&mut self.b.held),
            hold,
            collect,
            held_pos: 0,
            enc: None,
            data_start: 0,
            descriptor: false,
            given: false,
            close: Close::Finish,
            patch: [0; LocalFileHeader::LEN],
            end: 0,
        };
        self.entry = Some(match self.b.entry.take() {
            Some(mut spare) => {
                *spare = fresh;
                spare
            }
            None => Box::new(fresh),
        });
        Ok(())
    }

    /// Gives up the current entry (its data source failed, or the call
    /// adding it was cancelled). If none of it reached the sink (it was
    /// held in memory) it is dropped and the archive goes on without it;
    /// otherwise the writer fails, since its archive can no longer be
    /// made whole. True if the entry was dropped cleanly.
    pub fn abandon_entry(&mut self) -> bool {
        let Some(entry) = self.entry.take() else {
            return true;
        };
        if entry.enc.is_none() {
            let hash = self.b.hash(&entry.record.name);
            self.b.names.remove(&hash);
            self.retire(entry, false);
            return true;
        }
        self.state = State::Failed;
        false
    }

    /// Done with `entry`: its record kept (if `keep`), its data buffer and
    /// itself as the next entry's.
    fn retire(&mut self, mut entry: Box<Entry>, keep: bool) {
        let record = std::mem::replace(&mut entry.record, CentralRecord::empty());
        if keep {
            self.b.records.push(record);
        }
        let mut held = std::mem::take(&mut entry.held);
        held.clear();
        if held.capacity() > self.b.held.capacity() && held.capacity() <= KEEP_CAPACITY {
            self.b.held = held;
        }
        entry.enc = None;
        self.b.entry = Some(entry);
    }

    /// The current entry's data from `buf`: how much was taken.
    pub fn poll_write(&mut self, cx: &mut Context<'_>, buf: &[u8]) -> Poll<io::Result<usize>> {
        ready!(self.sink.poll_proceed(cx));
        let r = self.poll_write_step(cx, buf);
        if r.is_ready() {
            self.sink.step_done();
        }
        r.map(|r| r.map_err(|e| io::Error::from(self.fail(e))))
    }

    fn fail(&mut self, e: ZipError) -> ZipError {
        self.state = State::Failed;
        e
    }

    fn poll_write_step(
        &mut self,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<Result<usize, ZipError>> {
        self.check_open()?;
        if self.entry.is_none() {
            return Poll::Ready(Err(usage("no entry is open")));
        }
        if buf.is_empty() {
            return Poll::Ready(Ok(0));
        }
        loop {
            if self.b.out.len() - self.out_pos >= FLUSH_AT {
                ready!(self.poll_drain(cx))?;
            }
            let can_seek = self.sink.can_seek();
            let entry = self.entry.as_mut().expect("checked above");
            if entry.record.external_attributes >> 16 & 0o170_000 == S_IFDIR {
                return Poll::Ready(Err(usage("a directory entry has no data")));
            }
            if entry.enc.is_some() && entry.held_pos < entry.held.len() {
                ready!(push_held_step(entry, &mut self.b.out, self.blocking, cx))?;
                continue;
            }
            if let Some(enc) = &mut entry.enc {
                let n = buf.len().min(INPUT_STEP);
                enc.push(&buf[..n], &mut self.b.out)?;
                entry.crc.update(&buf[..n]);
                entry.size += n as u64;
                check_size_given(entry)?;
                return Poll::Ready(Ok(n));
            }
            if entry.held.len() < entry.collect {
                // Filled to exactly `collect` before streaming, whatever
                // the writes: a streamed entry starts with the same held
                // bytes on any number of threads (`store_if_larger`
                // judges it by them).
                let n = buf.len().min(entry.collect - entry.held.len());
                entry.held.extend_from_slice(&buf[..n]);
                entry.crc.update(&buf[..n]);
                entry.size += n as u64;
                check_size_given(entry)?;
                return Poll::Ready(Ok(n));
            }
            if !self.pending.is_empty() {
                // Streamed: after every entry before it.
                ready!(self.poll_emit(cx, 0))?;
                continue;
            }
            let offset = self.written + (self.b.out.len() - self.out_pos) as u64;
            start_streaming(entry, can_seek, offset, &mut self.b.out)?;
        }
    }

    /// Writes the output buffer to the sink.
    fn poll_drain(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), ZipError>> {
        while self.out_pos < self.b.out.len() {
            let n = ready!(self.sink.poll_write(cx, &self.b.out[self.out_pos..]))?;
            if n == 0 {
                return Poll::Ready(Err(io::Error::from(io::ErrorKind::WriteZero).into()));
            }
            self.out_pos += n;
            self.written += n as u64;
        }
        self.b.out.clear();
        self.out_pos = 0;
        Poll::Ready(Ok(()))
    }

    /// Ends the current entry (no-op without one): its data's end, its
    /// descriptor or its rewritten local header.
    pub fn poll_close_entry(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), ZipError>> {
        if self.entry.is_none() {
            return Poll::Ready(Ok(()));
        }
        if let Err(e) = self.check_open() {
            return Poll::Ready(Err(e));
        }
        ready!(self.sink.poll_proceed(cx));
        let r = self.poll_close_step(cx);
        if r.is_ready() {
            self.sink.step_done();
        }
        r.map_err(|e| self.fail(e))
    }

    fn poll_close_step(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), ZipError>> {
        loop {
            if self.b.out.len() - self.out_pos >= FLUSH_AT {
                ready!(self.poll_drain(cx))?;
            }
            let offset = self.offset();
            let entry = self.entry.as_mut().expect("checked by the caller");
            if entry.enc.is_none() {
                if self.workers.is_none() {
                    // Held whole: compressed now, sizes in the local header.
                    entry.record.offset = offset;
                    write_held(entry, &mut self.b.out)?;
                    let entry = self.entry.take().expect("present");
                    self.retire(entry, true);
                    return Poll::Ready(Ok(()));
                }
                return self.poll_hand_over(cx);
            }
            if entry.held_pos < entry.held.len() {
                ready!(push_held_step(entry, &mut self.b.out, self.blocking, cx))?;
                continue;
            }
            match entry.close {
                Close::Finish => {
                    let enc = entry.enc.as_mut().expect("streaming");
                    enc.finish(&mut self.b.out)?;
                    let offset = self.written + (self.b.out.len() - self.out_pos) as u64;
                    entry.close = end_streamed(entry, offset, &mut self.b.out)?;
                }
                Close::Drain => {
                    ready!(self.poll_drain(cx))?;
                    let entry = self.entry.as_mut().expect("present");
                    entry.end = self.written;
                    entry.close = Close::SeekHeader;
                }
                Close::SeekHeader => {
                    let at = entry.record.offset;
                    if ready!(self.sink.poll_seek(cx, SeekFrom::Start(at)))? != at {
                        return Poll::Ready(Err(usage("the sink did not seek where asked")));
                    }
                    let entry = self.entry.as_mut().expect("present");
                    entry.close = Close::WriteHeader(0);
                }
                Close::WriteHeader(done) => {
                    let patch = entry.patch;
                    let n = ready!(self.sink.poll_write(cx, &patch[done..]))?;
                    if n == 0 {
                        return Poll::Ready(Err(io::Error::from(io::ErrorKind::WriteZero).into()));
                    }
                    let entry = self.entry.as_mut().expect("present");
                    entry.close = if done + n == patch.len() {
                        Close::SeekEnd
                    } else {
                        Close::WriteHeader(done + n)
                    };
                }
                Close::SeekEnd => {
                    let end = entry.end;
                    if ready!(self.sink.poll_seek(cx, SeekFrom::Start(end)))? != end {
                        return Poll::Ready(Err(usage("the sink did not seek where asked")));
                    }
                    let entry = self.entry.as_mut().expect("present");
                    entry.close = Close::Done;
                }
                Close::Done => {
                    let entry = self.entry.take().expect("present");
                    self.retire(entry, true);
                    return Poll::Ready(Ok(()));
                }
            }
        }
    }

    /// Hands the current entry, collected whole, to the workers (or
    /// compresses it here if it is small), once the budget has room.
    fn poll_hand_over(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), ZipError>> {
        let held = self.entry.as_ref().map_or(0, |e| e.held.len());
        let weight = 2 * held + JOB_OVERHEAD;
        while !self.pending.is_empty() && self.in_flight + weight > self.budget {
            ready!(self.poll_emit(cx, self.pending.len() - 1))?;
        }
        let entry = self.entry.take().expect("checked by the caller");
        let can_seek = self.sink.can_seek();
        let pending = if held <= INLINE {
            Pending {
                name: entry.record.name.clone(),
                done: Some(pack(entry, can_seek)),
                weight,
            }
        } else {
            let workers = self.workers.as_mut().expect("checked by the caller");
            let name = entry.record.name.clone();
            workers.submit((entry, can_seek));
            Pending {
                name,
                done: None,
                weight,
            }
        };
        self.pending.push_back(pending);
        self.in_flight += weight;
        // Writes what is done already, without waiting.
        self.poll_emit(cx, usize::MAX)
    }

    /// Writes the pending entries that are done, in order, waiting until
    /// at most `keep` are left.
    fn poll_emit(&mut self, cx: &mut Context<'_>, keep: usize) -> Poll<Result<(), ZipError>> {
        loop {
            if self.b.out.len() - self.out_pos >= FLUSH_AT {
                ready!(self.poll_drain(cx))?;
            }
            let wait = self.pending.len() > keep;
            let Some(front) = self.pending.front_mut() else {
                return Poll::Ready(Ok(()));
            };
            let packed = match front.done.take() {
                Some(p) => p,
                None => {
                    let workers = self.workers.as_mut().expect("handed to the workers");
                    let got = if wait {
                        ready!(workers.poll_next(cx))
                    } else {
                        match workers.next(false) {
                            Some(got) => Some(got),
                            None => return Poll::Ready(Ok(())),
                        }
                    };
                    match got.expect("the front entry is in flight") {
                        Ok(p) => p,
                        Err(WorkerDied) => Err(ZipError::Io(io::Error::other(
                            "a compressing thread panicked",
                        ))),
                    }
                }
            };
            let front = self.pending.pop_front().expect("looked at above");
            self.in_flight -= front.weight;
            let (mut entry, bytes) = packed?;
            entry.record.offset = self.offset();
            self.b.out.extend_from_slice(&bytes);
            self.retire(entry, true);
        }
    }

    /// Closes the current entry, writes the central directory and the end
    /// records, and flushes the sink. Call again after `Pending` (or a
    /// dropped future): it goes on where it stopped; after the end it
    /// does nothing.
    pub fn poll_finish(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), ZipError>> {
        loop {
            match self.state {
                State::Failed => return Poll::Ready(Err(usage("the writer failed earlier"))),
                State::Done => return Poll::Ready(Ok(())),
                State::Open => {
                    ready!(self.poll_close_entry(cx))?;
                    if !self.pending.is_empty() {
                        ready!(self.sink.poll_proceed(cx));
                        let r = self.poll_emit(cx, 0);
                        if r.is_ready() {
                            self.sink.step_done();
                        }
                        ready!(r).map_err(|e| self.fail(e))?;
                    }
                    self.state = State::Central {
                        next: 0,
                        start: self.offset(),
                    };
                }
                State::Central { next, start } => {
                    if self.b.out.len() - self.out_pos >= FLUSH_AT {
                        ready!(self.poll_drain(cx)).map_err(|e| self.fail(e))?;
                    }
                    let out_pos = self.out_pos;
                    let b = &mut **self.b;
                    let mut i = next;
                    while i < b.records.len() && b.out.len() - out_pos < FLUSH_AT {
                        b.records[i].encode(&mut b.out);
                        i += 1;
                    }
                    if i < b.records.len() {
                        self.state = State::Central { next: i, start };
                        continue;
                    }
                    let size = self.offset() - start;
                    end_of_central_directory::encode(
                        self.b.records.len() as u64,
                        size,
                        start,
                        &self.comment,
                        &mut self.b.out,
                    );
                    self.state = State::Closing;
                }
                State::Closing => {
                    ready!(self.poll_drain(cx)).map_err(|e| self.fail(e))?;
                    self.state = State::Flushing;
                }
                State::Flushing => {
                    ready!(self.sink.poll_flush(cx)).map_err(|e| self.fail(e.into()))?;
                    self.state = State::Done;
                }
            }
        }
    }
}

/// The extra field of an entry written with `method`: its modification
/// time, and the WinZip AES block that names the method under the
/// encryption. Local and central headers carry the same.
fn entry_extra(options: &EntryOptions, method: WriteMethod) -> Vec<u8> {
    // One allocation of the exact size: the extended timestamp's 4 + 5
    // bytes, the AES block's 4 + 7.
    let aes = matches!(options.encryption, Encryption::Aes { .. });
    let mut extra =
        Vec::with_capacity(9 * usize::from(options.mtime.is_some()) + 11 * usize::from(aes));
    if let Some(t) = options.mtime {
        extra_field::extended_timestamp(&mut extra, t);
    }
    if let Encryption::Aes { strength, ae1, .. } = &options.encryption {
        extra_field::winzip_aes(
            &mut extra,
            if *ae1 { 1 } else { 2 },
            strength.byte(),
            method.id(),
        );
    }
    extra
}

/// "Version needed to extract" for `method` under `encryption` (APPNOTE
/// 4.4.3.2: 2.0 for ZipCrypto, 5.1 for AES).
fn version_needed(method: WriteMethod, encryption: &Encryption) -> u16 {
    let encrypted = match encryption {
        Encryption::None => 0,
        Encryption::Aes { .. } => 51,
        Encryption::ZipCryptoWeak { .. } => 20,
    };
    method.version_needed().max(encrypted)
}

/// The data must be what its size and CRC-32, given ahead, say.
fn check_given(entry: &Entry, crc: u32) -> Result<(), ZipError> {
    match entry.options.size_and_crc {
        Some((size, given)) if size != entry.size || given != crc => Err(usage(format!(
            "{:?} does not match the size and CRC-32 given ahead",
            String::from_utf8_lossy(&entry.record.name)
        ))),
        _ => Ok(()),
    }
}

/// The data may not pass the size given ahead.
fn check_size_given(entry: &Entry) -> Result<(), ZipError> {
    match entry.options.size_and_crc {
        Some((size, _)) if entry.size > size => Err(usage(format!(
            "{:?} has more data than the size given ahead",
            String::from_utf8_lossy(&entry.record.name)
        ))),
        _ => Ok(()),
    }
}

/// The encoders of `entry`: its method, then its encryption; `check` is
/// the byte ZipCrypto's header ends with.
fn encoders(
    options: &EntryOptions,
    method: WriteMethod,
    check: u8,
) -> Result<EntryEncoder, ZipError> {
    let compress = method::encoder(method.id(), options.level)?;
    let crypt = match &options.encryption {
        Encryption::None => None,
        Encryption::Aes {
            strength, password, ..
        } => Some(Crypt::Aes(crate::write::winzip_aes::WinZipAesEncoder::new(
            password, *strength,
        )?)),
        Encryption::ZipCryptoWeak { password } => {
            Some(Crypt::ZipCrypto(ZipCryptoEncoder::new(password, check)?))
        }
    };
    Ok(EntryEncoder::new(compress, crypt))
}

/// Bytes the encryption adds to an entry's data: AES's salt, password
/// verifier and authentication code; ZipCrypto's header.
fn crypt_overhead(encryption: &Encryption) -> usize {
    match encryption {
        Encryption::None => 0,
        Encryption::Aes { strength, .. } => strength.overhead() as usize,
        Encryption::ZipCryptoWeak { .. } => 12,
    }
}

/// The CRC-32 a header stores: none for AE-2.
fn stored_crc(options: &EntryOptions, crc: u32) -> u32 {
    match options.encryption {
        Encryption::Aes { ae1: false, .. } => 0,
        _ => crc,
    }
}

/// Appends the local header, name and extra field.
fn local_header(record: &CentralRecord, fields: &LocalFields, out: &mut Vec<u8>) {
    out.extend_from_slice(&fields.encode(record.name.len() as u16, record.extra.len() as u16));
    out.extend_from_slice(&record.name);
    out.extend_from_slice(&record.extra);
}

/// Compresses an entry held whole and appends it with its sizes in the
/// local header (written in front of the data once they are known).
fn write_held(entry: &mut Entry, out: &mut Vec<u8>) -> Result<(), ZipError> {
    let crc = std::mem::take(&mut entry.crc).finalize();
    check_given(entry, crc)?;
    let mut method = entry.options.method;
    if entry.size == 0 && method != WriteMethod::Stored {
        // Nothing to compress: stored, as 7-Zip and Info-ZIP write empty
        // files (7-Zip's XZ-in-zip reader refuses an empty XZ stream).
        method = WriteMethod::Stored;
        set_method(entry, method);
    }
    let check = ZipCryptoEncoder::check_from_crc(crc);
    // The header's length does not change with the method (the AES block
    // has a fixed size): its place is kept, its fields come after.
    let header_at = out.len();
    let data_at =
        header_at + LocalFileHeader::LEN + entry.record.name.len() + entry.record.extra.len();
    out.resize(data_at, 0);
    let plain = entry.held.is_empty() && matches!(entry.options.encryption, Encryption::None);
    if !plain {
        encoders(&entry.options, method, check)?.push_all(&entry.held, out)?;
    }
    if entry.options.store_if_larger && method != WriteMethod::Stored {
        // Stored, the data would take its size plus the encryption's own.
        let stored = entry.held.len() + crypt_overhead(&entry.options.encryption);
        if stored <= out.len() - data_at {
            out.truncate(data_at);
            encoders(&entry.options, WriteMethod::Stored, check)?.push_all(&entry.held, out)?;
            method = WriteMethod::Stored;
            set_method(entry, method);
        }
    }
    let packed = (out.len() - data_at) as u64;
    let r = &mut entry.record;
    r.crc32 = stored_crc(&entry.options, crc);
    r.compressed_size = packed;
    r.uncompressed_size = entry.size;
    let fields = LocalFields::of(r, r.crc32, packed as u32, entry.size as u32);
    let fixed = fields.encode(r.name.len() as u16, r.extra.len() as u16);
    let name_at = header_at + fixed.len();
    out[header_at..name_at].copy_from_slice(&fixed);
    out[name_at..name_at + r.name.len()].copy_from_slice(&r.name);
    out[name_at + r.name.len()..data_at].copy_from_slice(&r.extra);
    entry.held.clear();
    Ok(())
}

/// Switches an entry's recorded method before its local header is
/// written (empty data, `store_if_larger`, Stored that would need a
/// descriptor).
fn set_method(entry: &mut Entry, method: WriteMethod) {
    let r = &mut entry.record;
    r.flags &= !FLAG_LZMA_EOS;
    if r.method != METHOD_AES {
        r.method = method.id();
    }
    if matches!(entry.options.encryption, Encryption::Aes { .. }) {
        // The AES block names the real method: made again.
        r.extra = entry_extra(&entry.options, method);
    }
    r.version_needed = version_needed(method, &entry.options.encryption);
}

/// Writes the local header of an entry that outgrew what is held, and
/// starts compressing: held bytes first.
fn start_streaming(
    entry: &mut Entry,
    can_seek: bool,
    offset: u64,
    out: &mut Vec<u8>,
) -> Result<(), ZipError> {
    if entry.options.store_if_larger
        && entry.options.method != WriteMethod::Stored
        && !shrinks(
            &entry.options,
            &entry.held[..STORE_SAMPLE.min(entry.held.len())],
        )?
    {
        entry.options.method = WriteMethod::Stored;
        set_method(entry, WriteMethod::Stored);
    }
    let zip_crypto = matches!(entry.options.encryption, Encryption::ZipCryptoWeak { .. });
    let given = entry
        .options
        .size_and_crc
        .filter(|_| entry.options.method == WriteMethod::Stored && !zip_crypto);
    entry.given = given.is_some();
    entry.descriptor = given.is_none() && (!can_seek || zip_crypto);
    if entry.descriptor && entry.options.method == WriteMethod::Stored {
        // Stored data with a descriptor has no end a reader can find
        // without the central directory (many streaming readers refuse
        // it): Deflate's stored blocks keep the bytes as they are and
        // mark the end, for 5 bytes per 64 KiB.
        entry.options.method = WriteMethod::Deflate;
        entry.options.level = 0;
        set_method(entry, WriteMethod::Deflate);
    }
    let r = &mut entry.record;
    if entry.descriptor {
        r.flags |= FLAG_DATA_DESCRIPTOR;
    }
    let (crc, size) = given.map_or((0, 0), |(size, crc)| (crc, size));
    let small = |v: u64| u32::try_from(v).unwrap_or(u32::MAX);
    let fields = LocalFields::of(r, stored_crc(&entry.options, crc), small(size), small(size));
    r.offset = offset;
    local_header(r, &fields, out);
    entry.data_start = offset + (LocalFileHeader::LEN + r.name.len() + r.extra.len()) as u64;
    // ZipCrypto's check byte: the time's, as the descriptor form has it.
    let check = ZipCryptoEncoder::check_from_dos_time(r.dos_time.time);
    // What is held goes in a step at a time (`push_held_step`).
    entry.enc = Some(encoders(&entry.options, entry.options.method, check)?);
    Ok(())
}

/// Whether the entry's method makes `sample` smaller, compressed on its
/// own: how `store_if_larger` judges an entry too long to hold.
fn shrinks(options: &EntryOptions, sample: &[u8]) -> Result<bool, ZipError> {
    let mut enc = method::encoder_sized(
        options.method.id(),
        options.level,
        Some(sample.len() as u64),
    )?;
    let mut packed = Vec::with_capacity(sample.len() + 1024);
    let mut scratch = Pool::<u8>::global().lease_any(16 << 10);
    lzflow_core::encode_to_end(&mut enc, sample, &mut packed, &mut scratch)?;
    Ok(packed.len() < sample.len())
}

/// Gives the streaming encoder the next step of what was held. Not
/// blocking, with more than a step left it yields (`Pending`, woken at
/// once) so that other tasks run between steps.
fn push_held_step(
    entry: &mut Entry,
    out: &mut Vec<u8>,
    blocking: bool,
    cx: &mut Context<'_>,
) -> Poll<Result<(), ZipError>> {
    let enc = entry.enc.as_mut().expect("streaming");
    let end = entry.held.len().min(entry.held_pos + INPUT_STEP);
    enc.push(&entry.held[entry.held_pos..end], out)?;
    entry.held_pos = end;
    if end == entry.held.len() {
        entry.held.clear();
        entry.held_pos = 0;
    } else if !blocking {
        cx.waker().wake_by_ref();
        return Poll::Pending;
    }
    Poll::Ready(Ok(()))
}

/// Compresses an entry collected whole (on a worker) into its local
/// header, data and descriptor, laid out as one thread lays it out: held
/// if it is no longer than what one thread holds, streamed otherwise (the
/// header then as the seekable sink's rewrite leaves it). The record's
/// offset is set when the bytes are written.
fn pack(mut entry: Box<Entry>, can_seek: bool) -> Packed {
    let mut out = Vec::new();
    if entry.held.len() <= entry.hold {
        write_held(&mut entry, &mut out)?;
        return Ok((entry, out));
    }
    start_streaming(&mut entry, can_seek, 0, &mut out)?;
    let held = std::mem::take(&mut entry.held);
    let enc = entry.enc.as_mut().expect("streaming");
    enc.push(&held, &mut out)?;
    enc.finish(&mut out)?;
    let end = out.len() as u64;
    if end_streamed(&mut entry, end, &mut out)? == Close::Drain {
        out[..LocalFileHeader::LEN].copy_from_slice(&entry.patch);
    }
    entry.enc = None;
    Ok((entry, out))
}

/// After a streamed entry's last byte (the archive now at `offset`):
/// fills in its record, appends its descriptor or prepares its header's
/// rewrite; the next closing step.
fn end_streamed(entry: &mut Entry, offset: u64, out: &mut Vec<u8>) -> Result<Close, ZipError> {
    let crc = std::mem::take(&mut entry.crc).finalize();
    check_given(entry, crc)?;
    let compressed = offset - entry.data_start;
    let r = &mut entry.record;
    r.crc32 = stored_crc(&entry.options, crc);
    r.compressed_size = compressed;
    r.uncompressed_size = entry.size;
    let big = compressed >= u64::from(u32::MAX) || entry.size >= u64::from(u32::MAX);
    if entry.given {
        // Stored with its size given ahead: the local header holds it.
        return Ok(Close::Done);
    }
    if entry.descriptor || big {
        let was = r.flags;
        r.flags |= FLAG_DATA_DESCRIPTOR;
        DataDescriptor {
            crc32: r.crc32,
            compressed_size: compressed,
            uncompressed_size: entry.size,
        }
        .encode(big, out);
        if was & FLAG_DATA_DESCRIPTOR != 0 {
            return Ok(Close::Done);
        }
        // A seekable sink, an entry past 32 bits: its header becomes the
        // descriptor form.
        entry.patch = LocalFields::of(r, 0, 0, 0).encode(r.name.len() as u16, r.extra.len() as u16);
        return Ok(Close::Drain);
    }
    entry.patch = LocalFields::of(r, r.crc32, compressed as u32, entry.size as u32)
        .encode(r.name.len() as u16, r.extra.len() as u16);
    Ok(Close::Drain)
}

impl EntryEncoder {
    /// Encodes all of `data` and ends the stream.
    fn push_all(&mut self, data: &[u8], out: &mut Vec<u8>) -> Result<(), ZipError> {
        self.push(data, out)?;
        self.finish(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use lzflow_core::source::StdSink;

    /// The async faces rely on the default: a writer on threads must not
    /// start with workers that block (and compress on the runtime's
    /// thread); the std face's `set_blocking(true)` switches both.
    #[test]
    fn the_workers_block_exactly_when_the_writer_does() {
        let options = ZipWriterOptions::new().with_threads(2);
        let mut w = PollZipWriter::new(StdSink::streaming(Vec::new()), options).unwrap();
        assert!(!w.blocking);
        assert!(w.workers.as_ref().unwrap().is_nonblocking());
        w.set_blocking(true);
        assert!(!w.workers.as_ref().unwrap().is_nonblocking());
    }
}
