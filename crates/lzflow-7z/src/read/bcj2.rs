//! BCJ2: the x86 branch converter that splits CALL and JMP targets into
//! their own streams, with a range-coded flag per candidate opcode.
//!
//! Streams: 0 main (everything but converted targets), 1 CALL targets,
//! 2 JMP/Jcc targets (both big-endian absolute addresses), 3 the range
//! coder deciding for each E8 / E9 / 0F 8x opcode whether its target was
//! converted. The decoder is resumable at every byte.

use lzflow_core::{InBuf, OutBuf};

use crate::SevenZError;

const PROB_BITS: u32 = 11;
const PROB_INIT: u16 = 1 << (PROB_BITS - 1);
const MOVE_BITS: u32 = 5;
const TOP: u32 = 1 << 24;

/// What the decoder needs to go on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Bcj2Need {
    /// More bytes of this input stream (0..=3).
    Input(usize),
    /// Output room.
    Output,
}

#[derive(Debug, Clone, Copy)]
enum State {
    /// Copying main-stream bytes up to the next branch opcode.
    Copy,
    /// An opcode was written; its flag is still to be decoded.
    Flag { opcode: u8, context: u8 },
    /// Reading a 4-byte target from stream 1 or 2.
    Target {
        stream: usize,
        got: usize,
        bytes: [u8; 4],
    },
    /// Writing a converted 4-byte address.
    Emit { bytes: [u8; 4], pos: usize },
}

pub(crate) struct Bcj2Decoder {
    /// 256 CALL contexts (by previous byte), one JMP, one Jcc.
    probs: [u16; 258],
    range: u32,
    code: u32,
    init_bytes: usize,
    prev: u8,
    /// Bytes produced so far (wrapping), the base of relative addresses.
    pos: u32,
    state: State,
}

fn is_branch(prev: u8, b: u8) -> bool {
    b & 0xFE == 0xE8 || (prev == 0x0F && b & 0xF0 == 0x80)
}

impl Bcj2Decoder {
    pub(crate) fn new() -> Self {
        Bcj2Decoder {
            probs: [PROB_INIT; 258],
            range: 0xFFFF_FFFF,
            code: 0,
            init_bytes: 0,
            prev: 0,
            pos: 0,
            state: State::Copy,
        }
    }

    /// Decodes from the four inputs into `out` until an input or the output
    /// runs out. The caller stops calling once the coder's unpack size is
    /// reached, so a stream is never asked for bytes past its end.
    pub(crate) fn decode(
        &mut self,
        inputs: &mut [InBuf<'_>; 4],
        out: &mut OutBuf<'_>,
    ) -> Result<Bcj2Need, SevenZError> {
        loop {
            match self.state {
                State::Copy => {
                    if out.is_full() {
                        return Ok(Bcj2Need::Output);
                    }
                    let src = inputs[0].remaining();
                    if src.is_empty() {
                        return Ok(Bcj2Need::Input(0));
                    }
                    let room = out.available().min(src.len());
                    let mut n = 0;
                    let mut found = None;
                    let mut prev = self.prev;
                    for &b in &src[..room] {
                        n += 1;
                        if is_branch(prev, b) {
                            found = Some((b, prev));
                            prev = b;
                            break;
                        }
                        prev = b;
                    }
                    out.push(&src[..n]);
                    inputs[0].advance(n);
                    self.pos = self.pos.wrapping_add(n as u32);
                    self.prev = prev;
                    if let Some((opcode, context)) = found {
                        self.state = State::Flag { opcode, context };
                        // At the very end of the output no flag follows: the
                        // caller stops before asking for it.
                        if out.is_full() {
                            return Ok(Bcj2Need::Output);
                        }
                    }
                }
                State::Flag { opcode, context } => {
                    // The range coder starts with five bytes, the first of
                    // which carries nothing; 7-Zip reads them up front, we
                    // read them when the first flag is due.
                    while self.init_bytes < 5 {
                        let Some(b) = inputs[3].take_byte() else {
                            return Ok(Bcj2Need::Input(3));
                        };
                        self.code = (self.code << 8) | u32::from(b);
                        self.init_bytes += 1;
                    }
                    if self.range < TOP {
                        let Some(b) = inputs[3].take_byte() else {
                            return Ok(Bcj2Need::Input(3));
                        };
                        self.range <<= 8;
                        self.code = (self.code << 8) | u32::from(b);
                    }
                    let idx = match opcode {
                        0xE8 => usize::from(context),
                        0xE9 => 256,
                        _ => 257,
                    };
                    let p = u32::from(self.probs[idx]);
                    let bound = (self.range >> PROB_BITS) * p;
                    if self.code < bound {
                        self.range = bound;
                        self.probs[idx] = (p + (((1 << PROB_BITS) - p) >> MOVE_BITS)) as u16;
                        self.state = State::Copy;
                    } else {
                        self.range -= bound;
                        self.code -= bound;
                        self.probs[idx] = (p - (p >> MOVE_BITS)) as u16;
                        self.state = State::Target {
                            stream: if opcode == 0xE8 { 1 } else { 2 },
                            got: 0,
                            bytes: [0; 4],
                        };
                    }
                }
                State::Target {
                    stream,
                    mut got,
                    mut bytes,
                } => {
                    while got < 4 {
                        let Some(b) = inputs[stream].take_byte() else {
                            self.state = State::Target { stream, got, bytes };
                            return Ok(Bcj2Need::Input(stream));
                        };
                        bytes[got] = b;
                        got += 1;
                    }
                    let dest = u32::from_be_bytes(bytes).wrapping_sub(self.pos.wrapping_add(4));
                    self.state = State::Emit {
                        bytes: dest.to_le_bytes(),
                        pos: 0,
                    };
                }
                State::Emit { bytes, mut pos } => {
                    let n = out.push(&bytes[pos..]);
                    pos += n;
                    self.pos = self.pos.wrapping_add(n as u32);
                    if pos < 4 {
                        self.state = State::Emit { bytes, pos };
                        return Ok(Bcj2Need::Output);
                    }
                    self.prev = bytes[3];
                    self.state = State::Copy;
                }
            }
        }
    }
}
