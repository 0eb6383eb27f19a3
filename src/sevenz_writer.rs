//! Writing 7z archives.
//!
//! The blocking writer is [`Writer`] (from `lzflow-7z`) over any
//! `Write + Seek`. With the `tokio` feature, [`AsyncWriter`] writes to an
//! `AsyncWrite + AsyncSeek` sink: the same writer core compresses into a
//! small in-memory spool, which is drained to the sink after every piece;
//! the start header patch at the end is replayed with seeks.
//!
//! ```no_run
//! # async fn demo() -> Result<(), lzflow::sevenz_writer::SevenZError> {
//! use lzflow::sevenz_writer::{AsyncWriter, EntryMeta, WriterOptions};
//! let file = tokio::fs::File::create("backup.7z").await?;
//! let mut w = AsyncWriter::with_options(file, WriterOptions::default().with_password("pw")).await?;
//! let data = tokio::fs::File::open("notes.txt").await?;
//! w.add_file("notes.txt", data, EntryMeta::default()).await?;
//! w.finish().await?;
//! # Ok(()) }
//! ```

pub use lzflow_7z::{
    system_time_to_filetime, EntryMeta, Method, SevenZError, Solid, Writer, WriterOptions,
};

#[cfg(feature = "tokio")]
pub use self::async_face::AsyncWriter;

#[cfg(feature = "tokio")]
mod async_face {
    use std::io::{self, Seek, SeekFrom, Write};

    use tokio::io::{AsyncRead, AsyncReadExt, AsyncSeek, AsyncSeekExt, AsyncWrite, AsyncWriteExt};

    use super::{EntryMeta, SevenZError, Writer, WriterOptions};

    /// Bytes read from a source at a time (enough for automatic BCJ to see
    /// an executable header).
    const PIECE: usize = 64 << 10;

    /// The writer core's sink: appended bytes wait in `buf` until drained;
    /// any write before the end (the start header patch) is kept as a patch
    /// and replayed, in order, after everything before it is drained.
    #[derive(Debug, Default)]
    pub struct Spool {
        drained: u64,
        buf: Vec<u8>,
        pos: u64,
        patches: Vec<(u64, Vec<u8>)>,
    }

    impl Spool {
        fn end(&self) -> u64 {
            self.drained + self.buf.len() as u64
        }
    }

    impl Write for Spool {
        fn write(&mut self, data: &[u8]) -> io::Result<usize> {
            if self.pos == self.end() {
                self.buf.extend_from_slice(data);
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

    impl Seek for Spool {
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

    /// A 7z writer over a tokio `AsyncWrite + AsyncSeek` sink.
    ///
    /// Every byte handed to the sink is accounted for in the writer before
    /// the next await, so a dropped [`finish`](Self::finish) future can be
    /// retried. Dropping an [`add_file`](Self::add_file) future in the
    /// middle of a file leaves the writer unusable (the source's position
    /// is lost with the future).
    #[derive(Debug)]
    pub struct AsyncWriter<W> {
        core: Writer<Spool>,
        sink: Option<W>,
        /// Sink position where the archive starts.
        base: u64,
        /// The spool given back by the core's `finish`.
        finished: Option<Spool>,
        next_patch: usize,
        /// An `add_file` future was dropped mid-file.
        in_file: bool,
        piece: Vec<u8>,
    }

    impl<W: AsyncWrite + AsyncSeek + Unpin> AsyncWriter<W> {
        /// A writer with default options; the archive starts at the sink's
        /// current position.
        pub async fn new(sink: W) -> Result<Self, SevenZError> {
            Self::with_options(sink, WriterOptions::default()).await
        }

        /// A writer with `opts` (see [`Writer::with_options`]).
        pub async fn with_options(mut sink: W, opts: WriterOptions) -> Result<Self, SevenZError> {
            let base = sink.stream_position().await?;
            let core = Writer::with_options(Spool::default(), opts)?;
            let mut w = AsyncWriter {
                core,
                sink: Some(sink),
                base,
                finished: None,
                next_patch: 0,
                in_file: false,
                piece: vec![0; PIECE],
            };
            w.drain().await?;
            Ok(w)
        }

        fn sink(&mut self) -> Result<&mut W, SevenZError> {
            self.sink
                .as_mut()
                .ok_or(SevenZError::WriterUnusable("the archive is finished"))
        }

        /// Writes what the core has spooled.
        async fn drain(&mut self) -> Result<(), SevenZError> {
            let sink = self
                .sink
                .as_mut()
                .ok_or(SevenZError::WriterUnusable("the archive is finished"))?;
            let spool = match self.finished.as_mut() {
                Some(s) => s,
                None => self
                    .core
                    .get_mut()
                    .ok_or(SevenZError::WriterUnusable("the archive is finished"))?,
            };
            while !spool.buf.is_empty() {
                let n = sink.write(&spool.buf).await?;
                if n == 0 {
                    return Err(io::Error::from(io::ErrorKind::WriteZero).into());
                }
                spool.buf.drain(..n);
                spool.drained += n as u64;
            }
            Ok(())
        }

        fn check_not_interrupted(&self) -> Result<(), SevenZError> {
            if self.in_file {
                return Err(SevenZError::WriterUnusable(
                    "an add_file() future was dropped in the middle of a file",
                ));
            }
            Ok(())
        }

        /// Adds a file whose data is read from `reader` to its end,
        /// compressed as it arrives (see [`Writer::add_file`]).
        pub async fn add_file<R: AsyncRead + Unpin>(
            &mut self,
            name: &str,
            mut reader: R,
            meta: EntryMeta,
        ) -> Result<(), SevenZError> {
            self.check_not_interrupted()?;
            self.core.begin_file(name, meta)?;
            self.in_file = true;
            loop {
                let mut filled = 0;
                while filled < self.piece.len() {
                    match reader.read(&mut self.piece[filled..]).await {
                        Ok(0) => break,
                        Ok(n) => filled += n,
                        Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                        Err(e) => {
                            self.core.cancel_file();
                            self.in_file = false;
                            return Err(e.into());
                        }
                    }
                }
                if filled == 0 {
                    break;
                }
                self.core.write_data(&self.piece[..filled])?;
                self.drain().await?;
            }
            self.core.end_file()?;
            self.in_file = false;
            self.drain().await
        }

        /// Adds a directory entry.
        pub async fn add_dir(&mut self, name: &str, meta: EntryMeta) -> Result<(), SevenZError> {
            self.check_not_interrupted()?;
            self.core.add_dir(name, meta)
        }

        /// Adds an empty file.
        pub async fn add_empty_file(
            &mut self,
            name: &str,
            meta: EntryMeta,
        ) -> Result<(), SevenZError> {
            self.check_not_interrupted()?;
            self.core.add_empty_file(name, meta)
        }

        /// Ends the archive (see [`Writer::finish`]) and gives back the
        /// sink, flushed and positioned at the end of the archive. After an
        /// I/O error (or a dropped future) calling it again resumes.
        pub async fn finish(&mut self) -> Result<W, SevenZError> {
            self.check_not_interrupted()?;
            if self.finished.is_none() {
                // The core writes into memory: it cannot fail on I/O.
                let spool = self.core.finish()?;
                self.finished = Some(spool);
            }
            self.drain().await?;
            let base = self.base;
            while let Some((at, bytes)) = self
                .finished
                .as_ref()
                .and_then(|s| s.patches.get(self.next_patch).cloned())
            {
                let sink = self.sink()?;
                sink.seek(SeekFrom::Start(base + at)).await?;
                sink.write_all(&bytes).await?;
                self.next_patch += 1;
            }
            let end = base + self.finished.as_ref().map_or(0, |s| s.drained);
            let sink = self.sink()?;
            sink.seek(SeekFrom::Start(end)).await?;
            sink.flush().await?;
            self.sink
                .take()
                .ok_or(SevenZError::WriterUnusable("the archive is finished"))
        }
    }

    #[cfg(test)]
    mod tests {
        use std::io::Cursor;

        use super::*;
        use crate::sevenz::{Archive, ArchiveOptions};

        fn data(n: usize) -> Vec<u8> {
            (0..n)
                .map(|i| (i * 7 % 251) as u8 ^ (i >> 9) as u8)
                .collect()
        }

        #[tokio::test]
        async fn async_output_equals_the_blocking_writers() {
            let big = data(300_000);
            let opts = || {
                WriterOptions::default()
                    .with_level(0)
                    .with_solid(crate::sevenz_writer::Solid::Files(1))
            };
            let mut w = AsyncWriter::with_options(Cursor::new(Vec::new()), opts())
                .await
                .unwrap();
            w.add_dir("d", EntryMeta::default()).await.unwrap();
            w.add_file("d/big", &big[..], EntryMeta::default())
                .await
                .unwrap();
            w.add_file("small", &b"tiny"[..], EntryMeta::default())
                .await
                .unwrap();
            w.add_empty_file("e", EntryMeta::default()).await.unwrap();
            let got = w.finish().await.unwrap().into_inner();
            assert!(matches!(
                w.finish().await,
                Err(SevenZError::WriterUnusable(_))
            ));

            let mut s = Writer::with_options(std::io::Cursor::new(Vec::new()), opts()).unwrap();
            s.add_dir("d", EntryMeta::default()).unwrap();
            s.add_file("d/big", &big[..], EntryMeta::default()).unwrap();
            s.add_file("small", &b"tiny"[..], EntryMeta::default())
                .unwrap();
            s.add_empty_file("e", EntryMeta::default()).unwrap();
            let want = s.finish().unwrap().into_inner();
            assert_eq!(got, want);
        }

        #[tokio::test]
        async fn encrypted_archive_at_an_offset_reads_back() {
            let mut sink = Cursor::new(b"prefix".to_vec());
            sink.set_position(6);
            let opts = WriterOptions::default()
                .with_level(0)
                .with_password("pw")
                .with_encrypt_header(true)
                .with_aes_cycles_power(4);
            let mut w = AsyncWriter::with_options(sink, opts).await.unwrap();
            w.add_file("a", &data(100_000)[..], EntryMeta::default())
                .await
                .unwrap();
            let out = w.finish().await.unwrap();
            assert_eq!(out.position() as usize, out.get_ref().len());
            let bytes = out.into_inner();
            assert_eq!(&bytes[..6], b"prefix");
            let mut a = Archive::open_with(
                Cursor::new(bytes[6..].to_vec()),
                ArchiveOptions::default().with_password("pw"),
            )
            .unwrap();
            let mut back = Vec::new();
            std::io::Read::read_to_end(&mut a.reader(0).unwrap(), &mut back).unwrap();
            assert_eq!(back, data(100_000));
        }
    }
}
