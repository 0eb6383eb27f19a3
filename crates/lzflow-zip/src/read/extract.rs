//! Extraction to a directory under the rules every lzflow container
//! follows (`lzflow_core::extract`): no path outside the target, no
//! writing through existing files or links, existing files kept unless the
//! caller chose otherwise, no setuid/setgid/sticky bits, the umask
//! respected, and no file left for an entry whose data failed. One walk
//! ([`PollZipArchive::extract_to_with`]) for the std face and the async
//! faces alike.

use std::path::Path;

use lzflow_core::extract::{EntryAttrs, EntryKind, ExtractOptions, Planned};
use lzflow_core::extract_thread::{ExtractThread, FsCalls};
use lzflow_core::source::{PollRead, PollSource};

use crate::read::central_directory::CentralEntry;
use crate::read::poll_archive::PollZipArchive;
use crate::read::poll_stream::PollZipStream;
use crate::ZipError;

/// Bytes moved from an entry to its file per write (on the stack, in the
/// walk's state).
const COPY_CHUNK: usize = 16 << 10;

/// Ends the extraction after the walk's `result`: a wrong or missing
/// password removes everything written (it would be garbage or empty
/// shells); any other error keeps what was completed.
async fn close(ex: ExtractThread, result: Result<(), ZipError>) -> Result<(), ZipError> {
    let rolls_back =
        |e: &ZipError| matches!(e, ZipError::WrongPassword | ZipError::PasswordRequired);
    ex.close_after(result, rolls_back).await
}

fn kind(entry: &CentralEntry<'_>) -> EntryKind {
    if entry.is_dir() {
        EntryKind::Directory
    } else {
        EntryKind::File
    }
}

fn attrs(entry: &CentralEntry<'_>) -> EntryAttrs {
    EntryAttrs {
        mode: entry.unix_mode(),
        // MS-DOS attribute 0x01 when no Unix mode says otherwise.
        readonly: entry.unix_mode().is_none() && entry.external_attributes() & 1 != 0,
        mtime: entry.mtime(),
    }
}

impl<S: PollSource> PollZipArchive<S> {
    /// Extracts every entry below `dir` (created if missing) under
    /// `options`, the file-system calls made as `calls` says. Every path is
    /// checked first (absolute paths, `..`, drive letters, duplicates,
    /// existing files unless the policy says otherwise) and nothing is
    /// written if one fails; each file is written under a temporary name
    /// and moved into place once its CRC (or authentication code) has been
    /// verified; an entry whose data fails leaves no file (unless
    /// `keep_broken`), the entries before it stay. Symbolic links are
    /// written as regular files holding the target.
    pub async fn extract_to_with(
        &mut self,
        dir: &Path,
        options: &ExtractOptions,
        calls: FsCalls,
    ) -> Result<(), ZipError> {
        let mut ex = ExtractThread::start(dir, options.clone(), calls).await?;
        let names = self
            .directory()
            .iter()
            .map(|e| (e.name().into_owned(), kind(&e)))
            .collect();
        let plan = ex.plan(names).await?;
        let result = self.write_entries(&mut ex, plan).await;
        close(ex, result).await
    }

    async fn write_entries(
        &mut self,
        ex: &mut ExtractThread,
        plan: Vec<Planned>,
    ) -> Result<(), ZipError> {
        let mut buf = [0u8; COPY_CHUNK];
        for (i, step) in plan.into_iter().enumerate() {
            let Planned::Write(rel) = step else {
                continue;
            };
            let entry = self.directory().get(i).ok_or(ZipError::NoSuchEntry)?;
            let (is_dir, attrs) = (entry.is_dir(), attrs(&entry));
            if is_dir {
                ex.make_dir(rel, attrs).await?;
                continue;
            }
            if !ex.create_file(rel, attrs).await? {
                continue;
            }
            let mut reader = match self.reader(i).await {
                Ok(r) => r,
                Err(e) => {
                    // An earlier step's error, or the discard's, comes first.
                    ex.discard_file().await?;
                    return Err(e);
                }
            };
            ex.copy_file(&mut buf, |cx, b| reader.poll_read(cx, b))
                .await?;
        }
        Ok(())
    }
}

impl<S: PollRead> PollZipStream<S> {
    /// Extracts every entry below `dir` as it arrives, under the rules of
    /// [`PollZipArchive::extract_to_with`] (the file-system calls made as
    /// `calls` says), except that each path is checked when its entry
    /// arrives (the names of later entries are not known yet), so the
    /// entries before a refused one stay written. The local headers carry
    /// no Unix modes: files get the default mode (less the umask) and
    /// symbolic links arrive as files holding their target.
    pub async fn extract_to_with(
        &mut self,
        dir: &Path,
        options: &ExtractOptions,
        calls: FsCalls,
    ) -> Result<(), ZipError> {
        let mut ex = ExtractThread::start(dir, options.clone(), calls).await?;
        let result = self.write_stream_entries(&mut ex).await;
        close(ex, result).await
    }

    async fn write_stream_entries(&mut self, ex: &mut ExtractThread) -> Result<(), ZipError> {
        let mut buf = [0u8; COPY_CHUNK];
        while let Some(entry) = self.next_entry().await? {
            let kind = if entry.is_dir() {
                EntryKind::Directory
            } else {
                EntryKind::File
            };
            let attrs = EntryAttrs {
                mode: None,
                readonly: false,
                mtime: entry.mtime(),
            };
            let planned = ex.plan_one(&entry.name(), kind).await;
            let Planned::Write(rel) = planned? else {
                continue;
            };
            if kind == EntryKind::Directory {
                ex.make_dir(rel, attrs).await?;
                continue;
            }
            if !ex.create_file(rel, attrs).await? {
                continue;
            }
            ex.copy_file(&mut buf, |cx, b| self.poll_read(cx, b))
                .await?;
        }
        Ok(())
    }
}
