//! Block encoding: the Block's compressed data is collected in a pooled
//! buffer so that its Block Header can state both sizes (what a
//! multi-threaded decoder needs to split the work), then the header,
//! Block Padding and Check are put around it in place.

use lzflow_core::{Encode, InBuf, Lease, OutBuf, Pool, Progress};
use lzflow_filters::{new_chain, Direction, FilterConfig, FilterEncoder};
use lzflow_lzma::{Lzma2Encoder, LzmaError, LzmaOptions};

use crate::block_header::{BlockHeader, BLOCK_HEADER_SIZE_MAX};
use crate::check::Checker;
use crate::index::IndexRecord;
use crate::{Check, XzError};

/// Room kept in front of the data for the Block Header.
const RESERVE: usize = BLOCK_HEADER_SIZE_MAX;
/// Least free space offered to the LZMA2 encoder per call.
const MIN_ROOM: usize = 64 << 10;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    /// Taking input.
    Filling,
    /// The Block is complete in `buf[pos..end]` and being handed out.
    Draining,
}

/// One Block at a time, buffered.
pub(crate) struct BlockEncoder {
    coder: FilterEncoder<Lzma2Encoder>,
    filters: Vec<FilterConfig>,
    check: Check,
    checker: Checker,
    /// Initialized bytes; `..RESERVE` is header room, the data follows up
    /// to `end`.
    buf: Lease<u8>,
    end: usize,
    pos: usize,
    uncompressed: u64,
    phase: Phase,
}

impl BlockEncoder {
    pub(crate) fn new(
        lzma: &LzmaOptions,
        filters: &[FilterConfig],
        check: Check,
        initial_capacity: usize,
    ) -> Result<Self, XzError> {
        let chain = new_chain(filters, Direction::Encode)?;
        let lzma2 = Lzma2Encoder::new(lzma).map_err(XzError::InvalidLzmaOptions)?;
        let coder = FilterEncoder::new(lzma2, chain);
        let mut buf = Pool::<u8>::global().lease(initial_capacity.max(RESERVE + MIN_ROOM));
        buf.resize(RESERVE, 0);
        Ok(BlockEncoder {
            coder,
            filters: filters.to_vec(),
            check,
            checker: Checker::new(check),
            buf,
            end: RESERVE,
            pos: RESERVE,
            uncompressed: 0,
            phase: Phase::Filling,
        })
    }

    /// Uncompressed bytes in the Block so far.
    pub(crate) fn uncompressed(&self) -> u64 {
        self.uncompressed
    }

    /// True while a finished Block waits to be handed out.
    pub(crate) fn is_draining(&self) -> bool {
        self.phase == Phase::Draining
    }

    /// Free space of at least [`MIN_ROOM`] after `end`; zeroed once, then
    /// reused for every later Block.
    fn room(&mut self) -> &mut [u8] {
        if self.buf.len() - self.end < MIN_ROOM {
            let grow = MIN_ROOM.max(self.buf.len() / 2);
            let len = self.buf.len() + grow;
            self.buf.resize(len, 0);
        }
        &mut self.buf[self.end..]
    }

    /// Runs one coder call with the free space as output.
    fn step(
        &mut self,
        call: impl FnOnce(
            &mut FilterEncoder<Lzma2Encoder>,
            &mut OutBuf<'_>,
        ) -> Result<Progress, LzmaError>,
    ) -> Result<Progress, XzError> {
        self.room();
        let (coder, buf) = (&mut self.coder, &mut self.buf);
        let mut out = OutBuf::new(&mut buf[self.end..]);
        let progress = call(coder, &mut out)?;
        self.end += out.pos();
        Ok(progress)
    }

    /// Takes all of `input` into the Block.
    pub(crate) fn encode(&mut self, input: &mut InBuf<'_>) -> Result<(), XzError> {
        debug_assert_eq!(self.phase, Phase::Filling);
        loop {
            let before = input.remaining();
            let progress = self.step(|c, out| c.encode(input, out))?;
            let taken = before.len() - input.len();
            self.checker.update(&before[..taken]);
            self.uncompressed += taken as u64;
            if progress == Progress::NeedInput && input.is_empty() {
                return Ok(());
            }
        }
    }

    /// Ends the Block: finishes the LZMA2 stream, then writes the Block
    /// Header in front and Block Padding and the Check behind. Returns the
    /// Block's Index Record.
    pub(crate) fn finish(&mut self) -> Result<IndexRecord, XzError> {
        debug_assert_eq!(self.phase, Phase::Filling);
        while self.step(|c, out| c.finish(out))? != Progress::StreamEnd {}
        let compressed = (self.end - RESERVE) as u64;
        let header = BlockHeader {
            header_size: 0,
            compressed_size: Some(compressed),
            uncompressed_size: Some(self.uncompressed),
            filters: self.filters.clone(),
            lzma2_props: self.coder.get_ref().props_byte(),
        }
        .encode()?;
        let start = RESERVE - header.len();
        self.buf[start..RESERVE].copy_from_slice(&header);
        let padding = (4 - compressed % 4) as usize % 4;
        let check = self.checker.finish();
        let room = self.room();
        room[..padding].fill(0);
        let mut tail = padding;
        if let Some(value) = check {
            let bytes = value.as_bytes();
            room[tail..tail + bytes.len()].copy_from_slice(bytes);
            tail += bytes.len();
        }
        self.end += tail;
        self.pos = start;
        self.phase = Phase::Draining;
        Ok(IndexRecord {
            unpadded_size: header.len() as u64 + compressed + self.check.size() as u64,
            uncompressed_size: self.uncompressed,
        })
    }

    /// The finished Block's bytes not handed out yet.
    pub(crate) fn finished(&self) -> &[u8] {
        &self.buf[self.pos..self.end]
    }

    /// Hands out the finished Block; once all of it is out, gets ready for
    /// the next one and returns true.
    pub(crate) fn drain(&mut self, output: &mut OutBuf<'_>) -> Result<bool, XzError> {
        if self.phase == Phase::Filling {
            return Ok(true);
        }
        self.pos += output.push(&self.buf[self.pos..self.end]);
        if self.pos < self.end {
            return Ok(false);
        }
        self.next_block()?;
        Ok(true)
    }

    /// Drops the finished Block (handed out or copied elsewhere) and gets
    /// ready for the next one, keeping every allocation.
    pub(crate) fn next_block(&mut self) -> Result<(), XzError> {
        self.coder.get_mut().reset();
        self.coder
            .reset(new_chain(&self.filters, Direction::Encode)?);
        self.end = RESERVE;
        self.pos = RESERVE;
        self.uncompressed = 0;
        self.phase = Phase::Filling;
        Ok(())
    }
}
