//! Stream and Block sizes read backwards from the end of a file (Stream
//! Footer, then Index, then Stream Header), without decoding any data;
//! what `xz --list` shows.

use std::io::{Read, Seek, SeekFrom};

use lzflow_core::InBuf;

use crate::index::{IndexDecoder, IndexEvent};
use crate::stream_flags::{decode_footer, decode_header, HEADER_MAGIC, STREAM_HEADER_SIZE};
use crate::{Check, XzError};

/// Everything [`read_info`] learned about a file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct XzInfo {
    /// The streams in file order.
    pub streams: Vec<StreamInfo>,
}

impl XzInfo {
    /// Total decoded size of all streams; `None` if it does not fit in a
    /// `u64` (possible only for corrupt or hostile files).
    pub fn uncompressed_size(&self) -> Option<u64> {
        self.streams
            .iter()
            .try_fold(0u64, |acc, s| acc.checked_add(s.uncompressed_size))
    }

    /// Total size of the file: every stream and its padding.
    pub fn file_size(&self) -> u64 {
        self.streams
            .iter()
            .map(|s| s.compressed_size + s.padding)
            .sum()
    }

    /// Number of Blocks in all streams.
    pub fn block_count(&self) -> usize {
        self.streams.iter().map(|s| s.blocks.len()).sum()
    }
}

/// One stream.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StreamInfo {
    /// The stream's check. For a reserved check ID (which lzflow decodes
    /// without verifying) this is [`Check::None`] and
    /// [`check_id`](Self::check_id) holds the ID.
    pub check: Check,
    /// The check ID from Stream Flags, 0..=15.
    pub check_id: u8,
    /// The Blocks, in order.
    pub blocks: Vec<BlockInfo>,
    /// Stream Padding after this stream, in bytes.
    pub padding: u64,
    /// Size of the stream from Stream Header to Stream Footer inclusive.
    pub compressed_size: u64,
    /// Total decoded size of the stream's Blocks.
    pub uncompressed_size: u64,
}

/// One Block, as its Index Record describes it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BlockInfo {
    /// Block Header + Compressed Data + Check, without Block Padding.
    pub unpadded_size: u64,
    /// Bytes the Block decodes to.
    pub uncompressed_size: u64,
}

impl BlockInfo {
    /// Size of the Block in the file, Block Padding included.
    pub fn total_size(&self) -> u64 {
        self.unpadded_size.next_multiple_of(4)
    }
}

/// Reads the layout of an `.xz` file from its end without decoding data:
/// for each stream (last first) the footer, the Index it points to and the
/// header it implies, cross-checking them. Stream Padding is skipped.
///
/// Memory is bounded by the Index sizes actually read (a Record takes at
/// least two bytes of file). Errors are [`XzError`] variants as for
/// decoding, plus [`XzError::Io`] when the reader fails.
pub fn read_info<R: Read + Seek>(mut r: R) -> Result<XzInfo, XzError> {
    let mut pos = r.seek(SeekFrom::End(0))?;
    if pos == 0 {
        return Err(XzError::Truncated {
            during: "stream header",
        });
    }
    let mut streams = Vec::new();
    while pos > 0 {
        let padding = skip_padding_backwards(&mut r, pos)?;
        pos -= padding;
        if pos < 2 * STREAM_HEADER_SIZE as u64 {
            // Zero bytes or garbage before the first stream, or a file too
            // small to be XZ.
            return Err(if pos == 0 || !streams.is_empty() {
                XzError::NotXz
            } else {
                too_small(&mut r)?
            });
        }
        let footer = read_array(&mut r, pos - STREAM_HEADER_SIZE as u64)?;
        let (flags, index_size) = decode_footer(&footer).map_err(|e| {
            // A file that is not XZ at all fails here first.
            match (&e, streams.is_empty() && padding == 0) {
                (XzError::StreamFooterMagic, true) => not_xz(&mut r).unwrap_or(e),
                _ => e,
            }
        })?;
        let footer_start = pos - STREAM_HEADER_SIZE as u64;
        if index_size > footer_start - STREAM_HEADER_SIZE as u64 {
            return Err(XzError::IndexInvalid {
                reason: "the Backward Size points before the start of the stream",
            });
        }
        let index_start = footer_start - index_size;
        let (blocks, blocks_size, uncompressed_size) = read_index(&mut r, index_start, index_size)?;
        let stream_size = (STREAM_HEADER_SIZE as u64 * 2)
            .checked_add(blocks_size)
            .and_then(|s| s.checked_add(index_size))
            .filter(|&s| s <= pos)
            .ok_or(XzError::IndexInvalid {
                reason: "the Index lists more Block data than the file holds",
            })?;
        let start = pos - stream_size;
        let header = read_array(&mut r, start)?;
        if header[..HEADER_MAGIC.len()] != HEADER_MAGIC {
            return Err(if start == 0 {
                XzError::NotXz
            } else {
                XzError::IndexInvalid {
                    reason: "the Index does not lead back to a Stream Header",
                }
            });
        }
        let header_flags = decode_header(&header)?;
        if header_flags != flags {
            return Err(XzError::StreamFlagsMismatch {
                header_check: header_flags.check_id,
                footer_check: flags.check_id,
            });
        }
        streams.push(StreamInfo {
            check: flags.check().unwrap_or(Check::None),
            check_id: flags.check_id,
            blocks,
            padding,
            compressed_size: stream_size,
            uncompressed_size,
        });
        pos = start;
    }
    streams.reverse();
    Ok(XzInfo { streams })
}

fn read_array<R: Read + Seek>(r: &mut R, at: u64) -> Result<[u8; STREAM_HEADER_SIZE], XzError> {
    let mut buf = [0; STREAM_HEADER_SIZE];
    r.seek(SeekFrom::Start(at))?;
    r.read_exact(&mut buf)?;
    Ok(buf)
}

/// The error for a file too small to hold a stream.
fn too_small<R: Read + Seek>(r: &mut R) -> Result<XzError, XzError> {
    Ok(not_xz(r).unwrap_or(XzError::Truncated {
        during: "stream footer",
    }))
}

/// `Some(NotXz)` when the file does not start with the magic bytes.
fn not_xz<R: Read + Seek>(r: &mut R) -> Option<XzError> {
    let mut magic = [0; HEADER_MAGIC.len()];
    r.seek(SeekFrom::Start(0)).ok()?;
    let n = read_up_to(r, &mut magic).ok()?;
    (magic[..n] != HEADER_MAGIC[..n] || n == 0).then_some(XzError::NotXz)
}

fn read_up_to<R: Read>(r: &mut R, buf: &mut [u8]) -> std::io::Result<usize> {
    let mut n = 0;
    while n < buf.len() {
        match r.read(&mut buf[n..]) {
            Ok(0) => break,
            Ok(k) => n += k,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(n)
}

/// Counts the zero bytes that end the file before `end`, in whole 4-byte
/// groups as the format requires.
fn skip_padding_backwards<R: Read + Seek>(r: &mut R, end: u64) -> Result<u64, XzError> {
    if end % 4 != 0 {
        // Streams and padding are all multiples of four bytes.
        return Err(XzError::StreamPadding { len: end % 4 });
    }
    let mut buf = [0u8; 4096];
    let mut pos = end;
    while pos > 0 {
        let n = (pos.min(buf.len() as u64)) as usize;
        r.seek(SeekFrom::Start(pos - n as u64))?;
        r.read_exact(&mut buf[..n])?;
        let zeros = buf[..n].iter().rev().take_while(|&&b| b == 0).count();
        let whole = zeros - zeros % 4;
        pos -= whole as u64;
        if whole < n {
            break;
        }
    }
    Ok(end - pos)
}

/// Parses the Index at `start`, which must be exactly `size` bytes.
fn read_index<R: Read + Seek>(
    r: &mut R,
    start: u64,
    size: u64,
) -> Result<(Vec<BlockInfo>, u64, u64), XzError> {
    r.seek(SeekFrom::Start(start))?;
    let mut reader = r.take(size);
    let mut buf = [0u8; 8192];
    let mut first = true;
    let mut dec = IndexDecoder::default();
    let mut blocks = Vec::new();
    loop {
        let n = read_up_to(&mut reader, &mut buf)?;
        if n == 0 {
            return Err(XzError::BackwardSizeMismatch {
                footer: size,
                index: size + 1,
            });
        }
        let mut chunk = &buf[..n];
        if first {
            if chunk[0] != 0 {
                return Err(XzError::IndexInvalid {
                    reason: "the Backward Size does not point to an Index",
                });
            }
            chunk = &chunk[1..];
            first = false;
        }
        let mut input = InBuf::new(chunk);
        loop {
            match dec.decode(&mut input)? {
                IndexEvent::NeedInput => break,
                IndexEvent::Count(_) => {}
                IndexEvent::Record(rec) => blocks.push(BlockInfo {
                    unpadded_size: rec.unpadded_size,
                    uncompressed_size: rec.uncompressed_size,
                }),
                IndexEvent::End => {
                    if dec.size() != size {
                        return Err(XzError::BackwardSizeMismatch {
                            footer: size,
                            index: dec.size(),
                        });
                    }
                    return Ok((blocks, dec.blocks_size(), dec.uncompressed_size()));
                }
            }
        }
    }
}
