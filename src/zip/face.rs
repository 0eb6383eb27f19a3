//! The async zip reader, generic over a runtime's source adapter: the
//! tokio face is `AsyncZipArchive<TokioSource<R>>`, the futures-io face
//! `AsyncZipArchive<FuturesSource<R>>`. Everything but the runtimes'
//! `AsyncRead` impls is written once, here, over the one reading core
//! ([`PollZipArchive`]).

use lzflow_core::source::{Adapter, PollSource};
use lzflow_zip::{CentralDirectory, PollZipArchive, PollZipEntryReader, ZipError, ZipOptions};

/// A zip archive over an async seekable source.
#[derive(Debug)]
pub struct AsyncZipArchive<S> {
    core: PollZipArchive<S>,
}

impl<S: PollSource + Adapter> AsyncZipArchive<S> {
    /// Opens an archive with default options (no password, no limits).
    pub async fn open(reader: S::Inner) -> Result<Self, ZipError> {
        Self::open_with(reader, ZipOptions::new()).await
    }

    /// Opens an archive: locates and reads its central directory.
    pub async fn open_with(reader: S::Inner, options: ZipOptions) -> Result<Self, ZipError> {
        let core = PollZipArchive::open(S::new(reader), options).await?;
        Ok(AsyncZipArchive { core })
    }

    /// Gives back the source.
    pub fn into_inner(self) -> S::Inner {
        self.core.into_source().into_inner()
    }
}

impl<S: PollSource> AsyncZipArchive<S> {
    /// The central directory: entries by index, by name and in order.
    pub fn directory(&self) -> &CentralDirectory {
        self.core.directory()
    }

    /// Number of entries.
    pub fn len(&self) -> usize {
        self.core.directory().len()
    }

    /// True when the archive holds no entry.
    pub fn is_empty(&self) -> bool {
        self.core.directory().is_empty()
    }

    /// An `AsyncRead` of entry `index`'s data.
    pub async fn reader(&mut self, index: usize) -> Result<AsyncZipEntryReader<'_, S>, ZipError> {
        Ok(AsyncZipEntryReader {
            inner: self.core.reader(index).await?,
        })
    }

    /// Extracts every entry below `dir` under `options`, with the rules
    /// and steps of the sync
    /// [`ZipArchive::extract_to_with`](lzflow_zip::ZipArchive::extract_to_with)
    /// (one walk). The archive is read asynchronously; files are written
    /// with `std::fs` calls from this task, 16 KiB at a time.
    pub async fn extract_to_with(
        &mut self,
        dir: impl AsRef<std::path::Path>,
        options: &lzflow_zip::ExtractOptions,
    ) -> Result<(), ZipError> {
        self.core.extract_to_with(dir.as_ref(), options).await
    }

    /// An `AsyncRead` of the entry named `name`.
    pub async fn reader_by_name(
        &mut self,
        name: &str,
    ) -> Result<AsyncZipEntryReader<'_, S>, ZipError> {
        let index = self
            .core
            .directory()
            .find(name.as_bytes())
            .ok_or(ZipError::NoSuchEntry)?;
        self.reader(index).await
    }
}

/// Reads one entry's data; ends with an error if the data does not match
/// its CRC-32 or authentication code.
#[derive(Debug)]
pub struct AsyncZipEntryReader<'a, S> {
    pub(crate) inner: PollZipEntryReader<'a, S>,
}
