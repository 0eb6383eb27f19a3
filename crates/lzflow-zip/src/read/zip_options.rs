//! What a reader may do: the password and the limits.

use lzflow_core::Limits;
use zeroize::Zeroizing;

/// Options for opening a zip archive.
#[derive(Clone, Default)]
pub struct ZipOptions {
    /// The password of encrypted entries (wiped when dropped).
    pub password: Option<Zeroizing<Vec<u8>>>,
    /// Memory (per entry's decoders) and output (per entry and in total
    /// over a walk) limits.
    pub limits: Limits,
    /// Most bytes of central directory read and kept (default 64 MiB:
    /// about a million entries with short names).
    pub max_directory_size: u64,
}

impl ZipOptions {
    /// Options with no password, no limits and the default directory cap.
    pub fn new() -> Self {
        ZipOptions {
            max_directory_size: 64 << 20,
            ..ZipOptions::default()
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
}

impl std::fmt::Debug for ZipOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ZipOptions")
            .field("password", &self.password.as_ref().map(|_| "…"))
            .field("limits", &self.limits)
            .field("max_directory_size", &self.max_directory_size)
            .finish()
    }
}
