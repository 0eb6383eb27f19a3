//! How one entry is written: method and level, encryption, metadata.

use std::time::SystemTime;

use zeroize::Zeroizing;

use crate::AesStrength;

/// Zip compression methods the writer can use. Empty files are always
/// written Stored, as 7-Zip and Info-ZIP write them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WriteMethod {
    /// No compression (0). In a sink that cannot seek, an entry longer
    /// than the writer holds whose size and CRC-32 were not given ahead
    /// is written as Deflate at level 0 instead (the same bytes in
    /// stored blocks, 5 bytes per 64 KiB more): Stored data followed by
    /// a data descriptor has no end that a reader without the central
    /// directory can find for sure.
    Stored,
    /// Deflate (8), levels 0-9.
    Deflate,
    /// BZip2 (12), levels 1-9 (block size × 100 KB).
    BZip2,
    /// LZMA (14) with an end marker, levels 0-9 as lzflow's presets.
    Lzma,
    /// XZ (95), levels 0-9 as xz's presets.
    Xz,
    /// PPMd var. I rev. 1 (98), levels 1-9 as 7-Zip's `-mm=PPMd` (order
    /// 3 + level, 2^(level − 1) MiB, cut-off restoration from level 7; the
    /// model fitted to a known size), with the end marker.
    Ppmd,
}

impl WriteMethod {
    /// Every method the writer can use, by method number.
    pub const ALL: [WriteMethod; 6] = [
        WriteMethod::Stored,
        WriteMethod::Deflate,
        WriteMethod::BZip2,
        WriteMethod::Lzma,
        WriteMethod::Xz,
        WriteMethod::Ppmd,
    ];

    /// The zip method number.
    pub fn id(self) -> u16 {
        match self {
            WriteMethod::Stored => 0,
            WriteMethod::Deflate => 8,
            WriteMethod::BZip2 => 12,
            WriteMethod::Lzma => 14,
            WriteMethod::Xz => 95,
            WriteMethod::Ppmd => 98,
        }
    }

    /// "Version needed to extract" for the method (APPNOTE 4.4.3.2).
    pub(crate) fn version_needed(self) -> u16 {
        match self {
            WriteMethod::Stored => 10,
            WriteMethod::Deflate => 20,
            WriteMethod::BZip2 => 46,
            WriteMethod::Lzma | WriteMethod::Xz | WriteMethod::Ppmd => 63,
        }
    }
}

/// How an entry is encrypted.
#[derive(Clone, Default)]
pub enum Encryption {
    /// Not encrypted.
    #[default]
    None,
    /// WinZip AES: AE-2 (no CRC stored; the authentication code checks
    /// the data), or AE-1 (`ae1`: CRC stored too, for old readers).
    Aes {
        /// The key size.
        strength: AesStrength,
        /// Write AE-1 instead of AE-2.
        ae1: bool,
        /// The password (wiped when dropped).
        password: Zeroizing<Vec<u8>>,
    },
    /// Traditional PKWARE encryption ("ZipCrypto"): weak, broken by
    /// known-plaintext attacks; only for readers that know nothing
    /// else.
    ZipCryptoWeak {
        /// The password (wiped when dropped).
        password: Zeroizing<Vec<u8>>,
    },
}

impl std::fmt::Debug for Encryption {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Encryption::None => f.write_str("None"),
            Encryption::Aes { strength, ae1, .. } => f
                .debug_struct("Aes")
                .field("strength", strength)
                .field("ae1", ae1)
                .finish_non_exhaustive(),
            Encryption::ZipCryptoWeak { .. } => f.write_str("ZipCryptoWeak"),
        }
    }
}

/// How one entry is written.
#[derive(Debug, Clone)]
pub struct EntryOptions {
    /// The method (default Deflate).
    pub method: WriteMethod,
    /// The level, 0-9 (default 6).
    pub level: u32,
    /// The modification time (default: none, stored as 1980-01-01).
    pub mtime: Option<SystemTime>,
    /// Unix permission bits (default 0o644 for files, 0o755 for
    /// directories); the type bits come from the entry's kind.
    pub unix_mode: Option<u32>,
    /// The entry comment.
    pub comment: String,
    /// Encryption (default none).
    pub encryption: Encryption,
    /// Store the data when the method does not make it smaller. An entry
    /// of up to [`STORE_CHECK_LIMIT`](crate::STORE_CHECK_LIMIT) bytes is
    /// kept in memory and compressed whole to decide; a longer one is
    /// judged by its first 64 KiB, compressed once more on their own (in
    /// a sink that cannot seek, its data then goes in Deflate's stored
    /// blocks: Stored would need a data descriptor).
    pub store_if_larger: bool,
    /// The data's size and CRC-32, when the caller knows them: a Stored
    /// entry then needs no data descriptor even in a sink that cannot
    /// seek (the writer checks them).
    pub size_and_crc: Option<(u64, u32)>,
}

impl Default for EntryOptions {
    fn default() -> Self {
        EntryOptions {
            method: WriteMethod::Deflate,
            level: 6,
            mtime: None,
            unix_mode: None,
            comment: String::new(),
            encryption: Encryption::None,
            store_if_larger: false,
            size_and_crc: None,
        }
    }
}

impl EntryOptions {
    /// Bytes the compressor of these options allocates at most (LZMA's
    /// and XZ's dictionaries and match finders dominate), for sizing
    /// memory: each compressing thread holds one.
    pub fn encoder_memory(&self) -> u64 {
        crate::write::method::encoder_memory(self.method.id(), self.level, None)
    }

    /// The modification time and (on unix) the permission bits of a file's
    /// metadata, as `add_path` stores them.
    pub fn with_metadata(mut self, md: &std::fs::Metadata) -> Self {
        if let Ok(t) = md.modified() {
            self.mtime = Some(t);
        }
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            self.unix_mode = Some(md.permissions().mode() & 0o7777);
        }
        self
    }

    /// Sets the method and level.
    pub fn with_method(mut self, method: WriteMethod, level: u32) -> Self {
        self.method = method;
        self.level = level;
        self
    }

    /// Sets the modification time.
    pub fn with_mtime(mut self, mtime: SystemTime) -> Self {
        self.mtime = Some(mtime);
        self
    }

    /// Sets the Unix permission bits.
    pub fn with_unix_mode(mut self, mode: u32) -> Self {
        self.unix_mode = Some(mode);
        self
    }

    /// Sets the entry comment.
    pub fn with_comment(mut self, comment: impl Into<String>) -> Self {
        self.comment = comment.into();
        self
    }

    /// Encrypts with WinZip AES-256, AE-2.
    pub fn with_password(mut self, password: impl AsRef<[u8]>) -> Self {
        self.encryption = Encryption::Aes {
            strength: AesStrength::Aes256,
            ae1: false,
            password: Zeroizing::new(password.as_ref().to_vec()),
        };
        self
    }

    /// Sets the encryption.
    pub fn with_encryption(mut self, encryption: Encryption) -> Self {
        self.encryption = encryption;
        self
    }

    /// Stores the data when the method does not make it smaller.
    pub fn with_store_if_larger(mut self, yes: bool) -> Self {
        self.store_if_larger = yes;
        self
    }

    /// Gives the data's size and CRC-32 ahead (checked by the writer).
    pub fn with_size_and_crc(mut self, size: u64, crc32: u32) -> Self {
        self.size_and_crc = Some((size, crc32));
        self
    }
}
