//! The std face of the streamed listing: [`CentralDirectoryReader`] over
//! any `Read + Seek`, the one listing core
//! ([`PollCentralDirectoryReader`]) over a [`Blocking`] source.

use std::io::{Read, Seek};

use lzflow_core::source::{block_on, block_on_poll, Blocking};

use crate::read::central_directory::CentralEntry;
use crate::read::end_of_central_directory::CentralDirectoryLocation;
use crate::read::poll_directory::PollCentralDirectoryReader;
use crate::read::zip_options::ZipOptions;
use crate::ZipError;

/// The entries of an archive, listed from its central directory one at a
/// time without holding the directory: memory is one 64 KiB window
/// whatever the number of entries. Each record gets the checks
/// [`ZipArchive`](crate::ZipArchive) makes of it; the entries' data layout
/// (no overlaps) is checked only by `ZipArchive`, which reads data.
///
/// ```
/// # fn main() -> Result<(), lzflow_zip::ZipError> {
/// use std::io::Cursor;
/// use lzflow_zip::{CentralDirectoryReader, EntryOptions, ZipWriter};
///
/// let mut w = ZipWriter::new(Cursor::new(Vec::new()))?;
/// w.add_file("a.txt", &b"hello"[..], &EntryOptions::default())?;
/// let bytes = w.finish()?.into_inner();
///
/// let mut list = CentralDirectoryReader::open(Cursor::new(&bytes))?;
/// let mut names = Vec::new();
/// while let Some(entry) = list.next_entry()? {
///     names.push((entry.name().into_owned(), entry.uncompressed_size()));
/// }
/// assert_eq!(names, [("a.txt".to_string(), 5)]);
/// # Ok(())
/// # }
/// ```
#[derive(Debug)]
pub struct CentralDirectoryReader<R> {
    core: PollCentralDirectoryReader<Blocking<R>>,
}

impl<R: Read + Seek> CentralDirectoryReader<R> {
    /// Opens the directory with default options (their caps on the
    /// directory's size and entry count apply).
    pub fn open(reader: R) -> Result<Self, ZipError> {
        Self::open_with(reader, &ZipOptions::new())
    }

    /// Opens the directory: finds it through the end record and checks its
    /// size and entry count against `options`.
    pub fn open_with(reader: R, options: &ZipOptions) -> Result<Self, ZipError> {
        let core = block_on(PollCentralDirectoryReader::open(Blocking(reader), options))?;
        Ok(CentralDirectoryReader { core })
    }

    /// The directory's place, entry count and the archive comment, from
    /// the end record.
    pub fn location(&self) -> &CentralDirectoryLocation {
        self.core.location()
    }

    /// The next entry, `None` after the last.
    // Inlined so that a caller's loop keeps the entry in registers: through
    // memory, the returned `Result` cost more than checking the record.
    #[inline]
    pub fn next_entry(&mut self) -> Result<Option<CentralEntry<'_>>, ZipError> {
        let len = match self.core.next_in_window() {
            Some(len) => Some(len),
            None => self.read_on()?,
        };
        Ok(len.map(|len| self.core.entry(len)))
    }

    /// The slow path: more of the directory read, the end, or an error.
    #[cold]
    #[inline(never)]
    fn read_on(&mut self) -> Result<Option<usize>, ZipError> {
        block_on_poll(|cx| self.core.poll_advance(cx))
    }

    /// Gives back the reader.
    pub fn into_inner(self) -> R {
        self.core.into_source().0
    }
}
