//! `XzEncoder`: one `.xz` stream of Blocks of a fixed uncompressed size,
//! each Block Header stating both sizes, then the Index and Stream Footer.

use lzflow_core::{Encode, InBuf, OutBuf, Progress};
use lzflow_filters::FilterConfig;
use lzflow_lzma::{Lzma2Encoder, LzmaOptions};

use crate::block_encoder::BlockEncoder;
use crate::block_header::FILTERS_MAX;
use crate::index::{encode_index, index_size, IndexRecord};
use crate::stream_flags::{encode_footer, encode_header, StreamFlags, BACKWARD_SIZE_MAX};
use crate::vli::VLI_MAX;
use crate::{Check, XzError};

/// Options for [`XzEncoder`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct XzEncoderOptions {
    /// LZMA2 settings (dictionary, lc/lp/pb, mode, match finder).
    pub lzma: LzmaOptions,
    /// Integrity check stored after each Block. Default CRC64, as `xz`.
    pub check: Check,
    /// Filters applied before LZMA2, in XZ order (first applied first), at
    /// most three; e.g. `[x86]` for executables.
    pub filters: Vec<FilterConfig>,
    /// Uncompressed bytes per Block. `None` picks three times the
    /// dictionary size, at least 1 MiB (what `xz -T` uses). Smaller Blocks
    /// compress a little worse but can be decoded in parallel; the encoder
    /// buffers one Block's compressed data.
    pub block_size: Option<u64>,
}

impl Default for XzEncoderOptions {
    /// Preset 6 with CRC64, like `xz`.
    fn default() -> Self {
        XzEncoderOptions {
            lzma: LzmaOptions::default(),
            check: Check::Crc64,
            filters: Vec::new(),
            block_size: None,
        }
    }
}

impl XzEncoderOptions {
    /// `xz -<level>` (0..=9).
    pub fn preset(level: u32) -> Result<Self, XzError> {
        Ok(XzEncoderOptions {
            lzma: LzmaOptions::preset(level).map_err(XzError::InvalidLzmaOptions)?,
            ..Self::default()
        })
    }

    /// `xz -<level>e` (0..=9).
    pub fn preset_extreme(level: u32) -> Result<Self, XzError> {
        Ok(XzEncoderOptions {
            lzma: LzmaOptions::preset_extreme(level).map_err(XzError::InvalidLzmaOptions)?,
            ..Self::default()
        })
    }

    /// Sets the check.
    pub fn with_check(mut self, check: Check) -> Self {
        self.check = check;
        self
    }

    /// Sets the filters before LZMA2 (XZ order).
    pub fn with_filters(mut self, filters: Vec<FilterConfig>) -> Self {
        self.filters = filters;
        self
    }

    /// Sets the Block size.
    pub fn with_block_size(mut self, block_size: Option<u64>) -> Self {
        self.block_size = block_size;
        self
    }

    /// The Block size in effect (see [`block_size`](Self::block_size)).
    pub fn effective_block_size(&self) -> u64 {
        self.block_size
            .unwrap_or_else(|| (u64::from(self.lzma.dict_size) * 3).max(1 << 20))
    }

    /// Checks every option, as [`XzEncoder::new`] does.
    pub(crate) fn validate(&self) -> Result<(), XzError> {
        self.lzma
            .validate(true)
            .map_err(XzError::InvalidLzmaOptions)?;
        if self.filters.len() >= FILTERS_MAX {
            return Err(XzError::InvalidOptions {
                reason: "at most three filters may come before LZMA2",
            });
        }
        for f in &self.filters {
            f.validate()?;
        }
        match self.block_size {
            Some(0) => Err(XzError::InvalidOptions {
                reason: "the block size must not be zero",
            }),
            Some(n) if n > VLI_MAX => Err(XzError::InvalidOptions {
                reason: "the block size must be below 2^63",
            }),
            _ => Ok(()),
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    /// Taking input into Blocks.
    Running,
    /// The Index and Footer are in `pending`.
    Trailer,
    /// Everything has been handed out.
    Done,
}

/// Sans-I/O `.xz` encoder producing one stream.
///
/// Input is cut into Blocks of
/// [`effective_block_size`](XzEncoderOptions::effective_block_size) bytes;
/// each Block's compressed data is buffered (a pooled buffer about the
/// Block's size) so that its header can record the compressed and
/// uncompressed sizes. [`flush`](Encode::flush) ends the current Block, so
/// everything given so far can be decoded from the output. The output does
/// not depend on how input is split or how large the output buffers are.
pub struct XzEncoder {
    block: BlockEncoder,
    block_size: u64,
    flags: StreamFlags,
    records: Vec<IndexRecord>,
    /// Stream Header, or Index and Stream Footer, waiting for room.
    pending: Vec<u8>,
    pending_pos: usize,
    state: State,
    error: Option<XzError>,
}

impl std::fmt::Debug for XzEncoder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("XzEncoder")
            .field("block_size", &self.block_size)
            .field("blocks", &self.records.len())
            .field("state", &self.state)
            .finish_non_exhaustive()
    }
}

impl XzEncoder {
    /// An encoder with these options; checks them and allocates the LZMA2
    /// encoder.
    pub fn new(opts: XzEncoderOptions) -> Result<Self, XzError> {
        opts.validate()?;
        let block_size = opts.effective_block_size();
        // The buffer grows with the Block; start with what small inputs
        // need.
        let initial = block_size.min(1 << 20) as usize;
        let block = BlockEncoder::new(&opts.lzma, &opts.filters, opts.check, initial)?;
        let flags = StreamFlags::new(opts.check);
        Ok(XzEncoder {
            block,
            block_size,
            flags,
            records: Vec::new(),
            pending: encode_header(flags).to_vec(),
            pending_pos: 0,
            state: State::Running,
            error: None,
        })
    }

    /// Bytes an encoder with `opts` may allocate: the LZMA2 encoder plus
    /// the buffer for one Block's compressed data.
    pub fn memory_usage(opts: &XzEncoderOptions) -> u64 {
        let block = opts.effective_block_size();
        Lzma2Encoder::memory_usage(&opts.lzma) + block + block / 32 + (64 << 10)
    }

    /// Number of Blocks completed so far.
    pub fn blocks(&self) -> usize {
        self.records.len()
    }

    /// Hands out pending bytes and the finished Block; true when all is out.
    fn drain(&mut self, output: &mut OutBuf<'_>) -> Result<bool, XzError> {
        self.pending_pos += output.push(&self.pending[self.pending_pos..]);
        if self.pending_pos < self.pending.len() {
            return Ok(false);
        }
        self.pending.clear();
        self.pending_pos = 0;
        self.block.drain(output)
    }

    /// Ends the current Block if it holds data.
    fn end_block(&mut self) -> Result<(), XzError> {
        if self.block.uncompressed() > 0 {
            let record = self.block.finish()?;
            self.records.push(record);
        }
        Ok(())
    }

    fn sticky<T>(&mut self, res: Result<T, XzError>) -> Result<T, XzError> {
        if let Err(e) = &res {
            self.error = Some(e.clone());
        }
        res
    }

    fn check_usable(&self) -> Result<(), XzError> {
        match &self.error {
            Some(e) => Err(e.clone()),
            None => Ok(()),
        }
    }

    fn encode_inner(
        &mut self,
        input: &mut InBuf<'_>,
        output: &mut OutBuf<'_>,
    ) -> Result<Progress, XzError> {
        loop {
            if !self.drain(output)? {
                return Ok(Progress::OutputFull);
            }
            if input.is_empty() {
                return Ok(Progress::NeedInput);
            }
            let room = self.block_size - self.block.uncompressed();
            let take = input.len().min(usize::try_from(room).unwrap_or(usize::MAX));
            let mut part = InBuf::new(&input.remaining()[..take]);
            self.block.encode(&mut part)?;
            input.advance(take);
            if self.block.uncompressed() == self.block_size {
                self.end_block()?;
            }
        }
    }

    fn flush_inner(&mut self, output: &mut OutBuf<'_>) -> Result<Progress, XzError> {
        if self.state == State::Running && !self.block.is_draining() {
            self.end_block()?;
        }
        Ok(if self.drain(output)? {
            Progress::NeedInput
        } else {
            Progress::OutputFull
        })
    }

    fn finish_inner(&mut self, output: &mut OutBuf<'_>) -> Result<Progress, XzError> {
        loop {
            if !self.drain(output)? {
                return Ok(Progress::OutputFull);
            }
            match self.state {
                State::Running if self.block.uncompressed() > 0 => self.end_block()?,
                State::Running => {
                    let index_size = index_size(&self.records);
                    if index_size > BACKWARD_SIZE_MAX {
                        return Err(XzError::SizeOverflow {
                            what: "index (too many blocks for one stream)",
                        });
                    }
                    encode_index(&self.records, &mut self.pending);
                    debug_assert_eq!(self.pending.len() as u64, index_size);
                    self.pending
                        .extend_from_slice(&encode_footer(self.flags, index_size));
                    self.state = State::Trailer;
                }
                State::Trailer => self.state = State::Done,
                State::Done => return Ok(Progress::StreamEnd),
            }
        }
    }
}

impl Encode for XzEncoder {
    type Error = XzError;

    fn encode(
        &mut self,
        input: &mut InBuf<'_>,
        output: &mut OutBuf<'_>,
    ) -> Result<Progress, XzError> {
        self.check_usable()?;
        if self.state != State::Running {
            // A misuse, not a failure of the stream: leave it finishable.
            return Err(XzError::InvalidOptions {
                reason: "encode() called after finish()",
            });
        }
        let res = self.encode_inner(input, output);
        self.sticky(res)
    }

    fn flush(&mut self, output: &mut OutBuf<'_>) -> Result<Progress, XzError> {
        self.check_usable()?;
        let res = self.flush_inner(output);
        self.sticky(res)
    }

    fn finish(&mut self, output: &mut OutBuf<'_>) -> Result<Progress, XzError> {
        self.check_usable()?;
        let res = self.finish_inner(output);
        self.sticky(res)
    }
}
