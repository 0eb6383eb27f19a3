//! The end of central directory record (APPNOTE 4.3.16), the Zip64 end of
//! central directory locator (4.3.15) and record (4.3.14), and the small
//! sans-I/O state machine, [`DirectoryLocator`], that finds them from the
//! end of the file and says where the central directory really is.

use super::little_endian::{u32_at, FieldReader};
use crate::ZipError;

/// The end of central directory record, without its comment.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EndOfCentralDirectory {
    /// Number of this disk.
    pub disk_number: u16,
    /// Number of the disk the central directory starts on.
    pub central_directory_disk: u16,
    /// Central directory records on this disk.
    pub entries_on_disk: u16,
    /// Central directory records in all.
    pub entries: u16,
    /// Size of the central directory in bytes.
    pub central_directory_size: u32,
    /// Offset of the central directory as the writer saw it.
    pub central_directory_offset: u32,
    /// Length of the archive comment after the record.
    pub comment_len: u16,
}

impl EndOfCentralDirectory {
    /// `PK\x05\x06`.
    pub const SIGNATURE: u32 = 0x0605_4b50;
    /// The record's length before the comment.
    pub const LEN: usize = 22;
    /// The longest comment the length field can give.
    pub const MAX_COMMENT_LEN: usize = 0xFFFF;

    /// Parses the first [`Self::LEN`] bytes of `bytes`.
    pub fn parse(bytes: &[u8]) -> Result<Self, ZipError> {
        let mut r = FieldReader::new(bytes);
        r.signature(Self::SIGNATURE, || ZipError::NotZip)?;
        let (
            Some(disk_number),
            Some(central_directory_disk),
            Some(entries_on_disk),
            Some(entries),
            Some(central_directory_size),
            Some(central_directory_offset),
            Some(comment_len),
        ) = (
            r.u16(),
            r.u16(),
            r.u16(),
            r.u16(),
            r.u32(),
            r.u32(),
            r.u16(),
        )
        else {
            return Err(ZipError::Truncated);
        };
        Ok(EndOfCentralDirectory {
            disk_number,
            central_directory_disk,
            entries_on_disk,
            entries,
            central_directory_size,
            central_directory_offset,
            comment_len,
        })
    }

    /// Whether a field holds its maximum, which Zip64 writers store when
    /// the real value is in the Zip64 record.
    pub fn has_saturated_field(&self) -> bool {
        [
            self.disk_number,
            self.central_directory_disk,
            self.entries_on_disk,
            self.entries,
        ]
        .contains(&u16::MAX)
            || self.central_directory_size == u32::MAX
            || self.central_directory_offset == u32::MAX
    }

    /// Whether the record, found at `offset` in the file, can describe a
    /// central directory before it; records whose values were moved to
    /// the Zip64 record pass.
    fn is_plausible(&self, offset: u64) -> bool {
        if self.has_saturated_field() {
            return true;
        }
        let size = u64::from(self.central_directory_size);
        u64::from(self.central_directory_offset) + size <= offset
            && u64::from(self.entries) * CENTRAL_HEADER_MIN_LEN <= size
            && self.entries_on_disk <= self.entries
    }
}

/// The smallest central directory record (APPNOTE 4.3.12), to bound entry
/// counts by the directory's size.
const CENTRAL_HEADER_MIN_LEN: u64 = 46;

/// The Zip64 end of central directory locator.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Zip64EndOfCentralDirectoryLocator {
    /// Number of the disk holding the Zip64 record.
    pub record_disk: u32,
    /// Offset of the Zip64 record as the writer saw it.
    pub record_offset: u64,
    /// Total number of disks.
    pub total_disks: u32,
}

impl Zip64EndOfCentralDirectoryLocator {
    /// `PK\x06\x07`.
    pub const SIGNATURE: u32 = 0x0706_4b50;
    /// The locator's length.
    pub const LEN: usize = 20;

    /// Parses the first [`Self::LEN`] bytes of `bytes`.
    pub fn parse(bytes: &[u8]) -> Result<Self, ZipError> {
        let mut r = FieldReader::new(bytes);
        r.signature(Self::SIGNATURE, || {
            ZipError::corrupt("bad Zip64 end of central directory locator signature")
        })?;
        let (Some(record_disk), Some(record_offset), Some(total_disks)) =
            (r.u32(), r.u64(), r.u32())
        else {
            return Err(ZipError::Truncated);
        };
        Ok(Zip64EndOfCentralDirectoryLocator {
            record_disk,
            record_offset,
            total_disks,
        })
    }
}

/// The Zip64 end of central directory record, without its extensible
/// data sector.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Zip64EndOfCentralDirectory {
    /// Size of the record after this field (44 without extensible data).
    pub record_size: u64,
    /// Version made by.
    pub version_made_by: u16,
    /// Version needed to extract.
    pub version_needed: u16,
    /// Number of this disk.
    pub disk_number: u32,
    /// Number of the disk the central directory starts on.
    pub central_directory_disk: u32,
    /// Central directory records on this disk.
    pub entries_on_disk: u64,
    /// Central directory records in all.
    pub entries: u64,
    /// Size of the central directory in bytes.
    pub central_directory_size: u64,
    /// Offset of the central directory as the writer saw it.
    pub central_directory_offset: u64,
}

impl Zip64EndOfCentralDirectory {
    /// `PK\x06\x06`.
    pub const SIGNATURE: u32 = 0x0606_4b50;
    /// The record's fixed length (through the central directory offset).
    pub const LEN: usize = 56;
    /// `record_size` of a record without extensible data: the fixed
    /// length less the signature and the size field.
    const MIN_RECORD_SIZE: u64 = Self::LEN as u64 - 12;

    /// Parses the first [`Self::LEN`] bytes of `bytes`.
    pub fn parse(bytes: &[u8]) -> Result<Self, ZipError> {
        let mut r = FieldReader::new(bytes);
        r.signature(Self::SIGNATURE, || {
            ZipError::corrupt("bad Zip64 end of central directory record signature")
        })?;
        let (
            Some(record_size),
            Some(version_made_by),
            Some(version_needed),
            Some(disk_number),
            Some(central_directory_disk),
            Some(entries_on_disk),
            Some(entries),
            Some(central_directory_size),
            Some(central_directory_offset),
        ) = (
            r.u64(),
            r.u16(),
            r.u16(),
            r.u32(),
            r.u32(),
            r.u64(),
            r.u64(),
            r.u64(),
            r.u64(),
        )
        else {
            return Err(ZipError::Truncated);
        };
        if record_size < Self::MIN_RECORD_SIZE {
            return Err(ZipError::corrupt(format!(
                "Zip64 end of central directory record size {record_size} is below {}",
                Self::MIN_RECORD_SIZE
            )));
        }
        Ok(Zip64EndOfCentralDirectory {
            record_size,
            version_made_by,
            version_needed,
            disk_number,
            central_directory_disk,
            entries_on_disk,
            entries,
            central_directory_size,
            central_directory_offset,
        })
    }
}

/// Where the central directory is and what the end records say of it,
/// with offsets corrected for data prefixed to the archive.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CentralDirectoryLocation {
    /// Absolute offset of the central directory in the file.
    pub offset: u64,
    /// Size of the central directory in bytes.
    pub size: u64,
    /// Number of entries.
    pub entries: u64,
    /// Bytes to add to every offset the archive states (local headers,
    /// central directory): the length of data prefixed to the archive (a
    /// self-extractor stub) by a writer that did not adjust the offsets.
    /// 0 when the offsets are already absolute, adjusted or not prefixed.
    pub prefix: u64,
    /// The archive comment.
    pub comment: Vec<u8>,
    /// Whether the values came from the Zip64 end record.
    pub zip64: bool,
}

/// How far back from the end of the file the end record can start.
const SEARCH_LEN: u64 =
    (EndOfCentralDirectory::LEN + EndOfCentralDirectory::MAX_COMMENT_LEN) as u64;
/// The first read: the search range plus the locator and the Zip64 record
/// that usually precede the end record, so a Zip64 archive needs no
/// second read.
const TAIL_LEN: u64 = SEARCH_LEN
    + Zip64EndOfCentralDirectoryLocator::LEN as u64
    + Zip64EndOfCentralDirectory::LEN as u64;

/// Finds the central directory from the end of the file, sans I/O: the
/// caller reads the byte range [`request`](Self::request) names, hands it
/// to [`feed`](Self::feed), and repeats until `request` says `None`; then
/// [`finish`](Self::finish) gives the location.
///
/// The first request is the file's tail. The end record is searched there
/// backwards, taking the one whose comment ends exactly at the end of the
/// file (so a comment holding a fake `PK\x05\x06` is skipped), or else
/// the last one whose values are plausible (for files with bytes appended).
/// A Zip64 locator right before it leads to the Zip64 record, read with a
/// second request when it is not where it usually is.
///
/// Counts and sizes are checked against the file before anyone allocates
/// by them: the central directory lies between the file's start and the
/// end records, and holds at least 46 bytes per entry.
#[derive(Debug, Clone)]
pub struct DirectoryLocator {
    file_len: u64,
    state: LocatorState,
}

#[derive(Debug, Clone)]
enum LocatorState {
    /// Wants the file's tail.
    Tail,
    /// Wants the Zip64 record at `record_offset`; `end` is the classic
    /// record at `end_offset`.
    Zip64Record {
        end: EndOfCentralDirectory,
        end_offset: u64,
        comment: Vec<u8>,
        record_offset: u64,
        locator_offset: u64,
    },
    Done(CentralDirectoryLocation),
}

impl DirectoryLocator {
    /// A locator for a file of `file_len` bytes.
    pub fn new(file_len: u64) -> Self {
        DirectoryLocator {
            file_len,
            state: LocatorState::Tail,
        }
    }

    fn tail_range(&self) -> (u64, usize) {
        let len = self.file_len.min(TAIL_LEN);
        // TAIL_LEN fits a usize on every target.
        (self.file_len - len, usize::try_from(len).unwrap_or(0))
    }

    /// The byte range wanted next, as offset and length; `None` once the
    /// location is known.
    pub fn request(&self) -> Option<(u64, usize)> {
        match &self.state {
            LocatorState::Tail => Some(self.tail_range()),
            LocatorState::Zip64Record { record_offset, .. } => {
                Some((*record_offset, Zip64EndOfCentralDirectory::LEN))
            }
            LocatorState::Done(_) => None,
        }
    }

    /// Takes the bytes of the range [`request`](Self::request) named;
    /// fewer is [`ZipError::Truncated`], more are ignored. Does nothing
    /// once the location is known.
    pub fn feed(&mut self, bytes: &[u8]) -> Result<(), ZipError> {
        let next = match &self.state {
            LocatorState::Tail => self.read_tail(bytes)?,
            LocatorState::Zip64Record {
                end,
                end_offset,
                comment,
                record_offset,
                locator_offset,
            } => {
                let location = match Zip64EndOfCentralDirectory::parse(bytes) {
                    Ok(record) => {
                        let record_end = record_offset
                            .checked_add(12)
                            .and_then(|o| o.checked_add(record.record_size));
                        if record_end.is_none_or(|end| end > *locator_offset) {
                            return Err(ZipError::corrupt(
                                "Zip64 end of central directory record overlaps its locator",
                            ));
                        }
                        zip64_location(&record, *record_offset, comment.clone())?
                    }
                    Err(ZipError::Corrupt(_)) => classic_or(
                        end,
                        *end_offset,
                        comment.clone(),
                        "no Zip64 end of central directory record where the locator points",
                    )?,
                    Err(e) => return Err(e),
                };
                LocatorState::Done(location)
            }
            LocatorState::Done(_) => return Ok(()),
        };
        self.state = next;
        Ok(())
    }

    fn read_tail(&self, bytes: &[u8]) -> Result<LocatorState, ZipError> {
        let (start, len) = self.tail_range();
        let tail = bytes.get(..len).ok_or(ZipError::Truncated)?;
        let (pos, end) = find_end_record(tail, start, self.file_len).ok_or(ZipError::NotZip)?;
        let end_offset = start + pos as u64;
        let comment_start = pos + EndOfCentralDirectory::LEN;
        let comment = tail
            .get(comment_start..comment_start + usize::from(end.comment_len))
            .unwrap_or_default()
            .to_vec();

        let locator = pos
            .checked_sub(Zip64EndOfCentralDirectoryLocator::LEN)
            .filter(|&at| u32_at(tail, at) == Some(Zip64EndOfCentralDirectoryLocator::SIGNATURE));
        let Some(locator_pos) = locator else {
            return classic_location(&end, end_offset, comment).map(LocatorState::Done);
        };
        let locator =
            Zip64EndOfCentralDirectoryLocator::parse(tail.get(locator_pos..).unwrap_or_default())?;
        if locator.record_disk != 0 || locator.total_disks > 1 {
            return Err(ZipError::UnsupportedFeature("multi-disk archives"));
        }
        let locator_offset = start + locator_pos as u64;
        // Usually the record, without extensible data, ends at the locator:
        // take it from the tail. Its position there is the true one, even
        // when the stated offset misses a prefix.
        let usual = locator_pos
            .checked_sub(Zip64EndOfCentralDirectory::LEN)
            .filter(|&at| u32_at(tail, at) == Some(Zip64EndOfCentralDirectory::SIGNATURE))
            .and_then(|at| {
                let record = Zip64EndOfCentralDirectory::parse(tail.get(at..)?).ok()?;
                (record.record_size == Zip64EndOfCentralDirectory::MIN_RECORD_SIZE)
                    .then_some((at, record))
            });
        if let Some((at, record)) = usual {
            return zip64_location(&record, start + at as u64, comment).map(LocatorState::Done);
        }
        let fits = locator
            .record_offset
            .checked_add(Zip64EndOfCentralDirectory::LEN as u64)
            .is_some_and(|end| end <= locator_offset);
        if !fits {
            return classic_or(
                &end,
                end_offset,
                comment,
                "Zip64 end of central directory locator points past itself",
            )
            .map(LocatorState::Done);
        }
        Ok(LocatorState::Zip64Record {
            end,
            end_offset,
            comment,
            record_offset: locator.record_offset,
            locator_offset,
        })
    }

    /// The location, once [`request`](Self::request) says `None`; before,
    /// a [`ZipError::Corrupt`] saying the search is unfinished.
    pub fn finish(self) -> Result<CentralDirectoryLocation, ZipError> {
        match self.state {
            LocatorState::Done(location) => Ok(location),
            _ => Err(ZipError::corrupt(
                "end of central directory search finished before its last request",
            )),
        }
    }
}

/// The end record in `tail` (the file from `start` to its end at
/// `file_len`) and its position there.
fn find_end_record(
    tail: &[u8],
    start: u64,
    file_len: u64,
) -> Option<(usize, EndOfCentralDirectory)> {
    let first = usize::try_from(file_len.saturating_sub(SEARCH_LEN).saturating_sub(start)).ok()?;
    let last = tail.len().checked_sub(EndOfCentralDirectory::LEN)?;
    let mut plausible = None;
    for pos in (first..=last).rev() {
        if u32_at(tail, pos) != Some(EndOfCentralDirectory::SIGNATURE) {
            continue;
        }
        let Ok(end) = EndOfCentralDirectory::parse(tail.get(pos..)?) else {
            continue;
        };
        let comment_end = pos + EndOfCentralDirectory::LEN + usize::from(end.comment_len);
        if comment_end == tail.len() {
            return Some((pos, end));
        }
        if plausible.is_none() && comment_end < tail.len() && end.is_plausible(start + pos as u64) {
            plausible = Some((pos, end));
        }
    }
    plausible
}

/// The location from a classic end record at `end_offset`: the central
/// directory ends where the record starts.
fn classic_location(
    end: &EndOfCentralDirectory,
    end_offset: u64,
    comment: Vec<u8>,
) -> Result<CentralDirectoryLocation, ZipError> {
    if end.disk_number != 0 || end.central_directory_disk != 0 || end.entries_on_disk != end.entries
    {
        return Err(ZipError::UnsupportedFeature("multi-disk archives"));
    }
    corrected_location(
        end_offset,
        u64::from(end.central_directory_offset),
        u64::from(end.central_directory_size),
        u64::from(end.entries),
        comment,
        false,
    )
}

/// The location from the classic record when its values are whole (a
/// `PK\x06\x07` before it was then the end of the last central record, not
/// a Zip64 locator), else `failure`.
fn classic_or(
    end: &EndOfCentralDirectory,
    end_offset: u64,
    comment: Vec<u8>,
    failure: &str,
) -> Result<CentralDirectoryLocation, ZipError> {
    if end.has_saturated_field() {
        return Err(ZipError::corrupt(failure));
    }
    classic_location(end, end_offset, comment)
}

/// The location from a Zip64 record found at `record_offset`: the central
/// directory ends where the record starts.
fn zip64_location(
    record: &Zip64EndOfCentralDirectory,
    record_offset: u64,
    comment: Vec<u8>,
) -> Result<CentralDirectoryLocation, ZipError> {
    if record.disk_number != 0
        || record.central_directory_disk != 0
        || record.entries_on_disk != record.entries
    {
        return Err(ZipError::UnsupportedFeature("multi-disk archives"));
    }
    corrected_location(
        record_offset,
        record.central_directory_offset,
        record.central_directory_size,
        record.entries,
        comment,
        true,
    )
}

/// Places the central directory right before `directory_end` and takes
/// the difference from the stated offset as the prefix.
fn corrected_location(
    directory_end: u64,
    stated_offset: u64,
    size: u64,
    entries: u64,
    comment: Vec<u8>,
    zip64: bool,
) -> Result<CentralDirectoryLocation, ZipError> {
    let offset = directory_end.checked_sub(size).ok_or_else(|| {
        ZipError::corrupt(format!(
            "central directory size {size} exceeds the {directory_end} bytes before the end record"
        ))
    })?;
    let prefix = offset.checked_sub(stated_offset).ok_or_else(|| {
        ZipError::corrupt(format!(
            "central directory offset {stated_offset} points past the central directory's end \
             (it starts at {offset})"
        ))
    })?;
    if entries
        .checked_mul(CENTRAL_HEADER_MIN_LEN)
        .is_none_or(|min| min > size)
    {
        return Err(ZipError::corrupt(format!(
            "{entries} entries cannot fit in a central directory of {size} bytes"
        )));
    }
    Ok(CentralDirectoryLocation {
        offset,
        size,
        entries,
        prefix,
        comment,
        zip64,
    })
}

#[cfg(test)]
mod tests {
    use super::super::test_archive::{locate, TestArchive, TestEntry};
    use super::*;

    fn three_entries() -> TestArchive {
        TestArchive::new(vec![
            TestEntry::stored("a.txt", b"alpha"),
            TestEntry::stored("dir/", b""),
            TestEntry::stored("b.bin", &[7; 300]),
        ])
    }

    #[test]
    fn plain_archive() {
        let a = three_entries();
        let file = a.build();
        let loc = locate(&file).unwrap();
        assert_eq!(loc.entries, 3);
        assert_eq!(loc.prefix, 0);
        assert!(!loc.zip64);
        assert!(loc.comment.is_empty());
        assert_eq!(loc.offset + loc.size, file.len() as u64 - 22);
        assert_eq!(&file[loc.offset as usize..][..4], b"PK\x01\x02");
    }

    #[test]
    fn empty_archive() {
        let file = TestArchive::new(vec![]).build();
        assert_eq!(file.len(), 22);
        let loc = locate(&file).unwrap();
        assert_eq!((loc.offset, loc.size, loc.entries), (0, 0, 0));
    }

    #[test]
    fn comment_with_a_fake_end_record() {
        let mut a = three_entries();
        // A whole end record inside the comment, claiming an empty archive
        // with a comment that ends one byte before the file does.
        let mut fake = b"see: ".to_vec();
        fake.extend_from_slice(b"PK\x05\x06");
        fake.extend_from_slice(&[0; 12]);
        fake.extend_from_slice(&[0, 0, 0, 0]);
        fake.extend_from_slice(&3u16.to_le_bytes());
        fake.extend_from_slice(b"tail");
        a.comment = fake.clone();
        let file = a.build();
        let loc = locate(&file).unwrap();
        assert_eq!(loc.entries, 3);
        assert_eq!(loc.comment, fake);
    }

    #[test]
    fn bytes_appended_after_the_archive() {
        let mut file = three_entries().build();
        file.extend_from_slice(b"appended garbage, no signature here");
        let loc = locate(&file).unwrap();
        assert_eq!(loc.entries, 3);
        assert_eq!(loc.prefix, 0);
    }

    #[test]
    fn prefixed_data_with_and_without_adjusted_offsets() {
        let plain = locate(&three_entries().build()).unwrap();
        for adjust in [false, true] {
            let mut a = three_entries();
            a.prefix = vec![0xEE; 3000];
            a.adjust = adjust;
            let file = a.build();
            let loc = locate(&file).unwrap();
            assert_eq!(loc.offset, plain.offset + 3000, "adjust {adjust}");
            assert_eq!(loc.prefix, if adjust { 0 } else { 3000 });
            let cd = super::super::test_archive::open(&file).unwrap();
            for e in cd.iter() {
                let at = e.local_header_offset() as usize;
                assert_eq!(&file[at..at + 4], b"PK\x03\x04");
            }
        }
    }

    #[test]
    fn zip64_locator_and_record() {
        for adjust in [true, false] {
            for extensible in [&b""[..], b"extensible data sector"] {
                let mut a = three_entries();
                a.zip64_end = true;
                a.zip64_extensible = extensible.to_vec();
                a.prefix = vec![1; 100];
                a.adjust = adjust;
                let file = a.build();
                let mut locator = DirectoryLocator::new(file.len() as u64);
                let mut requests = 0;
                let mut result = Ok(());
                while let Some((at, len)) = locator.request() {
                    requests += 1;
                    result = locator.feed(&file[at as usize..][..len]);
                    if result.is_err() {
                        break;
                    }
                }
                // The usual layout needs the tail only; a record with
                // extensible data is read where the locator says.
                assert_eq!(requests, if extensible.is_empty() { 1 } else { 2 });
                if !adjust && !extensible.is_empty() {
                    // The stated offset misses the prefix and the record is
                    // not where it usually is: nothing tells where it is.
                    assert!(matches!(result, Err(ZipError::Corrupt(_))));
                    continue;
                }
                let loc = locator.finish().unwrap();
                assert!(loc.zip64);
                assert_eq!(loc.entries, 3);
                assert_eq!(loc.prefix, if adjust { 0 } else { 100 });
                assert_eq!(&file[loc.offset as usize..][..4], b"PK\x01\x02");
            }
        }
    }

    #[test]
    fn zip64_locator_pointing_nowhere() {
        let mut a = three_entries();
        a.zip64_end = true;
        a.zip64_extensible = b"x".to_vec();
        let mut file = a.build();
        // Point the locator at the first local header.
        let locator_at = file.len() - 22 - 20;
        file[locator_at + 8..locator_at + 16].copy_from_slice(&0u64.to_le_bytes());
        assert!(matches!(locate(&file), Err(ZipError::Corrupt(_))));
        // And past itself.
        file[locator_at + 8..locator_at + 16].copy_from_slice(&u64::MAX.to_le_bytes());
        assert!(matches!(locate(&file), Err(ZipError::Corrupt(_))));
    }

    #[test]
    fn a_locator_signature_by_chance_before_a_classic_end_record() {
        // The last central record's comment ends in what looks like a
        // locator pointing at the first local header.
        let mut last = TestEntry::stored("last", b"x");
        last.comment = b"PK\x06\x07\0\0\0\0\0\0\0\0\0\0\0\0\x01\0\0\0".to_vec();
        let mut a = three_entries();
        a.entries.push(last.clone());
        let loc = locate(&a.build()).unwrap();
        assert!(!loc.zip64);
        assert_eq!(loc.entries, 4);
        // Pointing past itself.
        last.comment[8..16].copy_from_slice(&u64::MAX.to_le_bytes());
        let mut a = three_entries();
        a.entries.push(last);
        assert_eq!(locate(&a.build()).unwrap().entries, 4);
    }

    #[test]
    fn multi_disk_archives_are_unsupported() {
        let file = three_entries().build();
        let end = file.len() - 22;
        for field in [4, 6, 8] {
            let mut f = file.clone();
            f[end + field] = 1;
            assert!(
                matches!(
                    locate(&f),
                    Err(ZipError::UnsupportedFeature("multi-disk archives"))
                ),
                "field {field}"
            );
        }
        let mut a = three_entries();
        a.zip64_end = true;
        let file = a.build();
        let locator_at = file.len() - 22 - 20;
        let mut f = file.clone();
        f[locator_at + 16] = 2; // total disks
        assert!(matches!(locate(&f), Err(ZipError::UnsupportedFeature(_))));
        let mut f = file.clone();
        f[locator_at - 56 + 16] = 1; // Zip64 record: disk number
        assert!(matches!(locate(&f), Err(ZipError::UnsupportedFeature(_))));
    }

    #[test]
    fn counts_and_sizes_are_bounded() {
        let file = three_entries().build();
        let end = file.len() - 22;
        // More entries than 46-byte records fit.
        let mut f = file.clone();
        f[end + 8..end + 12].copy_from_slice(&[0xFE, 0xFF, 0xFE, 0xFF]);
        assert!(matches!(locate(&f), Err(ZipError::Corrupt(_))));
        // A central directory larger than the file before the end record.
        let mut f = file.clone();
        f[end + 12..end + 16].copy_from_slice(&(end as u32 + 1).to_le_bytes());
        assert!(matches!(locate(&f), Err(ZipError::Corrupt(_))));
        // An offset past the central directory.
        let mut f = file.clone();
        f[end + 16..end + 20].copy_from_slice(&(file.len() as u32 + 4096).to_le_bytes());
        assert!(matches!(locate(&f), Err(ZipError::Corrupt(_))));
    }

    #[test]
    fn not_zip() {
        assert!(matches!(locate(b""), Err(ZipError::NotZip)));
        assert!(matches!(locate(&[0; 100]), Err(ZipError::NotZip)));
        // An end record further back than the longest comment reaches.
        let mut file = TestArchive::new(vec![]).build();
        file.extend(std::iter::repeat_n(0, 0x10000));
        assert!(matches!(locate(&file), Err(ZipError::NotZip)));
    }

    #[test]
    fn short_reads_and_truncated_files_never_panic() {
        let mut a = three_entries();
        a.zip64_end = true;
        a.zip64_extensible = b"ext".to_vec();
        a.comment = b"comment".to_vec();
        let file = a.build();
        for len in 0..file.len() {
            let _ = locate(&file[..len]);
            let mut locator = DirectoryLocator::new(file.len() as u64);
            let (at, want) = locator.request().unwrap();
            let got = &file[at as usize..][..want.min(len)];
            if len < want {
                assert!(matches!(locator.feed(got), Err(ZipError::Truncated)));
            }
        }
        let mut locator = DirectoryLocator::new(file.len() as u64);
        let (at, len) = locator.request().unwrap();
        locator.feed(&file[at as usize..][..len]).unwrap();
        let (_, len) = locator.request().unwrap();
        for short in 0..len {
            let mut l = locator.clone();
            assert!(l.feed(&vec![0; short]).is_err());
        }
        assert!(matches!(
            DirectoryLocator::new(10).finish(),
            Err(ZipError::Corrupt(_))
        ));
    }

    #[test]
    fn record_parsers_on_every_prefix() {
        let file = {
            let mut a = three_entries();
            a.zip64_end = true;
            a.build()
        };
        let end = &file[file.len() - 22..];
        let locator = &file[file.len() - 42..file.len() - 22];
        let record = &file[file.len() - 98..file.len() - 42];
        for len in 0..22 {
            assert!(EndOfCentralDirectory::parse(&end[..len]).is_err());
        }
        for len in 0..20 {
            assert!(Zip64EndOfCentralDirectoryLocator::parse(&locator[..len]).is_err());
        }
        for len in 0..56 {
            assert!(Zip64EndOfCentralDirectory::parse(&record[..len]).is_err());
        }
        assert!(EndOfCentralDirectory::parse(end)
            .unwrap()
            .has_saturated_field());
        assert_eq!(
            Zip64EndOfCentralDirectoryLocator::parse(locator)
                .unwrap()
                .record_offset,
            file.len() as u64 - 98
        );
        assert_eq!(
            Zip64EndOfCentralDirectory::parse(record).unwrap().entries,
            3
        );
    }
}
