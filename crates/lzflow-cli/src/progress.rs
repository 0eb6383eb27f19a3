//! A progress bar over the input, shown only where a person is watching.

use std::io::{self, IsTerminal, Read};

use indicatif::{ProgressBar, ProgressStyle};

/// Inputs smaller than this finish before a bar would be worth drawing.
const MIN_SIZE_FOR_BAR: u64 = 32 << 20;

/// Counts input bytes into a progress bar (or into nothing).
pub struct Progress<R> {
    inner: R,
    bar: Option<ProgressBar>,
}

impl<R: Read> Progress<R> {
    /// Wraps `inner`; draws a [`bar`] when the input size is known.
    pub fn new(inner: R, size: Option<u64>, label: &str, quiet: bool) -> Self {
        let bar = size.and_then(|len| bar(len, label, quiet));
        Progress { inner, bar }
    }
}

/// A bar over `len` bytes, or none: only when stderr is a terminal, `len`
/// is large and `quiet` is off, so pipes, scripts and tests never see
/// control sequences.
pub fn bar(len: u64, label: &str, quiet: bool) -> Option<ProgressBar> {
    if quiet || len < MIN_SIZE_FOR_BAR || !io::stderr().is_terminal() {
        return None;
    }
    Some(styled(len, label))
}

/// A bar over `len` bytes labelled `label`, drawn wherever stderr goes.
pub fn styled(len: u64, label: &str) -> ProgressBar {
    let bar = ProgressBar::new(len);
    let style = ProgressStyle::with_template(
        "{msg} [{bar:30}] {bytes}/{total_bytes} {bytes_per_sec} eta {eta}",
    )
    .unwrap_or_else(|_| ProgressStyle::default_bar())
    .progress_chars("=> ");
    bar.set_style(style);
    bar.set_message(label.to_string());
    bar
}

impl<R: Read> Read for Progress<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        if let Some(bar) = &self.bar {
            bar.inc(n as u64);
        }
        Ok(n)
    }
}

impl<R> Drop for Progress<R> {
    fn drop(&mut self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }
}
