//! The async 7z writer, generic over a runtime's sink adapter: the tokio
//! face is `AsyncWriter<TokioSink<W>>`, the futures-io face
//! `AsyncWriter<FuturesSink<W>>`. The runtime modules add the
//! constructors, `add_file` (it takes the runtime's reader) and `finish`
//! (it gives the runtime's writer back); the rest is here, over the one
//! poll-style writer ([`PollWriter`]).

use lzflow_7z::{EntryMeta, PollWriter, SevenZError};
use lzflow_core::source::PollSink;

/// A 7z writer over an async sink; see the runtime modules for the
/// constructors (`lzflow::sevenz_writer::AsyncWriter` for tokio,
/// `lzflow::sevenz_writer::futures::AsyncWriter` for futures-io).
#[derive(Debug)]
pub struct AsyncWriter<S> {
    pub(crate) core: PollWriter<S>,
}

impl<S: PollSink> AsyncWriter<S> {
    /// Adds a directory entry.
    pub async fn add_dir(&mut self, name: &str, meta: EntryMeta) -> Result<(), SevenZError> {
        self.core.add_dir(name, meta).await
    }

    /// Adds an empty file.
    pub async fn add_empty_file(&mut self, name: &str, meta: EntryMeta) -> Result<(), SevenZError> {
        self.core.add_empty_file(name, meta).await
    }
}
