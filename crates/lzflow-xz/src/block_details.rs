//! What each Block's header says, and its stored check, read at the
//! offsets an [`XzInfo`] gives: what `xz --list -vv` adds to `-v`.
//!
//! Only the headers and checks are read (a few dozen bytes per Block), no
//! data is decoded; so the check values are the stored ones, not verified.

use std::io::{Read, Seek, SeekFrom};

use lzflow_filters::FilterConfig;
use lzflow_lzma::lzma2_dict_size;
use lzflow_methods::Properties;

use crate::block_header::{header_size, BlockHeader, BLOCK_HEADER_SIZE_MAX};
use crate::info::XzInfo;
use crate::stream_flags::STREAM_HEADER_SIZE;
use crate::{check_size_of_id, XzError};

/// One Block's header fields and its stored check.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct BlockDetails {
    /// Size of the Block Header in bytes, 8..=1024.
    pub header_size: u32,
    /// The header's Compressed Size field, when it has one.
    pub compressed_size_field: Option<u64>,
    /// The header's Uncompressed Size field, when it has one.
    pub uncompressed_size_field: Option<u64>,
    /// Size of the Compressed Data: the Index's Unpadded Size less the
    /// header and the check.
    pub compressed_size: u64,
    /// Decoded size, from the Index.
    pub uncompressed_size: u64,
    /// The filters before LZMA2, in the header's order.
    pub filters: Vec<FilterConfig>,
    /// LZMA2's dictionary size.
    pub dict_size: u32,
    /// Bytes lzflow's decoder needs for this Block's filter chain (what a
    /// decoder's memory limit is checked against).
    pub memory_usage: u64,
    /// The Check field as stored (empty for the None check).
    pub check_value: Vec<u8>,
}

/// Reads the header and the check of every Block of the file that `info`
/// describes ([`read_info`](crate::info::read_info) over the same bytes),
/// in file order.
///
/// Headers are checked as the decoder checks them (CRC32, reserved bits,
/// filters), and their size fields against the Index: a mismatch is
/// [`XzError::IndexRecordMismatch`].
pub fn read_block_details<R: Read + Seek>(
    mut r: R,
    info: &XzInfo,
) -> Result<Vec<BlockDetails>, XzError> {
    let mut details = Vec::with_capacity(info.block_count().min(1 << 16));
    let mut buf = [0u8; BLOCK_HEADER_SIZE_MAX];
    let mut stream_start = 0u64;
    for stream in &info.streams {
        let check_size = check_size_of_id(stream.check_id);
        let mut at = stream_start + STREAM_HEADER_SIZE as u64;
        for (i, block) in stream.blocks.iter().enumerate() {
            let record = i as u64 + 1;
            r.seek(SeekFrom::Start(at))?;
            r.read_exact(&mut buf[..1])?;
            if buf[0] == 0 {
                return Err(XzError::BlockHeader {
                    reason: "the Index starts where it lists a Block",
                });
            }
            let size = header_size(buf[0]);
            r.read_exact(&mut buf[1..size])?;
            let header = BlockHeader::decode(&buf[..size], check_size)?;
            let overhead = (size + check_size) as u64;
            let compressed_size = block
                .unpadded_size
                .checked_sub(overhead)
                .filter(|&n| n > 0)
                .ok_or(XzError::IndexInvalid {
                    reason: "an Unpadded Size is smaller than its Block's header and check",
                })?;
            if let Some(field) = header.compressed_size {
                if field != compressed_size {
                    return Err(XzError::IndexRecordMismatch {
                        record,
                        field: "unpadded size",
                        expected: field + overhead,
                        found: block.unpadded_size,
                    });
                }
            }
            if let Some(field) = header.uncompressed_size {
                if field != block.uncompressed_size {
                    return Err(XzError::IndexRecordMismatch {
                        record,
                        field: "uncompressed size",
                        expected: field,
                        found: block.uncompressed_size,
                    });
                }
            }
            // The check ends the Block, after the padding.
            let mut check_value = vec![0; check_size];
            r.seek(SeekFrom::Start(at + block.total_size() - check_size as u64))?;
            r.read_exact(&mut check_value)?;
            let dict_size = lzma2_dict_size(header.lzma2_props)?;
            let memory_usage = std::iter::once(Properties::Lzma2 { dict_size })
                .chain(header.filters.iter().cloned().map(Properties::Filter))
                .map(|p| p.decoder_memory(None))
                .fold(0u64, u64::saturating_add);
            details.push(BlockDetails {
                header_size: size as u32,
                compressed_size_field: header.compressed_size,
                uncompressed_size_field: header.uncompressed_size,
                compressed_size,
                uncompressed_size: block.uncompressed_size,
                filters: header.filters,
                dict_size,
                memory_usage,
                check_value,
            });
            at += block.total_size();
        }
        stream_start += stream.compressed_size + stream.padding;
    }
    Ok(details)
}

#[cfg(test)]
mod tests {
    use std::io::Cursor;

    use lzflow_filters::{FilterConfig, FilterKind};

    use super::*;
    use crate::info::read_info;
    use crate::{Check, XzEncoder, XzEncoderOptions};

    fn xz(data: &[u8], opts: XzEncoderOptions) -> Vec<u8> {
        let mut enc = XzEncoder::new(opts).unwrap();
        let mut out = Vec::new();
        let mut scratch = vec![0u8; 1 << 16];
        lzflow_core::encode_to_end(&mut enc, data, &mut out, &mut scratch).unwrap();
        out
    }

    #[test]
    fn headers_and_checks_of_every_block_of_every_stream() {
        let data: Vec<u8> = (0..70_000u32).map(|i| (i % 251) as u8).collect();
        let a = XzEncoderOptions::preset(1)
            .unwrap()
            .with_check(Check::Crc32)
            .with_block_size(Some(30_000));
        let b = XzEncoderOptions::preset(0)
            .unwrap()
            .with_check(Check::Sha256)
            .with_filters(vec![
                FilterConfig::new(FilterKind::Delta).with_distance(4),
                FilterConfig::new(FilterKind::X86).with_start_offset(16),
            ]);
        let mut file = xz(&data, a);
        // Stream Padding between the streams.
        file.extend_from_slice(&[0; 8]);
        file.extend(xz(b"hello", b));
        let info = read_info(Cursor::new(&file)).unwrap();
        let details = read_block_details(Cursor::new(&file), &info).unwrap();
        assert_eq!(details.len(), 4);
        let crc32 = |range: std::ops::Range<usize>| crc32fast::hash(&data[range]).to_le_bytes();
        for (d, range) in details
            .iter()
            .zip([0..30_000, 30_000..60_000, 60_000..70_000])
        {
            assert_eq!(d.check_value, crc32(range));
            assert!(d.filters.is_empty());
            assert_eq!(d.dict_size, 1 << 20);
            assert!(d.memory_usage > 1 << 20 && d.memory_usage < (1 << 20) + (512 << 10));
        }
        let last = &details[3];
        let sha = {
            use sha2::Digest;
            sha2::Sha256::digest(b"hello").to_vec()
        };
        assert_eq!(last.check_value, sha);
        assert_eq!(
            last.filters,
            vec![
                FilterConfig::new(FilterKind::Delta).with_distance(4),
                FilterConfig::new(FilterKind::X86).with_start_offset(16),
            ]
        );
        assert_eq!(last.dict_size, 256 << 10);
        // The sizes add up to the Index's.
        let block = &info.streams[1].blocks[0];
        assert_eq!(
            u64::from(last.header_size) + last.compressed_size + 32,
            block.unpadded_size
        );
    }

    #[test]
    fn a_header_that_disagrees_with_the_index_is_an_error() {
        let opts = XzEncoderOptions::preset(0).unwrap();
        let mut file = xz(b"some bytes", opts);
        let info = read_info(Cursor::new(&file)).unwrap();
        // A block header that is not one where the index says.
        file[12] = 0;
        assert!(matches!(
            read_block_details(Cursor::new(&file), &info),
            Err(XzError::BlockHeader { .. })
        ));
    }
}
