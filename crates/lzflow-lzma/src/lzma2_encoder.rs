//! The LZMA2 encoder: LZMA data cut into chunks of at most 2 MiB
//! uncompressed and 64 KiB compressed, each with a control byte saying what
//! it resets, and chunks that would not shrink stored uncompressed.

use lzflow_core::{Encode, InBuf, Lease, OutBuf, Pool, Progress};

use crate::encoder_options::LzmaOptions;
use crate::encoder_state::{LzmaCore, CHUNK_UNCOMPRESSED_MAX};
use crate::lzma_encoder::{RunLimit, Stop};
use crate::{lzma2_props_byte, LzmaError};

/// Most compressed bytes in one LZMA chunk, and most bytes in one
/// uncompressed chunk.
const CHUNK_COMPRESSED_MAX: usize = 64 << 10;
/// Control byte of an uncompressed chunk that resets the dictionary, and
/// of one that does not.
const CONTROL_RAW_DICT_RESET: u8 = 0x01;
const CONTROL_RAW: u8 = 0x02;
/// Control byte of an LZMA chunk; bits 5-6 say what it resets.
const CONTROL_LZMA: u8 = 0x80;
const RESET_STATE: u8 = 1 << 5;
const RESET_STATE_PROPS: u8 = 2 << 5;
const RESET_ALL: u8 = 3 << 5;
/// The end of an LZMA2 stream.
const CONTROL_END: u8 = 0x00;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    Running,
    Finished,
}

/// Streaming LZMA2 encoder (the payload of an XZ block or a 7z LZMA2
/// coder), a sans-I/O [`Encode`].
///
/// Output does not depend on how input is split across `encode()` calls
/// or on the size of the output buffers. `flush()` ends the current chunk
/// so that everything given so far decodes; `finish()` also writes the end
/// byte. [`reset`](Self::reset) starts an independent stream (the next XZ
/// block) with the allocations kept.
#[derive(Debug)]
pub struct Lzma2Encoder {
    core: LzmaCore,
    props_byte: u8,
    props: u8,
    need_dict_reset: bool,
    need_props: bool,
    need_state_reset: bool,
    /// Absolute position where the chunk being built starts.
    chunk_start: u64,
    /// Finished chunk bytes waiting for output room.
    out: Lease<u8>,
    out_pos: usize,
    phase: Phase,
}

impl Lzma2Encoder {
    /// An encoder for `opts` (checked: lc + lp <= 4, sizes in range).
    pub fn new(opts: &LzmaOptions) -> Result<Self, LzmaError> {
        Self::build(opts, None)
    }

    /// An encoder for an input of about `size` bytes: the dictionary is
    /// fitted to it ([`LzmaOptions::fitted_to`]; the properties byte
    /// states the fitted size) and the window starts at that size, so a
    /// small input allocates little. More input than `size` is still
    /// encoded correctly (the window grows), with the smaller dictionary.
    pub fn with_size_hint(opts: &LzmaOptions, size: u64) -> Result<Self, LzmaError> {
        Self::build(&opts.fitted_to(size), Some(size))
    }

    fn build(opts: &LzmaOptions, size_hint: Option<u64>) -> Result<Self, LzmaError> {
        let core = LzmaCore::new(opts, true, size_hint)?;
        Ok(Lzma2Encoder {
            core,
            props_byte: lzma2_props_byte(opts.dict_size),
            props: opts.props().to_byte(),
            need_dict_reset: true,
            need_props: true,
            need_state_reset: false,
            chunk_start: 0,
            out: Pool::<u8>::global().lease(CHUNK_COMPRESSED_MAX + 16),
            out_pos: 0,
            phase: Phase::Running,
        })
    }

    /// Bytes the encoder allocates at most for `opts`: the window
    /// (history of max(dict_size, 2 MiB), lookahead, and a reserve of
    /// max(dict_size / 2, 1 MiB)), the match finder's tables (4 bytes per
    /// hash entry, plus 4 per dictionary byte for hash chains or 8 for
    /// binary trees), the probability and price tables and two 64 KiB
    /// chunk buffers. Preset 6 needs about 94 MiB, preset 9 about 680 MiB.
    /// Small inputs touch only part of it.
    pub fn memory_usage(opts: &LzmaOptions) -> u64 {
        LzmaCore::memory_usage(opts, true)
    }

    /// The dictionary size in use (fitted by
    /// [`with_size_hint`](Self::with_size_hint)).
    pub fn dict_size(&self) -> u32 {
        self.core.dict_size
    }

    /// The LZMA2 properties byte (dictionary size) for XZ filter flags and
    /// 7z coder properties.
    pub fn props_byte(&self) -> u8 {
        self.props_byte
    }

    /// Starts a new independent stream (e.g. the next XZ block), keeping
    /// all allocations.
    pub fn reset(&mut self) {
        self.core.reset();
        self.need_dict_reset = true;
        self.need_props = true;
        self.need_state_reset = false;
        self.chunk_start = 0;
        self.out.clear();
        self.out_pos = 0;
        self.phase = Phase::Running;
    }

    /// Uncompressed bytes taken so far in this stream.
    pub fn total_in(&self) -> u64 {
        self.core.mf.end()
    }

    fn limit(&self, finishing: bool) -> RunLimit {
        RunLimit {
            finishing,
            max_pos: self.chunk_start + CHUNK_UNCOMPRESSED_MAX,
            max_compressed: CHUNK_COMPRESSED_MAX,
            batch_bytes: usize::MAX,
        }
    }

    /// Hands out pending chunk bytes; true when none are left.
    fn drain(&mut self, output: &mut OutBuf<'_>) -> bool {
        self.out_pos += output.push(&self.out[self.out_pos..]);
        if self.out_pos == self.out.len() {
            self.out.clear();
            self.out_pos = 0;
            true
        } else {
            false
        }
    }

    /// Closes the chunk being built (if it holds anything) into `out`.
    fn emit_chunk(&mut self) {
        let unc = (self.core.pos - self.chunk_start) as usize;
        if unc == 0 {
            return;
        }
        self.core.rc.flush();
        let comp = self.core.rc.out.len();
        if comp >= unc {
            // Not worth it: send the bytes as they are. The probabilities
            // advanced past what the decoder will see, so the next LZMA
            // chunk must reset the state.
            let start = self.core.idx(self.chunk_start);
            for piece in self.core.mf.buf[start..start + unc].chunks(CHUNK_COMPRESSED_MAX) {
                let control = if self.need_dict_reset {
                    CONTROL_RAW_DICT_RESET
                } else {
                    CONTROL_RAW
                };
                self.need_dict_reset = false;
                let n = piece.len() - 1;
                self.out
                    .extend_from_slice(&[control, (n >> 8) as u8, n as u8]);
                self.out.extend_from_slice(piece);
            }
            self.core.reset_state();
            self.need_state_reset = true;
        } else {
            let reset = if self.need_dict_reset {
                RESET_ALL
            } else if self.need_props {
                RESET_STATE_PROPS
            } else if self.need_state_reset {
                RESET_STATE
            } else {
                0
            };
            let u = unc - 1;
            let c = comp - 1;
            self.out.extend_from_slice(&[
                CONTROL_LZMA | reset | (u >> 16) as u8,
                (u >> 8) as u8,
                u as u8,
                (c >> 8) as u8,
                c as u8,
            ]);
            if reset >= RESET_STATE_PROPS {
                self.out.push(self.props);
            }
            self.out.extend_from_slice(&self.core.rc.out);
            self.need_dict_reset = false;
            self.need_props = false;
            self.need_state_reset = false;
        }
        self.core.rc.out.clear();
        self.core.rc.reset();
        self.chunk_start = self.core.pos;
    }
}

impl Encode for Lzma2Encoder {
    type Error = LzmaError;

    fn encode(
        &mut self,
        input: &mut InBuf<'_>,
        output: &mut OutBuf<'_>,
    ) -> Result<Progress, LzmaError> {
        if self.phase == Phase::Finished {
            return Err(LzmaError::Usage("encode() called after finish()"));
        }
        loop {
            if !self.drain(output) {
                return Ok(Progress::OutputFull);
            }
            let keep = self.core.keep_from(self.chunk_start);
            let n = self.core.mf.fill(input.remaining(), keep);
            input.advance(n);
            let before = self.core.pos;
            match self.core.run(self.limit(false)) {
                Stop::ChunkFull => self.emit_chunk(),
                _ if input.is_empty() => return Ok(Progress::NeedInput),
                // Neither room for input nor anything to code: a bug, but
                // an error beats a caller spinning forever.
                _ if n == 0 && self.core.pos == before => {
                    return Err(LzmaError::Usage("encoder window is full"))
                }
                _ => {}
            }
        }
    }

    fn flush(&mut self, output: &mut OutBuf<'_>) -> Result<Progress, LzmaError> {
        loop {
            if !self.drain(output) {
                return Ok(Progress::OutputFull);
            }
            if self.phase == Phase::Finished {
                return Ok(Progress::NeedInput);
            }
            match self.core.run(self.limit(true)) {
                Stop::ChunkFull => self.emit_chunk(),
                _ => {
                    if self.core.pos == self.chunk_start {
                        return Ok(Progress::NeedInput);
                    }
                    self.emit_chunk();
                }
            }
        }
    }

    fn finish(&mut self, output: &mut OutBuf<'_>) -> Result<Progress, LzmaError> {
        loop {
            if !self.drain(output) {
                return Ok(Progress::OutputFull);
            }
            if self.phase == Phase::Finished {
                return Ok(Progress::StreamEnd);
            }
            match self.core.run(self.limit(true)) {
                Stop::ChunkFull => self.emit_chunk(),
                _ => {
                    self.emit_chunk();
                    self.out.push(CONTROL_END);
                    self.phase = Phase::Finished;
                }
            }
        }
    }
}
