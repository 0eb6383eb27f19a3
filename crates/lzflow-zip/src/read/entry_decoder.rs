//! One entry's data as a single decoder: decryption (ZipCrypto or WinZip
//! AES) when the entry is encrypted, then its method's decompressor, then
//! the checks: the CRC-32 (not for AE-2, which stores none) and the size
//! the central directory gives.

use lzflow_core::{Decode, InBuf, Lease, OutBuf, Pool, Progress};

use crate::read::method::EntryCoder;
use crate::ZipError;

/// Decrypted bytes held between the two stages.
const STAGE: usize = 32 << 10;

/// The decoder of an entry's stored bytes into its data.
pub(crate) struct EntryDecoder {
    decrypt: Option<Stage>,
    decompress: EntryCoder,
    checks: Checks,
}

/// The decryption stage and the decrypted bytes it has made.
struct Stage {
    coder: EntryCoder,
    buf: Lease<u8>,
    start: usize,
    end: usize,
    done: bool,
}

/// What the data must be: its size and (but for AE-2) its CRC-32.
struct Checks {
    crc: crc32fast::Hasher,
    want_crc: Option<u32>,
    size: u64,
    produced: u64,
    ended: bool,
}

impl Checks {
    /// Accounts for `made` and, at the stream's end, checks it all.
    fn after(&mut self, p: Progress, made: &[u8]) -> Result<Progress, ZipError> {
        self.crc.update(made);
        self.produced = self.produced.saturating_add(made.len() as u64);
        if self.produced > self.size {
            return Err(ZipError::corrupt("entry data is longer than its size"));
        }
        if p != Progress::StreamEnd {
            return Ok(p);
        }
        if self.produced != self.size {
            return Err(ZipError::corrupt("entry data is shorter than its size"));
        }
        let crc = std::mem::take(&mut self.crc).finalize();
        if self.want_crc.is_some_and(|want| want != crc) {
            // The reader names the entry.
            return Err(ZipError::DataCrc {
                entry: String::new(),
            });
        }
        self.ended = true;
        Ok(p)
    }
}

/// One call of the decompressor, its output checked.
fn decompress(
    coder: &mut EntryCoder,
    checks: &mut Checks,
    input: &mut InBuf<'_>,
    output: &mut OutBuf<'_>,
) -> Result<Progress, ZipError> {
    let before = output.pos();
    let p = coder.decode(input, output)?;
    checks.after(p, &output.written()[before..])
}

impl EntryDecoder {
    /// Decodes with `decompress` after `decrypt` (if any); the data must
    /// be `size` bytes with CRC-32 `want_crc`.
    pub(crate) fn new(
        decrypt: Option<EntryCoder>,
        decompress: EntryCoder,
        want_crc: Option<u32>,
        size: u64,
    ) -> Self {
        let decrypt = decrypt.map(|coder| {
            let mut buf = Pool::<u8>::global().lease(STAGE);
            buf.resize(STAGE, 0);
            Stage {
                coder,
                buf,
                start: 0,
                end: 0,
                done: false,
            }
        });
        EntryDecoder {
            decrypt,
            decompress,
            checks: Checks {
                crc: crc32fast::Hasher::new(),
                want_crc,
                size,
                produced: 0,
                ended: false,
            },
        }
    }
}

impl Decode for EntryDecoder {
    type Error = ZipError;
    fn decode(
        &mut self,
        input: &mut InBuf<'_>,
        output: &mut OutBuf<'_>,
    ) -> Result<Progress, ZipError> {
        if self.checks.ended {
            return Ok(Progress::StreamEnd);
        }
        let Some(stage) = &mut self.decrypt else {
            return decompress(&mut self.decompress, &mut self.checks, input, output);
        };
        loop {
            if stage.start == stage.end && !stage.done {
                let mut room = OutBuf::new(&mut stage.buf[..]);
                let p = stage.coder.decode(input, &mut room)?;
                stage.start = 0;
                stage.end = room.pos();
                stage.done = p == Progress::StreamEnd;
                if stage.end == 0 && !stage.done {
                    // More input wanted (the stage reports truncation
                    // itself when the input is the last).
                    return Ok(Progress::NeedInput);
                }
            }
            let mut mid = InBuf::new(&stage.buf[stage.start..stage.end]).with_last(stage.done);
            let p = decompress(&mut self.decompress, &mut self.checks, &mut mid, output)?;
            stage.start += mid.pos();
            if p != Progress::NeedInput {
                return Ok(p);
            }
        }
    }
}
