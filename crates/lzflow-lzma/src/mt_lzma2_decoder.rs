//! Multi-threaded LZMA2 decoding at dictionary resets.
//!
//! A chunk that resets the dictionary (control byte 0x01 or 0xE0..=0xFF)
//! starts a stream that owes nothing to what came before it: the window is
//! emptied and new properties must follow (as xz requires). 7-Zip's
//! multi-threaded encoder (and lzflow's) starts each block of a stream
//! that way. So a scanner reads only the chunk headers (control byte and
//! sizes, no data) and cuts the stream into *segments* from one reset to
//! the next; each segment's decoded size is the sum of its chunks' sizes,
//! known before decoding. Whole segments are decoded on worker threads
//! ([`OrderedPool`]) and handed out in order.
//!
//! What is not a whole, well-formed segment within the memory budget is
//! decoded on the calling thread by the one-thread decoder, started at the
//! segment's reset: a segment too large for the budget (until the next
//! reset), and from the first malformed header, or the end of input
//! without an end byte, to the end. As every segment starts at a reset,
//! output, errors and where they happen are those of [`Lzma2Decoder`]
//! over the whole stream, whatever the number of threads.

use std::collections::VecDeque;

use lzflow_core::parallel::{OrderedPool, PieceWorker, WorkerDied};
use lzflow_core::{
    Decode, InBuf, Lease, LimitExceeded, Limits, OutBuf, Progress, Readiness, Sticky,
};

use crate::{DecoderOptions, Lzma2Decoder, LzmaError};

/// Segments in flight per decoding thread, at most.
const IN_FLIGHT_PER_THREAD: usize = 4;

/// Decoded bytes a segment holds at least before it is cut at a reset, by
/// default ([`MtLzma2Decoder::set_min_segment`]):
/// streams of small independent pieces go to the workers several pieces
/// at a time, so a hand-over's cost (a queue, a channel) stays small
/// beside the decoding.
const MIN_SEGMENT: u64 = 1 << 20;

/// What the scanner found in the bytes it was shown; the count it returns
/// with it is where.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Event {
    /// All of them are inside the current segment.
    More,
    /// A dictionary reset starts after the counted bytes (which belong to
    /// the current segment).
    Reset,
    /// The end byte is the last of the counted bytes.
    End,
    /// A control byte the format does not have, or a chunk before any
    /// dictionary reset, right after the counted bytes.
    Bad,
}

/// Reads chunk headers, skipping chunk data, across input splits.
#[derive(Debug, Clone, Copy)]
struct Scanner {
    /// Header bytes gathered (control byte first).
    header: [u8; 6],
    have: usize,
    /// Bytes of the header, once the control byte is known.
    need: usize,
    /// Chunk data still to skip.
    skip: usize,
    /// A dictionary reset has been seen.
    started: bool,
    /// Decoded size of the complete chunks since the caller last cleared
    /// it (at the start of its segment).
    unpacked: u64,
}

impl Scanner {
    fn new() -> Self {
        Scanner {
            header: [0; 6],
            have: 0,
            need: 0,
            skip: 0,
            started: false,
            unpacked: 0,
        }
    }

    /// Walks `data` up to the first event.
    fn scan(&mut self, data: &[u8]) -> (usize, Event) {
        let mut at = 0;
        loop {
            if self.skip > 0 {
                let n = self.skip.min(data.len() - at);
                self.skip -= n;
                at += n;
            }
            if at == data.len() {
                return (at, Event::More);
            }
            if self.have == 0 {
                let control = data[at];
                let reset = control == 0x01 || control >= 0xE0;
                match control {
                    0x00 => return (at + 1, Event::End),
                    0x03..=0x7F => return (at, Event::Bad),
                    _ if !reset && !self.started => return (at, Event::Bad),
                    _ if reset && self.started && self.need == 0 => {
                        // Reported once: the caller cuts here and scans on
                        // with `need` set, so this byte then starts the
                        // next segment.
                        self.need = 1;
                        return (at, Event::Reset);
                    }
                    _ => {}
                }
                if reset {
                    self.started = true;
                }
                self.need = match control {
                    0x01 | 0x02 => 3,
                    0xC0..=0xFF => 6,
                    _ => 5,
                };
            }
            let n = (self.need - self.have).min(data.len() - at);
            self.header[self.have..self.have + n].copy_from_slice(&data[at..at + n]);
            self.have += n;
            at += n;
            if self.have < self.need {
                return (at, Event::More);
            }
            let h = self.header;
            let (unpacked, packed) = if h[0] < 0x80 {
                let size = usize::from(u16::from_be_bytes([h[1], h[2]])) + 1;
                (size, size)
            } else {
                let unpacked = (usize::from(h[0] & 0x1F) << 16)
                    + usize::from(u16::from_be_bytes([h[1], h[2]]))
                    + 1;
                (unpacked, usize::from(u16::from_be_bytes([h[3], h[4]])) + 1)
            };
            self.unpacked += unpacked as u64;
            self.skip = packed;
            self.have = 0;
            self.need = 0;
        }
    }
}

/// A segment for a worker: its bytes, from its reset, and what they
/// decode to.
#[derive(Debug)]
struct Segment {
    data: Lease<u8>,
    unpacked: u64,
}

/// What a worker made of a segment: its output, and the error that ended
/// it (after that output).
type Decoded = (Lease<u8>, Option<LzmaError>);

/// A worker's decoder, reused from segment to segment.
struct SegmentWorker(Lzma2Decoder);

/// What the workers' decoders are made from.
#[derive(Debug)]
struct SegmentConfig {
    dict_size: u32,
    opts: DecoderOptions,
}

impl PieceWorker for SegmentWorker {
    type Config = SegmentConfig;
    type Input = Segment;
    type Output = Decoded;

    fn run(state: &mut Option<Self>, config: &SegmentConfig, seg: Segment) -> Decoded {
        let dec = match state {
            Some(SegmentWorker(dec)) => dec.reset(config.dict_size).map(|()| dec),
            None => Lzma2Decoder::new(config.dict_size, &config.opts)
                .map(|dec| &mut state.insert(SegmentWorker(dec)).0),
        };
        match dec {
            // The output is the window: nothing is copied out of it.
            Ok(dec) => dec.decode_whole(&seg.data, seg.unpacked),
            Err(e) => (config.opts.pool.lease(0), Some(e)),
        }
    }
}

/// How the caller's thread takes part.
#[derive(Debug)]
enum Mode {
    /// Scanning headers and collecting segments for the workers.
    Collect,
    /// Decoding on this thread from the current segment's reset: `held`
    /// (bytes collected before the switch) first, then the input; back to
    /// collecting at the next reset unless `to_end`.
    Inline {
        held: Lease<u8>,
        pos: usize,
        to_end: bool,
    },
    /// The end byte is in the last segment: handing out what is left.
    Draining,
    /// Everything is out.
    Done,
}

/// Decoder for a raw LZMA2 stream on several threads (see the module
/// documentation); a drop-in for [`Lzma2Decoder`] where the stream has
/// dictionary resets, and no slower where it has none.
///
/// Memory: at most the budget's bytes of segments in flight (each
/// segment's input plus its output, at most `4 × threads` segments), plus
/// one decoder's probability tables per decoding thread: a worker decodes
/// a segment with its output buffer as the window, so it copies nothing
/// and needs no window of its own. What the calling thread decodes inline
/// (see the module documentation) goes through one more decoder, with a
/// window of at most the dictionary size.
///
/// Threads: by default `decode` blocks when it can do nothing but wait for
/// a worker, and rather than idle decodes a queued segment itself. In
/// [non-blocking](Self::set_nonblocking) mode (async faces) it returns
/// `OutputFull` with no progress instead of waiting, and
/// [`readiness`](Self::readiness) says when to call again.
#[derive(Debug)]
pub struct MtLzma2Decoder {
    pool: OrderedPool<SegmentWorker>,
    budget: u64,
    /// The cost (input plus output) of each segment in flight, in order.
    costs: VecDeque<u64>,
    in_flight: u64,
    scanner: Scanner,
    /// The current segment's bytes, from its reset.
    segment: Lease<u8>,
    /// The current segment is complete (at a reset, or with the end byte
    /// when `ends`) and waits for room to be submitted.
    cut: bool,
    ends: bool,
    mode: Mode,
    /// Output being handed out, and the error after it.
    current: Option<(Lease<u8>, usize, Option<LzmaError>)>,
    /// The one-thread decoder, for what is decoded inline.
    inline: Option<Box<Lzma2Decoder>>,
    dict_size: u32,
    opts: DecoderOptions,
    /// Declared decoded size of the whole stream, if known.
    size: Option<u64>,
    min_segment: u64,
    end_byte_optional: bool,
    /// Output handed out.
    produced: u64,
    /// Output of everything submitted or decoded so far (handed out or
    /// not).
    planned: u64,
    failed: Sticky<LzmaError>,
}

impl MtLzma2Decoder {
    /// A decoder for a dictionary of `dict_size` bytes on `threads`
    /// threads (0: one per CPU), with at most `budget` bytes of segments
    /// in flight; non-blocking when `opts` has a readiness handle. Checks
    /// `opts.limits.memory` against one decoder's
    /// [`Lzma2Decoder::memory_usage`] (each thread's decoder is that size
    /// at most).
    pub fn new(
        dict_size: u32,
        opts: &DecoderOptions,
        threads: usize,
        budget: u64,
    ) -> Result<Self, LzmaError> {
        opts.limits
            .check_memory(Lzma2Decoder::memory_usage(dict_size))?;
        // Workers produce whole segments; the output limit is the
        // caller's, checked as output is handed out.
        let worker_opts = DecoderOptions {
            limits: Limits::NONE,
            ..opts.clone()
        };
        let mut pool = OrderedPool::new(
            SegmentConfig {
                dict_size,
                opts: worker_opts,
            },
            threads,
        );
        if let Some(readiness) = &opts.readiness {
            pool.set_nonblocking_with(readiness.clone());
        }
        Ok(MtLzma2Decoder {
            pool,
            budget,
            costs: VecDeque::new(),
            in_flight: 0,
            scanner: Scanner::new(),
            segment: opts.pool.lease(64 << 10),
            cut: false,
            ends: false,
            mode: Mode::Collect,
            current: None,
            inline: None,
            dict_size,
            opts: opts.clone(),
            size: None,
            min_segment: MIN_SEGMENT,
            end_byte_optional: false,
            produced: 0,
            planned: 0,
            failed: Sticky::default(),
        })
    }

    /// As [`Lzma2Decoder::set_uncompressed_size`]: the stream decodes to
    /// `size` bytes. Call it before decoding.
    pub fn set_uncompressed_size(&mut self, size: Option<u64>) {
        self.size = size;
    }

    /// Cuts the stream only at resets after at least `bytes` of decoded
    /// data since the last cut (default 1 MiB): smaller pieces go to a
    /// worker together. Before decoding starts.
    pub fn set_min_segment(&mut self, bytes: u64) {
        self.min_segment = bytes;
    }

    /// As [`Lzma2Decoder::set_end_byte_optional`].
    pub fn set_end_byte_optional(&mut self, optional: bool) {
        self.end_byte_optional = optional;
    }

    /// Switches to non-blocking mode (before decoding starts).
    pub fn set_nonblocking(&mut self, nonblocking: bool) {
        self.pool.set_nonblocking(nonblocking);
    }

    /// Tells, in non-blocking mode, whether the next call can make
    /// progress, and wakes a task when a worker finishes.
    pub fn readiness(&self) -> &Readiness {
        self.pool.readiness()
    }

    /// Decoding threads.
    pub fn threads(&self) -> usize {
        self.pool.threads()
    }

    /// Total bytes produced so far.
    pub fn total_out(&self) -> u64 {
        self.produced
    }

    /// Hands out the current output within the output limit; false when
    /// the call should end (output full, or bytes went out and an error
    /// follows them: it comes with the next call).
    fn hand_out(&mut self, output: &mut OutBuf<'_>) -> Result<bool, LzmaError> {
        let Some((out, pos, error)) = &mut self.current else {
            return Ok(true);
        };
        let left = self.opts.limits.output.saturating_sub(self.produced);
        let end = out.len().min(*pos + clamp(left));
        let n = output.push(&out[*pos..end]);
        *pos += n;
        self.produced += n as u64;
        if *pos < out.len() {
            if end == *pos && n == 0 {
                return Err(LimitExceeded::Output {
                    limit: self.opts.limits.output,
                }
                .into());
            }
            return Ok(false);
        }
        if error.is_some() && n > 0 {
            return Ok(false);
        }
        let (_, _, error) = self.current.take().expect("checked");
        self.in_flight -= self.costs.pop_front().unwrap_or(0);
        match error {
            Some(e) => Err(e),
            None => Ok(true),
        }
    }

    /// Takes the next finished segment (with `wait`, the oldest, waiting
    /// or decoding queued ones meanwhile). False when there is none yet.
    fn take_done(&mut self, wait: bool) -> Result<bool, LzmaError> {
        match self.pool.next(wait) {
            None => Ok(false),
            Some(Ok((out, error))) => {
                self.current = Some((out, 0, error));
                Ok(true)
            }
            Some(Err(WorkerDied)) => Err(LzmaError::Usage("an LZMA2 decoding thread panicked")),
        }
    }

    /// Whether a segment of `cost` can be submitted now.
    fn has_room(&self, cost: u64) -> bool {
        self.costs.is_empty()
            || (self.costs.len() < IN_FLIGHT_PER_THREAD * self.pool.threads()
                && self.in_flight + cost <= self.budget)
    }

    /// Switches to decoding the current segment on this thread, with a
    /// decoder whose limits are what is left of the stream's.
    fn go_inline(&mut self, to_end: bool) -> Result<(), LzmaError> {
        let held = std::mem::replace(&mut self.segment, self.opts.pool.lease(64 << 10));
        let opts = DecoderOptions {
            limits: Limits {
                // Checked in `new`.
                memory: u64::MAX,
                output: self.opts.limits.output.saturating_sub(self.planned),
            },
            ..self.opts.clone()
        };
        let mut dec = Box::new(Lzma2Decoder::new(self.dict_size, &opts)?);
        dec.set_end_byte_optional(self.end_byte_optional);
        dec.set_uncompressed_size(self.size.map(|s| s.saturating_sub(self.planned)));
        self.inline = Some(dec);
        self.mode = Mode::Inline {
            held,
            pos: 0,
            to_end,
        };
        Ok(())
    }

    /// One step of inline decoding; `Some` ends the call.
    fn step_inline(
        &mut self,
        input: &mut InBuf<'_>,
        output: &mut OutBuf<'_>,
    ) -> Result<Option<Progress>, LzmaError> {
        let Mode::Inline { held, pos, to_end } = &mut self.mode else {
            unreachable!("called inline");
        };
        let dec = self.inline.as_mut().expect("made by go_inline");
        let before = output.pos();
        let mut back_to_workers = false;
        let r = if *pos < held.len() {
            // The held bytes end the stream when no input follows them.
            let ends = input.is_last() && input.is_empty();
            let mut sub = InBuf::new(&held[*pos..]).with_last(ends);
            let r = dec.decode(&mut sub, output);
            *pos += sub.pos();
            r
        } else if *to_end {
            dec.decode(input, output)
        } else {
            // Up to the next reset: the scanner looks ahead on a copy,
            // then follows what the decoder took.
            let mut ahead = self.scanner;
            let (n, event) = ahead.scan(input.remaining());
            let data = input.remaining();
            let mut sub = InBuf::new(&data[..n]).with_last(input.is_last() && n == data.len());
            let r = dec.decode(&mut sub, output);
            let took = sub.pos();
            self.scanner.scan(&data[..took]);
            input.advance(took);
            if r.is_ok() && took == n {
                match event {
                    Event::Reset => back_to_workers = true,
                    Event::Bad => *to_end = true,
                    Event::More | Event::End => {}
                }
            }
            r
        };
        let wrote = (output.pos() - before) as u64;
        self.produced += wrote;
        self.planned += wrote;
        let progress = r?;
        if back_to_workers && progress == Progress::NeedInput {
            // At the reset the stream goes back to the workers.
            self.scanner.unpacked = 0;
            self.mode = Mode::Collect;
            return Ok(None);
        }
        match progress {
            Progress::StreamEnd => {
                self.mode = Mode::Done;
                Ok(Some(Progress::StreamEnd))
            }
            Progress::OutputFull => Ok(Some(Progress::OutputFull)),
            Progress::NeedInput if *pos < held.len() || !input.is_empty() => Ok(None),
            Progress::NeedInput => Ok(Some(Progress::NeedInput)),
        }
    }

    /// Submits the complete segment when there is room; false when the
    /// call must end first.
    fn submit_cut(&mut self, output: &mut OutBuf<'_>) -> Result<bool, LzmaError> {
        let unpacked = self.scanner.unpacked;
        if self.size.is_some_and(|s| self.planned + unpacked > s) {
            // The one-thread decoder reports it where it does.
            self.cut = false;
            self.go_inline(true)?;
            return Ok(true);
        }
        let cost = self.segment.len() as u64 + unpacked;
        while !self.has_room(cost) {
            if self.current.is_none() && (output.is_full() || !self.take_done(true)?) {
                return Ok(false);
            }
            if !self.hand_out(output)? {
                return Ok(false);
            }
        }
        let data = std::mem::replace(&mut self.segment, self.opts.pool.lease(64 << 10));
        self.costs.push_back(cost);
        self.in_flight += cost;
        self.planned += unpacked;
        // Decoding time goes mostly with the packed bytes (range decoder
        // work for each), less with the decoded ones (match copies): a
        // 32 MiB block of text that 7-Zip packed to 1 MiB decodes several
        // times faster than one of x86 code packed to 20 MiB.
        let weight = data.len() as u64 + unpacked / 16;
        self.pool
            .submit_weighted(Segment { data, unpacked }, weight);
        self.scanner.unpacked = 0;
        self.cut = false;
        if self.ends {
            self.mode = Mode::Draining;
        }
        Ok(true)
    }

    fn step(
        &mut self,
        input: &mut InBuf<'_>,
        output: &mut OutBuf<'_>,
    ) -> Result<Progress, LzmaError> {
        self.pool.begin_call();
        loop {
            if !self.hand_out(output)? {
                return Ok(Progress::OutputFull);
            }
            if self.current.is_none() && !self.costs.is_empty() && self.take_done(false)? {
                continue;
            }
            match self.mode {
                Mode::Done => return Ok(Progress::StreamEnd),
                Mode::Draining => {
                    if self.costs.is_empty() {
                        self.mode = Mode::Done;
                    } else if output.is_full() || !self.take_done(true)? {
                        return Ok(Progress::OutputFull);
                    }
                }
                Mode::Inline { .. } => {
                    // What the workers have goes out first.
                    if !self.costs.is_empty() {
                        if output.is_full() || !self.take_done(true)? {
                            return Ok(Progress::OutputFull);
                        }
                        continue;
                    }
                    if output.is_full() {
                        return Ok(Progress::OutputFull);
                    }
                    if let Some(p) = self.step_inline(input, output)? {
                        return Ok(p);
                    }
                }
                Mode::Collect if self.cut => {
                    if !self.submit_cut(output)? {
                        return Ok(Progress::OutputFull);
                    }
                }
                Mode::Collect => {
                    let (n, event) = self.scanner.scan(input.remaining());
                    self.segment.extend_from_slice(input.take(n));
                    match event {
                        // Input ends inside a segment, or without the end
                        // byte: the one-thread decoder says how.
                        Event::More if input.is_last() => self.go_inline(true)?,
                        Event::More
                            if self.segment.len() as u64 + self.scanner.unpacked > self.budget =>
                        {
                            self.go_inline(false)?
                        }
                        Event::More => return Ok(Progress::NeedInput),
                        Event::Bad => self.go_inline(true)?,
                        // The first reset, after an inline segment: it
                        // starts the segment (the scanner takes it next).
                        // A small segment takes the next piece too.
                        Event::Reset
                            if self.segment.is_empty()
                                || self.scanner.unpacked < self.min_segment => {}
                        Event::Reset => self.cut = true,
                        Event::End => {
                            self.cut = true;
                            self.ends = true;
                        }
                    }
                }
            }
        }
    }
}

impl Decode for MtLzma2Decoder {
    type Error = LzmaError;

    fn decode(
        &mut self,
        input: &mut InBuf<'_>,
        output: &mut OutBuf<'_>,
    ) -> Result<Progress, LzmaError> {
        self.failed.check()?;
        let r = self.step(input, output);
        self.failed.record(r)
    }
}

fn clamp(n: u64) -> usize {
    usize::try_from(n).unwrap_or(usize::MAX)
}
