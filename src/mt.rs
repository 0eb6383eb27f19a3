//! Multi-threaded XZ behind async faces: the shared poll loops that never
//! block the executor, and the options the multi-threaded faces take.
//!
//! The coders ([`lzflow_xz::MtXzDecoder`], [`lzflow_xz::MtXzEncoder`]) run
//! in non-blocking mode here: where they would wait for a worker they
//! return without progress, and their [`Readiness`] handle is pending until
//! a worker finishes, waking the task. Every loop asks the handle before
//! calling the coder, so a waiting coder costs one cheap check per poll,
//! never a spin. The loops are written once over pump's [`Source`] and
//! [`Sink`]; tokio and futures-io only adapt their traits.

#![cfg_attr(not(any(feature = "tokio", feature = "futures-io")), allow(dead_code))]

use std::io;
use std::marker::PhantomData;
use std::task::{ready, Context, Poll};

use lzflow_core::Readiness;
use lzflow_xz::{Check, MtXzEncoder, MtXzEncoderOptions, XzEncoderOptions};

use crate::driver::Driver;
use crate::encode_options::{EncodeOptions, EncoderFormat, Level};
use crate::pump::{Budget, Sink, Source, QUEUE_SIZE};
use crate::{DecoderFormat, FilterConfig, LzmaOptions};

/// A source that is pending while the coder waits for a worker; the
/// decoding read loop of [`pump`](crate::pump) then returns `Pending`
/// instead of calling the coder again.
pub(crate) struct Gated<'a, S> {
    pub(crate) source: S,
    pub(crate) readiness: Option<&'a Readiness>,
}

impl<S: Source> Source for Gated<'_, S> {
    fn poll_fill(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<&[u8]>> {
        if let Some(r) = self.readiness {
            ready!(r.poll_ready(cx));
        }
        self.source.poll_fill(cx)
    }

    fn consume(&mut self, n: usize) {
        self.source.consume(n);
    }
}

/// A decoder that waits for worker threads without blocking: the async
/// multi-threaded faces (`MtXzDecoder`, `MtLzma2Decoder` of
/// [`tokio::bufread`](crate::tokio::bufread) and `futures::bufread`) run it in
/// non-blocking mode and poll its [`Readiness`].
pub trait MtDecoderFormat: DecoderFormat {
    /// Makes the coder return without progress where it would wait for a
    /// worker.
    fn set_nonblocking(&mut self, nonblocking: bool);
    /// Pending while the coder waits for a worker.
    fn readiness(&self) -> &Readiness;
}

impl MtDecoderFormat for lzflow_xz::MtXzDecoder {
    fn set_nonblocking(&mut self, nonblocking: bool) {
        lzflow_xz::MtXzDecoder::set_nonblocking(self, nonblocking);
    }
    fn readiness(&self) -> &Readiness {
        lzflow_xz::MtXzDecoder::readiness(self)
    }
}

impl MtDecoderFormat for lzflow_lzma::MtLzma2Decoder {
    fn set_nonblocking(&mut self, nonblocking: bool) {
        lzflow_lzma::MtLzma2Decoder::set_nonblocking(self, nonblocking);
    }
    fn readiness(&self) -> &Readiness {
        lzflow_lzma::MtLzma2Decoder::readiness(self)
    }
}

/// Options of the multi-threaded XZ encoding faces: the single-threaded
/// [`EncodeOptions`] plus the thread count.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct MtEncodeOptions {
    /// Preset, check, filters, block size.
    pub base: EncodeOptions,
    /// Compressing threads (0, the default: one per CPU).
    pub threads: usize,
}

impl MtEncodeOptions {
    /// The coder's options.
    fn coder_options(&self) -> io::Result<MtXzEncoderOptions> {
        Ok(MtXzEncoderOptions {
            base: XzEncoderOptions {
                lzma: self.base.lzma_options()?,
                check: self.base.check,
                filters: self.base.filters.clone(),
                block_size: self.base.block_size,
            },
            threads: self.threads,
        })
    }

    /// The encoder, blocking or not.
    pub(crate) fn encoder(&self, nonblocking: bool) -> io::Result<MtXzEncoder> {
        let mut enc = MtXzEncoder::new(self.coder_options()?)?;
        enc.set_nonblocking(nonblocking);
        Ok(enc)
    }
}

/// The std face builds it with one thread per CPU; use
/// [`write::MtXzEncoder::mt_builder`](crate::write::MtXzEncoder::mt_builder)
/// to choose.
impl EncoderFormat for MtXzEncoder {
    fn from_options(opts: &EncodeOptions) -> io::Result<Self> {
        MtEncodeOptions {
            base: opts.clone(),
            threads: 0,
        }
        .encoder(false)
    }
}

/// A face a [`MtEncoderBuilder`] can build.
pub trait BuildMtEncoder: Sized {
    /// What the face wraps (a writer).
    type Inner;
    /// Builds the face.
    fn build_mt_encoder(inner: Self::Inner, opts: MtEncodeOptions) -> Self;
}

/// Collects options for a multi-threaded XZ encoding face `T`:
/// `MtXzEncoder::builder().threads(2).preset(6).build(w)`.
#[derive(Debug)]
#[must_use = "a builder does nothing until `build` is called"]
pub struct MtEncoderBuilder<T> {
    opts: MtEncodeOptions,
    face: PhantomData<fn() -> T>,
}

impl<T> Default for MtEncoderBuilder<T> {
    fn default() -> Self {
        MtEncoderBuilder {
            opts: MtEncodeOptions::default(),
            face: PhantomData,
        }
    }
}

impl<T: BuildMtEncoder> MtEncoderBuilder<T> {
    /// Compressing threads (0, the default: one per CPU).
    pub fn threads(mut self, threads: usize) -> Self {
        self.opts.threads = threads;
        self
    }

    /// `xz -0` … `xz -9` (default 6).
    pub fn preset(mut self, level: u32) -> Self {
        self.opts.base.preset = level;
        self
    }

    /// The level as async-compression names it.
    pub fn quality(self, level: Level) -> Self {
        self.preset(level.preset())
    }

    /// `xz -e`.
    pub fn extreme(mut self) -> Self {
        self.opts.base.extreme = true;
        self
    }

    /// Explicit LZMA settings instead of a preset.
    pub fn lzma_options(mut self, opts: LzmaOptions) -> Self {
        self.opts.base.lzma = Some(opts);
        self
    }

    /// Overrides the dictionary size.
    pub fn dict_size(mut self, bytes: u32) -> Self {
        self.opts.base.dict_size = Some(bytes);
        self
    }

    /// The integrity check of each block (default CRC64).
    pub fn check(mut self, check: Check) -> Self {
        self.opts.base.check = check;
        self
    }

    /// Filters applied before LZMA2 (BCJ, Delta), first applied first.
    pub fn filters(mut self, filters: Vec<FilterConfig>) -> Self {
        self.opts.base.filters = filters;
        self
    }

    /// Uncompressed bytes per block: the unit of parallel work (default
    /// three times the dictionary, at least 1 MiB).
    pub fn block_size(mut self, bytes: u64) -> Self {
        self.opts.base.block_size = Some(bytes);
        self
    }

    /// Replaces all options at once.
    pub fn options(mut self, opts: MtEncodeOptions) -> Self {
        self.opts = opts;
        self
    }

    /// Builds the face around `inner`; option errors are returned by the
    /// first write.
    pub fn build(self, inner: T::Inner) -> T {
        T::build_mt_encoder(inner, self.opts)
    }
}

/// Compressed bytes waiting for the sink.
#[derive(Debug)]
pub(crate) struct EncodeQueue {
    buf: Box<[u8]>,
    start: usize,
    end: usize,
    /// `finish` was started; no input is accepted any more.
    finishing: bool,
}

impl EncodeQueue {
    pub(crate) fn new() -> Self {
        EncodeQueue {
            buf: vec![0; QUEUE_SIZE].into_boxed_slice(),
            start: 0,
            end: 0,
            finishing: false,
        }
    }

    /// Writes queued bytes to `sink` until the queue is empty.
    fn poll_drain<S: Sink>(&mut self, sink: &mut S, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        while self.start < self.end {
            let n = ready!(sink.poll_write(cx, &self.buf[self.start..self.end]))?;
            if n == 0 {
                return Poll::Ready(Err(io::Error::new(
                    io::ErrorKind::WriteZero,
                    "the underlying writer accepted no bytes",
                )));
            }
            self.start += n;
        }
        self.start = 0;
        self.end = 0;
        Poll::Ready(Ok(()))
    }
}

/// The state of an async multi-threaded encoding writer.
#[derive(Debug)]
pub(crate) struct MtWriter {
    driver: Driver<MtXzEncoder>,
    readiness: Option<Readiness>,
    queue: EncodeQueue,
}

impl MtWriter {
    pub(crate) fn new(opts: &MtEncodeOptions) -> Self {
        let driver = Driver::from_result(opts.encoder(true));
        let readiness = driver.coder().map(|c| c.readiness().clone());
        MtWriter {
            driver,
            readiness,
            queue: EncodeQueue::new(),
        }
    }

    /// Pending while the encoder waits for a worker.
    fn poll_ready(&self, cx: &mut Context<'_>) -> Poll<()> {
        match &self.readiness {
            Some(r) => r.poll_ready(cx),
            None => Poll::Ready(()),
        }
    }

    /// Takes some of `data`; the compressed bytes go to `sink`.
    pub(crate) fn poll_write<S: Sink>(
        &mut self,
        sink: &mut S,
        cx: &mut Context<'_>,
        mut budget: impl Budget,
        data: &[u8],
    ) -> Poll<io::Result<usize>> {
        if data.is_empty() {
            return Poll::Ready(Ok(0));
        }
        loop {
            ready!(budget.poll_step(cx));
            ready!(self.queue.poll_drain(sink, cx))?;
            if self.queue.finishing {
                return Poll::Ready(Err(io::Error::new(
                    io::ErrorKind::InvalidInput,
                    "cannot write to an encoder after shutting it down",
                )));
            }
            ready!(self.poll_ready(cx));
            let step = self.driver.encode(data, &mut self.queue.buf)?;
            self.queue.end = step.produced;
            budget.step_done();
            if step.consumed > 0 {
                // Taken: its output waits in the queue for the next call.
                return Poll::Ready(Ok(step.consumed));
            }
        }
    }

    /// Ends the current block and writes everything so far to `sink`,
    /// then flushes it.
    pub(crate) fn poll_flush<S: Sink>(
        &mut self,
        sink: &mut S,
        cx: &mut Context<'_>,
        mut budget: impl Budget,
    ) -> Poll<io::Result<()>> {
        loop {
            ready!(budget.poll_step(cx));
            ready!(self.queue.poll_drain(sink, cx))?;
            if self.queue.finishing || self.driver.is_ended() {
                break;
            }
            ready!(self.poll_ready(cx));
            let step = self.driver.flush(&mut self.queue.buf)?;
            self.queue.end = step.produced;
            budget.step_done();
            if step.progress == lzflow_core::Progress::NeedInput && step.produced == 0 {
                break;
            }
        }
        sink.poll_flush(cx)
    }

    /// Writes the rest of the stream and its trailer to `sink` (each byte
    /// once, however often it is resumed), then shuts `sink` down.
    pub(crate) fn poll_shutdown<S: Sink>(
        &mut self,
        sink: &mut S,
        cx: &mut Context<'_>,
        mut budget: impl Budget,
    ) -> Poll<io::Result<()>> {
        loop {
            ready!(budget.poll_step(cx));
            ready!(self.queue.poll_drain(sink, cx))?;
            if self.driver.is_ended() {
                return sink.poll_close(cx);
            }
            ready!(self.poll_ready(cx));
            self.queue.finishing = true;
            let step = self.driver.finish(&mut self.queue.buf)?;
            self.queue.end = step.produced;
            budget.step_done();
        }
    }

    /// The coder (absent if its options were invalid).
    pub(crate) fn coder(&self) -> Option<&MtXzEncoder> {
        self.driver.coder()
    }
}

impl<W: std::io::Write> crate::write::Encoder<W, MtXzEncoder> {
    /// Options including the thread count:
    /// `write::MtXzEncoder::mt_builder().threads(2).build(w)`.
    pub fn mt_builder() -> MtEncoderBuilder<Self> {
        MtEncoderBuilder::default()
    }
}

impl<W: std::io::Write> BuildMtEncoder for crate::write::Encoder<W, MtXzEncoder> {
    type Inner = W;
    fn build_mt_encoder(inner: W, opts: MtEncodeOptions) -> Self {
        crate::write::Encoder::from_result(inner, opts.encoder(false))
    }
}
