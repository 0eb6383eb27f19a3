//! The forward-only zip reading core, in poll style, over any
//! [`PollRead`]: an upload body, a pipe, a socket. It reads the local
//! headers and the data in archive order and never seeks, so it knows only
//! what each local header says: no Unix modes, symbolic links or comments
//! (those are in the central directory, at the end).
//!
//! An entry's data ends where the sizes in its local header say, or, with
//! a data descriptor (flag bit 3) and no sizes, where its decompressor
//! ends; the descriptor after it is then checked against the CRC-32 and
//! sizes of the data. PPMd and Deflate64 give back the bytes they took
//! past their end, but Deflate64's inflater may keep up to 4 without
//! saying (`Method::read_ahead`), so its descriptor is looked for within those
//! (the stored size it gives tells the place), and a WinZip AES entry of
//! Deflate64 data sized only so is not read (`UnsupportedFeature`). A
//! Stored entry with a descriptor and no sizes ends at the first
//! descriptor that matches the data before it
//! ([`descriptor_scan`](crate::read::descriptor_scan)). The entries end at
//! the first central directory header (or end record); the source is left
//! there.
//!
//! # Look-ahead memory
//! One buffer: 64 KiB of input read at a time, up to 96 KiB kept behind
//! the read position (an encrypted entry of unknown length decrypts ahead
//! of its decompressor, and Deflate64 and PPMd take some bytes past their
//! data: all give back what was not data), and one whole local header
//! (at most 30 + 2 × 65,535 bytes). So the buffer
//! never passes [`MAX_LOOK_AHEAD`] bytes, whatever the archive says;
//! decoders come on top, under the memory limit.
//!
//! Every byte read is in the buffer before `Ready` is returned, so a
//! dropped future loses nothing.

use std::borrow::Cow;
use std::future::poll_fn;
use std::io;
use std::task::{ready, Context, Poll};
use std::time::SystemTime;

use lzflow_core::source::PollRead;
use lzflow_core::{Decode, InBuf, Lease, LimitExceeded, OutBuf, Pool, Progress};

use crate::read::central_directory::FLAG_ENCRYPTED;
use crate::read::data_descriptor::DataDescriptor;
use crate::read::descriptor_scan::{DescriptorScan, Scanned};
use crate::read::dos_time::DosDateTime;
use crate::read::entry_decoder::{EntryDecoder, EntrySpec, HELD, METHOD_AES, STAGE};
use crate::read::entry_name;
use crate::read::extra_field::{self, AesExtra};
use crate::read::local_file_header::LocalFileHeader;
use crate::read::zip_options::ZipOptions;
use crate::ZipError;

/// Input read from the source at a time.
const READ_CHUNK: usize = 64 << 10;
/// Bytes kept behind the read position, to be given again.
const HISTORY: usize = STAGE + HELD;
/// The longest local header: the fixed part, a name and an extra field of
/// 65,535 bytes each.
const MAX_HEADER: usize = LocalFileHeader::LEN + 2 * 0xffff;
/// The most bytes the look-ahead buffer holds.
pub const MAX_LOOK_AHEAD: usize = HISTORY + MAX_HEADER + READ_CHUNK;

/// Records that end the entries: central directory header, Zip64 end
/// records, end of central directory, digital signature, archive extra
/// data.
const END_OF_ENTRIES: [u32; 5] = [
    0x0201_4b50,
    0x0606_4b50,
    0x0605_4b50,
    0x0505_4b50,
    0x0806_4b50,
];
/// The marker a split archive's first segment may start with (APPNOTE
/// 8.5.3), also written alone by some tools: `PK\x07\x08` or `PK00`.
const SPLIT_MARKERS: [u32; 2] = [0x0807_4b50, 0x3030_4b50];

/// How the current entry's data ends.
enum Data {
    /// After `left` more stored bytes (the local header gave the size);
    /// then a data descriptor if `descriptor`.
    Sized {
        dec: EntryDecoder,
        left: u64,
        descriptor: bool,
    },
    /// Where its decompressor ends; a data descriptor follows.
    Open { dec: EntryDecoder },
    /// Stored, with a data descriptor and no size: found by scanning.
    /// `ready` bytes at the read position are known to be data.
    Scan { scan: DescriptorScan, ready: usize },
    /// Skipped by the caller: stored bytes dropped unread.
    Skip { left: u64, descriptor: bool },
    /// An entry of known size that cannot be decoded (unsupported method,
    /// no password): reading it gives the error, once; skipping it works.
    Unreadable {
        error: Option<ZipError>,
        left: u64,
        descriptor: bool,
    },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    /// Before the next local header.
    Between,
    /// In an entry's data.
    Data,
    /// The data ended; its descriptor is next.
    Descriptor,
    /// The entry has been read and checked.
    EntryEnd,
    /// The entries have ended.
    Done,
    /// An error left the position unknown.
    Failed,
}

/// The local header of the current entry, and its name and extra field.
struct Current {
    header: LocalFileHeader,
    /// Name, then extra field.
    variable: Vec<u8>,
    /// Offset of the header in the stream.
    offset: u64,
    /// What the descriptor must hold (sizes are filled in at the end).
    expect_crc: Option<u32>,
    stored_size: Option<u64>,
    size: Option<u64>,
}

/// A forward-only zip reader over any [`PollRead`]: the core the std face
/// ([`ZipStreamReader`](crate::ZipStreamReader)) and the facade's async
/// faces drive.
pub struct PollZipStream<S> {
    src: S,
    options: ZipOptions,
    /// The look-ahead buffer, from the global pool.
    buf: Lease<u8>,
    start: usize,
    end: usize,
    eof: bool,
    /// Stream offset of `buf[0]`.
    base: u64,
    entries: u64,
    state: State,
    cur: Option<Current>,
    data: Option<Data>,
    /// The last entry's name and extra field buffer, for reuse.
    spare: Vec<u8>,
}

impl<S> std::fmt::Debug for PollZipStream<S> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PollZipStream")
            .field("offset", &(self.base + self.start as u64))
            .field("entries", &self.entries)
            .field("state", &self.state)
            .finish_non_exhaustive()
    }
}

/// What the local header of an entry read forward-only says.
#[derive(Debug, Clone, Copy)]
pub struct LocalEntry<'a> {
    header: &'a LocalFileHeader,
    name: &'a [u8],
    extra: &'a [u8],
    offset: u64,
}

impl<'a> LocalEntry<'a> {
    /// The local header's fields.
    pub fn header(&self) -> &'a LocalFileHeader {
        self.header
    }

    /// Where the local header starts in the stream.
    pub fn offset(&self) -> u64 {
        self.offset
    }

    /// The name as stored.
    pub fn name_bytes(&self) -> &'a [u8] {
        self.name
    }

    /// The extra field as stored.
    pub fn extra_bytes(&self) -> &'a [u8] {
        self.extra
    }

    /// The name as text, by the rules of
    /// [`CentralEntry::name`](crate::CentralEntry::name).
    pub fn name(&self) -> Cow<'a, str> {
        entry_name::decode_name(self.name, self.header.is_utf8(), self.extra)
    }

    /// Whether the name ends with `/` (the local header holds no
    /// attributes to say otherwise).
    pub fn is_dir(&self) -> bool {
        self.name.last() == Some(&b'/')
    }

    /// Whether the data is encrypted.
    pub fn is_encrypted(&self) -> bool {
        self.header.is_encrypted()
    }

    /// The compression method: for WinZip AES entries, the one under the
    /// encryption.
    pub fn method(&self) -> u16 {
        match self.aes() {
            Some(aes) if self.header.method == METHOD_AES => aes.method,
            _ => self.header.method,
        }
    }

    /// The WinZip AES extra field, if present and well formed.
    pub fn aes(&self) -> Option<AesExtra> {
        extra_field::find(self.extra, AesExtra::ID).and_then(|d| AesExtra::parse(d).ok())
    }

    /// The MS-DOS date and time.
    pub fn dos_time(&self) -> DosDateTime {
        self.header.dos_time
    }

    /// The modification time, by the rules of
    /// [`CentralEntry::mtime`](crate::CentralEntry::mtime).
    pub fn mtime(&self) -> Option<SystemTime> {
        extra_field::modification_time(self.extra, self.header.dos_time)
    }

    /// The uncompressed size when the local header gives it (not for
    /// entries with a data descriptor written by a streaming writer).
    pub fn size(&self) -> Option<u64> {
        known_sizes(self.header).map(|(_, size)| size)
    }
}

/// The local header's (compressed, uncompressed) sizes, when it gives
/// them: always without flag bit 3; with it, only when a writer that
/// could seek filled in the compressed size (Info-ZIP does) — a descriptor
/// then follows anyway and must agree. (bsdtar fills in only the
/// uncompressed size, which is not enough to find the data's end.)
fn known_sizes(h: &LocalFileHeader) -> Option<(u64, u64)> {
    (!h.has_data_descriptor() || h.compressed_size != 0)
        .then_some((h.compressed_size, h.uncompressed_size))
}

impl<S: PollRead> PollZipStream<S> {
    /// A reader of the zip archive `src` delivers, from its first byte.
    pub fn new(src: S, options: ZipOptions) -> Self {
        PollZipStream {
            src,
            options,
            buf: Pool::<u8>::global().lease(HISTORY + READ_CHUNK),
            start: 0,
            end: 0,
            eof: false,
            base: 0,
            entries: 0,
            state: State::Between,
            cur: None,
            data: None,
            spare: Vec::new(),
        }
    }

    /// The options in force.
    pub fn options(&self) -> &ZipOptions {
        &self.options
    }

    /// Bytes of the stream read and used so far: after the last entry,
    /// the central directory's offset.
    pub fn offset(&self) -> u64 {
        self.base + self.start as u64
    }

    /// Gives back the source and the bytes read from it but not used
    /// (after the last entry: the start of the central directory).
    pub fn into_parts(self) -> (S, Vec<u8>) {
        let rest = self.buf[self.start..self.end].to_vec();
        (self.src, rest)
    }

    /// The current entry's local header, between
    /// [`next_entry`](Self::next_entry) and the next call.
    pub fn entry(&self) -> Option<LocalEntry<'_>> {
        let cur = self.cur.as_ref()?;
        let (name, extra) = cur.variable.split_at(usize::from(cur.header.name_len));
        Some(LocalEntry {
            header: &cur.header,
            name,
            extra,
            offset: cur.offset,
        })
    }

    /// Reads more input behind what is buffered: `Ok(0)` at the end.
    fn poll_fill(&mut self, cx: &mut Context<'_>) -> Poll<Result<usize, ZipError>> {
        if self.eof {
            return Poll::Ready(Ok(0));
        }
        if self.buf.len() - self.end < READ_CHUNK {
            // Keep HISTORY bytes behind the read position; move the rest
            // of the buffered bytes to the front.
            let keep_from = self.start.saturating_sub(HISTORY);
            if keep_from > 0 {
                self.buf.copy_within(keep_from..self.end, 0);
                self.start -= keep_from;
                self.end -= keep_from;
                self.base += keep_from as u64;
            }
            if self.buf.len() - self.end < READ_CHUNK {
                self.buf.resize(self.end + READ_CHUNK, 0);
            }
        }
        let n = ready!(self
            .src
            .poll_read(cx, &mut self.buf[self.end..self.end + READ_CHUNK]))?;
        self.end += n;
        self.eof = n == 0;
        Poll::Ready(Ok(n))
    }

    /// Buffers at least `n` bytes at the read position (fewer only at the
    /// end of the input).
    fn poll_buffer(&mut self, cx: &mut Context<'_>, n: usize) -> Poll<Result<usize, ZipError>> {
        while self.end - self.start < n && !self.eof {
            ready!(self.poll_fill(cx))?;
        }
        Poll::Ready(Ok((self.end - self.start).min(n)))
    }

    /// Moves to the next entry and reads its local header; `None` once the
    /// entries end. The rest of the current entry, if any, is read first:
    /// decoded and checked when only its decompressor or a scan can find
    /// its end, else skipped.
    pub async fn next_entry(&mut self) -> Result<Option<LocalEntry<'_>>, ZipError> {
        let r = poll_fn(|cx| self.poll_next(cx)).await;
        if r.is_err() {
            self.state = State::Failed;
        }
        Ok(if r? { self.entry() } else { None })
    }

    fn poll_next(&mut self, cx: &mut Context<'_>) -> Poll<Result<bool, ZipError>> {
        loop {
            match self.state {
                State::Failed => {
                    return Poll::Ready(Err(ZipError::corrupt(
                        "the stream cannot be read on after an earlier error",
                    )))
                }
                State::Done => return Poll::Ready(Ok(false)),
                State::Data | State::Descriptor => {
                    self.skip_rest();
                    let mut sink = [0u8; 4096];
                    loop {
                        ready!(self.src.poll_proceed(cx));
                        let r = self.poll_step(cx, &mut sink);
                        if r.is_ready() {
                            self.src.step_done();
                        }
                        if ready!(r)? == 0 {
                            break;
                        }
                    }
                }
                State::EntryEnd => {
                    if let Some(cur) = self.cur.take() {
                        self.spare = cur.variable;
                    }
                    self.data = None;
                    self.state = State::Between;
                }
                State::Between => return self.poll_header(cx),
            }
        }
    }

    /// Turns the rest of a sized entry into a skip (nothing to decode
    /// when the size is known).
    fn skip_rest(&mut self) {
        if self.state != State::Data {
            // The data has ended: its descriptor is checked as read.
            return;
        }
        if let Some(
            Data::Sized {
                left, descriptor, ..
            }
            | Data::Unreadable {
                left, descriptor, ..
            },
        ) = &self.data
        {
            self.data = Some(Data::Skip {
                left: *left,
                descriptor: *descriptor,
            });
        }
    }

    fn poll_header(&mut self, cx: &mut Context<'_>) -> Poll<Result<bool, ZipError>> {
        let got = ready!(self.poll_buffer(cx, 4))?;
        if got < 4 {
            return Poll::Ready(Err(if self.offset() == 0 && got == 0 {
                ZipError::NotZip
            } else {
                ZipError::Truncated
            }));
        }
        let sig = u32::from_le_bytes(self.buf[self.start..self.start + 4].try_into().unwrap());
        if self.offset() == 0 && SPLIT_MARKERS.contains(&sig) {
            self.start += 4;
            return self.poll_header(cx);
        }
        if END_OF_ENTRIES.contains(&sig) {
            self.state = State::Done;
            return Poll::Ready(Ok(false));
        }
        if sig != LocalFileHeader::SIGNATURE {
            return Poll::Ready(Err(if self.offset() == 0 {
                ZipError::NotZip
            } else {
                ZipError::corrupt(format!(
                    "no local file header where the next entry should start (offset {})",
                    self.offset()
                ))
            }));
        }
        if ready!(self.poll_buffer(cx, LocalFileHeader::LEN))? < LocalFileHeader::LEN {
            return Poll::Ready(Err(ZipError::Truncated));
        }
        let mut header = LocalFileHeader::parse(&self.buf[self.start..])?;
        let total = LocalFileHeader::LEN + header.variable_len();
        if ready!(self.poll_buffer(cx, total))? < total {
            return Poll::Ready(Err(ZipError::Truncated));
        }
        self.entries += 1;
        if self.entries > self.options.max_entries {
            return Poll::Ready(Err(LimitExceeded::Entries {
                count: self.entries,
                limit: self.options.max_entries,
            }
            .into()));
        }
        let offset = self.offset();
        let mut cur = std::mem::take(&mut self.spare);
        cur.clear();
        let variable = &self.buf[self.start + LocalFileHeader::LEN..self.start + total];
        header.parse_variable(variable)?;
        cur.extend_from_slice(variable);
        self.start += total;
        let (data, current) = self.plan(header, cur, offset)?;
        self.cur = Some(current);
        self.data = Some(data);
        self.state = State::Data;
        Poll::Ready(Ok(true))
    }

    /// How the entry's data will be read.
    fn plan(
        &self,
        header: LocalFileHeader,
        variable: Vec<u8>,
        offset: u64,
    ) -> Result<(Data, Current), ZipError> {
        let sizes = known_sizes(&header);
        let descriptor = header.has_data_descriptor();
        let expect_crc = (!descriptor || header.crc32 != 0).then_some(header.crc32);
        let data = self.plan_data(&header, &variable, sizes, expect_crc)?;
        let cur = Current {
            header,
            variable,
            offset,
            expect_crc: expect_crc.filter(|_| sizes.is_some()),
            stored_size: sizes.map(|s| s.0),
            size: sizes.map(|s| s.1),
        };
        Ok((data, cur))
    }

    fn plan_data(
        &self,
        header: &LocalFileHeader,
        variable: &[u8],
        sizes: Option<(u64, u64)>,
        expect_crc: Option<u32>,
    ) -> Result<Data, ZipError> {
        let (name, extra) = variable.split_at(usize::from(header.name_len));
        let spec = EntrySpec {
            name: entry_name::decode_name(name, header.is_utf8(), extra),
            flags: header.flags,
            method: header.method,
            dos_time: header.dos_time,
            crc32: expect_crc,
            compressed_size: sizes.map(|s| s.0),
            uncompressed_size: sizes.map(|s| s.1),
            aes: extra_field::find(extra, AesExtra::ID).and_then(|d| AesExtra::parse(d).ok()),
        };
        if let Some((stored, size)) = sizes {
            let descriptor = header.has_data_descriptor();
            let dec = self
                .options
                .limits
                .check_output(size)
                .map_err(ZipError::from)
                .and_then(|()| EntryDecoder::new(&spec, &self.options));
            return Ok(match dec {
                Ok(dec) => Data::Sized {
                    dec,
                    left: stored,
                    descriptor,
                },
                Err(error) => Data::Unreadable {
                    error: Some(error),
                    left: stored,
                    descriptor,
                },
            });
        }
        let stored_method = match spec.aes {
            Some(aes) if header.method == METHOD_AES => aes.method == 0,
            _ => header.method == 0,
        };
        if stored_method {
            if header.flags & FLAG_ENCRYPTED != 0 {
                return Err(ZipError::UnsupportedFeature(
                    "an encrypted Stored entry whose size only its data descriptor gives, \
                     read forward-only",
                ));
            }
            return Ok(Data::Scan {
                scan: DescriptorScan::default(),
                ready: 0,
            });
        }
        Ok(Data::Open {
            dec: EntryDecoder::new(&spec, &self.options)?,
        })
    }

    /// The current entry's data into `out`; `Ok(0)` at its end (after its
    /// checks).
    pub fn poll_read(&mut self, cx: &mut Context<'_>, out: &mut [u8]) -> Poll<io::Result<usize>> {
        if out.is_empty() || matches!(self.state, State::EntryEnd | State::Between) {
            return Poll::Ready(Ok(0));
        }
        ready!(self.src.poll_proceed(cx));
        let r = self.poll_step(cx, out);
        if r.is_ready() {
            self.src.step_done();
        }
        r.map_err(|e| {
            // The stream goes on past an entry whose stored size is known
            // (a wrong password, an unsupported method, corrupt data):
            // the rest of it is skipped. Elsewhere the position is lost.
            self.skip_rest();
            if !matches!(self.data, Some(Data::Skip { .. })) {
                self.state = State::Failed;
            }
            io::Error::from(self.name_error(e))
        })
    }

    /// One step of the current entry: data into `out`, or its descriptor.
    fn poll_step(&mut self, cx: &mut Context<'_>, out: &mut [u8]) -> Poll<Result<usize, ZipError>> {
        loop {
            match self.state {
                State::Data => {}
                State::Descriptor => {
                    ready!(self.poll_descriptor(cx))?;
                    self.state = State::EntryEnd;
                    return Poll::Ready(Ok(0));
                }
                State::Failed => {
                    return Poll::Ready(Err(ZipError::corrupt(
                        "the stream cannot be read on after an earlier error",
                    )))
                }
                _ => return Poll::Ready(Ok(0)),
            }
            if self.start == self.end && !self.eof {
                ready!(self.poll_fill(cx))?;
            }
            let window = &self.buf[self.start..self.end];
            let Some(data) = &mut self.data else {
                return Poll::Ready(Ok(0));
            };
            let (used, made, ended) = match data {
                Data::Sized { dec, left, .. } => {
                    let n = usize::try_from(*left)
                        .unwrap_or(usize::MAX)
                        .min(window.len());
                    // A cut entry still gets what was read decoded first,
                    // so its errors do not depend on where the cut falls
                    // in the reads; the truncation shows once nothing
                    // more can be decoded.
                    let last = n as u64 == *left;
                    let mut input = InBuf::new(&window[..n]).with_last(last);
                    let mut output = OutBuf::new(out);
                    let p = dec.decode(&mut input, &mut output)?;
                    // Input held past the data's end (PPMd) was not data:
                    // the stored size then says more than the data.
                    *left = *left - input.pos() as u64 + dec.take_unused() as u64;
                    (input.pos(), output.pos(), p == Progress::StreamEnd)
                }
                Data::Open { dec } => {
                    let mut input = InBuf::new(window).with_last(self.eof);
                    let mut output = OutBuf::new(out);
                    let p = dec.decode(&mut input, &mut output)?;
                    let back = dec.take_unused();
                    let ended = p == Progress::StreamEnd;
                    if back > 0 {
                        // Decrypted ahead: the last `back` bytes taken (still
                        // in the buffer, HISTORY ≥ STAGE) follow the data.
                        self.start = self.start + input.pos() - back;
                        let made = self.after_data(output.pos(), ended)?;
                        if made > 0 {
                            return Poll::Ready(Ok(made));
                        }
                        continue;
                    }
                    (input.pos(), output.pos(), ended)
                }
                Data::Scan { scan, ready } => {
                    if *ready == 0 {
                        match scan.scan(window, self.eof) {
                            Scanned::Data(n) => *ready = n,
                            Scanned::NeedMore if self.eof => {
                                return Poll::Ready(Err(ZipError::Truncated))
                            }
                            Scanned::NeedMore => {
                                ready!(self.poll_fill(cx))?;
                                continue;
                            }
                            Scanned::End {
                                data: 0,
                                descriptor_len: _,
                            } => {
                                // The descriptor is read and checked next.
                                self.state = State::Descriptor;
                                continue;
                            }
                            Scanned::End { data: n, .. } => *ready = n,
                        }
                    }
                    let n = (*ready).min(out.len());
                    out[..n].copy_from_slice(&window[..n]);
                    scan.accept(&window[..n]);
                    *ready -= n;
                    if scan.len() > self.options.limits.output {
                        return Poll::Ready(Err(LimitExceeded::Output {
                            limit: self.options.limits.output,
                        }
                        .into()));
                    }
                    (n, n, false)
                }
                Data::Unreadable {
                    error,
                    left,
                    descriptor,
                } => {
                    let e = error.take();
                    let (left, descriptor) = (*left, *descriptor);
                    self.data = Some(Data::Skip { left, descriptor });
                    match e {
                        Some(e) => return Poll::Ready(Err(e)),
                        None => continue,
                    }
                }
                Data::Skip { left, descriptor } => {
                    let n = usize::try_from(*left)
                        .unwrap_or(usize::MAX)
                        .min(window.len());
                    *left -= n as u64;
                    let done = *left == 0;
                    if !done && n == 0 && self.eof {
                        return Poll::Ready(Err(ZipError::Truncated));
                    }
                    self.start += n;
                    if done {
                        self.state = if *descriptor {
                            State::Descriptor
                        } else {
                            State::EntryEnd
                        };
                        if *descriptor {
                            // Skipped data: its descriptor is not checked.
                            self.data = None;
                        }
                        return Poll::Ready(Ok(0));
                    }
                    continue;
                }
            };
            self.start += used;
            // At the data's end with nothing made, go on to the
            // descriptor: `Ok(0)` only once the entry is checked.
            if self.after_data(made, ended)? > 0 {
                return Poll::Ready(Ok(made));
            }
            if ended {
                continue;
            }
            if self.eof && used == 0 && self.start == self.end {
                return Poll::Ready(Err(ZipError::Truncated));
            }
        }
    }

    /// After a step that made `made` bytes: at the data's end, moves on to
    /// the descriptor (or the end of the entry).
    fn after_data(&mut self, made: usize, ended: bool) -> Result<usize, ZipError> {
        if ended {
            let descriptor = match &self.data {
                Some(Data::Sized {
                    left, descriptor, ..
                }) => {
                    if *left > 0 {
                        // The stored size says more: where the next
                        // record starts is in doubt.
                        return Err(ZipError::corrupt(
                            "an entry's compressed data ends before its stored size",
                        ));
                    }
                    *descriptor
                }
                _ => true,
            };
            self.state = if descriptor {
                State::Descriptor
            } else {
                State::EntryEnd
            };
        }
        Ok(made)
    }

    /// Reads the data descriptor after the data and checks it against the
    /// data (and the local header where it gave values).
    fn poll_descriptor(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), ZipError>> {
        const LONGEST: usize = DataDescriptor::encoded_len(true, true);
        let got = ready!(self.poll_buffer(cx, LONGEST))?;
        let bytes = &self.buf[self.start..self.start + got];
        let Some(cur) = &self.cur else {
            return Poll::Ready(Ok(()));
        };
        let expected = match &self.data {
            Some(Data::Sized { dec, .. }) | Some(Data::Open { dec }) => DataDescriptor {
                // AE-2 entries store 0.
                crc32: dec.data_crc().unwrap_or(0),
                compressed_size: dec.consumed(),
                uncompressed_size: dec.produced(),
            },
            Some(Data::Scan { scan, .. }) => DataDescriptor {
                crc32: scan.crc(),
                compressed_size: scan.len(),
                uncompressed_size: scan.len(),
            },
            // A skipped entry: take the descriptor as it is.
            Some(Data::Skip { .. } | Data::Unreadable { .. }) | None => {
                let (_, len) = DataDescriptor::parse(bytes, cur.header.zip64)?;
                self.start += len;
                return Poll::Ready(Ok(()));
            }
        };
        let zip64 = cur.header.zip64;
        let recognize = |bytes: &[u8], expected: &DataDescriptor| {
            DataDescriptor::recognize(bytes, zip64, expected)
                .or_else(|| DataDescriptor::recognize(bytes, !zip64, expected))
        };
        // A decompressor that may have read past its data: the descriptor
        // is where one with the stored size that far back matches (the
        // size differs for each place, so one matches at most).
        let read_ahead = match &self.data {
            Some(Data::Open { dec }) => dec
                .read_ahead()
                .min(usize::try_from(expected.compressed_size).unwrap_or(usize::MAX))
                .min(self.start),
            _ => 0,
        };
        let found = (0..=read_ahead).find_map(|back| {
            let expected = DataDescriptor {
                compressed_size: expected.compressed_size - back as u64,
                ..expected
            };
            recognize(&self.buf[self.start - back..self.start + got], &expected)
                .map(|len| (back, len, expected))
        });
        let Some((back, len, expected)) = found else {
            return Poll::Ready(Err(self.descriptor_mismatch(bytes, &expected)));
        };
        let disagrees = cur
            .expect_crc
            .is_some_and(|c| c != expected.crc32 && c != 0)
            || cur
                .stored_size
                .is_some_and(|s| s != expected.compressed_size)
            || cur.size.is_some_and(|s| s != expected.uncompressed_size);
        if disagrees {
            return Poll::Ready(Err(ZipError::corrupt(format!(
                "the data descriptor of {:?} disagrees with its local header",
                self.entry()
                    .map(|e| e.name().into_owned())
                    .unwrap_or_default()
            ))));
        }
        if let Some(Data::Open { dec }) = &mut self.data {
            dec.give_back(back);
        }
        self.start = self.start - back + len;
        Poll::Ready(Ok(()))
    }

    /// The error for a descriptor that does not match the data.
    fn descriptor_mismatch(&self, bytes: &[u8], expected: &DataDescriptor) -> ZipError {
        let name = self
            .entry()
            .map(|e| e.name().into_owned())
            .unwrap_or_default();
        let zip64 = self.cur.as_ref().is_some_and(|c| c.header.zip64);
        match DataDescriptor::parse(bytes, zip64) {
            Err(e) => e,
            Ok((found, _)) if found.crc32 != expected.crc32 => ZipError::DataCrc { entry: name },
            Ok((found, _)) => ZipError::corrupt(format!(
                "the data descriptor of {name:?} gives {} stored and {} data bytes; the entry \
                 has {} and {}",
                found.compressed_size,
                found.uncompressed_size,
                expected.compressed_size,
                expected.uncompressed_size
            )),
        }
    }

    /// Names the entry in errors the decoders raised without its name.
    fn name_error(&self, e: ZipError) -> ZipError {
        match e {
            ZipError::DataCrc { entry } if entry.is_empty() => ZipError::DataCrc {
                entry: self
                    .entry()
                    .map(|e| e.name().into_owned())
                    .unwrap_or_default(),
            },
            e => e,
        }
    }
}

#[cfg(test)]
mod tests {
    use std::io::{Read, Write};

    use super::*;
    use crate::read::winzip_aes::tests::{encrypt as aes_encrypt, PASSWORD};
    use crate::read::zip_crypto::tests::encrypt as zip_crypto_encrypt;
    use crate::{AesStrength, ZipStreamReader};

    const TIME: u16 = 0x5a3c;

    /// An entry written by a streaming writer: flag bit 3, zeros in the
    /// local header, the stored bytes, then a signed descriptor.
    struct Dd<'a> {
        name: &'a str,
        method: u16,
        flags: u16,
        extra: Vec<u8>,
        stored: Vec<u8>,
        crc: u32,
        size: u64,
        zip64: bool,
        signature: bool,
    }

    impl Dd<'_> {
        fn write(&self, out: &mut Vec<u8>) {
            out.extend_from_slice(&LocalFileHeader::SIGNATURE.to_le_bytes());
            for v in [20u16, self.flags | 1 << 3, self.method, TIME, 0x5a21] {
                out.extend_from_slice(&v.to_le_bytes());
            }
            out.extend_from_slice(&[0; 12]);
            let mut extra = self.extra.clone();
            if self.zip64 {
                extra.extend_from_slice(&[1, 0, 16, 0]);
                extra.extend_from_slice(&[0; 16]);
            }
            out.extend_from_slice(&(self.name.len() as u16).to_le_bytes());
            out.extend_from_slice(&(extra.len() as u16).to_le_bytes());
            out.extend_from_slice(self.name.as_bytes());
            out.extend_from_slice(&extra);
            out.extend_from_slice(&self.stored);
            if self.signature {
                out.extend_from_slice(&DataDescriptor::SIGNATURE.to_le_bytes());
            }
            out.extend_from_slice(&self.crc.to_le_bytes());
            let (c, u) = (self.stored.len() as u64, self.size);
            if self.zip64 {
                out.extend_from_slice(&c.to_le_bytes());
                out.extend_from_slice(&u.to_le_bytes());
            } else {
                out.extend_from_slice(&(c as u32).to_le_bytes());
                out.extend_from_slice(&(u as u32).to_le_bytes());
            }
        }
    }

    fn deflate(data: &[u8]) -> Vec<u8> {
        let mut e = flate2::write::DeflateEncoder::new(Vec::new(), flate2::Compression::fast());
        e.write_all(data).unwrap();
        e.finish().unwrap()
    }

    /// Compressible but varied data.
    fn sample(n: usize, seed: u32) -> Vec<u8> {
        let mut x = seed | 1;
        (0..n)
            .map(|i| {
                x ^= x << 13;
                x ^= x >> 17;
                x ^= x << 5;
                if i % 3 == 0 {
                    b'a' + (x % 7) as u8
                } else {
                    x as u8
                }
            })
            .collect()
    }

    fn plain<'a>(name: &'a str, method: u16, stored: Vec<u8>, data: &[u8]) -> Dd<'a> {
        Dd {
            name,
            method,
            flags: 0,
            extra: Vec::new(),
            stored,
            crc: crc32fast::hash(data),
            size: data.len() as u64,
            zip64: false,
            signature: true,
        }
    }

    fn aes_extra(version: u16, method: u16) -> Vec<u8> {
        let mut e = vec![0x01, 0x99, 7, 0];
        e.extend_from_slice(&version.to_le_bytes());
        e.extend_from_slice(b"AE");
        e.push(3);
        e.extend_from_slice(&method.to_le_bytes());
        e
    }

    /// The archive of `entries` and a central directory's first bytes
    /// (the stream reader stops at its signature).
    fn archive(entries: &[Dd<'_>]) -> Vec<u8> {
        let mut out = Vec::new();
        for e in entries {
            e.write(&mut out);
        }
        out.extend_from_slice(b"PK\x01\x02 the central directory");
        out
    }

    /// Every entry's (name, data), reading the input `step` bytes at a
    /// time and the data `read` bytes at a time.
    fn read_all(
        bytes: &[u8],
        step: usize,
        read: usize,
        password: Option<&[u8]>,
    ) -> Result<Vec<(String, Vec<u8>)>, ZipError> {
        struct Steps<'a>(&'a [u8], usize);
        impl Read for Steps<'_> {
            fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
                let n = self.1.min(buf.len()).min(self.0.len());
                buf[..n].copy_from_slice(&self.0[..n]);
                self.0 = &self.0[n..];
                Ok(n)
            }
        }
        let mut options = ZipOptions::new();
        if let Some(p) = password {
            options = options.with_password(p);
        }
        let mut z = ZipStreamReader::with_options(Steps(bytes, step), options);
        let mut out = Vec::new();
        while let Some(mut e) = z.next_entry()? {
            let name = e.name().into_owned();
            let mut data = Vec::new();
            let mut buf = vec![0; read];
            loop {
                match e.read(&mut buf) {
                    Ok(0) => break,
                    Ok(n) => data.extend_from_slice(&buf[..n]),
                    Err(err) => {
                        return Err(err
                            .into_inner()
                            .unwrap()
                            .downcast::<ZipError>()
                            .map(|b| *b)
                            .unwrap())
                    }
                }
            }
            out.push((name, data));
        }
        Ok(out)
    }

    fn splits(bytes: &[u8], password: Option<&[u8]>) -> Vec<(String, Vec<u8>)> {
        let whole = read_all(bytes, 1 << 20, 1 << 16, password).unwrap();
        for (step, read) in [(1, 1), (7, 3), (4096, 1 << 16), (65536, 100)] {
            let split = read_all(bytes, step, read, password).unwrap();
            assert_eq!(split, whole, "step {step} read {read}");
        }
        whole
    }

    #[test]
    fn deflate_and_stored_entries_with_descriptors() {
        let big = sample(200_000, 1);
        // Stored data that holds descriptor-like bytes and signatures.
        let mut tricky = b"PK\x07\x08\x00\x00\x00\x00PK\x03\x04".to_vec();
        tricky.extend(sample(70_000, 2));
        let mut zip64 = plain(
            "z64.txt",
            8,
            deflate(b"zip64 descriptor"),
            b"zip64 descriptor",
        );
        zip64.zip64 = true;
        let mut unsigned = plain("nosig.bin", 0, tricky.clone(), &tricky);
        unsigned.signature = false;
        let bytes = archive(&[
            plain("big.txt", 8, deflate(&big), &big),
            plain("tricky.bin", 0, tricky.clone(), &tricky),
            plain("empty", 0, Vec::new(), b""),
            zip64,
            unsigned,
            plain("dir/", 0, Vec::new(), b""),
        ]);
        let got = splits(&bytes, None);
        let names: Vec<_> = got.iter().map(|e| e.0.as_str()).collect();
        assert_eq!(
            names,
            [
                "big.txt",
                "tricky.bin",
                "empty",
                "z64.txt",
                "nosig.bin",
                "dir/"
            ]
        );
        assert_eq!(got[0].1, big);
        assert_eq!(got[1].1, tricky);
        assert_eq!(got[3].1, b"zip64 descriptor");
        assert_eq!(got[4].1, tricky);
    }

    #[test]
    fn encrypted_entries_of_unknown_length() {
        // Longer than the decryption stage, so the decryptor runs ahead
        // of the decompressor and must give bytes back.
        let data = sample(150_000, 3);
        let packed = deflate(&data);
        let check = (TIME >> 8) as u8;
        let mut zc = plain(
            "zc.txt",
            8,
            zip_crypto_encrypt(b"pw", &[7; 11], check, &packed),
            &data,
        );
        zc.flags = 1;
        let mut ae2 = plain(
            "ae2.txt",
            99,
            aes_encrypt(AesStrength::Aes256, &[9; 16], &packed),
            &data,
        );
        ae2.flags = 1;
        ae2.crc = 0;
        ae2.extra = aes_extra(2, 8);
        let mut ae1 = plain(
            "ae1.txt",
            99,
            aes_encrypt(AesStrength::Aes256, &[5; 16], &packed),
            &data,
        );
        ae1.flags = 1;
        ae1.extra = aes_extra(1, 8);
        let zc_bytes = archive(&[zc, plain("after", 8, deflate(b"x"), b"x")]);
        let got = splits(&zc_bytes, Some(b"pw"));
        assert_eq!(got[0].1, data);
        assert_eq!(got[1].1, b"x");
        let aes_bytes = archive(&[ae2, ae1, plain("after", 8, deflate(b"y"), b"y")]);
        let got = splits(&aes_bytes, Some(PASSWORD));
        assert_eq!(got[0].1, data);
        assert_eq!(got[1].1, data);
        assert_eq!(got[2].1, b"y");
        // A flipped bit in the ciphertext fails authentication.
        let mut bad = aes_bytes.clone();
        bad[1000] ^= 0x10;
        let e = read_all(&bad, 4096, 4096, Some(PASSWORD)).unwrap_err();
        assert!(
            matches!(e, ZipError::Authentication { .. } | ZipError::Method(_)),
            "{e:?}"
        );
        assert!(matches!(
            read_all(&aes_bytes, 4096, 4096, Some(b"wrong")),
            Err(ZipError::WrongPassword)
        ));
    }

    #[test]
    fn a_descriptor_that_disagrees_is_an_error() {
        let data = sample(5000, 4);
        let mut crc = plain("a", 8, deflate(&data), &data);
        crc.crc ^= 1;
        let e = read_all(&archive(&[crc]), 512, 512, None).unwrap_err();
        assert!(
            matches!(e, ZipError::DataCrc { ref entry } if entry == "a"),
            "{e:?}"
        );
        let mut size = plain("a", 8, deflate(&data), &data);
        size.size += 1;
        let e = read_all(&archive(&[size]), 512, 512, None).unwrap_err();
        assert!(matches!(e, ZipError::Corrupt(_)), "{e:?}");
    }

    #[test]
    fn every_truncation_is_an_error() {
        let data = sample(3000, 5);
        let mut bytes = Vec::new();
        plain("d", 8, deflate(&data), &data).write(&mut bytes);
        plain("s", 0, data.clone(), &data).write(&mut bytes);
        for cut in 0..bytes.len() {
            let r = read_all(&bytes[..cut], 977, 4096, None);
            assert!(r.is_err(), "cut at {cut}");
        }
    }

    #[test]
    fn look_ahead_stays_bounded() {
        let data = sample(1 << 20, 6);
        let bytes = archive(&[plain("s", 0, data.clone(), &data)]);
        let mut z =
            PollZipStream::new(lzflow_core::source::Blocking(&bytes[..]), ZipOptions::new());
        lzflow_core::source::block_on(async {
            z.next_entry().await?;
            let mut buf = [0u8; 100];
            while std::future::poll_fn(|cx| z.poll_read(cx, &mut buf)).await? > 0 {
                assert!(z.buf.len() <= MAX_LOOK_AHEAD);
            }
            Ok::<_, ZipError>(())
        })
        .unwrap();
    }

    #[test]
    fn the_entry_count_cap_applies() {
        let entries: Vec<_> = (0..5).map(|_| plain("e", 0, b"1".to_vec(), b"1")).collect();
        let bytes = archive(&entries);
        let mut z =
            ZipStreamReader::with_options(&bytes[..], ZipOptions::new().with_max_entries(4));
        for _ in 0..4 {
            assert!(z.next_entry().unwrap().is_some());
        }
        assert!(matches!(
            z.next_entry(),
            Err(ZipError::Limit(LimitExceeded::Entries {
                count: 5,
                limit: 4
            }))
        ));
    }
}
