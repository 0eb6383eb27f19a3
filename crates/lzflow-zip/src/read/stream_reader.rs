//! The forward-only std face: [`ZipStreamReader`] over any `Read` (stdin,
//! a socket, an HTTP body), the one forward-only core
//! ([`PollZipStream`]) over a [`Blocking`] source.

use std::io::{self, Read};
use std::path::Path;

use lzflow_core::extract::ExtractOptions;
use lzflow_core::source::{block_on, block_on_poll, Blocking};

use crate::read::poll_stream::{LocalEntry, PollZipStream};
use crate::read::zip_options::ZipOptions;
use crate::ZipError;
use lzflow_core::extract_thread::FsCalls;

/// A zip archive read forward-only, entry by entry, from its first byte:
/// [`next_entry`](Self::next_entry), then read that entry.
///
/// Only what the local headers say is known: names, methods, times, and
/// sizes unless a data descriptor carries them. Unix modes, symbolic links
/// and comments are in the central directory, which this reader does not
/// reach; use [`ZipArchive`](crate::ZipArchive) when the input can seek.
/// Look-ahead memory is bounded by
/// [`MAX_LOOK_AHEAD`](crate::MAX_LOOK_AHEAD) bytes.
#[derive(Debug)]
pub struct ZipStreamReader<R> {
    core: PollZipStream<Blocking<R>>,
}

impl<R: Read> ZipStreamReader<R> {
    /// A reader with default options (no password, default caps).
    pub fn new(reader: R) -> Self {
        Self::with_options(reader, ZipOptions::new())
    }

    /// A reader with `options`.
    pub fn with_options(reader: R, options: ZipOptions) -> Self {
        ZipStreamReader {
            core: PollZipStream::new(Blocking(reader), options),
        }
    }

    /// The next entry, `None` after the last. Whatever is left of the
    /// current entry is read first (and checked, when its end can only be
    /// found by decoding it).
    pub fn next_entry(&mut self) -> Result<Option<ZipStreamEntry<'_, R>>, ZipError> {
        if block_on(self.core.next_entry())?.is_none() {
            return Ok(None);
        }
        Ok(Some(ZipStreamEntry {
            core: &mut self.core,
        }))
    }

    /// Extracts every entry below `dir` under `options`, as it comes: the
    /// rules are those of
    /// [`ZipArchive::extract_to_with`](crate::ZipArchive::extract_to_with),
    /// but each path is checked when its entry arrives, so entries before
    /// a refused one stay written.
    pub fn extract_to_with(
        &mut self,
        dir: impl AsRef<Path>,
        options: &ExtractOptions,
    ) -> Result<(), ZipError> {
        block_on(
            self.core
                .extract_to_with(dir.as_ref(), options, FsCalls::Inline),
        )
    }

    /// Bytes of the input used so far.
    pub fn offset(&self) -> u64 {
        self.core.offset()
    }

    /// Gives back the reader and the bytes read from it but not used
    /// (after the last entry: the start of the central directory).
    pub fn into_parts(self) -> (R, Vec<u8>) {
        let (src, rest) = self.core.into_parts();
        (src.0, rest)
    }
}

/// One entry of a [`ZipStreamReader`]: its local header, and its data
/// through `Read`, which ends with an error if the data does not match its
/// CRC-32, authentication code or data descriptor.
#[derive(Debug)]
pub struct ZipStreamEntry<'a, R> {
    core: &'a mut PollZipStream<Blocking<R>>,
}

impl<R: Read> ZipStreamEntry<'_, R> {
    /// What the local header says of the entry.
    pub fn local(&self) -> LocalEntry<'_> {
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

impl<R: Read> Read for ZipStreamEntry<'_, R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        block_on_poll(|cx| self.core.poll_read(cx, buf))
    }
}
