//! The lzip decoder: members one after another, then trailing data is left
//! alone exactly where xz-utils leaves it.

use lzflow_core::{CoderError, Culprit, Decode, InBuf, OutBuf, Progress, Sticky};
use lzflow_lzma::{DecoderOptions, LzmaDecoder, LzmaProps};

use crate::member_header::{MemberHeader, HEADER_LEN, MAGIC};
use crate::member_trailer::{self, Observed};
use crate::LzipError;

/// Where the decoder stands in the file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    /// Matching the ID string; `matched` bytes of it seen.
    Magic { matched: usize },
    /// Reading the version and dictionary bytes (`have` of 2).
    Header { have: usize },
    /// The LZMA stream.
    Stream,
    /// Reading the trailer (`have` of its bytes).
    Trailer { have: usize },
    /// The last member ended; whatever follows is not ours.
    Done,
}

/// Decoder for `.lz` files: every member (versions 0 and 1), each checked
/// against its trailer (CRC32, data size, member size), then stops.
///
/// After at least one member, data that does not start with the ID string
/// ends the file without an error and is left unconsumed; bytes that match
/// the start of the ID string and then differ (or end) are skipped, and a
/// complete ID string starts a member that must be valid. This is
/// xz-utils' rule, so both accept and reject the same files.
#[derive(Debug)]
pub struct LzipDecoder {
    opts: DecoderOptions,
    single_member: bool,
    state: State,
    first_member: bool,
    header: [u8; 2],
    version: u8,
    inner: Option<LzmaDecoder>,
    crc: crc32fast::Hasher,
    data_size: u64,
    member_size: u64,
    /// Input offset of the current member: the sizes of those before it.
    member_offset: u64,
    total_out: u64,
    trailer: [u8; member_trailer::V1_LEN],
    failed: Sticky<LzipError>,
}

impl LzipDecoder {
    /// A decoder of every member, using `opts` for limits (the memory limit
    /// is checked against each member's dictionary, the output limit
    /// against the total) and buffers.
    pub fn new(opts: &DecoderOptions) -> Self {
        LzipDecoder {
            opts: opts.clone(),
            single_member: false,
            state: State::Magic { matched: 0 },
            first_member: true,
            header: [0; 2],
            version: 0,
            inner: None,
            crc: crc32fast::Hasher::new(),
            data_size: 0,
            member_size: 0,
            member_offset: 0,
            total_out: 0,
            trailer: [0; member_trailer::V1_LEN],
            failed: Sticky::default(),
        }
    }

    /// Stop after the first member (like `--single-stream`); what follows
    /// it is left unconsumed.
    pub fn single_member(mut self, on: bool) -> Self {
        self.single_member = on;
        self
    }

    /// Bytes decoded so far, over all members.
    pub fn total_out(&self) -> u64 {
        self.total_out
    }

    fn step(
        &mut self,
        input: &mut InBuf<'_>,
        output: &mut OutBuf<'_>,
    ) -> Result<Progress, LzipError> {
        let need_input = |input: &InBuf<'_>| {
            if input.is_last() {
                Err(LzipError::Truncated)
            } else {
                Ok(Progress::NeedInput)
            }
        };
        loop {
            match self.state {
                State::Magic { matched } => {
                    let Some(&b) = input.remaining().first() else {
                        if !self.first_member && input.is_last() {
                            // A partial ID string at the very end is
                            // trailing data.
                            self.state = State::Done;
                            continue;
                        }
                        return need_input(input);
                    };
                    if b != MAGIC[matched] {
                        if self.first_member {
                            return Err(LzipError::NotLzip);
                        }
                        self.state = State::Done;
                        continue;
                    }
                    input.advance(1);
                    if matched + 1 < MAGIC.len() {
                        self.state = State::Magic {
                            matched: matched + 1,
                        };
                        continue;
                    }
                    self.crc = crc32fast::Hasher::new();
                    self.data_size = 0;
                    self.member_size = MAGIC.len() as u64;
                    self.state = State::Header { have: 0 };
                }
                State::Header { have } => {
                    let got = input.take(2 - have);
                    self.header[have..have + got.len()].copy_from_slice(got);
                    let have = have + got.len();
                    self.state = State::Header { have };
                    if have >= 1 {
                        // The version is judged on its own, before the
                        // dictionary byte arrives (as xz-utils does).
                        MemberHeader::check_version(self.header[0])?;
                    }
                    if have < 2 {
                        return need_input(input);
                    }
                    let header = MemberHeader::parse(self.header[0], self.header[1])?;
                    self.version = header.version;
                    self.member_size += (HEADER_LEN - MAGIC.len()) as u64;
                    let mut opts = self.opts.clone();
                    opts.limits.output = opts.limits.output.saturating_sub(self.total_out);
                    let props = LzmaProps::new(3, 0, 2)?;
                    self.inner = Some(LzmaDecoder::new(props, header.dict_size, None, &opts)?);
                    self.state = State::Stream;
                }
                State::Stream => {
                    let inner = self.inner.as_mut().expect("created with the header");
                    let (in_before, out_before) = (input.pos(), output.pos());
                    let result = inner.decode(input, output);
                    let produced = &output.written()[out_before..];
                    self.crc.update(produced);
                    self.data_size += produced.len() as u64;
                    self.total_out += produced.len() as u64;
                    self.member_size += (input.pos() - in_before) as u64;
                    let offset = self.member_offset;
                    match result.map_err(|e| match e {
                        // Corrupt data names its member; limits and
                        // truncation are the whole input's.
                        e if e.culprit() == Culprit::Corrupt => LzipError::MemberData {
                            member_offset: offset,
                            source: e,
                        },
                        e => LzipError::from(e),
                    })? {
                        // The LZMA decoder takes exactly the stream's bytes
                        // (it holds back only bytes it cannot use yet), so
                        // the trailer starts at the input's position.
                        Progress::StreamEnd => {
                            self.inner = None;
                            self.state = State::Trailer { have: 0 };
                        }
                        p => return Ok(p),
                    }
                }
                State::Trailer { have } => {
                    let len = member_trailer::len(self.version);
                    let got = input.take(len - have);
                    self.trailer[have..have + got.len()].copy_from_slice(got);
                    let have = have + got.len();
                    self.state = State::Trailer { have };
                    if have < len {
                        return need_input(input);
                    }
                    self.member_size += len as u64;
                    let seen = Observed {
                        crc32: std::mem::take(&mut self.crc).finalize(),
                        data_size: self.data_size,
                        member_size: self.member_size,
                        member_offset: self.member_offset,
                    };
                    member_trailer::check(&self.trailer[..len], self.version, seen)?;
                    self.member_offset += self.member_size;
                    self.first_member = false;
                    self.state = if self.single_member {
                        State::Done
                    } else {
                        State::Magic { matched: 0 }
                    };
                }
                State::Done => return Ok(Progress::StreamEnd),
            }
        }
    }
}

impl Decode for LzipDecoder {
    type Error = LzipError;

    fn decode(
        &mut self,
        input: &mut InBuf<'_>,
        output: &mut OutBuf<'_>,
    ) -> Result<Progress, LzipError> {
        self.failed.check()?;
        let r = self.step(input, output);
        self.failed.record(r)
    }
}
