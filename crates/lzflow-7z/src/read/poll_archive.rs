//! The one 7z reading core, in poll style, over any [`PollSource`]:
//! opening, folder pumping, skipping, entry CRCs and the entry walk live
//! here once. The std face ([`Archive`](crate::Archive)) drives it over a
//! [`Blocking`](lzflow_core::source::Blocking) source with
//! [`block_on`](lzflow_core::source::block_on); the facade's tokio and
//! futures-io faces drive it over their runtime's adapter.
//!
//! Every byte read is handed to the folder decoder before `Ready` is
//! returned, so a dropped future loses nothing.

use std::future::poll_fn;
use std::io::{self, SeekFrom};
use std::sync::Mutex;
use std::task::{ready, Context, Poll};

use lzflow_core::source::PollSource;

use crate::read::archive_index::{ArchiveIndex, ArchiveOptions, HeaderStep, IndexBuilder};
use crate::read::coder_graph::{FolderDecoder, FolderStep};
use crate::read::entry::{Entry, EntryCheck};
use crate::read::folder_prefetch::{Decoded, Prefetch};
use crate::read::signature_header::SIGNATURE;
use crate::SevenZError;
use lzflow_core::Lease;

/// Output decoded and dropped per step when skipping to an entry or
/// draining one. On the stack (in the future's state), so that a walk
/// allocates nothing for it.
const SKIP_CHUNK: usize = 4096;

pub(crate) async fn seek<S: PollSource>(src: &mut S, pos: SeekFrom) -> io::Result<u64> {
    poll_fn(|cx| src.poll_seek(cx, pos)).await
}

/// Reads until `buf` is full or the source ends.
pub(crate) async fn read_full<S: PollSource>(src: &mut S, buf: &mut [u8]) -> io::Result<usize> {
    let mut n = 0;
    while n < buf.len() {
        let k = poll_fn(|cx| src.poll_read(cx, &mut buf[n..])).await?;
        if k == 0 {
            break;
        }
        n += k;
    }
    Ok(n)
}

/// A folder decoder plus the packed read it waits for.
#[derive(Debug)]
struct FolderPump {
    dec: FolderDecoder,
    /// Where the source stands, to skip needless seeks.
    pos: Option<u64>,
    produced: u64,
    /// The folder as a worker decoded it: its output, the part handed
    /// out, and the error that ended it.
    decoded: Option<(Lease<u8>, usize, Option<SevenZError>)>,
}

impl FolderPump {
    fn new(dec: FolderDecoder) -> Self {
        FolderPump {
            dec,
            pos: None,
            produced: 0,
            decoded: None,
        }
    }

    /// A folder that a worker decoded whole ([`Prefetch`]).
    fn from_decoded((dec, out, error): Decoded) -> Self {
        FolderPump {
            decoded: Some((out, 0, error)),
            ..FolderPump::new(dec)
        }
    }

    /// Produces folder output into `out`; `Ok(0)` at the folder's end.
    /// One decoding step per call, under the source's fairness budget.
    fn poll_fill<S: PollSource>(
        &mut self,
        src: &mut S,
        cx: &mut Context<'_>,
        out: &mut [u8],
    ) -> Poll<Result<usize, SevenZError>> {
        if out.is_empty() {
            return Poll::Ready(Ok(0));
        }
        ready!(src.poll_proceed(cx));
        if let Some((data, at, error)) = &mut self.decoded {
            // Its output, then its error, where the walk would have met it.
            let n = out.len().min(data.len() - *at);
            out[..n].copy_from_slice(&data[*at..*at + n]);
            *at += n;
            self.produced += n as u64;
            src.step_done();
            return Poll::Ready(match error.take() {
                Some(e) if n == 0 => Err(e),
                e => {
                    *error = e;
                    Ok(n)
                }
            });
        }
        loop {
            match self.dec.read(out)? {
                FolderStep::Data(n) => {
                    self.produced += n as u64;
                    src.step_done();
                    return Poll::Ready(Ok(n));
                }
                FolderStep::End => {
                    src.step_done();
                    return Poll::Ready(Ok(0));
                }
                FolderStep::Wait => {
                    if let Some(r) = self.dec.readiness() {
                        ready!(r.poll_ready(cx));
                    }
                }
                FolderStep::NeedPack(req) => {
                    // Nothing is held across `Pending`: the decoder asks
                    // again for the same bytes on the next call.
                    if self.pos != Some(req.offset) {
                        let at = ready!(src.poll_seek(cx, SeekFrom::Start(req.offset)))?;
                        if at != req.offset {
                            return Poll::Ready(Err(SevenZError::Truncated));
                        }
                        self.pos = Some(req.offset);
                    }
                    let n = ready!(src.poll_read(cx, self.dec.pack_space(req.stream)))?;
                    if n == 0 {
                        return Poll::Ready(Err(SevenZError::Truncated));
                    }
                    self.pos = Some(req.offset + n as u64);
                    self.dec.pack_filled(req.stream, n);
                }
            }
        }
    }

    async fn fill<S: PollSource>(
        &mut self,
        src: &mut S,
        out: &mut [u8],
    ) -> Result<usize, SevenZError> {
        poll_fn(|cx| self.poll_fill(src, cx, out)).await
    }

    /// Decodes and drops output up to folder position `offset`.
    async fn skip_to<S: PollSource>(
        &mut self,
        src: &mut S,
        offset: u64,
    ) -> Result<(), SevenZError> {
        let mut scratch = [0u8; SKIP_CHUNK];
        while self.produced < offset {
            let n = (offset - self.produced).min(SKIP_CHUNK as u64) as usize;
            if self.fill(src, &mut scratch[..n]).await? == 0 {
                return Err(SevenZError::corrupt("folder ends before an entry"));
            }
        }
        Ok(())
    }

    /// Fills `out` completely (a header folder's output).
    async fn fill_all<S: PollSource>(
        &mut self,
        src: &mut S,
        out: &mut [u8],
    ) -> Result<(), SevenZError> {
        let mut pos = 0;
        while pos < out.len() {
            let n = self.fill(src, &mut out[pos..]).await?;
            if n == 0 {
                return Err(SevenZError::corrupt("header folder output is short"));
            }
            pos += n;
        }
        Ok(())
    }

    /// Drives the folder to its end so that its CRC is verified.
    async fn finish<S: PollSource>(&mut self, src: &mut S) -> Result<(), SevenZError> {
        let mut probe = [0u8; 1];
        if self.fill(src, &mut probe).await? != 0 {
            return Err(SevenZError::corrupt(
                "folder holds more data than its entries",
            ));
        }
        Ok(())
    }
}

/// Progress through one entry's data and its CRC.
#[derive(Debug)]
struct EntryState {
    check: EntryCheck,
    /// Deliver the bytes of the read that completes the entry and report a
    /// CRC mismatch by the next read (or when the walk moves on): for the
    /// walk, so that a kept broken file has all its bytes. A random-access
    /// reader reports it with the last bytes, so that a caller who reads
    /// exactly the entry's size still sees it.
    defer_check: bool,
    /// The mismatch found by a deferred check, not yet reported.
    pending: Option<SevenZError>,
}

impl EntryState {
    fn new(entry: &Entry, defer_check: bool) -> Self {
        EntryState {
            check: EntryCheck::new(entry),
            defer_check,
            pending: None,
        }
    }

    fn left(&self) -> u64 {
        self.check.left()
    }

    /// Reads entry data from `pump` into `buf`, counting it down and
    /// verifying the CRC at the end; `Ok(0)` at the entry's end.
    fn poll_read<S: PollSource>(
        &mut self,
        pump: Option<&mut FolderPump>,
        src: &mut S,
        cx: &mut Context<'_>,
        buf: &mut [u8],
    ) -> Poll<Result<usize, SevenZError>> {
        if let Some(e) = self.pending.take() {
            return Poll::Ready(Err(e));
        }
        if self.check.left() == 0 {
            // An entry of zero bytes has its stored CRC checked here.
            return Poll::Ready(self.check.finish().map(|()| 0));
        }
        let (Some(pump), false) = (pump, buf.is_empty()) else {
            return Poll::Ready(Ok(0));
        };
        let want = buf
            .len()
            .min(usize::try_from(self.check.left()).unwrap_or(usize::MAX));
        let dst = &mut buf[..want];
        let n = ready!(pump.poll_fill(src, cx, dst))?;
        if n == 0 {
            return Poll::Ready(Err(pump.dec.classify_error(SevenZError::corrupt(format!(
                "the data of {} ends early",
                self.check.name()
            )))));
        }
        match self.check.update(&dst[..n]) {
            Ok(()) => Poll::Ready(Ok(n)),
            Err(e) if self.defer_check => {
                self.pending = Some(pump.dec.classify_error(e));
                Poll::Ready(Ok(n))
            }
            Err(e) => Poll::Ready(Err(pump.dec.classify_error(e))),
        }
    }

    /// Reads and drops what is left of the entry, then reports its CRC.
    async fn drain<S: PollSource>(
        &mut self,
        mut pump: Option<&mut FolderPump>,
        src: &mut S,
    ) -> Result<(), SevenZError> {
        let mut scratch = [0u8; SKIP_CHUNK];
        while self.left() > 0 && self.pending.is_none() {
            let mut pump = pump.as_deref_mut();
            poll_fn(|cx| self.poll_read(pump.as_deref_mut(), src, cx, &mut scratch)).await?;
        }
        match self.pending.take() {
            Some(e) => Err(e),
            None => self.check.finish(),
        }
    }
}

/// An opened archive over any [`PollSource`]: the core every face drives.
#[derive(Debug)]
pub struct PollArchive<S> {
    src: S,
    index: ArchiveIndex,
    /// The folder decoder the last entry reader left, where it stopped:
    /// a reader of a later entry of that folder goes on from there
    /// instead of decoding the folder again from its start. Only ever
    /// reached through `&mut` (`get_mut`, no locking): the mutex is there
    /// so that the archive stays `Sync` (a decoder is only `Send`).
    resume: Mutex<Option<(usize, FolderPump)>>,
}

impl<S: PollSource> PollArchive<S> {
    /// Reads and verifies the signature header and the header (decoding
    /// and decrypting it when packed).
    pub async fn open(mut src: S, options: ArchiveOptions) -> Result<Self, SevenZError> {
        let len = seek(&mut src, SeekFrom::End(0)).await?;
        seek(&mut src, SeekFrom::Start(0)).await?;
        let mut sig = [0u8; 32];
        let got = read_full(&mut src, &mut sig).await?;
        if got < sig.len() {
            let n = got.min(SIGNATURE.len());
            return Err(if got > 0 && sig[..n] == SIGNATURE[..n] {
                SevenZError::Truncated
            } else {
                SevenZError::NotSevenZ
            });
        }
        let mut builder = IndexBuilder::new(options);
        let start = builder.start(&sig, Some(len))?;
        // The builder checked the size against max_header_size and the
        // archive's length.
        let mut header = vec![0u8; start.next_header_size as usize];
        let at = start.header_position()?;
        if seek(&mut src, SeekFrom::Start(at)).await? != at
            || read_full(&mut src, &mut header).await? < header.len()
        {
            return Err(SevenZError::Truncated);
        }
        let mut step = builder.header(&start, &header)?;
        let index = loop {
            match step {
                HeaderStep::Index(index) => break *index,
                HeaderStep::Encoded(folders) => {
                    let mut bytes = Vec::new();
                    for dec in folders {
                        // The size was checked against max_header_size by
                        // the builder.
                        let at = bytes.len();
                        bytes.resize(at + dec.unpack_size() as usize, 0);
                        let mut pump = FolderPump::new(dec);
                        pump.fill_all(&mut src, &mut bytes[at..]).await?;
                        pump.finish(&mut src).await?;
                    }
                    step = builder.decoded_header(&bytes)?;
                }
            }
        };
        let mut index = index;
        if !src.blocks_thread() && index.options().threads != 1 {
            // Over an async source the folders' worker threads must not
            // block the task: their decoders say when to poll again.
            index.set_nonblocking(lzflow_core::Readiness::new());
        }
        Ok(PollArchive {
            src,
            index,
            resume: Mutex::new(None),
        })
    }

    /// Every entry, in archive order.
    pub fn entries(&self) -> &[Entry] {
        self.index.entries()
    }

    /// The index of the entry named `name` (the first, should the archive
    /// hold it twice), for [`reader`](Self::reader).
    pub fn index_of(&self, name: &str) -> Option<usize> {
        self.entries().iter().position(|e| e.name == name)
    }

    /// The parsed header.
    pub fn index(&self) -> &ArchiveIndex {
        &self.index
    }

    /// The source.
    pub fn source_mut(&mut self) -> &mut S {
        &mut self.src
    }

    /// Gives back the source.
    pub fn into_source(self) -> S {
        self.src
    }

    /// A reader of entry `index`'s data, the entries before it in a solid
    /// folder decoded and discarded; but when the last reader (dropped
    /// without an error) was of an earlier entry of the same folder, the
    /// folder is decoded on from where that reader stopped, so reading a
    /// solid folder's entries in order, one reader each, decodes it once.
    /// (The decoder is kept for that between readers, until the next
    /// reader or the archive is dropped.)
    pub async fn reader(&mut self, index: usize) -> Result<PollEntryReader<'_, S>, SevenZError> {
        let entry = self
            .index
            .entries()
            .get(index)
            .ok_or(SevenZError::NoSuchEntry(index))?;
        self.index
            .options()
            .limits
            .check_output(entry.offset_in_folder().saturating_add(entry.size))?;
        let resume = self.resume.get_mut().unwrap_or_else(|e| e.into_inner());
        let resumed = resume.take();
        let pump = match entry.folder() {
            Some(fi) => {
                let mut pump = match resumed {
                    Some((f, mut pump)) if f == fi && pump.produced <= entry.offset_in_folder() => {
                        // The source may have moved since.
                        pump.pos = None;
                        pump
                    }
                    _ => FolderPump::new(self.index.folder_decoder(fi)?),
                };
                pump.skip_to(&mut self.src, entry.offset_in_folder())
                    .await?;
                Some((fi, pump))
            }
            None => None,
        };
        Ok(PollEntryReader {
            src: &mut self.src,
            pump,
            state: EntryState::new(entry, false),
            resume,
            failed: false,
        })
    }

    /// The sequential walk over every entry, each folder decoded once.
    pub fn walk(&mut self) -> PollEntries<'_, S> {
        let walk = WalkState {
            prefetch: Prefetch::new(&self.index, None).map(Box::new),
            ..WalkState::default()
        };
        self.resume(walk)
    }

    /// The sequential walk over the entries `select` picks (asked once
    /// for each entry, in archive order, with its position, before the
    /// walk starts). Only what those entries need is decoded: a folder
    /// without a selected entry is never decoded, and a folder is left
    /// after its last selected entry (the rest of it is neither decoded
    /// nor checked). With every entry picked, it is [`walk`](Self::walk).
    pub fn walk_where(
        &mut self,
        mut select: impl FnMut(usize, &Entry) -> bool,
    ) -> PollEntries<'_, S> {
        let wanted: Box<[bool]> = self
            .index
            .entries()
            .iter()
            .enumerate()
            .map(|(i, e)| select(i, e))
            .collect();
        // Every entry picked: the whole walk, every folder checked to its
        // end.
        let wanted = (wanted.contains(&false)).then_some(wanted);
        let walk = WalkState {
            prefetch: Prefetch::new(&self.index, wanted.as_deref()).map(Box::new),
            wanted,
            ..WalkState::default()
        };
        self.resume(walk)
    }

    /// Goes on with a walk that [`PollEntries::suspend`] put aside (for an
    /// owner of the archive that walks it a step at a time).
    pub fn resume(&mut self, walk: WalkState) -> PollEntries<'_, S> {
        PollEntries {
            src: &mut self.src,
            index: &self.index,
            next: walk.next,
            current: walk.current,
            state: walk.state,
            total: walk.total,
            prefetch: walk.prefetch,
            wanted: walk.wanted,
        }
    }
}

/// Where a walk over the entries stands, apart from the archive it walks
/// ([`PollEntries::suspend`], [`PollArchive::resume`]): the folder being
/// decoded and the current entry's progress.
#[derive(Default)]
pub struct WalkState {
    next: usize,
    current: Option<(usize, FolderPump)>,
    state: Option<EntryState>,
    total: u64,
    prefetch: Option<Box<Prefetch>>,
    /// The entries the walk stops at ([`PollArchive::walk_where`]); all
    /// when `None`.
    wanted: Option<Box<[bool]>>,
}

impl std::fmt::Debug for WalkState {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("WalkState")
            .field("next", &self.next)
            .finish_non_exhaustive()
    }
}

/// One entry's data, from [`PollArchive::reader`]; ends with an error if
/// the data does not match the entry's CRC.
pub struct PollEntryReader<'a, S> {
    src: &'a mut S,
    /// The entry's folder and its decoder.
    pump: Option<(usize, FolderPump)>,
    state: EntryState,
    /// Where the decoder goes back on drop, for the next reader.
    resume: &'a mut Option<(usize, FolderPump)>,
    /// A read failed: the decoder is not handed on.
    failed: bool,
}

impl<S: PollSource> PollEntryReader<'_, S> {
    /// The entry's data into `buf`; `Ok(0)` at its end.
    pub fn poll_read(&mut self, cx: &mut Context<'_>, buf: &mut [u8]) -> Poll<io::Result<usize>> {
        let pump = self.pump.as_mut().map(|(_, p)| p);
        let r = ready!(self.state.poll_read(pump, self.src, cx, buf));
        self.failed |= r.is_err();
        Poll::Ready(r.map_err(io::Error::from))
    }
}

impl<S> Drop for PollEntryReader<'_, S> {
    fn drop(&mut self) {
        if !self.failed {
            *self.resume = self.pump.take();
        }
    }
}

impl<S> std::fmt::Debug for PollEntryReader<'_, S> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EntryReader")
            .field("entry", &self.state.check.name())
            .field("left", &self.state.left())
            .finish()
    }
}

/// The entry walk, from [`PollArchive::walk`]: each folder decoded once,
/// front to back.
pub struct PollEntries<'a, S> {
    src: &'a mut S,
    index: &'a ArchiveIndex,
    next: usize,
    current: Option<(usize, FolderPump)>,
    state: Option<EntryState>,
    total: u64,
    /// With threads: the folders ahead, decoding on workers.
    prefetch: Option<Box<Prefetch>>,
    wanted: Option<Box<[bool]>>,
}

impl<S> std::fmt::Debug for PollEntries<'_, S> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Entries")
            .field("next", &self.next)
            .finish_non_exhaustive()
    }
}

impl<'a, S: PollSource> PollEntries<'a, S> {
    /// Finishes the current entry (decoding what the caller left of it and
    /// verifying its CRC) and moves to the next one: its position in
    /// [`PollArchive::entries`], `None` after the last.
    pub async fn advance(&mut self) -> Result<Option<usize>, SevenZError> {
        if let Some(mut state) = self.state.take() {
            let pump = self.current.as_mut().map(|(_, p)| p);
            state.drain(pump, self.src).await?;
        }
        let index: &'a ArchiveIndex = self.index;
        if let Some(wanted) = &self.wanted {
            while wanted.get(self.next) == Some(&false) {
                self.next += 1;
            }
        }
        let Some(entry) = index.entries().get(self.next) else {
            self.leave_folder().await?;
            return Ok(None);
        };
        self.total = self.total.saturating_add(entry.size);
        index.options().limits.check_output(self.total)?;
        if let Some(fi) = entry.folder() {
            if self.current.as_ref().is_none_or(|(c, _)| *c != fi) {
                self.leave_folder().await?;
                let mut decoded = None;
                if let Some(p) = &mut self.prefetch {
                    p.fill(self.src, index, fi).await;
                    decoded = p.take(fi).await?;
                }
                let pump = match decoded {
                    Some(d) => FolderPump::from_decoded(d),
                    None => FolderPump::new(index.folder_decoder(fi)?),
                };
                self.current = Some((fi, pump));
            }
            if let Some((_, pump)) = &mut self.current {
                pump.skip_to(self.src, entry.offset_in_folder()).await?;
            }
        }
        self.state = Some(EntryState::new(entry, true));
        self.next += 1;
        Ok(Some(self.next - 1))
    }

    /// Every entry of the archive, in order (what
    /// [`advance`](Self::advance)'s positions index).
    pub fn entries(&self) -> &'a [Entry] {
        self.index.entries()
    }

    /// Puts the walk aside, to go on later with [`PollArchive::resume`].
    pub fn suspend(self) -> WalkState {
        WalkState {
            next: self.next,
            current: self.current,
            state: self.state,
            total: self.total,
            prefetch: self.prefetch,
            wanted: self.wanted,
        }
    }

    /// Ends the current folder: driven to its end and checked there, as
    /// every entry of it was read; but on a selective walk one whose rest
    /// was not selected is simply dropped, undecoded.
    async fn leave_folder(&mut self) -> Result<(), SevenZError> {
        let Some((fi, mut pump)) = self.current.take() else {
            return Ok(());
        };
        if self.wanted.is_some() && pump.produced < self.index.folder_unpack_size(fi) {
            return Ok(());
        }
        pump.finish(self.src).await
    }

    /// [`advance`](Self::advance), giving the entry itself.
    pub async fn next_entry(&mut self) -> Result<Option<Entry>, SevenZError> {
        let index: &'a ArchiveIndex = self.index;
        Ok(self.advance().await?.map(|i| index.entries()[i].clone()))
    }

    /// The current entry's data into `buf`; `Ok(0)` at its end. All of an
    /// entry's bytes are delivered before a CRC mismatch is reported (by
    /// the next read, or by the next [`advance`](Self::advance)).
    pub fn poll_read(&mut self, cx: &mut Context<'_>, buf: &mut [u8]) -> Poll<io::Result<usize>> {
        // An entry outside the current folder has no data (`left` is 0),
        // so it never reads from the pump.
        let pump = self.current.as_mut().map(|(_, p)| p);
        match &mut self.state {
            Some(state) => state.poll_read(pump, self.src, cx, buf),
            None => Poll::Ready(Ok(0)),
        }
        .map_err(io::Error::from)
    }
}
