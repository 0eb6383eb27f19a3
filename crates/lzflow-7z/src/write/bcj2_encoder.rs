//! BCJ2 encoding, the inverse of [`read::bcj2`](crate::read::bcj2): the x86
//! branch converter that moves CALL and JMP/Jcc targets into streams of
//! their own, and the folder stage that compresses its four outputs.
//!
//! [`Bcj2Encoder`] scans for E8 (CALL), E9 (JMP) and 0F 80..8F (Jcc). Every
//! such opcode gets a flag in a range-coded stream (LZMA's binary coder
//! and probabilities: one per previous byte for E8, one for E9, one for
//! Jcc, exactly the model the decoder keeps). Flag 1 means converted: the
//! 32-bit target, made absolute (relative value + stream position after
//! the instruction), goes big-endian to the CALL stream (E8) or the JUMP
//! stream (E9, Jcc) instead of the main stream. Flag 0 leaves the four
//! bytes in the main stream, where they are scanned like any others.
//!
//! The decision is the encoder's alone (the decoder follows the flags).
//! A target is converted when it lands inside the entry it belongs to,
//! measured from the entry's first byte: below the entry's size when that
//! is known (7-Zip's rule), and within 16 MiB either way of the
//! instruction when it is not (streamed entries of unknown size).
//!
//! [`Bcj2Stage`] is the folder engine made of it: the main stream goes
//! through the folder's LZ coder into the folder's first packed stream as
//! it is produced; the CALL and JUMP streams go through LZMA coders of
//! their own (lc=0, lp=2, a dictionary of at most 1 MiB, as 7-Zip makes
//! them) into memory, and so does the flag stream (stored as it is); these
//! three small packed streams follow the main one when the folder ends
//! (flags, CALL, JUMP: 7-Zip's order).

use lzflow_core::{Encode, InBuf, OutBuf, Progress};
use lzflow_lzma::{LzmaEncoder, LzmaOptions, MatchFinder, Mode, RangeEncoder};

use crate::write::folder_encoder::Lz;
use crate::SevenZError;

/// A probability of one half (LZMA's 11-bit probabilities).
const PROB_INIT: u16 = 1 << 10;

/// Relative targets within this distance count as branches when the
/// entry's size is not known.
const STREAM_RELAT_LIMIT: i64 = 1 << 24;

/// Side-stream bytes held back before their LZMA coder is made: a stream
/// that ends within it gets a dictionary fitted to its size.
const SIDE_HOLD: usize = 1 << 20;

/// Input bytes appended to the few carried ones at a time.
const TOP_UP: usize = 16;

/// The LZMA options of the CALL and JUMP streams (7-Zip's: a 1 MiB
/// dictionary, 128 fast bytes, lc=0, lp=2, pb=2, normal mode, bt4).
pub(crate) fn side_options() -> LzmaOptions {
    LzmaOptions {
        dict_size: 1 << 20,
        lc: 0,
        lp: 2,
        pb: 2,
        mode: Mode::Normal,
        nice_len: 128,
        mf: MatchFinder::Bt4,
        depth: 0,
        match_finder_thread: false,
    }
}

fn is_branch(prev: u8, b: u8) -> bool {
    b & 0xFE == 0xE8 || (prev == 0x0F && b & 0xF0 == 0x80)
}

/// The converter's outputs besides the main stream, appended to; the
/// caller takes them away between calls.
#[derive(Default)]
pub(crate) struct Bcj2Sides {
    /// Converted CALL targets (stream 1), big-endian absolute.
    pub(crate) call: Vec<u8>,
    /// Converted JMP/Jcc targets (stream 2), big-endian absolute.
    pub(crate) jump: Vec<u8>,
    /// The range-coded flags (stream 3).
    pub(crate) rc: Vec<u8>,
}

/// Why a scan stopped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Stop {
    /// Every byte was taken.
    Done,
    /// The main output has no room.
    OutFull,
    /// A branch opcode needs the 4 bytes after it, which have not come.
    NeedMore,
}

/// The sans-I/O BCJ2 converter: input in, the main stream out, the other
/// three streams appended to [`Bcj2Sides`]. Resumable at every byte; its
/// output does not depend on how the input is split.
pub(crate) struct Bcj2Encoder {
    /// 256 CALL contexts (by previous byte), one JMP, one Jcc.
    probs: [u16; 258],
    rc: RangeEncoder,
    prev: u8,
    /// Stream position of the next byte scanned.
    pos: u64,
    /// Input taken but not yet scanned: an opcode at the end of the input
    /// so far and the (fewer than 4) bytes after it.
    carry: [u8; 4],
    carry_len: usize,
    /// Where the current entry starts in the stream, and its size if known.
    file_start: u64,
    file_size: Option<u64>,
    flushed: bool,
}

impl Default for Bcj2Encoder {
    fn default() -> Self {
        Self::new()
    }
}

impl Bcj2Encoder {
    pub(crate) fn new() -> Self {
        Bcj2Encoder {
            probs: [PROB_INIT; 258],
            rc: RangeEncoder::new(),
            prev: 0,
            pos: 0,
            carry: [0; 4],
            carry_len: 0,
            file_start: 0,
            file_size: None,
            flushed: false,
        }
    }

    /// Bytes taken so far (the position in the stream of the next input
    /// byte).
    pub(crate) fn total_in(&self) -> u64 {
        self.pos + self.carry_len as u64
    }

    /// The next input byte starts an entry of `size` bytes (if known):
    /// targets inside it are converted.
    pub(crate) fn start_file(&mut self, size: Option<u64>) {
        self.file_start = self.total_in();
        self.file_size = size;
    }

    /// Converts what `input` holds into `main` and `sides`, until the
    /// input is taken or `main` is full. Up to 4 bytes at the end of the
    /// input may be held until more comes (or [`finish`](Self::finish)).
    pub(crate) fn encode(
        &mut self,
        input: &mut InBuf<'_>,
        main: &mut OutBuf<'_>,
        sides: &mut Bcj2Sides,
    ) -> Progress {
        if self.carry_len > 0 {
            let data = input.remaining();
            let c = self.carry_len;
            let take = data.len().min(TOP_UP);
            let mut buf = [0u8; 4 + TOP_UP];
            buf[..c].copy_from_slice(&self.carry[..c]);
            buf[c..c + take].copy_from_slice(&data[..take]);
            let (used, stop) = self.scan(&buf[..c + take], false, main, sides);
            if used >= c {
                self.carry_len = 0;
                input.advance(used - c);
                if stop == Stop::OutFull {
                    return Progress::OutputFull;
                }
            } else if stop == Stop::NeedMore {
                // Still short of the opcode's 4 bytes: all of it waits.
                self.set_carry(&buf[used..c + take]);
                input.advance(take);
                return Progress::NeedInput;
            } else {
                self.set_carry(&buf[used..c]);
                return Progress::OutputFull;
            }
        }
        let data = input.remaining();
        let (used, stop) = self.scan(data, false, main, sides);
        input.advance(used);
        match stop {
            Stop::Done => Progress::NeedInput,
            Stop::OutFull => Progress::OutputFull,
            Stop::NeedMore => {
                self.set_carry(&data[used..]);
                input.advance(data.len() - used);
                Progress::NeedInput
            }
        }
    }

    fn set_carry(&mut self, bytes: &[u8]) {
        self.carry[..bytes.len()].copy_from_slice(bytes);
        self.carry_len = bytes.len();
    }

    /// Ends the stream: the held bytes (an opcode near the end gets flag
    /// 0) and the range coder's last bytes. `StreamEnd` once done;
    /// `OutputFull` asks for room in `main` first.
    pub(crate) fn finish(&mut self, main: &mut OutBuf<'_>, sides: &mut Bcj2Sides) -> Progress {
        if self.carry_len > 0 {
            let held = self.carry;
            let c = self.carry_len;
            let (used, stop) = self.scan(&held[..c], true, main, sides);
            self.set_carry(&held[used..c]);
            if stop == Stop::OutFull {
                return Progress::OutputFull;
            }
        }
        if !self.flushed {
            self.rc.flush();
            self.rc.take_output(&mut sides.rc);
            self.flushed = true;
        }
        Progress::StreamEnd
    }

    /// Scans `data` from its start; `last` when nothing follows it in the
    /// stream. Gives the bytes taken and why it stopped.
    fn scan(
        &mut self,
        data: &[u8],
        last: bool,
        main: &mut OutBuf<'_>,
        sides: &mut Bcj2Sides,
    ) -> (usize, Stop) {
        let n = data.len();
        let mut i = 0;
        while i < n {
            let limit = n.min(i + main.available());
            let mut prev = self.prev;
            let mut j = i;
            while j < limit {
                let b = data[j];
                if is_branch(prev, b) {
                    break;
                }
                prev = b;
                j += 1;
            }
            main.push(&data[i..j]);
            self.pos += (j - i) as u64;
            self.prev = prev;
            i = j;
            if i == n {
                break;
            }
            if i == limit {
                return (i, Stop::OutFull);
            }
            let b = data[i];
            let whole = n - i >= 5;
            if !whole && !last {
                return (i, Stop::NeedMore);
            }
            main.push(&data[i..=i]);
            let idx = match b {
                0xE8 => usize::from(prev),
                0xE9 => 256,
                _ => 257,
            };
            let rel = if whole {
                Some(i32::from_le_bytes([
                    data[i + 1],
                    data[i + 2],
                    data[i + 3],
                    data[i + 4],
                ]))
            } else {
                None
            };
            let convert = rel.is_some_and(|r| self.should_convert(r));
            self.rc.bit(&mut self.probs[idx], u32::from(convert));
            self.rc.take_output(&mut sides.rc);
            match rel {
                Some(r) if convert => {
                    let after = self.pos.wrapping_add(5) as u32;
                    let target = after.wrapping_add(r as u32).to_be_bytes();
                    let to = if b == 0xE8 {
                        &mut sides.call
                    } else {
                        &mut sides.jump
                    };
                    to.extend_from_slice(&target);
                    self.prev = data[i + 4];
                    self.pos += 5;
                    i += 5;
                }
                _ => {
                    self.prev = b;
                    self.pos += 1;
                    i += 1;
                }
            }
        }
        (n, Stop::Done)
    }

    /// Whether the branch whose opcode is at `self.pos` with relative
    /// target `rel` is converted: its target lies inside the entry.
    fn should_convert(&self, rel: i32) -> bool {
        let after = self.pos + 5;
        let target = after as i64 - self.file_start as i64 + i64::from(rel);
        match self.file_size {
            Some(size) => target >= 0 && (target as u64) < size,
            None => {
                target >= 0 && (-STREAM_RELAT_LIMIT..STREAM_RELAT_LIMIT).contains(&i64::from(rel))
            }
        }
    }
}

/// A CALL or JUMP stream's LZMA coder and its packed output.
struct SideCoder {
    /// Raw bytes held back until the coder is made.
    held: Vec<u8>,
    enc: Option<Box<LzmaEncoder>>,
    /// The packed stream (kept until the folder ends).
    packed: Vec<u8>,
    /// Raw bytes in all.
    total: u64,
    /// The dictionary the coder was made with.
    dict_size: u32,
    finished: bool,
}

impl SideCoder {
    fn new() -> Self {
        SideCoder {
            held: Vec::new(),
            enc: None,
            packed: Vec::new(),
            total: 0,
            dict_size: side_options().dict_size,
            finished: false,
        }
    }

    fn push(&mut self, data: &[u8], scratch: &mut [u8]) -> Result<(), SevenZError> {
        if data.is_empty() {
            return Ok(());
        }
        self.total += data.len() as u64;
        match &mut self.enc {
            Some(enc) => feed(enc, data, &mut self.packed, scratch),
            None => {
                self.held.extend_from_slice(data);
                if self.held.len() < SIDE_HOLD {
                    return Ok(());
                }
                let opts = side_options();
                let mut enc = Box::new(LzmaEncoder::new(&opts, false)?);
                self.dict_size = opts.dict_size;
                let held = std::mem::take(&mut self.held);
                feed(&mut enc, &held, &mut self.packed, scratch)?;
                self.enc = Some(enc);
                Ok(())
            }
        }
    }

    fn finish(&mut self, scratch: &mut [u8]) -> Result<(), SevenZError> {
        if self.finished {
            return Ok(());
        }
        let enc = match &mut self.enc {
            Some(enc) => enc,
            None => {
                let held = std::mem::take(&mut self.held);
                let mut enc = Box::new(LzmaEncoder::with_size_hint(
                    &side_options(),
                    false,
                    held.len() as u64,
                )?);
                self.dict_size = enc.dict_size();
                feed(&mut enc, &held, &mut self.packed, scratch)?;
                self.enc.insert(enc)
            }
        };
        loop {
            let mut out = OutBuf::new(scratch);
            let p = enc.finish(&mut out)?;
            self.packed.extend_from_slice(out.written());
            if p == Progress::StreamEnd {
                break;
            }
        }
        self.enc = None;
        self.finished = true;
        Ok(())
    }
}

fn feed(
    enc: &mut LzmaEncoder,
    data: &[u8],
    packed: &mut Vec<u8>,
    scratch: &mut [u8],
) -> Result<(), SevenZError> {
    let mut input = InBuf::new(data);
    loop {
        let mut out = OutBuf::new(scratch);
        let p = enc.encode(&mut input, &mut out)?;
        packed.extend_from_slice(out.written());
        if p == Progress::NeedInput && input.is_empty() {
            return Ok(());
        }
    }
}

/// What a finished BCJ2 folder's record needs about its streams.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Bcj2Sizes {
    /// Raw sizes of the main, CALL and JUMP streams (the LZ coders'
    /// unpack sizes).
    pub(crate) raw: [u64; 3],
    /// Dictionaries of the CALL and JUMP coders.
    pub(crate) side_dicts: [u32; 2],
}

/// A BCJ2 folder's engine: the converter, the main stream's LZ coder (the
/// folder's method) and the side streams' coders.
pub(crate) struct Bcj2Stage {
    conv: Bcj2Encoder,
    main: Lz,
    /// Main-stream bytes not yet taken by `main`.
    buf: Vec<u8>,
    start: usize,
    len: usize,
    main_total: u64,
    sides: Bcj2Sides,
    call: SideCoder,
    jump: SideCoder,
    scratch: Vec<u8>,
    converted: bool,
}

/// Main-stream bytes converted at a time.
const MAIN_BUF: usize = 16 << 10;

impl Bcj2Stage {
    /// A stage whose main stream goes through `main`.
    pub(crate) fn new(main: Lz) -> Self {
        Bcj2Stage {
            conv: Bcj2Encoder::new(),
            main,
            buf: vec![0; MAIN_BUF],
            start: 0,
            len: 0,
            main_total: 0,
            sides: Bcj2Sides::default(),
            call: SideCoder::new(),
            jump: SideCoder::new(),
            scratch: vec![0; 16 << 10],
            converted: false,
        }
    }

    /// Gives back the main stream's LZ coder.
    pub(crate) fn into_lz(self) -> Lz {
        self.main
    }

    /// The next input byte starts an entry of `size` bytes, if known.
    pub(crate) fn start_file(&mut self, size: Option<u64>) {
        self.conv.start_file(size);
    }

    /// Hands the converter's CALL and JUMP bytes to their coders.
    fn take_sides(&mut self) -> Result<(), SevenZError> {
        self.call.push(&self.sides.call, &mut self.scratch)?;
        self.sides.call.clear();
        self.jump.push(&self.sides.jump, &mut self.scratch)?;
        self.sides.jump.clear();
        Ok(())
    }

    /// Feeds converted main bytes to the LZ coder; true when all are taken.
    fn drain_main(&mut self, output: &mut OutBuf<'_>) -> Result<bool, SevenZError> {
        if self.start == self.len {
            return Ok(true);
        }
        let mut input = InBuf::new(&self.buf[self.start..self.len]);
        let p = self.main.encode(&mut input, output)?;
        self.start = self.len - input.remaining().len();
        Ok(self.start == self.len && p == Progress::NeedInput)
    }

    /// Converts and compresses `input`; `NeedInput` once it is all taken,
    /// `OutputFull` when `output` needs emptying first.
    pub(crate) fn encode(
        &mut self,
        input: &mut InBuf<'_>,
        output: &mut OutBuf<'_>,
    ) -> Result<Progress, SevenZError> {
        loop {
            if !self.drain_main(output)? {
                return Ok(Progress::OutputFull);
            }
            if input.is_empty() {
                return Ok(Progress::NeedInput);
            }
            let mut main = OutBuf::new(&mut self.buf);
            self.conv.encode(input, &mut main, &mut self.sides);
            self.start = 0;
            self.len = main.pos();
            self.main_total += self.len as u64;
            self.take_sides()?;
        }
    }

    /// Ends the converter and the main stream; `StreamEnd` once the main
    /// packed stream is complete. The side streams are then ready for
    /// [`finish_sides`](Self::finish_sides).
    pub(crate) fn finish(&mut self, output: &mut OutBuf<'_>) -> Result<Progress, SevenZError> {
        if !self.drain_main(output)? {
            return Ok(Progress::OutputFull);
        }
        while !self.converted {
            let mut main = OutBuf::new(&mut self.buf);
            let p = self.conv.finish(&mut main, &mut self.sides);
            self.start = 0;
            self.len = main.pos();
            self.main_total += self.len as u64;
            self.take_sides()?;
            self.converted = p == Progress::StreamEnd;
            if !self.drain_main(output)? {
                return Ok(Progress::OutputFull);
            }
        }
        self.main.finish(output)
    }

    /// Ends the CALL and JUMP coders; gives the flag stream and the packed
    /// CALL and JUMP streams (in that order, 7-Zip's order after the main
    /// stream) and the sizes the folder record needs.
    pub(crate) fn finish_sides(&mut self) -> Result<([&[u8]; 3], Bcj2Sizes), SevenZError> {
        self.call.finish(&mut self.scratch)?;
        self.jump.finish(&mut self.scratch)?;
        let sizes = Bcj2Sizes {
            raw: [self.main_total, self.call.total, self.jump.total],
            side_dicts: [self.call.dict_size, self.jump.dict_size],
        };
        Ok((
            [&self.sides.rc, &self.call.packed, &self.jump.packed],
            sizes,
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::read::bcj2::{Bcj2Decoder, Bcj2Need};

    /// Converts `data` fed in pieces of `step` bytes (main output room of
    /// `room` bytes a call), with `files` entry boundaries.
    fn convert(
        data: &[u8],
        step: usize,
        room: usize,
        files: &[(usize, Option<u64>)],
    ) -> [Vec<u8>; 4] {
        let mut enc = Bcj2Encoder::new();
        let mut sides = Bcj2Sides::default();
        let mut main = Vec::new();
        let mut buf = vec![0u8; room];
        let mut at = 0;
        let mut next_file = 0;
        while at < data.len() {
            if next_file < files.len() && files[next_file].0 == at {
                enc.start_file(files[next_file].1);
                next_file += 1;
            }
            let mut end = at.saturating_add(step).min(data.len());
            if next_file < files.len() {
                end = end.min(files[next_file].0);
            }
            let mut input = InBuf::new(&data[at..end]);
            loop {
                let mut out = OutBuf::new(&mut buf);
                let p = enc.encode(&mut input, &mut out, &mut sides);
                main.extend_from_slice(out.written());
                if p == Progress::NeedInput {
                    break;
                }
            }
            assert!(input.is_empty());
            at = end;
        }
        loop {
            let mut out = OutBuf::new(&mut buf);
            let p = enc.finish(&mut out, &mut sides);
            main.extend_from_slice(out.written());
            if p == Progress::StreamEnd {
                break;
            }
        }
        [main, sides.call, sides.jump, sides.rc]
    }

    fn decode(streams: &[Vec<u8>; 4], size: usize) -> Vec<u8> {
        let mut dec = Bcj2Decoder::new();
        let mut out = vec![0u8; size];
        let mut inputs = [
            InBuf::new(&streams[0]),
            InBuf::new(&streams[1]),
            InBuf::new(&streams[2]),
            InBuf::new(&streams[3]),
        ];
        let mut o = OutBuf::new(&mut out);
        while !o.is_full() {
            match dec.decode(&mut inputs, &mut o).unwrap() {
                Bcj2Need::Output => {}
                Bcj2Need::Input(i) => panic!("stream {i} ran out"),
            }
        }
        for (i, s) in inputs.iter().enumerate().take(3) {
            assert!(s.is_empty(), "stream {i} not used up");
        }
        out
    }

    struct Rng(u64);
    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            self.0
        }
    }

    /// Random bytes, and bytes full of E8 / E9 / 0F 8x opcodes with near
    /// and far targets.
    fn samples() -> Vec<Vec<u8>> {
        let mut rng = Rng(0x1234_5678_9abc_def1);
        let random: Vec<u8> = (0..20_000).map(|_| rng.next() as u8).collect();
        let mut code = Vec::new();
        while code.len() < 30_000 {
            match rng.next() % 6 {
                0 => code.push(0xE8),
                1 => code.push(0xE9),
                2 => code.extend_from_slice(&[0x0F, 0x80 | (rng.next() as u8 & 0x0F)]),
                3 => code.push(0x0F),
                _ => code.push(rng.next() as u8),
            }
            if rng.next().is_multiple_of(2) {
                let rel = (rng.next() % 40_000) as i32 - 20_000;
                code.extend_from_slice(&rel.to_le_bytes());
            }
        }
        let mut ends = vec![0xE8; 7];
        ends.extend_from_slice(&[0x0F, 0x85, 1, 0, 0, 0, 0x0F]);
        vec![random, code, ends, vec![0xE8], vec![0x0F, 0x8F], Vec::new()]
    }

    #[test]
    fn round_trips_at_every_split() {
        for data in samples() {
            let files = [(0, Some(data.len() as u64))];
            let whole = convert(&data, usize::MAX, 1 << 20, &files);
            assert_eq!(decode(&whole, data.len()), data);
            for step in [1, 2, 3, 5, 7, 4096] {
                for room in [1, 3, 64 << 10] {
                    assert_eq!(
                        convert(&data, step, room, &files),
                        whole,
                        "step {step} room {room}"
                    );
                }
            }
        }
    }

    #[test]
    fn code_is_converted() {
        let data = &samples()[1];
        let s = convert(data, 100, 1000, &[(0, Some(data.len() as u64))]);
        assert!(!s[1].is_empty() && !s[2].is_empty());
        let streamed = convert(data, 100, 1000, &[(0, None)]);
        assert_eq!(decode(&streamed, data.len()), *data);
    }

    #[test]
    fn entries_bound_conversion() {
        let data = &samples()[1];
        let files = [
            (0, Some(10_000)),
            (10_000, None),
            (17_001, Some(3)),
            (17_004, Some(13_000)),
        ];
        let whole = convert(data, usize::MAX, 1 << 20, &files);
        assert_eq!(decode(&whole, data.len()), *data);
        for step in [1, 3, 999] {
            assert_eq!(convert(data, step, 77, &files), whole);
        }
    }

    #[test]
    fn real_executables_round_trip() {
        let mut seen = 0;
        for path in ["/usr/bin/ls", "/usr/bin/cp", "/bin/sh", "/usr/bin/env"] {
            let Ok(data) = std::fs::read(path) else {
                continue;
            };
            seen += 1;
            let files = [(0, Some(data.len() as u64))];
            let whole = convert(&data, usize::MAX, 1 << 20, &files);
            assert!(whole[1].len() > 100, "{path}: few CALLs converted");
            assert_eq!(decode(&whole, data.len()), data);
            assert_eq!(convert(&data, 4093, 1000, &files), whole);
            let streamed = convert(&data, 65536, 1 << 16, &[(0, None)]);
            assert_eq!(decode(&streamed, data.len()), data);
        }
        if seen == 0 {
            eprintln!("SKIPPED: no executables found");
        }
    }

    #[test]
    fn flag_stream_starts_with_zero_and_flushes() {
        let s = convert(&[1, 2, 3], 10, 10, &[]);
        assert_eq!(s[3], [0; 5]);
        let s = convert(&samples()[1], 10, 10, &[]);
        assert_eq!(s[3][0], 0);
    }
}
