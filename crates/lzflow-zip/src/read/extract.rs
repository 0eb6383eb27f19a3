//! Extraction to a directory under the rules every lzflow container
//! follows (`lzflow_core::extract`): no path outside the target, no
//! writing through existing files or links, existing files kept unless the
//! caller chose otherwise, no setuid/setgid/sticky bits, the umask
//! respected, and no file left for an entry whose data failed. One walk
//! ([`PollZipArchive::extract_to_with`]) for the std face and the async
//! faces alike.

use std::future::poll_fn;
use std::io;
use std::path::Path;
use std::task::{Context, Poll};

use lzflow_core::extract::{EntryAttrs, EntryKind, ExtractOptions, Planned};
use lzflow_core::extract_thread::{CallError, Close, ExtractThread, FsCalls};
use lzflow_core::source::{PollRead, PollSource};

use crate::read::central_directory::CentralEntry;
use crate::read::poll_archive::PollZipArchive;
use crate::read::poll_stream::PollZipStream;
use crate::ZipError;

/// Bytes moved from an entry to its file per write (on the stack, in the
/// walk's state).
const COPY_CHUNK: usize = 16 << 10;

/// Writes the current file's data from `read`, then ends the file.
async fn write_file(
    ex: &mut ExtractThread,
    buf: &mut [u8],
    mut read: impl FnMut(&mut Context<'_>, &mut [u8]) -> Poll<io::Result<usize>>,
) -> Result<(), ZipError> {
    let data = loop {
        match poll_fn(|cx| read(cx, buf)).await {
            Ok(0) => break Ok(()),
            Ok(n) => {
                if let Err(e) = ex.write(&buf[..n]).await {
                    break Err(e);
                }
            }
            Err(e) => break Err(e),
        }
    };
    ex.end_file(data).await.map_err(CallError::into_error)
}

/// Ends the extraction with the walk's `result`: a wrong or missing
/// password removes everything written (it would be garbage or empty
/// shells); any other error keeps what was completed.
/// An error of an earlier step comes first (the extraction stopped there).
async fn close(ex: ExtractThread, result: Result<(), ZipError>) -> Result<(), ZipError> {
    let how = match &result {
        Ok(()) => Close::Finish,
        Err(ZipError::WrongPassword | ZipError::PasswordRequired) => Close::Rollback,
        Err(_) => Close::Abandon,
    };
    ex.close(how)
        .await
        .map_err(CallError::into_error::<ZipError>)?;
    result
}

/// The container's error for a failed step.
fn step_error(e: CallError) -> ZipError {
    e.into_error()
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
    /// Extracts every entry below `dir` under `options`, the file-system
    /// calls made as `calls` says: every path is planned first, then each
    /// entry is written in directory order.
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
        let plan = ex.plan(names).await.map_err(step_error)?;
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
                ex.make_dir(rel, attrs).await.map_err(step_error)?;
                continue;
            }
            if !ex.create_file(rel, attrs).await.map_err(step_error)? {
                continue;
            }
            let mut reader = match self.reader(i).await {
                Ok(r) => r,
                Err(e) => {
                    // An earlier step's error, or the discard's, comes first.
                    ex.discard_file().await.map_err(step_error)?;
                    return Err(e);
                }
            };
            write_file(ex, &mut buf, |cx, b| reader.poll_read(cx, b)).await?;
        }
        Ok(())
    }
}

impl<S: PollRead> PollZipStream<S> {
    /// Extracts every entry below `dir` as it arrives, under `options`,
    /// the file-system calls made as `calls` says.
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
            let Planned::Write(rel) = planned.map_err(step_error)? else {
                continue;
            };
            if kind == EntryKind::Directory {
                ex.make_dir(rel, attrs).await.map_err(step_error)?;
                continue;
            }
            if !ex.create_file(rel, attrs).await.map_err(step_error)? {
                continue;
            }
            write_file(ex, &mut buf, |cx, b| self.poll_read(cx, b)).await?;
        }
        Ok(())
    }
}
