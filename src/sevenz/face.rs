//! The async 7z reader, generic over a runtime's source adapter: the
//! tokio face is `AsyncArchive<TokioSource<R>>`, the futures-io face
//! `AsyncArchive<FuturesSource<R>>`. Everything but the runtimes'
//! `AsyncRead` impls is written once, here, over the one reading core
//! ([`PollArchive`]).

use std::path::Path;
use std::pin::Pin;
use std::task::{Context, Poll};

use bytes::Bytes;
use futures_core::Stream;
use lzflow_7z::{
    ArchiveIndex, ArchiveOptions, Entry, ExtractOptions, PollArchive, PollEntries, PollEntryReader,
    SevenZError, SpoolOptions, WalkState,
};
use lzflow_core::source::{Adapter, PollRead, PollSource};
use lzflow_core::LimitExceeded;

use super::AsyncSpooled;
use crate::step_stream::{read_whole, StepStream};
use lzflow_core::extract_thread::FsCalls;

/// A 7z archive over an async source; see the runtime modules for the
/// constructors (`lzflow::sevenz::AsyncArchive` for tokio,
/// `lzflow::sevenz::futures::AsyncArchive` for futures-io).
#[derive(Debug)]
pub struct AsyncArchive<S> {
    pub(crate) core: PollArchive<S>,
}

impl<S: PollSource + Adapter> AsyncArchive<S> {
    /// Opens an archive with default options.
    pub async fn open(reader: S::Inner) -> Result<Self, SevenZError> {
        Self::open_with(reader, ArchiveOptions::default()).await
    }

    /// Opens an archive: reads and verifies the signature header and the
    /// header (decoding and decrypting it when packed).
    pub async fn open_with(reader: S::Inner, options: ArchiveOptions) -> Result<Self, SevenZError> {
        let core = PollArchive::open(S::new(reader), options).await?;
        Ok(AsyncArchive { core })
    }

    /// Gives back the source.
    pub fn into_inner(self) -> S::Inner {
        self.core.into_source().into_inner()
    }
}

impl<S: PollSource + Adapter<Inner = AsyncSpooled>> AsyncArchive<S> {
    /// Opens an archive from a source that cannot seek (a socket, a pipe,
    /// an upload body): the whole source is copied first, into memory up to
    /// `spool.memory_limit` bytes and beyond that into an anonymous
    /// temporary file in `spool.temp_dir`, then opened from the copy.
    pub async fn open_spooled<R>(reader: R, spool: SpoolOptions) -> Result<Self, SevenZError>
    where
        S::Reader<R>: PollRead,
    {
        Self::open_spooled_with(reader, spool, ArchiveOptions::default()).await
    }

    /// [`open_spooled`](Self::open_spooled) with archive options.
    pub async fn open_spooled_with<R>(
        reader: R,
        spool: SpoolOptions,
        options: ArchiveOptions,
    ) -> Result<Self, SevenZError>
    where
        S::Reader<R>: PollRead,
    {
        let copy = lzflow_7z::spool::spool_from(&mut S::reader(reader), spool).await?;
        Self::open_with(AsyncSpooled(copy), options).await
    }
}

impl<S: PollSource> AsyncArchive<S> {
    /// Every entry, in archive order.
    pub fn entries(&self) -> &[Entry] {
        self.core.entries()
    }

    /// The index of the entry named `name` (the first, should the archive
    /// hold it twice), for `reader`.
    pub fn index_of(&self, name: &str) -> Option<usize> {
        self.core.index_of(name)
    }

    /// The parsed header.
    pub fn index(&self) -> &ArchiveIndex {
        self.core.index()
    }

    /// An `AsyncRead` of entry `index`'s data; in a solid folder the
    /// entries before it are decoded and discarded first, unless the last
    /// reader (dropped without an error) was of an earlier entry of that
    /// folder: decoding then goes on from where it stopped.
    pub async fn reader(&mut self, index: usize) -> Result<AsyncEntryReader<'_, S>, SevenZError> {
        Ok(AsyncEntryReader {
            inner: self.core.reader(index).await?,
        })
    }

    /// Extracts every entry below `dir` (created if missing) with the
    /// default [`ExtractOptions`]: existing files are refused before
    /// anything is written.
    pub async fn extract_to(&mut self, dir: impl AsRef<Path>) -> Result<(), SevenZError> {
        self.extract_to_with(dir, &ExtractOptions::default()).await
    }

    /// Extracts every entry below `dir` under `options`, with the same
    /// rules and steps as the sync
    /// [`Archive::extract_to_with`](lzflow_7z::Archive::extract_to_with)
    /// (one walk, one [`Extraction`](lzflow_7z::Extraction)). The archive
    /// is read asynchronously; the file-system calls run on a thread of
    /// their own
    /// ([`ExtractThread`](lzflow_core::extract_thread::ExtractThread)), so
    /// the task never blocks on the disk. Cancelled (the future dropped),
    /// the extraction stops and that thread removes the file it was
    /// writing.
    pub async fn extract_to_with(
        &mut self,
        dir: impl AsRef<Path>,
        options: &ExtractOptions,
    ) -> Result<(), SevenZError> {
        self.core
            .extract_to_with(dir.as_ref(), options, FsCalls::Thread)
            .await
    }

    /// Walks the entries in archive order, decoding each folder once;
    /// see [`AsyncEntries::next_entry`].
    pub fn entries_stream(&mut self) -> AsyncEntries<'_, S> {
        AsyncEntries {
            inner: self.core.walk(),
        }
    }

    /// [`entries_stream`](Self::entries_stream) over the entries `select`
    /// picks (asked once for each entry, in archive order, with its
    /// position, before the walk starts): a folder without a selected
    /// entry is never decoded, nor the rest of a folder after its last
    /// selected entry.
    pub fn entries_stream_where(
        &mut self,
        select: impl FnMut(usize, &Entry) -> bool,
    ) -> AsyncEntries<'_, S> {
        AsyncEntries {
            inner: self.core.walk_where(select),
        }
    }
}

impl<S: PollSource + Send + 'static> AsyncArchive<S> {
    /// The entries in archive order as an owned `Stream` of each entry
    /// with its whole data (empty for directories), CRC verified, for
    /// code that needs `'static` items (`try_for_each`, channels,
    /// spawned tasks). Each folder is decoded once, as by
    /// [`entries_stream`](Self::entries_stream), the lending cursor that
    /// streams data of any size.
    ///
    /// An entry larger than `max_entry_size` bytes ends the stream with
    /// [`LimitExceeded::Output`] before any of it is decoded, so memory
    /// stays under that bound per item. The stream ends after the first
    /// error.
    pub fn into_entries(self, max_entry_size: u64) -> EntryStream<S> {
        EntryStream {
            inner: StepStream::new((self.core, WalkState::default(), max_entry_size), step),
        }
    }

    /// [`into_entries`](Self::into_entries) over the entries `select`
    /// picks (asked once for each entry, in archive order, with its
    /// position, before the stream starts): what only the others need is
    /// not decoded, as with
    /// [`entries_stream_where`](Self::entries_stream_where).
    pub fn into_entries_where(
        mut self,
        max_entry_size: u64,
        select: impl FnMut(usize, &Entry) -> bool,
    ) -> EntryStream<S> {
        let walk = self.core.walk_where(select).suspend();
        EntryStream {
            inner: StepStream::new((self.core, walk, max_entry_size), step),
        }
    }
}

/// What [`EntryStream`] yields: an entry and its data.
pub type OwnedEntry = (Entry, Bytes);

type WalkParts<S> = (PollArchive<S>, WalkState, u64);

/// The owned stream of [`AsyncArchive::into_entries`].
pub struct EntryStream<S> {
    inner: StepStream<WalkParts<S>, OwnedEntry, SevenZError>,
}

impl<S> std::fmt::Debug for EntryStream<S> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EntryStream").finish_non_exhaustive()
    }
}

impl<S: PollSource + Send + 'static> Stream for EntryStream<S> {
    type Item = Result<OwnedEntry, SevenZError>;

    fn poll_next(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        Pin::new(&mut self.get_mut().inner).poll_next(cx)
    }
}

/// The next entry of the walk, read whole.
fn step<S: PollSource + Send + 'static>(
    (mut core, walk, max): WalkParts<S>,
) -> crate::step_stream::Step<WalkParts<S>, OwnedEntry, SevenZError> {
    Box::pin(async move {
        let mut entries = core.resume(walk);
        let item = next_owned(&mut entries, max).await.transpose();
        let walk = entries.suspend();
        ((core, walk, max), item)
    })
}

async fn next_owned<S: PollSource>(
    entries: &mut PollEntries<'_, S>,
    max: u64,
) -> Result<Option<OwnedEntry>, SevenZError> {
    let Some(entry) = entries.next_entry().await? else {
        return Ok(None);
    };
    if entry.size > max {
        return Err(LimitExceeded::Output { limit: max }.into());
    }
    // The size is the header's, checked against the cap above; the data
    // must match it (the CRC check ends a longer or shorter entry).
    let hint = entry.size as usize;
    let data = read_whole::<SevenZError>(|cx, buf| entries.poll_read(cx, buf), max, hint).await?;
    Ok(Some((entry, data)))
}

/// Reads one entry's data (from [`AsyncArchive::reader`]); ends with an
/// error if the data does not match the entry's CRC.
#[derive(Debug)]
pub struct AsyncEntryReader<'a, S> {
    pub(crate) inner: PollEntryReader<'a, S>,
}

/// Sequential access to every entry: call
/// [`next_entry`](Self::next_entry), then read the entry's data from
/// `self` (it implements `AsyncRead`). Data left unread is decoded and its
/// CRC verified when moving on; all of an entry's bytes are delivered
/// before a CRC mismatch is reported.
#[derive(Debug)]
pub struct AsyncEntries<'a, S> {
    pub(crate) inner: PollEntries<'a, S>,
}

impl<S: PollSource> AsyncEntries<'_, S> {
    /// Finishes the current entry (verifying its CRC) and moves to the
    /// next one; `None` after the last.
    pub async fn next_entry(&mut self) -> Result<Option<Entry>, SevenZError> {
        self.inner.next_entry().await
    }
}
