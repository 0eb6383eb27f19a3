//! The central directory (APPNOTE 4.3.12): one central file header per
//! entry. [`CentralDirectory`] checks every header once and keeps the
//! directory's bytes with one offset per entry; [`CentralEntry`] is a
//! borrowed view that reads fields when asked.

use std::borrow::Cow;
use std::time::SystemTime;

use super::dos_time::DosDateTime;
use super::end_of_central_directory::CentralDirectoryLocation;
use super::entry_name;
use super::extra_field::{self, AesExtra, Zip64ExtendedInformation, Zip64Fields};
use super::little_endian::{u16_at, u32_at};
use super::local_file_header::LocalFileHeader;
use crate::ZipError;

/// `PK\x01\x02`.
pub const CENTRAL_FILE_HEADER_SIGNATURE: u32 = 0x0201_4b50;
/// A central file header's fixed part.
pub const CENTRAL_FILE_HEADER_LEN: usize = 46;
/// `PK\x05\x05`: the digital signature record (APPNOTE 4.3.13) that may
/// close the central directory.
pub(crate) const DIGITAL_SIGNATURE: u32 = 0x0505_4b50;

// Field positions in a central file header.
const VERSION_MADE_BY: usize = 4;
const VERSION_NEEDED: usize = 6;
const FLAGS: usize = 8;
const METHOD: usize = 10;
const TIME: usize = 12;
const DATE: usize = 14;
const CRC32: usize = 16;
const COMPRESSED_SIZE: usize = 20;
const UNCOMPRESSED_SIZE: usize = 24;
const NAME_LEN: usize = 28;
const EXTRA_LEN: usize = 30;
const COMMENT_LEN: usize = 32;
const DISK_START: usize = 34;
const INTERNAL_ATTRIBUTES: usize = 36;
const EXTERNAL_ATTRIBUTES: usize = 38;
const LOCAL_HEADER_OFFSET: usize = 42;

/// General purpose flag bits (APPNOTE 4.4.4).
pub(crate) const FLAG_ENCRYPTED: u16 = 1 << 0;
pub(crate) const FLAG_DATA_DESCRIPTOR: u16 = 1 << 3;
pub(crate) const FLAG_UTF8: u16 = 1 << 11;

/// "Version made by" host 3: Unix, whose mode is in the high 16 bits of
/// the external attributes.
const HOST_UNIX: u16 = 3;
/// MS-DOS directory attribute, in the low byte of the external attributes.
const DOS_DIRECTORY: u32 = 0x10;
const S_IFMT: u32 = 0o170_000;
const S_IFDIR: u32 = 0o040_000;
const S_IFLNK: u32 = 0o120_000;

/// The central directory, every record checked once: signatures, lengths
/// within the directory, Zip64 extra fields where fields are saturated,
/// local header offsets before the directory, and as many records as the
/// end record counts.
///
/// Holds the directory's bytes and one `u32` offset per entry, nothing per
/// entry on the heap.
#[derive(Debug, Clone)]
pub struct CentralDirectory {
    bytes: Vec<u8>,
    offsets: Vec<u32>,
    prefix: u64,
}

impl CentralDirectory {
    /// Checks `bytes`, the whole central directory read from
    /// `location.offset`, against `location`, and the entries' layout:
    /// each before the directory, none overlapping another.
    pub fn parse(bytes: Vec<u8>, location: &CentralDirectoryLocation) -> Result<Self, ZipError> {
        let len = bytes.len() as u64;
        if len < location.size {
            return Err(ZipError::Truncated);
        }
        if len > location.size {
            return Err(ZipError::corrupt(format!(
                "central directory of {} bytes given {len}",
                location.size
            )));
        }
        if u32::try_from(bytes.len()).is_err() {
            return Err(ZipError::UnsupportedFeature(
                "central directories larger than 4 GiB",
            ));
        }
        // The count is only trusted as far as the bytes can hold it.
        let capacity = usize::try_from(location.entries)
            .unwrap_or(usize::MAX)
            .min(bytes.len() / CENTRAL_FILE_HEADER_LEN);
        let mut offsets = Vec::with_capacity(capacity);
        let mut pos = 0usize;
        // The layout is checked in the same pass; its first error waits
        // until every record has been checked, so the records' errors come
        // first, as in two passes.
        let mut layout = Layout::new(location.offset);
        for index in 0..location.entries {
            let rest = bytes.get(pos..).unwrap_or_default();
            let record_len = check_record(rest, index, location)?;
            layout.add(&CentralEntry {
                record: &rest[..record_len],
                prefix: location.prefix,
            });
            // pos < bytes.len(), which fits a u32.
            offsets.push(u32::try_from(pos).unwrap_or(u32::MAX));
            pos += record_len;
        }
        let rest = bytes.get(pos..).unwrap_or_default();
        if !rest.is_empty() && u32_at(rest, 0) != Some(DIGITAL_SIGNATURE) {
            return Err(ZipError::corrupt(format!(
                "{} bytes follow the last of the {} central directory records",
                rest.len(),
                location.entries
            )));
        }
        let dir = CentralDirectory {
            bytes,
            offsets,
            prefix: location.prefix,
        };
        layout.finish(&dir)?;
        Ok(dir)
    }

    /// The number of entries.
    #[inline]
    pub fn len(&self) -> usize {
        self.offsets.len()
    }

    /// Whether the archive has no entries.
    pub fn is_empty(&self) -> bool {
        self.offsets.is_empty()
    }

    /// Entry `index`, in directory order.
    #[inline]
    pub fn get(&self, index: usize) -> Option<CentralEntry<'_>> {
        self.offsets.get(index).map(|&at| self.entry_at(at))
    }

    /// The entries in directory order.
    #[inline]
    pub fn iter(&self) -> impl ExactSizeIterator<Item = CentralEntry<'_>> + DoubleEndedIterator {
        self.offsets.iter().map(|&at| self.entry_at(at))
    }

    /// The index of the first entry whose raw name is `name` (a linear
    /// scan).
    pub fn find(&self, name: &[u8]) -> Option<usize> {
        self.iter().position(|e| e.name_bytes() == name)
    }

    #[inline]
    fn entry_at(&self, at: u32) -> CentralEntry<'_> {
        let rest = usize::try_from(at)
            .ok()
            .and_then(|at| self.bytes.get(at..))
            .unwrap_or_default();
        let record = rest
            .get(..record_len(rest).unwrap_or(0))
            .unwrap_or_default();
        CentralEntry {
            record,
            prefix: self.prefix,
        }
    }
}

/// The length of the record at the start of `rest`, from its length
/// fields, if they are there.
#[inline]
pub(crate) fn record_len(rest: &[u8]) -> Option<usize> {
    let name = usize::from(u16_at(rest, NAME_LEN)?);
    let extra = usize::from(u16_at(rest, EXTRA_LEN)?);
    let comment = usize::from(u16_at(rest, COMMENT_LEN)?);
    Some(CENTRAL_FILE_HEADER_LEN + name + extra + comment)
}

/// Checks record `index` at the start of `rest`; its length.
#[inline]
pub(crate) fn check_record(
    rest: &[u8],
    index: u64,
    location: &CentralDirectoryLocation,
) -> Result<usize, ZipError> {
    let corrupt =
        |what: &str| ZipError::corrupt(format!("central directory record {index}: {what}"));
    if rest.len() < CENTRAL_FILE_HEADER_LEN {
        return Err(ZipError::corrupt(format!(
            "the central directory ends inside record {index} of {}",
            location.entries
        )));
    }
    if u32_at(rest, 0) != Some(CENTRAL_FILE_HEADER_SIGNATURE) {
        return Err(corrupt("bad signature"));
    }
    let len = record_len(rest).unwrap_or(usize::MAX);
    let record = rest
        .get(..len)
        .ok_or_else(|| corrupt("name, extra field or comment past the directory's end"))?;
    let entry = CentralEntry {
        record,
        prefix: location.prefix,
    };
    entry
        .zip64()
        .map_err(|_| corrupt("Zip64 extra field too short for the saturated fields"))?;
    let offset = entry
        .stated_local_header_offset()
        .checked_add(location.prefix)
        .ok_or_else(|| corrupt("local header offset overflows"))?;
    let before_directory = offset
        .checked_add(LocalFileHeader::LEN as u64)
        .is_some_and(|end| end <= location.offset);
    if !before_directory {
        return Err(corrupt(&format!(
            "local header offset {offset} is not before the central directory at {}",
            location.offset
        )));
    }
    Ok(len)
}

/// Every entry's stored bytes (its local header, at least, and its data)
/// must lie before the central directory and overlap no other entry's (the
/// "overlapping entries" zip bomb). Writers list entries in file order, so
/// the parsing pass checks that order and the gaps; only a directory out
/// of order pays for a sort of (start, end) pairs, 16 bytes per entry.
struct Layout {
    cd_offset: u64,
    prev: Option<(u64, u64)>,
    in_order: bool,
    /// The first error found.
    error: Option<ZipError>,
}

impl Layout {
    fn new(cd_offset: u64) -> Self {
        Layout {
            cd_offset,
            prev: None,
            in_order: true,
            error: None,
        }
    }

    /// Where `e`'s stored bytes lie.
    fn span(&self, e: &CentralEntry<'_>) -> Result<(u64, u64), ZipError> {
        let start = e.local_header_offset();
        let end = start
            .checked_add(LocalFileHeader::LEN as u64 + e.name_bytes().len() as u64)
            .and_then(|n| n.checked_add(e.compressed_size()))
            .ok_or_else(|| ZipError::corrupt("an entry's size overflows"))?;
        if end > self.cd_offset {
            return Err(ZipError::corrupt(format!(
                "entry {} runs into the central directory",
                e.name()
            )));
        }
        Ok((start, end))
    }

    fn overlap(a: (u64, u64), b: (u64, u64)) -> ZipError {
        ZipError::corrupt(format!("entries at offsets {} and {} overlap", a.0, b.0))
    }

    /// The next entry in directory order.
    fn add(&mut self, e: &CentralEntry<'_>) {
        if self.error.is_some() {
            return;
        }
        let s = match self.span(e) {
            Ok(s) => s,
            Err(err) => {
                self.error = Some(err);
                return;
            }
        };
        if let Some(p) = self.prev {
            if s.0 < p.0 {
                self.in_order = false;
            } else if s.0 < p.1 {
                self.error = Some(Self::overlap(p, s));
            }
        }
        self.prev = Some(s);
    }

    /// After the last entry: the first error, or the sorted check of a
    /// directory out of order.
    fn finish(self, dir: &CentralDirectory) -> Result<(), ZipError> {
        if let Some(e) = self.error {
            return Err(e);
        }
        if self.in_order {
            return Ok(());
        }
        let mut spans = dir
            .iter()
            .map(|e| self.span(&e))
            .collect::<Result<Vec<_>, _>>()?;
        spans.sort_unstable();
        match spans.windows(2).find(|w| w[1].0 < w[0].1) {
            Some(w) => Err(Self::overlap(w[0], w[1])),
            None => Ok(()),
        }
    }
}

/// One central file header, borrowed from its [`CentralDirectory`].
/// Accessors read the fields when called; the directory was checked when
/// parsed, so they cannot fail.
#[derive(Debug, Clone, Copy)]
pub struct CentralEntry<'a> {
    record: &'a [u8],
    prefix: u64,
}

impl<'a> CentralEntry<'a> {
    /// A view of `record`, already checked by [`check_record`].
    #[inline]
    pub(crate) fn new(record: &'a [u8], prefix: u64) -> Self {
        CentralEntry { record, prefix }
    }

    #[inline]
    fn u16_field(&self, at: usize) -> u16 {
        u16_at(self.record, at).unwrap_or(0)
    }

    #[inline]
    fn u32_field(&self, at: usize) -> u32 {
        u32_at(self.record, at).unwrap_or(0)
    }

    /// "Version made by": high byte the host system, low byte the APPNOTE
    /// version times ten.
    pub fn version_made_by(&self) -> u16 {
        self.u16_field(VERSION_MADE_BY)
    }

    /// "Version needed to extract".
    pub fn version_needed(&self) -> u16 {
        self.u16_field(VERSION_NEEDED)
    }

    /// Whether the writer was on Unix (host 3), so the external attributes
    /// hold a Unix mode.
    pub fn made_by_unix(&self) -> bool {
        self.version_made_by() >> 8 == HOST_UNIX
    }

    /// The general purpose flags.
    pub fn flags(&self) -> u16 {
        self.u16_field(FLAGS)
    }

    /// Flag bit 0: the data is encrypted (ZipCrypto, or WinZip AES when
    /// [`method`](Self::method) is 99).
    pub fn is_encrypted(&self) -> bool {
        self.flags() & FLAG_ENCRYPTED != 0
    }

    /// Flag bit 3: CRC-32 and sizes follow the data in a data descriptor
    /// (this header has them too).
    pub fn has_data_descriptor(&self) -> bool {
        self.flags() & FLAG_DATA_DESCRIPTOR != 0
    }

    /// Flag bit 11: name and comment are UTF-8.
    pub fn is_utf8(&self) -> bool {
        self.flags() & FLAG_UTF8 != 0
    }

    /// The compression method as stored: 99 for WinZip AES, whose
    /// [`aes`](Self::aes) field names the real one.
    pub fn method(&self) -> u16 {
        self.u16_field(METHOD)
    }

    /// The MS-DOS modification date and time.
    pub fn dos_time(&self) -> DosDateTime {
        DosDateTime::new(self.u16_field(DATE), self.u16_field(TIME))
    }

    /// The CRC-32 of the uncompressed data (0 for WinZip AE-2).
    pub fn crc32(&self) -> u32 {
        self.u32_field(CRC32)
    }

    /// The Zip64 values of the saturated fields. A saturated field with no
    /// Zip64 extra field keeps its value (a writer that did not know Zip64
    /// may store exactly 0xFFFFFFFF).
    #[inline]
    fn zip64(&self) -> Result<Zip64ExtendedInformation, ZipError> {
        let wanted = Zip64Fields {
            uncompressed_size: self.u32_field(UNCOMPRESSED_SIZE) == u32::MAX,
            compressed_size: self.u32_field(COMPRESSED_SIZE) == u32::MAX,
            local_header_offset: self.u32_field(LOCAL_HEADER_OFFSET) == u32::MAX,
            disk_start: self.u16_field(DISK_START) == u16::MAX,
        };
        if wanted.is_empty() {
            return Ok(Zip64ExtendedInformation::default());
        }
        self.zip64_extra(wanted)
    }

    /// The saturated fields' values from the Zip64 extra field (out of
    /// line: most records have no saturated field).
    #[inline(never)]
    fn zip64_extra(&self, wanted: Zip64Fields) -> Result<Zip64ExtendedInformation, ZipError> {
        match extra_field::find(self.extra_bytes(), Zip64ExtendedInformation::ID) {
            Some(data) => Zip64ExtendedInformation::parse(data, wanted),
            None => Ok(Zip64ExtendedInformation::default()),
        }
    }

    #[inline]
    fn zip64_or(&self, field: usize, pick: fn(&Zip64ExtendedInformation) -> Option<u64>) -> u64 {
        let value = self.u32_field(field);
        if value != u32::MAX {
            return u64::from(value);
        }
        self.zip64()
            .ok()
            .as_ref()
            .and_then(pick)
            .unwrap_or(u64::from(value))
    }

    /// The compressed size (with any encryption header and MAC), from the
    /// Zip64 extra field when the header's field is saturated.
    #[inline]
    pub fn compressed_size(&self) -> u64 {
        self.zip64_or(COMPRESSED_SIZE, |z| z.compressed_size)
    }

    /// The uncompressed size, from the Zip64 extra field when the header's
    /// field is saturated.
    #[inline]
    pub fn uncompressed_size(&self) -> u64 {
        self.zip64_or(UNCOMPRESSED_SIZE, |z| z.uncompressed_size)
    }

    #[inline]
    fn stated_local_header_offset(&self) -> u64 {
        self.zip64_or(LOCAL_HEADER_OFFSET, |z| z.local_header_offset)
    }

    /// The absolute offset of the entry's local header: the stated one
    /// (from the Zip64 extra field when saturated) plus the archive's
    /// prefix.
    #[inline]
    pub fn local_header_offset(&self) -> u64 {
        self.stated_local_header_offset()
            .saturating_add(self.prefix)
    }

    /// The internal file attributes (bit 0: text).
    pub fn internal_attributes(&self) -> u16 {
        self.u16_field(INTERNAL_ATTRIBUTES)
    }

    /// The external file attributes: MS-DOS attributes in the low byte;
    /// from Unix writers, the mode in the high 16 bits.
    pub fn external_attributes(&self) -> u32 {
        self.u32_field(EXTERNAL_ATTRIBUTES)
    }

    #[inline]
    fn variable(&self, skip: usize, len_field: usize) -> &'a [u8] {
        let len = usize::from(self.u16_field(len_field));
        let start = CENTRAL_FILE_HEADER_LEN + skip;
        self.record.get(start..start + len).unwrap_or_default()
    }

    /// The name as stored.
    #[inline]
    pub fn name_bytes(&self) -> &'a [u8] {
        self.variable(0, NAME_LEN)
    }

    /// The extra field as stored.
    #[inline]
    pub fn extra_bytes(&self) -> &'a [u8] {
        self.variable(self.name_bytes().len(), EXTRA_LEN)
    }

    /// The entry comment as stored.
    pub fn comment_bytes(&self) -> &'a [u8] {
        self.variable(
            self.name_bytes().len() + self.extra_bytes().len(),
            COMMENT_LEN,
        )
    }

    /// The name as text: UTF-8 by flag
    /// bit 11 or a matching Unicode Path extra field, else UTF-8 when
    /// valid, else CP437).
    pub fn name(&self) -> Cow<'a, str> {
        entry_name::decode_name(self.name_bytes(), self.is_utf8(), self.extra_bytes())
    }

    /// The comment as text: UTF-8 by flag bit 11 or when valid, else CP437.
    pub fn comment(&self) -> Cow<'a, str> {
        entry_name::decode_text(self.comment_bytes(), self.is_utf8())
    }

    /// The Unix mode (type and permission bits), when the writer was on
    /// Unix and stored one.
    pub fn unix_mode(&self) -> Option<u32> {
        let mode = self.external_attributes() >> 16;
        (self.made_by_unix() && mode != 0).then_some(mode)
    }

    /// Whether the entry is a symbolic link (Unix mode `S_IFLNK`); its data
    /// is the link target.
    pub fn is_symlink(&self) -> bool {
        self.unix_mode().is_some_and(|m| m & S_IFMT == S_IFLNK)
    }

    /// Whether the entry is a directory: the name ends with `/`, or the
    /// Unix mode or the MS-DOS attributes say so.
    pub fn is_dir(&self) -> bool {
        if self.name_bytes().last() == Some(&b'/') {
            return true;
        }
        match self.unix_mode() {
            Some(mode) => mode & S_IFMT == S_IFDIR,
            None => self.external_attributes() & DOS_DIRECTORY != 0,
        }
    }

    /// The modification time: from the extended timestamp extra field
    /// (0x5455) if present, else from the NTFS extra field (0x000a), else
    /// the MS-DOS date and time read as UTC (the format does not say the
    /// writer's zone). `None` when none of them holds a valid time.
    pub fn mtime(&self) -> Option<SystemTime> {
        extra_field::modification_time(self.extra_bytes(), self.dos_time())
    }

    /// The WinZip AES extra field, if present and well formed. An entry
    /// with method 99 and `None` here cannot be decrypted.
    pub fn aes(&self) -> Option<AesExtra> {
        extra_field::find(self.extra_bytes(), AesExtra::ID)
            .and_then(|data| AesExtra::parse(data).ok())
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_archive::{locate, open, TestArchive, TestEntry};
    use super::*;

    #[test]
    fn entries_and_accessors() {
        let mut exe = TestEntry::stored("bin/run", b"#!/bin/sh\n");
        exe.external = 0o100_755 << 16;
        let mut link = TestEntry::stored("link", b"target");
        link.external = 0o120_777 << 16;
        let mut dos_dir = TestEntry::stored("DOSDIR", b"");
        dos_dir.made_by = 0x0014;
        dos_dir.external = 0x10;
        let mut commented = TestEntry::stored("c.txt", b"c");
        commented.comment = b"entry comment".to_vec();
        let file = TestArchive::new(vec![
            exe,
            link,
            dos_dir,
            commented,
            TestEntry::stored("d/", b""),
        ])
        .build();
        let cd = open(&file).unwrap();
        assert_eq!(cd.len(), 5);
        assert!(!cd.is_empty());
        let names: Vec<_> = cd.iter().map(|e| e.name().into_owned()).collect();
        assert_eq!(names, ["bin/run", "link", "DOSDIR", "c.txt", "d/"]);
        assert_eq!(cd.find(b"c.txt"), Some(3));
        assert_eq!(cd.find(b"nope"), None);
        assert!(cd.get(5).is_none());

        let run = cd.get(0).unwrap();
        assert!(run.made_by_unix());
        assert_eq!(run.unix_mode(), Some(0o100_755));
        assert!(!run.is_dir() && !run.is_symlink());
        assert_eq!(run.crc32(), crc32fast::hash(b"#!/bin/sh\n"));
        assert_eq!((run.compressed_size(), run.uncompressed_size()), (10, 10));
        assert_eq!(run.local_header_offset(), 0);
        assert_eq!(run.method(), 0);
        assert!(!run.is_encrypted() && !run.has_data_descriptor() && !run.is_utf8());
        assert_eq!(run.dos_time(), DosDateTime::new(0x56A6, 0x3905));
        let secs = run
            .mtime()
            .unwrap()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_secs();
        assert_eq!(secs, 1_683_356_890); // the DOS time, as UTC
        assert!(cd.get(1).unwrap().is_symlink());
        let dos = cd.get(2).unwrap();
        assert!(dos.is_dir() && !dos.made_by_unix() && dos.unix_mode().is_none());
        assert_eq!(cd.get(3).unwrap().comment_bytes(), b"entry comment");
        assert_eq!(cd.get(3).unwrap().comment(), "entry comment");
        assert!(cd.get(4).unwrap().is_dir());
        assert_eq!(cd.iter().rev().count(), 5);
    }

    #[test]
    fn zip64_extra_values_replace_saturated_fields() {
        let mut big = TestEntry::stored("big", b"0123456789");
        big.zip64 = true;
        let file = TestArchive::new(vec![TestEntry::stored("small", b"s"), big]).build();
        let cd = open(&file).unwrap();
        let e = cd.get(1).unwrap();
        assert_eq!(e.compressed_size(), 10);
        assert_eq!(e.uncompressed_size(), 10);
        assert_eq!(e.local_header_offset(), 30 + 5 + 1);
        // A Zip64 extra field shorter than the saturated fields need.
        let mut short = TestEntry::stored("big", b"0123456789");
        short.zip64 = true;
        short.central_zip64_len = Some(16);
        let file = TestArchive::new(vec![short]).build();
        assert!(matches!(open(&file), Err(ZipError::Corrupt(m)) if m.contains("Zip64")));
    }

    #[test]
    fn cp437_and_unicode_path_names() {
        let cp437 = TestEntry::stored_raw(b"r\x82sum\x82.txt".to_vec(), b"x");
        let mut utf8 = TestEntry::stored("Grüße.txt", b"x");
        utf8.flags |= FLAG_UTF8;
        let mut stale = TestEntry::stored_raw(b"\x9cprice.txt".to_vec(), b"x");
        stale.central_extra = unicode_path(crc32fast::hash(b"old name"), "old name.txt");
        let mut fresh = TestEntry::stored_raw(b"\x9cprice.txt".to_vec(), b"x");
        fresh.central_extra = unicode_path(crc32fast::hash(b"\x9cprice.txt"), "€price.txt");
        let file = TestArchive::new(vec![cp437, utf8, stale, fresh]).build();
        let cd = open(&file).unwrap();
        let names: Vec<_> = cd.iter().map(|e| e.name().into_owned()).collect();
        assert_eq!(
            names,
            ["résumé.txt", "Grüße.txt", "£price.txt", "€price.txt"]
        );
    }

    fn unicode_path(crc: u32, name: &str) -> Vec<u8> {
        let mut extra = 0x7075u16.to_le_bytes().to_vec();
        extra.extend_from_slice(&u16::try_from(5 + name.len()).unwrap().to_le_bytes());
        extra.push(1);
        extra.extend_from_slice(&crc.to_le_bytes());
        extra.extend_from_slice(name.as_bytes());
        extra
    }

    #[test]
    fn times_from_extra_fields() {
        let mut ut = TestEntry::stored("ut", b"");
        ut.central_extra = vec![0x55, 0x54, 5, 0, 3, 0x00, 0x00, 0x00, 0x80];
        let mut ntfs = TestEntry::stored("ntfs", b"");
        let ticks: u64 = 116_444_736_000_000_000 + 10_000_000 * 86_400;
        ntfs.central_extra = vec![0x0a, 0, 32, 0, 0, 0, 0, 0, 1, 0, 24, 0];
        ntfs.central_extra.extend_from_slice(&ticks.to_le_bytes());
        ntfs.central_extra.extend_from_slice(&[0; 16]);
        let mut aes = TestEntry::stored("aes", b"");
        aes.method = 99;
        aes.flags |= FLAG_ENCRYPTED;
        aes.central_extra = vec![0x01, 0x99, 7, 0, 2, 0, b'A', b'E', 3, 8, 0];
        let file = TestArchive::new(vec![ut, ntfs, aes]).build();
        let cd = open(&file).unwrap();
        let secs = |i: usize| {
            cd.get(i)
                .unwrap()
                .mtime()
                .unwrap()
                .duration_since(std::time::UNIX_EPOCH)
                .unwrap()
                .as_secs()
        };
        assert_eq!(secs(0), 0x8000_0000);
        assert_eq!(secs(1), 86_400);
        let e = cd.get(2).unwrap();
        assert_eq!(e.method(), 99);
        let extra = e.aes().unwrap();
        assert_eq!(extra.method, 8);
        assert!(cd.get(0).unwrap().aes().is_none());
    }

    #[test]
    fn record_count_must_match() {
        let file = TestArchive::new(vec![
            TestEntry::stored("a", b"a"),
            TestEntry::stored("b", b"b"),
        ])
        .build();
        let loc = locate(&file).unwrap();
        let bytes = file[loc.offset as usize..][..loc.size as usize].to_vec();
        let mut fewer = loc.clone();
        fewer.entries = 1;
        assert!(matches!(
            CentralDirectory::parse(bytes.clone(), &fewer),
            Err(ZipError::Corrupt(_))
        ));
        let mut more = loc.clone();
        more.entries = 3;
        assert!(matches!(
            CentralDirectory::parse(bytes.clone(), &more),
            Err(ZipError::Corrupt(_))
        ));
        assert!(matches!(
            CentralDirectory::parse(bytes[..bytes.len() - 1].to_vec(), &loc),
            Err(ZipError::Truncated)
        ));
        // A local header offset at or past the central directory.
        let mut late = loc.clone();
        late.offset = 30;
        assert!(CentralDirectory::parse(bytes.clone(), &late).is_err());
        assert_eq!(CentralDirectory::parse(bytes, &loc).unwrap().len(), 2);
    }

    #[test]
    fn every_truncation_and_corruption_is_an_error_not_a_panic() {
        let mut z = TestEntry::stored("zip64", b"data");
        z.zip64 = true;
        let mut named = TestEntry::stored("commented", b"x");
        named.comment = b"comment".to_vec();
        named.central_extra = unicode_path(0, "x");
        let file = TestArchive::new(vec![z, named]).build();
        let loc = locate(&file).unwrap();
        let bytes = file[loc.offset as usize..][..loc.size as usize].to_vec();
        for len in 0..bytes.len() {
            let mut l = loc.clone();
            l.size = len as u64;
            assert!(CentralDirectory::parse(bytes[..len].to_vec(), &l).is_err());
        }
        // Flip every byte: either an error or entries whose accessors work.
        for at in 0..bytes.len() {
            let mut b = bytes.clone();
            b[at] ^= 0xFF;
            if let Ok(cd) = CentralDirectory::parse(b, &loc) {
                for e in cd.iter() {
                    let _ = (e.name(), e.mtime(), e.aes(), e.is_dir(), e.comment());
                    let _ = (
                        e.compressed_size(),
                        e.uncompressed_size(),
                        e.local_header_offset(),
                    );
                }
            }
        }
    }
}
