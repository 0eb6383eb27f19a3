//! Extraction to a directory under the rules every lzflow container
//! follows (`lzflow_core::extract`): no path outside the target, no
//! writing through existing files or links, existing files kept unless the
//! caller chose otherwise, no setuid/setgid/sticky bits, the umask
//! respected, and no file left for an entry whose data failed.

use std::io::{self, Read, Seek};
use std::path::Path;

use lzflow_core::extract::{EntryAttrs, EntryKind, ExtractOptions, Extractor, Planned};

use crate::archive::Archive;
use crate::entry::Entry;
use crate::SevenZError;

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
    /// Every path is checked first ([`Extractor::plan`]): entries whose
    /// path is absolute, contains `..` or names a drive, duplicates, and
    /// existing files (unless the policy overwrites or skips them) fail the
    /// extraction before anything is written. Directories on the way may
    /// not be symbolic links. Each file is written under a temporary name
    /// and moved into place once its CRC has been verified; an entry whose
    /// data fails leaves no file (unless `keep_broken`), the entries before
    /// it stay. A wrong password removes everything the extraction wrote.
    /// Symbolic-link entries are written as regular files holding the link
    /// target (never as links). Anti-items are skipped.
    pub fn extract_to_with(
        &mut self,
        dir: impl AsRef<Path>,
        options: &ExtractOptions,
    ) -> Result<(), SevenZError> {
        let mut ex = Extractor::new(dir.as_ref(), options.clone())?;
        let plan = ex.plan(
            self.entries()
                .iter()
                .filter(|e| !e.is_anti)
                .map(|e| (e.name.as_str(), kind(e))),
        )?;
        let mut steps = plan.into_iter();
        let result = self.for_each_entry(|entry, data| {
            if entry.is_anti {
                return Ok(());
            }
            let Some(Planned::Write(rel)) = steps.next() else {
                return Ok(());
            };
            let extract_err = |e| io::Error::from(SevenZError::Extract(e));
            if entry.is_dir {
                return ex.make_dir(&rel, attrs(entry)).map_err(extract_err);
            }
            let Some(mut out) = ex.create_file(&rel, attrs(entry)).map_err(extract_err)? else {
                return Ok(());
            };
            match io::copy(data, &mut out) {
                Ok(_) => ex.commit(out).map_err(extract_err),
                Err(e) => {
                    ex.discard(out).map_err(extract_err)?;
                    Err(e)
                }
            }
        });
        match result {
            Ok(()) => Ok(ex.finish()?),
            Err(e @ (SevenZError::WrongPassword | SevenZError::PasswordRequired)) => {
                ex.rollback();
                Err(e)
            }
            Err(e) => Err(e),
        }
    }
}
