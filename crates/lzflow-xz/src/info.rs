//! Stream and Block sizes read backwards from the end of a file (Stream
//! Footer, then Index, then Stream Header), without decoding any data;
//! what `xz --list` shows.

use std::io::{Read, Seek, SeekFrom};

use lzflow_core::InBuf;

use crate::index::{IndexDecoder, IndexEvent};
use crate::stream_flags::{
    decode_footer, decode_header, StreamFlags, HEADER_MAGIC, STREAM_HEADER_SIZE,
};
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
/// decoding, plus [`XzError::Io`] when the reader fails. This drives a
/// [`LayoutReader`] with blocking reads.
pub fn read_info<R: Read + Seek>(mut r: R) -> Result<XzInfo, XzError> {
    let len = r.seek(SeekFrom::End(0))?;
    let mut layout = LayoutReader::new(len);
    let mut buf = Vec::new();
    while let Some((at, n)) = layout.request() {
        buf.resize(n, 0);
        r.seek(SeekFrom::Start(at))?;
        r.read_exact(&mut buf)?;
        layout.feed(&buf)?;
    }
    layout.finish()
}

/// Bytes asked for at a time while skipping Stream Padding or reading an
/// Index.
const READ_STEP: u64 = 8192;

/// Where a [`LayoutReader`] stands.
#[derive(Debug)]
enum Step {
    /// Counting the zero bytes that end the file (or the previous stream)
    /// before `pos`; `end` is where the padding ends.
    Padding {
        end: u64,
        pos: u64,
    },
    /// Reading the Stream Footer that ends at `end`.
    Footer {
        end: u64,
        padding: u64,
    },
    /// Reading the Index at `start`, `size` bytes, `done` of them so far.
    Index {
        start: u64,
        size: u64,
        done: u64,
        dec: IndexDecoder,
        blocks: Vec<BlockInfo>,
        flags: StreamFlags,
        end: u64,
        padding: u64,
    },
    /// Reading the Stream Header at `start`.
    Header {
        start: u64,
        flags: StreamFlags,
        blocks: Vec<BlockInfo>,
        padding: u64,
        size: u64,
        uncompressed: u64,
    },
    /// Looking at the file's first bytes to tell "not XZ at all" from
    /// `otherwise`.
    Magic {
        otherwise: XzError,
    },
    Done,
}

/// The layout of an `.xz` file read from its end, without I/O of its own:
/// it asks for byte ranges ([`request`](Self::request)) and is handed them
/// ([`feed`](Self::feed)), so blocking and async readers drive the same
/// code. [`read_info`] is the blocking driver.
#[derive(Debug)]
pub struct LayoutReader {
    len: u64,
    step: Step,
    streams: Vec<StreamInfo>,
}

impl LayoutReader {
    /// A reader of a file of `len` bytes.
    pub fn new(len: u64) -> Self {
        let step = if len == 0 {
            Step::Magic {
                otherwise: XzError::Truncated {
                    during: "stream header",
                },
            }
        } else {
            Step::Padding { end: len, pos: len }
        };
        LayoutReader {
            len,
            step,
            streams: Vec::new(),
        }
    }

    /// The bytes wanted next: offset and length. `None` once the layout is
    /// complete ([`finish`](Self::finish)).
    pub fn request(&self) -> Option<(u64, usize)> {
        let header = STREAM_HEADER_SIZE;
        Some(match &self.step {
            Step::Padding { pos, .. } => {
                let n = (*pos).min(READ_STEP);
                (pos - n, n as usize)
            }
            Step::Footer { end, .. } => (end - header as u64, header),
            Step::Index {
                start, size, done, ..
            } => (start + done, (size - done).min(READ_STEP) as usize),
            Step::Header { start, .. } => (*start, header),
            Step::Magic { .. } => (0, self.len.min(HEADER_MAGIC.len() as u64) as usize),
            Step::Done => return None,
        })
    }

    /// Takes the bytes of the last [`request`](Self::request).
    pub fn feed(&mut self, data: &[u8]) -> Result<(), XzError> {
        let step = std::mem::replace(&mut self.step, Step::Done);
        self.step = match step {
            Step::Padding { end, pos } => self.padding(end, pos, data)?,
            Step::Footer { end, padding } => self.footer(end, padding, data)?,
            step @ Step::Index { .. } => index(step, data)?,
            Step::Header {
                start,
                flags,
                blocks,
                padding,
                size,
                uncompressed,
            } => {
                if data[..HEADER_MAGIC.len()] != HEADER_MAGIC {
                    return Err(if start == 0 {
                        XzError::NotXz
                    } else {
                        XzError::IndexInvalid {
                            reason: "the Index does not lead back to a Stream Header",
                        }
                    });
                }
                let header_flags = decode_header(data.try_into().expect("a header"))?;
                if header_flags != flags {
                    return Err(XzError::StreamFlagsMismatch {
                        header_check: header_flags.check_id,
                        footer_check: flags.check_id,
                    });
                }
                self.streams.push(StreamInfo {
                    check: flags.check().unwrap_or(Check::None),
                    check_id: flags.check_id,
                    blocks,
                    padding,
                    compressed_size: size,
                    uncompressed_size: uncompressed,
                });
                if start == 0 {
                    Step::Done
                } else {
                    Step::Padding {
                        end: start,
                        pos: start,
                    }
                }
            }
            Step::Magic { otherwise } => {
                let n = data.len();
                // An empty file is a truncated one, not a foreign one.
                return Err(
                    if self.len > 0 && (n == 0 || data[..n] != HEADER_MAGIC[..n]) {
                        XzError::NotXz
                    } else {
                        otherwise
                    },
                );
            }
            Step::Done => Step::Done,
        };
        Ok(())
    }

    /// The layout, once [`request`](Self::request) says nothing more is
    /// needed.
    pub fn finish(mut self) -> Result<XzInfo, XzError> {
        if !matches!(self.step, Step::Done) {
            return Err(XzError::Truncated {
                during: "stream footer",
            });
        }
        self.streams.reverse();
        Ok(XzInfo {
            streams: self.streams,
        })
    }

    /// Counts zero bytes back from `pos` in whole 4-byte groups, as the
    /// format requires.
    fn padding(&self, end: u64, pos: u64, data: &[u8]) -> Result<Step, XzError> {
        if !end.is_multiple_of(4) {
            // Streams and padding are all multiples of four bytes.
            return Err(XzError::StreamPadding { len: end % 4 });
        }
        let zeros = data.iter().rev().take_while(|&&b| b == 0).count();
        let whole = (zeros - zeros % 4) as u64;
        let pos = pos - whole;
        if whole == data.len() as u64 && pos > 0 {
            return Ok(Step::Padding { end, pos });
        }
        let padding = end - pos;
        if pos < 2 * STREAM_HEADER_SIZE as u64 {
            // Zero bytes or garbage before the first stream, or a file too
            // small to be XZ.
            if pos == 0 || !self.streams.is_empty() {
                return Err(XzError::NotXz);
            }
            return Ok(Step::Magic {
                otherwise: XzError::Truncated {
                    during: "stream footer",
                },
            });
        }
        Ok(Step::Footer { end: pos, padding })
    }

    fn footer(&self, end: u64, padding: u64, data: &[u8]) -> Result<Step, XzError> {
        let footer: &[u8; STREAM_HEADER_SIZE] = data.try_into().expect("a footer");
        let (flags, index_size) = match decode_footer(footer) {
            Ok(v) => v,
            // A file that is not XZ at all fails here first.
            Err(e @ XzError::StreamFooterMagic) if self.streams.is_empty() && padding == 0 => {
                return Ok(Step::Magic { otherwise: e })
            }
            Err(e) => return Err(e),
        };
        let footer_start = end - STREAM_HEADER_SIZE as u64;
        if index_size > footer_start - STREAM_HEADER_SIZE as u64 {
            return Err(XzError::IndexInvalid {
                reason: "the Backward Size points before the start of the stream",
            });
        }
        Ok(Step::Index {
            start: footer_start - index_size,
            size: index_size,
            done: 0,
            dec: IndexDecoder::default(),
            blocks: Vec::new(),
            flags,
            end,
            padding,
        })
    }
}

/// Takes the next piece of an Index (`data`, at `done` bytes into it).
fn index(step: Step, data: &[u8]) -> Result<Step, XzError> {
    let Step::Index {
        start,
        size,
        done,
        mut dec,
        mut blocks,
        flags,
        end,
        padding,
    } = step
    else {
        unreachable!("called in the Index step")
    };
    let mut chunk = data;
    if done == 0 {
        if chunk.first() != Some(&0) {
            return Err(XzError::IndexInvalid {
                reason: "the Backward Size does not point to an Index",
            });
        }
        chunk = &chunk[1..];
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
                let stream_size = (STREAM_HEADER_SIZE as u64 * 2)
                    .checked_add(dec.blocks_size())
                    .and_then(|s| s.checked_add(size))
                    .filter(|&s| s <= end)
                    .ok_or(XzError::IndexInvalid {
                        reason: "the Index lists more Block data than the file holds",
                    })?;
                return Ok(Step::Header {
                    start: end - stream_size,
                    flags,
                    blocks,
                    padding,
                    size: stream_size,
                    uncompressed: dec.uncompressed_size(),
                });
            }
        }
    }
    let done = done + data.len() as u64;
    if done == size {
        return Err(XzError::BackwardSizeMismatch {
            footer: size,
            index: size + 1,
        });
    }
    Ok(Step::Index {
        start,
        size,
        done,
        dec,
        blocks,
        flags,
        end,
        padding,
    })
}
