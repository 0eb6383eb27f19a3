//! Resource limits a caller sets for hostile input.

use crate::LimitExceeded;

/// Limits checked before allocating and while producing output.
///
/// The default is no memory limit (like `xz`) and no output limit; services
/// decoding untrusted uploads should set both.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Most bytes a coder may allocate for dictionaries and tables.
    pub memory: u64,
    /// Most bytes a decoder may produce in total.
    pub output: u64,
}

impl Default for Limits {
    fn default() -> Self {
        Limits::NONE
    }
}

impl Limits {
    /// No limits.
    pub const NONE: Limits = Limits {
        memory: u64::MAX,
        output: u64::MAX,
    };

    /// Sets the memory limit.
    pub fn with_memory(mut self, bytes: u64) -> Self {
        self.memory = bytes;
        self
    }

    /// Sets the output limit.
    pub fn with_output(mut self, bytes: u64) -> Self {
        self.output = bytes;
        self
    }

    /// Ok when `needed` bytes fit the memory limit.
    pub fn check_memory(&self, needed: u64) -> Result<(), LimitExceeded> {
        if needed > self.memory {
            Err(LimitExceeded::Memory {
                needed,
                limit: self.memory,
            })
        } else {
            Ok(())
        }
    }

    /// Ok when a total output of `total` bytes fits the output limit.
    pub fn check_output(&self, total: u64) -> Result<(), LimitExceeded> {
        if total > self.output {
            Err(LimitExceeded::Output { limit: self.output })
        } else {
            Ok(())
        }
    }
}
