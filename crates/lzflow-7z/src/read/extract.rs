//! Extraction to a directory under the rules every lzflow container
//! follows (`lzflow_core::extract`): no path outside the target, no
//! writing through existing files or links, existing files kept unless the
//! caller chose otherwise, no setuid/setgid/sticky bits, the umask
//! respected, and no file left for an entry whose data failed.
//!
//! [`Extraction`] is the one sequence of steps and
//! [`PollArchive::extract_to_with`] the one walk that drives it, for the
//! std face and the async faces alike.

use std::io::{Read, Seek};
use std::path::Path;
use std::task::{Context, Poll};

use lzflow_core::extract::{EntryAttrs, EntryKind, ExtractOptions, Planned};
use lzflow_core::extract_thread::{ExtractThread, FsCalls};
use lzflow_core::source::{block_on, PollSource};

use crate::read::archive::Archive;
use crate::read::entry::Entry;
use crate::read::poll_archive::PollArchive;
use crate::SevenZError;

/// Bytes moved from an entry to its file per write (on the stack, in the
/// walk's state).
const COPY_CHUNK: usize = 16 << 10;

fn kind(entry: &Entry) -> EntryKind {
    if entry.is_dir {
        EntryKind::Directory
    } else {
        EntryKind::File
    }
}

fn attrs(entry: &Entry) -> EntryAttrs {
    EntryAttrs {
        mode: entry.unix_mode(),
        readonly: entry
            .attributes
            .is_some_and(|a| a & crate::ATTR_READONLY != 0),
        mtime: entry.mtime(),
    }
}

/// One extraction of a 7z archive in progress: every path is checked
/// before anything is written ([`Extractor::plan`](lzflow_core::extract::Extractor::plan)), then each entry, in
/// archive order, is made a directory, skipped, or written to a file that
/// is committed once its data (and CRC) is good. The file-system calls go
/// through an [`ExtractThread`]: on the calling thread for the std face,
/// on a thread of their own for the async faces.
#[derive(Debug)]
pub struct Extraction {
    ex: ExtractThread,
    /// What becomes of each entry, by its position (`None`: an anti-item).
    steps: Vec<Option<Planned>>,
}

impl Extraction {
    /// Plans the extraction of `entries` (all of the archive's, in order)
    /// below `dir`, the file-system calls made as `calls` says; fails,
    /// before writing anything, on unsafe paths, duplicates, clashes and
    /// existing files as `options` say.
    pub async fn new(
        dir: &Path,
        options: &ExtractOptions,
        entries: &[Entry],
        calls: FsCalls,
    ) -> Result<Self, SevenZError> {
        let mut ex = ExtractThread::start(dir, options.clone(), calls).await?;
        let named = entries
            .iter()
            .filter(|e| !e.is_anti)
            .map(|e| (e.name.clone(), kind(e)))
            .collect();
        let mut planned = ex.plan(named).await?.into_iter();
        let steps = entries
            .iter()
            .map(|e| match e.is_anti {
                true => None,
                false => planned.next(),
            })
            .collect();
        Ok(Extraction { ex, steps })
    }

    /// Whether entry `index` is written (a file or a directory): what the
    /// walk must stop at ([`PollArchive::walk_where`]).
    pub fn writes(&self, index: usize) -> bool {
        matches!(self.steps.get(index), Some(Some(Planned::Write(_))))
    }

    /// Entry `index` (`entry`), met in archive order: creates it when it
    /// is a directory; true when it is a file to extract, made and waiting
    /// for its data ([`write`](Self::write), then
    /// [`end_file`](Self::end_file)); false: nothing to write, read
    /// nothing.
    pub async fn begin(&mut self, index: usize, entry: &Entry) -> Result<bool, SevenZError> {
        let Some(Some(Planned::Write(rel))) = self.steps.get_mut(index).map(Option::take) else {
            return Ok(false);
        };
        if entry.is_dir {
            self.ex.make_dir(rel, attrs(entry)).await?;
            return Ok(false);
        }
        Ok(self.ex.create_file(rel, attrs(entry)).await?)
    }

    /// Copies the current file's data from `read` (into `buf`) and ends
    /// the file: moved into place when all of it was read and its CRC
    /// verified, else removed (or kept, with `keep_broken`) and the error
    /// returned ([`ExtractThread::copy_file`]).
    pub async fn copy_file(
        &mut self,
        buf: &mut [u8],
        read: impl FnMut(&mut Context<'_>, &mut [u8]) -> Poll<std::io::Result<usize>>,
    ) -> Result<(), SevenZError> {
        Ok(self.ex.copy_file(buf, read).await?)
    }

    /// Ends the extraction with the walk's `result`: on success the
    /// directories get their permissions and times; a wrong or missing
    /// password removes everything this extraction wrote (it would all be
    /// garbage or empty shells); any other error keeps what was completed.
    /// An error of an earlier step comes first (the extraction stopped
    /// there).
    pub async fn finish(self, result: Result<(), SevenZError>) -> Result<(), SevenZError> {
        let rolls_back = |e: &SevenZError| {
            matches!(
                e,
                SevenZError::WrongPassword | SevenZError::PasswordRequired
            )
        };
        self.ex.close_after(result, rolls_back).await
    }
}

impl<R: Read + Seek> Archive<R> {
    /// Extracts every entry below `dir` (created if missing) with the
    /// default [`ExtractOptions`]: existing files are refused before
    /// anything is written. See [`extract_to_with`](Self::extract_to_with).
    pub fn extract_to(&mut self, dir: impl AsRef<Path>) -> Result<(), SevenZError> {
        self.extract_to_with(dir, &ExtractOptions::default())
    }

    /// Extracts every entry below `dir` (created if missing), decoding each
    /// folder once.
    ///
    /// Every path is checked first: entries whose path is absolute,
    /// contains `..` or names a drive, duplicates, and existing files
    /// (unless the policy overwrites or skips them) fail the extraction
    /// before anything is written. Directories on the way may not be
    /// symbolic links. Each file is written under a temporary name and
    /// moved into place once its CRC has been verified; an entry whose data
    /// fails leaves no file (unless `keep_broken`), the entries before it
    /// stay. A wrong password removes everything the extraction wrote.
    /// Symbolic-link entries are written as regular files holding the link
    /// target (never as links). Anti-items are skipped.
    pub fn extract_to_with(
        &mut self,
        dir: impl AsRef<Path>,
        options: &ExtractOptions,
    ) -> Result<(), SevenZError> {
        block_on(
            self.core_mut()
                .extract_to_with(dir.as_ref(), options, FsCalls::Inline),
        )
    }
}

impl<S: PollSource> PollArchive<S> {
    /// Extracts every entry below `dir` under `options`, the file-system
    /// calls made as `calls` says: the walk behind every face's
    /// `extract_to_with`.
    pub async fn extract_to_with(
        &mut self,
        dir: &Path,
        options: &ExtractOptions,
        calls: FsCalls,
    ) -> Result<(), SevenZError> {
        let mut x = Extraction::new(dir, options, self.entries(), calls).await?;
        let result = self.write_entries(&mut x).await;
        x.finish(result).await
    }

    /// Walks the entries `x` writes (the others, and folders without any,
    /// are not decoded) and writes them.
    async fn write_entries(&mut self, x: &mut Extraction) -> Result<(), SevenZError> {
        let mut walk = self.walk_where(|i, _| x.writes(i));
        let mut buf = [0u8; COPY_CHUNK];
        while let Some(i) = walk.advance().await? {
            if !x.begin(i, &walk.entries()[i]).await? {
                continue;
            }
            x.copy_file(&mut buf, |cx, b| walk.poll_read(cx, b)).await?;
        }
        Ok(())
    }
}
