//! Where the writer core writes when its sink is async: appended bytes
//! wait in memory until the async side drains them; any write before the
//! end (the start header patch) is kept as a patch and replayed, in order,
//! after everything before it is drained.

use std::collections::VecDeque;
use std::io::{self, Seek, SeekFrom, Write};

/// The writer core's output in memory, drained from the front.
#[derive(Debug, Default)]
pub(crate) struct OutputSpool {
    drained: u64,
    buf: VecDeque<u8>,
    pos: u64,
    patches: Vec<(u64, Vec<u8>)>,
}

impl OutputSpool {
    fn end(&self) -> u64 {
        self.drained + self.buf.len() as u64
    }

    /// Bytes waiting to be drained.
    pub(crate) fn pending(&self) -> usize {
        self.buf.len()
    }

    /// The next bytes to drain (not empty while any are pending).
    pub(crate) fn front(&self) -> &[u8] {
        self.buf.as_slices().0
    }

    /// Bytes drained so far.
    pub(crate) fn drained(&self) -> u64 {
        self.drained
    }

    /// Patch `i`: where it goes and its bytes.
    pub(crate) fn patch(&self, i: usize) -> Option<&(u64, Vec<u8>)> {
        self.patches.get(i)
    }

    /// Marks `n` bytes from the front as drained.
    pub(crate) fn consume(&mut self, n: usize) {
        self.buf.drain(..n);
        self.drained += n as u64;
    }
}

impl Write for OutputSpool {
    fn write(&mut self, data: &[u8]) -> io::Result<usize> {
        if self.pos == self.end() {
            self.buf.extend(data);
        } else {
            self.patches.push((self.pos, data.to_vec()));
        }
        self.pos += data.len() as u64;
        Ok(data.len())
    }
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

impl Seek for OutputSpool {
    fn seek(&mut self, to: SeekFrom) -> io::Result<u64> {
        let target = match to {
            SeekFrom::Start(p) => Some(p),
            SeekFrom::End(d) => self.end().checked_add_signed(d),
            SeekFrom::Current(d) => self.pos.checked_add_signed(d),
        };
        self.pos = target.ok_or_else(|| io::Error::from(io::ErrorKind::InvalidInput))?;
        Ok(self.pos)
    }
}
