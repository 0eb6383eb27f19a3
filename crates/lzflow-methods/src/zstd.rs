//! Zstandard (RFC 8878) through ruzstd's frame decoder.
//!
//! ruzstd decodes from slices but only whole units: a frame header, a
//! block (its 3-byte header and content), a checksum. So this decoder
//! gathers the bytes of the next unit itself (at most one block: 128 KiB
//! and its header) and hands ruzstd each unit whole; however the input is
//! split, ruzstd sees the same units. It reads every frame of the data,
//! skippable frames included, until the input ends between two frames.
//!
//! ruzstd keeps a frame's window in the buffer it decodes into and lets
//! out only what lies beyond it until the frame ends; a block is decoded
//! only once everything before the window has been handed out, so the
//! buffer holds at most the window and one block.

use std::io::Read;

use lzflow_core::{Decode, InBuf, LimitExceeded, Limits, OutBuf, Progress};
use ruzstd::decoding::errors::FrameDecoderError;
use ruzstd::decoding::FrameDecoder;

use crate::memory::zstd_frame_memory;
use crate::MethodError;

/// The method's name in errors.
const NAME: &str = "Zstandard";

/// A Zstandard frame's magic number (0xFD2FB528, little-endian).
const FRAME_MAGIC: [u8; 4] = [0x28, 0xB5, 0x2F, 0xFD];

/// Bytes of a magic number, and of a skippable frame's length.
const MAGIC_LEN: usize = 4;

/// A block's header: last-block flag, type and size in 3 bytes.
const BLOCK_HEADER: usize = 3;

/// The most content a block holds (Block_Maximum_Size).
const MAX_BLOCK: usize = 128 << 10;

/// A skippable frame's magic number: 0x184D2A50 to 0x184D2A5F.
fn is_skippable(magic: &[u8]) -> bool {
    magic[1..4] == [0x2A, 0x4D, 0x18] && magic[0] & 0xF0 == 0x50
}

/// Bytes of a frame header (magic number included) whose descriptor byte
/// is `descriptor`.
fn header_len(descriptor: u8) -> usize {
    let single_segment = descriptor & 0x20 != 0;
    let window = if single_segment { 0 } else { 1 };
    let dictionary = [0, 1, 2, 4][usize::from(descriptor & 3)];
    let content_size = match descriptor >> 6 {
        0 if single_segment => 1,
        0 => 0,
        1 => 2,
        2 => 4,
        _ => 8,
    };
    MAGIC_LEN + 1 + window + dictionary + content_size
}

/// What a frame's header says: the window it needs, whether it carries a
/// content checksum and whether it names a dictionary.
#[derive(Debug, PartialEq, Eq)]
struct FrameHeader {
    window: u64,
    checksum: bool,
    dictionary: bool,
}

impl FrameHeader {
    /// Parses a whole frame header (`header_len` bytes, magic included).
    fn parse(header: &[u8]) -> Result<Self, MethodError> {
        let descriptor = header[MAGIC_LEN];
        if descriptor & 0x08 != 0 {
            return Err(data("the frame header's reserved bit is set"));
        }
        let single_segment = descriptor & 0x20 != 0;
        let mut at = MAGIC_LEN + 1;
        let window_descriptor = (!single_segment).then(|| {
            at += 1;
            header[at - 1]
        });
        let dictionary_len = [0, 1, 2, 4][usize::from(descriptor & 3)];
        let dictionary = header[at..at + dictionary_len].iter().any(|&b| b != 0);
        at += dictionary_len;
        let window = match window_descriptor {
            Some(w) => {
                // 2^(10 + exponent), plus mantissa eighths of it.
                let base = 1u64 << (10 + (w >> 3));
                base + base / 8 * u64::from(w & 7)
            }
            // A single segment's window is its whole content.
            None => {
                let field = &header[at..];
                let mut bytes = [0u8; 8];
                bytes[..field.len()].copy_from_slice(field);
                let size = u64::from_le_bytes(bytes);
                if field.len() == 2 {
                    size + 256
                } else {
                    size
                }
            }
        };
        Ok(FrameHeader {
            window,
            checksum: descriptor & 0x04 != 0,
            dictionary,
        })
    }
}

/// The unit the decoder is gathering or handing out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Step {
    /// A frame's magic number, or the end of the data.
    Magic,
    /// The rest of a frame's header (the buffer holds its magic number).
    Header,
    /// A skippable frame's length (the buffer holds its magic number).
    SkipLength,
    /// Bytes of a skippable frame still to drop.
    Skip(u64),
    /// A block's header.
    BlockHeader,
    /// A block whose header the buffer holds: `content` bytes follow.
    Block { content: usize, last: bool },
    /// The frame's content checksum.
    Checksum,
    /// The frame is decoded; what ruzstd still holds is being handed out.
    Drain,
}

/// A Zstandard decoder of one or more frames.
pub(crate) struct ZstdDecoder {
    /// The memory limit each frame's decoder is checked against.
    limits: Limits,
    step: Step,
    /// The unit being gathered.
    unit: Vec<u8>,
    /// The current frame's decoder; dropped (window and all) at its end.
    frame: Option<Box<FrameDecoder>>,
    /// The current frame carries a content checksum.
    checksum: bool,
    /// A frame has ended: the data may end here.
    may_end: bool,
    /// An error was returned; every later call fails too.
    failed: bool,
}

/// A corrupt-data error.
fn data(reason: impl Into<String>) -> MethodError {
    MethodError::Data {
        method: NAME,
        reason: reason.into(),
    }
}

/// ruzstd's error as the registry's.
fn frame_error(e: FrameDecoderError) -> MethodError {
    match e {
        FrameDecoderError::WindowSizeTooBig { requested, max } => {
            MethodError::Limit(LimitExceeded::Memory {
                needed: requested,
                limit: max,
            })
        }
        FrameDecoderError::DictNotProvided { .. } => MethodError::Unsupported {
            method: "Zstandard with a dictionary".into(),
        },
        e => data(e.to_string()),
    }
}

impl ZstdDecoder {
    /// A decoder whose frames may each use at most `memory_limit` bytes
    /// ([`zstd_frame_memory`] of their window).
    pub(crate) fn new(memory_limit: u64) -> Self {
        ZstdDecoder {
            limits: Limits::NONE.with_memory(memory_limit),
            step: Step::Magic,
            unit: Vec::new(),
            frame: None,
            checksum: false,
            may_end: false,
            failed: false,
        }
    }

    /// Bytes the current unit has once whole (the magic number included
    /// for headers, the block header for blocks).
    fn unit_len(&self) -> usize {
        match self.step {
            Step::Magic => MAGIC_LEN,
            // The descriptor first, then the length it implies.
            Step::Header if self.unit.len() <= MAGIC_LEN => MAGIC_LEN + 1,
            Step::Header => header_len(self.unit[MAGIC_LEN]),
            Step::SkipLength => 2 * MAGIC_LEN,
            Step::BlockHeader => BLOCK_HEADER,
            Step::Block { content, .. } => BLOCK_HEADER + content,
            Step::Checksum => 4,
            Step::Skip(_) | Step::Drain => 0,
        }
    }

    /// The current frame's decoder.
    fn frame(&mut self) -> Result<&mut FrameDecoder, MethodError> {
        self.frame
            .as_deref_mut()
            .ok_or_else(|| data("a block outside a frame"))
    }

    /// Hands ruzstd the whole unit, which it must take entirely.
    fn feed(&mut self) -> Result<(), MethodError> {
        let unit = std::mem::take(&mut self.unit);
        let (used, _) = self
            .frame()?
            .decode_from_to(&unit, &mut [])
            .map_err(frame_error)?;
        if used != unit.len() {
            return Err(data("a unit was not taken whole"));
        }
        // Keep the allocation for the next unit.
        self.unit = unit;
        self.unit.clear();
        Ok(())
    }

    /// Acts on the whole unit gathered for the current step.
    fn take_unit(&mut self) -> Result<(), MethodError> {
        match self.step {
            Step::Magic if self.unit[..] == FRAME_MAGIC => self.step = Step::Header,
            Step::Magic if is_skippable(&self.unit) => self.step = Step::SkipLength,
            Step::Magic => return Err(data("no frame's magic number where one is due")),
            Step::Header => self.start_frame()?,
            Step::SkipLength => {
                let len = &self.unit[MAGIC_LEN..];
                self.step = Step::Skip(u64::from(u32::from_le_bytes([
                    len[0], len[1], len[2], len[3],
                ])));
                self.unit.clear();
            }
            Step::BlockHeader => {
                let h = u32::from_le_bytes([self.unit[0], self.unit[1], self.unit[2], 0]);
                let last = h & 1 != 0;
                let size = (h >> 3) as usize;
                if size > MAX_BLOCK {
                    return Err(data("a block is larger than 128 KiB"));
                }
                // Raw and compressed blocks hold `size` bytes; an RLE
                // block one byte repeated `size` times.
                let content = match (h >> 1) & 3 {
                    0 | 2 => size,
                    1 => 1,
                    _ => return Err(data("a block of the reserved type")),
                };
                self.step = Step::Block { content, last };
            }
            Step::Block { last, .. } => {
                self.feed()?;
                self.step = match (last, self.checksum) {
                    (false, _) => Step::BlockHeader,
                    (true, true) => Step::Checksum,
                    (true, false) => Step::Drain,
                };
            }
            Step::Checksum => {
                self.feed()?;
                self.step = Step::Drain;
            }
            Step::Skip(_) | Step::Drain => {}
        }
        Ok(())
    }

    /// A frame header is whole: checks its window against the memory
    /// limit, then starts the frame's decoder.
    fn start_frame(&mut self) -> Result<(), MethodError> {
        let header = FrameHeader::parse(&self.unit)?;
        if header.dictionary {
            return Err(MethodError::Unsupported {
                method: "Zstandard with a dictionary".into(),
            });
        }
        self.limits.check_memory(zstd_frame_memory(header.window))?;
        let mut frame = Box::new(FrameDecoder::new());
        // The limit above is the one that counts; ruzstd's own default
        // (128 MiB) would refuse windows the caller allowed.
        frame.set_max_window_size(u64::MAX);
        self.frame = Some(frame);
        self.checksum = header.checksum;
        self.may_end = false;
        self.feed()?;
        self.step = Step::BlockHeader;
        Ok(())
    }

    /// The frame's content is all handed out: checks its checksum and
    /// drops its decoder.
    fn end_frame(&mut self) -> Result<(), MethodError> {
        let frame = self.frame.take().ok_or_else(|| data("no frame to end"))?;
        if self.checksum && frame.get_checksum_from_data() != frame.get_calculated_checksum() {
            return Err(data("the content checksum does not match"));
        }
        self.step = Step::Magic;
        self.may_end = true;
        Ok(())
    }

    /// Hands out what the frame holds, then gathers and acts on units
    /// until output room or input runs out or the data ends.
    fn run(
        &mut self,
        input: &mut InBuf<'_>,
        output: &mut OutBuf<'_>,
    ) -> Result<Progress, MethodError> {
        loop {
            if let Some(frame) = self.frame.as_deref_mut() {
                let n = frame
                    .read(output.spare_mut())
                    .map_err(|e| data(e.to_string()))?;
                output.advance(n);
                // No block is decoded while output waits: ruzstd's buffer
                // stays at the window and one block.
                if frame.can_collect() > 0 {
                    return Ok(Progress::OutputFull);
                }
                if self.step == Step::Drain {
                    self.end_frame()?;
                    continue;
                }
            }
            if let Step::Skip(left) = self.step {
                let n = usize::try_from(left).unwrap_or(usize::MAX);
                let left = left - input.take(n).len() as u64;
                self.step = Step::Skip(left);
                if left == 0 {
                    self.step = Step::Magic;
                    self.may_end = true;
                    continue;
                }
                return if input.is_last() {
                    Err(MethodError::Truncated { method: NAME })
                } else {
                    Ok(Progress::NeedInput)
                };
            }
            let need = self.unit_len();
            if self.unit.len() < need {
                let got = input.take(need - self.unit.len());
                self.unit.extend_from_slice(got);
                if self.unit.len() < need {
                    return if !input.is_last() {
                        Ok(Progress::NeedInput)
                    } else if self.step == Step::Magic && self.unit.is_empty() && self.may_end {
                        Ok(Progress::StreamEnd)
                    } else {
                        Err(MethodError::Truncated { method: NAME })
                    };
                }
                // A header's length is known once its descriptor is in.
                continue;
            }
            self.take_unit()?;
        }
    }
}

impl Decode for ZstdDecoder {
    type Error = MethodError;
    fn decode(
        &mut self,
        input: &mut InBuf<'_>,
        output: &mut OutBuf<'_>,
    ) -> Result<Progress, MethodError> {
        if self.failed {
            return Err(data("the stream failed earlier"));
        }
        let r = self.run(input, output);
        self.failed = r.is_err();
        r
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn header_lengths_follow_the_descriptor() {
        // No content size, window descriptor, no dictionary.
        assert_eq!(header_len(0x00), 6);
        // Single segment: a 1-byte content size, no window descriptor.
        assert_eq!(header_len(0x20), 6);
        // 2-byte content size, 4-byte dictionary ID, window descriptor.
        assert_eq!(header_len(0x43), 4 + 1 + 1 + 4 + 2);
        // 8-byte content size, single segment, 1-byte dictionary ID.
        assert_eq!(header_len(0xE1), 4 + 1 + 1 + 8);
    }

    #[test]
    fn windows_from_descriptor_or_content_size() {
        let mut h = FRAME_MAGIC.to_vec();
        // Window descriptor: exponent 10 (2^20), mantissa 4: 1.5 MiB.
        h.extend_from_slice(&[0x04, (10 << 3) | 4]);
        let parsed = FrameHeader::parse(&h).unwrap();
        assert_eq!(parsed.window, 3 << 19);
        assert!(parsed.checksum);
        assert!(!parsed.dictionary);
        // Single segment with a 2-byte content size: 256 + 0x0100.
        let mut h = FRAME_MAGIC.to_vec();
        h.extend_from_slice(&[0x60, 0x00, 0x01]);
        assert_eq!(h.len(), header_len(0x60));
        assert_eq!(FrameHeader::parse(&h).unwrap().window, 512);
        // A dictionary ID of zero names no dictionary.
        let mut h = FRAME_MAGIC.to_vec();
        h.extend_from_slice(&[0x21, 0x00, 0x05]);
        assert!(!FrameHeader::parse(&h).unwrap().dictionary);
        h[5] = 7;
        assert!(FrameHeader::parse(&h).unwrap().dictionary);
        // The reserved bit.
        let mut h = FRAME_MAGIC.to_vec();
        h.extend_from_slice(&[0x08, 0x00]);
        assert!(matches!(
            FrameHeader::parse(&h),
            Err(MethodError::Data { .. })
        ));
    }

    #[test]
    fn skippable_magic_numbers() {
        for low in 0x50..=0x5F {
            assert!(is_skippable(&[low, 0x2A, 0x4D, 0x18]));
        }
        assert!(!is_skippable(&[0x60, 0x2A, 0x4D, 0x18]));
        assert!(!is_skippable(&FRAME_MAGIC));
    }
}
