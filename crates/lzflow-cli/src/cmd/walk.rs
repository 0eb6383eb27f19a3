//! The one walk behind `x` and `e`, for 7z and zip archives alike: it
//! chooses the entries the wildcards select, names them (with their paths
//! for `x`, by their last name for `e`) and sends each to disk through
//! `lzflow_core::extract::Extractor` (the library's rules: nothing outside
//! the target, nothing written through an existing file or link, the
//! overwrite policy) or, with `-so`, to standard output.

use std::collections::HashSet;
use std::io::Seek;
use std::io::{self, Read};
use std::path::PathBuf;

use lzflow::extract::{
    EntryAttrs, EntryKind, ExtractError, ExtractOptions, Extractor, Overwrite, Planned,
};

use crate::output::Sink;
use crate::select::Selection;

/// Where the selected entries go.
pub enum Dest {
    /// Below a directory.
    Disk {
        /// The target directory (created if missing).
        root: PathBuf,
        /// The overwrite policy and the rest of the extraction options.
        options: ExtractOptions,
        /// `e`: every file straight into `root` under its last name; no
        /// directory is created.
        flat: bool,
    },
    /// `-so`: the files' data, one after the other, on standard output.
    Stdout,
}

/// What one entry becomes.
#[derive(Debug)]
pub enum Step {
    /// Nothing: not selected, a directory under `e` or `-so`, or kept by
    /// the overwrite policy.
    Skip,
    /// A directory at this path below the target.
    Dir(PathBuf),
    /// A file at this path below the target.
    File(PathBuf),
    /// A file whose data goes to standard output.
    Stdout,
}

/// What the walk saw, for the report and the exit status.
#[derive(Debug, Default)]
pub struct Outcome {
    /// Entries the wildcards selected.
    pub selected: usize,
    /// Files of `e` not written because an earlier entry has their name
    /// (under the default overwrite policy).
    pub collisions: Vec<String>,
    /// Entries skipped because their paths would leave the target
    /// (`--skip-unsafe`).
    pub unsafe_paths: Vec<String>,
}

/// The walk's state over one archive.
pub struct Walk<'a> {
    selection: &'a Selection,
    unnamed: String,
    flat: bool,
    overwrite: Overwrite,
    ex: Option<Extractor>,
    out: Option<Sink>,
    /// The names `e` has given out, to find collisions.
    taken: HashSet<String>,
    outcome: Outcome,
}

impl<'a> Walk<'a> {
    /// A walk into `dest`; for a directory, the extractor is set up (and
    /// the directory created) here.
    pub fn new(dest: Dest, selection: &'a Selection, unnamed: &str) -> io::Result<Self> {
        let (ex, out, flat, overwrite) = match dest {
            Dest::Disk {
                root,
                options,
                flat,
            } => {
                let overwrite = options.overwrite;
                (Some(Extractor::new(root, options)?), None, flat, overwrite)
            }
            Dest::Stdout => (None, Some(Sink::stdout()), true, Overwrite::Always),
        };
        Ok(Walk {
            selection,
            unnamed: unnamed.to_string(),
            flat,
            overwrite,
            ex,
            out,
            taken: HashSet::new(),
            outcome: Outcome::default(),
        })
    }

    /// Decides what the entry stored as `name` becomes. Entries must be
    /// planned in archive order; an unsafe path, an existing file under
    /// the default policy and the like fail here, before their data is
    /// read.
    pub fn plan(&mut self, name: &str, is_dir: bool) -> Result<Step, ExtractError> {
        let name = if name.is_empty() {
            self.unnamed.clone()
        } else {
            name.to_string()
        };
        if !self.selection.selects(&name) {
            return Ok(Step::Skip);
        }
        self.outcome.selected += 1;
        if is_dir && self.flat {
            return Ok(Step::Skip);
        }
        let Some(ex) = &mut self.ex else {
            return Ok(Step::Stdout);
        };
        let stored = if self.flat {
            let base = name.trim_end_matches('/');
            let base = base.rsplit('/').next().unwrap_or(base).to_string();
            // Two entries with one last name: the first is kept unless
            // the user chose to overwrite (7-Zip asks here); by default
            // the other is reported, under -aos it is skipped quietly
            // like any file that exists.
            if !self.taken.insert(base.clone()) {
                match self.overwrite {
                    // The extractor renames it, or replaces the first.
                    Overwrite::Always | Overwrite::Rename => {}
                    Overwrite::Skip => return Ok(Step::Skip),
                    _ => {
                        self.outcome.collisions.push(name);
                        return Ok(Step::Skip);
                    }
                }
            }
            base
        } else {
            name.clone()
        };
        let kind = if is_dir {
            EntryKind::Directory
        } else {
            EntryKind::File
        };
        Ok(match ex.plan_one(&stored, kind)? {
            Planned::Skip => Step::Skip,
            Planned::SkipUnsafe => {
                self.outcome.unsafe_paths.push(name);
                Step::Skip
            }
            Planned::Write(rel) if is_dir => Step::Dir(rel),
            Planned::Write(rel) => Step::File(rel),
        })
    }

    /// Carries out `step` with the entry's data (read only for a file).
    pub fn write(&mut self, step: &Step, attrs: EntryAttrs, data: &mut dyn Read) -> io::Result<()> {
        match (step, &mut self.ex) {
            (Step::Skip, _) => {}
            (Step::Stdout, _) => {
                if let Some(out) = &mut self.out {
                    io::copy(data, out)?;
                }
            }
            (Step::Dir(rel), Some(ex)) => ex.make_dir(rel, attrs)?,
            (Step::File(rel), Some(ex)) => {
                let Some(mut file) = ex.create_file(rel, attrs)? else {
                    return Ok(());
                };
                match io::copy(data, &mut file) {
                    Ok(_) => ex.commit(file)?,
                    Err(e) => {
                        ex.discard(file)?;
                        return Err(e);
                    }
                }
            }
            (Step::Dir(_) | Step::File(_), None) => unreachable!("disk steps need an extractor"),
        }
        Ok(())
    }

    /// Ends the walk with its `result`: on success the directories get
    /// their modes and times and standard output is flushed; a wrong or
    /// missing password removes everything written (it is all garbage);
    /// any other error keeps what was completed.
    pub fn finish(self, result: io::Result<()>) -> io::Result<Outcome> {
        match result {
            Ok(()) => {
                if let Some(ex) = self.ex {
                    ex.finish()?;
                }
                if let Some(out) = self.out {
                    out.commit(None)?;
                }
                Ok(self.outcome)
            }
            Err(e) => {
                if is_password_error(&e) {
                    if let Some(ex) = self.ex {
                        ex.rollback();
                    }
                }
                Err(e)
            }
        }
    }
}

/// Whether `e` says the password was missing or wrong.
fn is_password_error(e: &io::Error) -> bool {
    use lzflow::sevenz::SevenZError;
    use lzflow::zip::ZipError;
    crate::report::chain_has(e, |err| {
        matches!(
            err.downcast_ref::<SevenZError>(),
            Some(SevenZError::WrongPassword | SevenZError::PasswordRequired)
        ) || matches!(
            err.downcast_ref::<ZipError>(),
            Some(ZipError::WrongPassword | ZipError::PasswordRequired)
        )
    })
}

/// Walks a 7z archive: every entry is planned before any is written, then
/// the archive is decoded once, in order, as far as the entries to write
/// need (folders without one are not decoded).
pub fn sevenz<R: Read + Seek>(
    archive: &mut lzflow::sevenz::Archive<R>,
    walk: &mut Walk<'_>,
) -> io::Result<()> {
    let steps = archive
        .entries()
        .iter()
        .map(|e| match e.is_anti {
            true => Ok(Step::Skip),
            false => walk.plan(&e.name, e.is_dir),
        })
        .collect::<Result<Vec<_>, _>>()?;
    let wanted: Vec<bool> = steps.iter().map(|s| !matches!(s, Step::Skip)).collect();
    if !wanted.contains(&true) {
        return Ok(());
    }
    // The walk stops at the wanted entries only, in order.
    let mut to_write = steps.iter().filter(|s| !matches!(s, Step::Skip));
    archive
        .for_each_entry_where(
            |i, _| wanted[i],
            |entry, data| {
                let step = to_write.next().unwrap_or(&Step::Skip);
                let attrs = EntryAttrs {
                    mode: entry.unix_mode(),
                    readonly: entry
                        .attributes
                        .is_some_and(|a| a & lzflow::sevenz::ATTR_READONLY != 0),
                    mtime: entry.mtime(),
                };
                walk.write(step, attrs, data)
            },
        )
        .map_err(io::Error::from)
}

/// Walks a zip archive through its central directory: every entry is
/// planned before any is written.
pub fn zip_file<R: Read + Seek>(
    archive: &mut lzflow::zip::ZipArchive<R>,
    walk: &mut Walk<'_>,
) -> io::Result<()> {
    let planned = archive
        .directory()
        .iter()
        .map(|e| {
            let attrs = EntryAttrs {
                mode: e.unix_mode(),
                // MS-DOS read-only attribute when no Unix mode says otherwise.
                readonly: e.unix_mode().is_none() && e.external_attributes() & 1 != 0,
                mtime: e.mtime(),
            };
            Ok((walk.plan(&e.name(), e.is_dir())?, attrs))
        })
        .collect::<Result<Vec<_>, ExtractError>>()?;
    for (i, (step, attrs)) in planned.iter().enumerate() {
        if matches!(step, Step::File(_) | Step::Stdout) {
            let mut data = archive.reader(i)?;
            walk.write(step, *attrs, &mut data)?;
        } else {
            walk.write(step, *attrs, &mut io::empty())?;
        }
    }
    Ok(())
}

/// Walks a zip archive read forward-only: each entry is planned when it
/// arrives (the local headers carry no Unix modes).
pub fn zip_stream<R: Read>(
    z: &mut lzflow::zip::ZipStreamReader<R>,
    walk: &mut Walk<'_>,
) -> io::Result<()> {
    while let Some(mut entry) = z.next_entry()? {
        let attrs = EntryAttrs {
            mtime: entry.local().mtime(),
            ..EntryAttrs::default()
        };
        let step = walk.plan(&entry.name(), entry.is_dir())?;
        walk.write(&step, attrs, &mut entry)?;
    }
    Ok(())
}
