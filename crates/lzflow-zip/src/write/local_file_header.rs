//! The local file header (APPNOTE 4.3.7) as the writer makes it: written
//! before the data with what is known, and, in a sink that can seek,
//! rewritten after it with the CRC-32 and sizes.

use crate::read::dos_time::DosDateTime;
use crate::write::central_directory::CentralRecord;
use crate::LocalFileHeader;

/// The fixed fields of a local header.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct LocalFields {
    pub version_needed: u16,
    pub flags: u16,
    pub method: u16,
    pub dos_time: DosDateTime,
    pub crc32: u32,
    pub compressed_size: u32,
    pub uncompressed_size: u32,
}

impl LocalFields {
    /// The fields of `record`'s entry with these CRC-32 and sizes (what
    /// the local header can say at the time it is written).
    pub fn of(
        record: &CentralRecord,
        crc32: u32,
        compressed_size: u32,
        uncompressed_size: u32,
    ) -> Self {
        LocalFields {
            version_needed: record.version_needed,
            flags: record.flags,
            method: record.method,
            dos_time: record.dos_time,
            crc32,
            compressed_size,
            uncompressed_size,
        }
    }

    /// The 30 fixed bytes for a name of `name_len` bytes and an extra
    /// field of `extra_len`.
    pub fn encode(&self, name_len: u16, extra_len: u16) -> [u8; LocalFileHeader::LEN] {
        let mut b = [0u8; LocalFileHeader::LEN];
        b[..4].copy_from_slice(&LocalFileHeader::SIGNATURE.to_le_bytes());
        let words = [
            self.version_needed,
            self.flags,
            self.method,
            self.dos_time.time,
            self.dos_time.date,
        ];
        for (i, w) in words.iter().enumerate() {
            b[4 + 2 * i..6 + 2 * i].copy_from_slice(&w.to_le_bytes());
        }
        b[14..18].copy_from_slice(&self.crc32.to_le_bytes());
        b[18..22].copy_from_slice(&self.compressed_size.to_le_bytes());
        b[22..26].copy_from_slice(&self.uncompressed_size.to_le_bytes());
        b[26..28].copy_from_slice(&name_len.to_le_bytes());
        b[28..30].copy_from_slice(&extra_len.to_le_bytes());
        b
    }
}
