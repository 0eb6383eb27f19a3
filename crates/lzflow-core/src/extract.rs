//! Writing archive entries to disk without harming the machine: the rules
//! every container's extraction follows (7z and zip).
//!
//! * Paths stay below the target: absolute paths, drive letters, `..`,
//!   backslash tricks and NULs are refused ([`safe_relative_path`]), and no
//!   directory on the way may be a symbolic link. Everything is made
//!   through the target directory opened once (`cap_std`), and each file
//!   through its parent directory opened from it, never by a path from the
//!   file system's root: a directory swapped for a symbolic link while the
//!   extraction runs cannot carry a write, a rename or a permission change
//!   outside the target.
//! * Nothing is written through an existing file or link: each file is
//!   written to a new temporary file in its directory (created with
//!   `O_EXCL`, so not even a dangling link is followed) and then moved into
//!   place. A hard link in the target can never carry a write outside it.
//! * Existing files are kept unless the caller chose [`Overwrite::Always`];
//!   with [`Overwrite::Never`] (the default) the clash is reported before
//!   anything is written, duplicate names in the archive included, and
//!   [`Overwrite::Rename`] writes such entries under free names.
//! * Permission bits come from the archive without setuid, setgid and
//!   sticky bits, and files are created with them so the process umask
//!   applies, as for any file the user creates.
//! * An entry whose data fails leaves no file of its name (unless
//!   [`ExtractOptions::keep_broken`]); [`Extractor::rollback`] removes
//!   everything an extraction created (used when the password is wrong).
//! * A program ended by a signal calls [`remove_partial_files`] first, so
//!   that not even the temporary file of the entry being written is left.

use std::collections::{HashMap, HashSet};
use std::fmt;
use std::fs::{self, File};
use std::io::{self, Write};
use std::path::{Component, Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::SystemTime;

use cap_std::fs::Dir;

use crate::{CoderError, Culprit};

/// What extraction does when an output path already exists (on disk, or
/// written earlier by the same extraction for a duplicate name).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum Overwrite {
    /// Refuse: the extraction fails with [`ExtractError::Exists`] (or
    /// [`ExtractError::Duplicate`]) before anything is written.
    #[default]
    Never,
    /// Keep the existing file and skip the entry.
    Skip,
    /// Replace the existing file (never a directory) with the entry.
    Always,
    /// Write the entry under the first free name beside its own, as
    /// 7-Zip's `-aou` does: `a_1.txt`, `a_2.txt` (`noext_1`, `.rc_1`); what
    /// is there already (a file, a link, a directory, or an earlier entry
    /// of the name) stays.
    Rename,
}

/// What extraction does with an entry whose path would leave the target.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum PathPolicy {
    /// The extraction fails with [`ExtractError::UnsafePath`] before
    /// anything is written.
    #[default]
    Refuse,
    /// Such entries are skipped; the others are extracted.
    Skip,
}

/// How an archive is extracted: one set of options for every container and
/// for sync and async extraction alike.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct ExtractOptions {
    /// Existing files: refuse (default), skip or replace.
    pub overwrite: Overwrite,
    /// Keep the partial file of an entry whose data failed (under its own
    /// name). Off by default: a failed entry leaves no file.
    pub keep_broken: bool,
    /// Apply the stored permission bits (never setuid, setgid or sticky;
    /// the umask still applies). On by default.
    pub preserve_permissions: bool,
    /// Apply the stored modification times. On by default.
    pub preserve_times: bool,
    /// Entries whose path would leave the target: refuse (default) or skip.
    pub paths: PathPolicy,
    /// The name given to an entry stored without one (7z allows it); 7-Zip
    /// uses the archive's file name without its extension, and so does
    /// `lzflow x`. Defaults to [`DEFAULT_UNNAMED`].
    pub unnamed: String,
    /// The entries to extract (all when `None`, the default); see
    /// [`with_select`](Self::with_select).
    pub select: Option<Select>,
}

/// Which entries an extraction writes: a test of each entry's name
/// ([`ExtractOptions::with_select`]). Two are equal when they are the
/// same test (clones of one another).
#[derive(Clone)]
pub struct Select(Arc<dyn Fn(&str) -> bool + Send + Sync>);

impl Select {
    /// A selection of the entries whose names pass `test`.
    pub fn new(test: impl Fn(&str) -> bool + Send + Sync + 'static) -> Self {
        Select(Arc::new(test))
    }

    /// Whether the entry named `name` is selected.
    pub fn selects(&self, name: &str) -> bool {
        (self.0)(name)
    }
}

impl fmt::Debug for Select {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Select(..)")
    }
}

impl PartialEq for Select {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

impl Eq for Select {}

/// The name of an entry stored without one when the caller gave none.
pub const DEFAULT_UNNAMED: &str = "[no name]";

impl Default for ExtractOptions {
    fn default() -> Self {
        ExtractOptions {
            overwrite: Overwrite::Never,
            keep_broken: false,
            preserve_permissions: true,
            preserve_times: true,
            paths: PathPolicy::Refuse,
            unnamed: DEFAULT_UNNAMED.to_string(),
            select: None,
        }
    }
}

impl ExtractOptions {
    /// Sets the overwrite policy.
    pub fn with_overwrite(mut self, overwrite: Overwrite) -> Self {
        self.overwrite = overwrite;
        self
    }

    /// Keeps (or not) the partial file of an entry whose data failed.
    pub fn with_keep_broken(mut self, keep: bool) -> Self {
        self.keep_broken = keep;
        self
    }

    /// Applies (or not) the stored permission bits.
    pub fn with_preserve_permissions(mut self, preserve: bool) -> Self {
        self.preserve_permissions = preserve;
        self
    }

    /// Applies (or not) the stored modification times.
    pub fn with_preserve_times(mut self, preserve: bool) -> Self {
        self.preserve_times = preserve;
        self
    }

    /// Sets the policy for paths that would leave the target.
    pub fn with_paths(mut self, paths: PathPolicy) -> Self {
        self.paths = paths;
        self
    }

    /// Sets the name of entries stored without one.
    pub fn with_unnamed(mut self, name: impl Into<String>) -> Self {
        self.unnamed = name.into();
        self
    }

    /// Extracts only the entries whose names pass `test` (the name as the
    /// archive stores it, `/`-separated; a directory's may end in `/`; an
    /// entry stored without a name is asked as [`unnamed`](Self::unnamed)).
    /// The others are passed over without a look at their paths, and the
    /// containers do not decode what only they need: a 7z folder with no
    /// selected entry is never decoded. The parent directories of a
    /// selected file are created even when their own entries are not
    /// selected.
    pub fn with_select(mut self, test: impl Fn(&str) -> bool + Send + Sync + 'static) -> Self {
        self.select = Some(Select::new(test));
        self
    }
}

/// Why an entry could not be written.
#[derive(Debug)]
#[non_exhaustive]
pub enum ExtractError {
    /// The entry's path would be written outside the target directory.
    UnsafePath {
        /// The entry's stored path.
        path: String,
    },
    /// A file to be written already exists and the policy is
    /// [`Overwrite::Never`].
    Exists {
        /// The existing file.
        path: PathBuf,
    },
    /// Two entries have the same path and the policy is
    /// [`Overwrite::Never`].
    Duplicate {
        /// The entries' path below the target.
        path: PathBuf,
    },
    /// A file and a directory want the same path.
    Clash {
        /// The path below the target (or on disk) both want.
        path: PathBuf,
        /// What is (or will be) there already: "a directory", "a file", "a
        /// symbolic link".
        existing: &'static str,
        /// What the entry needs there: "a file" or "a directory".
        wanted: &'static str,
    },
    /// Creating, writing or moving a file failed.
    Io {
        /// The path being written.
        path: PathBuf,
        /// The system's error.
        source: io::Error,
    },
}

impl fmt::Display for ExtractError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ExtractError::UnsafePath { path } => write!(
                f,
                "refusing to extract {path:?}: it would be written outside the target directory"
            ),
            ExtractError::Exists { path } => write!(
                f,
                "{} already exists (choose to overwrite or to skip existing files)",
                path.display()
            ),
            ExtractError::Duplicate { path } => write!(
                f,
                "{} appears more than once in the archive (choose to overwrite or to skip existing files)",
                path.display()
            ),
            ExtractError::Clash {
                path,
                existing,
                wanted,
            } => write!(
                f,
                "{} is {existing}, but an entry needs {wanted} there",
                path.display()
            ),
            ExtractError::Io { path, .. } => write!(f, "cannot write {}", path.display()),
        }
    }
}

impl std::error::Error for ExtractError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            ExtractError::Io { source, .. } => Some(source),
            _ => None,
        }
    }
}

impl CoderError for ExtractError {
    fn culprit(&self) -> Culprit {
        match self {
            ExtractError::UnsafePath { .. } => Culprit::Corrupt,
            ExtractError::Exists { .. }
            | ExtractError::Duplicate { .. }
            | ExtractError::Clash { .. } => Culprit::Exists,
            ExtractError::Io { .. } => Culprit::Io,
        }
    }
}

impl ExtractError {
    pub(crate) fn io(path: &Path, source: io::Error) -> Self {
        ExtractError::Io {
            path: path.to_path_buf(),
            source,
        }
    }

    /// The `io::ErrorKind` this error converts to: the system's own kind
    /// for [`ExtractError::Io`], else the culprit's.
    pub fn io_kind(&self) -> io::ErrorKind {
        match self {
            ExtractError::Io { source, .. } => source.kind(),
            other => other.culprit().io_kind(),
        }
    }
}

impl From<ExtractError> for io::Error {
    fn from(e: ExtractError) -> Self {
        io::Error::new(e.io_kind(), e)
    }
}

/// The entry's path below the target, or `None` when it is absolute,
/// climbs with `..`, names a drive, holds a NUL or is empty. Both `/` and
/// `\` count as separators so an archive made on either system is checked
/// the same way.
pub fn safe_relative_path(name: &str) -> Option<PathBuf> {
    if name.starts_with('/') || name.starts_with('\\') || name.contains('\0') {
        return None;
    }
    let mut out = PathBuf::new();
    for (i, part) in name.split(['/', '\\']).enumerate() {
        match part {
            "" | "." => continue,
            ".." => return None,
            _ => {}
        }
        let b = part.as_bytes();
        if i == 0 && b.len() >= 2 && b[1] == b':' && b[0].is_ascii_alphabetic() {
            return None;
        }
        // Whatever the platform makes of the component must stay a plain
        // name (no prefix, root or parent).
        let mut comps = Path::new(part).components();
        match (comps.next(), comps.next()) {
            (Some(Component::Normal(_)), None) => out.push(part),
            _ => return None,
        }
    }
    (!out.as_os_str().is_empty()).then_some(out)
}

/// What an entry is, as extraction needs to know it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EntryKind {
    /// A regular file (symbolic links are written as files holding the
    /// target, never as links).
    File,
    /// A directory.
    Directory,
}

/// The metadata extraction applies to an entry.
#[derive(Debug, Clone, Copy, Default)]
pub struct EntryAttrs {
    /// Stored unix permission bits (the type bits are ignored).
    pub mode: Option<u32>,
    /// The entry is marked read-only (DOS attribute) and has no unix mode.
    pub readonly: bool,
    /// Stored modification time.
    pub mtime: Option<SystemTime>,
}

impl EntryAttrs {
    /// The permission bits to apply: the stored ones without setuid,
    /// setgid and sticky (a stored mode of 0 carries none worth applying).
    fn permissions(&self) -> Option<u32> {
        match self.mode.map(|m| m & 0o777) {
            Some(m) if m != 0 => Some(m),
            _ if self.readonly => Some(0o444),
            _ => None,
        }
    }
}

/// Where each entry goes: the result of [`Extractor::plan`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Planned {
    /// Write the entry at this path below the target.
    Write(PathBuf),
    /// Skip the entry: not selected ([`ExtractOptions::with_select`]), or
    /// an existing file or an earlier duplicate under [`Overwrite::Skip`].
    Skip,
    /// Skip the entry: its path would leave the target (under
    /// [`PathPolicy::Skip`]); a separate answer so that callers can say so.
    SkipUnsafe,
}

/// Writes one archive's entries below a target directory under the rules
/// in the module docs. Containers drive it: [`plan`](Self::plan) every
/// path first, then [`create_file`](Self::create_file) /
/// [`commit`](Self::commit) or [`make_dir`](Self::make_dir) per entry in
/// archive order, then [`finish`](Self::finish).
#[derive(Debug)]
pub struct Extractor {
    root: PathBuf,
    /// The target directory, opened once: what the extraction makes, it
    /// makes through this handle (paths below are relative to it).
    dir: Arc<Dir>,
    /// The directory the last file was made in, opened from `dir`, and
    /// where: the next file of that directory is made through it too.
    last_parent: Option<(PathBuf, Arc<Dir>)>,
    options: ExtractOptions,
    /// Files and directories this extraction created (relative to the
    /// target), in order, for [`rollback`](Self::rollback).
    created: Vec<(PathBuf, EntryKind)>,
    /// The directories among them (only those get the archive's modes).
    created_dirs: HashSet<PathBuf>,
    /// Every path planned so far, with what it needs there.
    wanted: HashMap<PathBuf, EntryKind>,
    /// Under [`Overwrite::Rename`]: the last number tried for each name,
    /// so that many entries of one name cost one try each.
    renamed: HashMap<PathBuf, u64>,
    /// Directory entries whose permissions and time are applied last.
    dirs: Vec<(PathBuf, EntryAttrs)>,
    temp_seq: u64,
}

/// A file being written under a temporary name; [`Extractor::commit`]
/// moves it into place. Dropped without that, the temporary file is
/// removed.
#[derive(Debug)]
pub struct OutputFile {
    file: Option<File>,
    /// The directory the file is made in, opened from the target's handle
    /// (when the first file of that directory was created); the temporary
    /// file is renamed, linked or removed through it.
    parent: Arc<Dir>,
    /// The names in `parent` of the temporary file and of the file.
    temp_name: PathBuf,
    target_name: PathBuf,
    /// Where the file goes, relative to the target.
    rel: PathBuf,
    /// The same two as full paths (messages, the signal cleanup).
    temp: PathBuf,
    target: PathBuf,
    attrs: EntryAttrs,
}

impl Write for OutputFile {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        match &mut self.file {
            Some(f) => f.write(buf),
            None => Err(io::ErrorKind::BrokenPipe.into()),
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        match &mut self.file {
            Some(f) => f.flush(),
            None => Ok(()),
        }
    }
}

impl OutputFile {
    /// The path the file will have once committed.
    pub fn target(&self) -> &Path {
        &self.target
    }
}

impl Drop for OutputFile {
    fn drop(&mut self) {
        if self.file.take().is_some() {
            let _ = self.parent.remove_file(&self.temp_name);
            forget_partial(&self.temp);
        }
    }
}

/// The temporary files of the entries being written in this process (by
/// every extractor), and whether [`remove_partial_files`] has run.
static PARTIALS: Mutex<Partials> = Mutex::new(Partials {
    paths: Vec::new(),
    stopped: false,
});

struct Partials {
    /// A few at most: one per entry being written.
    paths: Vec<PathBuf>,
    stopped: bool,
}

fn partials() -> MutexGuard<'static, Partials> {
    // The list stays consistent whatever panicked while it was held.
    PARTIALS.lock().unwrap_or_else(PoisonError::into_inner)
}

fn forget_partial(temp: &Path) {
    let mut p = partials();
    if let Some(i) = p.paths.iter().position(|q| q == temp) {
        p.paths.swap_remove(i);
    }
}

/// Removes the temporary file of every entry being extracted in this
/// process, for a program about to end on a signal (Ctrl+C), whose
/// destructors do not run: without this, an interrupted extraction leaves
/// a hidden `.lzflow-*.partial` file beside the entry it was writing.
/// Files already moved into place are complete and stay. Afterwards no
/// extractor in the process starts another file: [`Extractor::create_file`]
/// fails with an [`ExtractError::Io`] error ("extraction stopped").
pub fn remove_partial_files() {
    let mut p = partials();
    p.stopped = true;
    for path in p.paths.drain(..) {
        let _ = fs::remove_file(path);
    }
}

impl Extractor {
    /// An extractor writing below `root` (created if missing).
    pub fn new(root: impl Into<PathBuf>, options: ExtractOptions) -> Result<Self, ExtractError> {
        let root = root.into();
        fs::create_dir_all(&root).map_err(|e| ExtractError::io(&root, e))?;
        let dir = Dir::open_ambient_dir(&root, cap_std::ambient_authority())
            .map_err(|e| ExtractError::io(&root, e))?;
        Ok(Extractor {
            root,
            dir: Arc::new(dir),
            last_parent: None,
            options,
            created: Vec::new(),
            created_dirs: HashSet::new(),
            wanted: HashMap::new(),
            renamed: HashMap::new(),
            dirs: Vec::new(),
            temp_seq: 0,
        })
    }

    /// The options in force.
    pub fn options(&self) -> &ExtractOptions {
        &self.options
    }

    /// Decides where every entry goes before anything is written: refuses
    /// (or skips) unsafe paths, names unnamed entries, finds duplicate names
    /// and file/directory clashes inside the archive, and, unless the
    /// policy is [`Overwrite::Always`], files that exist already. With the
    /// default options any of these fails the whole extraction here.
    pub fn plan<'a>(
        &mut self,
        entries: impl IntoIterator<Item = (&'a str, EntryKind)>,
    ) -> Result<Vec<Planned>, ExtractError> {
        entries
            .into_iter()
            .map(|(name, kind)| self.plan_one(name, kind))
            .collect()
    }

    /// Plans one more entry, after those planned before it, by the rules
    /// of [`plan`](Self::plan): for readers that meet entries one at a
    /// time (a forward-only zip reader), which cannot check every path
    /// before writing the first.
    pub fn plan_one(&mut self, name: &str, kind: EntryKind) -> Result<Planned, ExtractError> {
        let name = if name.is_empty() {
            self.options.unnamed.as_str()
        } else {
            name
        };
        if self
            .options
            .select
            .as_ref()
            .is_some_and(|s| !s.selects(name))
        {
            return Ok(Planned::Skip);
        }
        let Some(rel) = safe_relative_path(name) else {
            return match self.options.paths {
                PathPolicy::Refuse => Err(ExtractError::UnsafePath {
                    path: name.to_string(),
                }),
                PathPolicy::Skip => Ok(Planned::SkipUnsafe),
            };
        };
        // Every path the archive writes, with what it needs there; parents
        // of files are directories.
        let wanted = &mut self.wanted;
        for parent in rel.ancestors().skip(1) {
            if parent.as_os_str().is_empty() {
                break;
            }
            match wanted.insert(parent.to_path_buf(), EntryKind::Directory) {
                Some(EntryKind::File) => return Err(clash(parent, EntryKind::File)),
                Some(EntryKind::Directory) => break,
                None => {}
            }
        }
        let mut step = Planned::Write(rel.clone());
        let renaming = kind == EntryKind::File && self.options.overwrite == Overwrite::Rename;
        if renaming
            && (wanted.contains_key(&rel) || fs::symlink_metadata(self.root.join(&rel)).is_ok())
        {
            let free = self.free_name(&rel);
            self.wanted.insert(free.clone(), EntryKind::File);
            return Ok(Planned::Write(free));
        }
        match (wanted.insert(rel.clone(), kind), kind) {
            (None, _) | (Some(EntryKind::Directory), EntryKind::Directory) => {}
            (Some(EntryKind::File), EntryKind::File) => match self.options.overwrite {
                Overwrite::Never => return Err(ExtractError::Duplicate { path: rel }),
                Overwrite::Skip => step = Planned::Skip,
                Overwrite::Always | Overwrite::Rename => {}
            },
            (Some(existing), _) => {
                return Err(clash(&rel, existing));
            }
        }
        let path = self.root.join(&rel);
        if let Ok(m) = fs::symlink_metadata(&path) {
            let file_type = m.file_type();
            match kind {
                EntryKind::File if file_type.is_dir() => {
                    return Err(ExtractError::Clash {
                        path,
                        existing: "a directory",
                        wanted: "a file",
                    })
                }
                EntryKind::File => {
                    if self.keep_existing(&path)? {
                        step = Planned::Skip;
                    }
                }
                EntryKind::Directory if file_type.is_symlink() => {
                    return Err(ExtractError::UnsafePath {
                        path: name.to_string(),
                    })
                }
                EntryKind::Directory if !file_type.is_dir() => {
                    return Err(ExtractError::Clash {
                        path,
                        existing: "a file",
                        wanted: "a directory",
                    })
                }
                EntryKind::Directory => {}
            }
        }
        Ok(step)
    }

    /// The first name `stem_N.ext` beside `rel` (N from 1) that no entry
    /// was planned at and nothing on disk has.
    fn free_name(&mut self, rel: &Path) -> PathBuf {
        let name = rel.file_name().unwrap_or_default().to_string_lossy();
        // The extension is after the last dot, unless that dot starts the
        // name (`.rc` has none).
        let (stem, ext) = match name.rfind('.') {
            Some(i) if i > 0 => (&name[..i], &name[i..]),
            _ => (&name[..], ""),
        };
        let n = self.renamed.entry(rel.to_path_buf()).or_insert(0);
        loop {
            *n += 1;
            let candidate = rel.with_file_name(format!("{stem}_{n}{ext}"));
            if !self.wanted.contains_key(&candidate)
                && fs::symlink_metadata(self.root.join(&candidate)).is_err()
            {
                return candidate;
            }
        }
    }

    /// What the overwrite policy says of an existing file at `path`: `true`
    /// to keep it (skip the entry), `false` to replace it, or
    /// [`ExtractError::Exists`] (also under [`Overwrite::Rename`], which
    /// planned a free name: something took it meanwhile).
    fn keep_existing(&self, path: &Path) -> Result<bool, ExtractError> {
        match self.options.overwrite {
            Overwrite::Never | Overwrite::Rename => Err(ExtractError::Exists {
                path: path.to_path_buf(),
            }),
            Overwrite::Skip => Ok(true),
            Overwrite::Always => Ok(false),
        }
    }

    /// Creates the directories from the target down to `rel`, refusing to
    /// go through a symbolic link (which could point anywhere) or a file;
    /// gives `rel` back.
    fn make_parents(
        &mut self,
        rel: &Path,
        wanted_last: EntryKind,
    ) -> Result<PathBuf, ExtractError> {
        let mut at = PathBuf::new();
        let n = rel.components().count();
        for (i, comp) in rel.components().enumerate() {
            at.push(comp);
            let last = i + 1 == n;
            match self.dir.symlink_metadata(&at) {
                Ok(m) if m.file_type().is_symlink() => {
                    return Err(ExtractError::UnsafePath {
                        path: rel.display().to_string(),
                    })
                }
                Ok(m) if m.is_dir() => {}
                Ok(_) => {
                    let existing = "a file";
                    let wanted = if last {
                        wanted_last
                    } else {
                        EntryKind::Directory
                    };
                    return Err(ExtractError::Clash {
                        path: self.root.join(&at),
                        existing,
                        wanted: kind_name(wanted),
                    });
                }
                Err(e) if e.kind() == io::ErrorKind::NotFound => {
                    self.dir
                        .create_dir(&at)
                        .map_err(|e| ExtractError::io(&self.root.join(&at), e))?;
                    self.created.push((at.clone(), EntryKind::Directory));
                    self.created_dirs.insert(at.clone());
                }
                Err(e) => return Err(ExtractError::io(&self.root.join(&at), e)),
            }
        }
        Ok(at)
    }

    /// Creates the directory entry `rel` (and its parents); its permissions
    /// and time are applied by [`finish`](Self::finish), after its
    /// contents are written.
    pub fn make_dir(&mut self, rel: &Path, attrs: EntryAttrs) -> Result<(), ExtractError> {
        let at = self.make_parents(rel, EntryKind::Directory)?;
        // Only directories this extraction created get the archive's
        // permissions; an existing one is left as the user has it.
        if self.created_dirs.contains(&at) {
            self.dirs.push((at, attrs));
        }
        Ok(())
    }

    /// Starts writing the file entry `rel`: creates its parents and a new
    /// temporary file beside it. `None` when the entry is skipped because
    /// the file exists and the policy is [`Overwrite::Skip`].
    pub fn create_file(
        &mut self,
        rel: &Path,
        attrs: EntryAttrs,
    ) -> Result<Option<OutputFile>, ExtractError> {
        let parent_rel = match rel.parent() {
            Some(p) if !p.as_os_str().is_empty() => self.make_parents(p, EntryKind::Directory)?,
            _ => PathBuf::new(),
        };
        let parent_path = self.root.join(&parent_rel);
        // Opened once through the target's handle: whatever happens to the
        // path afterwards, the file is made, linked and renamed in this
        // directory (which stays inside the target).
        let parent = match &self.last_parent {
            _ if parent_rel.as_os_str().is_empty() => Arc::clone(&self.dir),
            Some((at, dir)) if *at == parent_rel => Arc::clone(dir),
            _ => {
                let dir = self
                    .dir
                    .open_dir(&parent_rel)
                    .map_err(|e| ExtractError::io(&parent_path, e))?;
                let dir = Arc::new(dir);
                self.last_parent = Some((parent_rel.clone(), Arc::clone(&dir)));
                dir
            }
        };
        let target_name = PathBuf::from(rel.file_name().unwrap_or_default());
        let target = parent_path.join(&target_name);
        match parent.symlink_metadata(&target_name) {
            Ok(m) if m.is_dir() => {
                return Err(ExtractError::Clash {
                    path: target,
                    existing: "a directory",
                    wanted: "a file",
                })
            }
            Ok(_) if self.keep_existing(&target)? => return Ok(None),
            // Replaced when the file is moved into place.
            Ok(_) | Err(_) => {}
        }
        let mode = if self.options.preserve_permissions {
            attrs.permissions()
        } else {
            None
        };
        loop {
            self.temp_seq += 1;
            let temp_name = PathBuf::from(format!(
                ".lzflow-{}-{}.partial",
                std::process::id(),
                self.temp_seq
            ));
            let temp = parent_path.join(&temp_name);
            // Created and listed under the lock: `remove_partial_files`
            // sees every temporary file or stops it being made.
            let mut registry = partials();
            if registry.stopped {
                // Not `Interrupted`, which loops take as "try again".
                let stopped = io::Error::other("extraction stopped (remove_partial_files)");
                return Err(ExtractError::io(&temp, stopped));
            }
            match create_new(&parent, &temp_name, mode) {
                Ok(file) => {
                    registry.paths.push(temp.clone());
                    return Ok(Some(OutputFile {
                        file: Some(file),
                        parent,
                        temp_name,
                        target_name,
                        rel: rel.to_path_buf(),
                        temp,
                        target,
                        attrs,
                    }));
                }
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists => continue,
                Err(e) => return Err(ExtractError::io(&temp, e)),
            }
        }
    }

    /// Moves a completely written file into place, with its time and (off
    /// unix) read-only flag. Under [`Overwrite::Never`] and
    /// [`Overwrite::Skip`] a file that appeared meanwhile is not replaced.
    pub fn commit(&mut self, mut out: OutputFile) -> Result<(), ExtractError> {
        let file = out.file.take().expect("an output file is committed once");
        let result = self.place(&file, &out);
        if result.is_err() {
            let _ = out.parent.remove_file(&out.temp_name);
        }
        // Moved into place, or removed: no longer partial.
        forget_partial(&out.temp);
        result
    }

    /// Settles the file of an entry whose data failed: removed, or with
    /// [`ExtractOptions::keep_broken`] moved into place like a good one.
    pub fn discard(&mut self, out: OutputFile) -> Result<(), ExtractError> {
        if self.options.keep_broken {
            self.commit(out)
        } else {
            drop(out);
            Ok(())
        }
    }

    fn place(&mut self, file: &File, out: &OutputFile) -> Result<(), ExtractError> {
        let io_err = |e| ExtractError::io(&out.target, e);
        if self.options.preserve_times {
            if let Some(t) = out.attrs.mtime {
                file.set_modified(t).map_err(io_err)?;
            }
        }
        #[cfg(not(unix))]
        if self.options.preserve_permissions && out.attrs.permissions() == Some(0o444) {
            let mut p = file.metadata().map_err(io_err)?.permissions();
            p.set_readonly(true);
            file.set_permissions(p).map_err(io_err)?;
        }
        let (dir, temp, name) = (&out.parent, &out.temp_name, &out.target_name);
        if self.options.overwrite == Overwrite::Always {
            // Replaces a file or a link itself, never what a link points to.
            dir.rename(temp, dir, name).map_err(io_err)?;
        } else {
            // A hard link fails when the name exists: no window in which a
            // file that appeared meanwhile could be replaced. File systems
            // without hard links: check, then rename.
            let placed = match dir.hard_link(temp, dir, name) {
                Ok(()) => {
                    let _ = dir.remove_file(temp);
                    true
                }
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists => false,
                Err(_) if dir.symlink_metadata(name).is_ok() => false,
                Err(_) => {
                    dir.rename(temp, dir, name).map_err(io_err)?;
                    true
                }
            };
            if !placed {
                let _ = dir.remove_file(temp);
                // Never: refused; Skip: the file that appeared stays.
                self.keep_existing(&out.target)?;
                return Ok(());
            }
        }
        self.created.push((out.rel.clone(), EntryKind::File));
        Ok(())
    }

    /// Applies the directory entries' permissions and times, deepest first
    /// so that writing into a directory does not undo its time and a
    /// read-only directory does not block its children.
    pub fn finish(mut self) -> Result<(), ExtractError> {
        let dirs = std::mem::take(&mut self.dirs);
        for (rel, attrs) in dirs.iter().rev() {
            // Through a handle opened from the target's, and not through
            // a link that replaced the directory.
            let Ok(dir) = open_dir_nofollow(&self.dir, rel) else {
                continue;
            };
            if self.options.preserve_times {
                if let Some(t) = attrs.mtime {
                    let _ = dir.set_modified(t);
                }
            }
            if self.options.preserve_permissions {
                if let Some(mode) = attrs.permissions() {
                    set_dir_permissions(&dir, mode)
                        .map_err(|e| ExtractError::io(&self.root.join(rel), e))?;
                }
            }
        }
        Ok(())
    }

    /// Removes every file and directory this extraction created (a
    /// directory only when empty), newest first.
    pub fn rollback(self) {
        for (rel, kind) in self.created.iter().rev() {
            let _ = match kind {
                EntryKind::File => self.dir.remove_file(rel),
                EntryKind::Directory => self.dir.remove_dir(rel),
            };
        }
    }
}

fn kind_name(kind: EntryKind) -> &'static str {
    match kind {
        EntryKind::File => "a file",
        EntryKind::Directory => "a directory",
    }
}

/// The clash of an entry wanting `path` as something other than what an
/// earlier entry made it.
fn clash(path: &Path, existing: EntryKind) -> ExtractError {
    ExtractError::Clash {
        path: path.to_path_buf(),
        existing: kind_name(existing),
        wanted: match existing {
            EntryKind::File => "a directory",
            EntryKind::Directory => "a file",
        },
    }
}

/// A new file `name` in `dir` that did not exist under any form (not even
/// a dangling link), created with `mode` so the umask applies.
fn create_new(dir: &Dir, name: &Path, mode: Option<u32>) -> io::Result<File> {
    let mut options = cap_std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    {
        use cap_std::fs::OpenOptionsExt;
        options.mode(mode.unwrap_or(0o666));
    }
    #[cfg(not(unix))]
    let _ = mode;
    Ok(dir.open_with(name, &options)?.into_std())
}

/// The directory `rel` below `dir`, opened (for reading, so that its mode
/// and time can be set through the handle) unless it is a symbolic link.
#[cfg(unix)]
fn open_dir_nofollow(dir: &Dir, rel: &Path) -> io::Result<File> {
    use cap_std::fs::OpenOptionsExt;
    let mut options = cap_std::fs::OpenOptions::new();
    options
        .read(true)
        .custom_flags(libc::O_DIRECTORY | libc::O_NOFOLLOW);
    Ok(dir.open_with(rel, &options)?.into_std())
}

#[cfg(not(unix))]
fn open_dir_nofollow(dir: &Dir, rel: &Path) -> io::Result<File> {
    if dir.symlink_metadata(rel)?.file_type().is_symlink() {
        return Err(io::ErrorKind::InvalidInput.into());
    }
    Ok(dir.open_dir(rel)?.into_std_file())
}

/// Gives a directory this extraction created (open as `dir`) the
/// archive's permission bits, less what the umask took when it was
/// created.
#[cfg(unix)]
fn set_dir_permissions(dir: &File, mode: u32) -> io::Result<()> {
    use std::os::unix::fs::PermissionsExt;
    // Created with 0o777 & !umask: masking with the stored bits leaves
    // exactly stored & !umask.
    let current = dir.metadata()?.permissions().mode() & 0o777;
    dir.set_permissions(fs::Permissions::from_mode(current & mode))
}

#[cfg(not(unix))]
fn set_dir_permissions(dir: &File, mode: u32) -> io::Result<()> {
    if mode & 0o222 == 0 {
        let mut p = dir.metadata()?.permissions();
        p.set_readonly(true);
        dir.set_permissions(p)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escaping_paths_are_refused() {
        for bad in [
            "/etc/passwd",
            "\\x",
            "../x",
            "a/../../x",
            "a\\..\\x",
            "C:\\x",
            "c:x",
            "",
            ".",
            "a/\0b",
        ] {
            assert_eq!(safe_relative_path(bad), None, "{bad:?}");
        }
        assert_eq!(
            safe_relative_path("a/./b\\c").unwrap(),
            Path::new("a").join("b").join("c")
        );
        #[cfg(unix)]
        assert_eq!(
            safe_relative_path("d/x:y").unwrap(),
            Path::new("d").join("x:y")
        );
    }

    #[test]
    fn permissions_drop_special_bits() {
        let attrs = |mode, readonly| EntryAttrs {
            mode,
            readonly,
            mtime: None,
        };
        assert_eq!(attrs(Some(0o104755), false).permissions(), Some(0o755));
        assert_eq!(attrs(Some(0o107777), false).permissions(), Some(0o777));
        assert_eq!(attrs(Some(0o100000), true).permissions(), Some(0o444));
        assert_eq!(attrs(None, false).permissions(), None);
    }

    #[test]
    fn errors_convert_to_their_io_kind_with_the_typed_source() {
        let e = io::Error::from(ExtractError::Exists {
            path: PathBuf::from("x"),
        });
        assert_eq!(e.kind(), io::ErrorKind::AlreadyExists);
        assert!(e.get_ref().unwrap().is::<ExtractError>());
        let e = io::Error::from(ExtractError::UnsafePath {
            path: "../x".into(),
        });
        assert_eq!(e.kind(), io::ErrorKind::InvalidData);
    }
}
