//! Options of the 7z writer and the metadata of one entry.

use std::time::SystemTime;

use lzflow_filters::FilterConfig;
use lzflow_lzma::{LzmaOptions, MatchFinder, Mode};

use crate::SevenZError;

/// The compression coder of every data folder.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Method {
    /// LZMA2 (7-Zip's default).
    #[default]
    Lzma2,
    /// LZMA (without end marker; the size is in the header).
    Lzma,
    /// Stored without compression.
    Copy,
    /// Deflate (7-Zip's `-m0=Deflate`), zlib's level `max(level, 1)`.
    Deflate,
    /// BZip2 (7-Zip's `-m0=BZip2`), blocks of `max(level, 1)` × 100 kB.
    BZip2,
    /// PPMd var. H (7-Zip's `-m0=PPMd`, good on text): a model of `order`
    /// (2–64) in `mem_size` bytes (at least 2 KiB) that every reader
    /// allocates too. [`Method::ppmd`] gives 7-Zip's choice per level.
    Ppmd {
        /// The model's order: how many bytes of context it predicts from.
        order: u8,
        /// The model's memory in bytes.
        mem_size: u32,
    },
}

impl Method {
    /// PPMd with 7-Zip's order and memory for `level` (0–9): at the
    /// default 5, order 6 and 16 MiB.
    pub fn ppmd(level: u32) -> Self {
        let (order, mem_size) = lzflow_methods::ppmd_level(level, None);
        Method::Ppmd { order, mem_size }
    }
}

/// How entries are grouped into folders (solid blocks).
///
/// A folder is compressed as one stream: more entries per folder compress
/// better, fewer make single entries faster to extract. An entry is never
/// split across folders.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Solid {
    /// One folder for everything (as long as the filter stays the same).
    #[default]
    All,
    /// At most this many entries with data per folder.
    Files(u64),
    /// A new folder starts once a folder holds at least this many
    /// uncompressed bytes.
    Bytes(u64),
    /// One folder per entry.
    None,
}

/// How a [`Writer`](crate::Writer) compresses and protects an archive.
///
/// `level` (`0..=9`) means what 7-Zip's `-mx` means for LZMA and LZMA2
/// (see [`level_options`]); the default 5 has a 32 MiB dictionary, as
/// `7zz a -mx5` has. Unlike 7-Zip, level 0 still compresses (with a
/// 64 KiB dictionary): ask for [`Method::Copy`] to store. A folder whose
/// data ends within its first 1 MiB is compressed with a dictionary fitted
/// to its size (as 7-Zip does), which the folder's coder properties state,
/// so writers and readers allocate little for it; larger folders use the
/// level's dictionary.
#[derive(Clone)]
#[non_exhaustive]
pub struct WriterOptions {
    /// Compression coder.
    pub method: Method,
    /// Compression level `0..=9` for LZMA and LZMA2 ([`level_options`]).
    pub level: u32,
    /// A filter (BCJ or Delta) applied before compression to every entry.
    pub filter: Option<FilterConfig>,
    /// Put BCJ2 in front of every entry (7-Zip's `-mf=BCJ2`): x86 CALL and
    /// JMP targets go to streams of their own, compressed with small LZMA
    /// coders, so the folder has four packed streams. Excludes `filter`.
    /// The CALL, JUMP and flag streams (a few percent of the input) are
    /// kept in memory, compressed, until their folder ends.
    pub bcj2: bool,
    /// When neither `filter` nor `bcj2` is set: put a branch filter in
    /// front of files that look like executables, in folders of their
    /// own, as 7-Zip does. An ELF or PE header picks the filter by machine
    /// (x86, ARM64, ARM, ARM-Thumb, RISC-V, PowerPC, SPARC, IA-64); names
    /// with executable extensions (`.exe .dll .sys .so ...`) get x86.
    pub auto_bcj: bool,
    /// With `auto_bcj`: x86 executables get BCJ2 rather than BCJ, as
    /// 7-Zip does at `-mx8` and `-mx9`.
    pub auto_bcj2: bool,
    /// Folder grouping.
    pub solid: Solid,
    /// LZMA-compress the header (7-Zip's `-mhc=on`, the default).
    pub compress_header: bool,
    /// Encrypt the data with AES-256 (7-Zip's `-p`).
    pub password: Option<String>,
    /// Also encrypt the header, so names are hidden (7-Zip's `-mhe=on`);
    /// the header is then always LZMA-compressed first. Needs `password`.
    pub encrypt_header: bool,
    /// Key derivation rounds are `2^aes_cycles_power` SHA-256 updates
    /// (7-Zip uses 19; at most 24).
    pub aes_cycles_power: u8,
    /// Compressing threads (7-Zip's `-mmt`); 1, the default, is
    /// single-threaded. How more are used depends on `solid`:
    ///
    /// - [`Solid::All`]: a folder's LZMA2 stream is cut into independent
    ///   pieces of three dictionaries (at least 1 MiB), compressed in
    ///   parallel and joined at dictionary resets
    ///   ([`MtLzma2Encoder`](lzflow_lzma::MtLzma2Encoder)): the archive is
    ///   the same for any count above 1. Folders smaller than two pieces
    ///   gain nothing.
    /// - Otherwise (several solid blocks), up to `threads` folders are
    ///   compressed at once, each on one thread, and written in order: the
    ///   archive is byte for byte the one a single thread writes. Entries
    ///   are still read one after the other, so each folder's input is read
    ///   ahead into memory up to its dictionary size (at least 4 MiB) while
    ///   the next folder starts; memory is then up to `threads` engines,
    ///   that much input and 8 MiB of output per folder in flight.
    ///
    /// Calls of the blocking [`Writer`](crate::Writer) wait while the
    /// workers are busy. The async writers (in the `lzflow` facade) run it
    /// on a thread of their own when this is above 1, so no poll waits.
    pub threads: usize,
    /// The total bytes of entry data the caller expects to add, when known
    /// (e.g. from file sizes on disk): the LZMA dictionary is then fitted
    /// to it as 7-Zip fits it (rounded up to 2^n or 3·2^(n-1), never above
    /// the level's), so a medium-sized archive does not pay for level 5's
    /// 32 MiB dictionary. More data than expected is still written
    /// correctly, with the smaller dictionary.
    pub expected_size: Option<u64>,
}

impl Default for WriterOptions {
    fn default() -> Self {
        WriterOptions {
            method: Method::Lzma2,
            level: 5,
            filter: None,
            bcj2: false,
            auto_bcj: false,
            auto_bcj2: false,
            solid: Solid::All,
            compress_header: true,
            password: None,
            encrypt_header: false,
            aes_cycles_power: 19,
            threads: 1,
            expected_size: None,
        }
    }
}

impl std::fmt::Debug for WriterOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("WriterOptions")
            .field("method", &self.method)
            .field("level", &self.level)
            .field("filter", &self.filter)
            .field("bcj2", &self.bcj2)
            .field("auto_bcj", &self.auto_bcj)
            .field("auto_bcj2", &self.auto_bcj2)
            .field("solid", &self.solid)
            .field("compress_header", &self.compress_header)
            .field("password", &self.password.as_ref().map(|_| "<set>"))
            .field("encrypt_header", &self.encrypt_header)
            .field("aes_cycles_power", &self.aes_cycles_power)
            .field("threads", &self.threads)
            .field("expected_size", &self.expected_size)
            .finish()
    }
}

impl WriterOptions {
    /// Sets the compression method.
    pub fn with_method(mut self, method: Method) -> Self {
        self.method = method;
        self
    }

    /// Sets the compression level (`0..=9`, see [`level_options`]).
    pub fn with_level(mut self, level: u32) -> Self {
        self.level = level;
        self
    }

    /// Sets a filter applied to every entry.
    pub fn with_filter(mut self, filter: FilterConfig) -> Self {
        self.filter = Some(filter);
        self
    }

    /// Turns BCJ2 for every entry on or off (7-Zip's `-mf=BCJ2`).
    pub fn with_bcj2(mut self, on: bool) -> Self {
        self.bcj2 = on;
        self
    }

    /// Turns automatic branch filters for executables on or off.
    pub fn with_auto_bcj(mut self, on: bool) -> Self {
        self.auto_bcj = on;
        self
    }

    /// With automatic filters, gives x86 executables BCJ2 rather than BCJ
    /// (7-Zip's choice at `-mx8` and above).
    pub fn with_auto_bcj2(mut self, on: bool) -> Self {
        self.auto_bcj2 = on;
        self
    }

    /// Sets the folder grouping.
    pub fn with_solid(mut self, solid: Solid) -> Self {
        self.solid = solid;
        self
    }

    /// Turns header compression on or off.
    pub fn with_compress_header(mut self, on: bool) -> Self {
        self.compress_header = on;
        self
    }

    /// Encrypts the data with this password.
    pub fn with_password(mut self, password: impl Into<String>) -> Self {
        self.password = Some(password.into());
        self
    }

    /// Turns header encryption on or off (needs a password).
    pub fn with_encrypt_header(mut self, on: bool) -> Self {
        self.encrypt_header = on;
        self
    }

    /// Sets the key derivation cost (`2^power` rounds, at most 24).
    pub fn with_aes_cycles_power(mut self, power: u8) -> Self {
        self.aes_cycles_power = power;
        self
    }

    /// Sets the total entry data expected, to fit the dictionary to it.
    pub fn with_expected_size(mut self, bytes: u64) -> Self {
        self.expected_size = Some(bytes);
        self
    }

    /// Sets the number of LZMA2 compressing threads (0 means one per CPU).
    pub fn with_threads(mut self, threads: usize) -> Self {
        self.threads = match threads {
            0 => std::thread::available_parallelism().map_or(1, |n| n.get()),
            n => n,
        };
        self
    }
}

/// Metadata stored with an entry. Everything is optional; a missing time
/// is not stored, missing attributes default to "archive" for files and
/// "directory" for directories.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct EntryMeta {
    /// Modification time.
    pub mtime: Option<SystemTime>,
    /// Access time.
    pub atime: Option<SystemTime>,
    /// Creation time.
    pub ctime: Option<SystemTime>,
    /// Windows attributes (low 16 bits).
    pub attributes: Option<u32>,
    /// Unix mode (`0o644`, or with the type bits `0o100644`); stored in the
    /// high 16 bits of the attributes as 7-Zip does on unix.
    pub unix_mode: Option<u32>,
}

impl EntryMeta {
    /// The metadata `add_path` stores for a file: its modification,
    /// access and creation times, its Unix mode (on unix), and the
    /// read-only attribute.
    pub fn from_metadata(md: &std::fs::Metadata) -> Self {
        crate::write::entry_fields::meta_from_fs(md)
    }

    /// Sets the modification time.
    pub fn with_mtime(mut self, t: SystemTime) -> Self {
        self.mtime = Some(t);
        self
    }

    /// Sets the access time.
    pub fn with_atime(mut self, t: SystemTime) -> Self {
        self.atime = Some(t);
        self
    }

    /// Sets the creation time.
    pub fn with_ctime(mut self, t: SystemTime) -> Self {
        self.ctime = Some(t);
        self
    }

    /// Sets the Windows attributes.
    pub fn with_attributes(mut self, a: u32) -> Self {
        self.attributes = Some(a);
        self
    }

    /// Sets the unix mode.
    pub fn with_unix_mode(mut self, mode: u32) -> Self {
        self.unix_mode = Some(mode);
        self
    }
}

/// The LZMA/LZMA2 encoder options of compression `level` (`0..=9`), chosen
/// to mean what 7-Zip's `-mx` levels mean (7-Zip 25.01, dictionaries as
/// `7zz l -slt` reports them for inputs larger than the dictionary):
///
/// | level | dictionary | mode, match finder | nice length |
/// |-------|-----------|--------------------|-------------|
/// | 0 | 64 KiB | fast, hc4 | 32 |
/// | 1 | 256 KiB | fast, hc4 | 32 |
/// | 2 | 1 MiB | fast, hc4 | 32 |
/// | 3 | 4 MiB | fast, hc4 | 32 |
/// | 4 | 16 MiB | fast, hc4 | 32 |
/// | 5 | 32 MiB | normal, bt4 | 32 |
/// | 6 | 64 MiB | normal, bt4 | 32 |
/// | 7 | 128 MiB | normal, bt4 | 64 |
/// | 8, 9 | 256 MiB | normal, bt4 | 64 |
///
/// The dictionary is 2^(2·level + 16) up to level 4 and doubles per level
/// after it. The match finder visits 16 + nice/2 candidates (binary tree)
/// or half that (hash chain); lc=3, lp=0, pb=2. Encoder memory is about
/// 11.5 × the dictionary for bt4 and 7.5 × for hc4 (as for 7-Zip), unless
/// the writer fits the dictionary to a smaller input.
pub fn level_options(level: u32) -> Result<LzmaOptions, SevenZError> {
    const DICT_POW2: [u8; 10] = [16, 18, 20, 22, 24, 25, 26, 27, 28, 28];
    let Some(&pow) = DICT_POW2.get(level as usize) else {
        return Err(SevenZError::InvalidWriterOptions("level must be 0..=9"));
    };
    let nice_len = if level < 7 { 32 } else { 64 };
    let bt_depth = 16 + nice_len / 2;
    let (mode, mf, depth) = if level < 5 {
        (Mode::Fast, MatchFinder::Hc4, bt_depth / 2)
    } else {
        (Mode::Normal, MatchFinder::Bt4, bt_depth)
    };
    // lc=3, lp=0, pb=2 from the default, as 7-Zip uses.
    Ok(LzmaOptions {
        dict_size: 1 << pow,
        mode,
        nice_len,
        mf,
        depth,
        ..LzmaOptions::default()
    })
}
