//! Options shared by the LZMA, LZMA2 and .lzma decoders.

use lzflow_core::{Limits, Pool, Readiness};

/// How a decoder bounds its memory and its work per call.
#[derive(Debug, Clone)]
pub struct DecoderOptions {
    /// Memory and output limits, checked before allocating.
    pub limits: Limits,
    /// Most bytes produced per `decode()` call, so that no poll runs long.
    /// Default 16 KiB; 0 is treated as 1.
    pub batch_size: usize,
    /// Pool for the window (dictionary) and chunk buffer.
    pub pool: Pool<u8>,
    /// Pool for the literal probability tables.
    pub prob_pool: Pool<u16>,
    /// Low latency (for proxies): when input runs out inside an LZMA2
    /// chunk, decode what has arrived instead of waiting for the whole
    /// chunk (up to 64 KiB). Off by default: symbol-by-symbol decoding at
    /// the gaps costs time when input comes in large pieces anyway.
    pub low_latency: bool,
    /// Threads for LZMA2 streams with dictionary resets, where the
    /// container makes its decoders through the method registry
    /// (lzflow-methods' `new_decoder` makes an
    /// [`MtLzma2Decoder`](crate::MtLzma2Decoder) above 1; 0 means one per
    /// CPU). Default 1: the calling thread only.
    pub threads: usize,
    /// With a handle, multi-threaded decoders never block: where they
    /// would wait for a worker they return without progress, and the
    /// handle says when to call again (async faces). Without one they
    /// block.
    pub readiness: Option<Readiness>,
}

impl Default for DecoderOptions {
    fn default() -> Self {
        DecoderOptions {
            limits: Limits::NONE,
            batch_size: 16 << 10,
            pool: Pool::<u8>::global(),
            prob_pool: Pool::<u16>::global(),
            low_latency: false,
            threads: 1,
            readiness: None,
        }
    }
}

impl DecoderOptions {
    /// Sets the limits.
    pub fn with_limits(mut self, limits: Limits) -> Self {
        self.limits = limits;
        self
    }

    /// Sets the per-call batch size.
    pub fn with_batch_size(mut self, batch_size: usize) -> Self {
        self.batch_size = batch_size;
        self
    }

    /// Turns low-latency decoding on or off.
    pub fn with_low_latency(mut self, on: bool) -> Self {
        self.low_latency = on;
        self
    }

    /// Sets the threads for LZMA2 streams with dictionary resets.
    pub fn with_threads(mut self, threads: usize) -> Self {
        self.threads = threads;
        self
    }

    /// The batch size with 0 treated as 1.
    pub(crate) fn batch(&self) -> usize {
        self.batch_size.max(1)
    }
}
