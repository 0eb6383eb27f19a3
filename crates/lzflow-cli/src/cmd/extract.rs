//! `lzflow x` and `lzflow e`: open a 7z or zip archive and extract the
//! entries the wildcards select through the one walk in `walk.rs`, with
//! their paths (`x`), without (`e`) or to standard output (`-so`); also
//! the 7z side of `l` (list entries) and `t` (verify every CRC). Split
//! archives (`name.7z.001`, …) are opened as one stream.

use std::fs::File;
use std::io::{self, IsTerminal, Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};

use indicatif::ProgressBar;
use lzflow::sevenz::signature_header::SIGNATURE;
use lzflow::sevenz::spool::spool;
use lzflow::sevenz::{
    Archive, ArchiveIndex, ArchiveOptions, Entry, ExtractOptions, MultiVolume, Overwrite,
    PathPolicy, SevenZError, SpoolOptions, Spooled,
};
use lzflow::Limits;

use super::walk::{self, Dest, Outcome, Walk};
use super::Status;
use crate::password::Use;
use crate::report;
use crate::select::Selection;
use crate::size::{human, parse_size};

/// Options of `lzflow x` and `lzflow e`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The .7z or .zip archive (or the first volume, `NAME.7z.001`, of a
    /// split one; `-` reads standard input, spooled to memory then a
    /// temporary file when it is a 7z archive).
    #[arg(value_name = "ARCHIVE")]
    pub archive: String,
    /// Extract only the entries matching these wildcards (`*`, `?`; a
    /// wildcard without `/` matches a name at any depth, one with `/` the
    /// path from the root; a matching directory brings all it holds).
    #[arg(value_name = "WILDCARD")]
    pub patterns: Vec<String>,
    #[command(flatten)]
    pub filters: FilterArgs,
    /// Directory to extract into (created if missing).
    #[arg(short = 'o', long = "output", value_name = "DIR", default_value = ".")]
    pub output: PathBuf,
    /// Write the selected files' data to standard output, one after the
    /// other, and create nothing (7-Zip's -so).
    #[arg(long = "stdout", conflicts_with_all = ["overwrite", "skip_existing", "keep_broken"])]
    pub stdout: bool,
    /// Password of an encrypted archive.
    #[arg(short, long, value_name = "PASSWORD")]
    pub password: Option<String>,
    /// Refuse to use more than SIZE bytes of memory (e.g. 64MiB, 1GiB, max).
    #[arg(long, value_name = "SIZE", value_parser = parse_size, default_value = "max")]
    pub memlimit: u64,
    /// No progress bar.
    #[arg(short, long)]
    pub quiet: bool,
    /// Replace existing files (7-Zip's -aoa and -y); for `e`, a later
    /// entry with the name of an earlier one replaces it. By default an
    /// existing file stops the extraction before anything is written.
    #[arg(short = 'f', long, conflicts_with = "skip_existing")]
    pub overwrite: bool,
    /// Keep existing files and skip the entries that would replace them
    /// (7-Zip's -aos).
    #[arg(long)]
    pub skip_existing: bool,
    /// Keep existing files and write the entries that would replace them
    /// under free names, name_1.ext, name_2.ext (7-Zip's -aou); also a
    /// later entry with the name of an earlier one.
    #[arg(long, conflicts_with_all = ["overwrite", "skip_existing"])]
    pub rename: bool,
    /// Skip the entries whose paths would leave the target directory
    /// (absolute, with `..` or a drive letter) and extract the rest, with a
    /// warning for each (status 1). By default such an entry stops the
    /// extraction before anything is written.
    #[arg(long)]
    pub skip_unsafe: bool,
    /// Keep the partial file of an entry whose data fails its check (by
    /// default no file is left for it).
    #[arg(long)]
    pub keep_broken: bool,
    #[command(flatten)]
    pub limits: ArchiveLimits,
}

/// The wildcard switches of `x`, `e`, `l` and `t`.
#[derive(Debug, Clone, Default, clap::Args)]
pub struct FilterArgs {
    /// Also select the entries matching WILDCARD (7-Zip's -i!WILDCARD).
    #[arg(long = "include", value_name = "WILDCARD")]
    pub include: Vec<String>,
    /// Leave out the entries matching WILDCARD, even when a wildcard
    /// selects them (7-Zip's -x!WILDCARD).
    #[arg(long = "exclude", value_name = "WILDCARD")]
    pub exclude: Vec<String>,
}

impl FilterArgs {
    /// The selection made by these switches and the wildcards given as
    /// arguments.
    pub fn selection(&self, positional: &[String]) -> Result<Selection, String> {
        let mut include = positional.to_vec();
        include.extend(self.include.iter().cloned());
        Selection::new(&include, &self.exclude)
    }
}

/// Header limits of 7z and zip archives, shared by `x`, `t` and `l`.
#[derive(Debug, Clone, clap::Args)]
pub struct ArchiveLimits {
    /// Refuse archives whose header (a 7z header decoded, a zip central
    /// directory) is larger than SIZE.
    #[arg(long, value_name = "SIZE", value_parser = parse_size, default_value = "64MiB")]
    pub max_header_size: u64,
    /// Refuse archives that list more than N entries.
    #[arg(long, value_name = "N", default_value_t = ArchiveOptions::default().max_entries)]
    pub max_entries: usize,
    /// Refuse zip entries whose data expands beyond N times its stored size
    /// once past 1 MiB (decompression bombs); 0 for no cap.
    #[arg(long, value_name = "N", default_value_t = 1100)]
    pub max_ratio: u64,
    /// Decode 7z LZMA2 streams that have dictionary resets (7-Zip's
    /// multi-threaded compression writes them) on N threads; 0 is one per
    /// CPU, 1 the calling thread only (7-Zip's -mmt=N, on, off). Up to
    /// 256 MiB of pieces are in flight beside one dictionary per thread.
    #[arg(short = 'T', long, value_name = "N", default_value_t = 0)]
    pub threads: usize,
}

impl ArchiveLimits {
    /// Archive options with these limits, a memory limit and a password.
    pub fn options(&self, memlimit: u64, password: Option<&str>) -> ArchiveOptions {
        let mut options = ArchiveOptions::default()
            .with_limits(Limits::NONE.with_memory(memlimit))
            .with_max_header_size(self.max_header_size)
            .with_max_entries(self.max_entries)
            .with_threads(self.threads);
        if let Some(pw) = password {
            options = options.with_password(pw);
        }
        options
    }

    /// Zip reading options with these limits, a memory limit and a
    /// password.
    pub fn zip_options(&self, memlimit: u64, password: Option<&str>) -> lzflow::zip::ZipOptions {
        let mut options = lzflow::zip::ZipOptions::new()
            .with_limits(Limits::NONE.with_memory(memlimit))
            .with_max_directory_size(self.max_header_size)
            .with_max_entries(self.max_entries as u64)
            .with_max_ratio((self.max_ratio > 0).then_some(self.max_ratio));
        if let Some(pw) = password {
            options = options.with_password(pw);
        }
        options
    }
}

/// Runs `lzflow x` (`flat`: `lzflow e`).
pub fn run(args: &Args, flat: bool) -> Status {
    let mut status = Status::archive();
    let selection = match args.filters.selection(&args.patterns) {
        Ok(s) => s,
        Err(e) => {
            report::error(&e);
            status.usage();
            return status;
        }
    };
    let overwrite = if args.overwrite {
        Overwrite::Always
    } else if args.skip_existing {
        Overwrite::Skip
    } else if args.rename {
        Overwrite::Rename
    } else {
        Overwrite::Never
    };
    let unnamed = unnamed_entry_name(&args.archive);
    let dest = if args.stdout {
        Dest::Stdout
    } else {
        let paths = if args.skip_unsafe {
            PathPolicy::Skip
        } else {
            PathPolicy::Refuse
        };
        let options = ExtractOptions::default()
            .with_overwrite(overwrite)
            .with_paths(paths)
            .with_keep_broken(args.keep_broken)
            .with_unnamed(unnamed.clone());
        Dest::Disk {
            root: args.output.clone(),
            options,
            flat,
        }
    };
    let name = if args.archive == "-" {
        "(stdin)"
    } else {
        &args.archive
    };
    match extract(args, dest, &selection, &unnamed) {
        Ok(outcome) => {
            for entry in &outcome.collisions {
                let base = entry
                    .trim_end_matches('/')
                    .rsplit('/')
                    .next()
                    .unwrap_or(entry);
                report::file_warning(
                    name,
                    &format!("{entry}: not extracted: an earlier entry is also named {base} (-aoa overwrites)"),
                );
                status.warn();
            }
            for entry in &outcome.unsafe_paths {
                report::file_warning(
                    name,
                    &format!("{entry:?}: not extracted: it would be written outside the target directory"),
                );
                status.warn();
            }
            report_selection(name, &selection, outcome.selected);
        }
        Err(e) => {
            report::file_error(name, &e);
            status.fail_with(&e);
        }
    }
    status
}

/// Says which wildcards matched nothing, and, as 7-Zip does, when none
/// selected anything (neither is an error for 7-Zip: its status stays 0).
pub fn report_selection(name: &str, selection: &Selection, selected: usize) {
    if selection.is_everything() {
        return;
    }
    for pattern in selection.unused() {
        report::file_warning(name, &format!("no entry matches '{pattern}'"));
    }
    if selected == 0 {
        report::file_warning(name, "no files to process");
    }
}

/// Opens the archive of `x`/`e` and walks it into `dest`.
fn extract(args: &Args, dest: Dest, selection: &Selection, unnamed: &str) -> io::Result<Outcome> {
    let password =
        crate::password::for_archive(&args.archive, args.password.as_deref(), Use::Data)?;
    let password = password.as_deref();
    // Standard input holds a zip archive (read forward-only) or a 7z one
    // (spooled: its header is at the end).
    let mut stdin = None;
    if args.archive == "-" {
        let (zip, input) =
            crate::output::Input::open_compressed("-").and_then(super::zip::sniff)?;
        if zip {
            let zip_options = args.limits.zip_options(args.memlimit, password);
            let mut z = lzflow::zip::ZipStreamReader::with_options(input.reader, zip_options);
            let mut walk = Walk::new(dest, selection, unnamed)?;
            let result = walk::zip_stream(&mut z, &mut walk);
            return walk.finish(result);
        }
        stdin = Some(input.reader);
    }
    if super::zip::is_zip(&args.archive) {
        let zip_options = args.limits.zip_options(args.memlimit, password);
        let mut archive =
            lzflow::zip::ZipArchive::open_with(File::open(&args.archive)?, zip_options)?;
        let mut walk = Walk::new(dest, selection, unnamed)?;
        let result = walk::zip_file(&mut archive, &mut walk);
        return walk.finish(result);
    }
    let archive_options = args.limits.options(args.memlimit, password);
    let mut archive = open_input(&args.archive, stdin, archive_options, args.quiet)
        .and_then(|archive| require_password(archive, password.is_some()))?;
    let mut walk = Walk::new(dest, selection, unnamed)?;
    let result = walk::sevenz(&mut archive, &mut walk);
    walk.finish(result)
}

/// The name 7-Zip gives an entry stored without one: the archive's file
/// name without its extension (`data` for `data.7z`, `data.7z` for a split
/// `data.7z.001`).
pub fn unnamed_entry_name(archive: &str) -> String {
    let path = Path::new(archive);
    match path.file_stem().and_then(|s| s.to_str()) {
        Some(stem) if archive != "-" && !stem.is_empty() => stem.to_string(),
        _ => lzflow::extract::DEFAULT_UNNAMED.to_string(),
    }
}

/// True when `path` starts with the 7z signature or names the first volume
/// of a split archive.
pub fn is_7z(path: &str) -> bool {
    if path == "-" {
        return false;
    }
    if lzflow::sevenz::multi_volume::is_first_volume(Path::new(path)) {
        return true;
    }
    let mut head = [0u8; 6];
    File::open(path)
        .and_then(|mut f| f.read_exact(&mut head))
        .is_ok_and(|()| head == SIGNATURE)
}

/// Lists the entries of a 7z archive that `selection` selects: date,
/// attributes, size, packed size and folder, method, `+` when encrypted,
/// name. Gives the number of entries listed.
pub fn list(path: &str, options: ArchiveOptions, selection: &Selection) -> io::Result<usize> {
    let unnamed = unnamed_entry_name(path);
    let archive = open(path, options, true)?;
    let index = archive.index();
    outln!(
        "{:<19} {:<16} {:>12} {:>12} {:>6} {:<20} {:<3} Name",
        "Modified (UTC)",
        "Attributes",
        "Size",
        "Packed",
        "Folder",
        "Method",
        "Enc"
    );
    let mut seen_folder = vec![false; index.folder_count()];
    let (mut files, mut dirs, mut total) = (0u64, 0u64, 0u64);
    for (name, entry) in selected(archive.entries(), &unnamed, selection) {
        let (packed, folder, method, enc) = match folder_columns(index, entry, &mut seen_folder) {
            Some(c) => (
                c.packed,
                c.folder.to_string(),
                c.method,
                if c.encrypted { "+" } else { "" },
            ),
            None => (String::new(), "-".into(), String::new(), ""),
        };
        outln!(
            "{:<19} {:<16} {:>12} {:>12} {:>6} {:<20} {:<3} {}",
            entry
                .mtime_filetime
                .map(format_filetime)
                .unwrap_or_default(),
            attributes(entry),
            entry.size,
            packed,
            folder,
            method,
            enc,
            name
        );
        if entry.is_dir {
            dirs += 1;
        } else {
            files += 1;
        }
        total += entry.size;
    }
    outln!(
        "{files} files, {dirs} folders, {} ({total} B) in {} folders",
        human(total),
        index.folder_count()
    );
    Ok((files + dirs) as usize)
}

/// Decodes every entry, verifying every CRC; returns the entries
/// `selection` selects and their bytes.
pub fn test(
    path: &str,
    options: ArchiveOptions,
    quiet: bool,
    selection: &Selection,
) -> io::Result<(usize, u64)> {
    let unnamed = unnamed_entry_name(path);
    let had_password = options.password.is_some();
    let mut archive = require_password(open(path, options, quiet)?, had_password)?;
    let mut bytes = 0u64;
    let mut count = 0usize;
    // As 7-Zip does, only the selected entries are tested: what only the
    // others need is not decoded.
    archive
        .for_each_entry_where(
            |_, entry| selection.selects(listed_name(entry, &unnamed)),
            |_, data| {
                bytes += io::copy(data, &mut io::sink())?;
                count += 1;
                Ok(())
            },
        )
        .map_err(|e| explain(e, had_password))?;
    Ok((count, bytes))
}

/// 7-Zip's technical listing (`7zz l -slt`) of the entries `selection`
/// selects: the archive's properties, then a `Key = Value` block per
/// entry with 7-Zip's keys (times in UTC, to the FILETIME's 100 ns).
pub fn list_technical(
    path: &str,
    options: ArchiveOptions,
    selection: &Selection,
) -> io::Result<usize> {
    let unnamed = unnamed_entry_name(path);
    let archive = open(path, options, true)?;
    let index = archive.index();
    let folders = index.folder_count();
    let solid = (0..folders).any(|f| index.folder_entries(f).len() > 1);
    outln!("--");
    outln!("Path = {path}");
    outln!("Type = 7z");
    if let Ok(m) = std::fs::metadata(path) {
        outln!("Physical Size = {}", m.len());
        // What is not data: the signature header and the headers.
        outln!(
            "Headers Size = {}",
            m.len().saturating_sub(index.packed_size())
        );
    }
    let method = index.archive_method();
    if !method.is_empty() {
        outln!("Method = {method}");
    }
    outln!("Solid = {}", if solid { "+" } else { "-" });
    outln!("Blocks = {folders}");
    outln!();
    outln!("----------");
    let mut seen_folder = vec![false; folders];
    let mut listed = 0;
    for (name, entry) in selected(archive.entries(), &unnamed, selection) {
        let (packed, method, encrypted, block) =
            match folder_columns(index, entry, &mut seen_folder) {
                Some(c) => (
                    c.packed,
                    c.method,
                    if c.encrypted { "+" } else { "-" },
                    c.folder.to_string(),
                ),
                None => ("0".into(), String::new(), "-", String::new()),
            };
        outln!("Path = {name}");
        outln!("Size = {}", entry.size);
        outln!("Packed Size = {packed}");
        outln!(
            "Modified = {}",
            entry
                .mtime_filetime
                .map(|ft| format!("{}.{:07}", format_filetime(ft), ft % 10_000_000))
                .unwrap_or_default()
        );
        outln!("Attributes = {}", attributes(entry));
        outln!(
            "CRC = {}",
            entry.crc.map(|c| format!("{c:08X}")).unwrap_or_default()
        );
        outln!("Encrypted = {encrypted}");
        outln!("Method = {method}");
        outln!("Block = {block}");
        outln!();
        listed += 1;
    }
    Ok(listed)
}

/// The entries `selection` selects, each with the name it is listed under
/// (`unnamed` for one stored without a name).
fn selected<'a>(
    entries: &'a [Entry],
    unnamed: &'a str,
    selection: &'a Selection,
) -> impl Iterator<Item = (&'a str, &'a Entry)> {
    entries
        .iter()
        .map(move |e| (listed_name(e, unnamed), e))
        .filter(|(name, _)| selection.selects(name))
}

/// The name an entry is listed and selected under: `unnamed` for one
/// stored without a name.
fn listed_name<'a>(entry: &'a Entry, unnamed: &'a str) -> &'a str {
    match entry.name.is_empty() {
        true => unnamed,
        false => &entry.name,
    }
}

/// What the listings show of an entry's folder.
struct FolderColumns {
    folder: usize,
    /// The folder's packed size for its first entry listed, else empty.
    packed: String,
    method: String,
    encrypted: bool,
}

/// The folder columns of `entry` (`None` without data); `seen` marks the
/// folders already listed, as a solid folder's packed size belongs to its
/// first entry.
fn folder_columns(index: &ArchiveIndex, entry: &Entry, seen: &mut [bool]) -> Option<FolderColumns> {
    let fi = entry.folder()?;
    let first = !std::mem::replace(&mut seen[fi], true);
    Some(FolderColumns {
        folder: fi,
        packed: if first {
            index.folder_packed_size(fi).to_string()
        } else {
            String::new()
        },
        method: index.folder_method(fi),
        encrypted: index.folder_is_encrypted(fi),
    })
}

/// The MS-DOS attribute letters 7-Zip prints, in the order of their bits:
/// `R`ead-only, `H`idden, `S`ystem, `D`irectory (also when `is_dir`),
/// `A`rchive.
pub(crate) fn dos_letters(attributes: u32, is_dir: bool) -> String {
    [
        (0x01, 'R'),
        (0x02, 'H'),
        (0x04, 'S'),
        (0x10, 'D'),
        (0x20, 'A'),
    ]
    .into_iter()
    .filter(|&(bit, c)| attributes & bit != 0 || (c == 'D' && is_dir))
    .map(|(_, c)| c)
    .collect()
}

/// `R`ead-only, `H`idden, `S`ystem, `D`irectory, `A`rchive and `L`ink
/// flags and the unix mode.
fn attributes(entry: &Entry) -> String {
    let mut s = dos_letters(entry.attributes.unwrap_or(0), entry.is_dir);
    if entry.is_symlink() {
        s.push('L');
    }
    if let Some(mode) = entry.unix_mode() {
        if !s.is_empty() {
            s.push(' ');
        }
        s.push_str(&unix_mode_string(mode, entry.is_dir));
    }
    s
}

/// `drwxr-xr-x` from a mode, as `ls -l` shows it: setuid and setgid as
/// `s` (`S` without execute), sticky as `t` (`T`), so a stored mode is
/// shown in full even though extraction never applies those bits.
pub(crate) fn unix_mode_string(mode: u32, is_dir: bool) -> String {
    let kind = match mode & 0o170000 {
        0o040000 => 'd',
        0o120000 => 'l',
        0o010000 => 'p',
        0o020000 => 'c',
        0o060000 => 'b',
        0o140000 => 's',
        0 if is_dir => 'd',
        _ => '-',
    };
    let mut s = String::from(kind);
    // (shift of the rwx triple, its special bit, letter for that bit)
    for (shift, special, letter) in [(6, 0o4000, 's'), (3, 0o2000, 's'), (0, 0o1000, 't')] {
        let bits = (mode >> shift) & 7;
        s.push(if bits & 4 != 0 { 'r' } else { '-' });
        s.push(if bits & 2 != 0 { 'w' } else { '-' });
        s.push(match (mode & special != 0, bits & 1 != 0) {
            (true, true) => letter,
            (true, false) => letter.to_ascii_uppercase(),
            (false, true) => 'x',
            (false, false) => '-',
        });
    }
    s
}

/// `YYYY-MM-DD HH:MM:SS` (UTC) from a FILETIME.
pub(crate) fn format_filetime(ft: u64) -> String {
    const TICKS: i64 = 10_000_000;
    const EPOCH_DIFF: i64 = 11_644_473_600;
    let secs = (ft / TICKS as u64) as i64 - EPOCH_DIFF;
    let (days, rem) = (secs.div_euclid(86_400), secs.rem_euclid(86_400));
    let (y, m, d) = civil_from_days(days);
    format!(
        "{y:04}-{m:02}-{d:02} {:02}:{:02}:{:02}",
        rem / 3600,
        rem / 60 % 60,
        rem % 60
    )
}

/// Proleptic Gregorian date of a day count since 1970-01-01.
fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y, m, d)
}

/// The source of an archive: one file or the volumes of a split one.
enum Source {
    File(File),
    Volumes(MultiVolume<File>),
    Spooled(Spooled),
}

impl Read for Source {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        match self {
            Source::File(f) => f.read(buf),
            Source::Volumes(v) => v.read(buf),
            Source::Spooled(s) => s.read(buf),
        }
    }
}

impl Seek for Source {
    fn seek(&mut self, pos: SeekFrom) -> io::Result<u64> {
        match self {
            Source::File(f) => f.seek(pos),
            Source::Volumes(v) => v.seek(pos),
            Source::Spooled(s) => s.seek(pos),
        }
    }
}

/// Counts the packed bytes read into a progress bar.
struct Counted {
    inner: Source,
    bar: Option<ProgressBar>,
}

impl Read for Counted {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        if let Some(bar) = &self.bar {
            bar.inc(n as u64);
        }
        Ok(n)
    }
}

impl Seek for Counted {
    fn seek(&mut self, pos: SeekFrom) -> io::Result<u64> {
        let at = self.inner.seek(pos)?;
        if let Some(bar) = &self.bar {
            bar.set_position(at);
        }
        Ok(at)
    }
}

impl Drop for Counted {
    fn drop(&mut self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }
}

/// Opens `path` (a split archive when it ends in `.001`) with a progress
/// bar when stderr is a terminal.
fn open(path: &str, options: ArchiveOptions, quiet: bool) -> io::Result<Archive<Counted>> {
    open_input(path, None, options, quiet)
}

/// [`open`], with standard input already opened (and sniffed) as `stdin`.
fn open_input(
    path: &str,
    stdin: Option<Box<dyn io::Read>>,
    options: ArchiveOptions,
    quiet: bool,
) -> io::Result<Archive<Counted>> {
    let (inner, len) = open_source(path, stdin)?;
    let bar = (!quiet && io::stderr().is_terminal()).then(|| crate::progress::styled(len, path));
    let had_password = options.password.is_some();
    Archive::open_with(Counted { inner, bar }, options).map_err(|e| explain(e, had_password))
}

/// The bytes of the archive at `path` and their length: standard input
/// (`stdin`, or read now) spooled, the volumes of a split archive, or the
/// file.
fn open_source(path: &str, stdin: Option<Box<dyn io::Read>>) -> io::Result<(Source, u64)> {
    let p = Path::new(path);
    Ok(if path == "-" {
        // The header is at the end: copy the pipe first.
        let stdin = stdin.unwrap_or_else(|| Box::new(io::stdin().lock()));
        let mut copy = spool(stdin, SpoolOptions::default())?;
        let len = copy.seek(SeekFrom::End(0))?;
        copy.seek(SeekFrom::Start(0))?;
        (Source::Spooled(copy), len)
    } else if lzflow::sevenz::multi_volume::is_first_volume(p) {
        let v = lzflow::sevenz::multi_volume::open_volumes(p)?;
        let len = v.len();
        (Source::Volumes(v), len)
    } else {
        let f = File::open(p)?;
        let len = f.metadata()?.len();
        (Source::File(f), len)
    })
}

/// Whether the 7z archive at `path` (not standard input) needs a password:
/// to read its header, or (unless `listing`) its data. False when it
/// cannot be opened for another reason: opening it again says why.
pub fn needs_password(path: &str, listing: bool) -> bool {
    let Ok((inner, _)) = open_source(path, None) else {
        return false;
    };
    match Archive::open_with(Counted { inner, bar: None }, ArchiveOptions::default()) {
        Ok(archive) => !listing && archive.index().is_encrypted(),
        Err(e) => matches!(e, SevenZError::PasswordRequired),
    }
}

/// Refuses an archive with encrypted data when no password was given,
/// before anything is written (its unencrypted entries would otherwise be
/// extracted first).
fn require_password<R: Read + Seek>(
    archive: Archive<R>,
    had_password: bool,
) -> io::Result<Archive<R>> {
    if archive.index().is_encrypted() && !had_password {
        return Err(explain(SevenZError::PasswordRequired, false));
    }
    Ok(archive)
}

/// The error as an `io::Error`, with the advice the CLI can give.
fn explain(e: SevenZError, had_password: bool) -> io::Error {
    match e {
        SevenZError::PasswordRequired if !had_password => io::Error::new(
            io::ErrorKind::PermissionDenied,
            "archive is encrypted: pass -p PASSWORD",
        ),
        other => other.into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_and_modes() {
        // 2021-03-04 05:06:07 UTC.
        let unix = 1_614_834_367i64;
        let ft = (unix + 11_644_473_600) as u64 * 10_000_000;
        assert_eq!(format_filetime(ft), "2021-03-04 05:06:07");
        assert_eq!(
            format_filetime(116_444_736_000_000_000),
            "1970-01-01 00:00:00"
        );
        assert_eq!(civil_from_days(-1), (1969, 12, 31));
        assert_eq!(civil_from_days(11_016), (2000, 2, 29));
        assert_eq!(unix_mode_string(0o100644, false), "-rw-r--r--");
        assert_eq!(unix_mode_string(0o040755, true), "drwxr-xr-x");
        assert_eq!(unix_mode_string(0o120777, false), "lrwxrwxrwx");
        assert_eq!(unix_mode_string(0o104755, false), "-rwsr-xr-x");
        assert_eq!(unix_mode_string(0o102644, false), "-rw-r-Sr--");
        assert_eq!(unix_mode_string(0o041777, true), "drwxrwxrwt");
        assert_eq!(unix_mode_string(0o041776, true), "drwxrwxrwT");
        assert_eq!(unnamed_entry_name("-"), "[no name]");
        assert_eq!(unnamed_entry_name("dir/data.7z"), "data");
        assert_eq!(unnamed_entry_name("data.7z.001"), "data.7z");
    }
}
