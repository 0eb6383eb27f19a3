//! Options of a whole archive being written.

/// Options of a zip writer.
#[derive(Debug, Clone, Default)]
pub struct ZipWriterOptions {
    /// The archive comment (at most 65,535 bytes).
    pub comment: String,
}

impl ZipWriterOptions {
    /// Default options: no comment.
    pub fn new() -> Self {
        Self::default()
    }

    /// Sets the archive comment.
    pub fn with_comment(mut self, comment: impl Into<String>) -> Self {
        self.comment = comment.into();
        self
    }
}
