//! Extraction to a directory under the rules every lzflow container
//! follows (`lzflow_core::extract`): no path outside the target, no
//! writing through existing files or links, existing files kept unless the
//! caller chose otherwise, no setuid/setgid/sticky bits, the umask
//! respected, and no file left for an entry whose data failed.
//!
//! [`Extraction`] is the one sequence of steps and
//! [`PollArchive::extract_to_with`] the one walk that drives it, for the
//! std face and the async faces alike.

use std::future::poll_fn;
use std::io::{Read, Seek, Write};
use std::path::Path;

use lzflow_core::extract::{EntryAttrs, EntryKind, ExtractOptions, Extractor, OutputFile, Planned};
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
/// before anything is written ([`Extractor::plan`]), then each entry, in
/// archive order, is made a directory, skipped, or written to an
/// [`OutputFile`] that is committed once its data (and CRC) is good.
#[derive(Debug)]
pub struct Extraction {
    ex: Extractor,
    /// What becomes of each entry, by its position (`None`: an anti-item).
    steps: Vec<Option<Planned>>,
}

impl Extraction {
    /// Plans the extraction of `entries` (all of the archive's, in order)
    /// below `dir`; fails, before writing anything, on unsafe paths,
    /// duplicates, clashes and existing files as `options` say.
    pub fn new(
        dir: &Path,
        options: &ExtractOptions,
        entries: &[Entry],
    ) -> Result<Self, SevenZError> {
        let mut ex = Extractor::new(dir, options.clone())?;
        let steps = entries
            .iter()
            .map(|e| match e.is_anti {
                true => Ok(None),
                false => ex.plan_one(&e.name, kind(e)).map(Some),
            })
            .collect::<Result<_, _>>()?;
        Ok(Extraction { ex, steps })
    }

    /// Whether entry `index` is written (a file or a directory): what the
    /// walk must stop at ([`PollArchive::walk_where`]).
    pub fn writes(&self, index: usize) -> bool {
        matches!(self.steps.get(index), Some(Some(Planned::Write(_))))
    }

    /// Entry `index` (`entry`), met in archive order: creates it when it
    /// is a directory, and gives the file to write its data into when it
    /// is a file to extract (`None`: nothing to write, read nothing).
    pub fn begin(
        &mut self,
        index: usize,
        entry: &Entry,
    ) -> Result<Option<OutputFile>, SevenZError> {
        let Some(Some(Planned::Write(rel))) = self.steps.get_mut(index).map(Option::take) else {
            return Ok(None);
        };
        if entry.is_dir {
            self.ex.make_dir(&rel, attrs(entry))?;
            return Ok(None);
        }
        Ok(self.ex.create_file(&rel, attrs(entry))?)
    }

    /// The entry's data was all read and its CRC verified: moves the file
    /// into place.
    pub fn commit(&mut self, out: OutputFile) -> Result<(), SevenZError> {
        Ok(self.ex.commit(out)?)
    }

    /// The entry's data failed: its file is removed (or kept, with
    /// `keep_broken`).
    pub fn discard(&mut self, out: OutputFile) -> Result<(), SevenZError> {
        Ok(self.ex.discard(out)?)
    }

    /// Ends the extraction with the walk's `result`: on success the
    /// directories get their permissions and times; a wrong or missing
    /// password removes everything this extraction wrote (it would all be
    /// garbage or empty shells); any other error keeps what was completed.
    pub fn finish(self, result: Result<(), SevenZError>) -> Result<(), SevenZError> {
        match result {
            Ok(()) => Ok(self.ex.finish()?),
            Err(e @ (SevenZError::WrongPassword | SevenZError::PasswordRequired)) => {
                self.ex.rollback();
                Err(e)
            }
            Err(e) => Err(e),
        }
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
        block_on(self.core_mut().extract_to_with(dir.as_ref(), options))
    }
}

impl<S: PollSource> PollArchive<S> {
    /// Extracts every entry below `dir` under `options`: the walk behind
    /// every face's `extract_to_with`.
    pub async fn extract_to_with(
        &mut self,
        dir: &Path,
        options: &ExtractOptions,
    ) -> Result<(), SevenZError> {
        let mut x = Extraction::new(dir, options, self.entries())?;
        let result = self.write_entries(&mut x).await;
        x.finish(result)
    }

    /// Walks the entries `x` writes (the others, and folders without any,
    /// are not decoded) and writes them.
    async fn write_entries(&mut self, x: &mut Extraction) -> Result<(), SevenZError> {
        let mut walk = self.walk_where(|i, _| x.writes(i));
        let mut buf = [0u8; COPY_CHUNK];
        while let Some(i) = walk.advance().await? {
            let Some(mut out) = x.begin(i, &walk.entries()[i])? else {
                continue;
            };
            loop {
                let written = match poll_fn(|cx| walk.poll_read(cx, &mut buf)).await {
                    Ok(0) => break,
                    Ok(n) => out.write_all(&buf[..n]),
                    Err(e) => Err(e),
                };
                if let Err(e) = written {
                    x.discard(out)?;
                    return Err(e.into());
                }
            }
            x.commit(out)?;
        }
        Ok(())
    }
}
