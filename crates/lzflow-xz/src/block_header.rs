//! Block Header (spec section 3.1): size, flags, optional sizes, the List of
//! Filter Flags, Header Padding and a CRC32.

use lzflow_filters::FilterConfig;
use lzflow_methods::Method;

use crate::vli::{self, VliError, VLI_MAX};
use crate::XzError;

/// Largest Block Header: the size byte encodes (n + 1) * 4 for n <= 255.
pub(crate) const BLOCK_HEADER_SIZE_MAX: usize = 1024;
/// Most filters in one chain.
pub(crate) const FILTERS_MAX: usize = 4;
/// Largest Unpadded Size of a Block (so that the Block stays below 2^63).
pub(crate) const UNPADDED_SIZE_MAX: u64 = VLI_MAX & !3;
/// Smallest Unpadded Size an Index Record may give (the format's bound).
pub(crate) const UNPADDED_SIZE_MIN: u64 = 5;

const FLAG_FILTER_COUNT: u8 = 0x03;
const FLAG_RESERVED: u8 = 0x3C;
const FLAG_COMPRESSED_SIZE: u8 = 0x40;
const FLAG_UNCOMPRESSED_SIZE: u8 = 0x80;

/// A decoded Block Header.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct BlockHeader {
    /// Size of the header in bytes, 8..=1024.
    pub(crate) header_size: usize,
    /// Compressed Size, when stored.
    pub(crate) compressed_size: Option<u64>,
    /// Uncompressed Size, when stored.
    pub(crate) uncompressed_size: Option<u64>,
    /// The filters before LZMA2, in XZ (encoding) order.
    pub(crate) filters: Vec<FilterConfig>,
    /// The LZMA2 properties byte (dictionary size).
    pub(crate) lzma2_props: u8,
}

/// The header size given by a Block Header Size byte (which must not be 0,
/// the Index Indicator).
pub(crate) fn header_size(size_byte: u8) -> usize {
    debug_assert_ne!(size_byte, 0);
    (usize::from(size_byte) + 1) * 4
}

/// Cursor over the header's fields (everything before the CRC32).
struct Fields<'a> {
    buf: &'a [u8],
    pos: usize,
}

impl Fields<'_> {
    fn vli(&mut self, field: &'static str) -> Result<u64, XzError> {
        match vli::decode(&self.buf[self.pos..]) {
            Ok((v, n)) => {
                self.pos += n;
                Ok(v)
            }
            Err(VliError::Invalid) => Err(XzError::BlockHeaderVli { field }),
            Err(VliError::Incomplete) => Err(XzError::BlockHeader {
                reason: "a field runs past the end of the header",
            }),
        }
    }
}

impl BlockHeader {
    /// Parses a complete Block Header (`buf.len()` is the size from its
    /// first byte). `check_size` is the stream's Check field size, needed to
    /// bound Compressed Size.
    pub(crate) fn decode(buf: &[u8], check_size: usize) -> Result<BlockHeader, XzError> {
        let size = buf.len();
        debug_assert!(size == header_size(buf[0]));
        let (fields, crc) = buf.split_at(size - 4);
        let stored = u32::from_le_bytes([crc[0], crc[1], crc[2], crc[3]]);
        let computed = crc32fast::hash(fields);
        if stored != computed {
            return Err(XzError::BlockHeaderCrc { stored, computed });
        }
        let flags = fields[1];
        if flags & FLAG_RESERVED != 0 {
            return Err(XzError::UnsupportedBlockHeader {
                reason: "reserved Block Flags bits are set",
            });
        }
        let mut f = Fields {
            buf: fields,
            pos: 2,
        };
        let compressed_size = if flags & FLAG_COMPRESSED_SIZE != 0 {
            let cs = f.vli("Compressed Size")?;
            if cs == 0 {
                return Err(XzError::BlockHeader {
                    reason: "Compressed Size is zero",
                });
            }
            let limit = UNPADDED_SIZE_MAX - (size + check_size) as u64;
            if cs > limit {
                return Err(XzError::BlockHeader {
                    reason: "Compressed Size is larger than a Block may be",
                });
            }
            Some(cs)
        } else {
            None
        };
        let uncompressed_size = if flags & FLAG_UNCOMPRESSED_SIZE != 0 {
            Some(f.vli("Uncompressed Size")?)
        } else {
            None
        };

        let count = usize::from(flags & FLAG_FILTER_COUNT) + 1;
        let mut filters = Vec::new();
        let mut lzma2_props = None;
        for i in 0..count {
            let id = f.vli("Filter ID")?;
            let props_len = f.vli("Size of Properties")?;
            let rest = (fields.len() - f.pos) as u64;
            if props_len > rest {
                return Err(XzError::BlockHeader {
                    reason: "Filter Properties run past the end of the header",
                });
            }
            let props = &fields[f.pos..f.pos + props_len as usize];
            f.pos += props_len as usize;
            let last = i + 1 == count;
            match Method::from_xz_id(id) {
                Some(Method::Lzma2) if !last => {
                    return Err(XzError::UnsupportedFilterChain {
                        reason: "LZMA2 is allowed only as the last filter",
                    });
                }
                Some(Method::Lzma2) => {
                    let [p] = props else {
                        return Err(XzError::BlockHeader {
                            reason: "LZMA2 properties must be exactly one byte",
                        });
                    };
                    lzflow_lzma::lzma2_dict_size(*p)?;
                    lzma2_props = Some(*p);
                }
                Some(Method::Filter(_)) if last => {
                    return Err(XzError::UnsupportedFilterChain {
                        reason: "the last filter must be LZMA2",
                    });
                }
                Some(Method::Filter(kind)) => {
                    filters.push(FilterConfig::from_xz_props(kind, props)?);
                }
                _ => return Err(XzError::UnsupportedFilter { id }),
            }
        }
        if fields[f.pos..].iter().any(|&b| b != 0) {
            return Err(XzError::UnsupportedBlockHeader {
                reason: "Header Padding is not zero",
            });
        }
        Ok(BlockHeader {
            header_size: size,
            compressed_size,
            uncompressed_size,
            filters,
            lzma2_props: lzma2_props.expect("the loop ends with LZMA2"),
        })
    }

    /// Serializes the header, choosing the smallest size.
    pub(crate) fn encode(&self) -> Result<Vec<u8>, XzError> {
        if self.filters.len() >= FILTERS_MAX {
            return Err(XzError::InvalidOptions {
                reason: "at most three filters may come before LZMA2",
            });
        }
        let mut out = vec![0, 0];
        let mut flags = self.filters.len() as u8;
        if let Some(cs) = self.compressed_size {
            flags |= FLAG_COMPRESSED_SIZE;
            vli::encode(cs, &mut out);
        }
        if let Some(us) = self.uncompressed_size {
            flags |= FLAG_UNCOMPRESSED_SIZE;
            vli::encode(us, &mut out);
        }
        for filter in &self.filters {
            filter.validate()?;
            let props = filter.xz_props();
            let id = Method::Filter(filter.kind)
                .xz_id()
                .ok_or(XzError::InvalidOptions {
                    reason: "the filter has no XZ ID",
                })?;
            vli::encode(id, &mut out);
            vli::encode(props.len() as u64, &mut out);
            out.extend_from_slice(&props);
        }
        // LZMA2's Filter ID (0x21) is one VLI byte.
        let lzma2 = Method::Lzma2.xz_id().expect("LZMA2 is an XZ filter") as u8;
        out.extend_from_slice(&[lzma2, 1, self.lzma2_props]);
        let size = (out.len() + 4).next_multiple_of(4);
        debug_assert!(size <= BLOCK_HEADER_SIZE_MAX);
        out.resize(size - 4, 0);
        out[0] = (size / 4 - 1) as u8;
        out[1] = flags;
        let crc = crc32fast::hash(&out);
        out.extend_from_slice(&crc.to_le_bytes());
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use lzflow_filters::FilterKind;

    use super::*;

    fn with_crc(mut fields: Vec<u8>) -> Vec<u8> {
        let crc = crc32fast::hash(&fields);
        fields.extend_from_slice(&crc.to_le_bytes());
        fields
    }

    #[test]
    fn round_trip_with_sizes_and_filters() {
        let header = BlockHeader {
            header_size: 0,
            compressed_size: Some(300),
            uncompressed_size: Some(1 << 40),
            filters: vec![
                FilterConfig::new(FilterKind::X86).with_start_offset(16),
                FilterConfig::new(FilterKind::Delta).with_distance(4),
            ],
            lzma2_props: 0x16,
        };
        let bytes = header.encode().unwrap();
        assert_eq!(bytes.len() % 4, 0);
        assert_eq!(header_size(bytes[0]), bytes.len());
        let decoded = BlockHeader::decode(&bytes, 8).unwrap();
        assert_eq!(
            decoded,
            BlockHeader {
                header_size: bytes.len(),
                ..header
            }
        );
    }

    #[test]
    fn minimal_header_matches_xz() {
        // What xz writes for a plain LZMA2 block with an 8 MiB dictionary.
        let header = BlockHeader {
            header_size: 0,
            compressed_size: None,
            uncompressed_size: None,
            filters: vec![],
            lzma2_props: 0x16,
        };
        let bytes = header.encode().unwrap();
        assert_eq!(
            &bytes[..8],
            &[0x02, 0x00, 0x21, 0x01, 0x16, 0x00, 0x00, 0x00]
        );
        assert_eq!(bytes.len(), 12);
    }

    #[test]
    fn rejects_bad_fields() {
        let h = with_crc(vec![0x02, 0x00, 0x21, 0x01, 0x16, 0x00, 0x00, 0x01]);
        assert!(matches!(
            BlockHeader::decode(&h, 4),
            Err(XzError::UnsupportedBlockHeader { .. })
        ));
        let h = with_crc(vec![0x02, 0x04, 0x21, 0x01, 0x16, 0x00, 0x00, 0x00]);
        assert!(matches!(
            BlockHeader::decode(&h, 4),
            Err(XzError::UnsupportedBlockHeader { .. })
        ));
        let h = with_crc(vec![0x02, 0x00, 0x7F, 0x00, 0x00, 0x00, 0x00, 0x00]);
        assert!(matches!(
            BlockHeader::decode(&h, 4),
            Err(XzError::UnsupportedFilter { id: 0x7F })
        ));
        let h = with_crc(vec![0x02, 0x00, 0x03, 0x01, 0x00, 0x00, 0x00, 0x00]);
        assert!(matches!(
            BlockHeader::decode(&h, 4),
            Err(XzError::UnsupportedFilterChain { .. })
        ));
        let h = with_crc(vec![0x02, 0x01, 0x21, 0x01, 0x16, 0x21, 0x01, 0x16]);
        assert!(matches!(
            BlockHeader::decode(&h, 4),
            Err(XzError::UnsupportedFilterChain { .. })
        ));
        // Compressed Size 0.
        let h = with_crc(vec![0x02, 0x40, 0x00, 0x21, 0x01, 0x16, 0x00, 0x00]);
        assert!(matches!(
            BlockHeader::decode(&h, 4),
            Err(XzError::BlockHeader { .. })
        ));
        // Non-minimal Uncompressed Size.
        let h = with_crc(vec![0x02, 0x80, 0x81, 0x00, 0x21, 0x01, 0x16, 0x00]);
        assert!(matches!(
            BlockHeader::decode(&h, 4),
            Err(XzError::BlockHeaderVli {
                field: "Uncompressed Size"
            })
        ));
        // Properties longer than the header.
        let h = with_crc(vec![0x02, 0x00, 0x21, 0x09, 0x16, 0x00, 0x00, 0x00]);
        assert!(matches!(
            BlockHeader::decode(&h, 4),
            Err(XzError::BlockHeader { .. })
        ));
        let mut h = with_crc(vec![0x02, 0x00, 0x21, 0x01, 0x16, 0x00, 0x00, 0x00]);
        h[9] ^= 1;
        assert!(matches!(
            BlockHeader::decode(&h, 4),
            Err(XzError::BlockHeaderCrc { .. })
        ));
        // Dictionary byte 41 is invalid.
        let h = with_crc(vec![0x02, 0x00, 0x21, 0x01, 41, 0x00, 0x00, 0x00]);
        assert!(matches!(
            BlockHeader::decode(&h, 4),
            Err(XzError::Lzma { .. })
        ));
    }
}
