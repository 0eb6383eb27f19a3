//! Random access into a `.xz` file: where every Block is (from the Indexes
//! read by [`LayoutReader`](crate::info::LayoutReader)), and a sans-I/O
//! decoder that starts at the Block holding any uncompressed offset.

use lzflow_core::{InBuf, OutBuf, Progress};

use crate::block_decoder::{prepare_coder, BlockDecoder, Coder};
use crate::block_header::{header_size, BlockHeader, BLOCK_HEADER_SIZE_MAX};
use crate::info::XzInfo;
use crate::stream_flags::STREAM_HEADER_SIZE;
use crate::{check_size_of_id, Check, XzDecoderOptions, XzError};

/// One Block's place in the file and in the data.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct MappedBlock {
    /// Offset of its Block Header in the file.
    file_offset: u64,
    /// Offset of its first byte in the uncompressed data.
    data_offset: u64,
    /// Block Header + Compressed Data + Check, as the Index records it.
    unpadded_size: u64,
    /// Bytes it decodes to, as the Index records it.
    uncompressed_size: u64,
    /// Its stream (index into the stream checks).
    stream: u32,
    /// Its number in its stream, from 1 (for errors).
    number: u32,
}

/// Every Block of a file in one table (one allocation however many Blocks
/// there are), searched by uncompressed offset.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BlockMap {
    blocks: Vec<MappedBlock>,
    /// Each stream's check ID.
    checks: Vec<u8>,
    size: u64,
}

impl BlockMap {
    /// The map of a file whose layout is `info`.
    pub fn new(info: &XzInfo) -> Result<Self, XzError> {
        let mut blocks = Vec::with_capacity(info.block_count());
        let mut checks = Vec::with_capacity(info.streams.len());
        let (mut file_offset, mut data_offset) = (0u64, 0u64);
        for (s, stream) in info.streams.iter().enumerate() {
            let stream_start = file_offset;
            file_offset += STREAM_HEADER_SIZE as u64;
            for (n, b) in stream.blocks.iter().enumerate() {
                blocks.push(MappedBlock {
                    file_offset,
                    data_offset,
                    unpadded_size: b.unpadded_size,
                    uncompressed_size: b.uncompressed_size,
                    stream: s as u32,
                    number: u32::try_from(n + 1).unwrap_or(u32::MAX),
                });
                file_offset += b.total_size();
                data_offset =
                    data_offset
                        .checked_add(b.uncompressed_size)
                        .ok_or(XzError::SizeOverflow {
                            what: "file's uncompressed size",
                        })?;
            }
            checks.push(stream.check_id);
            file_offset = stream_start + stream.compressed_size + stream.padding;
        }
        Ok(BlockMap {
            blocks,
            checks,
            size: data_offset,
        })
    }

    /// Bytes of uncompressed data in the file.
    pub fn len(&self) -> u64 {
        self.size
    }

    /// True when the file holds no data.
    pub fn is_empty(&self) -> bool {
        self.size == 0
    }

    /// Number of Blocks.
    pub fn block_count(&self) -> usize {
        self.blocks.len()
    }

    /// The Block holding uncompressed offset `pos` (empty Blocks hold
    /// none); `None` at or past the end.
    fn find(&self, pos: u64) -> Option<usize> {
        let i = self
            .blocks
            .partition_point(|b| b.data_offset + b.uncompressed_size <= pos);
        (i < self.blocks.len()).then_some(i)
    }
}

/// Where the decoder stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    /// The next read starts the Block holding `pos` (input from its start).
    Seek,
    /// Reading Block `current`'s header: `have` of its bytes so far.
    Header { have: usize },
    /// Decoding Block `current`'s data, padding and check.
    Data,
}

/// Sans-I/O random-access decoder of a `.xz` file whose [`BlockMap`] is
/// known: it says from which file offset it wants input
/// ([`input_offset`](Self::input_offset)) and decodes from there.
///
/// A seek ([`seek`](Self::seek)) starts decoding at the Block holding the
/// target and discards the bytes before it in that Block; a forward seek
/// inside the Block being decoded just discards, and reading on continues
/// into the next Block without a new input position. Every Block read to
/// its end has its check verified (unless verification is off) and its
/// sizes compared with its Index Record.
pub struct SeekableXzDecoder {
    map: BlockMap,
    opts: XzDecoderOptions,
    coder: Option<Coder>,
    block: BlockDecoder,
    phase: Phase,
    /// The Block being decoded.
    current: usize,
    /// Uncompressed offset of the next byte delivered.
    pos: u64,
    /// Uncompressed offset of the next byte the Block produces.
    decoded: u64,
    /// File offset of the next input byte.
    in_offset: u64,
    /// Position in the caller's input up to which `in_offset` counts.
    synced: usize,
    header: Box<[u8; BLOCK_HEADER_SIZE_MAX]>,
    /// Output of skipped bytes goes here.
    discard: Vec<u8>,
    error: Option<XzError>,
}

impl std::fmt::Debug for SeekableXzDecoder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SeekableXzDecoder")
            .field("len", &self.map.len())
            .field("blocks", &self.map.block_count())
            .field("pos", &self.pos)
            .field("phase", &self.phase)
            .finish_non_exhaustive()
    }
}

/// Bytes decoded at a time while discarding up to a seek target.
const DISCARD_CHUNK: usize = 16 << 10;

impl SeekableXzDecoder {
    /// A decoder over the file `map` describes, at offset 0.
    pub fn new(map: BlockMap, opts: XzDecoderOptions) -> Self {
        SeekableXzDecoder {
            map,
            opts,
            coder: None,
            block: BlockDecoder::idle(),
            phase: Phase::Seek,
            current: 0,
            pos: 0,
            decoded: 0,
            in_offset: 0,
            synced: 0,
            header: Box::new([0; BLOCK_HEADER_SIZE_MAX]),
            discard: Vec::new(),
            error: None,
        }
    }

    /// The map of Blocks.
    pub fn map(&self) -> &BlockMap {
        &self.map
    }

    /// Bytes of uncompressed data.
    pub fn len(&self) -> u64 {
        self.map.len()
    }

    /// True when the file holds no data.
    pub fn is_empty(&self) -> bool {
        self.map.is_empty()
    }

    /// Uncompressed offset of the next byte [`decode`](Self::decode)
    /// delivers.
    pub fn position(&self) -> u64 {
        self.pos
    }

    /// Moves to uncompressed offset `pos` (past the end reads nothing).
    /// Ahead inside the Block being decoded the decoder discards up to it;
    /// anywhere else it starts over at the Block holding it. Clears an
    /// earlier error.
    pub fn seek(&mut self, pos: u64) {
        self.error = None;
        let same_block = matches!(self.phase, Phase::Header { .. } | Phase::Data)
            && self.map.find(pos) == Some(self.current)
            && pos >= self.decoded;
        if !same_block {
            self.phase = Phase::Seek;
        }
        self.pos = pos;
    }

    /// File offset the next input must start at (`None` at the end of the
    /// data): the caller seeks its source there when it is not already.
    pub fn input_offset(&mut self) -> Option<u64> {
        if self.phase == Phase::Seek {
            let i = self.map.find(self.pos)?;
            let b = self.map.blocks[i];
            self.current = i;
            self.decoded = b.data_offset;
            self.in_offset = b.file_offset;
            self.phase = Phase::Header { have: 0 };
        }
        Some(self.in_offset)
    }

    /// Most input bytes worth handing over from
    /// [`input_offset`](Self::input_offset): the rest of the current
    /// Block, so a source read for it reads nothing beyond.
    pub fn input_wanted(&self) -> u64 {
        if self.phase == Phase::Seek {
            return 0;
        }
        let b = self.map.blocks[self.current];
        (b.file_offset + b.unpadded_size.next_multiple_of(4)).saturating_sub(self.in_offset)
    }

    /// Decodes from `input`, which holds the file's bytes from
    /// [`input_offset`](Self::input_offset) on, into `output`. Returns
    /// [`Progress::StreamEnd`] at the end of the data.
    pub fn decode(
        &mut self,
        input: &mut InBuf<'_>,
        output: &mut OutBuf<'_>,
    ) -> Result<Progress, XzError> {
        if let Some(e) = &self.error {
            return Err(e.clone());
        }
        self.synced = input.pos();
        let r = self.step(input, output);
        self.sync(input);
        if let Err(e) = &r {
            self.error = Some(e.clone());
        }
        r
    }

    fn step(
        &mut self,
        input: &mut InBuf<'_>,
        output: &mut OutBuf<'_>,
    ) -> Result<Progress, XzError> {
        loop {
            self.sync(input);
            if self.input_offset().is_none() {
                return Ok(Progress::StreamEnd);
            }
            let b = self.map.blocks[self.current];
            match self.phase {
                Phase::Seek => unreachable!("input_offset starts the Block"),
                Phase::Header { have } => {
                    if have == 0 {
                        let Some(size_byte) = input.take_byte() else {
                            return need_input(input, "block header");
                        };
                        if size_byte == 0 {
                            return Err(XzError::IndexInvalid {
                                reason: "the Index points at the Index, not a Block",
                            });
                        }
                        self.header[0] = size_byte;
                        self.phase = Phase::Header { have: 1 };
                        continue;
                    }
                    let size = header_size(self.header[0]);
                    let got = input.take(size - have);
                    self.header[have..have + got.len()].copy_from_slice(got);
                    let have = have + got.len();
                    self.phase = Phase::Header { have };
                    if have < size {
                        return need_input(input, "block header");
                    }
                    let check_id = self.map.checks[b.stream as usize];
                    let check_size = check_size_of_id(check_id);
                    let header = BlockHeader::decode(&self.header[..size], check_size)?;
                    prepare_coder(&mut self.coder, &header, &self.opts.lzma)?;
                    let check = Check::from_id(check_id)
                        .ok()
                        .filter(|_| self.opts.verify_check);
                    self.block.start(
                        &header,
                        check,
                        check_size,
                        u64::from(b.number),
                        b.file_offset,
                    );
                    self.phase = Phase::Data;
                }
                Phase::Data => {
                    let progress = if self.decoded < self.pos {
                        // Discard up to the target.
                        if self.discard.is_empty() {
                            self.discard = vec![0; DISCARD_CHUNK];
                        }
                        let want = (self.pos - self.decoded).min(DISCARD_CHUNK as u64) as usize;
                        let mut discard = std::mem::take(&mut self.discard);
                        let mut out = OutBuf::new(&mut discard[..want]);
                        let r = self.decode_block(input, &mut out);
                        self.decoded += out.pos() as u64;
                        self.discard = discard;
                        match r? {
                            Progress::OutputFull => continue,
                            p => p,
                        }
                    } else {
                        let start = output.pos();
                        let r = self.decode_block(input, output);
                        let n = (output.pos() - start) as u64;
                        self.decoded += n;
                        self.pos += n;
                        r?
                    };
                    match progress {
                        Progress::StreamEnd => {
                            self.sync(input);
                            self.next_block(b)?;
                        }
                        p => return Ok(p),
                    }
                }
            }
        }
    }

    /// Counts the input taken since the last call into the file offset (the
    /// next Block compares it with where it starts).
    fn sync(&mut self, input: &InBuf<'_>) {
        self.in_offset += (input.pos() - self.synced) as u64;
        self.synced = input.pos();
    }

    /// Decodes the current Block, never beyond the size its Index Record
    /// gives.
    fn decode_block(
        &mut self,
        input: &mut InBuf<'_>,
        output: &mut OutBuf<'_>,
    ) -> Result<Progress, XzError> {
        let b = self.map.blocks[self.current];
        let mut left = b.data_offset + b.uncompressed_size - self.decoded;
        let coder = self.coder.as_mut().expect("prepared with the header");
        self.block
            .decode(coder, input, output, &mut left, u64::MAX)
            .map_err(|e| match e {
                // More data than the Index Record allows.
                XzError::Limit(_) => XzError::IndexRecordMismatch {
                    record: u64::from(b.number),
                    field: "uncompressed size",
                    expected: b.uncompressed_size + 1,
                    found: b.uncompressed_size,
                },
                e => e,
            })
    }

    /// The current Block ended: checks it against its Index Record and
    /// moves to the next one (contiguous Blocks of a stream are read on
    /// without a new input position).
    fn next_block(&mut self, b: MappedBlock) -> Result<(), XzError> {
        let record = self.block.record();
        for (field, expected, found) in [
            ("unpadded size", record.unpadded_size, b.unpadded_size),
            (
                "uncompressed size",
                record.uncompressed_size,
                b.uncompressed_size,
            ),
        ] {
            if expected != found {
                return Err(XzError::IndexRecordMismatch {
                    record: u64::from(b.number),
                    field,
                    expected,
                    found,
                });
            }
        }
        let next = self.current + 1;
        match self.map.blocks.get(next) {
            // Reading on: the next Block follows in the file and holds the
            // position (or is empty and starts there).
            Some(n)
                if n.file_offset == self.in_offset
                    && n.data_offset <= self.pos
                    && (self.pos < n.data_offset + n.uncompressed_size
                        || n.uncompressed_size == 0) =>
            {
                self.current = next;
                self.decoded = n.data_offset;
                self.phase = Phase::Header { have: 0 };
            }
            _ => self.phase = Phase::Seek,
        }
        Ok(())
    }
}

fn need_input(input: &InBuf<'_>, during: &'static str) -> Result<Progress, XzError> {
    if input.is_last() {
        Err(XzError::Truncated { during })
    } else {
        Ok(Progress::NeedInput)
    }
}
