//! The 7z writer: entries are packed into folders as they arrive, and
//! [`Writer::finish`] writes the header and then patches the start header.
//!
//! Layout of the archive written: the 32-byte start header, the packed
//! streams of the data folders in order, the packed header stream (when the
//! header is compressed), and the header record last. The start header is
//! written first with zeros where the header's offset, size and CRC go (its
//! own CRC then fails, so no reader takes the archive for complete); it is
//! patched only at the very end of `finish`.
//!
//! 7-Zip recovers an archive whose start header is still zero by searching
//! for the header near the end of the file. So the header record goes out
//! with its first byte zeroed, the start header is patched, and that byte
//! is written last: an archive interrupted at any point is rejected.

use std::io::{self, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use lzflow_core::input_file::{not_regular, open_regular, FileId};
use lzflow_filters::{try_new_filter, Direction, FilterConfig, FilterEncoder, FilterKind};

use crate::write::bcj2_encoder::Bcj2Stage;
use lzflow_lzma::LzmaOptions;

use crate::read::header::StreamsInfo;
use crate::read::signature_header::SIGNATURE_HEADER_SIZE;
use crate::secret_buf::SecretBuf;
use crate::write::aes_encoder::ArchiveKey;
use crate::write::entry_fields::{fields, meta_from_fs, Kind};
use crate::write::entry_name::clean_name;
use crate::write::file_table::FileTable;
use crate::write::folder_encoder::{FolderEncoder, Lz, Stage, CHUNK, HOLD_MAX};
use crate::write::folder_record::{record_folder, FolderFilter, FolderMeta};
use crate::write::folder_workers::Workers;
use crate::write::header_tail::Tail;
use crate::write::sink::Sink;
use crate::write::writer_options::{level_options, EntryMeta, Method, Solid, WriterOptions};
use crate::write::x86_executable::executable_filter;
use crate::SevenZError;

/// Writes a 7z archive to a `Write + Seek` sink.
///
/// Seeking is needed once, at the end, to patch the start header; output
/// is otherwise written front to back. For an output that cannot seek,
/// write to a spool and use [`finish_into`](Self::finish_into). Entry data is compressed as it is
/// read (an entry is never held in memory whole); only the header model
/// (one record per entry) grows with the archive. The exception is a
/// folder's first 1 MiB (with LZMA or LZMA2), which is held back until the
/// folder ends or grows past it: a folder that ends within it gets an
/// encoder fitted to its size (a small dictionary and small match-finder
/// tables), a larger one the level's dictionary. The encoder is reused by the next folder that needs
/// the same dictionary, and its large buffers come from (and go back to)
/// the process-wide [`Pool`](lzflow_core::Pool)s, so a process writing many
/// small archives allocates little per archive. Held data and other
/// plaintext buffers are zeroized before they are returned.
///
/// If any call fails, the archive is left marked unfinished: readers
/// (lzflow's and 7-Zip's) reject it. An I/O error from the sink during
/// [`finish`](Self::finish) can be retried by calling `finish` again,
/// which writes the same bytes; an error in the middle of an entry (from
/// its source or the sink) leaves the writer unusable.
///
/// Dropping a `Writer` without `finish` leaves an unfinished archive.
pub struct Writer<W: Write + Seek> {
    sink: Sink<W>,
    opts: WriterOptions,
    lz_opts: LzmaOptions,
    key: Option<ArchiveKey>,
    /// LZ engines between folders and the options they were made for, kept
    /// so a folder with the same (fitted) options reuses one (at most one
    /// per thread).
    idle: Vec<(Lz, LzmaOptions)>,
    folder: Option<OpenFolder>,
    /// Folders compressed in parallel (more than one thread, several
    /// folders); started with the first such folder.
    workers: Option<Workers<FolderMeta>>,
    /// The file entry being written through `begin_file`.
    entry: Option<OpenEntry>,
    /// The header model: the data streams and the file records.
    main: StreamsInfo,
    files: FileTable,
    /// Entry data read from the source (plaintext: zeroized on drop).
    input: SecretBuf,
    state: State,
    /// The file `add_path` passes over (the archive itself).
    skip: Option<FileId>,
}

impl<W: Write + Seek> std::fmt::Debug for Writer<W> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Writer")
            .field("options", &self.opts)
            .field("entries", &self.files.len())
            .field("folders", &self.main.folders.len())
            .field("state", &self.state)
            .finish_non_exhaustive()
    }
}

#[derive(Debug)]
enum State {
    /// Accepting entries.
    Open,
    /// `finish` built the tail (header streams and start header); retries
    /// write exactly these bytes.
    Finishing(Box<Tail>),
    /// An error left an entry half written.
    Broken,
    /// `finish` succeeded.
    Done,
}

/// A file entry between `begin_file` and `end_file`.
struct OpenEntry {
    /// Where its name starts in the file table's name buffer (appended at
    /// `begin_file`, taken back if the entry is cancelled).
    name_at: usize,
    meta: EntryMeta,
    crc: crc32fast::Hasher,
    size: u64,
    /// Data has been compressed (the entry has a stream).
    started: bool,
    /// The entry's size, when known before its data (for BCJ2).
    size_hint: Option<u64>,
}

impl<W: Write + Seek> Writer<W> {
    /// A writer with default options (LZMA2 level 5, solid, compressed
    /// header, no encryption). Writes the unfinished start header at the
    /// sink's current position, where the archive begins.
    pub fn new(w: W) -> Result<Self, SevenZError> {
        Self::with_options(w, WriterOptions::default())
    }

    /// A writer with `opts`; the options are checked and the AES key (if
    /// any) is derived here, once for the whole archive.
    pub fn with_options(w: W, opts: WriterOptions) -> Result<Self, SevenZError> {
        let mut lz_opts = level_options(opts.level)?;
        if let Some(n) = opts.expected_size {
            lz_opts = lz_opts.fitted_to(n);
        }
        if opts.encrypt_header && opts.password.is_none() {
            return Err(SevenZError::InvalidWriterOptions(
                "encrypt_header needs a password",
            ));
        }
        if let Some(cfg) = &opts.filter {
            cfg.validate()?;
            if opts.bcj2 {
                return Err(SevenZError::InvalidWriterOptions(
                    "bcj2 and filter exclude each other",
                ));
            }
        }
        let key = match &opts.password {
            Some(p) => Some(ArchiveKey::derive(p, opts.aes_cycles_power)?),
            None => None,
        };
        let sink = Sink::start(w)?;
        Ok(Writer {
            sink,
            opts,
            lz_opts,
            key,
            idle: Vec::new(),
            folder: None,
            workers: None,
            entry: None,
            main: StreamsInfo::default(),
            files: FileTable::default(),
            input: SecretBuf::with_len(CHUNK),
            state: State::Open,
            skip: None,
        })
    }

    /// Makes [`add_path`](Self::add_path) pass over the file `meta`
    /// describes: give it the archive's own file, which would otherwise
    /// be added to itself when it lies in the tree being added.
    pub fn skip_in_add_path(&mut self, meta: &std::fs::Metadata) {
        self.skip = FileId::of(meta);
    }

    /// Number of entries added so far.
    pub fn len(&self) -> usize {
        self.files.len()
    }

    /// True when no entry has been added.
    pub fn is_empty(&self) -> bool {
        self.files.is_empty()
    }

    fn check_open(&self) -> Result<(), SevenZError> {
        self.check_state()?;
        if self.entry.is_some() {
            return Err(SevenZError::WriterUnusable(
                "an entry is open: call end_file() first",
            ));
        }
        Ok(())
    }

    fn check_state(&self) -> Result<(), SevenZError> {
        match self.state {
            State::Open => Ok(()),
            State::Finishing(_) => Err(SevenZError::WriterUnusable(
                "finish() has started; no more entries can be added",
            )),
            State::Broken => Err(SevenZError::WriterUnusable(
                "an earlier error left an entry half written; start a new archive",
            )),
            State::Done => Err(SevenZError::WriterUnusable("the archive is finished")),
        }
    }

    /// Adds a file whose data is read from `reader` to its end. The data is
    /// compressed as it is read; a source that yields nothing makes an empty
    /// file (stored without a data stream).
    ///
    /// A source error before its first byte leaves the writer usable (the
    /// entry is dropped); after that the writer is unusable.
    pub fn add_file<R: Read>(
        &mut self,
        name: &str,
        reader: R,
        meta: EntryMeta,
    ) -> Result<(), SevenZError> {
        self.add_file_sized(name, reader, meta, None)
    }

    /// [`add_file`](Self::add_file) of a source expected to hold `size`
    /// bytes (if known), which BCJ2 bounds its conversions by.
    fn add_file_sized<R: Read>(
        &mut self,
        name: &str,
        mut reader: R,
        meta: EntryMeta,
        size: Option<u64>,
    ) -> Result<(), SevenZError> {
        self.begin_file(name, meta)?;
        if let Some(e) = &mut self.entry {
            e.size_hint = size;
        }
        let mut buf = std::mem::take(&mut self.input);
        let mut first = true;
        let result = loop {
            // Whole 64 KiB blocks, so automatic BCJ sees a full header.
            match read_full(&mut reader, &mut buf) {
                Ok(0) => break Ok(()),
                Ok(n) => {
                    if std::mem::take(&mut first) && n < buf.len() {
                        // The source ended within its first block.
                        if let Some(e) = &mut self.entry {
                            e.size_hint = Some(n as u64);
                        }
                    }
                    if let Err(e) = self.write_data(&buf[..n]) {
                        break Err(e);
                    }
                }
                Err(e) => {
                    self.cancel_file();
                    break Err(e);
                }
            }
        };
        self.input = buf;
        result?;
        self.end_file()
    }

    /// Starts a file entry whose data is then given to
    /// [`write_data`](Self::write_data) in pieces and ended by
    /// [`end_file`](Self::end_file) (for sources that push data rather than
    /// being read, such as an async face). The first non-empty piece
    /// decides automatic BCJ, so it should be a few KiB when that is on.
    pub fn begin_file(&mut self, name: &str, meta: EntryMeta) -> Result<(), SevenZError> {
        self.check_open()?;
        let name_at = self.files.push_name(clean_name(name)?);
        self.entry = Some(OpenEntry {
            name_at,
            meta,
            crc: crc32fast::Hasher::new(),
            size: 0,
            started: false,
            size_hint: None,
        });
        Ok(())
    }

    /// Compresses the next piece of the entry begun by
    /// [`begin_file`](Self::begin_file). An error leaves the writer
    /// unusable.
    pub fn write_data(&mut self, data: &[u8]) -> Result<(), SevenZError> {
        self.check_state()?;
        if data.is_empty() {
            return Ok(());
        }
        let result = self.write_data_inner(data);
        if result.is_err() {
            self.state = State::Broken;
        }
        result
    }

    fn write_data_inner(&mut self, data: &[u8]) -> Result<(), SevenZError> {
        let entry = self.entry.as_ref().ok_or(SevenZError::WriterUnusable(
            "write_data() without begin_file()",
        ))?;
        if !entry.started {
            let filter = self.filter_for(self.files.pending_name(entry.name_at), data);
            let size_hint = entry.size_hint;
            self.start_stream(filter)?;
            self.mark_file(size_hint);
        }
        let entry = self.entry.as_mut().expect("checked above");
        entry.started = true;
        entry.crc.update(data);
        entry.size += data.len() as u64;
        let folder = self.folder.as_mut().expect("opened by start_stream");
        if let Run::Here(enc) = &mut folder.run {
            if enc.stage.is_none() {
                // Stored data has nothing to fit: it goes straight through.
                // LZMA's dictionary and PPMd's model are fitted to the size.
                let fits = matches!(
                    self.opts.method,
                    Method::Lzma | Method::Lzma2 | Method::Ppmd { .. }
                );
                if fits && enc.held.len() + data.len() <= HOLD_MAX {
                    enc.hold(data);
                    return Ok(());
                }
                // Too large to fit the encoder to: the configured dictionary.
                self.start_folder_engine(None)?;
            }
        }
        let folder = self.folder.as_mut().expect("opened by start_stream");
        match &mut folder.run {
            Run::Here(enc) => {
                enc.encode_held(&mut self.sink)?;
                enc.encode(data, &mut 0, &mut self.sink)
            }
            Run::Away(id) => {
                let workers = self.workers.as_mut().expect("a folder away has workers");
                let (main, idle, threads) = (&mut self.main, &mut self.idle, self.opts.threads);
                workers.send(*id, data, &mut self.sink, |meta, enc| {
                    record_folder(main, idle, threads, meta, enc)
                })
            }
        }
    }

    /// Tells a BCJ2 folder's encoder where the entry starting now begins
    /// and how large it is, if known.
    fn mark_file(&mut self, size: Option<u64>) {
        let Some(folder) = &mut self.folder else {
            return;
        };
        if folder.meta.filter != FolderFilter::Bcj2 {
            return;
        }
        let at = folder.meta.in_size;
        match &mut folder.run {
            Run::Here(enc) => enc.mark_file(at, size),
            Run::Away(id) => {
                if let Some(workers) = &mut self.workers {
                    workers.mark_file(*id, at, size);
                }
            }
        }
    }

    /// True when folders are compressed in parallel: more than one thread
    /// and more than one folder in sight (within a single folder, the
    /// threads share the LZMA2 stream instead).
    fn parallel_folders(&self) -> bool {
        self.opts.threads > 1 && self.opts.solid != Solid::All && self.opts.method != Method::Copy
    }

    /// When folders are compressed in parallel, waits for a free worker
    /// (writing out and recording finished folders meanwhile), so that
    /// the engine of a finished folder can serve the next one.
    fn wait_for_worker(&mut self) -> Result<(), SevenZError> {
        if !self.parallel_folders() {
            return Ok(());
        }
        let threads = self.opts.threads;
        // Input is read ahead up to a dictionary per folder: the engine's
        // own memory is several times that.
        let cap = self.lz_opts.dict_size as usize;
        let workers = self
            .workers
            .get_or_insert_with(|| Workers::new(threads, cap));
        let (main, idle) = (&mut self.main, &mut self.idle);
        workers.room(&mut self.sink, |meta, enc| {
            record_folder(main, idle, threads, meta, enc)
        })
    }

    /// Sends the open folder's encoder (its engine made) to a worker when
    /// folders are compressed in parallel, after
    /// [`wait_for_worker`](Self::wait_for_worker).
    fn hand_to_worker(&mut self) {
        let (Some(workers), Some(folder)) = (&mut self.workers, &mut self.folder) else {
            return;
        };
        folder.run = match std::mem::replace(&mut folder.run, Run::Away(0)) {
            Run::Here(enc) => Run::Away(workers.start(enc)),
            away => away,
        };
    }

    /// Starts the open folder's engine (fitted to `size` when known) and,
    /// when folders are compressed in parallel, hands the folder to a
    /// worker; a finished folder's engine can serve it, so the wait for a
    /// free worker comes first.
    fn start_folder_engine(&mut self, size: Option<u64>) -> Result<(), SevenZError> {
        self.wait_for_worker()?;
        self.start_engine(size)?;
        self.hand_to_worker();
        Ok(())
    }

    /// Makes the open folder's LZ engine (and filter), fitted to `size`
    /// when that is known, reusing the idle engine when it was made for the
    /// same options.
    fn start_engine(&mut self, size: Option<u64>) -> Result<(), SevenZError> {
        let fit = match (self.opts.method, size) {
            (Method::Copy | Method::Deflate | Method::BZip2 | Method::Ppmd { .. }, _)
            | (_, None) => None,
            (_, Some(n)) => Some(n),
        };
        let opts = fit.map_or(self.lz_opts, |n| self.lz_opts.fitted_to(n));
        // PPMd's model fitted to a folder of known size, as 7-Zip fits it:
        // every reader allocates what the folder's properties declare.
        let method = match (self.opts.method, size) {
            (Method::Ppmd { order, mem_size }, Some(n)) => Method::Ppmd {
                order,
                mem_size: lzflow_methods::ppmd_fitted_memory(mem_size, n),
            },
            (m, _) => m,
        };
        let reusable = |lz: &Lz, o: &LzmaOptions| *o == opts && lz.serves(method);
        let lz = match self.idle.iter().position(|(lz, o)| reusable(lz, o)) {
            Some(i) => self.idle.swap_remove(i).0,
            None => {
                // Another size: drop an idle engine first, so its pooled
                // tables serve the new one. Folders compressed in parallel
                // have one thread each.
                self.idle.pop();
                let threads = if self.parallel_folders() {
                    1
                } else {
                    self.opts.threads
                };
                Lz::new(method, self.opts.level, &opts, fit, threads)?
            }
        };
        let folder = self
            .folder
            .as_mut()
            .ok_or(SevenZError::WriterUnusable("no open folder"))?;
        let Run::Here(enc) = &mut folder.run else {
            return Err(SevenZError::WriterUnusable("folder already started"));
        };
        enc.stage = Some(match &folder.meta.filter {
            FolderFilter::Simple(cfg) => {
                let f = try_new_filter(cfg, Direction::Encode)?;
                Stage::Filtered(FilterEncoder::new(lz, vec![f]))
            }
            FolderFilter::Bcj2 => Stage::Bcj2(Box::new(Bcj2Stage::new(lz))),
            FolderFilter::None => Stage::Plain(lz),
        });
        folder.meta.lz_opts = opts;
        folder.meta.method = method;
        Ok(())
    }

    /// Drops the entry begun by [`begin_file`](Self::begin_file) when no
    /// data was written for it yet (the writer stays usable). After data, a
    /// partial stream cannot be taken back: the writer becomes unusable.
    pub fn cancel_file(&mut self) {
        if let Some(entry) = self.entry.take() {
            if entry.started {
                self.state = State::Broken;
            }
            self.files.drop_name(entry.name_at);
        }
    }

    /// The sink, e.g. to drain an in-memory one. Writing to it or seeking
    /// it corrupts the archive. `None` once [`finish`](Self::finish) gave
    /// it back.
    pub fn get_mut(&mut self) -> Option<&mut W> {
        self.sink.inner.as_mut()
    }

    /// Ends the entry begun by [`begin_file`](Self::begin_file); without
    /// data it is stored as an empty file.
    pub fn end_file(&mut self) -> Result<(), SevenZError> {
        self.check_state()?;
        let entry = self.entry.take().ok_or(SevenZError::WriterUnusable(
            "end_file() without begin_file()",
        ))?;
        // The name is in the table since begin_file.
        if !entry.started {
            self.files.push(fields(&entry.meta, Kind::EmptyFile));
            return Ok(());
        }
        let folder = self.folder.as_mut().expect("a started entry has a folder");
        folder.meta.in_size += entry.size;
        folder.meta.files += 1;
        let sub = &mut self.main.substreams;
        sub.sizes.push(entry.size);
        sub.crcs.push(Some(entry.crc.finalize()));
        self.files.push(fields(&entry.meta, Kind::File));
        if self.solid_block_full() {
            self.close_folder()
                .inspect_err(|_| self.state = State::Broken)?;
        }
        Ok(())
    }

    /// Adds a directory entry.
    pub fn add_dir(&mut self, name: &str, meta: EntryMeta) -> Result<(), SevenZError> {
        self.check_open()?;
        let name = clean_name(name)?;
        self.files.push_entry(name, fields(&meta, Kind::Dir));
        Ok(())
    }

    /// Adds an empty file (no data stream).
    pub fn add_empty_file(&mut self, name: &str, meta: EntryMeta) -> Result<(), SevenZError> {
        self.check_open()?;
        let name = clean_name(name)?;
        self.files.push_entry(name, fields(&meta, Kind::EmptyFile));
        Ok(())
    }

    /// Adds `disk_path` as `name_in_archive`, with its times and (on unix)
    /// its mode. A directory is added with everything below it, in name
    /// order; a symbolic link is stored as a link (its target as data, as
    /// 7-Zip's `-snl`), not followed. Anything else (a FIFO, a device, a
    /// socket) is an [`io::ErrorKind::InvalidInput`] error, never opened;
    /// files are opened as [`open_regular`] says, and read up to the size
    /// they had when opened (as tar reads them).
    pub fn add_path(
        &mut self,
        disk_path: impl AsRef<Path>,
        name_in_archive: &str,
    ) -> Result<(), SevenZError> {
        self.check_open()?;
        let path = disk_path.as_ref();
        let md = std::fs::symlink_metadata(path)?;
        if md.is_dir() {
            // One path and one name buffer for the whole walk: a child is
            // pushed onto them and popped after.
            let mut name = String::with_capacity(name_in_archive.len() + 256);
            name.push_str(name_in_archive);
            self.add_dir_tree(&mut path.to_path_buf(), &md, &mut name)
        } else {
            self.add_leaf(path, &md, name_in_archive)
        }
    }

    /// The directory at `path`, named `name`, and everything below it in
    /// name order; each child's name is `name/child`, built in the same
    /// buffer. `name` is checked and trimmed here, once.
    fn add_dir_tree(
        &mut self,
        path: &mut PathBuf,
        md: &std::fs::Metadata,
        name: &mut String,
    ) -> Result<(), SevenZError> {
        let clean = clean_name(name)?.len();
        name.truncate(clean);
        self.files
            .push_entry(name, fields(&meta_from_fs(md), Kind::Dir));
        let mut children: Vec<_> = std::fs::read_dir(&*path)?
            .map(|e| e.map(|e| e.file_name()))
            .collect::<Result<_, _>>()?;
        children.sort();
        for child in children {
            let len = name.len();
            name.push('/');
            name.push_str(&child.to_string_lossy());
            path.push(&child);
            let result = match std::fs::symlink_metadata(&*path) {
                Ok(cmd) if cmd.is_dir() => self.add_dir_tree(path, &cmd, name),
                Ok(cmd) => self.add_leaf(path, &cmd, name),
                Err(e) => Err(e.into()),
            };
            path.pop();
            name.truncate(len);
            result?;
        }
        Ok(())
    }

    /// A file or a symbolic link (stored as a link) at `path`; anything
    /// else is an error, never opened.
    fn add_leaf(
        &mut self,
        path: &Path,
        md: &std::fs::Metadata,
        name: &str,
    ) -> Result<(), SevenZError> {
        if md.file_type().is_symlink() {
            let target = std::fs::read_link(path)?;
            let bytes = target.to_string_lossy().into_owned().into_bytes();
            self.add_file(name, &bytes[..], meta_from_fs(md))
        } else if md.is_file() {
            let (file, md) = open_regular(path)?;
            if self.skip.is_some_and(|id| id.is_of(&md)) {
                return Ok(());
            }
            // Up to the size it had when opened, as tar reads: a file that
            // grows meanwhile cannot make the walk endless.
            let reader = file.take(md.len());
            self.add_file_sized(name, reader, meta_from_fs(&md), Some(md.len()))
        } else {
            Err(not_regular(path).into())
        }
    }

    /// Ends the archive: finishes the open folder, writes the header
    /// (LZMA-compressed and AES-encrypted as configured) and patches the
    /// start header. Gives back the sink, positioned at the end of the
    /// archive.
    ///
    /// After an I/O error, calling `finish` again resumes and writes the
    /// same bytes; any other error leaves the writer unusable.
    pub fn finish(&mut self) -> Result<W, SevenZError> {
        match self.state {
            State::Open => self.check_open()?,
            State::Finishing(_) => {}
            State::Broken | State::Done => self.check_state()?,
        }
        let result = self.try_finish();
        if let Err(e) = &result {
            if !matches!(e, SevenZError::Io(_)) {
                self.state = State::Broken;
            }
        }
        result
    }

    fn try_finish(&mut self) -> Result<W, SevenZError> {
        self.close_folder()?;
        if let Some(workers) = &mut self.workers {
            let (main, idle, threads) = (&mut self.main, &mut self.idle, self.opts.threads);
            workers.drain(&mut self.sink, |meta, enc| {
                record_folder(main, idle, threads, meta, enc)
            })?;
        }
        if matches!(self.state, State::Open) {
            let tail = self.build_tail()?;
            self.state = State::Finishing(Box::new(tail));
        }
        let State::Finishing(tail) = &mut self.state else {
            return Err(SevenZError::WriterUnusable("finish() in a bad state"));
        };
        if !tail.queued {
            self.sink.queue(&tail.bytes);
            tail.queued = true;
        }
        self.sink.write_pending()?;
        self.sink.overwrite(0, &tail.start)?;
        if let Some((at, byte)) = tail.first_byte {
            self.sink.overwrite(SIGNATURE_HEADER_SIZE + at, &[byte])?;
        }
        self.sink.seek_end_and_flush()?;
        let w = self.sink.inner.take();
        self.state = State::Done;
        w.ok_or(SevenZError::WriterUnusable("the archive is finished"))
    }

    /// The filter for an entry: the configured one, BCJ2, or when
    /// `auto_bcj` is on the branch filter for what looks like an
    /// executable (BCJ2 for x86 with `auto_bcj2`).
    fn filter_for(&self, name: &str, head: &[u8]) -> FolderFilter {
        if let Some(cfg) = &self.opts.filter {
            return FolderFilter::Simple(cfg.clone());
        }
        if self.opts.bcj2 {
            return FolderFilter::Bcj2;
        }
        if !self.opts.auto_bcj {
            return FolderFilter::None;
        }
        match executable_filter(name, head) {
            Some(FilterKind::X86) if self.opts.auto_bcj2 => FolderFilter::Bcj2,
            Some(kind) => FolderFilter::Simple(FilterConfig::new(kind)),
            None => FolderFilter::None,
        }
    }

    fn solid_block_full(&self) -> bool {
        let Some(f) = &self.folder else { return false };
        match self.opts.solid {
            Solid::All => false,
            Solid::None => true,
            Solid::Files(n) => f.meta.files as u64 >= n,
            Solid::Bytes(n) => f.meta.in_size >= n,
        }
    }

    /// Makes the open folder one with `filter`, closing a folder with
    /// another filter first.
    fn start_stream(&mut self, filter: FolderFilter) -> Result<(), SevenZError> {
        if self
            .folder
            .as_ref()
            .is_some_and(|f| f.meta.filter != filter)
        {
            self.close_folder()?;
        }
        if self.folder.is_none() {
            self.folder = Some(self.open_folder(filter)?);
        }
        Ok(())
    }

    fn open_folder(&mut self, filter: FolderFilter) -> Result<OpenFolder, SevenZError> {
        let (aes, aes_props) = match &self.key {
            Some(k) => {
                let (aes, props) = k.encoder()?;
                (Some(aes), Some(props))
            }
            None => (None, None),
        };
        // BCJ2's other three packed streams are encrypted each on its own.
        let mut side_aes = Vec::new();
        let mut side_aes_props = Vec::new();
        if let (Some(k), FolderFilter::Bcj2) = (&self.key, &filter) {
            for _ in 0..3 {
                let (aes, props) = k.encoder()?;
                side_aes.push(aes);
                side_aes_props.push(props);
            }
        }
        Ok(OpenFolder {
            meta: FolderMeta {
                method: self.opts.method,
                lz_opts: self.lz_opts,
                filter,
                aes_props,
                side_aes_props,
                in_size: 0,
                files: 0,
            },
            run: Run::Here(Box::new(FolderEncoder::new(aes, side_aes))),
        })
    }

    /// Ends the open folder (if any) and records it in the header model
    /// (or, when it is away on a worker, has it recorded once written).
    /// Resumable: an I/O error leaves the folder open with no byte lost.
    fn close_folder(&mut self) -> Result<(), SevenZError> {
        let Some(f) = self.folder.as_mut() else {
            return Ok(());
        };
        if let Run::Here(enc) = &f.run {
            if enc.stage.is_none() {
                // The whole folder was held back: its size is known.
                let size = enc.held.len() as u64;
                self.start_folder_engine(Some(size))?;
            }
        }
        let f = self.folder.as_mut().expect("checked above");
        if let Run::Here(enc) = &mut f.run {
            enc.encode_held(&mut self.sink)?;
            enc.finish(&mut self.sink)?;
        }
        let f = self.folder.take().expect("checked above");
        let threads = self.opts.threads;
        match f.run {
            Run::Here(enc) => record_folder(&mut self.main, &mut self.idle, threads, f.meta, enc),
            Run::Away(id) => {
                let workers = self.workers.as_mut().expect("a folder away has workers");
                workers.close(id, f.meta);
                Ok(())
            }
        }
    }

    /// Builds the tail after the last folder: the header as configured,
    /// at the end of the data.
    fn build_tail(&mut self) -> Result<Tail, SevenZError> {
        let pack_pos = self.sink.logical_pos();
        // No more folders: the idle engines' pooled buffers can serve the
        // header's encoder.
        self.idle.clear();
        self.workers = None;
        Tail::build(
            pack_pos,
            &self.main,
            &self.files,
            self.key.as_ref(),
            &self.opts,
        )
    }
}

/// A folder being written: what its record needs, and its encoder.
struct OpenFolder {
    meta: FolderMeta,
    run: Run,
}

/// Where a folder's encoder runs.
enum Run {
    /// On the writer's thread.
    Here(Box<FolderEncoder>),
    /// On a worker, as folder number `n` of the [`Workers`].
    Away(u64),
}

impl<S: Read + Write + Seek> Writer<S> {
    /// Ends the archive for an output that cannot seek (a pipe, a socket):
    /// the writer's own sink `S` is the spool (a temporary file, or a
    /// `Cursor<Vec<u8>>` for small archives); once the archive in it is
    /// complete, it is copied whole into `out`. Gives back both.
    ///
    /// `out` receives nothing before the archive is complete, so an error
    /// leaves it short of its end, which readers reject as truncated.
    pub fn finish_into<O: Write>(&mut self, mut out: O) -> Result<(S, O), SevenZError> {
        let base = self.sink.base;
        let mut spool = self.finish()?;
        spool.seek(SeekFrom::Start(base))?;
        io::copy(&mut spool, &mut out)?;
        out.flush()?;
        Ok((spool, out))
    }
}

/// Reads until `buf` is full or the source ends.
fn read_full<R: Read>(r: &mut R, buf: &mut [u8]) -> Result<usize, SevenZError> {
    let mut n = 0;
    while n < buf.len() {
        match r.read(&mut buf[n..]) {
            Ok(0) => break,
            Ok(k) => n += k,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(SevenZError::Io(e)),
        }
    }
    Ok(n)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn writers_can_move_between_threads() {
        fn assert_send<T: Send>() {}
        assert_send::<Writer<std::fs::File>>();
    }

    #[test]
    fn an_archive_may_start_inside_the_sink() {
        let run = |prefix: &[u8]| {
            let mut sink = std::io::Cursor::new(prefix.to_vec());
            sink.set_position(prefix.len() as u64);
            let mut w = Writer::with_options(sink, WriterOptions::default().with_level(0)).unwrap();
            w.add_file("a", &[5u8; 3000][..], EntryMeta::default())
                .unwrap();
            let out = w.finish().unwrap();
            assert_eq!(out.position() as usize, out.get_ref().len());
            out.into_inner()
        };
        let plain = run(b"");
        let shifted = run(b"SFX stub");
        assert_eq!(&shifted[..8], b"SFX stub");
        assert_eq!(&shifted[8..], &plain[..]);
    }
}
