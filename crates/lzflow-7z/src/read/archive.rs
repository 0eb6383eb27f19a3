//! The std face: [`Archive`] over any `Read + Seek`, the one reading core
//! ([`PollArchive`]) driven over a [`Blocking`] source.

use std::io::{self, Read, Seek};

use lzflow_core::source::{block_on, block_on_poll, Blocking};

use crate::read::archive_index::{ArchiveIndex, ArchiveOptions};
use crate::read::entry::Entry;
use crate::read::multi_volume::{self, MultiVolume};
use crate::read::poll_archive::{PollArchive, PollEntries, PollEntryReader};
use crate::read::spool::{self, SpoolOptions, Spooled};
use crate::SevenZError;

/// A 7z archive opened for reading.
#[derive(Debug)]
pub struct Archive<R> {
    core: PollArchive<Blocking<R>>,
}

impl<R: Read + Seek> Archive<R> {
    /// Opens an archive with default options (no password, no limits).
    pub fn open(reader: R) -> Result<Self, SevenZError> {
        Self::open_with(reader, ArchiveOptions::default())
    }

    /// Opens an archive: reads and verifies the signature header and the
    /// header (decoding and decrypting it when packed).
    pub fn open_with(reader: R, options: ArchiveOptions) -> Result<Self, SevenZError> {
        let core = block_on(PollArchive::open(Blocking(reader), options))?;
        Ok(Archive { core })
    }

    /// Every entry, in archive order.
    pub fn entries(&self) -> &[Entry] {
        self.core.entries()
    }

    /// The index of the entry named `name` (the first, should the archive
    /// hold it twice), for `reader`.
    pub fn index_of(&self, name: &str) -> Option<usize> {
        self.core.index_of(name)
    }

    /// The parsed header (folders, options).
    pub fn index(&self) -> &ArchiveIndex {
        self.core.index()
    }

    pub(crate) fn core_mut(&mut self) -> &mut PollArchive<Blocking<R>> {
        &mut self.core
    }

    /// Gives back the reader.
    pub fn into_inner(self) -> R {
        self.core.into_source().0
    }

    /// Calls `f` for every entry in archive order with a reader of its data.
    ///
    /// Each folder is decoded once, front to back: entries of a solid block
    /// stream out of the same decoder pass. `f` may read all, part or none
    /// of the data; the rest is decoded and its CRC verified before the
    /// next entry. All of an entry's bytes are delivered before a CRC
    /// mismatch is reported (by the next read, or when `f` returns). An error from `f` stops the walk and is returned (a
    /// `SevenZError` that travelled through `io::Error` comes back typed).
    pub fn for_each_entry<F>(&mut self, f: F) -> Result<(), SevenZError>
    where
        F: FnMut(&Entry, &mut dyn Read) -> io::Result<()>,
    {
        walk_with(WalkRead(self.core.walk()), f)
    }

    /// [`for_each_entry`](Self::for_each_entry) over the entries `select`
    /// picks (asked once for each entry, in archive order, with its
    /// position, before the walk starts). Only what those entries need is
    /// decoded: a folder without a selected entry is never decoded, and
    /// the rest of a folder after its last selected entry is neither
    /// decoded nor checked. Extracting one small file from a large
    /// archive thus costs what that file's folder costs up to it.
    pub fn for_each_entry_where<F>(
        &mut self,
        select: impl FnMut(usize, &Entry) -> bool,
        f: F,
    ) -> Result<(), SevenZError>
    where
        F: FnMut(&Entry, &mut dyn Read) -> io::Result<()>,
    {
        walk_with(WalkRead(self.core.walk_where(select)), f)
    }

    /// A reader of entry `index`'s data. In a solid folder the entries
    /// before it are decoded and discarded, unless the last reader (dropped
    /// without an error) was of an earlier entry of the same folder: then
    /// decoding goes on from where it stopped, so readers taken in archive
    /// order decode a solid folder once.
    pub fn reader(&mut self, index: usize) -> Result<EntryReader<'_, R>, SevenZError> {
        let inner = block_on(self.core.reader(index))?;
        Ok(EntryReader { inner })
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

/// The reader handed to [`Archive::for_each_entry`]'s callback.
struct WalkRead<'a, R>(PollEntries<'a, Blocking<R>>);

/// Calls `f` for each entry the walk stops at, with a reader of its data.
fn walk_with<R: Read + Seek, F>(mut data: WalkRead<'_, R>, mut f: F) -> Result<(), SevenZError>
where
    F: FnMut(&Entry, &mut dyn Read) -> io::Result<()>,
{
    while let Some(i) = block_on(data.0.advance())? {
        let entry = &data.0.entries()[i];
        f(entry, &mut data)?;
    }
    Ok(())
}

impl<R: Read + Seek> Read for WalkRead<'_, R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        block_on_poll(|cx| self.0.poll_read(cx, buf))
    }
}

/// A reader of one entry's data, from [`Archive::reader`]. It ends with an
/// error if the data does not match the entry's CRC.
#[derive(Debug)]
pub struct EntryReader<'a, R> {
    inner: PollEntryReader<'a, Blocking<R>>,
}

impl<R: Read + Seek> Read for EntryReader<'_, R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        block_on_poll(|cx| self.inner.poll_read(cx, buf))
    }
}
