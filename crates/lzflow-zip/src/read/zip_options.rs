//! What a reader may do: the password and the limits.

use lzflow_core::Limits;
use zeroize::Zeroizing;

/// Options for opening a zip archive.
#[derive(Clone)]
pub struct ZipOptions {
    /// The password of encrypted entries (wiped when dropped).
    pub password: Option<Zeroizing<Vec<u8>>>,
    /// Memory (per entry's decoders) and output (per entry and in total
    /// over a walk) limits.
    pub limits: Limits,
    /// Most bytes of central directory read and kept (default 64 MiB:
    /// about a million entries with short names).
    pub max_directory_size: u64,
    /// Most entries an archive may have (default 1,048,576); the
    /// forward-only reader counts the entries it has met.
    pub max_entries: u64,
    /// Most bytes of data per stored byte an entry may expand to, once it
    /// has made more than 1 MiB (default 1,100: above Deflate's own
    /// ceiling of about 1,032, so no Deflate entry is refused for its
    /// ratio alone, while BZip2, LZMA, XZ and Zstd bombs, which reach
    /// millions, are); `None` disables the cap.
    pub max_ratio: Option<u64>,
}

impl Default for ZipOptions {
    fn default() -> Self {
        ZipOptions::new()
    }
}

impl ZipOptions {
    /// Options with no password, no memory or output limits, and the
    /// default caps on directory size, entry count and compression ratio.
    pub fn new() -> Self {
        ZipOptions {
            password: None,
            limits: Limits::default(),
            max_directory_size: 64 << 20,
            max_entries: 1 << 20,
            max_ratio: Some(1100),
        }
    }

    /// Sets the password.
    pub fn with_password(mut self, password: impl AsRef<[u8]>) -> Self {
        self.password = Some(Zeroizing::new(password.as_ref().to_vec()));
        self
    }

    /// Sets the limits.
    pub fn with_limits(mut self, limits: Limits) -> Self {
        self.limits = limits;
        self
    }

    /// Sets the most bytes of central directory read.
    pub fn with_max_directory_size(mut self, bytes: u64) -> Self {
        self.max_directory_size = bytes;
        self
    }

    /// Sets the most entries an archive may have.
    pub fn with_max_entries(mut self, entries: u64) -> Self {
        self.max_entries = entries;
        self
    }

    /// Sets the compression-ratio cap (`None`: no cap).
    pub fn with_max_ratio(mut self, ratio: Option<u64>) -> Self {
        self.max_ratio = ratio;
        self
    }
}

impl std::fmt::Debug for ZipOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ZipOptions")
            .field("password", &self.password.as_ref().map(|_| "…"))
            .field("limits", &self.limits)
            .field("max_directory_size", &self.max_directory_size)
            .field("max_entries", &self.max_entries)
            .field("max_ratio", &self.max_ratio)
            .finish()
    }
}
