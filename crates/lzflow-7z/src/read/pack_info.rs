//! PackInfo: where the packed streams lie and how long they are.

use crate::read::byte_reader::ByteReader;
use crate::read::property_id as id;
use crate::SevenZError;

/// The packed streams of a streams info.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PackInfo {
    /// Offset of the first packed stream after the signature header.
    pub pack_pos: u64,
    /// Size of each packed stream, in order.
    pub sizes: Vec<u64>,
    /// Optional CRC32 of each packed stream.
    pub crcs: Vec<Option<u32>>,
}

impl PackInfo {
    /// Parses the record after its `kPackInfo` ID. As in 7-Zip the sizes
    /// must be there, and unknown properties around them are skipped.
    pub(crate) fn parse(r: &mut ByteReader<'_>) -> Result<Self, SevenZError> {
        let pack_pos = r.number()?;
        let n = r.count("pack stream")?;
        let mut info = PackInfo {
            pack_pos,
            sizes: vec![0; n],
            crcs: vec![None; n],
        };
        r.wait_id(id::SIZE, "kSize")?;
        for size in info.sizes.iter_mut() {
            *size = r.number()?;
        }
        loop {
            match r.id()? {
                id::END => break,
                id::CRC => info.crcs = r.digests(n)?,
                _ => r.skip_data()?,
            }
        }
        // The streams must fit in a file: their end cannot overflow.
        let mut end = pack_pos;
        for &s in &info.sizes {
            end = end
                .checked_add(s)
                .ok_or_else(|| SevenZError::corrupt("pack sizes overflow"))?;
        }
        Ok(info)
    }

    /// Offset (after the signature header) of each packed stream.
    pub fn offsets(&self) -> Vec<u64> {
        let mut pos = self.pack_pos;
        self.sizes
            .iter()
            .map(|s| {
                let at = pos;
                pos += s;
                at
            })
            .collect()
    }
}
