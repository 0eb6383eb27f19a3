//! The async zip reader, generic over a runtime's source adapter: the
//! tokio face is `AsyncZipArchive<TokioSource<R>>`, the futures-io face
//! `AsyncZipArchive<FuturesSource<R>>`. Everything but the runtimes'
//! `AsyncRead` impls is written once, here, over the one reading core
//! ([`PollZipArchive`]).

use std::pin::Pin;
use std::task::{Context, Poll};

use bytes::Bytes;
use futures_core::Stream;
use lzflow_core::source::{Adapter, PollSource};

use crate::step_stream::{read_whole, StepStream};
use lzflow_core::extract_thread::FsCalls;
use lzflow_zip::{
    CentralDirectory, CentralDirectoryLocation, CentralEntry, PollCentralDirectoryReader,
    PollZipArchive, PollZipEntryReader, ZipError, ZipOptions,
};

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
    /// (one walk). The archive is read asynchronously; the file-system
    /// calls run on a thread of their own
    /// ([`ExtractThread`](lzflow_core::extract_thread::ExtractThread)), so
    /// the task never blocks on the disk. Cancelled (the future dropped),
    /// the extraction stops and that thread removes the file it was
    /// writing.
    pub async fn extract_to_with(
        &mut self,
        dir: impl AsRef<std::path::Path>,
        options: &lzflow_zip::ExtractOptions,
    ) -> Result<(), ZipError> {
        self.core
            .extract_to_with(dir.as_ref(), options, FsCalls::Thread)
            .await
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

/// The entries of an archive over an async seekable source, listed from
/// its central directory one at a time without holding the directory (the
/// async face of [`CentralDirectoryReader`](lzflow_zip::CentralDirectoryReader):
/// one 64 KiB window whatever the entry count, each record checked as
/// [`AsyncZipArchive`] checks it).
#[derive(Debug)]
pub struct AsyncCentralDirectoryReader<S> {
    core: PollCentralDirectoryReader<S>,
}

impl<S: PollSource + Adapter> AsyncCentralDirectoryReader<S> {
    /// Opens the directory with default options (their caps on its size
    /// and entry count apply).
    pub async fn open(reader: S::Inner) -> Result<Self, ZipError> {
        Self::open_with(reader, &ZipOptions::new()).await
    }

    /// Opens the directory: finds it through the end record and checks its
    /// size and entry count against `options`.
    pub async fn open_with(reader: S::Inner, options: &ZipOptions) -> Result<Self, ZipError> {
        let core = PollCentralDirectoryReader::open(S::new(reader), options).await?;
        Ok(AsyncCentralDirectoryReader { core })
    }

    /// Gives back the source.
    pub fn into_inner(self) -> S::Inner {
        self.core.into_source().into_inner()
    }
}

impl<S: PollSource> AsyncCentralDirectoryReader<S> {
    /// The directory's place, entry count and the archive comment, from
    /// the end record.
    pub fn location(&self) -> &CentralDirectoryLocation {
        self.core.location()
    }

    /// The next entry, `None` after the last. Cancellation-safe: what a
    /// call has read is kept in the window before it can be dropped, so the
    /// next call goes on from there.
    pub async fn next_entry(&mut self) -> Result<Option<CentralEntry<'_>>, ZipError> {
        self.core.next_entry().await
    }
}

/// Reads one entry's data; ends with an error if the data does not match
/// its CRC-32 or authentication code.
#[derive(Debug)]
pub struct AsyncZipEntryReader<'a, S> {
    pub(crate) inner: PollZipEntryReader<'a, S>,
}

/// A zip archive read forward-only from an async source that need not
/// seek (an upload body, a socket): the generic face of
/// [`PollZipStream`](lzflow_zip::PollZipStream), as
/// [`ZipStreamReader`](lzflow_zip::ZipStreamReader) is its std face.
#[derive(Debug)]
pub struct AsyncZipStreamReader<S> {
    core: lzflow_zip::PollZipStream<S>,
}

impl<S: lzflow_core::source::PollRead + Adapter> AsyncZipStreamReader<S> {
    /// A reader with default options (no password, default caps).
    pub fn new(reader: S::Inner) -> Self {
        Self::with_options(reader, ZipOptions::new())
    }

    /// A reader with `options`.
    pub fn with_options(reader: S::Inner, options: ZipOptions) -> Self {
        AsyncZipStreamReader {
            core: lzflow_zip::PollZipStream::new(S::new(reader), options),
        }
    }

    /// Gives back the reader and the bytes read from it but not used
    /// (after the last entry: the start of the central directory).
    pub fn into_parts(self) -> (S::Inner, Vec<u8>) {
        let (src, rest) = self.core.into_parts();
        (src.into_inner(), rest)
    }
}

impl<S: lzflow_core::source::PollRead> AsyncZipStreamReader<S> {
    /// The next entry, `None` after the last; the rest of the current one
    /// is read first. Cancel-safe: a dropped call loses no input, and the
    /// next call goes on where it stopped.
    pub async fn next_entry(&mut self) -> Result<Option<AsyncZipStreamEntry<'_, S>>, ZipError> {
        if self.core.next_entry().await?.is_none() {
            return Ok(None);
        }
        Ok(Some(AsyncZipStreamEntry {
            core: &mut self.core,
        }))
    }

    /// The entry the last [`next_entry`](Self::next_entry) returned, again
    /// (after its borrow ended, e.g. when a read of it was cancelled);
    /// `None` before the first and after the last.
    pub fn current(&mut self) -> Option<AsyncZipStreamEntry<'_, S>> {
        self.core.entry()?;
        Some(AsyncZipStreamEntry {
            core: &mut self.core,
        })
    }

    /// Extracts every entry below `dir` as it arrives, with the rules of
    /// [`ZipStreamReader::extract_to_with`](lzflow_zip::ZipStreamReader::extract_to_with),
    /// the file-system calls on a thread of their own (as
    /// [`AsyncZipArchive::extract_to_with`]).
    pub async fn extract_to_with(
        &mut self,
        dir: impl AsRef<std::path::Path>,
        options: &lzflow_zip::ExtractOptions,
    ) -> Result<(), ZipError> {
        self.core
            .extract_to_with(dir.as_ref(), options, FsCalls::Thread)
            .await
    }

    /// Bytes of the input used so far.
    pub fn offset(&self) -> u64 {
        self.core.offset()
    }
}

impl<S: lzflow_core::source::PollRead + Send + 'static> AsyncZipStreamReader<S> {
    /// The entries as they arrive, as an owned `Stream` of each entry with
    /// its whole data (checked against its CRC-32, authentication code or
    /// data descriptor), for code that needs `'static` items
    /// (`try_for_each`, channels, spawned tasks).
    /// [`next_entry`](Self::next_entry), the lending cursor, streams
    /// data of any size.
    ///
    /// An entry whose data passes `max_entry_size` bytes ends the stream
    /// with [`LimitExceeded::Output`](lzflow_core::LimitExceeded::Output)
    /// (before any of it is decoded when the local header gives the
    /// size), so memory stays under that bound per item. The stream ends
    /// after the first error.
    pub fn into_entries(self, max_entry_size: u64) -> ZipEntryStream<S> {
        ZipEntryStream {
            inner: StepStream::new((self.core, max_entry_size), zip_step),
        }
    }
}

/// An entry read whole by [`AsyncZipStreamReader::into_entries`].
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct StreamedEntry {
    /// The name as text (see [`LocalEntry::name`](lzflow_zip::LocalEntry::name)).
    pub name: String,
    /// Whether the name ends with `/`.
    pub is_dir: bool,
    /// The modification time, when stored.
    pub mtime: Option<std::time::SystemTime>,
    /// The local header's fields.
    pub header: lzflow_zip::LocalFileHeader,
    /// Where the local header starts in the stream.
    pub offset: u64,
    /// The data, checked.
    pub data: Bytes,
}

type StreamParts<S> = (lzflow_zip::PollZipStream<S>, u64);

/// The owned stream of [`AsyncZipStreamReader::into_entries`].
pub struct ZipEntryStream<S> {
    inner: StepStream<StreamParts<S>, StreamedEntry, ZipError>,
}

impl<S> std::fmt::Debug for ZipEntryStream<S> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ZipEntryStream").finish_non_exhaustive()
    }
}

impl<S: lzflow_core::source::PollRead + Send + 'static> Stream for ZipEntryStream<S> {
    type Item = Result<StreamedEntry, ZipError>;

    fn poll_next(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        Pin::new(&mut self.get_mut().inner).poll_next(cx)
    }
}

fn zip_step<S: lzflow_core::source::PollRead + Send + 'static>(
    (mut core, max): StreamParts<S>,
) -> crate::step_stream::Step<StreamParts<S>, StreamedEntry, ZipError> {
    Box::pin(async move {
        let item = next_streamed(&mut core, max).await.transpose();
        ((core, max), item)
    })
}

async fn next_streamed<S: lzflow_core::source::PollRead>(
    core: &mut lzflow_zip::PollZipStream<S>,
    max: u64,
) -> Result<Option<StreamedEntry>, ZipError> {
    let Some(local) = core.next_entry().await? else {
        return Ok(None);
    };
    if local.size().is_some_and(|n| n > max) {
        return Err(lzflow_core::LimitExceeded::Output { limit: max }.into());
    }
    let mut entry = StreamedEntry {
        name: local.name().into_owned(),
        is_dir: local.is_dir(),
        mtime: local.mtime(),
        header: *local.header(),
        offset: local.offset(),
        data: Bytes::new(),
    };
    entry.data = read_whole::<ZipError>(|cx, buf| core.poll_read(cx, buf), max, 0).await?;
    Ok(Some(entry))
}

/// One entry of an [`AsyncZipStreamReader`]: its local header, and its
/// data through the runtime's `AsyncRead`, which ends with an error if the
/// data does not match its CRC-32, authentication code or data descriptor.
#[derive(Debug)]
pub struct AsyncZipStreamEntry<'a, S> {
    pub(crate) core: &'a mut lzflow_zip::PollZipStream<S>,
}

impl<S: lzflow_core::source::PollRead> AsyncZipStreamEntry<'_, S> {
    /// What the local header says of the entry.
    pub fn local(&self) -> lzflow_zip::LocalEntry<'_> {
        self.core
            .entry()
            .expect("an entry is current while it is borrowed")
    }

    /// The name as text.
    pub fn name(&self) -> std::borrow::Cow<'_, str> {
        self.local().name()
    }

    /// Whether the entry is a directory (its name ends with `/`).
    pub fn is_dir(&self) -> bool {
        self.local().is_dir()
    }
}
