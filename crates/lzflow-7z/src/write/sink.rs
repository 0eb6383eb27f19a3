//! The writer's output: packed bytes queued in memory and written in
//! batches, with the position of every byte known, so a failed write can
//! be retried and the start header patched at the end.

use std::io::{self, Seek, SeekFrom, Write};

use lzflow_core::{Lease, Pool};

use crate::read::signature_header::SIGNATURE_HEADER_SIZE;
use crate::write::folder_encoder::PackedOut;
use crate::write::header_writer::unfinished_start_header;
use crate::SevenZError;

/// Output gathered before it is written to the sink.
const SINK_BATCH: usize = 64 << 10;

/// The output: bytes queued in memory, written in batches; knows where
/// the archive starts so the start header can be patched.
pub(crate) struct Sink<W> {
    /// The writer's sink; `finish` takes it back.
    pub(crate) inner: Option<W>,
    /// Sink position of the start header.
    pub(crate) base: u64,
    /// Bytes after the start header confirmed written.
    written: u64,
    /// Bytes queued, not yet written.
    pending: Lease<u8>,
    /// A write failed: seek back to the confirmed end before writing.
    resync: bool,
}

impl<W: Write + Seek> Sink<W> {
    /// Writes the unfinished start header at the current position.
    pub(crate) fn start(mut w: W) -> Result<Self, SevenZError> {
        let base = w.stream_position()?;
        w.write_all(&unfinished_start_header())?;
        Ok(Sink {
            inner: Some(w),
            base,
            written: 0,
            pending: Pool::<u8>::global().lease(SINK_BATCH * 2),
            resync: false,
        })
    }

    /// Position of the next byte, counted from the end of the start header.
    pub(crate) fn logical_pos(&self) -> u64 {
        self.written + self.pending.len() as u64
    }

    /// Queues `data` after what is already queued.
    pub(crate) fn queue(&mut self, data: &[u8]) {
        self.pending.extend_from_slice(data);
    }

    /// Writes the queue out once it holds a batch.
    fn write_if_full(&mut self) -> Result<(), SevenZError> {
        if self.pending.len() >= SINK_BATCH {
            self.write_pending()?;
        }
        Ok(())
    }

    /// The sink, unless `finish` has taken it back.
    fn inner(&mut self) -> Result<&mut W, SevenZError> {
        self.inner
            .as_mut()
            .ok_or(SevenZError::WriterUnusable("the archive is finished"))
    }

    /// Writes every queued byte. On error the unwritten bytes stay queued
    /// and the next attempt seeks back to the confirmed end first (a failed
    /// write may have left anything behind).
    pub(crate) fn write_pending(&mut self) -> Result<(), SevenZError> {
        let at = self.base + SIGNATURE_HEADER_SIZE + self.written;
        let resync = self.resync;
        let w = self
            .inner
            .as_mut()
            .ok_or(SevenZError::WriterUnusable("the archive is finished"))?;
        if resync {
            w.seek(SeekFrom::Start(at))?;
            self.resync = false;
        }
        let mut done = 0;
        let mut result = Ok(());
        while done < self.pending.len() {
            match w.write(&self.pending[done..]) {
                Ok(0) => {
                    result = Err(io::Error::from(io::ErrorKind::WriteZero));
                    break;
                }
                Ok(n) => done += n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => {
                    result = Err(e);
                    break;
                }
            }
        }
        self.written += done as u64;
        self.pending.drain(..done);
        if result.is_err() {
            self.resync = true;
        }
        Ok(result?)
    }

    /// Writes `bytes` at `at` (counted from the start of the archive).
    pub(crate) fn overwrite(&mut self, at: u64, bytes: &[u8]) -> Result<(), SevenZError> {
        let pos = self.base + at;
        let w = self.inner()?;
        w.seek(SeekFrom::Start(pos))?;
        w.write_all(bytes)?;
        Ok(())
    }

    /// Leaves the sink at the end of the archive, flushed.
    pub(crate) fn seek_end_and_flush(&mut self) -> Result<(), SevenZError> {
        let end = self.base + SIGNATURE_HEADER_SIZE + self.written;
        let w = self.inner()?;
        w.seek(SeekFrom::Start(end))?;
        w.flush()?;
        Ok(())
    }
}

impl<W: Write + Seek> PackedOut for Sink<W> {
    fn queue(&mut self, data: &[u8]) {
        Sink::queue(self, data);
    }
    fn write_if_full(&mut self) -> Result<(), SevenZError> {
        Sink::write_if_full(self)
    }
    fn write_pending(&mut self) -> Result<(), SevenZError> {
        Sink::write_pending(self)
    }
}
