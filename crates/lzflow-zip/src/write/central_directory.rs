//! The central directory headers (APPNOTE 4.3.12) the writer keeps for
//! each entry and writes at the end, with a Zip64 block holding whatever
//! does not fit 32 bits.

use crate::read::dos_time::DosDateTime;
use crate::write::extra_field;

/// "Version made by": Unix (3) in the high byte, APPNOTE 6.3 in the low.
const MADE_BY_UNIX: u16 = (3 << 8) | 63;

/// Version needed for Zip64 fields.
pub(crate) const VERSION_ZIP64: u16 = 45;

/// What the central directory says of one entry.
#[derive(Debug, Clone)]
pub(crate) struct CentralRecord {
    pub version_needed: u16,
    pub flags: u16,
    pub method: u16,
    pub dos_time: DosDateTime,
    pub crc32: u32,
    pub compressed_size: u64,
    pub uncompressed_size: u64,
    pub offset: u64,
    pub external_attributes: u32,
    pub name: Vec<u8>,
    /// Extra blocks other than Zip64 (which is added as needed).
    pub extra: Vec<u8>,
    pub comment: Vec<u8>,
}

impl CentralRecord {
    /// A record with nothing in it (allocates nothing).
    pub fn empty() -> Self {
        CentralRecord {
            version_needed: 0,
            flags: 0,
            method: 0,
            dos_time: DosDateTime::default(),
            crc32: 0,
            compressed_size: 0,
            uncompressed_size: 0,
            offset: 0,
            external_attributes: 0,
            name: Vec::new(),
            extra: Vec::new(),
            comment: Vec::new(),
        }
    }

    /// Appends the header.
    pub fn encode(&self, out: &mut Vec<u8>) {
        let big = |v: u64| v >= u64::from(u32::MAX);
        let mut zip64 = Vec::new();
        for v in [self.uncompressed_size, self.compressed_size, self.offset] {
            if big(v) {
                zip64.push(v);
            }
        }
        let mut extra = Vec::with_capacity(self.extra.len() + 28);
        if !zip64.is_empty() {
            extra_field::zip64(&mut extra, &zip64);
        }
        extra.extend_from_slice(&self.extra);
        let field = |v: u64| if big(v) { u32::MAX } else { v as u32 };
        let version_needed = if zip64.is_empty() {
            self.version_needed
        } else {
            self.version_needed.max(VERSION_ZIP64)
        };
        out.extend_from_slice(&0x0201_4b50u32.to_le_bytes());
        for w in [
            MADE_BY_UNIX,
            version_needed,
            self.flags,
            self.method,
            self.dos_time.time,
            self.dos_time.date,
        ] {
            out.extend_from_slice(&w.to_le_bytes());
        }
        out.extend_from_slice(&self.crc32.to_le_bytes());
        out.extend_from_slice(&field(self.compressed_size).to_le_bytes());
        out.extend_from_slice(&field(self.uncompressed_size).to_le_bytes());
        for w in [
            self.name.len() as u16,
            extra.len() as u16,
            self.comment.len() as u16,
            0, // disk number start
            0, // internal attributes
        ] {
            out.extend_from_slice(&w.to_le_bytes());
        }
        out.extend_from_slice(&self.external_attributes.to_le_bytes());
        out.extend_from_slice(&field(self.offset).to_le_bytes());
        out.extend_from_slice(&self.name);
        out.extend_from_slice(&extra);
        out.extend_from_slice(&self.comment);
    }
}
