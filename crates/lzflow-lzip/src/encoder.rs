//! The lzip encoder: version-1 members as lzip writes them.

use lzflow_core::{Encode, InBuf, OutBuf, Progress};
use lzflow_lzma::{LzmaEncoder, LzmaError, LzmaOptions, MatchFinder, Mode};

use crate::member_header::{dict_size_to_byte, MemberHeader, HEADER_LEN};
use crate::member_trailer::{self, Observed};
use crate::LzipError;

/// Options of the lzip encoder.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LzipOptions {
    /// The LZMA encoder's options; lc, lp and pb are forced to lzip's 3, 0
    /// and 2, and the dictionary is rounded up to a size lzip can code.
    pub lzma: LzmaOptions,
    /// Bytes of data per member: a new member starts after this many
    /// (lzip's `--member-size`; plzip cuts its input the same way). The
    /// default, `u64::MAX`, writes one member.
    pub member_size: u64,
}

impl Default for LzipOptions {
    /// Level 6, lzip's default.
    fn default() -> Self {
        LzipOptions::preset(6).expect("level 6 exists")
    }
}

impl LzipOptions {
    /// The options of lzip's level `level` (0..=9): dictionaries of 64
    /// KiB, 1, 1.5, 2, 3, 4, 8, 16, 24 and 32 MiB, and match length limits
    /// (nice lengths) of 16, 5, 6, 8, 12, 20, 36, 68, 132 and 273, as lzip's
    /// manual tabulates them. Level 0 uses the fast (greedy) mode, the rest
    /// the normal (optimal) one.
    pub fn preset(level: u32) -> Result<Self, LzmaError> {
        const DICT_KIB: [u32; 10] = [64, 1024, 1536, 2048, 3072, 4096, 8192, 16384, 24576, 32768];
        const NICE: [u32; 10] = [16, 5, 6, 8, 12, 20, 36, 68, 132, 273];
        if level > 9 {
            return Err(LzmaError::Usage("lzip level must be 0..=9"));
        }
        let i = level as usize;
        let (mode, mf) = if level == 0 {
            (Mode::Fast, MatchFinder::Hc4)
        } else {
            (Mode::Normal, MatchFinder::Bt4)
        };
        let lzma = LzmaOptions {
            dict_size: DICT_KIB[i] << 10,
            lc: 3,
            lp: 0,
            pb: 2,
            mode,
            nice_len: NICE[i],
            mf,
            depth: 0,
            match_finder_thread: false,
        };
        Ok(LzipOptions {
            lzma,
            member_size: u64::MAX,
        })
    }

    /// Starts a new member every `bytes` bytes of data (at least 1).
    pub fn with_member_size(mut self, bytes: u64) -> Self {
        self.member_size = bytes.max(1);
        self
    }

    /// The member size for multi-threaded encoding when none was set:
    /// twice the dictionary, as plzip cuts its input (at least 64 KiB).
    pub fn parallel_member_size(&self) -> u64 {
        if self.member_size != u64::MAX {
            return self.member_size;
        }
        (2 * u64::from(self.coded().0.dict_size)).max(64 << 10)
    }

    /// Checks the options without allocating an encoder.
    pub fn validate(&self) -> Result<(), LzipError> {
        Ok(self.coded().0.validate(false)?)
    }

    /// The LZMA options the encoder really uses: lzip's fixed lc/lp/pb and
    /// the dictionary as the header codes it; with the header's DS byte.
    fn coded(&self) -> (LzmaOptions, u8) {
        let (ds, dict_size) = dict_size_to_byte(self.lzma.dict_size);
        let lzma = LzmaOptions {
            dict_size,
            lc: 3,
            lp: 0,
            pb: 2,
            ..self.lzma
        };
        (lzma, ds)
    }
}

/// Where the encoder stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    /// Between members: the next input byte starts one.
    Fresh,
    /// Writing a member header (`pos` bytes out).
    Header { pos: usize },
    /// Compressing a member's data.
    Data,
    /// Ending the member's LZMA stream; `last` ends the file too.
    Finishing { last: bool },
    /// Writing the trailer (`pos` bytes out).
    Trailer { pos: usize, last: bool },
    /// The file is complete.
    Ended,
}

/// Encoder for `.lz` files: version-1 members with the end marker, a
/// CRC32, data size and member size each, as `lzip` writes them and
/// `lzip -t` and `xz` accept them.
///
/// `flush` ends the current member (when it holds data), so everything
/// given so far is decodable; the next byte starts a new member.
#[derive(Debug)]
pub struct LzipEncoder {
    inner: LzmaEncoder,
    header: [u8; HEADER_LEN],
    member_limit: u64,
    phase: Phase,
    crc: crc32fast::Hasher,
    data_size: u64,
    member_size: u64,
    members: u64,
    trailer: [u8; member_trailer::V1_LEN],
}

impl LzipEncoder {
    /// An encoder for `options`.
    pub fn new(options: &LzipOptions) -> Result<Self, LzipError> {
        let (lzma, ds) = options.coded();
        Ok(LzipEncoder {
            inner: LzmaEncoder::new(&lzma, true)?,
            header: MemberHeader::encode(ds),
            member_limit: options.member_size.max(1),
            phase: Phase::Fresh,
            crc: crc32fast::Hasher::new(),
            data_size: 0,
            member_size: 0,
            members: 0,
            trailer: [0; member_trailer::V1_LEN],
        })
    }

    /// Bytes the encoder allocates at most for `options`.
    pub fn memory_usage(options: &LzipOptions) -> u64 {
        LzmaEncoder::memory_usage(&options.coded().0)
    }

    /// Members started so far.
    pub fn members(&self) -> u64 {
        self.members
    }

    /// Starts a new file, keeping allocations.
    pub fn reset(&mut self) {
        self.inner.reset();
        self.phase = Phase::Fresh;
        self.members = 0;
    }

    fn start_member(&mut self) {
        self.crc = crc32fast::Hasher::new();
        self.data_size = 0;
        self.member_size = 0;
        self.members += 1;
        self.phase = Phase::Header { pos: 0 };
    }

    /// Pushes `bytes[pos..]`, counting them into the member; the new
    /// position.
    fn push(&mut self, output: &mut OutBuf<'_>, bytes: &[u8], pos: usize) -> usize {
        let n = output.push(&bytes[pos..]);
        self.member_size += n as u64;
        pos + n
    }

    /// Moves the member (and, with `finishing`, the file) along until it
    /// needs input, runs out of output room or ends.
    fn run(
        &mut self,
        input: &mut InBuf<'_>,
        output: &mut OutBuf<'_>,
        finishing: Option<bool>,
    ) -> Result<Progress, LzipError> {
        loop {
            match self.phase {
                Phase::Fresh => match finishing {
                    // An empty file is one empty member; no empty member
                    // follows others.
                    Some(true) if self.members == 0 => self.start_member(),
                    Some(true) => self.phase = Phase::Ended,
                    Some(false) => return Ok(Progress::NeedInput),
                    None if input.is_empty() => return Ok(Progress::NeedInput),
                    None => self.start_member(),
                },
                Phase::Header { pos } => {
                    let header = self.header;
                    let pos = self.push(output, &header, pos);
                    if pos < HEADER_LEN {
                        self.phase = Phase::Header { pos };
                        return Ok(Progress::OutputFull);
                    }
                    self.phase = Phase::Data;
                }
                Phase::Data => {
                    if let Some(last) = finishing {
                        if last || self.data_size > 0 {
                            self.phase = Phase::Finishing { last };
                            continue;
                        }
                        return Ok(Progress::NeedInput);
                    }
                    let room = self.member_limit - self.data_size;
                    if room == 0 {
                        self.phase = Phase::Finishing { last: false };
                        continue;
                    }
                    let take = input.len().min(usize::try_from(room).unwrap_or(usize::MAX));
                    let mut part = InBuf::new(&input.remaining()[..take]);
                    let out_before = output.pos();
                    let progress = self.inner.encode(&mut part, output)?;
                    let used = part.pos();
                    self.crc.update(&input.remaining()[..used]);
                    input.advance(used);
                    self.data_size += used as u64;
                    self.member_size += (output.pos() - out_before) as u64;
                    if self.data_size == self.member_limit && !input.is_empty() {
                        continue;
                    }
                    return Ok(progress);
                }
                Phase::Finishing { last } => {
                    let out_before = output.pos();
                    let progress = self.inner.finish(output)?;
                    self.member_size += (output.pos() - out_before) as u64;
                    if progress != Progress::StreamEnd {
                        return Ok(Progress::OutputFull);
                    }
                    self.member_size += member_trailer::V1_LEN as u64;
                    self.trailer = member_trailer::encode(Observed {
                        crc32: std::mem::take(&mut self.crc).finalize(),
                        data_size: self.data_size,
                        member_size: self.member_size,
                        member_offset: 0,
                    });
                    self.member_size -= member_trailer::V1_LEN as u64;
                    self.phase = Phase::Trailer { pos: 0, last };
                }
                Phase::Trailer { pos, last } => {
                    let trailer = self.trailer;
                    let pos = self.push(output, &trailer, pos);
                    if pos < trailer.len() {
                        self.phase = Phase::Trailer { pos, last };
                        return Ok(Progress::OutputFull);
                    }
                    self.inner.reset();
                    self.phase = if last { Phase::Ended } else { Phase::Fresh };
                }
                Phase::Ended => return Ok(Progress::StreamEnd),
            }
        }
    }
}

impl Encode for LzipEncoder {
    type Error = LzipError;

    fn encode(
        &mut self,
        input: &mut InBuf<'_>,
        output: &mut OutBuf<'_>,
    ) -> Result<Progress, LzipError> {
        if self.phase == Phase::Ended {
            return Err(LzmaError::Usage("encode after finish").into());
        }
        self.run(input, output, None)
    }

    fn flush(&mut self, output: &mut OutBuf<'_>) -> Result<Progress, LzipError> {
        if self.phase == Phase::Ended {
            return Ok(Progress::NeedInput);
        }
        self.run(&mut InBuf::new(&[]), output, Some(false))
    }

    fn finish(&mut self, output: &mut OutBuf<'_>) -> Result<Progress, LzipError> {
        self.run(&mut InBuf::new(&[]), output, Some(true))
    }
}
