//! The sans-I/O part of opening an archive: from the signature header and
//! the header bytes to the list of entries and the folders behind them.
//!
//! Both faces (std here, async in the facade) drive it the same way:
//! read 32 bytes and call [`IndexBuilder::start`]; read the header range it
//! names and call [`IndexBuilder::header`]; while that answers
//! [`HeaderStep::Encoded`], decode the given folders (servicing their
//! [`PackRequest`](crate::PackRequest)s) and hand the bytes to
//! [`IndexBuilder::decoded_header`].

use std::sync::Arc;

use lzflow_core::{LimitExceeded, Limits};
use zeroize::Zeroize;

use crate::read::aes::KeyCache;
use crate::read::coder_graph::{CoderSettings, FolderDecoder};
use crate::read::entry::{Entry, ATTR_DIRECTORY};
use crate::read::header::{parse_header_block, Header, HeaderBlock, StreamsInfo};
use crate::read::signature_header::{SignatureHeader, SIGNATURE_HEADER_SIZE};
use crate::SevenZError;

/// How an archive is opened and read.
#[derive(Clone)]
#[non_exhaustive]
pub struct ArchiveOptions {
    /// Password for encrypted data or headers. The keys derived from it
    /// for one archive may take at most 2^26 SHA-256 stretching rounds in
    /// all (four keys at the format's 2^24 maximum; real archives need
    /// one): more fails with [`SevenZError::UnsupportedFeature`], so a
    /// hostile header cannot keep the reader hashing.
    pub password: Option<String>,
    /// Memory limit for coders (dictionaries) and output limit for one
    /// extraction (bomb protection).
    pub limits: Limits,
    /// Most entries an archive may list.
    pub max_entries: usize,
    /// Most bytes the header (decoded) may take.
    pub max_header_size: u64,
    /// Most UTF-16 units in one entry name.
    pub max_name_len: usize,
    /// Threads for the entry walk (`for_each_entry`, `extract_to`, the
    /// async `entries_stream`), with the same entries, bytes and errors as
    /// on one thread; 0 means one per CPU, default 1.
    ///
    /// * Folders decode side by side: while the walk reads one, workers
    ///   decode the next ones whole into memory (up to 256 MiB of packed
    ///   plus decoded bytes in flight).
    /// * A folder too large for that, or read alone, decodes as it is read,
    ///   its LZMA2 stream on threads where it has dictionary resets (7-Zip's
    ///   multi-threaded compression writes one every few dictionaries): the
    ///   pieces between resets decode side by side (up to 256 MiB of pieces
    ///   in flight, beside one dictionary per thread).
    pub threads: usize,
}

impl Default for ArchiveOptions {
    fn default() -> Self {
        ArchiveOptions {
            password: None,
            limits: Limits::NONE,
            max_entries: 1 << 20,
            max_header_size: 64 << 20,
            max_name_len: 4096,
            threads: 1,
        }
    }
}

impl std::fmt::Debug for ArchiveOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ArchiveOptions")
            .field("password", &self.password.as_ref().map(|_| "<set>"))
            .field("limits", &self.limits)
            .field("max_entries", &self.max_entries)
            .field("max_header_size", &self.max_header_size)
            .field("max_name_len", &self.max_name_len)
            .field("threads", &self.threads)
            .finish()
    }
}

impl ArchiveOptions {
    /// Sets the password.
    pub fn with_password(mut self, password: impl Into<String>) -> Self {
        self.password = Some(password.into());
        self
    }

    /// Sets the limits.
    pub fn with_limits(mut self, limits: Limits) -> Self {
        self.limits = limits;
        self
    }

    /// Sets the most entries accepted.
    pub fn with_max_entries(mut self, n: usize) -> Self {
        self.max_entries = n;
        self
    }

    /// Sets the most UTF-16 units accepted in one entry name.
    pub fn with_max_name_len(mut self, units: usize) -> Self {
        self.max_name_len = units;
        self
    }

    /// Sets the threads for LZMA2 streams with dictionary resets.
    pub fn with_threads(mut self, threads: usize) -> Self {
        self.threads = threads;
        self
    }

    /// Sets the largest header accepted.
    pub fn with_max_header_size(mut self, bytes: u64) -> Self {
        self.max_header_size = bytes;
        self
    }
}

/// What to do after handing header bytes to the builder.
#[derive(Debug)]
pub enum HeaderStep {
    /// The archive is indexed.
    Index(Box<ArchiveIndex>),
    /// The header is packed: decode these folders completely, concatenate
    /// their output and pass it to [`IndexBuilder::decoded_header`].
    Encoded(Vec<FolderDecoder>),
}

/// Turns header bytes into an [`ArchiveIndex`].
#[derive(Debug)]
pub struct IndexBuilder {
    options: ArchiveOptions,
    keys: Arc<KeyCache>,
    encrypted_header: bool,
    depth: u32,
    /// Where the header starts (after the signature header): every packed
    /// stream must end before it, as 7-Zip requires.
    header_offset: u64,
}

impl IndexBuilder {
    /// A builder for an archive opened with `options`.
    /// The password moves into the key cache (zeroized on drop); the
    /// options kept afterwards hold none.
    pub fn new(mut options: ArchiveOptions) -> Self {
        let keys = Arc::new(KeyCache::new(options.password.as_deref()));
        if let Some(mut p) = options.password.take() {
            p.zeroize();
        }
        IndexBuilder {
            options,
            keys,
            encrypted_header: false,
            depth: 0,
            header_offset: u64::MAX,
        }
    }

    /// Parses the signature header and checks the header size limit.
    /// `file_len` (when known) rejects a header past the end of the file
    /// before anything is allocated for it.
    pub fn start(
        &self,
        bytes: &[u8; 32],
        file_len: Option<u64>,
    ) -> Result<SignatureHeader, SevenZError> {
        let sig = SignatureHeader::parse(bytes)?;
        let pos = sig.header_position()?;
        if let Some(len) = file_len {
            if pos + sig.next_header_size > len {
                return Err(SevenZError::Truncated);
            }
        }
        if sig.next_header_size > self.options.max_header_size {
            return Err(SevenZError::Limit(LimitExceeded::HeaderSize {
                needed: sig.next_header_size,
                limit: self.options.max_header_size,
            }));
        }
        Ok(sig)
    }

    /// Verifies and parses the header bytes named by the signature header.
    pub fn header(
        &mut self,
        sig: &SignatureHeader,
        bytes: &[u8],
    ) -> Result<HeaderStep, SevenZError> {
        if sig.next_header_size == 0 {
            // An empty archive: 7-Zip writes no header at all.
            return Ok(HeaderStep::Index(Box::new(self.index(Header::default())?)));
        }
        if bytes.len() as u64 != sig.next_header_size
            || crc32fast::hash(bytes) != sig.next_header_crc
        {
            return Err(SevenZError::HeaderCrc);
        }
        self.header_offset = sig.next_header_offset;
        self.parse(bytes)
    }

    /// Parses a header produced by decoding the folders of
    /// [`HeaderStep::Encoded`] (their CRCs are checked by the decoders).
    pub fn decoded_header(&mut self, bytes: &[u8]) -> Result<HeaderStep, SevenZError> {
        let encrypted = self.encrypted_header;
        self.parse(bytes).map_err(|e| e.after_decryption(encrypted))
    }

    fn parse(&mut self, bytes: &[u8]) -> Result<HeaderStep, SevenZError> {
        let block = parse_header_block(bytes, self.options.max_entries, self.options.max_name_len)?;
        let pack = match &block {
            HeaderBlock::Plain(h) => &h.main.pack,
            HeaderBlock::Encoded(streams) => &streams.pack,
        };
        let end = pack
            .sizes
            .iter()
            .try_fold(pack.pack_pos, |at, &s| at.checked_add(s));
        if end.is_none_or(|end| end > self.header_offset) {
            return Err(SevenZError::corrupt(
                "a packed stream reaches into the header",
            ));
        }
        match block {
            HeaderBlock::Plain(h) => Ok(HeaderStep::Index(Box::new(self.index(h)?))),
            HeaderBlock::Encoded(streams) => {
                // 7-Zip requires the decoded header to be a plain one.
                self.depth += 1;
                if self.depth > 1 {
                    return Err(SevenZError::corrupt("the decoded header is encoded again"));
                }
                let total: u64 = streams.folders.iter().map(|f| f.unpack_size()).sum();
                if total > self.options.max_header_size {
                    return Err(SevenZError::Limit(LimitExceeded::HeaderSize {
                        needed: total,
                        limit: self.options.max_header_size,
                    }));
                }
                if streams.folders.iter().any(|f| f.is_encrypted()) {
                    self.encrypted_header = true;
                }
                let layout = Layout::new(&streams)?;
                // Decoded in the caller's polls, and small: one thread.
                let settings = CoderSettings {
                    threads: 1,
                    ..self.settings()
                };
                (0..streams.folders.len())
                    .map(|i| {
                        FolderDecoder::new(
                            &streams.folders[i],
                            &layout.offsets[i],
                            &layout.sizes[i],
                            &layout.crcs[i],
                            &self.keys,
                            &settings,
                            "the archive header".to_string(),
                        )
                    })
                    .collect::<Result<Vec<_>, _>>()
                    .map(HeaderStep::Encoded)
            }
        }
    }

    fn settings(&self) -> CoderSettings {
        CoderSettings {
            limits: self.options.limits,
            threads: self.options.threads,
            readiness: None,
        }
    }

    fn index(&self, header: Header) -> Result<ArchiveIndex, SevenZError> {
        let streams = header.main;
        let layout = Layout::new(&streams)?;
        let mut entries = Vec::with_capacity(header.files.len());
        let mut folder_entries = vec![Vec::new(); streams.folders.len()];
        // Files with data take the substreams in order, folder by folder,
        // skipping folders that hold no file.
        let mut sub = 0usize;
        let mut folder = 0usize;
        let mut in_folder = 0usize;
        let mut offset = 0u64;
        for f in header.files {
            let mut e = Entry {
                is_dir: (f.empty_stream && !f.empty_file)
                    || f.attributes.is_some_and(|a| a & ATTR_DIRECTORY != 0),
                name: f.name,
                size: 0,
                has_stream: !f.empty_stream,
                is_anti: f.anti,
                crc: None,
                mtime_filetime: f.mtime,
                atime_filetime: f.atime,
                ctime_filetime: f.ctime,
                attributes: f.attributes,
                folder: None,
                offset_in_folder: 0,
            };
            if !f.empty_stream {
                while folder < streams.folders.len()
                    && in_folder >= streams.substreams.per_folder[folder]
                {
                    folder += 1;
                    in_folder = 0;
                    offset = 0;
                }
                if folder >= streams.folders.len() {
                    return Err(SevenZError::corrupt("more files with data than streams"));
                }
                e.size = streams.substreams.sizes[sub];
                e.crc = streams.substreams.crcs[sub];
                e.folder = Some(folder);
                e.offset_in_folder = offset;
                e.is_dir = false;
                offset += e.size;
                folder_entries[folder].push(entries.len());
                sub += 1;
                in_folder += 1;
            }
            entries.push(e);
        }
        Ok(ArchiveIndex {
            entries,
            folder_entries,
            streams,
            layout,
            keys: self.keys.clone(),
            settings: self.settings(),
            options: self.options.clone(),
        })
    }
}

/// Absolute offsets and sizes of each folder's packed streams.
#[derive(Debug, Clone)]
struct Layout {
    offsets: Vec<Vec<u64>>,
    sizes: Vec<Vec<u64>>,
    crcs: Vec<Vec<Option<u32>>>,
}

impl Layout {
    fn new(streams: &StreamsInfo) -> Result<Self, SevenZError> {
        let rel = streams.pack.offsets();
        let firsts = streams.first_pack_stream();
        let mut layout = Layout {
            offsets: Vec::new(),
            sizes: Vec::new(),
            crcs: Vec::new(),
        };
        for (f, first) in streams.folders.iter().zip(firsts) {
            let n = f.packed_streams.len();
            let range = first..first + n;
            let (Some(offs), Some(sizes)) = (rel.get(range.clone()), streams.pack.sizes.get(range))
            else {
                return Err(SevenZError::corrupt("folder packed streams out of range"));
            };
            layout.offsets.push(
                offs.iter()
                    .map(|o| {
                        o.checked_add(SIGNATURE_HEADER_SIZE)
                            .ok_or_else(|| SevenZError::corrupt("pack position out of range"))
                    })
                    .collect::<Result<_, _>>()?,
            );
            layout.sizes.push(sizes.to_vec());
            layout.crcs.push(
                (first..first + n)
                    .map(|i| streams.pack.crcs.get(i).copied().flatten())
                    .collect(),
            );
        }
        Ok(layout)
    }
}

/// The parsed header of an archive: its entries and how to decode them.
#[derive(Debug)]
pub struct ArchiveIndex {
    entries: Vec<Entry>,
    folder_entries: Vec<Vec<usize>>,
    streams: StreamsInfo,
    layout: Layout,
    keys: Arc<KeyCache>,
    settings: CoderSettings,
    options: ArchiveOptions,
}

impl ArchiveIndex {
    /// Every entry, in archive order.
    pub fn entries(&self) -> &[Entry] {
        &self.entries
    }

    /// Makes the folders' multi-threaded decoders non-blocking, with
    /// `readiness` saying when a call that waited can go on (for a core
    /// over an async source; see [`FolderStep::Wait`](crate::FolderStep::Wait)).
    pub fn set_nonblocking(&mut self, readiness: lzflow_core::Readiness) {
        self.settings.readiness = Some(readiness);
    }

    /// Number of folders (solid blocks).
    pub fn folder_count(&self) -> usize {
        self.streams.folders.len()
    }

    /// Indices of the entries stored in `folder`, in stream order.
    pub fn folder_entries(&self, folder: usize) -> &[usize] {
        self.folder_entries.get(folder).map_or(&[], Vec::as_slice)
    }

    /// True when some folder is encrypted.
    pub fn is_encrypted(&self) -> bool {
        self.streams.folders.iter().any(|f| f.is_encrypted())
    }

    /// The options the archive was opened with (without the password).
    pub fn options(&self) -> &ArchiveOptions {
        &self.options
    }

    /// A fresh decoder for `folder`.
    pub fn folder_decoder(&self, folder: usize) -> Result<FolderDecoder, SevenZError> {
        self.folder_decoder_with_threads(folder, self.settings.threads)
    }

    /// The handle that says when a non-blocking wait is over (set by
    /// [`set_nonblocking`](Self::set_nonblocking)).
    pub(crate) fn readiness(&self) -> Option<&lzflow_core::Readiness> {
        self.settings.readiness.as_ref()
    }

    /// [`folder_decoder`](Self::folder_decoder) with its LZMA2 streams on
    /// `threads` threads (1 for a folder that a worker decodes whole).
    pub(crate) fn folder_decoder_with_threads(
        &self,
        folder: usize,
        threads: usize,
    ) -> Result<FolderDecoder, SevenZError> {
        let settings = CoderSettings {
            threads,
            // One-thread decoders never wait: a call of theirs without
            // progress is a stall, whatever other decoders wait for.
            readiness: self.settings.readiness.clone().filter(|_| threads != 1),
            ..self.settings.clone()
        };
        let f = self
            .streams
            .folders
            .get(folder)
            .ok_or_else(|| SevenZError::corrupt("no such folder"))?;
        FolderDecoder::new(
            f,
            &self.layout.offsets[folder],
            &self.layout.sizes[folder],
            &self.layout.crcs[folder],
            &self.keys,
            &settings,
            format!("folder {folder}"),
        )
    }

    /// Bytes of packed data `folder` occupies in the archive.
    pub fn folder_packed_size(&self, folder: usize) -> u64 {
        self.layout
            .sizes
            .get(folder)
            .map_or(0, |s| s.iter().fold(0u64, |a, &b| a.saturating_add(b)))
    }

    /// Bytes `folder` decodes to.
    pub fn folder_unpack_size(&self, folder: usize) -> u64 {
        self.streams
            .folders
            .get(folder)
            .map_or(0, |f| f.unpack_size())
    }

    /// The coders of `folder` as 7-Zip's technical listing shows them:
    /// last stored first, each with its properties, e.g.
    /// `BCJ LZMA2:24 7zAES:19`
    /// ([`listing_name_7z`](lzflow_methods::listing_name_7z)).
    pub fn folder_method(&self, folder: usize) -> String {
        let Some(f) = self.streams.folders.get(folder) else {
            return String::new();
        };
        f.coders
            .iter()
            .rev()
            .map(|c| lzflow_methods::listing_name_7z(&c.method, &c.properties))
            .collect::<Vec<_>>()
            .join(" ")
    }

    /// Every method of the archive's data as 7-Zip's technical listing
    /// sums them up, e.g. `LZMA2:24 BCJ 7zAES`
    /// ([`archive_listing_7z`](lzflow_methods::archive_listing_7z)); empty
    /// without data.
    pub fn archive_method(&self) -> String {
        lzflow_methods::archive_listing_7z(
            self.streams
                .folders
                .iter()
                .flat_map(|f| &f.coders)
                .map(|c| (&c.method[..], &c.properties[..])),
        )
    }

    /// Bytes of the archive's data streams: all but its headers.
    pub fn packed_size(&self) -> u64 {
        (0..self.folder_count()).fold(0u64, |a, f| a.saturating_add(self.folder_packed_size(f)))
    }

    /// True when `folder`'s data is encrypted.
    pub fn folder_is_encrypted(&self, folder: usize) -> bool {
        self.streams
            .folders
            .get(folder)
            .is_some_and(|f| f.is_encrypted())
    }

    /// True when a password was given.
    pub fn has_password(&self) -> bool {
        self.keys.has_password()
    }
}
