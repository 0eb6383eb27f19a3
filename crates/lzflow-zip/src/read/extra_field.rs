//! The extra field (APPNOTE 4.5): blocks of a 2-byte header ID, a 2-byte
//! data size and the data, and the parsers for the blocks the reader uses:
//! Zip64 extended information (0x0001), NTFS times (0x000a), Info-ZIP's
//! extended timestamp (0x5455) and Unicode Path (0x7075), and WinZip's AES
//! encryption structure (0x9901).

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use super::dos_time::DosDateTime;
use super::little_endian::FieldReader;
use crate::ZipError;

/// One block of an extra field.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ExtraField<'a> {
    /// The header ID naming the block's format.
    pub id: u16,
    /// The block's data, after its 4-byte header.
    pub data: &'a [u8],
}

/// The blocks of an extra field, in order.
///
/// Stops at the first block that does not fit (fewer than 4 bytes left,
/// or a data size past the end); [`ExtraFields::remainder`] then holds the
/// bytes not parsed. Writers pad extra fields (zipalign) or cut them short,
/// so a ragged end is left to the caller to judge rather than an error.
#[derive(Debug, Clone)]
pub struct ExtraFields<'a> {
    rest: &'a [u8],
}

impl<'a> ExtraFields<'a> {
    /// The blocks of `extra`.
    pub fn new(extra: &'a [u8]) -> Self {
        ExtraFields { rest: extra }
    }

    /// The bytes not parsed as blocks: all of what follows the last whole
    /// block once the iterator has ended, empty for a well-formed field.
    pub fn remainder(&self) -> &'a [u8] {
        self.rest
    }
}

impl<'a> Iterator for ExtraFields<'a> {
    type Item = ExtraField<'a>;

    fn next(&mut self) -> Option<ExtraField<'a>> {
        let mut r = FieldReader::new(self.rest);
        let id = r.u16()?;
        let len = r.u16()?;
        let data = r.take(usize::from(len))?;
        self.rest = r.rest();
        Some(ExtraField { id, data })
    }
}

/// An entry's modification time: from the extended timestamp (0x5455) in
/// `extra` if present, else from the NTFS times (0x000a), else `dos` read
/// as UTC (the format does not say the writer's zone).
pub(crate) fn modification_time(extra: &[u8], dos: DosDateTime) -> Option<SystemTime> {
    let extended = find(extra, ExtendedTimestamp::ID)
        .and_then(|data| ExtendedTimestamp::parse(data).ok())
        .and_then(|ut| ut.mtime_system_time());
    let ntfs = || {
        find(extra, NtfsTimes::ID)
            .and_then(|data| NtfsTimes::parse(data).ok())
            .and_then(|times| ntfs_time_to_system_time(times.mtime))
    };
    extended.or_else(ntfs).or_else(|| dos.to_system_time())
}

/// The data of the first block with header ID `id`.
pub fn find(extra: &[u8], id: u16) -> Option<&[u8]> {
    ExtraFields::new(extra).find(|f| f.id == id).map(|f| f.data)
}

/// Which fields a Zip64 extended information block holds: exactly those
/// whose header field is saturated (0xFFFFFFFF, or 0xFFFF for the disk).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Zip64Fields {
    /// The uncompressed size is in the block.
    pub uncompressed_size: bool,
    /// The compressed size is in the block.
    pub compressed_size: bool,
    /// The local header offset is in the block (central headers only).
    pub local_header_offset: bool,
    /// The disk start number is in the block (central headers only).
    pub disk_start: bool,
}

impl Zip64Fields {
    /// Whether no field is wanted.
    pub fn is_empty(self) -> bool {
        self == Zip64Fields::default()
    }
}

/// The Zip64 extended information extra field (APPNOTE 4.5.3): the 64-bit
/// values of the header fields that hold 0xFFFFFFFF, in this order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Zip64ExtendedInformation {
    /// The original (uncompressed) size.
    pub uncompressed_size: Option<u64>,
    /// The compressed size.
    pub compressed_size: Option<u64>,
    /// The offset of the local header.
    pub local_header_offset: Option<u64>,
    /// The number of the disk the entry starts on.
    pub disk_start: Option<u32>,
}

impl Zip64ExtendedInformation {
    /// The block's header ID.
    pub const ID: u16 = 0x0001;

    /// Reads the `wanted` fields from the block's data; fields are present
    /// only when wanted, so their positions depend on which are. Bytes past
    /// the wanted fields are ignored.
    pub fn parse(data: &[u8], wanted: Zip64Fields) -> Result<Self, ZipError> {
        let short = || ZipError::corrupt("Zip64 extra field too short");
        let mut r = FieldReader::new(data);
        let mut out = Zip64ExtendedInformation::default();
        if wanted.uncompressed_size {
            out.uncompressed_size = Some(r.u64().ok_or_else(short)?);
        }
        if wanted.compressed_size {
            out.compressed_size = Some(r.u64().ok_or_else(short)?);
        }
        if wanted.local_header_offset {
            out.local_header_offset = Some(r.u64().ok_or_else(short)?);
        }
        if wanted.disk_start {
            out.disk_start = Some(r.u32().ok_or_else(short)?);
        }
        Ok(out)
    }
}

/// Info-ZIP's extended timestamp extra field (0x5455): Unix times in
/// seconds. The flags say which times the local header's block holds; the
/// central header's block keeps the flags but holds at most the mtime.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ExtendedTimestamp {
    /// Bit 0: mtime, bit 1: atime, bit 2: ctime.
    pub flags: u8,
    /// Last modification.
    pub mtime: Option<u32>,
    /// Last access.
    pub atime: Option<u32>,
    /// Creation.
    pub ctime: Option<u32>,
}

impl ExtendedTimestamp {
    /// The block's header ID.
    pub const ID: u16 = 0x5455;

    /// Reads the block's data: the flags, then each flagged time while
    /// whole ones remain.
    pub fn parse(data: &[u8]) -> Result<Self, ZipError> {
        let mut r = FieldReader::new(data);
        let flags = r
            .u8()
            .ok_or_else(|| ZipError::corrupt("empty extended timestamp extra field"))?;
        let mut time = |bit: u8| if flags & bit != 0 { r.u32() } else { None };
        let mtime = time(1);
        let atime = time(2);
        let ctime = time(4);
        Ok(ExtendedTimestamp {
            flags,
            mtime,
            atime,
            ctime,
        })
    }

    /// The modification time. The field is signed in Info-ZIP's notes but
    /// read as unsigned, as unzip 6.0 and 7-Zip do: times after January
    /// 2038 come out right, none before 1970 can be told.
    pub fn mtime_system_time(&self) -> Option<SystemTime> {
        UNIX_EPOCH.checked_add(Duration::from_secs(u64::from(self.mtime?)))
    }
}

/// 100-nanosecond ticks from 1601-01-01 (the NTFS epoch) to 1970-01-01.
const NTFS_TICKS_TO_UNIX_EPOCH: u64 = 116_444_736_000_000_000;
const NTFS_TICKS_PER_SECOND: u64 = 10_000_000;

/// An NTFS time (ticks of 100 ns since 1601-01-01 UTC) as a `SystemTime`;
/// `None` for 0, which Windows uses for "not set".
pub fn ntfs_time_to_system_time(ticks: u64) -> Option<SystemTime> {
    if ticks == 0 {
        return None;
    }
    let since = |t: u64| {
        let secs = t / NTFS_TICKS_PER_SECOND;
        // Below 10^7 ticks, so the nanoseconds fit a u32.
        let nanos = u32::try_from(t % NTFS_TICKS_PER_SECOND * 100).ok()?;
        Some(Duration::new(secs, nanos))
    };
    match ticks.checked_sub(NTFS_TICKS_TO_UNIX_EPOCH) {
        Some(after) => UNIX_EPOCH.checked_add(since(after)?),
        None => UNIX_EPOCH.checked_sub(since(NTFS_TICKS_TO_UNIX_EPOCH - ticks)?),
    }
}

/// The NTFS extra field (0x000a, APPNOTE 4.5.5): attribute 1 holds the
/// modification, access and creation times in NTFS ticks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NtfsTimes {
    /// Last modification.
    pub mtime: u64,
    /// Last access.
    pub atime: u64,
    /// Creation.
    pub ctime: u64,
}

impl NtfsTimes {
    /// The block's header ID.
    pub const ID: u16 = 0x000a;

    /// Reads the block's data: 4 reserved bytes, then attributes (2-byte
    /// tag, 2-byte size, data) until tag 1 of 24 bytes.
    pub fn parse(data: &[u8]) -> Result<Self, ZipError> {
        let missing = || ZipError::corrupt("NTFS extra field without its times");
        let mut r = FieldReader::new(data);
        r.take(4).ok_or_else(missing)?;
        loop {
            let tag = r.u16().ok_or_else(missing)?;
            let size = r.u16().ok_or_else(missing)?;
            let attribute = r.take(usize::from(size)).ok_or_else(missing)?;
            if tag == 1 && size >= 24 {
                let mut t = FieldReader::new(attribute);
                return match (t.u64(), t.u64(), t.u64()) {
                    (Some(mtime), Some(atime), Some(ctime)) => Ok(NtfsTimes {
                        mtime,
                        atime,
                        ctime,
                    }),
                    _ => Err(missing()),
                };
            }
        }
    }
}

/// Info-ZIP's Unicode Path extra field (0x7075, APPNOTE 4.6.9): the UTF-8
/// name of an entry whose header name is in another encoding.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct UnicodePath<'a> {
    /// CRC-32 of the header's name field this name stands for.
    pub name_crc32: u32,
    /// The name in UTF-8.
    pub name: &'a [u8],
}

impl<'a> UnicodePath<'a> {
    /// The block's header ID.
    pub const ID: u16 = 0x7075;

    /// Reads the block's data: version (1), name CRC-32, UTF-8 name.
    pub fn parse(data: &'a [u8]) -> Result<Self, ZipError> {
        let mut r = FieldReader::new(data);
        let version = r.u8();
        let name_crc32 = r
            .u32()
            .ok_or_else(|| ZipError::corrupt("Unicode Path extra field too short"))?;
        if version != Some(1) {
            return Err(ZipError::UnsupportedFeature(
                "Unicode Path extra field version other than 1",
            ));
        }
        Ok(UnicodePath {
            name_crc32,
            name: r.rest(),
        })
    }

    /// Whether this name was made from `raw_name`: a tool that renames an
    /// entry without updating the block leaves a stale name, which the CRC
    /// tells apart.
    pub fn matches(&self, raw_name: &[u8]) -> bool {
        crc32fast::hash(raw_name) == self.name_crc32
    }
}

/// WinZip's AES format version: what the entry's CRC-32 field holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum AesVendorVersion {
    /// AE-1: the CRC-32 of the plaintext, checked as well as the MAC.
    Ae1,
    /// AE-2: CRC-32 zero, only the MAC authenticates the data (it keeps
    /// small files' CRC from hinting at their content).
    Ae2,
}

/// WinZip's AES extra field (0x9901): how an entry stored with method 99
/// is encrypted and the compression method of the data inside.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct AesExtra {
    /// AE-1 or AE-2.
    pub version: AesVendorVersion,
    /// The key strength as stored: 1, 2 or 3 for AES-128, -192, -256
    /// (`winzip_aes::AesStrength::from_byte` turns it into the cipher's).
    pub strength: u8,
    /// The compression method of the decrypted data.
    pub method: u16,
}

impl AesExtra {
    /// The block's header ID.
    pub const ID: u16 = 0x9901;
    /// The compression method field of every AES-encrypted entry.
    pub const METHOD: u16 = 99;

    /// Reads the block's data: vendor version (1 or 2), vendor ID "AE",
    /// strength (1-3), actual compression method.
    pub fn parse(data: &[u8]) -> Result<Self, ZipError> {
        let mut r = FieldReader::new(data);
        let (Some(version), Some(vendor), Some(strength), Some(method)) =
            (r.u16(), r.take(2), r.u8(), r.u16())
        else {
            return Err(ZipError::corrupt("WinZip AES extra field too short"));
        };
        if vendor != b"AE" {
            return Err(ZipError::corrupt(
                "WinZip AES extra field without vendor ID \"AE\"",
            ));
        }
        let version = match version {
            1 => AesVendorVersion::Ae1,
            2 => AesVendorVersion::Ae2,
            _ => {
                return Err(ZipError::UnsupportedFeature(
                    "WinZip AES vendor version other than AE-1 and AE-2",
                ))
            }
        };
        if !(1..=3).contains(&strength) {
            return Err(ZipError::corrupt(
                "WinZip AES extra field with an unknown key strength",
            ));
        }
        Ok(AesExtra {
            version,
            strength,
            method,
        })
    }

    /// The key length in bits: 128, 192 or 256.
    pub fn key_bits(&self) -> u16 {
        64 + 64 * u16::from(self.strength)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn block(id: u16, data: &[u8]) -> Vec<u8> {
        let mut b = id.to_le_bytes().to_vec();
        b.extend_from_slice(&u16::try_from(data.len()).unwrap().to_le_bytes());
        b.extend_from_slice(data);
        b
    }

    #[test]
    fn iterates_blocks_and_stops_at_a_ragged_end() {
        let mut extra = block(0x5455, &[1, 2, 3, 4, 5]);
        extra.extend(block(0x7875, &[]));
        let whole = extra.len();
        extra.extend_from_slice(&[0x01, 0x00, 0x08, 0x00, 1, 2]); // says 8, has 2
        let mut it = ExtraFields::new(&extra);
        assert_eq!(
            it.next(),
            Some(ExtraField {
                id: 0x5455,
                data: &[1, 2, 3, 4, 5]
            })
        );
        assert_eq!(it.next().map(|f| (f.id, f.data.len())), Some((0x7875, 0)));
        assert_eq!(it.next(), None);
        assert_eq!(it.next(), None);
        assert_eq!(it.remainder(), &extra[whole..]);
        for len in 0..extra.len() {
            let n = ExtraFields::new(&extra[..len]).count();
            assert!(n <= 2);
        }
        assert_eq!(find(&extra, 0x7875), Some(&[][..]));
        assert_eq!(find(&extra, 0x0001), None);
    }

    #[test]
    fn zip64_takes_only_the_wanted_fields_in_order() {
        let mut data = Vec::new();
        for v in [0x1_0000_0001u64, 0x2_0000_0002, 0x3_0000_0003] {
            data.extend_from_slice(&v.to_le_bytes());
        }
        data.extend_from_slice(&7u32.to_le_bytes());
        let all = Zip64Fields {
            uncompressed_size: true,
            compressed_size: true,
            local_header_offset: true,
            disk_start: true,
        };
        let z = Zip64ExtendedInformation::parse(&data, all).unwrap();
        assert_eq!(z.uncompressed_size, Some(0x1_0000_0001));
        assert_eq!(z.compressed_size, Some(0x2_0000_0002));
        assert_eq!(z.local_header_offset, Some(0x3_0000_0003));
        assert_eq!(z.disk_start, Some(7));
        let offset_only = Zip64Fields {
            local_header_offset: true,
            ..Zip64Fields::default()
        };
        let z = Zip64ExtendedInformation::parse(&data, offset_only).unwrap();
        assert_eq!(z.local_header_offset, Some(0x1_0000_0001));
        assert_eq!(z.uncompressed_size, None);
        for len in 0..data.len() {
            assert!(Zip64ExtendedInformation::parse(&data[..len], all).is_err());
        }
        assert_eq!(
            Zip64ExtendedInformation::parse(&[], Zip64Fields::default()).unwrap(),
            Zip64ExtendedInformation::default()
        );
    }

    #[test]
    fn extended_timestamp_local_and_central_forms() {
        let mut local = vec![7];
        for t in [2_214_172_798u32, 1, 2] {
            local.extend_from_slice(&t.to_le_bytes());
        }
        let ut = ExtendedTimestamp::parse(&local).unwrap();
        assert_eq!(
            (ut.mtime, ut.atime, ut.ctime),
            (Some(2_214_172_798), Some(1), Some(2))
        );
        let secs = |t: SystemTime| t.duration_since(UNIX_EPOCH).unwrap().as_secs();
        // Past 2^31: read unsigned.
        assert_eq!(secs(ut.mtime_system_time().unwrap()), 2_214_172_798);
        // The central form: flags for all three, the mtime only.
        let central = ExtendedTimestamp::parse(&local[..5]).unwrap();
        assert_eq!(
            (central.flags, central.mtime, central.atime),
            (7, Some(2_214_172_798), None)
        );
        // Access time only.
        let atime_only = ExtendedTimestamp::parse(&[2, 9, 0, 0, 0]).unwrap();
        assert_eq!((atime_only.mtime, atime_only.atime), (None, Some(9)));
        assert!(ExtendedTimestamp::parse(&[]).is_err());
        for len in 1..local.len() {
            ExtendedTimestamp::parse(&local[..len]).unwrap();
        }
    }

    #[test]
    fn ntfs_times() {
        // 2023-05-06T07:08:10Z plus 0.5 s.
        let mtime = NTFS_TICKS_TO_UNIX_EPOCH + 1_683_356_890 * NTFS_TICKS_PER_SECOND + 5_000_000;
        let mut data = vec![0; 4];
        data.extend(block(2, &[0xAA; 3])); // an unknown attribute first
        let mut times = mtime.to_le_bytes().to_vec();
        times.extend_from_slice(&1u64.to_le_bytes());
        times.extend_from_slice(&0u64.to_le_bytes());
        data.extend(block(1, &times));
        let n = NtfsTimes::parse(&data).unwrap();
        assert_eq!((n.mtime, n.atime, n.ctime), (mtime, 1, 0));
        let t = ntfs_time_to_system_time(n.mtime).unwrap();
        assert_eq!(
            t.duration_since(UNIX_EPOCH).unwrap(),
            Duration::new(1_683_356_890, 500_000_000)
        );
        // Before 1970.
        let early = ntfs_time_to_system_time(NTFS_TICKS_TO_UNIX_EPOCH - NTFS_TICKS_PER_SECOND);
        assert_eq!(early, UNIX_EPOCH.checked_sub(Duration::from_secs(1)));
        assert_eq!(ntfs_time_to_system_time(0), None);
        let _ = ntfs_time_to_system_time(u64::MAX);
        let _ = ntfs_time_to_system_time(1);
        for len in 0..data.len() {
            assert!(NtfsTimes::parse(&data[..len]).is_err());
        }
    }

    #[test]
    fn unicode_path() {
        let mut data = vec![1];
        data.extend_from_slice(&crc32fast::hash(b"abc").to_le_bytes());
        data.extend_from_slice("äbc".as_bytes());
        let up = UnicodePath::parse(&data).unwrap();
        assert_eq!(up.name, "äbc".as_bytes());
        assert!(up.matches(b"abc"));
        assert!(!up.matches(b"abd"));
        for len in 0..5 {
            assert!(UnicodePath::parse(&data[..len]).is_err());
        }
        data[0] = 2;
        assert!(matches!(
            UnicodePath::parse(&data),
            Err(ZipError::UnsupportedFeature(_))
        ));
    }

    #[test]
    fn aes_extra() {
        let data = [2, 0, b'A', b'E', 3, 8, 0];
        let aes = AesExtra::parse(&data).unwrap();
        assert_eq!(aes.version, AesVendorVersion::Ae2);
        assert_eq!((aes.strength, aes.key_bits()), (3, 256));
        assert_eq!(aes.method, 8);
        let ae1 = AesExtra::parse(&[1, 0, b'A', b'E', 1, 0, 0]).unwrap();
        assert_eq!((ae1.version, ae1.key_bits()), (AesVendorVersion::Ae1, 128));
        assert_eq!(
            AesExtra::parse(&[1, 0, b'A', b'E', 2, 0, 0])
                .unwrap()
                .key_bits(),
            192
        );
        for len in 0..data.len() {
            assert!(AesExtra::parse(&data[..len]).is_err());
        }
        assert!(AesExtra::parse(&[3, 0, b'A', b'E', 3, 8, 0]).is_err());
        assert!(AesExtra::parse(&[2, 0, b'A', b'X', 3, 8, 0]).is_err());
        assert!(AesExtra::parse(&[2, 0, b'A', b'E', 4, 8, 0]).is_err());
    }
}
