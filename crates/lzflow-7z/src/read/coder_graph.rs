//! Turns a folder into a sans-I/O decoder: a tree of coders whose leaves are
//! the folder's packed streams.
//!
//! The folder decoder never reads anything itself. When a leaf runs dry it
//! reports which packed stream it needs and at which file offset; the caller
//! (the std or async face) reads those bytes into [`FolderDecoder::pack_space`]
//! and calls [`FolderDecoder::pack_filled`]. Every coder output is capped at
//! its declared unpack size, so a hostile stream cannot produce more.
//!
//! Like 7-Zip, a coder that knows where its data ends (Copy, LZMA, LZMA2,
//! Deflate, BZip2) must end exactly at its declared size and use up its
//! input; filters (BCJ, Delta, AES, BCJ2) stop at their size.

use lzflow_core::Readiness;
use lzflow_core::{Decode, ErrInto, InBuf, Lease, Limits, OutBuf, Pool, Progress};
use lzflow_lzma::DecoderOptions;
use lzflow_methods::{check_decoder_memory, describe_7z, new_decoder, Method, Properties};

use crate::read::aes::{AesDecoder, AesProps, KeyCache};
use crate::read::bcj2::{Bcj2Decoder, Bcj2Need};
use crate::read::folder::{Coder, Folder};
use crate::SevenZError;

/// A boxed folder coder.
type BoxedDecode = Box<dyn Decode<Error = SevenZError> + Send>;

/// Largest buffer between two coders.
const STREAM_BUF: usize = 64 << 10;

/// Largest buffer behind a packed stream. Each fill is one read of the
/// archive, and for `tokio::fs::File` each read is a round trip through the
/// blocking pool: with 256 KiB reads instead of 64 KiB, the tokio face
/// extracts a 200 MiB solid archive (one thread) 5 % faster, on par with
/// `std::fs`; 1 MiB gained 1 % more but costs tokio's `File` as large a
/// buffer of its own. A packed stream smaller than this gets its own size.
const PACK_BUF: usize = 256 << 10;

/// What a folder decoder needs or produced.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FolderStep {
    /// This many bytes were written to the start of the output slice.
    Data(usize),
    /// Bytes of a packed stream are needed before going on.
    NeedPack(PackRequest),
    /// The folder's whole output has been produced (and its CRC verified).
    End,
    /// A non-blocking multi-threaded decoder waits for its workers: call
    /// again once [`FolderDecoder::readiness`] is ready
    /// ([`Readiness::poll_ready`](lzflow_core::Readiness::poll_ready)).
    Wait,
}

/// A read the caller must perform for the folder decoder.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PackRequest {
    /// Index of the packed stream within the folder.
    pub stream: usize,
    /// Absolute file offset to read from.
    pub offset: u64,
    /// Most bytes to read (the size of [`FolderDecoder::pack_space`]).
    pub len: usize,
}

/// Settings shared by every coder of an archive.
#[derive(Debug, Clone)]
pub(crate) struct CoderSettings {
    pub(crate) limits: Limits,
    /// Threads for LZMA2 streams with dictionary resets.
    pub(crate) threads: usize,
    /// Set when the multi-threaded decoders must not block.
    pub(crate) readiness: Option<lzflow_core::Readiness>,
}

/// Bytes between a producer and its consumer, leased from the global pool
/// so that extracting folder after folder reuses the same buffers.
struct StreamBuf {
    data: Lease<u8>,
    start: usize,
    end: usize,
    /// No more bytes will arrive.
    eof: bool,
    /// Pack leaves: bytes of the packed stream not fed yet.
    remaining: u64,
    /// Pack leaves: the stored CRC of the packed stream and the running one.
    crc: Option<(u32, crc32fast::Hasher)>,
}

impl StreamBuf {
    /// A buffer for a stream of `capacity_hint` bytes, of at most `max`.
    fn new(capacity_hint: u64, max: usize) -> Self {
        let cap = capacity_hint.clamp(1, max as u64) as usize;
        let mut data = Pool::<u8>::global().lease(cap);
        data.resize(cap, 0);
        StreamBuf {
            data,
            start: 0,
            end: 0,
            eof: false,
            remaining: 0,
            crc: None,
        }
    }

    fn is_empty(&self) -> bool {
        self.start == self.end
    }

    fn compact(&mut self) {
        if self.start > 0 {
            self.data.copy_within(self.start..self.end, 0);
            self.end -= self.start;
            self.start = 0;
        }
    }
}

enum Source {
    Pack(usize),
    Coder(Box<Node>),
}

struct Slot {
    buf: StreamBuf,
    source: Source,
}

/// Result of pulling from a node.
enum Pull {
    Data(usize),
    Need(usize),
    End,
    /// A non-blocking multi-threaded decoder waits for its workers.
    Wait,
}

impl Slot {
    /// Refills an empty slot from its source; `Some` when the caller must
    /// first feed a packed stream (`Need`) or wait (`Wait`).
    fn refill(&mut self) -> Result<Option<Pull>, SevenZError> {
        if !self.buf.is_empty() || self.buf.eof {
            return Ok(None);
        }
        self.buf.start = 0;
        self.buf.end = 0;
        match &mut self.source {
            Source::Pack(k) => Ok(Some(Pull::Need(*k))),
            Source::Coder(child) => match child.pull(&mut self.buf.data)? {
                Pull::Data(n) => {
                    self.buf.end = n;
                    Ok(None)
                }
                p @ (Pull::Need(_) | Pull::Wait) => Ok(Some(p)),
                Pull::End => {
                    self.buf.eof = true;
                    Ok(None)
                }
            },
        }
    }
}

enum Kind {
    Single(BoxedDecode),
    Bcj2(Box<Bcj2Decoder>),
}

struct Node {
    kind: Kind,
    inputs: Vec<Slot>,
    out_size: u64,
    produced: u64,
    /// The coder's data must end at `out_size` and use all its input.
    exact: bool,
    /// Ending before `out_size` is an error: for the folder's own output,
    /// and for LZMA and LZMA2 (7-Zip's decoders check their size). Another
    /// coder that feeds a coder may end early, as in 7-Zip: its consumer
    /// checks what it gets.
    must_fill: bool,
    /// The end checks passed.
    finished: bool,
    /// The coder failed after writing output: the error comes with the
    /// next pull.
    failed: Option<SevenZError>,
    /// The coder feeding this one failed: this one gives what it holds,
    /// then the error.
    input_failed: Option<SevenZError>,
    /// The archive's handle when its multi-threaded decoders must not
    /// block: a call without progress while it waits is a wait, not a
    /// stall.
    readiness: Option<Readiness>,
}

/// Whether a non-blocking decoder stopped to wait for its workers.
fn waiting(readiness: &Option<Readiness>) -> bool {
    readiness.as_ref().is_some_and(Readiness::is_waiting)
}

fn view(s: &Slot) -> InBuf<'_> {
    InBuf::new(&s.buf.data[s.buf.start..s.buf.end]).with_last(s.buf.eof)
}

fn stalled() -> SevenZError {
    SevenZError::corrupt("a coder stopped making progress")
}

/// A [`SevenZError::DataSize`]; [`FolderDecoder::read`] names the folder.
fn data_size(what: &'static str) -> SevenZError {
    SevenZError::DataSize {
        folder: String::new(),
        what,
    }
}

impl Node {
    fn pull(&mut self, out: &mut [u8]) -> Result<Pull, SevenZError> {
        if let Some(e) = self.failed.take() {
            return Err(e);
        }
        let left = self.out_size - self.produced;
        if left == 0 {
            return self.finish();
        }
        let want = out.len().min(usize::try_from(left).unwrap_or(usize::MAX));
        let out = &mut out[..want];
        let mut stalls = 0;
        loop {
            let made = match &mut self.kind {
                Kind::Single(dec) => {
                    let slot = &mut self.inputs[0];
                    if self.input_failed.is_none() {
                        match slot.refill() {
                            Ok(Some(p)) => return Ok(p),
                            Ok(None) => {}
                            Err(e) => self.input_failed = Some(e),
                        }
                    }
                    if let Some(e) = self.input_failed.take() {
                        // The coder feeding this one failed: what this one
                        // holds and can give without more input goes out
                        // first (a filter may hold a whole buffer of it),
                        // then the error.
                        let mut output = OutBuf::new(out);
                        let _ = dec.decode(&mut InBuf::new(&[]), &mut output);
                        let made = output.pos();
                        if made == 0 {
                            return Err(e);
                        }
                        self.input_failed = Some(e);
                        self.produced += made as u64;
                        return Ok(Pull::Data(made));
                    }
                    let buf = &mut slot.buf;
                    let mut input = InBuf::new(&buf.data[buf.start..buf.end]).with_last(buf.eof);
                    let mut output = OutBuf::new(out);
                    let result = dec.decode(&mut input, &mut output);
                    let (used, made) = (input.pos(), output.pos());
                    buf.start += used;
                    let progress = match result {
                        Ok(p) => p,
                        // What the coder wrote before it failed goes out
                        // first (as from a multi-threaded decoder, which
                        // hands out a failed segment's output whole).
                        Err(e) if made > 0 => {
                            self.failed = Some(e);
                            self.produced += made as u64;
                            return Ok(Pull::Data(made));
                        }
                        Err(e) => return Err(e),
                    };
                    if made == 0 && progress == Progress::StreamEnd {
                        if !self.must_fill {
                            return Ok(Pull::End);
                        }
                        return Err(data_size("the coded data ends before its declared size"));
                    }
                    if used == 0 && made == 0 {
                        if waiting(&self.readiness) {
                            return Ok(Pull::Wait);
                        }
                        stalls += 1;
                    }
                    made
                }
                Kind::Bcj2(dec) => {
                    let (need, used, made) = {
                        let [a, b, c, d] = &mut self.inputs[..] else {
                            return Err(SevenZError::corrupt("BCJ2 needs four inputs"));
                        };
                        let mut ins = [view(a), view(b), view(c), view(d)];
                        let mut output = OutBuf::new(out);
                        let need = dec.decode(&mut ins, &mut output)?;
                        (need, ins.map(|i| i.pos()), output.pos())
                    };
                    for (slot, u) in self.inputs.iter_mut().zip(used) {
                        slot.buf.start += u;
                    }
                    if made == 0 {
                        match need {
                            Bcj2Need::Input(i) => {
                                let slot = &mut self.inputs[i];
                                if slot.buf.is_empty() && slot.buf.eof {
                                    return Err(SevenZError::corrupt(format!(
                                        "BCJ2 input stream {i} ends early"
                                    )));
                                }
                                if let Some(p) = slot.refill()? {
                                    return Ok(p);
                                }
                            }
                            Bcj2Need::Output => stalls += 1,
                        }
                    }
                    made
                }
            };
            if made > 0 {
                self.produced += made as u64;
                return Ok(Pull::Data(made));
            }
            if stalls > 3 {
                return Err(stalled());
            }
        }
    }

    /// At the declared size, an exact coder is driven to its end: a byte
    /// more of output, or input left after its end, is a data error.
    /// `Need(k)` while it waits for packed stream `k`.
    fn finish(&mut self) -> Result<Pull, SevenZError> {
        if self.finished || !self.exact {
            return Ok(Pull::End);
        }
        let Kind::Single(dec) = &mut self.kind else {
            return Ok(Pull::End);
        };
        let slot = &mut self.inputs[0];
        loop {
            if let Some(p) = slot.refill()? {
                return Ok(p);
            }
            let buf = &mut slot.buf;
            let mut input = InBuf::new(&buf.data[buf.start..buf.end]).with_last(buf.eof);
            let mut probe = [0u8; 1];
            let mut output = OutBuf::new(&mut probe);
            let progress = dec.decode(&mut input, &mut output)?;
            let used = input.pos();
            buf.start += used;
            if output.pos() > 0 {
                return Err(data_size("the coded data goes on past its declared size"));
            }
            match progress {
                // Bytes it took past its end (BZip2's look for another
                // stream) were packed bytes after the coded data.
                Progress::StreamEnd if dec.unused_after_end() > 0 => {
                    return Err(data_size("packed bytes follow the end of the coded data"))
                }
                Progress::StreamEnd => break,
                _ if used == 0 && waiting(&self.readiness) => return Ok(Pull::Wait),
                _ if used == 0 && buf.is_empty() && buf.eof => return Err(stalled()),
                _ if used == 0 && !buf.is_empty() => return Err(stalled()),
                _ => {}
            }
        }
        // Nothing may follow the end: not in the buffer, not in the packed
        // stream, not from the coder feeding this one.
        loop {
            if !slot.buf.is_empty() {
                return Err(data_size("packed bytes follow the end of the coded data"));
            }
            if slot.buf.eof {
                break;
            }
            match &slot.source {
                Source::Pack(_) => {
                    return Err(data_size("packed bytes follow the end of the coded data"))
                }
                Source::Coder(_) => {
                    if let Some(p) = slot.refill()? {
                        return Ok(p);
                    }
                }
            }
        }
        self.finished = true;
        Ok(Pull::End)
    }

    fn pack_slot(&mut self, k: usize) -> Option<&mut StreamBuf> {
        for slot in self.inputs.iter_mut() {
            match &mut slot.source {
                Source::Pack(p) if *p == k => return Some(&mut slot.buf),
                Source::Pack(_) => {}
                Source::Coder(child) => {
                    if let Some(b) = child.pack_slot(k) {
                        return Some(b);
                    }
                }
            }
        }
        None
    }
}

/// A folder's decode chain, driven by the caller's reads.
pub struct FolderDecoder {
    root: Node,
    pack_offsets: Vec<u64>,
    pack_sizes: Vec<u64>,
    encrypted: bool,
    crc: Option<(u32, crc32fast::Hasher)>,
    label: String,
    failed: bool,
    bad_pack_crc: bool,
}

impl std::fmt::Debug for FolderDecoder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FolderDecoder")
            .field("label", &self.label)
            .field("encrypted", &self.encrypted)
            .finish_non_exhaustive()
    }
}

impl FolderDecoder {
    /// Builds the decoder of `folder`, whose packed streams start at the
    /// absolute file offsets `pack_offsets` with sizes `pack_sizes`.
    pub(crate) fn new(
        folder: &Folder,
        pack_offsets: &[u64],
        pack_sizes: &[u64],
        pack_crcs: &[Option<u32>],
        keys: &KeyCache,
        settings: &CoderSettings,
        label: String,
    ) -> Result<Self, SevenZError> {
        if pack_offsets.len() != folder.packed_streams.len()
            || pack_sizes.len() != folder.packed_streams.len()
        {
            return Err(SevenZError::corrupt("folder packed stream count mismatch"));
        }
        check_memory(folder, settings)?;
        let main = folder
            .main_out_index()
            .ok_or_else(|| SevenZError::corrupt("folder has no final output"))?;
        let mut builder = Builder {
            folder,
            pack_sizes,
            pack_crcs,
            keys,
            settings,
            visited: vec![false; folder.coders.len()],
            in_base: Vec::new(),
        };
        let mut at = 0;
        for c in &folder.coders {
            if c.num_out_streams != 1 {
                return Err(SevenZError::Unsupported {
                    method: describe_7z(&c.method),
                });
            }
            builder.in_base.push(at);
            at += c.num_in_streams;
        }
        let root = builder.node(main, true)?;
        // As 7-Zip requires, every coder feeds the output.
        if builder.visited.contains(&false) {
            return Err(SevenZError::corrupt(
                "a coder of the folder is not connected to its output",
            ));
        }
        Ok(FolderDecoder {
            root,
            pack_offsets: pack_offsets.to_vec(),
            pack_sizes: pack_sizes.to_vec(),
            encrypted: folder.is_encrypted(),
            crc: folder.crc.map(|c| (c, crc32fast::Hasher::new())),
            label,
            failed: false,
            bad_pack_crc: false,
        })
    }

    /// The handle that says when a [`FolderStep::Wait`] is over (only
    /// non-blocking decoders wait).
    pub fn readiness(&self) -> Option<&Readiness> {
        self.root.readiness.as_ref()
    }

    /// True when the folder decrypts with AES.
    pub fn is_encrypted(&self) -> bool {
        self.encrypted
    }

    /// The packed streams' offsets in the file and sizes.
    pub fn pack_ranges(&self) -> (&[u64], &[u64]) {
        (&self.pack_offsets, &self.pack_sizes)
    }

    /// Size of the folder's whole output.
    pub fn unpack_size(&self) -> u64 {
        self.root.out_size
    }

    /// Produces output into `out`, or says which packed bytes to read.
    pub fn read(&mut self, out: &mut [u8]) -> Result<FolderStep, SevenZError> {
        if self.failed {
            return Err(SevenZError::corrupt(format!(
                "{} failed earlier and cannot go on",
                self.label
            )));
        }
        if out.is_empty() {
            return Ok(FolderStep::Data(0));
        }
        if self.bad_pack_crc {
            self.failed = true;
            return Err(SevenZError::DataCrc {
                entry: format!("{} (packed stream)", self.label),
            });
        }
        match self.root.pull(out) {
            Ok(Pull::Data(n)) => {
                if let Some((_, h)) = &mut self.crc {
                    h.update(&out[..n]);
                }
                Ok(FolderStep::Data(n))
            }
            Ok(Pull::Need(k)) => Ok(FolderStep::NeedPack(self.request(k))),
            Ok(Pull::Wait) => Ok(FolderStep::Wait),
            Ok(Pull::End) => {
                if let Some((want, h)) = self.crc.take() {
                    if h.finalize() != want {
                        self.failed = true;
                        return Err(self.classify_error(SevenZError::DataCrc {
                            entry: self.label.clone(),
                        }));
                    }
                }
                Ok(FolderStep::End)
            }
            Err(mut e) => {
                self.failed = true;
                if let SevenZError::DataSize { folder, .. } = &mut e {
                    folder.clone_from(&self.label);
                }
                Err(self.classify_error(e))
            }
        }
    }

    /// Classifies an error met while reading this folder's output by the
    /// one wrong-password rule ([`SevenZError`]'s `after_decryption`).
    pub fn classify_error(&self, e: SevenZError) -> SevenZError {
        e.after_decryption(self.encrypted)
    }

    fn request(&mut self, k: usize) -> PackRequest {
        let offset = self.pack_offsets[k];
        let size = self.pack_sizes[k];
        let buf = self
            .root
            .pack_slot(k)
            .expect("every packed stream has a leaf");
        PackRequest {
            stream: k,
            offset: offset + (size - buf.remaining),
            len: (buf.data.len() - buf.end)
                .min(usize::try_from(buf.remaining).unwrap_or(usize::MAX)),
        }
    }

    /// Where to put the bytes of a [`PackRequest`] for `stream`.
    pub fn pack_space(&mut self, stream: usize) -> &mut [u8] {
        match self.root.pack_slot(stream) {
            Some(buf) => {
                buf.compact();
                let n = (buf.data.len() - buf.end)
                    .min(usize::try_from(buf.remaining).unwrap_or(usize::MAX));
                &mut buf.data[buf.end..buf.end + n]
            }
            None => &mut [],
        }
    }

    /// Records that `n` bytes were written into [`pack_space`](Self::pack_space).
    pub fn pack_filled(&mut self, stream: usize, n: usize) {
        let mut bad_crc = false;
        if let Some(buf) = self.root.pack_slot(stream) {
            let n = n
                .min(buf.data.len() - buf.end)
                .min(usize::try_from(buf.remaining).unwrap_or(usize::MAX));
            if let Some((_, h)) = &mut buf.crc {
                h.update(&buf.data[buf.end..buf.end + n]);
            }
            buf.end += n;
            buf.remaining -= n as u64;
            buf.eof = buf.remaining == 0;
            if buf.eof {
                if let Some((want, h)) = buf.crc.take() {
                    bad_crc = h.finalize() != want;
                }
            }
        }
        if bad_crc {
            // Reported by the next read: the packed bytes are damaged.
            self.bad_pack_crc = true;
        }
    }
}

struct Builder<'a> {
    folder: &'a Folder,
    pack_sizes: &'a [u64],
    pack_crcs: &'a [Option<u32>],
    keys: &'a KeyCache,
    settings: &'a CoderSettings,
    visited: Vec<bool>,
    in_base: Vec<usize>,
}

impl Builder<'_> {
    /// The node producing coder output `out` (one output per coder, so the
    /// output index is the coder index); `root` for the folder's output.
    fn node(&mut self, out: usize, root: bool) -> Result<Node, SevenZError> {
        let coder = self
            .folder
            .coders
            .get(out)
            .ok_or_else(|| SevenZError::corrupt("bind pair names a missing coder"))?;
        if std::mem::replace(&mut self.visited[out], true) {
            return Err(SevenZError::corrupt("folder coders bind in a cycle"));
        }
        let out_size = *self
            .folder
            .unpack_sizes
            .get(out)
            .ok_or_else(|| SevenZError::corrupt("missing coder unpack size"))?;
        let mut inputs = Vec::with_capacity(coder.num_in_streams);
        for i in 0..coder.num_in_streams {
            let in_index = self.in_base[out] + i;
            let bound = self
                .folder
                .bind_pairs
                .iter()
                .find(|b| b.in_index == in_index)
                .map(|b| b.out_index);
            let slot = if let Some(src) = bound {
                let child = self.node(src, false)?;
                Slot {
                    buf: StreamBuf::new(child.out_size, STREAM_BUF),
                    source: Source::Coder(Box::new(child)),
                }
            } else {
                let k = self
                    .folder
                    .packed_streams
                    .iter()
                    .position(|&p| p == in_index)
                    .ok_or_else(|| SevenZError::corrupt("a coder input is not connected"))?;
                let size = self.pack_sizes[k];
                let mut buf = StreamBuf::new(size, PACK_BUF);
                buf.remaining = size;
                buf.eof = size == 0;
                buf.crc = self
                    .pack_crcs
                    .get(k)
                    .copied()
                    .flatten()
                    .filter(|_| size > 0)
                    .map(|c| (c, crc32fast::Hasher::new()));
                Slot {
                    buf,
                    source: Source::Pack(k),
                }
            };
            inputs.push(slot);
        }
        let kind = make_coder(coder, out_size, self.keys, self.settings)?;
        let method = Method::from_7z_id(&coder.method);
        let exact = matches!(
            method,
            Some(Method::Copy | Method::Lzma | Method::Lzma2 | Method::Deflate | Method::BZip2)
        );
        let must_fill = root || matches!(method, Some(Method::Lzma | Method::Lzma2));
        let want_inputs = if matches!(kind, Kind::Bcj2(_)) { 4 } else { 1 };
        if inputs.len() != want_inputs {
            return Err(SevenZError::corrupt(format!(
                "coder {} has {} inputs, expected {want_inputs}",
                describe_7z(&coder.method),
                inputs.len()
            )));
        }
        Ok(Node {
            kind,
            inputs,
            out_size,
            produced: 0,
            exact,
            must_fill,
            finished: false,
            failed: None,
            input_failed: None,
            readiness: self.settings.readiness.clone(),
        })
    }
}

/// The registry's view of a coder: its method and parsed properties
/// (`None` for a method lzflow does not know).
fn properties(coder: &Coder) -> Result<Option<Properties>, SevenZError> {
    match Method::from_7z_id(&coder.method) {
        Some(method) => Ok(Some(Properties::from_7z(method, &coder.properties)?)),
        None => Ok(None),
    }
}

/// The one memory check ([`check_decoder_memory`]), over the folder's
/// coders each with the size it produces; the coders are then built
/// without a limit of their own.
fn check_memory(folder: &Folder, settings: &CoderSettings) -> Result<(), SevenZError> {
    let mut chain = Vec::with_capacity(folder.coders.len());
    for (c, &size) in folder.coders.iter().zip(&folder.unpack_sizes) {
        if let Some(p) = properties(c)? {
            chain.push((p, Some(size)));
        }
    }
    check_decoder_memory(chain.iter().map(|(p, n)| (p, *n)), &settings.limits)?;
    Ok(())
}

fn make_coder(
    coder: &Coder,
    out_size: u64,
    keys: &KeyCache,
    settings: &CoderSettings,
) -> Result<Kind, SevenZError> {
    let unsupported = || SevenZError::Unsupported {
        method: describe_7z(&coder.method),
    };
    let props = properties(coder)?.ok_or_else(unsupported)?;
    match props.method() {
        Method::Bcj2 => Ok(Kind::Bcj2(Box::new(Bcj2Decoder::new()))),
        Method::Aes7z => {
            let props = AesProps::parse(&coder.properties)?;
            let key = keys.key(&props)?;
            Ok(Kind::Single(Box::new(AesDecoder::new(&key, &props.iv))))
        }
        _ => {
            // The registry checked the folder's memory before opening it,
            // except a Zstandard window, which only its frames give.
            let memory = match props.method() {
                Method::Zstd => settings.limits.memory,
                _ => u64::MAX,
            };
            let mut opts = DecoderOptions::default()
                .with_limits(Limits {
                    memory,
                    output: settings.limits.output,
                })
                .with_threads(settings.threads);
            opts.readiness.clone_from(&settings.readiness);
            let dec = new_decoder(&props, Some(out_size), &opts)?;
            Ok(Kind::Single(Box::new(ErrInto::new(dec))))
        }
    }
}

impl Decode for FolderDecoder {
    type Error = SevenZError;
    /// Decodes a folder with exactly one packed stream as a plain stream
    /// coder: the input is that packed stream.
    fn decode(
        &mut self,
        input: &mut InBuf<'_>,
        output: &mut OutBuf<'_>,
    ) -> Result<Progress, SevenZError> {
        if self.pack_sizes.len() != 1 {
            return Err(SevenZError::UnsupportedFeature(
                "streaming a folder with several packed streams",
            ));
        }
        loop {
            match self.read(output.spare_mut())? {
                FolderStep::Data(0) => return Ok(Progress::OutputFull),
                FolderStep::Data(n) => {
                    output.advance(n);
                    return Ok(Progress::OutputFull);
                }
                FolderStep::End => return Ok(Progress::StreamEnd),
                // No progress: the caller asks the handle when to go on.
                FolderStep::Wait => return Ok(Progress::OutputFull),
                FolderStep::NeedPack(req) => {
                    if input.is_empty() {
                        if input.is_last() {
                            return Err(SevenZError::Truncated);
                        }
                        return Ok(Progress::NeedInput);
                    }
                    let space = self.pack_space(req.stream);
                    let n = space.len().min(input.len());
                    space[..n].copy_from_slice(input.take(n));
                    self.pack_filled(req.stream, n);
                }
            }
        }
    }
}
