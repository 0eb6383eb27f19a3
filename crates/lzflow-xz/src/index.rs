//! Index (spec section 4): the Index Indicator, Number of Records, one
//! Record (Unpadded Size, Uncompressed Size) per Block, Index Padding and a
//! CRC32. Read incrementally so that a huge Index costs no memory.

use lzflow_core::InBuf;

use crate::block_header::{UNPADDED_SIZE_MAX, UNPADDED_SIZE_MIN};
use crate::vli::{self, VliError, VliReader, VLI_MAX};
use crate::XzError;

/// One Index Record: what the Index says about a Block.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct IndexRecord {
    /// Block Header + Compressed Data + Check, without Block Padding.
    pub(crate) unpadded_size: u64,
    /// Bytes the Block decodes to.
    pub(crate) uncompressed_size: u64,
}

/// What [`IndexDecoder::decode`] found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum IndexEvent {
    /// All input was consumed; more is needed.
    NeedInput,
    /// The Number of Records field.
    Count(u64),
    /// The next Record.
    Record(IndexRecord),
    /// The CRC32 matched; the Index is complete.
    End,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Field {
    Count,
    Unpadded,
    Uncompressed,
    Padding,
    Crc,
    Done,
}

/// Incremental Index reader, started after the Index Indicator byte.
#[derive(Debug, Clone)]
pub(crate) struct IndexDecoder {
    field: Field,
    vli: VliReader,
    remaining: u64,
    unpadded: u64,
    crc: crc32fast::Hasher,
    crc_bytes: [u8; 4],
    crc_have: usize,
    size: u64,
    blocks_size: u64,
    uncompressed: u64,
}

impl Default for IndexDecoder {
    fn default() -> Self {
        let mut crc = crc32fast::Hasher::new();
        crc.update(&[0]);
        IndexDecoder {
            field: Field::Count,
            vli: VliReader::default(),
            remaining: 0,
            unpadded: 0,
            crc,
            crc_bytes: [0; 4],
            crc_have: 0,
            size: 1,
            blocks_size: 0,
            uncompressed: 0,
        }
    }
}

impl IndexDecoder {
    /// Size of the Index so far, the Indicator included; once
    /// [`IndexEvent::End`] was returned, the whole Index size.
    pub(crate) fn size(&self) -> u64 {
        self.size
    }

    /// Sum of the Blocks' sizes with Block Padding, as listed so far.
    pub(crate) fn blocks_size(&self) -> u64 {
        self.blocks_size
    }

    /// Sum of the Blocks' uncompressed sizes, as listed so far.
    pub(crate) fn uncompressed_size(&self) -> u64 {
        self.uncompressed
    }

    /// Consumes input up to and including the next event.
    pub(crate) fn decode(&mut self, input: &mut InBuf<'_>) -> Result<IndexEvent, XzError> {
        loop {
            if self.field == Field::Done {
                return Ok(IndexEvent::End);
            }
            let Some(byte) = input.take_byte() else {
                return Ok(IndexEvent::NeedInput);
            };
            self.size += 1;
            if self.field == Field::Crc {
                self.crc_bytes[self.crc_have] = byte;
                self.crc_have += 1;
                if self.crc_have == 4 {
                    let stored = u32::from_le_bytes(self.crc_bytes);
                    let computed = self.crc.clone().finalize();
                    if stored != computed {
                        return Err(XzError::IndexCrc { stored, computed });
                    }
                    self.field = Field::Done;
                    return Ok(IndexEvent::End);
                }
                continue;
            }
            self.crc.update(&[byte]);
            if self.field == Field::Padding {
                if byte != 0 {
                    return Err(XzError::IndexPadding);
                }
                if self.size.is_multiple_of(4) {
                    self.field = Field::Crc;
                }
                continue;
            }
            let value = match self.vli.push(byte) {
                Ok(None) => continue,
                Ok(Some(v)) => v,
                Err(VliError::Invalid | VliError::Incomplete) => {
                    return Err(XzError::IndexInvalid {
                        reason: "a field is not a valid variable-length integer",
                    })
                }
            };
            match self.field {
                Field::Count => {
                    self.remaining = value;
                    self.field = self.after_record();
                    return Ok(IndexEvent::Count(value));
                }
                Field::Unpadded => {
                    if value < UNPADDED_SIZE_MIN {
                        return Err(XzError::IndexInvalid {
                            reason: "an Unpadded Size is smaller than the minimum of 5",
                        });
                    }
                    if value > UNPADDED_SIZE_MAX {
                        return Err(XzError::IndexInvalid {
                            reason: "an Unpadded Size is larger than the maximum",
                        });
                    }
                    self.unpadded = value;
                    self.field = Field::Uncompressed;
                }
                Field::Uncompressed => {
                    let record = IndexRecord {
                        unpadded_size: self.unpadded,
                        uncompressed_size: value,
                    };
                    self.blocks_size = self
                        .blocks_size
                        .checked_add(record.unpadded_size.next_multiple_of(4))
                        .filter(|&s| s <= VLI_MAX)
                        .ok_or(XzError::SizeOverflow {
                            what: "total size of the blocks",
                        })?;
                    self.uncompressed = self
                        .uncompressed
                        .checked_add(value)
                        .filter(|&s| s <= VLI_MAX)
                        .ok_or(XzError::SizeOverflow {
                            what: "total uncompressed size",
                        })?;
                    self.remaining -= 1;
                    self.field = self.after_record();
                    return Ok(IndexEvent::Record(record));
                }
                Field::Padding | Field::Crc | Field::Done => unreachable!(),
            }
        }
    }

    fn after_record(&self) -> Field {
        if self.remaining > 0 {
            Field::Unpadded
        } else if self.size.is_multiple_of(4) {
            Field::Crc
        } else {
            Field::Padding
        }
    }
}

/// Size of an Index with these records, in bytes.
pub(crate) fn index_size(records: &[IndexRecord]) -> u64 {
    let fields: usize = records
        .iter()
        .map(|r| vli::encoded_len(r.unpadded_size) + vli::encoded_len(r.uncompressed_size))
        .sum();
    (1 + vli::encoded_len(records.len() as u64) + fields + 4).next_multiple_of(4) as u64
}

/// Serializes an Index.
pub(crate) fn encode_index(records: &[IndexRecord], out: &mut Vec<u8>) {
    let start = out.len();
    out.push(0);
    vli::encode(records.len() as u64, out);
    for r in records {
        vli::encode(r.unpadded_size, out);
        vli::encode(r.uncompressed_size, out);
    }
    while !(out.len() - start).is_multiple_of(4) {
        out.push(0);
    }
    let crc = crc32fast::hash(&out[start..]);
    out.extend_from_slice(&crc.to_le_bytes());
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(bytes: &[u8]) -> Result<(u64, Vec<IndexRecord>, u64), XzError> {
        assert_eq!(bytes[0], 0);
        let mut dec = IndexDecoder::default();
        let mut records = Vec::new();
        let mut count = None;
        // One byte at a time to exercise resumption.
        for b in &bytes[1..] {
            let mut input = InBuf::new(std::slice::from_ref(b));
            loop {
                match dec.decode(&mut input)? {
                    IndexEvent::NeedInput => break,
                    IndexEvent::Count(n) => count = Some(n),
                    IndexEvent::Record(r) => records.push(r),
                    IndexEvent::End => return Ok((count.unwrap(), records, dec.size())),
                }
            }
        }
        Err(XzError::Truncated { during: "index" })
    }

    #[test]
    fn round_trip() {
        let records = vec![
            IndexRecord {
                unpadded_size: 5,
                uncompressed_size: 0,
            },
            IndexRecord {
                unpadded_size: 1000,
                uncompressed_size: 1 << 33,
            },
        ];
        let mut bytes = Vec::new();
        encode_index(&records, &mut bytes);
        assert_eq!(bytes.len() as u64, index_size(&records));
        assert_eq!(parse(&bytes).unwrap(), (2, records, bytes.len() as u64));
    }

    #[test]
    fn empty_index_matches_xz() {
        let mut bytes = Vec::new();
        encode_index(&[], &mut bytes);
        assert_eq!(bytes, [0x00, 0x00, 0x00, 0x00, 0x1C, 0xDF, 0x44, 0x21]);
    }

    #[test]
    fn rejects_corruption() {
        let records = [IndexRecord {
            unpadded_size: 200,
            uncompressed_size: 7,
        }];
        let mut bytes = Vec::new();
        encode_index(&records, &mut bytes);
        let mut bad = bytes.clone();
        *bad.last_mut().unwrap() ^= 1;
        assert!(matches!(parse(&bad), Err(XzError::IndexCrc { .. })));

        // Non-zero padding (the CRC is fixed up so padding is what fails).
        assert_eq!(bytes.len(), 12, "5 bytes of fields, 3 of padding, CRC32");
        let mut bad = bytes.clone();
        bad[6] = 1;
        let crc = crc32fast::hash(&bad[..8]);
        bad[8..].copy_from_slice(&crc.to_le_bytes());
        assert!(matches!(parse(&bad), Err(XzError::IndexPadding)));

        let mut bad = bytes.clone();
        bad[2] = 0;
        assert!(matches!(parse(&bad), Err(XzError::IndexInvalid { .. })));
    }
}
