//! The async 7z reader, generic over a runtime's source adapter: the
//! tokio face is `AsyncArchive<TokioSource<R>>`, the futures-io face
//! `AsyncArchive<FuturesSource<R>>`. Everything but the constructors and
//! the `AsyncRead` impls is written once, here, over the one reading core
//! ([`PollArchive`]).

use std::path::Path;

use lzflow_7z::{
    ArchiveIndex, Entry, ExtractOptions, PollArchive, PollEntries, PollEntryReader, SevenZError,
};
use lzflow_core::source::PollSource;

/// A 7z archive over an async source; see the runtime modules for the
/// constructors (`lzflow::sevenz::AsyncArchive` for tokio,
/// `lzflow::sevenz::futures::AsyncArchive` for futures-io).
#[derive(Debug)]
pub struct AsyncArchive<S> {
    pub(crate) core: PollArchive<S>,
}

impl<S: PollSource> AsyncArchive<S> {
    /// Every entry, in archive order.
    pub fn entries(&self) -> &[Entry] {
        self.core.entries()
    }

    /// The parsed header.
    pub fn index(&self) -> &ArchiveIndex {
        self.core.index()
    }

    /// An `AsyncRead` of entry `index`'s data; in a solid folder the
    /// entries before it are decoded and discarded first.
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
    /// is read asynchronously; files are written with `std::fs` calls from
    /// this task, 16 KiB at a time.
    pub async fn extract_to_with(
        &mut self,
        dir: impl AsRef<Path>,
        options: &ExtractOptions,
    ) -> Result<(), SevenZError> {
        self.core.extract_to_with(dir.as_ref(), options).await
    }

    /// Walks the entries in archive order, decoding each folder once;
    /// see [`AsyncEntries::next_entry`].
    pub fn entries_stream(&mut self) -> AsyncEntries<'_, S> {
        AsyncEntries {
            inner: self.core.walk(),
        }
    }
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
