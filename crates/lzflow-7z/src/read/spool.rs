//! Spooling a non-seekable source: the 7z header sits at the end of the
//! archive, so a pipe or socket is first copied to memory (up to a limit)
//! and then, beyond it, to an anonymous temporary file, and the archive is
//! opened from the copy.

use std::fs::File;
use std::future::poll_fn;
use std::io::{self, Cursor, Read, Seek, SeekFrom, Write};
use std::path::PathBuf;

use lzflow_core::source::{block_on, Blocking, PollRead};

/// Where and how much to spool.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct SpoolOptions {
    /// Bytes kept in memory before switching to a temporary file
    /// (default 64 MiB; 0 goes to a file at once).
    pub memory_limit: usize,
    /// Directory of the temporary file (default: the system's temporary
    /// directory). The file has no name and is removed when dropped.
    pub temp_dir: Option<PathBuf>,
}

impl Default for SpoolOptions {
    fn default() -> Self {
        SpoolOptions {
            memory_limit: 64 << 20,
            temp_dir: None,
        }
    }
}

impl SpoolOptions {
    /// Sets the memory limit.
    pub fn with_memory_limit(mut self, bytes: usize) -> Self {
        self.memory_limit = bytes;
        self
    }

    /// Sets the directory of the temporary file.
    pub fn with_temp_dir(mut self, dir: impl Into<PathBuf>) -> Self {
        self.temp_dir = Some(dir.into());
        self
    }
}

/// A spooled copy of a source, readable and seekable.
#[derive(Debug)]
pub enum Spooled {
    /// The whole source fitted in memory.
    Memory(Cursor<Vec<u8>>),
    /// The source went to a temporary file (removed on drop).
    File(File),
}

impl Spooled {
    /// True when the copy is held in memory.
    pub fn is_in_memory(&self) -> bool {
        matches!(self, Spooled::Memory(_))
    }
}

impl Read for Spooled {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        match self {
            Spooled::Memory(c) => c.read(buf),
            Spooled::File(f) => f.read(buf),
        }
    }
}

impl Seek for Spooled {
    fn seek(&mut self, pos: SeekFrom) -> io::Result<u64> {
        match self {
            Spooled::Memory(c) => c.seek(pos),
            Spooled::File(f) => f.seek(pos),
        }
    }
}

/// The spool being filled: takes the source's bytes as they arrive, so the
/// blocking and the async faces share it (the async face reads, this
/// stores).
#[derive(Debug)]
pub struct SpoolWriter {
    options: SpoolOptions,
    memory: Vec<u8>,
    file: Option<File>,
}

impl SpoolWriter {
    /// An empty spool.
    pub fn new(options: SpoolOptions) -> Self {
        SpoolWriter {
            options,
            memory: Vec::new(),
            file: None,
        }
    }

    /// Appends `data`, moving to the temporary file once the memory limit
    /// would be passed.
    pub fn push(&mut self, data: &[u8]) -> io::Result<()> {
        if self.file.is_none() && self.memory.len() + data.len() > self.options.memory_limit {
            let mut file = match &self.options.temp_dir {
                Some(dir) => tempfile::tempfile_in(dir)?,
                None => tempfile::tempfile()?,
            };
            file.write_all(&self.memory)?;
            self.memory = Vec::new();
            self.file = Some(file);
        }
        match &mut self.file {
            Some(f) => f.write_all(data),
            None => {
                self.memory.extend_from_slice(data);
                Ok(())
            }
        }
    }

    /// The spooled copy, positioned at its start.
    pub fn finish(self) -> io::Result<Spooled> {
        match self.file {
            Some(mut f) => {
                f.flush()?;
                f.seek(SeekFrom::Start(0))?;
                Ok(Spooled::File(f))
            }
            None => Ok(Spooled::Memory(Cursor::new(self.memory))),
        }
    }
}

/// Copies all of `reader` into a [`Spooled`] copy.
pub fn spool<R: Read>(reader: R, options: SpoolOptions) -> io::Result<Spooled> {
    block_on(spool_from(&mut Blocking(reader), options))
}

/// Copies all of a pollable source into a [`Spooled`] copy: the one copy
/// loop behind every face's `open_spooled`. Writing the temporary file
/// blocks: it is a local file, like the faces' reads of it later.
pub async fn spool_from<R: PollRead>(src: &mut R, options: SpoolOptions) -> io::Result<Spooled> {
    let mut spool = SpoolWriter::new(options);
    let mut buf = vec![0u8; 64 << 10];
    loop {
        let n = poll_fn(|cx| src.poll_read(cx, &mut buf)).await?;
        if n == 0 {
            return spool.finish();
        }
        spool.push(&buf[..n])?;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn switches_to_a_file_past_the_limit() {
        let data: Vec<u8> = (0..200_000u32).map(|i| (i * 7) as u8).collect();
        let mut small = spool(&data[..], SpoolOptions::default()).unwrap();
        assert!(small.is_in_memory());
        let mut big = spool(&data[..], SpoolOptions::default().with_memory_limit(1000)).unwrap();
        assert!(!big.is_in_memory());
        for s in [&mut small, &mut big] {
            let mut back = Vec::new();
            s.read_to_end(&mut back).unwrap();
            assert_eq!(back, data);
            s.seek(SeekFrom::Start(5)).unwrap();
            let mut b = [0u8; 3];
            s.read_exact(&mut b).unwrap();
            assert_eq!(b, data[5..8]);
        }
    }
}
