//! The std face: [`ZipArchive`] over any `Read + Seek` (a file, a
//! `Cursor<&[u8]>`), the one reading core ([`PollZipArchive`]) over a
//! [`Blocking`] source.

use std::io::{self, Read, Seek};
use std::path::Path;

use lzflow_core::extract::ExtractOptions;

use lzflow_core::source::{block_on, block_on_poll, Blocking};

use crate::read::central_directory::CentralDirectory;
use crate::read::poll_archive::{PollZipArchive, PollZipEntryReader};
use crate::read::zip_options::ZipOptions;
use crate::ZipError;
use lzflow_core::extract_thread::FsCalls;

/// A zip archive opened for reading through its central directory.
#[derive(Debug)]
pub struct ZipArchive<R> {
    core: PollZipArchive<Blocking<R>>,
}

impl<R: Read + Seek> ZipArchive<R> {
    /// Opens an archive with default options (no password, no limits).
    pub fn open(reader: R) -> Result<Self, ZipError> {
        Self::open_with(reader, ZipOptions::new())
    }

    /// Opens an archive: locates and reads its central directory.
    pub fn open_with(reader: R, options: ZipOptions) -> Result<Self, ZipError> {
        let core = block_on(PollZipArchive::open(Blocking(reader), options))?;
        Ok(ZipArchive { core })
    }

    /// The central directory: entries by index ([`CentralDirectory::get`]),
    /// by name ([`CentralDirectory::find`]) and in order
    /// ([`CentralDirectory::iter`]), as borrowed views.
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

    /// A reader of entry `index`'s data.
    pub fn reader(&mut self, index: usize) -> Result<ZipEntryReader<'_, R>, ZipError> {
        let inner = block_on(self.core.reader(index))?;
        Ok(ZipEntryReader { inner })
    }

    /// A reader of the entry named `name` (its stored bytes).
    pub fn reader_by_name(&mut self, name: &str) -> Result<ZipEntryReader<'_, R>, ZipError> {
        let index = self
            .core
            .directory()
            .find(name.as_bytes())
            .ok_or(ZipError::NoSuchEntry)?;
        self.reader(index)
    }

    /// Extracts every entry below `dir` (created if missing) with the
    /// default [`ExtractOptions`]: existing files are refused before
    /// anything is written. See [`extract_to_with`](Self::extract_to_with).
    pub fn extract_to(&mut self, dir: impl AsRef<Path>) -> Result<(), ZipError> {
        self.extract_to_with(dir, &ExtractOptions::default())
    }

    /// Extracts every entry below `dir` under `options`, with the rules
    /// every lzflow container shares (see
    /// [`PollZipArchive::extract_to_with`]).
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

    /// Gives back the reader.
    pub fn into_inner(self) -> R {
        self.core.into_source().0
    }
}

/// A reader of one entry's data, from [`ZipArchive::reader`]. It ends with
/// an error if the data does not match the entry's CRC-32 or
/// authentication code.
#[derive(Debug)]
pub struct ZipEntryReader<'a, R> {
    inner: PollZipEntryReader<'a, Blocking<R>>,
}

impl<R: Read + Seek> Read for ZipEntryReader<'_, R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        block_on_poll(|cx| self.inner.poll_read(cx, buf))
    }
}
