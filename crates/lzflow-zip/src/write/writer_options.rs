//! Options of a whole archive being written.

/// The default [`memory_budget`](ZipWriterOptions::memory_budget): 32 MiB.
pub const DEFAULT_MEMORY_BUDGET: usize = 32 << 20;
/// The most an entry is collected in memory for a worker thread (see
/// [`ZipWriterOptions::job_limit`]).
const MAX_JOB: usize = 4 << 20;

/// Options of a zip writer.
#[derive(Debug, Clone)]
pub struct ZipWriterOptions {
    /// The archive comment (at most 65,535 bytes).
    pub comment: String,
    /// Compressing threads: 1 (the default) compresses on the calling
    /// thread, 0 means one per CPU. The archive's bytes are the same
    /// whatever the number.
    pub threads: usize,
    /// With more than one thread: bytes of entry data the writer holds
    /// for its workers, counting each entry in flight twice (its data and
    /// its compressed form) plus 1 KiB. An entry is always let in when
    /// nothing else is in flight. The compressors' own state comes on
    /// top, one per thread ([`EntryOptions::encoder_memory`](crate::EntryOptions::encoder_memory)).
    pub memory_budget: usize,
}

impl Default for ZipWriterOptions {
    fn default() -> Self {
        ZipWriterOptions {
            comment: String::new(),
            threads: 1,
            memory_budget: DEFAULT_MEMORY_BUDGET,
        }
    }
}

impl ZipWriterOptions {
    /// Default options: no comment, one thread.
    pub fn new() -> Self {
        Self::default()
    }

    /// Sets the archive comment.
    pub fn with_comment(mut self, comment: impl Into<String>) -> Self {
        self.comment = comment.into();
        self
    }

    /// Sets the number of compressing threads (0: one per CPU).
    pub fn with_threads(mut self, threads: usize) -> Self {
        self.threads = threads;
        self
    }

    /// Sets the memory budget of compression on several threads.
    pub fn with_memory_budget(mut self, bytes: usize) -> Self {
        self.memory_budget = bytes;
        self
    }

    /// With more than one thread, entries up to this many bytes are
    /// collected whole and compressed on a worker; longer ones are
    /// streamed on the calling thread. A quarter of the budget, between
    /// 64 KiB and 4 MiB.
    pub fn job_limit(&self) -> usize {
        (self.memory_budget / 4).clamp(crate::HOLD, MAX_JOB)
    }
}
