//! An entry's stored fields (the FilesInfo properties `kEmptyStream`,
//! `kEmptyFile`, the times and `kWinAttributes`) from its [`EntryMeta`],
//! and an [`EntryMeta`] from file-system metadata.

use std::time::SystemTime;

use crate::filetime::system_time_to_filetime;
use crate::read::entry::{ATTR_DIRECTORY, ATTR_UNIX_EXTENSION};
use crate::write::file_table::Fields;
use crate::write::writer_options::EntryMeta;

/// Windows "archive" attribute, 7-Zip's default for files.
const ATTR_ARCHIVE: u32 = 0x20;

/// What an entry is, for its stored fields.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    /// A file with a data stream.
    File,
    /// A file without one.
    EmptyFile,
    /// A directory.
    Dir,
}

/// The header fields of an entry.
pub(crate) fn fields(meta: &EntryMeta, kind: Kind) -> Fields {
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

/// An entry's [`EntryMeta`] from the file system: its times, (on unix) its
/// mode, and the read-only bit.
pub(crate) fn meta_from_fs(md: &std::fs::Metadata) -> EntryMeta {
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

#[cfg(test)]
mod tests {
    use super::*;

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
}
