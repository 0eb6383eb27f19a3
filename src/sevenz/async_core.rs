//! The runtime-free async reader: everything the tokio and futures-io
//! faces share. A face only says how to poll a read and a seek
//! ([`PollSource`]); opening, folder pumping, skipping, CRC checks and the
//! entry walk live here once.

use std::future::poll_fn;
use std::io::{self, SeekFrom};
use std::task::{ready, Context, Poll};

use lzflow_7z::signature_header::SIGNATURE;
use lzflow_7z::{
    ArchiveIndex, ArchiveOptions, Entry, EntryCheck, FolderDecoder, FolderStep, HeaderStep,
    IndexBuilder, PackRequest, SevenZError,
};

pub(crate) use lzflow_core::source::PollSource;

async fn seek<S: PollSource>(src: &mut S, pos: SeekFrom) -> io::Result<u64> {
    poll_fn(|cx| src.poll_seek(cx, pos)).await
}

/// Reads until `buf` is full or the source ends.
async fn read_full<S: PollSource>(src: &mut S, buf: &mut [u8]) -> io::Result<usize> {
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

/// A folder decoder plus the read it is waiting for. Every byte read is
/// handed to the decoder before `Ready` is returned, so a dropped future
/// loses nothing.
pub(crate) struct FolderPump {
    dec: FolderDecoder,
    pending: Option<PackRequest>,
    pos: Option<u64>,
    produced: u64,
}

impl FolderPump {
    fn new(dec: FolderDecoder) -> Self {
        FolderPump {
            dec,
            pending: None,
            pos: None,
            produced: 0,
        }
    }

    /// Produces folder output into `out`; `Ok(0)` at the folder's end.
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
        loop {
            if let Some(req) = self.pending {
                if self.pos != Some(req.offset) {
                    let at = ready!(src.poll_seek(cx, SeekFrom::Start(req.offset)))?;
                    if at != req.offset {
                        return Poll::Ready(Err(SevenZError::Truncated));
                    }
                    self.pos = Some(req.offset);
                }
                let space = self.dec.pack_space(req.stream);
                let n = ready!(src.poll_read(cx, space))?;
                if n == 0 {
                    return Poll::Ready(Err(SevenZError::Truncated));
                }
                self.pos = Some(req.offset + n as u64);
                self.dec.pack_filled(req.stream, n);
                self.pending = None;
            }
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
                FolderStep::NeedPack(req) => self.pending = Some(req),
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
        let mut scratch = vec![0u8; 16 << 10];
        while self.produced < offset {
            let n = (offset - self.produced).min(scratch.len() as u64) as usize;
            if self.fill(src, &mut scratch[..n]).await? == 0 {
                return Err(SevenZError::Corrupt("folder ends before an entry".into()));
            }
        }
        Ok(())
    }

    /// Drives the folder to its end so that its CRC is checked.
    async fn finish<S: PollSource>(&mut self, src: &mut S) -> Result<(), SevenZError> {
        let mut probe = [0u8; 1];
        if self.fill(src, &mut probe).await? != 0 {
            return Err(SevenZError::Corrupt(
                "folder holds more data than its entries".into(),
            ));
        }
        Ok(())
    }
}

/// Reads entry data from `pump` into `buf`, counting it down and verifying
/// the CRC at the end.
fn poll_entry_read<S: PollSource>(
    check: &mut EntryCheck,
    pump: &mut FolderPump,
    src: &mut S,
    cx: &mut Context<'_>,
    buf: &mut [u8],
) -> Poll<Result<usize, SevenZError>> {
    if check.left() == 0 {
        // An entry of zero bytes has its stored CRC checked here.
        return Poll::Ready(check.finish().map(|()| 0));
    }
    if buf.is_empty() {
        return Poll::Ready(Ok(0));
    }
    let want = buf
        .len()
        .min(usize::try_from(check.left()).unwrap_or(usize::MAX));
    let dst = &mut buf[..want];
    let n = ready!(pump.poll_fill(src, cx, dst))?;
    if n == 0 {
        return Poll::Ready(Err(pump.dec.classify_error(SevenZError::Corrupt(format!(
            "the data of {} ends early",
            check.name()
        )))));
    }
    let verdict = check.update(&dst[..n]);
    Poll::Ready(verdict.map(|()| n).map_err(|e| pump.dec.classify_error(e)))
}

/// An opened archive over any [`PollSource`].
#[derive(Debug)]
pub(crate) struct Core<S> {
    pub(crate) src: S,
    pub(crate) index: ArchiveIndex,
}

impl<S: PollSource> Core<S> {
    /// Reads and verifies the signature header and the header (decoding
    /// and decrypting it when packed).
    pub(crate) async fn open_with(
        mut src: S,
        options: ArchiveOptions,
    ) -> Result<Self, SevenZError> {
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
        seek(&mut src, SeekFrom::Start(start.header_position()?)).await?;
        if read_full(&mut src, &mut header).await? < header.len() {
            return Err(SevenZError::Truncated);
        }
        let mut step = builder.header(&start, &header)?;
        let index = loop {
            match step {
                HeaderStep::Index(index) => break *index,
                HeaderStep::Encoded(folders) => {
                    let mut bytes = Vec::new();
                    for dec in folders {
                        let size = dec.unpack_size() as usize;
                        let mut pump = FolderPump::new(dec);
                        let at = bytes.len();
                        bytes.resize(at + size, 0);
                        let mut pos = at;
                        while pos < bytes.len() {
                            let n = pump.fill(&mut src, &mut bytes[pos..]).await?;
                            if n == 0 {
                                return Err(SevenZError::Corrupt(
                                    "header folder output is short".into(),
                                ));
                            }
                            pos += n;
                        }
                        pump.finish(&mut src).await?;
                    }
                    step = builder.decoded_header(&bytes)?;
                }
            }
        };
        Ok(Core { src, index })
    }

    /// A reader of entry `index`'s data, the entries before it in a solid
    /// folder decoded and discarded.
    pub(crate) async fn reader(
        &mut self,
        index: usize,
    ) -> Result<CoreEntryReader<'_, S>, SevenZError> {
        let entry = self
            .index
            .entries()
            .get(index)
            .ok_or(SevenZError::NoSuchEntry(index))?
            .clone();
        self.index
            .options()
            .limits
            .check_output(entry.offset_in_folder().saturating_add(entry.size))?;
        let pump = match entry.folder() {
            Some(fi) => {
                let mut pump = FolderPump::new(self.index.folder_decoder(fi)?);
                pump.skip_to(&mut self.src, entry.offset_in_folder())
                    .await?;
                Some(pump)
            }
            None => None,
        };
        Ok(CoreEntryReader {
            src: &mut self.src,
            pump,
            check: EntryCheck::new(&entry),
        })
    }

    /// The sequential walk over every entry.
    pub(crate) fn entries_stream(&mut self) -> CoreEntries<'_, S> {
        CoreEntries {
            src: &mut self.src,
            index: &self.index,
            next: 0,
            current: None,
            check: None,
            total: 0,
            scratch: Vec::new(),
        }
    }
}

/// One entry's data.
pub(crate) struct CoreEntryReader<'a, S> {
    src: &'a mut S,
    pump: Option<FolderPump>,
    check: EntryCheck,
}

impl<S: PollSource> CoreEntryReader<'_, S> {
    pub(crate) fn poll_read(
        &mut self,
        cx: &mut Context<'_>,
        buf: &mut [u8],
    ) -> Poll<io::Result<usize>> {
        match &mut self.pump {
            Some(pump) => {
                poll_entry_read(&mut self.check, pump, self.src, cx, buf).map_err(io::Error::from)
            }
            None => Poll::Ready(Ok(0)),
        }
    }
}

impl<S> std::fmt::Debug for CoreEntryReader<'_, S> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EntryReader")
            .field("entry", &self.check.name())
            .field("left", &self.check.left())
            .finish()
    }
}

/// The entry walk: each folder decoded once, front to back.
pub(crate) struct CoreEntries<'a, S> {
    src: &'a mut S,
    index: &'a ArchiveIndex,
    next: usize,
    current: Option<(usize, FolderPump)>,
    check: Option<EntryCheck>,
    total: u64,
    scratch: Vec<u8>,
}

impl<S> std::fmt::Debug for CoreEntries<'_, S> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Entries")
            .field("next", &self.next)
            .finish_non_exhaustive()
    }
}

impl<S: PollSource> CoreEntries<'_, S> {
    /// Finishes the current entry (verifying its CRC) and moves to the
    /// next one; `None` after the last.
    pub(crate) async fn next_entry(&mut self) -> Result<Option<Entry>, SevenZError> {
        // Drain what the caller left of the previous entry.
        if self.check.as_ref().is_some_and(|c| c.left() > 0) {
            let mut scratch = std::mem::take(&mut self.scratch);
            scratch.resize(16 << 10, 0);
            while self.check.as_ref().is_some_and(|c| c.left() > 0) {
                poll_fn(|cx| self.poll_entry(cx, &mut scratch)).await?;
            }
            self.scratch = scratch;
        }
        if let Some(mut check) = self.check.take() {
            // The CRC of an entry of zero bytes.
            check.finish()?;
        }
        let Some(entry) = self.index.entries().get(self.next).cloned() else {
            if let Some((_, mut pump)) = self.current.take() {
                pump.finish(self.src).await?;
            }
            return Ok(None);
        };
        self.next += 1;
        self.total = self.total.saturating_add(entry.size);
        self.index.options().limits.check_output(self.total)?;
        if let Some(fi) = entry.folder() {
            if self.current.as_ref().is_none_or(|(c, _)| *c != fi) {
                if let Some((_, mut pump)) = self.current.take() {
                    pump.finish(self.src).await?;
                }
                self.current = Some((fi, FolderPump::new(self.index.folder_decoder(fi)?)));
            }
            if let Some((_, pump)) = &mut self.current {
                pump.skip_to(self.src, entry.offset_in_folder()).await?;
            }
        }
        self.check = Some(EntryCheck::new(&entry));
        Ok(Some(entry))
    }

    fn poll_entry(
        &mut self,
        cx: &mut Context<'_>,
        buf: &mut [u8],
    ) -> Poll<Result<usize, SevenZError>> {
        match (&mut self.check, &mut self.current) {
            (Some(check), Some((_, pump))) if check.left() > 0 => {
                poll_entry_read(check, pump, self.src, cx, buf)
            }
            _ => Poll::Ready(Ok(0)),
        }
    }

    /// The current entry's data into `buf`; `Ok(0)` at its end.
    pub(crate) fn poll_read(
        &mut self,
        cx: &mut Context<'_>,
        buf: &mut [u8],
    ) -> Poll<io::Result<usize>> {
        self.poll_entry(cx, buf).map_err(io::Error::from)
    }
}

/// Copies a source read by `poll_read` into a spool (memory up to the
/// limit, then a temporary file). Writing the temporary file blocks: it is
/// a local file, like the faces' reads of it later.
pub(crate) async fn spool_from<F>(
    mut poll_read: F,
    options: lzflow_7z::SpoolOptions,
) -> io::Result<lzflow_7z::Spooled>
where
    F: FnMut(&mut Context<'_>, &mut [u8]) -> Poll<io::Result<usize>>,
{
    let mut spool = lzflow_7z::SpoolWriter::new(options);
    let mut buf = vec![0u8; 64 << 10];
    loop {
        let n = poll_fn(|cx| poll_read(cx, &mut buf)).await?;
        if n == 0 {
            return spool.finish();
        }
        spool.push(&buf[..n])?;
    }
}
