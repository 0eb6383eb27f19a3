//! One XZ stream (spec section 2.1): Stream Header, Blocks, Index, Stream
//! Footer, each cross-checked against the others.

use lzflow_core::{InBuf, Lease, OutBuf, Progress};
use lzflow_lzma::DecoderOptions;

use crate::block_decoder::{prepare_coder, BlockDecoder, Coder};
use crate::block_header::{header_size, BlockHeader, BLOCK_HEADER_SIZE_MAX};
use crate::index::{IndexDecoder, IndexEvent, IndexRecord};
use crate::stream_flags::{
    decode_footer, decode_header, StreamFlags, HEADER_MAGIC, STREAM_HEADER_SIZE,
};
use crate::{Check, XzError};

/// A whole Block collected for decoding elsewhere (see [`BlockDispatch`]).
pub(crate) struct BlockJob {
    /// The whole Block: header, data, padding, check (fewer bytes when the
    /// input ended inside it).
    pub(crate) data: Lease<u8>,
    pub(crate) header: BlockHeader,
    pub(crate) check: Option<Check>,
    pub(crate) check_size: usize,
    pub(crate) number: u64,
    /// Input offset of the Block Header, for error messages.
    pub(crate) offset: u64,
    /// No input follows the Block's bytes.
    pub(crate) at_end: bool,
}

/// Where the stream decoder can send Blocks whose headers state both
/// sizes instead of decoding them inline: such a Block is collected whole
/// and handed over as a [`BlockJob`]. The dispatcher (the multi-threaded
/// decoder's worker pool) decodes them and hands out their output in
/// order; the stream decoder only holds back inline Blocks while any is
/// pending.
pub(crate) trait BlockDispatch {
    /// Bytes a Block costs in flight: its input (all of its bytes, what
    /// is collected) plus its output; `None` unless both sizes are known.
    fn cost(header: &BlockHeader, check_size: usize) -> Option<u64>;

    /// Whether a Block of this cost is sent at all.
    fn takes(&self, cost: u64) -> bool;

    /// Whether a Block of this cost can be sent now.
    fn has_room(&self, cost: u64) -> bool;

    /// Sends a Block.
    fn submit(&mut self, block: BlockJob, cost: u64);

    /// True while some sent Block's output has not been handed out.
    fn has_pending(&self) -> bool;
}

enum State {
    Header,
    BlockStart,
    BlockHeader {
        size: usize,
    },
    Block,
    /// Collecting a whole Block for the [`BlockDispatch`].
    Collect {
        data: Lease<u8>,
        header: BlockHeader,
        total: usize,
        cost: u64,
    },
    Index(IndexDecoder),
    Footer {
        index_size: u64,
    },
    Done,
}

/// Decoder for a single stream; the caller handles Stream Padding and
/// what follows.
pub(crate) struct StreamDecoder {
    state: State,
    /// Header, Block Header or Footer bytes collected so far.
    buf: Box<[u8; BLOCK_HEADER_SIZE_MAX]>,
    have: usize,
    /// True for the first stream of the input: a bad magic then means "not
    /// XZ" rather than trailing garbage.
    first: bool,
    /// Input offset of the stream's first byte, for error messages.
    offset: u64,
    flags: StreamFlags,
    verify: bool,
    /// The current Block; kept to reuse its checker.
    block: BlockDecoder,
    /// What each decoded Block's Index Record must be.
    records: Vec<IndexRecord>,
    /// Bytes of the Blocks in `records` (padded), to place the next one.
    blocks_size: u64,
    /// Records of the Index checked so far.
    checked: u64,
    /// The first Index Record that did not match its Block.
    mismatch: Option<XzError>,
}

impl StreamDecoder {
    pub(crate) fn new(first: bool, offset: u64, verify: bool) -> Self {
        StreamDecoder {
            state: State::Header,
            buf: Box::new([0; BLOCK_HEADER_SIZE_MAX]),
            have: 0,
            first,
            offset,
            flags: StreamFlags { check_id: 0 },
            verify,
            block: BlockDecoder::idle(),
            records: Vec::new(),
            blocks_size: 0,
            checked: 0,
            mismatch: None,
        }
    }

    /// Input offset of the next Block's header: after the Stream Header
    /// and the Blocks so far.
    fn next_block_offset(&self) -> u64 {
        self.offset + STREAM_HEADER_SIZE as u64 + self.blocks_size
    }

    fn push_record(&mut self, record: IndexRecord) {
        // Unpadded sizes are at most 2^63 - 4 each, and the Index check
        // rejects a stream whose total overflows: saturating is enough
        // for a message.
        self.blocks_size = self
            .blocks_size
            .saturating_add(record.unpadded_size.next_multiple_of(4));
        self.records.push(record);
    }

    /// Starts a new stream, keeping the buffers.
    pub(crate) fn reset(&mut self, first: bool, offset: u64) {
        self.state = State::Header;
        self.have = 0;
        self.first = first;
        self.offset = offset;
        self.records.clear();
        self.blocks_size = 0;
        self.checked = 0;
        self.mismatch = None;
    }

    /// The stream's check ID, once the Stream Header has been read.
    pub(crate) fn check_id(&self) -> Option<u8> {
        match self.state {
            State::Header => None,
            _ => Some(self.flags.check_id),
        }
    }

    /// Collects up to `need` bytes into `buf`; true once complete.
    fn fill(&mut self, input: &mut InBuf<'_>, need: usize) -> bool {
        let got = input.take(need - self.have);
        self.buf[self.have..self.have + got.len()].copy_from_slice(got);
        self.have += got.len();
        self.have == need
    }

    fn need_input(input: &InBuf<'_>, during: &'static str) -> Result<Progress, XzError> {
        if input.is_last() {
            Err(XzError::Truncated { during })
        } else {
            Ok(Progress::NeedInput)
        }
    }

    /// Decodes until the stream ends (`StreamEnd`, the Footer verified),
    /// input runs out or output is full. With `mt`, Blocks it takes are
    /// collected and sent there instead of being decoded inline.
    pub(crate) fn decode<D: BlockDispatch>(
        &mut self,
        coder: &mut Option<Coder>,
        opts: &DecoderOptions,
        input: &mut InBuf<'_>,
        output: &mut OutBuf<'_>,
        out_left: &mut u64,
        mut mt: Option<&mut D>,
    ) -> Result<Progress, XzError> {
        loop {
            match &mut self.state {
                State::Header => {
                    // Compare the magic bytes as they arrive so that garbage
                    // is reported at once, however the input is split.
                    while self.have < HEADER_MAGIC.len() {
                        let Some(b) = input.take_byte() else {
                            return Self::need_input(input, "stream header");
                        };
                        if b != HEADER_MAGIC[self.have] {
                            return Err(if self.first {
                                XzError::NotXz
                            } else {
                                XzError::TrailingGarbage {
                                    offset: self.offset,
                                }
                            });
                        }
                        self.buf[self.have] = b;
                        self.have += 1;
                    }
                    if !self.fill(input, STREAM_HEADER_SIZE) {
                        return Self::need_input(input, "stream header");
                    }
                    let header: &[u8; STREAM_HEADER_SIZE] =
                        self.buf[..STREAM_HEADER_SIZE].try_into().expect("12 bytes");
                    self.flags = decode_header(header)?;
                    self.have = 0;
                    self.state = State::BlockStart;
                }
                State::BlockStart => {
                    let Some(b) = input.take_byte() else {
                        return Self::need_input(input, "block header or index");
                    };
                    if b == 0 {
                        self.state = State::Index(IndexDecoder::default());
                    } else {
                        self.buf[0] = b;
                        self.have = 1;
                        self.state = State::BlockHeader {
                            size: header_size(b),
                        };
                    }
                }
                State::BlockHeader { size } => {
                    let size = *size;
                    if !self.fill(input, size) {
                        return Self::need_input(input, "block header");
                    }
                    let check_size = self.flags.check_size();
                    let header = BlockHeader::decode(&self.buf[..size], check_size)?;
                    if let Some(mt) = mt.as_deref_mut() {
                        if let Some(cost) = D::cost(&header, check_size).filter(|&c| mt.takes(c)) {
                            if !mt.has_room(cost) {
                                // Wait for a worker; the header is parsed
                                // again next time.
                                return Ok(Progress::OutputFull);
                            }
                            let total = (cost - header.uncompressed_size.unwrap_or(0)) as usize;
                            let mut data = opts.pool.lease(total);
                            data.extend_from_slice(&self.buf[..size]);
                            self.have = 0;
                            self.state = State::Collect {
                                data,
                                header,
                                total,
                                cost,
                            };
                            continue;
                        }
                    }
                    self.have = 0;
                    prepare_coder(coder, &header, opts)?;
                    let check = self.flags.check().filter(|_| self.verify);
                    let number = self.records.len() as u64 + 1;
                    let offset = self.next_block_offset();
                    self.block.start(&header, check, check_size, number, offset);
                    self.state = State::Block;
                }
                State::Collect {
                    data,
                    header,
                    total,
                    cost,
                } => {
                    let got = input.take(*total - data.len());
                    data.extend_from_slice(got);
                    // Dispatch once it is known whether input ends right
                    // after the Block: inline decoding tells a truncated
                    // LZMA2 stream from an overlong one by that.
                    if input.is_empty() && !input.is_last() {
                        return Ok(Progress::NeedInput);
                    }
                    // Complete, or cut short by the end of input: the
                    // worker then reports the truncation as inline
                    // decoding would.
                    let at_end = input.is_empty() && input.is_last();
                    let check_size = self.flags.check_size();
                    let record = IndexRecord {
                        unpadded_size: (header.header_size + check_size) as u64
                            + header.compressed_size.unwrap_or(0),
                        uncompressed_size: header.uncompressed_size.unwrap_or(0),
                    };
                    let check = self.flags.check().filter(|_| self.verify);
                    let number = self.records.len() as u64 + 1;
                    let cost = *cost;
                    let State::Collect { data, header, .. } =
                        std::mem::replace(&mut self.state, State::BlockStart)
                    else {
                        unreachable!()
                    };
                    let offset = self.next_block_offset();
                    mt.as_deref_mut()
                        .expect("collecting only with workers")
                        .submit(
                            BlockJob {
                                data,
                                header,
                                check,
                                check_size,
                                number,
                                offset,
                                at_end,
                            },
                            cost,
                        );
                    self.push_record(record);
                }
                State::Block => {
                    if mt.as_deref().is_some_and(|m| m.has_pending()) {
                        // Earlier Blocks' output goes out first.
                        return Ok(Progress::OutputFull);
                    }
                    let c = coder.as_mut().expect("prepared with the header");
                    let limit = opts.limits.output;
                    match self.block.decode(c, input, output, out_left, limit)? {
                        Progress::StreamEnd => {}
                        p => return Ok(p),
                    }
                    self.push_record(self.block.record());
                    self.state = State::BlockStart;
                }
                State::Index(index) => match index.decode(input)? {
                    IndexEvent::NeedInput => return Self::need_input(input, "index"),
                    IndexEvent::Count(found) => {
                        let expected = self.records.len() as u64;
                        if found != expected {
                            return Err(XzError::IndexRecordCount { expected, found });
                        }
                    }
                    IndexEvent::Record(r) => {
                        let block = self.records[self.checked as usize];
                        self.checked += 1;
                        let record = self.checked;
                        // Remember the first mismatch but read on, so that
                        // an invalid value later in the list is what gets
                        // reported (as the format's reference decoder does).
                        if self.mismatch.is_none() {
                            self.mismatch = if r.unpadded_size != block.unpadded_size {
                                Some(XzError::IndexRecordMismatch {
                                    record,
                                    field: "unpadded size",
                                    expected: block.unpadded_size,
                                    found: r.unpadded_size,
                                })
                            } else if r.uncompressed_size != block.uncompressed_size {
                                Some(XzError::IndexRecordMismatch {
                                    record,
                                    field: "uncompressed size",
                                    expected: block.uncompressed_size,
                                    found: r.uncompressed_size,
                                })
                            } else {
                                None
                            };
                        }
                        if self.checked == self.records.len() as u64 {
                            if let Some(e) = self.mismatch.take() {
                                return Err(e);
                            }
                        }
                    }
                    IndexEvent::End => {
                        let index_size = index.size();
                        self.state = State::Footer { index_size };
                    }
                },
                State::Footer { index_size } => {
                    let index_size = *index_size;
                    if !self.fill(input, STREAM_HEADER_SIZE) {
                        return Self::need_input(input, "stream footer");
                    }
                    let footer: &[u8; STREAM_HEADER_SIZE] =
                        self.buf[..STREAM_HEADER_SIZE].try_into().expect("12 bytes");
                    let (flags, backward) = decode_footer(footer)?;
                    if backward != index_size {
                        return Err(XzError::BackwardSizeMismatch {
                            footer: backward,
                            index: index_size,
                        });
                    }
                    if flags != self.flags {
                        return Err(XzError::StreamFlagsMismatch {
                            header_check: self.flags.check_id,
                            footer_check: flags.check_id,
                        });
                    }
                    self.have = 0;
                    self.state = State::Done;
                }
                State::Done => return Ok(Progress::StreamEnd),
            }
        }
    }
}
