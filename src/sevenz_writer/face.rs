//! The async 7z writer, generic over a runtime's sink adapter: the tokio
//! face is `AsyncWriter<TokioSink<W>>`, the futures-io face
//! `AsyncWriter<FuturesSink<W>>`: written once, here, over the one
//! poll-style writer ([`PollWriter`]).

use lzflow_7z::{EntryMeta, PollWriter, SevenZError, WriterOptions};
use lzflow_core::source::{Adapter, PollRead, PollSink};

/// A 7z writer over an async sink (`lzflow::sevenz_writer::AsyncWriter`
/// for tokio, `lzflow::sevenz_writer::futures::AsyncWriter` for
/// futures-io).
///
/// Every byte handed to the sink is accounted for in the writer before
/// the next await, so a dropped [`finish`](Self::finish) future can be
/// retried. Dropping an [`add_file`](Self::add_file) future in the middle
/// of a file leaves the writer unusable (the source's position is lost
/// with the future).
#[derive(Debug)]
pub struct AsyncWriter<S> {
    pub(super) core: PollWriter<S>,
    /// The file `add_path` passes over (the archive itself).
    pub(super) skip: Option<lzflow_core::input_file::FileId>,
}

impl<S: PollSink + Adapter> AsyncWriter<S> {
    /// A writer with default options; the archive starts at the sink's
    /// current position.
    pub async fn new(sink: S::Inner) -> Result<Self, SevenZError> {
        Self::with_options(sink, WriterOptions::default()).await
    }

    /// A writer with `opts` (see [`Writer::with_options`](lzflow_7z::Writer::with_options)).
    pub async fn with_options(sink: S::Inner, opts: WriterOptions) -> Result<Self, SevenZError> {
        let core = PollWriter::new(S::new(sink), opts).await?;
        Ok(AsyncWriter { core, skip: None })
    }

    /// Makes `add_path` pass over the file `meta` describes: give it the
    /// archive's own file, which would otherwise be added to itself when
    /// it lies in the tree being added.
    pub fn skip_in_add_path(&mut self, meta: &std::fs::Metadata) {
        self.skip = lzflow_core::input_file::FileId::of(meta);
    }

    /// Adds a file whose data is read from `reader` (the runtime's
    /// `AsyncRead`) to its end, compressed as it arrives (see
    /// [`Writer::add_file`](lzflow_7z::Writer::add_file)).
    pub async fn add_file<R>(
        &mut self,
        name: &str,
        reader: R,
        meta: EntryMeta,
    ) -> Result<(), SevenZError>
    where
        S::Reader<R>: PollRead,
    {
        self.core.add_file(name, &mut S::reader(reader), meta).await
    }

    /// Ends the archive (see [`Writer::finish`](lzflow_7z::Writer::finish))
    /// and gives back the sink, flushed and positioned at the end of the
    /// archive. After an I/O error (or a dropped future) calling it again
    /// resumes.
    pub async fn finish(&mut self) -> Result<S::Inner, SevenZError> {
        Ok(self.core.finish().await?.into_inner())
    }
}

impl<S: PollSink> AsyncWriter<S> {
    /// Starts a file entry whose data is then written through the
    /// runtime's `AsyncWrite` on this writer (push style, for data that
    /// arrives rather than being read), ended by
    /// [`end_file`](Self::end_file), the next entry or
    /// [`finish`](Self::finish). The archive has the same bytes as with
    /// [`add_file`](Self::add_file) of the same data, whatever the sizes
    /// of the writes. A dropped write loses nothing the writer took.
    pub async fn begin_file(&mut self, name: &str, meta: EntryMeta) -> Result<(), SevenZError> {
        self.core.begin_file(name, meta).await
    }

    /// Ends the file begun by [`begin_file`](Self::begin_file).
    pub async fn end_file(&mut self) -> Result<(), SevenZError> {
        self.core.end_file().await
    }

    /// Adds a directory entry.
    pub async fn add_dir(&mut self, name: &str, meta: EntryMeta) -> Result<(), SevenZError> {
        self.core.add_dir(name, meta).await
    }

    /// Adds an empty file.
    pub async fn add_empty_file(&mut self, name: &str, meta: EntryMeta) -> Result<(), SevenZError> {
        self.core.add_empty_file(name, meta).await
    }
}
