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
use std::time::{SystemTime, UNIX_EPOCH};

use lzflow_core::{Encode, InBuf, Lease, OutBuf, Pool, Progress};
use lzflow_filters::{try_new_filter, Direction, FilterConfig, FilterEncoder, FilterKind};
use lzflow_lzma::{LzmaEncoder, LzmaError, LzmaOptions};

use crate::method_id;
use crate::read::entry::{ATTR_DIRECTORY, ATTR_UNIX_EXTENSION};
use crate::read::folder::{BindPair, Coder, Folder};
use crate::read::header::StreamsInfo;
use crate::read::pack_info::PackInfo;
use crate::read::signature_header::SIGNATURE_HEADER_SIZE;
use crate::secret_buf::SecretBuf;
use crate::write::aes_encoder::{AesEncoder, ArchiveKey};
use crate::write::file_table::{Fields, FileTable};
use crate::write::folder_encoder::{FolderEncoder, Lz, PackedOut, Stage, CHUNK, HOLD_MAX};
use crate::write::folder_workers::Workers;
use crate::write::header_writer::{
    header_bytes, header_size, start_header, unfinished_start_header, write_encoded_header,
    write_header, Out,
};
use crate::write::writer_options::{level_options, EntryMeta, Method, Solid, WriterOptions};
use crate::SevenZError;

/// Output gathered before it is written to the sink.
const SINK_BATCH: usize = 64 << 10;
/// Largest dictionary for the header's LZMA stream (7-Zip's choice too);
/// smaller headers get a dictionary fitted to their size.
const HEADER_DICT_MAX: u32 = 1 << 20;
/// Windows "archive" attribute, 7-Zip's default for files.
const ATTR_ARCHIVE: u32 = 0x20;
/// FILETIME ticks (100 ns) between 1601-01-01 and 1970-01-01.
const FILETIME_UNIX_EPOCH: u64 = 116_444_736_000_000_000;

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
}

/// What `finish` writes after the data: fixed once built so that a retry
/// produces the same archive (the header IV is random).
#[derive(Debug)]
struct Tail {
    /// Packed header stream and header record, the record's first byte
    /// zeroed.
    bytes: Vec<u8>,
    start: [u8; 32],
    /// Where the header record starts (after the start header) and its
    /// real first byte, written last.
    first_byte: Option<(u64, u8)>,
    queued: bool,
}

impl Tail {
    fn new(mut bytes: Vec<u8>, record_at: usize, start: [u8; 32], pack_pos: u64) -> Self {
        let first_byte = bytes.get_mut(record_at).map(|b| {
            let real = *b;
            *b = 0;
            (pack_pos + record_at as u64, real)
        });
        Tail {
            bytes,
            start,
            first_byte,
            queued: false,
        }
    }
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
        })
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
        mut reader: R,
        meta: EntryMeta,
    ) -> Result<(), SevenZError> {
        self.begin_file(name, meta)?;
        let mut buf = std::mem::take(&mut self.input);
        let result = loop {
            // Whole 64 KiB blocks, so automatic BCJ sees a full header.
            match read_full(&mut reader, &mut buf) {
                Ok(0) => break Ok(()),
                Ok(n) => {
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
            self.start_stream(filter)?;
        }
        let entry = self.entry.as_mut().expect("checked above");
        entry.started = true;
        entry.crc.update(data);
        entry.size += data.len() as u64;
        let folder = self.folder.as_mut().expect("opened by start_stream");
        if let Run::Here(enc) = &mut folder.run {
            if enc.stage.is_none() {
                // Stored data has nothing to fit: it goes straight through.
                let fits = !matches!(self.opts.method, Method::Copy);
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
            (Method::Copy, _) | (_, None) => None,
            (_, Some(n)) => Some(n),
        };
        let opts = fit.map_or(self.lz_opts, |n| self.lz_opts.fitted_to(n));
        let lz = match self.idle.iter().position(|(_, o)| *o == opts) {
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
                Lz::new(self.opts.method, &opts, fit, threads)?
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
            Some(cfg) => {
                let f = try_new_filter(cfg, Direction::Encode)?;
                Stage::Filtered(FilterEncoder::new(lz, vec![f]))
            }
            None => Stage::Plain(lz),
        });
        folder.meta.lz_opts = opts;
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
    /// 7-Zip's `-snl`), not followed.
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

    /// A file or a symbolic link (stored as a link) at `path`.
    fn add_leaf(
        &mut self,
        path: &Path,
        md: &std::fs::Metadata,
        name: &str,
    ) -> Result<(), SevenZError> {
        let meta = meta_from_fs(md);
        if md.file_type().is_symlink() {
            let target = std::fs::read_link(path)?;
            let bytes = target.to_string_lossy().into_owned().into_bytes();
            self.add_file(name, &bytes[..], meta)
        } else {
            let file = std::fs::File::open(path)?;
            self.add_file(name, file, meta)
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

    /// The filter for an entry: the configured one, or x86 BCJ for what
    /// looks like an executable when `auto_bcj` is on.
    fn filter_for(&self, name: &str, head: &[u8]) -> Option<FilterConfig> {
        if self.opts.filter.is_some() {
            return self.opts.filter.clone();
        }
        (self.opts.auto_bcj && looks_like_x86_executable(name, head))
            .then(|| FilterConfig::new(FilterKind::X86))
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
    fn start_stream(&mut self, filter: Option<FilterConfig>) -> Result<(), SevenZError> {
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

    fn open_folder(&mut self, filter: Option<FilterConfig>) -> Result<OpenFolder, SevenZError> {
        let (aes, aes_props) = match &self.key {
            Some(k) => {
                let (aes, props) = k.encoder()?;
                (Some(aes), Some(props))
            }
            None => (None, None),
        };
        Ok(OpenFolder {
            meta: FolderMeta {
                method: self.opts.method,
                lz_opts: self.lz_opts,
                filter,
                aes_props,
                in_size: 0,
                files: 0,
            },
            run: Run::Here(Box::new(FolderEncoder::new(aes))),
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

    /// Serialises the header and, as configured, compresses and encrypts
    /// it into a packed stream described by an encoded header.
    fn build_tail(&mut self) -> Result<Tail, SevenZError> {
        let pack_pos = self.sink.logical_pos();
        // No more folders: the idle engines' pooled buffers can serve the
        // header's encoder.
        self.idle.clear();
        self.workers = None;
        if self.files.is_empty() {
            // An empty archive has no header at all, as 7-Zip writes it.
            return Ok(Tail::new(Vec::new(), 0, start_header(0, 0, 0), pack_pos));
        }
        if !self.opts.compress_header && !self.opts.encrypt_header {
            // The plain header is the archive's tail itself.
            let plain = header_bytes(&self.main, &self.files);
            let start = start_header(pack_pos, plain.len() as u64, crc32fast::hash(&plain));
            return Ok(Tail::new(plain, 0, start, pack_pos));
        }
        // Measured first (the encoder is fitted to the size, and the size
        // goes into the folder record), then written straight into the
        // encoder: the plain header is never held whole.
        let (main, files) = (&self.main, &self.files);
        let plain_len = header_size(main, files);
        let (packed, lzma_props, plain_crc) =
            compress_header(plain_len, |out| write_header(out, main, files))?;
        let lzma = coder(method_id::LZMA, lzma_props);
        let (encrypted, folder) = match (&self.key, self.opts.encrypt_header) {
            (Some(key), true) => {
                let (mut aes, props) = key.encoder()?;
                let mut out = Vec::with_capacity(packed.len() + 32);
                encode_all(&mut aes, &packed, &mut out)?;
                let folder = Folder {
                    coders: vec![coder(method_id::AES, props), lzma],
                    bind_pairs: vec![BindPair {
                        in_index: 1,
                        out_index: 0,
                    }],
                    packed_streams: vec![0],
                    unpack_sizes: vec![packed.len() as u64, plain_len],
                    crc: Some(plain_crc),
                };
                (Some(out), folder)
            }
            _ => {
                let folder = Folder {
                    coders: vec![lzma],
                    bind_pairs: Vec::new(),
                    packed_streams: vec![0],
                    unpack_sizes: vec![plain_len],
                    crc: Some(plain_crc),
                };
                (None, folder)
            }
        };
        let stream: &[u8] = encrypted.as_deref().unwrap_or(&packed);
        let streams = StreamsInfo {
            pack: PackInfo {
                pack_pos,
                sizes: vec![stream.len() as u64],
                crcs: vec![None],
            },
            folders: vec![folder],
            substreams: Default::default(),
        };
        let block = write_encoded_header(&streams);
        let start = start_header(
            pack_pos + stream.len() as u64,
            block.len() as u64,
            crc32fast::hash(&block),
        );
        let mut bytes = Vec::with_capacity(stream.len() + block.len());
        bytes.extend_from_slice(stream);
        bytes.extend_from_slice(&block);
        Ok(Tail::new(bytes, stream.len(), start, pack_pos))
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

/// What the header records about a folder, besides its encoder's output.
struct FolderMeta {
    method: Method,
    /// The LZ options the engine was made with (the fitted dictionary).
    lz_opts: LzmaOptions,
    filter: Option<FilterConfig>,
    /// The AES coder's properties (salt and IV) when encrypting.
    aes_props: Option<Vec<u8>>,
    /// Uncompressed bytes in the folder.
    in_size: u64,
    /// Entries with data in the folder.
    files: usize,
}

/// Records a written folder in the header model and keeps its engine for
/// the next folder (at most `threads` engines are kept).
fn record_folder(
    main: &mut StreamsInfo,
    idle: &mut Vec<(Lz, LzmaOptions)>,
    threads: usize,
    f: FolderMeta,
    mut enc: Box<FolderEncoder>,
) -> Result<(), SevenZError> {
    let mut coders = Vec::with_capacity(3);
    let mut unpack_sizes = Vec::with_capacity(3);
    let mut packed = enc.lz_out;
    if let Some(props) = f.aes_props {
        coders.push(coder(method_id::AES, props));
        unpack_sizes.push(enc.lz_out);
        packed = AesEncoder::padded_len(enc.lz_out);
    }
    coders.push(lz_coder(f.method, &f.lz_opts));
    unpack_sizes.push(f.in_size);
    if let Some(cfg) = &f.filter {
        coders.push(coder(&filter_method_id(cfg.kind), cfg.sevenz_props()));
        unpack_sizes.push(f.in_size);
    }
    // Coder i decodes the output of coder i - 1; coder 0 reads the
    // packed stream (7-Zip's order).
    let bind_pairs = (1..coders.len())
        .map(|i| BindPair {
            in_index: i,
            out_index: i - 1,
        })
        .collect();
    main.pack.sizes.push(packed);
    main.pack.crcs.push(None);
    main.folders.push(Folder {
        coders,
        bind_pairs,
        packed_streams: vec![0],
        unpack_sizes,
        crc: None,
    });
    main.substreams.per_folder.push(f.files);
    if let Some(stage) = enc.stage.take() {
        let mut lz = stage.into_lz();
        lz.reset();
        idle.push((lz, f.lz_opts));
        if idle.len() > threads.max(1) {
            idle.remove(0);
        }
    }
    Ok(())
}

/// Compresses the `len` bytes of plain header that `write` produces into
/// the header's LZMA stream; gives back the stream, its coder properties
/// and the plain header's CRC. The dictionary is fitted to the header's
/// size (at least 4 KiB, at most 1 MiB), so the encoder and readers
/// allocate little.
fn compress_header(
    len: u64,
    write: impl FnOnce(&mut dyn Out),
) -> Result<(SecretBuf, Vec<u8>, u32), SevenZError> {
    let mut opts = LzmaOptions::preset(5).expect("preset 5 exists");
    opts.dict_size = HEADER_DICT_MAX;
    let mut enc = LzmaEncoder::with_size_hint(&opts, false, len)?;
    opts.dict_size = enc.dict_size();
    let mut sink = Compressing::new(Mapped(&mut enc));
    write(&mut sink);
    let (out, crc, written) = sink.finish()?;
    debug_assert_eq!(written, len, "measured and written header sizes differ");
    Ok((out, lzma_props(&opts), crc))
}

/// Header bytes on their way into an encoder: gathered into pieces of
/// [`CHUNK`] bytes, each checksummed and compressed as it fills. `Out`
/// cannot fail, so the first encoder error is kept for
/// [`finish`](Self::finish) and later bytes are dropped.
struct Compressing<E> {
    enc: E,
    /// The piece being gathered (plain header: zeroized).
    piece: SecretBuf,
    /// Encoder output space.
    scratch: SecretBuf,
    /// The compressed stream so far.
    out: SecretBuf,
    crc: crc32fast::Hasher,
    len: u64,
    error: Option<SevenZError>,
}

impl<E: Encode<Error = SevenZError>> Compressing<E> {
    fn new(enc: E) -> Self {
        Compressing {
            enc,
            piece: SecretBuf::with_capacity(CHUNK),
            scratch: SecretBuf::with_len(CHUNK),
            out: SecretBuf::with_capacity(CHUNK),
            crc: crc32fast::Hasher::new(),
            len: 0,
            error: None,
        }
    }

    /// Checksums and compresses the gathered piece, and empties it.
    fn drain(&mut self) {
        if self.error.is_none() {
            self.crc.update(&self.piece);
            self.len += self.piece.len() as u64;
            let sent = lzflow_core::encode_input(
                &mut self.enc,
                &self.piece,
                &mut self.out,
                &mut self.scratch,
            );
            self.error = sent.err();
        }
        self.piece.clear();
    }

    /// Compresses what is left and ends the stream; gives back the stream,
    /// the CRC and the size of the input.
    fn finish(mut self) -> Result<(SecretBuf, u32, u64), SevenZError> {
        self.drain();
        if let Some(e) = self.error.take() {
            return Err(e);
        }
        lzflow_core::finish_output(&mut self.enc, &mut self.out, &mut self.scratch)?;
        Ok((self.out, self.crc.finalize(), self.len))
    }
}

impl<E: Encode<Error = SevenZError>> Out for Compressing<E> {
    fn push(&mut self, b: u8) {
        self.piece.push(b);
        if self.piece.len() == CHUNK {
            self.drain();
        }
    }

    fn extend_from_slice(&mut self, mut b: &[u8]) {
        while !b.is_empty() {
            let n = (CHUNK - self.piece.len()).min(b.len());
            self.piece.extend_from_slice(&b[..n]);
            b = &b[n..];
            if self.piece.len() == CHUNK {
                self.drain();
            }
        }
    }
}

/// Runs `enc` over all of `data` and finishes it, appending to `out`.
fn encode_all<E: Encode<Error = SevenZError>>(
    enc: &mut E,
    data: &[u8],
    out: &mut Vec<u8>,
) -> Result<(), SevenZError> {
    let mut space = SecretBuf::with_len(CHUNK);
    lzflow_core::encode_to_end(enc, data, out, &mut space)
}

/// An LZMA-layer encoder seen with the 7z error type.
struct Mapped<'a, E>(&'a mut E);

impl<E: Encode<Error = LzmaError>> Encode for Mapped<'_, E> {
    type Error = SevenZError;
    fn encode(
        &mut self,
        input: &mut InBuf<'_>,
        output: &mut OutBuf<'_>,
    ) -> Result<Progress, SevenZError> {
        Ok(self.0.encode(input, output)?)
    }
    fn flush(&mut self, output: &mut OutBuf<'_>) -> Result<Progress, SevenZError> {
        Ok(self.0.flush(output)?)
    }
    fn finish(&mut self, output: &mut OutBuf<'_>) -> Result<Progress, SevenZError> {
        Ok(self.0.finish(output)?)
    }
}

fn coder(method: &[u8], properties: Vec<u8>) -> Coder {
    Coder {
        method: method.to_vec(),
        num_in_streams: 1,
        num_out_streams: 1,
        properties,
    }
}

/// LZMA coder properties: the lc/lp/pb byte and the dictionary size.
fn lzma_props(opts: &LzmaOptions) -> Vec<u8> {
    let mut p = vec![opts.props().to_byte()];
    p.extend_from_slice(&opts.dict_size.to_le_bytes());
    p
}

fn lz_coder(method: Method, opts: &LzmaOptions) -> Coder {
    match method {
        Method::Lzma2 => coder(
            method_id::LZMA2,
            vec![lzflow_lzma::lzma2_props_byte(opts.dict_size)],
        ),
        Method::Lzma => coder(method_id::LZMA, lzma_props(opts)),
        Method::Copy => coder(method_id::COPY, Vec::new()),
    }
}

/// The method ID bytes 7-Zip writes for a filter (its big-endian number
/// without leading zero bytes).
fn filter_method_id(kind: FilterKind) -> Vec<u8> {
    let id = kind.sevenz_id().to_be_bytes();
    let skip = id.iter().take_while(|b| **b == 0).count().min(7);
    id[skip..].to_vec()
}

/// The output: bytes queued in memory, written in batches; knows where
/// the archive starts so the start header can be patched.
struct Sink<W> {
    inner: Option<W>,
    /// Sink position of the start header.
    base: u64,
    /// Bytes after the start header confirmed written.
    written: u64,
    pending: Lease<u8>,
    /// A write failed: seek back to the confirmed end before writing.
    resync: bool,
}

impl<W: Write + Seek> Sink<W> {
    /// Writes the unfinished start header at the current position.
    fn start(mut w: W) -> Result<Self, SevenZError> {
        let base = w.stream_position()?;
        w.write_all(&unfinished_start_header())?;
        Ok(Sink {
            inner: Some(w),
            base,
            written: 0,
            pending: Pool::<u8>::global().lease(SINK_BATCH * 2),
            resync: false,
        })
    }

    /// Position of the next byte, counted from the end of the start header.
    fn logical_pos(&self) -> u64 {
        self.written + self.pending.len() as u64
    }

    fn queue(&mut self, data: &[u8]) {
        self.pending.extend_from_slice(data);
    }

    fn write_if_full(&mut self) -> Result<(), SevenZError> {
        if self.pending.len() >= SINK_BATCH {
            self.write_pending()?;
        }
        Ok(())
    }

    fn inner(&mut self) -> Result<&mut W, SevenZError> {
        self.inner
            .as_mut()
            .ok_or(SevenZError::WriterUnusable("the archive is finished"))
    }

    /// Writes every queued byte. On error the unwritten bytes stay queued
    /// and the next attempt seeks back to the confirmed end first (a failed
    /// write may have left anything behind).
    fn write_pending(&mut self) -> Result<(), SevenZError> {
        let at = self.base + SIGNATURE_HEADER_SIZE + self.written;
        let resync = self.resync;
        let w = self
            .inner
            .as_mut()
            .ok_or(SevenZError::WriterUnusable("the archive is finished"))?;
        if resync {
            w.seek(SeekFrom::Start(at))?;
            self.resync = false;
        }
        let mut done = 0;
        let mut result = Ok(());
        while done < self.pending.len() {
            match w.write(&self.pending[done..]) {
                Ok(0) => {
                    result = Err(io::Error::from(io::ErrorKind::WriteZero));
                    break;
                }
                Ok(n) => done += n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => {
                    result = Err(e);
                    break;
                }
            }
        }
        self.written += done as u64;
        self.pending.drain(..done);
        if result.is_err() {
            self.resync = true;
        }
        Ok(result?)
    }

    /// Writes `bytes` at `at` (counted from the start of the archive).
    fn overwrite(&mut self, at: u64, bytes: &[u8]) -> Result<(), SevenZError> {
        let pos = self.base + at;
        let w = self.inner()?;
        w.seek(SeekFrom::Start(pos))?;
        w.write_all(bytes)?;
        Ok(())
    }

    /// Leaves the sink at the end of the archive, flushed.
    fn seek_end_and_flush(&mut self) -> Result<(), SevenZError> {
        let end = self.base + SIGNATURE_HEADER_SIZE + self.written;
        let w = self.inner()?;
        w.seek(SeekFrom::Start(end))?;
        w.flush()?;
        Ok(())
    }
}

impl<W: Write + Seek> PackedOut for Sink<W> {
    fn queue(&mut self, data: &[u8]) {
        Sink::queue(self, data);
    }
    fn write_if_full(&mut self) -> Result<(), SevenZError> {
        Sink::write_if_full(self)
    }
    fn write_pending(&mut self) -> Result<(), SevenZError> {
        Sink::write_pending(self)
    }
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

/// Checks a name: non-empty and without NUL (the name separator in the
/// header). Gives it back without trailing slashes.
/// Checks `name` as the writer's `add_*` and `begin_file` calls do (not
/// empty, no NUL), so a caller that queues calls for later can refuse a
/// bad name at once.
pub fn check_entry_name(name: &str) -> Result<(), SevenZError> {
    clean_name(name).map(drop)
}

fn clean_name(name: &str) -> Result<&str, SevenZError> {
    let clean = name.trim_end_matches('/');
    if clean.is_empty() || clean.contains('\0') {
        return Err(SevenZError::InvalidEntryName(name.to_string()));
    }
    Ok(clean)
}

/// What an entry is, for its stored fields.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// A file with a data stream.
    File,
    /// A file without one.
    EmptyFile,
    Dir,
}

/// The header fields of an entry.
fn fields(meta: &EntryMeta, kind: Kind) -> Fields {
    let t = |t: Option<SystemTime>| t.map(system_time_to_filetime);
    Fields {
        empty_stream: kind != Kind::File,
        empty_file: kind == Kind::EmptyFile,
        times: [t(meta.ctime), t(meta.atime), t(meta.mtime)],
        attributes: Some(attributes(meta, kind == Kind::Dir)),
    }
}

/// The stored attributes: the given (or default) Windows bits, and the unix
/// mode in the high half behind 7-Zip's extension bit.
fn attributes(meta: &EntryMeta, is_dir: bool) -> u32 {
    let default = if is_dir { ATTR_DIRECTORY } else { ATTR_ARCHIVE };
    let mut a = meta.attributes.unwrap_or(default);
    if is_dir {
        a |= ATTR_DIRECTORY;
    }
    if let Some(mode) = meta.unix_mode {
        let mut m = mode & 0xFFFF;
        if m & 0o170000 == 0 {
            m |= if is_dir { 0o040000 } else { 0o100000 };
        }
        a = (a & 0x7FFF) | ATTR_UNIX_EXTENSION | (m << 16);
    }
    a
}

/// A `SystemTime` as a FILETIME (100 ns ticks since 1601 UTC); times
/// before 1601 become 0.
pub fn system_time_to_filetime(t: SystemTime) -> u64 {
    match t.duration_since(UNIX_EPOCH) {
        Ok(d) => FILETIME_UNIX_EPOCH
            .saturating_add(d.as_secs().saturating_mul(10_000_000))
            .saturating_add(u64::from(d.subsec_nanos() / 100)),
        Err(e) => {
            let d = e.duration();
            let ticks = d
                .as_secs()
                .saturating_mul(10_000_000)
                .saturating_add(u64::from(d.subsec_nanos()).div_ceil(100));
            FILETIME_UNIX_EPOCH.saturating_sub(ticks)
        }
    }
}

fn meta_from_fs(md: &std::fs::Metadata) -> EntryMeta {
    let mut meta = EntryMeta {
        mtime: md.modified().ok(),
        atime: md.accessed().ok(),
        ctime: md.created().ok(),
        ..EntryMeta::default()
    };
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        meta.unix_mode = Some(md.mode() & 0xFFFF);
    }
    if md.permissions().readonly() {
        meta.attributes = Some(
            crate::read::entry::ATTR_READONLY
                | if md.is_dir() {
                    ATTR_DIRECTORY
                } else {
                    ATTR_ARCHIVE
                },
        );
    }
    meta
}

/// Extensions 7-Zip treats as x86 executables.
const EXE_EXTENSIONS: [&str; 10] = [
    "exe", "dll", "sys", "ocx", "cpl", "scr", "drv", "efi", "so", "ko",
];

/// True for names with an executable extension (`.so.1` counts) and for
/// data starting with an x86 ELF or PE header.
fn looks_like_x86_executable(name: &str, head: &[u8]) -> bool {
    let base = name.rsplit('/').next().unwrap_or(name).to_ascii_lowercase();
    let mut parts = base.split('.').skip(1);
    if parts.any(|ext| EXE_EXTENSIONS.contains(&ext) && (ext == "so" || base.ends_with(ext))) {
        return true;
    }
    if head.len() >= 20 && head.starts_with(b"\x7fELF") {
        let machine = u16::from_le_bytes([head[18], head[19]]);
        return machine == 3 || machine == 62;
    }
    if head.len() >= 0x40 && head.starts_with(b"MZ") {
        let pe = u32::from_le_bytes([head[0x3C], head[0x3D], head[0x3E], head[0x3F]]) as usize;
        if let Some(h) = head.get(pe..pe + 6) {
            let machine = u16::from_le_bytes([h[4], h[5]]);
            return h.starts_with(b"PE\0\0") && (machine == 0x14C || machine == 0x8664);
        }
    }
    false
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

    #[test]
    fn executables_are_recognised() {
        assert!(looks_like_x86_executable("a/b/setup.EXE", b""));
        assert!(looks_like_x86_executable("libz.so.1", b""));
        assert!(looks_like_x86_executable("libz.so", b""));
        assert!(!looks_like_x86_executable("notes.exe.txt", b""));
        assert!(!looks_like_x86_executable(
            "readme",
            b"plain text here......"
        ));
        let mut elf = b"\x7fELF".to_vec();
        elf.resize(20, 0);
        elf[18] = 62;
        assert!(looks_like_x86_executable("prog", &elf));
        elf[18] = 40; // ARM
        assert!(!looks_like_x86_executable("prog", &elf));
        let mut pe = vec![0u8; 0x100];
        pe[..2].copy_from_slice(b"MZ");
        pe[0x3C] = 0x80;
        pe[0x80..0x84].copy_from_slice(b"PE\0\0");
        pe[0x84..0x86].copy_from_slice(&0x8664u16.to_le_bytes());
        assert!(looks_like_x86_executable("prog", &pe));
    }

    #[test]
    fn attributes_carry_the_unix_mode() {
        let m = EntryMeta::default().with_unix_mode(0o644);
        assert_eq!(attributes(&m, false), 0x20 | 0x8000 | (0o100644 << 16));
        assert_eq!(attributes(&m, true), 0x10 | 0x8000 | (0o040644 << 16));
        assert_eq!(attributes(&EntryMeta::default(), true), 0x10);
        assert_eq!(
            attributes(&EntryMeta::default().with_attributes(0x21), false),
            0x21
        );
    }

    #[test]
    fn filetimes_on_both_sides_of_1970() {
        use std::time::Duration;
        assert_eq!(system_time_to_filetime(UNIX_EPOCH), FILETIME_UNIX_EPOCH);
        assert_eq!(
            system_time_to_filetime(UNIX_EPOCH + Duration::new(1, 250)),
            FILETIME_UNIX_EPOCH + 10_000_002
        );
        assert_eq!(
            system_time_to_filetime(UNIX_EPOCH - Duration::from_secs(1)),
            FILETIME_UNIX_EPOCH - 10_000_000
        );
        assert_eq!(
            system_time_to_filetime(UNIX_EPOCH - Duration::from_secs(20_000_000_000)),
            0
        );
        for ft in [FILETIME_UNIX_EPOCH + 123_456_789, 5_000_000] {
            assert_eq!(
                system_time_to_filetime(crate::filetime_to_system_time(ft)),
                ft
            );
        }
    }

    #[test]
    fn filter_ids_are_7zips() {
        assert_eq!(filter_method_id(FilterKind::X86), method_id::BCJ_X86);
        assert_eq!(filter_method_id(FilterKind::Delta), method_id::DELTA);
        assert_eq!(filter_method_id(FilterKind::Arm64), method_id::BCJ_ARM64);
        assert_eq!(filter_method_id(FilterKind::Sparc), method_id::BCJ_SPARC);
    }

    #[test]
    fn names_are_checked() {
        assert_eq!(clean_name("dir/").unwrap(), "dir");
        assert_eq!(clean_name("d/e//").unwrap(), "d/e");
        assert!(matches!(
            clean_name("/"),
            Err(SevenZError::InvalidEntryName(n)) if n == "/"
        ));
        assert!(matches!(
            clean_name("a\0b"),
            Err(SevenZError::InvalidEntryName(_))
        ));
    }
}
