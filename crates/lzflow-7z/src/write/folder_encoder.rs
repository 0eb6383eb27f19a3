//! A folder's compression: filter → LZ → (AES) → packed output. The same
//! engine runs on the writer's thread or on a worker
//! ([`folder_workers`](crate::write::folder_workers)); where its output goes is a
//! [`PackedOut`]. A BCJ2 folder has four packed streams: the main one as
//! it is compressed, then the flag, CALL and JUMP streams (each through
//! its own AES coder when encrypting) once the folder ends.

use lzflow_core::{Encode, InBuf, Lease, OutBuf, Pool, Progress};
use lzflow_filters::FilterEncoder;
use lzflow_lzma::{Lzma2Encoder, LzmaEncoder, LzmaOptions, MtLzma2Encoder};
use lzflow_methods::{new_encoder, new_ppmd_encoder, BoxedEncoder, Method as Registry};

use crate::secret_buf::SecretBuf;
use crate::write::aes_encoder::AesEncoder;
use crate::write::bcj2_encoder::{Bcj2Sizes, Bcj2Stage};
use crate::write::writer_options::Method;
use crate::SevenZError;

/// Bytes read from an entry's source at a time, and the size of the coder
/// output buffer.
pub(crate) const CHUNK: usize = 64 << 10;
/// A folder's first input is held back up to this size before its LZ
/// encoder is made: a folder that ends within it gets an encoder (and a
/// dictionary) fitted to its size.
pub(crate) const HOLD_MAX: usize = 1 << 20;

/// Where a folder's packed bytes go: queued, then written in batches.
pub(crate) trait PackedOut {
    /// Appends bytes to the queue (never fails, never loses them).
    fn queue(&mut self, data: &[u8]);
    /// Writes the queue out once it holds a batch.
    fn write_if_full(&mut self) -> Result<(), SevenZError>;
    /// Writes out everything queued.
    fn write_pending(&mut self) -> Result<(), SevenZError>;
}

/// The compression engine of a folder.
pub(crate) enum Lz {
    Copy,
    Lzma(Box<LzmaEncoder>),
    Lzma2(Box<Lzma2Encoder>),
    MtLzma2(Box<MtLzma2Encoder>),
    /// Deflate or BZip2: the method registry's encoder, made again for
    /// each folder.
    Registry(BoxedEncoder, Registry, u32),
    /// PPMd: the registry's encoder of this order and memory size.
    Ppmd(BoxedEncoder, u8, u32),
}

impl Lz {
    /// An engine for `opts`, fitted to `size` bytes of input when known;
    /// with more than one thread, LZMA2 of unknown size runs on `threads`
    /// threads and LZMA has its match finder on a second one.
    pub(crate) fn new(
        method: Method,
        level: u32,
        opts: &LzmaOptions,
        size: Option<u64>,
        threads: usize,
    ) -> Result<Self, SevenZError> {
        let registry = |m: Registry| -> Result<Self, SevenZError> {
            let level = level.max(1);
            Ok(Lz::Registry(new_encoder(m, level)?, m, level))
        };
        Ok(match (method, size) {
            (Method::Copy, _) => Lz::Copy,
            (Method::Deflate, _) => registry(Registry::Deflate)?,
            (Method::BZip2, _) => registry(Registry::BZip2)?,
            (Method::Ppmd { order, mem_size }, _) => {
                Lz::Ppmd(new_ppmd_encoder(order, mem_size)?, order, mem_size)
            }
            // One LZMA stream cannot be split: a second thread runs its
            // match finder (the same bytes), as 7-Zip's -mmt=2 does.
            (Method::Lzma, size) => {
                let opts = LzmaOptions {
                    match_finder_thread: threads > 1,
                    ..*opts
                };
                Lz::Lzma(Box::new(match size {
                    None => LzmaEncoder::new(&opts, false)?,
                    Some(n) => LzmaEncoder::with_size_hint(&opts, false, n)?,
                }))
            }
            (Method::Lzma2, None) if threads > 1 => {
                Lz::MtLzma2(Box::new(MtLzma2Encoder::new(opts, threads, 0)?))
            }
            (Method::Lzma2, None) => Lz::Lzma2(Box::new(Lzma2Encoder::new(opts)?)),
            (Method::Lzma2, Some(n)) => Lz::Lzma2(Box::new(Lzma2Encoder::with_size_hint(opts, n)?)),
        })
    }

    /// Whether this engine, reset, codes `method`: any engine but PPMd's,
    /// whose model size is made per folder (the LZ engines are matched by
    /// their options).
    pub(crate) fn serves(&self, method: Method) -> bool {
        match (self, method) {
            (
                Lz::Ppmd(_, order, mem_size),
                Method::Ppmd {
                    order: o,
                    mem_size: m,
                },
            ) => *order == o && *mem_size == m,
            (Lz::Ppmd(..), _) | (_, Method::Ppmd { .. }) => false,
            _ => true,
        }
    }

    pub(crate) fn reset(&mut self) {
        match self {
            Lz::Copy => {}
            Lz::Lzma(e) => e.reset(),
            Lz::Lzma2(e) => e.reset(),
            Lz::MtLzma2(e) => e.reset(),
            Lz::Registry(e, m, level) => {
                // A fresh stream; the one made before served as well.
                if let Ok(fresh) = new_encoder(*m, *level) {
                    *e = fresh;
                }
            }
            Lz::Ppmd(e, order, mem_size) => {
                if let Ok(fresh) = new_ppmd_encoder(*order, *mem_size) {
                    *e = fresh;
                }
            }
        }
    }
}

impl Encode for Lz {
    type Error = SevenZError;

    fn encode(
        &mut self,
        input: &mut InBuf<'_>,
        output: &mut OutBuf<'_>,
    ) -> Result<Progress, SevenZError> {
        match self {
            Lz::Copy => {
                let n = output.push(input.remaining());
                input.advance(n);
                Ok(if input.is_empty() {
                    Progress::NeedInput
                } else {
                    Progress::OutputFull
                })
            }
            Lz::Lzma(e) => Ok(e.encode(input, output)?),
            Lz::Lzma2(e) => Ok(e.encode(input, output)?),
            Lz::MtLzma2(e) => Ok(e.encode(input, output)?),
            Lz::Registry(e, ..) | Lz::Ppmd(e, ..) => Ok(e.encode(input, output)?),
        }
    }

    fn flush(&mut self, output: &mut OutBuf<'_>) -> Result<Progress, SevenZError> {
        match self {
            Lz::Copy => Ok(Progress::NeedInput),
            Lz::Lzma(e) => Ok(e.flush(output)?),
            Lz::Lzma2(e) => Ok(e.flush(output)?),
            Lz::MtLzma2(e) => Ok(e.flush(output)?),
            Lz::Registry(e, ..) | Lz::Ppmd(e, ..) => Ok(e.flush(output)?),
        }
    }

    fn finish(&mut self, output: &mut OutBuf<'_>) -> Result<Progress, SevenZError> {
        match self {
            Lz::Copy => Ok(Progress::StreamEnd),
            Lz::Lzma(e) => Ok(e.finish(output)?),
            Lz::Lzma2(e) => Ok(e.finish(output)?),
            Lz::MtLzma2(e) => Ok(e.finish(output)?),
            Lz::Registry(e, ..) | Lz::Ppmd(e, ..) => Ok(e.finish(output)?),
        }
    }
}

/// The LZ engine, with or without a filter in front.
pub(crate) enum Stage {
    Plain(Lz),
    Filtered(FilterEncoder<Lz>),
    /// BCJ2 in front: `Lz` compresses its main stream.
    Bcj2(Box<Bcj2Stage>),
}

impl Stage {
    pub(crate) fn into_lz(self) -> Lz {
        match self {
            Stage::Plain(lz) => lz,
            Stage::Filtered(f) => f.into_inner(),
            Stage::Bcj2(b) => b.into_lz(),
        }
    }

    fn encode(
        &mut self,
        input: &mut InBuf<'_>,
        output: &mut OutBuf<'_>,
    ) -> Result<Progress, SevenZError> {
        match self {
            Stage::Plain(lz) => lz.encode(input, output),
            Stage::Filtered(f) => f.encode(input, output),
            Stage::Bcj2(b) => b.encode(input, output),
        }
    }

    fn finish(&mut self, output: &mut OutBuf<'_>) -> Result<Progress, SevenZError> {
        match self {
            Stage::Plain(lz) => lz.finish(output),
            Stage::Filtered(f) => f.finish(output),
            Stage::Bcj2(b) => b.finish(output),
        }
    }
}

/// The engine side of a folder being written: filter → LZ → (AES) → out.
pub(crate) struct FolderEncoder {
    /// The engine; `None` while the folder's input is held back.
    pub(crate) stage: Option<Stage>,
    /// Input held back until the folder ends or outgrows [`HOLD_MAX`]
    /// (plaintext: zeroized), and how much of it the engine has taken.
    pub(crate) held: SecretBuf,
    held_pos: usize,
    aes: Option<AesEncoder>,
    /// LZ output (plaintext when encrypting: zeroized on drop).
    chunk: SecretBuf,
    /// AES output.
    crypt: Lease<u8>,
    /// LZ output bytes (the AES coder's unpack size).
    pub(crate) lz_out: u64,
    stage_done: bool,
    /// AES coders of a BCJ2 folder's flag, CALL and JUMP streams.
    side_aes: Vec<AesEncoder>,
    /// A BCJ2 folder's side streams are written: their sizes, and the
    /// packed (before AES) sizes of the flag, CALL and JUMP streams.
    pub(crate) bcj2: Option<(Bcj2Sizes, [u64; 3])>,
    /// Entries still to start, as (folder offset, size if known), for a
    /// BCJ2 stage to bound its conversions by; and input bytes taken.
    files: std::collections::VecDeque<(u64, Option<u64>)>,
    taken: u64,
}

impl FolderEncoder {
    /// An encoder holding input back until its engine is made; `aes`
    /// encrypts its output, and `side_aes` (three, or none) a BCJ2
    /// folder's other packed streams.
    pub(crate) fn new(aes: Option<AesEncoder>, side_aes: Vec<AesEncoder>) -> Self {
        let mut crypt = Pool::<u8>::global().lease(CHUNK + 32);
        crypt.resize(CHUNK + 32, 0);
        FolderEncoder {
            stage: None,
            held: SecretBuf::default(),
            held_pos: 0,
            aes,
            chunk: SecretBuf::with_len(CHUNK),
            crypt,
            lz_out: 0,
            stage_done: false,
            side_aes,
            bcj2: None,
            files: std::collections::VecDeque::new(),
            taken: 0,
        }
    }

    /// Notes that an entry of `size` bytes (if known) starts at folder
    /// offset `at`; only a BCJ2 stage uses it.
    pub(crate) fn mark_file(&mut self, at: u64, size: Option<u64>) {
        self.files.push_back((at, size));
    }

    fn stage(&mut self) -> Result<&mut Stage, SevenZError> {
        self.stage
            .as_mut()
            .ok_or(SevenZError::WriterUnusable("folder already closed"))
    }

    /// Appends `data` to the held-back input.
    pub(crate) fn hold(&mut self, data: &[u8]) {
        let need = self.held.len() + data.len();
        if self.held.capacity() < need {
            // Grow geometrically into a new pooled buffer; the old one is
            // zeroized as it goes back.
            let cap = (self.held.capacity() * 2).max(need).clamp(CHUNK, HOLD_MAX);
            let mut bigger = SecretBuf::with_capacity(cap);
            bigger.extend_from_slice(&self.held);
            self.held = bigger;
        }
        self.held.extend_from_slice(data);
    }

    /// Feeds the held-back input to the engine (made by now) and lets the
    /// buffer go. Resumable after an I/O error: `held_pos` says how much
    /// the engine took, and its output is queued in the sink.
    pub(crate) fn encode_held(&mut self, sink: &mut impl PackedOut) -> Result<(), SevenZError> {
        if self.held.capacity() == 0 {
            return Ok(());
        }
        let held = std::mem::take(&mut self.held);
        let mut done = self.held_pos;
        let result = self.encode(&held[..], &mut done, sink);
        self.held_pos = done;
        if result.is_ok() {
            self.held_pos = 0;
        } else {
            self.held = held;
        }
        result
    }

    /// Compresses `data[*done..]`, advancing `done` past what the engine
    /// took (also on error).
    pub(crate) fn encode(
        &mut self,
        data: &[u8],
        done: &mut usize,
        sink: &mut impl PackedOut,
    ) -> Result<(), SevenZError> {
        loop {
            // A BCJ2 stage learns of each entry as its first byte comes.
            let mut end = data.len();
            while let Some(&(at, size)) = self.files.front() {
                if at > self.taken {
                    let ahead = usize::try_from(at - self.taken).unwrap_or(usize::MAX);
                    end = end.min(done.saturating_add(ahead));
                    break;
                }
                self.files.pop_front();
                if let Some(Stage::Bcj2(b)) = &mut self.stage {
                    b.start_file(size);
                }
            }
            self.encode_part(&data[..end], done, sink)?;
            if end == data.len() || *done < end {
                return Ok(());
            }
        }
    }

    fn encode_part(
        &mut self,
        data: &[u8],
        done: &mut usize,
        sink: &mut impl PackedOut,
    ) -> Result<(), SevenZError> {
        let mut input = InBuf::new(&data[*done..]);
        loop {
            let mut chunk = std::mem::take(&mut self.chunk);
            let mut out = OutBuf::new(&mut chunk);
            let step = self.stage()?.encode(&mut input, &mut out);
            let n = out.pos();
            let emitted = self.emit(&chunk[..n], sink);
            self.chunk = chunk;
            let before = *done;
            *done = data.len() - input.remaining().len();
            self.taken += (*done - before) as u64;
            let p = step?;
            emitted?;
            if p == Progress::NeedInput {
                return Ok(());
            }
        }
    }

    /// Hands LZ output on: through AES when encrypting, then to the sink.
    /// The bytes are queued before the sink is written, so an I/O error
    /// loses none of them.
    fn emit(&mut self, data: &[u8], sink: &mut impl PackedOut) -> Result<(), SevenZError> {
        self.lz_out += data.len() as u64;
        match &mut self.aes {
            None => sink.queue(data),
            Some(aes) => {
                let mut input = InBuf::new(data);
                while !input.is_empty() {
                    let mut out = OutBuf::new(&mut self.crypt);
                    aes.encode(&mut input, &mut out)?;
                    sink.queue(out.written());
                }
            }
        }
        sink.write_if_full()
    }

    /// Ends the LZ stream and the encryption. Resumable after an I/O error.
    pub(crate) fn finish(&mut self, sink: &mut impl PackedOut) -> Result<(), SevenZError> {
        while !self.stage_done {
            let mut chunk = std::mem::take(&mut self.chunk);
            let mut out = OutBuf::new(&mut chunk);
            let step = self.stage()?.finish(&mut out);
            let n = out.pos();
            let emitted = self.emit(&chunk[..n], sink);
            self.chunk = chunk;
            if step? == Progress::StreamEnd {
                self.stage_done = true;
            }
            emitted?;
        }
        if let Some(aes) = &mut self.aes {
            loop {
                let mut out = OutBuf::new(&mut self.crypt);
                let p = aes.finish(&mut out)?;
                sink.queue(out.written());
                if p == Progress::StreamEnd {
                    break;
                }
            }
        }
        if self.bcj2.is_none() {
            if let Some(Stage::Bcj2(b)) = &mut self.stage {
                let (streams, sizes) = b.finish_sides()?;
                let mut packed = [0u64; 3];
                for (i, data) in streams.into_iter().enumerate() {
                    packed[i] = data.len() as u64;
                    match self.side_aes.get_mut(i) {
                        None => sink.queue(data),
                        Some(aes) => encrypt_all(aes, data, &mut self.crypt, sink)?,
                    }
                }
                self.bcj2 = Some((sizes, packed));
            }
        }
        sink.write_pending()
    }
}

/// Encrypts all of `data` and ends the AES stream, queueing the output.
fn encrypt_all(
    aes: &mut AesEncoder,
    data: &[u8],
    buf: &mut [u8],
    sink: &mut impl PackedOut,
) -> Result<(), SevenZError> {
    let mut input = InBuf::new(data);
    while !input.is_empty() {
        let mut out = OutBuf::new(buf);
        aes.encode(&mut input, &mut out)?;
        sink.queue(out.written());
    }
    loop {
        let mut out = OutBuf::new(buf);
        let p = aes.finish(&mut out)?;
        sink.queue(out.written());
        if p == Progress::StreamEnd {
            return Ok(());
        }
    }
}
