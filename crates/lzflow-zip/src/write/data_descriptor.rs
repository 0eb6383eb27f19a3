//! The data descriptor (APPNOTE 4.3.9) after an entry's data, always with
//! its signature; 8-byte sizes when either needs them.

use crate::DataDescriptor;

impl DataDescriptor {
    /// Appends the descriptor, with the signature; `zip64` for 8-byte
    /// sizes.
    pub(crate) fn encode(&self, zip64: bool, out: &mut Vec<u8>) {
        out.extend_from_slice(&Self::SIGNATURE.to_le_bytes());
        out.extend_from_slice(&self.crc32.to_le_bytes());
        if zip64 {
            out.extend_from_slice(&self.compressed_size.to_le_bytes());
            out.extend_from_slice(&self.uncompressed_size.to_le_bytes());
        } else {
            out.extend_from_slice(&(self.compressed_size as u32).to_le_bytes());
            out.extend_from_slice(&(self.uncompressed_size as u32).to_le_bytes());
        }
    }
}
