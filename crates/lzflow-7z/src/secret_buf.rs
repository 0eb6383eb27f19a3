//! Plaintext byte buffers: pooled, and wiped before they are reused.

use lzflow_core::{Lease, Pool};
use zeroize::Zeroize;

/// A byte buffer leased from the global pool for plaintext: zeroized over
/// its whole capacity before it goes back (or is freed).
#[derive(Default)]
pub(crate) struct SecretBuf(Option<Lease<u8>>);

impl SecretBuf {
    pub(crate) fn with_capacity(n: usize) -> Self {
        SecretBuf(Some(Pool::<u8>::global().lease(n)))
    }

    /// `n` zero bytes.
    pub(crate) fn with_len(n: usize) -> Self {
        let mut b = Self::with_capacity(n);
        b.resize(n, 0);
        b
    }
}

impl std::ops::Deref for SecretBuf {
    type Target = Vec<u8>;
    fn deref(&self) -> &Vec<u8> {
        static EMPTY: Vec<u8> = Vec::new();
        self.0.as_deref().unwrap_or(&EMPTY)
    }
}

impl std::ops::DerefMut for SecretBuf {
    fn deref_mut(&mut self) -> &mut Vec<u8> {
        self.0.get_or_insert_with(|| Lease::unpooled(Vec::new()))
    }
}

impl Drop for SecretBuf {
    fn drop(&mut self) {
        if let Some(b) = &mut self.0 {
            // Zeroizes the spare capacity too.
            let v: &mut Vec<u8> = b;
            v.zeroize();
        }
    }
}
