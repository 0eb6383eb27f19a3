//! Folders decoded side by side: while the entry walk reads one folder,
//! the folders after it are decoded on worker threads ([`OrderedPool`]),
//! each whole into memory from its packed bytes, which the walk reads
//! ahead (in archive order, so without seeking back). Entries still come
//! out in archive order, with the bytes and errors of one-thread decoding:
//! a worker runs the same folder decoder, and the walk hands out its
//! output, then its error, where it would have met them.
//!
//! Memory: folders in flight hold their packed bytes and their output, at
//! most [`BUDGET`] bytes of them and `16 × threads` folders (and each a
//! decoder, its window cut to the folder's size). A folder
//! larger than that is decoded by the walk as it reads (with its LZMA2
//! stream on threads where it has dictionary resets).

use std::collections::VecDeque;
use std::future::poll_fn;
use std::io::SeekFrom;

use lzflow_core::parallel::{OrderedPool, PieceWorker, WorkerDied};
use lzflow_core::source::PollSource;
use lzflow_core::{Lease, Pool};

use crate::read::archive_index::ArchiveIndex;
use crate::read::coder_graph::{FolderDecoder, FolderStep};
use crate::read::poll_archive::{read_full, seek};
use crate::SevenZError;

/// Bytes of folders in flight (packed plus decoded), at most.
pub(crate) const BUDGET: u64 = 256 << 20;

/// Packed bytes read at once for a run of folders, at most ([`Prefetch::fill`]).
const READ_RUN: u64 = 4 << 20;

/// Folders in flight per thread, at most: small folders need a deep queue
/// for the workers to stay ahead of the walk (2,000 files of a non-solid
/// archive on 2 threads: 4 per thread 0.61× of one thread's time, 16 per
/// thread 0.51–0.64×; large folders are bounded by the budget instead).
const IN_FLIGHT_PER_THREAD: usize = 16;

/// A folder for a worker: its decoder and packed streams.
pub(crate) struct FolderJob {
    dec: FolderDecoder,
    /// Each packed stream's first byte's offset in the file, and its bytes.
    packs: Vec<(u64, Lease<u8>)>,
}

/// What a worker made of a folder: the decoder (for its error rules), the
/// output, and the error that ended it (after that output).
pub(crate) type Decoded = (FolderDecoder, Lease<u8>, Option<SevenZError>);

struct FolderWorker;

impl PieceWorker for FolderWorker {
    type Config = ();
    type Input = FolderJob;
    type Output = Decoded;

    fn run(_: &mut Option<Self>, _: &(), job: FolderJob) -> Decoded {
        decode(job)
    }
}

/// Runs the folder's decoder over its packed bytes in memory.
fn decode(mut job: FolderJob) -> Decoded {
    let size = usize::try_from(job.dec.unpack_size()).unwrap_or(usize::MAX);
    let mut out = Pool::<u8>::global().lease_any(size);
    let mut at = 0;
    // Once the output is full the decoder is still driven to its end, as
    // the one-thread walk drives it: the end of the packed streams and
    // the folder's CRC are checked there.
    let mut probe = [0u8; 1];
    let error = loop {
        let room = if at < out.len() {
            &mut out[at..]
        } else {
            &mut probe[..]
        };
        match job.dec.read(room) {
            // Its own size checks stop a decoder at the declared size.
            Ok(FolderStep::Data(_)) if at == out.len() => {
                break Some(SevenZError::corrupt("a folder decoded past its size"))
            }
            Ok(FolderStep::Data(n)) => at += n,
            Ok(FolderStep::End) => break None,
            Ok(FolderStep::NeedPack(req)) => {
                let (base, bytes) = &job.packs[req.stream];
                let from = usize::try_from(req.offset - base).unwrap_or(usize::MAX);
                let rest = bytes.get(from..).unwrap_or(&[]);
                let space = job.dec.pack_space(req.stream);
                let n = space.len().min(rest.len());
                if n == 0 {
                    break Some(SevenZError::Truncated);
                }
                space[..n].copy_from_slice(&rest[..n]);
                job.dec.pack_filled(req.stream, n);
            }
            // One-thread decoders do not wait.
            Ok(FolderStep::Wait) => break Some(SevenZError::corrupt("a folder decoder waited")),
            Err(e) => break Some(e),
        }
    };
    out.truncate(at);
    (job.dec, out, error)
}

/// The folders ahead of the walk, decoding on workers.
pub(crate) struct Prefetch {
    pool: OrderedPool<FolderWorker>,
    /// Folders submitted and not yet taken, in order, with their cost.
    queued: VecDeque<(usize, u64)>,
    in_flight: u64,
    /// The folders in the order the walk meets them; `next` is the first
    /// not yet considered.
    order: Vec<usize>,
    next: usize,
    /// A folder's decoder made for a run it did not fit: the next run
    /// starts with it.
    stashed: Option<(usize, FolderDecoder)>,
}

impl Prefetch {
    /// For a walk over `index` (over the entries `wanted` marks, if given)
    /// with more than one thread and folders met one after the other (as
    /// 7-Zip writes them); `None` otherwise.
    pub(crate) fn new(index: &ArchiveIndex, wanted: Option<&[bool]>) -> Option<Self> {
        let threads = index.options().threads;
        if threads == 1 {
            return None;
        }
        let mut order: Vec<usize> = Vec::new();
        for (i, e) in index.entries().iter().enumerate() {
            if wanted.is_some_and(|w| !w[i]) {
                continue;
            }
            if let Some(fi) = e.folder() {
                if order.last() != Some(&fi) {
                    order.push(fi);
                }
            }
        }
        if order.len() < 2 || order.windows(2).any(|w| w[0] >= w[1]) {
            return None;
        }
        let mut pool = OrderedPool::new((), threads);
        if let Some(r) = index.readiness() {
            pool.set_nonblocking_with(r.clone());
        }
        Some(Prefetch {
            pool,
            queued: VecDeque::new(),
            in_flight: 0,
            order,
            next: 0,
            stashed: None,
        })
    }

    /// Submits the folders after `current` (and `current` itself, the
    /// first time) while they fit: reads their packed bytes from `src`.
    /// A folder too large for the budget is left for the walk; one whose
    /// decoder cannot be made or whose packed bytes cannot be read is too,
    /// and so is every folder after it (the walk meets the error where one
    /// thread would).
    ///
    /// Once the queue is full it is refilled when half of it has been
    /// taken, a run of folders at a time: folders whose packed streams
    /// follow one another in the file (as 7-Zip writes them) are read with
    /// one seek and one read of up to [`READ_RUN`] bytes. Over `tokio::fs`
    /// each seek and each read is a trip to the blocking pool, and 2,000
    /// small folders read one by one cost more trips than decoding them
    /// took time.
    pub(crate) async fn fill<S: PollSource>(
        &mut self,
        src: &mut S,
        index: &ArchiveIndex,
        current: usize,
    ) {
        let limit = IN_FLIGHT_PER_THREAD * self.pool.threads();
        if self.queued.len() > limit / 2 {
            return;
        }
        loop {
            let run = self.next_run(index, current, limit);
            if run.folders.is_empty() {
                if run.last {
                    self.next = self.order.len();
                }
                return;
            }
            let last = run.last;
            if !self.submit_run(src, run).await || last {
                self.next = self.order.len();
                return;
            }
        }
    }

    /// The next folders to read: consecutive in the walk, their packed
    /// streams one run of the file (within [`READ_RUN`] bytes, unless the
    /// run is one folder), within the queue's `limit` and the budget.
    fn next_run(&mut self, index: &ArchiveIndex, current: usize, limit: usize) -> Run {
        let mut run: Vec<(usize, FolderDecoder, u64)> = Vec::new();
        let mut in_flight = self.in_flight;
        // The file range the run's packed streams cover.
        let (mut start, mut end) = (0, 0);
        let mut k = self.next;
        while let Some(&fi) = self.order.get(k) {
            if fi < current {
                k += 1;
                continue;
            }
            if self.queued.len() + run.len() >= limit {
                break;
            }
            let cost = index
                .folder_packed_size(fi)
                .saturating_add(index.folder_unpack_size(fi));
            if cost > BUDGET {
                if run.is_empty() {
                    // Left for the walk; the folders after it go on.
                    k += 1;
                    continue;
                }
                break;
            }
            if !(self.queued.is_empty() && run.is_empty()) && in_flight + cost > BUDGET {
                break;
            }
            // A folder whose decoder cannot be made (an unsupported
            // method, a memory limit) is left for the walk, as are those
            // after it: the walk reports it where one thread would, after
            // the entries before it.
            let dec = match self.stashed.take() {
                Some((f, dec)) if f == fi => dec,
                _ => match index.folder_decoder_with_threads(fi, 1) {
                    Ok(dec) => dec,
                    Err(_) => {
                        self.next = k;
                        return Run::new(run, (start, end), true);
                    }
                },
            };
            let Some((first, last)) = contiguous(&dec) else {
                // Packed streams apart from one another: a run of its own.
                if run.is_empty() {
                    run.push((fi, dec, cost));
                    k += 1;
                } else {
                    self.stashed = Some((fi, dec));
                }
                break;
            };
            if !run.is_empty() && (first != end || last - start > READ_RUN) {
                self.stashed = Some((fi, dec));
                break;
            }
            if run.is_empty() {
                start = first;
            }
            end = last;
            in_flight += cost;
            run.push((fi, dec, cost));
            k += 1;
        }
        self.next = k;
        Run::new(run, (start, end), false)
    }

    /// Reads the packed bytes of `run` (one seek and one read when they
    /// are one range of the file) and submits its folders; false if they
    /// cannot be read (none is submitted then).
    async fn submit_run<S: PollSource>(&mut self, src: &mut S, run: Run) -> bool {
        let mut jobs = Vec::with_capacity(run.folders.len());
        match run.span {
            Some((start, end)) => {
                let Some(bytes) = read_at(src, start, end - start).await else {
                    return false;
                };
                for (fi, dec, cost) in run.folders {
                    let (offsets, sizes) = dec.pack_ranges();
                    let packs = offsets
                        .iter()
                        .zip(sizes)
                        .map(|(&offset, &size)| {
                            let from = (offset - start) as usize;
                            let mut pack = Pool::<u8>::global().lease(size as usize);
                            pack.extend_from_slice(&bytes[from..from + size as usize]);
                            (offset, pack)
                        })
                        .collect();
                    jobs.push((fi, FolderJob { dec, packs }, cost));
                }
            }
            None => {
                for (fi, dec, cost) in run.folders {
                    let (offsets, sizes) = dec.pack_ranges();
                    let mut packs = Vec::with_capacity(offsets.len());
                    for (&offset, &size) in offsets.iter().zip(sizes) {
                        let Some(bytes) = read_at(src, offset, size).await else {
                            return false;
                        };
                        packs.push((offset, bytes));
                    }
                    jobs.push((fi, FolderJob { dec, packs }, cost));
                }
            }
        }
        for (fi, job, cost) in jobs {
            self.pool.submit(job);
            self.queued.push_back((fi, cost));
            self.in_flight += cost;
        }
        true
    }

    /// Folder `fi` decoded by a worker (waiting for it), if it was
    /// submitted.
    pub(crate) async fn take(&mut self, fi: usize) -> Result<Option<Decoded>, SevenZError> {
        if self.queued.front().map(|&(f, _)| f) != Some(fi) {
            return Ok(None);
        }
        // Blocking, the pool waits (or decodes a queued folder meanwhile);
        // non-blocking, the task waits for a worker's notification.
        let got = poll_fn(|cx| self.pool.poll_next(cx))
            .await
            .expect("the front folder is in flight");
        let (_, cost) = self.queued.pop_front().expect("checked");
        self.in_flight -= cost;
        match got {
            Ok(d) => Ok(Some(d)),
            Err(WorkerDied) => Err(SevenZError::corrupt("a folder decoding thread panicked")),
        }
    }
}

/// Folders to read and submit together ([`Prefetch::next_run`]).
struct Run {
    /// Each folder's index, decoder and cost in flight.
    folders: Vec<(usize, FolderDecoder, u64)>,
    /// The file range of their packed streams, read at once, when there
    /// are several folders (they share one read of at most [`READ_RUN`]
    /// bytes, split by copying); a folder alone, which may be far larger,
    /// reads each of its packed streams into its own buffer.
    span: Option<(u64, u64)>,
    /// Prefetching ends after these folders (the next one's decoder
    /// cannot be made).
    last: bool,
}

impl Run {
    fn new(folders: Vec<(usize, FolderDecoder, u64)>, span: (u64, u64), last: bool) -> Self {
        let span = (folders.len() > 1).then_some(span);
        Run {
            folders,
            span,
            last,
        }
    }
}

/// The file range of a folder's packed streams, if they follow one
/// another (as 7-Zip writes them).
fn contiguous(dec: &FolderDecoder) -> Option<(u64, u64)> {
    let (offsets, sizes) = dec.pack_ranges();
    let first = *offsets.first()?;
    let mut end = first;
    for (&offset, &size) in offsets.iter().zip(sizes) {
        if offset != end {
            return None;
        }
        end = offset.checked_add(size)?;
    }
    Some((first, end))
}

/// Reads `size` bytes at `offset`; `None` if the source cannot give them
/// (the walk then reads there itself and reports it).
async fn read_at<S: PollSource>(src: &mut S, offset: u64, size: u64) -> Option<Lease<u8>> {
    if seek(src, SeekFrom::Start(offset)).await.ok()? != offset {
        return None;
    }
    let mut buf = Pool::<u8>::global().lease_any(usize::try_from(size).ok()?);
    let n = read_full(src, &mut buf).await.ok()?;
    (n == buf.len()).then_some(buf)
}
