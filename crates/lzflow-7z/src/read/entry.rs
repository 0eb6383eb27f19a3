//! An archive entry: a file record joined with its data stream.

use std::time::SystemTime;

use crate::filetime::filetime_to_system_time;
use crate::SevenZError;

/// Windows directory attribute bit.
pub const ATTR_DIRECTORY: u32 = 0x10;
/// Windows read-only attribute bit.
pub const ATTR_READONLY: u32 = 0x01;
/// 7-Zip's marker that the high 16 bits of the attributes hold a unix mode.
pub const ATTR_UNIX_EXTENSION: u32 = 0x8000;

/// One entry of a 7z archive.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Entry {
    /// The stored path, `/`-separated as 7-Zip writes it.
    pub name: String,
    /// Decoded size in bytes (0 for directories).
    pub size: u64,
    /// True for a directory.
    pub is_dir: bool,
    /// True when the entry has a data stream (a non-empty file).
    pub has_stream: bool,
    /// True for an anti-item (a deletion marker in update archives).
    pub is_anti: bool,
    /// CRC32 of the data, when stored.
    pub crc: Option<u32>,
    /// Modification time as a FILETIME (100 ns ticks since 1601 UTC).
    pub mtime_filetime: Option<u64>,
    /// Access time as a FILETIME.
    pub atime_filetime: Option<u64>,
    /// Creation time as a FILETIME.
    pub ctime_filetime: Option<u64>,
    /// Windows attributes, with a unix mode in the high 16 bits when
    /// [`ATTR_UNIX_EXTENSION`] is set.
    pub attributes: Option<u32>,
    /// Folder holding the data, and the entry's position in it.
    pub(crate) folder: Option<usize>,
    pub(crate) offset_in_folder: u64,
}

impl Entry {
    /// Modification time, when stored.
    pub fn mtime(&self) -> Option<SystemTime> {
        self.mtime_filetime.map(filetime_to_system_time)
    }

    /// Access time, when stored.
    pub fn atime(&self) -> Option<SystemTime> {
        self.atime_filetime.map(filetime_to_system_time)
    }

    /// Creation time, when stored.
    pub fn ctime(&self) -> Option<SystemTime> {
        self.ctime_filetime.map(filetime_to_system_time)
    }

    /// The unix mode (type and permission bits, e.g. `0o100644`), when the
    /// archive stores one.
    pub fn unix_mode(&self) -> Option<u32> {
        let a = self.attributes?;
        (a & ATTR_UNIX_EXTENSION != 0).then_some(a >> 16)
    }

    /// True when the stored unix mode marks a symbolic link (its data is
    /// the link target).
    pub fn is_symlink(&self) -> bool {
        self.unix_mode().is_some_and(|m| m & 0o170000 == 0o120000)
    }

    /// Where the entry's data starts in its folder's output.
    pub fn offset_in_folder(&self) -> u64 {
        self.offset_in_folder
    }

    /// Index of the folder holding the data (`None` without data).
    pub fn folder(&self) -> Option<usize> {
        self.folder
    }
}

/// Counts down an entry's data and verifies its CRC when the last byte
/// passes, for readers built outside this crate (the async face).
#[derive(Debug, Clone)]
pub struct EntryCheck {
    name: String,
    left: u64,
    hasher: crc32fast::Hasher,
    crc: Option<u32>,
}

impl EntryCheck {
    /// A check for `entry`'s data.
    pub fn new(entry: &Entry) -> Self {
        EntryCheck {
            name: entry.name.clone(),
            left: if entry.has_stream { entry.size } else { 0 },
            hasher: crc32fast::Hasher::new(),
            crc: entry.crc,
        }
    }

    /// Bytes of data still to come.
    pub fn left(&self) -> u64 {
        self.left
    }

    /// The entry's path.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Accounts for `data` (at most [`left`](Self::left) bytes). After the
    /// last byte, a CRC mismatch is [`SevenZError::DataCrc`].
    pub fn update(&mut self, data: &[u8]) -> Result<(), SevenZError> {
        let n = (data.len() as u64).min(self.left);
        self.hasher.update(&data[..n as usize]);
        self.left -= n;
        self.finish()
    }

    /// Verifies the CRC once no data is left, so an entry of zero bytes is
    /// checked too (its stored CRC must be that of no data, 0). Does
    /// nothing before the end or after the first check.
    pub fn finish(&mut self) -> Result<(), SevenZError> {
        if self.left > 0 {
            return Ok(());
        }
        let Some(want) = self.crc.take() else {
            return Ok(());
        };
        if std::mem::take(&mut self.hasher).finalize() != want {
            return Err(SevenZError::DataCrc {
                entry: self.name.clone(),
            });
        }
        Ok(())
    }
}
