//! The std face: [`Archive`] over any `Read + Seek`.

use std::io::{self, Read, Seek, SeekFrom};

use crate::read::archive_index::{ArchiveIndex, ArchiveOptions, HeaderStep, IndexBuilder};
use crate::read::coder_graph::{FolderDecoder, FolderStep};
use crate::read::entry::{Entry, EntryCheck};
use crate::read::multi_volume::{self, MultiVolume};
use crate::read::signature_header::SIGNATURE;
use crate::read::spool::{self, SpoolOptions, Spooled};
use crate::SevenZError;

/// A 7z archive opened for reading.
#[derive(Debug)]
pub struct Archive<R> {
    reader: R,
    index: ArchiveIndex,
}

impl<R: Read + Seek> Archive<R> {
    /// Opens an archive with default options (no password, no limits).
    pub fn open(reader: R) -> Result<Self, SevenZError> {
        Self::open_with(reader, ArchiveOptions::default())
    }

    /// Opens an archive: reads and verifies the signature header and the
    /// header (decoding and decrypting it when packed).
    pub fn open_with(mut reader: R, options: ArchiveOptions) -> Result<Self, SevenZError> {
        let len = reader.seek(SeekFrom::End(0))?;
        reader.seek(SeekFrom::Start(0))?;
        let mut sig = [0u8; 32];
        let got = read_full(&mut reader, &mut sig)?;
        if got < sig.len() {
            let n = got.min(SIGNATURE.len());
            return Err(if sig[..n] == SIGNATURE[..n] && got > 0 {
                SevenZError::Truncated
            } else {
                SevenZError::NotSevenZ
            });
        }
        let mut builder = IndexBuilder::new(options);
        let start = builder.start(&sig, Some(len))?;
        let mut header = vec![0u8; start.next_header_size as usize];
        reader.seek(SeekFrom::Start(start.header_position()?))?;
        if read_full(&mut reader, &mut header)? < header.len() {
            return Err(SevenZError::Truncated);
        }
        let mut step = builder.header(&start, &header)?;
        let index = loop {
            match step {
                HeaderStep::Index(index) => break *index,
                HeaderStep::Encoded(folders) => {
                    let mut bytes = Vec::new();
                    for dec in folders {
                        FolderStream::new(dec).read_to_end(&mut reader, &mut bytes)?;
                    }
                    step = builder.decoded_header(&bytes)?;
                }
            }
        };
        Ok(Archive { reader, index })
    }

    /// Every entry, in archive order.
    pub fn entries(&self) -> &[Entry] {
        self.index.entries()
    }

    /// The parsed header (folders, options).
    pub fn index(&self) -> &ArchiveIndex {
        &self.index
    }

    /// Gives back the reader.
    pub fn into_inner(self) -> R {
        self.reader
    }

    /// Calls `f` for every entry in archive order with a reader of its data.
    ///
    /// Each folder is decoded once, front to back: entries of a solid block
    /// stream out of the same decoder pass. `f` may read all, part or none
    /// of the data; the rest is decoded and its CRC verified before the
    /// next entry. All of an entry's bytes are delivered before a CRC
    /// mismatch is reported (by the next read, or when `f` returns). An error from `f` stops the walk and is returned (a
    /// `SevenZError` that travelled through `io::Error` comes back typed).
    pub fn for_each_entry<F>(&mut self, mut f: F) -> Result<(), SevenZError>
    where
        F: FnMut(&Entry, &mut dyn Read) -> io::Result<()>,
    {
        let limit = self.index.options().limits;
        let mut total: u64 = 0;
        let mut current: Option<(usize, FolderStream)> = None;
        let index = &self.index;
        let reader = &mut self.reader;
        for entry in index.entries() {
            total = total.saturating_add(entry.size);
            limit.check_output(total)?;
            let Some(fi) = entry.folder else {
                f(entry, &mut io::empty())?;
                continue;
            };
            if current.as_ref().is_none_or(|(c, _)| *c != fi) {
                if let Some((_, mut done)) = current.take() {
                    done.finish(reader)?;
                }
            }
            let stream = match &mut current {
                Some((_, s)) => s,
                slot => {
                    let dec = index.folder_decoder(fi)?;
                    &mut slot.insert((fi, FolderStream::new(dec))).1
                }
            };
            stream.skip_to(reader, entry.offset_in_folder)?;
            let mut state = EntryState::new(entry, stream.dec.is_encrypted()).deferring_check();
            let mut r = EntryRead {
                reader: &mut *reader,
                stream,
                state: &mut state,
            };
            f(entry, &mut r)?;
            r.drain()?;
        }
        if let Some((_, mut done)) = current.take() {
            done.finish(reader)?;
        }
        Ok(())
    }

    /// A reader of entry `index`'s data. In a solid folder the entries
    /// before it are decoded and discarded.
    pub fn reader(&mut self, index: usize) -> Result<EntryReader<'_, R>, SevenZError> {
        let entry = self
            .index
            .entries()
            .get(index)
            .ok_or(SevenZError::NoSuchEntry(index))?
            .clone();
        let limits = self.index.options().limits;
        limits.check_output(entry.offset_in_folder.saturating_add(entry.size))?;
        let stream = match entry.folder {
            Some(fi) => {
                let mut s = FolderStream::new(self.index.folder_decoder(fi)?);
                s.skip_to(&mut self.reader, entry.offset_in_folder)?;
                Some(s)
            }
            None => None,
        };
        let encrypted = stream.as_ref().is_some_and(|s| s.dec.is_encrypted());
        let state = EntryState::new(&entry, encrypted);
        Ok(EntryReader {
            reader: &mut self.reader,
            stream,
            state,
        })
    }
}

impl Archive<MultiVolume<std::fs::File>> {
    /// Opens a split archive from its first volume (`name.7z.001`); the
    /// following volumes (`.002`, `.003`, …) are found beside it and read
    /// as one stream.
    pub fn open_volumes(first: impl AsRef<std::path::Path>) -> Result<Self, SevenZError> {
        Self::open_volumes_with(first, ArchiveOptions::default())
    }

    /// [`open_volumes`](Self::open_volumes) with options.
    pub fn open_volumes_with(
        first: impl AsRef<std::path::Path>,
        options: ArchiveOptions,
    ) -> Result<Self, SevenZError> {
        Archive::open_with(multi_volume::open_volumes(first.as_ref())?, options)
    }
}

impl Archive<Spooled> {
    /// Opens an archive from a source that cannot seek (a pipe, a socket,
    /// standard input). The 7z header is at the end, so the whole source is
    /// first copied: into memory up to `spool.memory_limit` bytes, beyond
    /// that into an anonymous temporary file in `spool.temp_dir` (removed
    /// when the archive is dropped). Then the copy is opened like a file.
    pub fn open_spooled<R: Read>(reader: R, spool: SpoolOptions) -> Result<Self, SevenZError> {
        Self::open_spooled_with(reader, spool, ArchiveOptions::default())
    }

    /// [`open_spooled`](Self::open_spooled) with archive options.
    pub fn open_spooled_with<R: Read>(
        reader: R,
        spool: SpoolOptions,
        options: ArchiveOptions,
    ) -> Result<Self, SevenZError> {
        Archive::open_with(spool::spool(reader, spool)?, options)
    }
}

/// Reads until `buf` is full or the reader ends; returns the bytes read.
fn read_full<R: Read>(r: &mut R, buf: &mut [u8]) -> io::Result<usize> {
    let mut n = 0;
    while n < buf.len() {
        match r.read(&mut buf[n..]) {
            Ok(0) => break,
            Ok(k) => n += k,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(n)
}

/// A folder decoder driven by blocking reads.
struct FolderStream {
    dec: FolderDecoder,
    /// Where the reader stands, to skip needless seeks.
    pos: Option<u64>,
    produced: u64,
}

impl FolderStream {
    fn new(dec: FolderDecoder) -> Self {
        FolderStream {
            dec,
            pos: None,
            produced: 0,
        }
    }

    fn read<R: Read + Seek>(
        &mut self,
        reader: &mut R,
        buf: &mut [u8],
    ) -> Result<usize, SevenZError> {
        if buf.is_empty() {
            return Ok(0);
        }
        loop {
            match self.dec.read(buf)? {
                FolderStep::Data(n) => {
                    self.produced += n as u64;
                    return Ok(n);
                }
                FolderStep::End => return Ok(0),
                FolderStep::NeedPack(req) => {
                    if self.pos != Some(req.offset) {
                        reader.seek(SeekFrom::Start(req.offset))?;
                    }
                    let space = self.dec.pack_space(req.stream);
                    let n = loop {
                        match reader.read(space) {
                            Ok(n) => break n,
                            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                            Err(e) => return Err(e.into()),
                        }
                    };
                    if n == 0 {
                        return Err(SevenZError::Truncated);
                    }
                    self.pos = Some(req.offset + n as u64);
                    self.dec.pack_filled(req.stream, n);
                }
            }
        }
    }

    fn read_to_end<R: Read + Seek>(
        &mut self,
        reader: &mut R,
        out: &mut Vec<u8>,
    ) -> Result<(), SevenZError> {
        let want = self.dec.unpack_size();
        let start = out.len();
        // The size was checked against max_header_size by the builder.
        out.resize(start + want as usize, 0);
        let mut pos = start;
        while pos < out.len() {
            let n = self.read(reader, &mut out[pos..])?;
            if n == 0 {
                return Err(SevenZError::corrupt("header folder output is short"));
            }
            pos += n;
        }
        self.finish(reader)
    }

    /// Decodes and drops output up to folder position `offset`.
    fn skip_to<R: Read + Seek>(&mut self, reader: &mut R, offset: u64) -> Result<(), SevenZError> {
        let mut scratch = [0u8; 8192];
        while self.produced < offset {
            let n = (offset - self.produced).min(scratch.len() as u64) as usize;
            if self.read(reader, &mut scratch[..n])? == 0 {
                return Err(SevenZError::corrupt("folder ends before an entry"));
            }
        }
        Ok(())
    }

    /// Drives the folder to its end so that its CRC is verified.
    fn finish<R: Read + Seek>(&mut self, reader: &mut R) -> Result<(), SevenZError> {
        let mut probe = [0u8; 1];
        if self.read(reader, &mut probe)? != 0 {
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
    encrypted: bool,
    /// Deliver the bytes of the read that completes the entry and report a
    /// CRC mismatch by the next read (or `drain`): for the walk, whose
    /// drain cannot be skipped, so a kept broken file has all its bytes.
    defer_check: bool,
    /// The mismatch found by a deferred check, not yet reported.
    pending: Option<SevenZError>,
}

impl EntryState {
    fn new(entry: &Entry, encrypted: bool) -> Self {
        EntryState {
            check: EntryCheck::new(entry),
            encrypted,
            defer_check: false,
            pending: None,
        }
    }

    fn deferring_check(mut self) -> Self {
        self.defer_check = true;
        self
    }

    fn left(&self) -> u64 {
        self.check.left()
    }

    fn read<R: Read + Seek>(
        &mut self,
        reader: &mut R,
        stream: Option<&mut FolderStream>,
        buf: &mut [u8],
    ) -> Result<usize, SevenZError> {
        if let Some(e) = self.pending.take() {
            return Err(e);
        }
        let left = self.check.left();
        if left == 0 {
            // An entry of zero bytes has its stored CRC checked here.
            self.check.finish()?;
            return Ok(0);
        }
        if buf.is_empty() {
            return Ok(0);
        }
        let Some(stream) = stream else { return Ok(0) };
        let want = buf.len().min(usize::try_from(left).unwrap_or(usize::MAX));
        let n = stream.read(reader, &mut buf[..want])?;
        if n == 0 {
            return Err(stream.dec.classify_error(SevenZError::corrupt(format!(
                "the data of {} ends early",
                self.check.name()
            ))));
        }
        if let Err(e) = self.check.update(&buf[..n]) {
            let e = if self.encrypted {
                SevenZError::WrongPassword
            } else {
                e
            };
            if !self.defer_check {
                return Err(e);
            }
            self.pending = Some(e);
        }
        Ok(n)
    }
}

/// The reader handed to [`Archive::for_each_entry`]'s callback.
struct EntryRead<'a, R> {
    reader: &'a mut R,
    stream: &'a mut FolderStream,
    state: &'a mut EntryState,
}

impl<R: Read + Seek> EntryRead<'_, R> {
    fn drain(&mut self) -> Result<(), SevenZError> {
        let mut scratch = [0u8; 8192];
        while self.state.left() > 0 {
            self.state
                .read(self.reader, Some(self.stream), &mut scratch)?;
        }
        match self.state.pending.take() {
            Some(e) => Err(e),
            None => self.state.check.finish(),
        }
    }
}

impl<R: Read + Seek> Read for EntryRead<'_, R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        Ok(self.state.read(self.reader, Some(self.stream), buf)?)
    }
}

/// A reader of one entry's data, from [`Archive::reader`]. It ends with an
/// error if the data does not match the entry's CRC.
pub struct EntryReader<'a, R> {
    reader: &'a mut R,
    stream: Option<FolderStream>,
    state: EntryState,
}

impl<R> std::fmt::Debug for EntryReader<'_, R> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EntryReader")
            .field("entry", &self.state.check.name())
            .field("left", &self.state.left())
            .finish()
    }
}

impl<R: Read + Seek> Read for EntryReader<'_, R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        Ok(self.state.read(self.reader, self.stream.as_mut(), buf)?)
    }
}
