//! Writing 7z archives.
//!
//! The blocking writer is [`Writer`] (from `lzflow-7z`) over any
//! `Write + Seek`. [`AsyncWriter`] (feature `tokio`) and
//! [`futures::AsyncWriter`] (feature `futures-io`) write to an async
//! `AsyncWrite + AsyncSeek` sink: the same writer core compresses into a
//! small in-memory spool, which is drained to the sink after every 64 KiB
//! piece; the start header patch at the end is replayed with seeks. With
//! [`WriterOptions::threads`] above 1 the core runs on a thread of its own
//! (its calls wait for the compressing workers, which a poll must not):
//! entry data goes to it through a bounded queue (4 MiB) and the archive
//! comes back through a bounded spool (4 MiB), drained to the sink while
//! the caller waits for queue room; errors of queued work are returned by
//! the next call. Both faces are thin adapters over one runtime-free core.
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
    level_options, system_time_to_filetime, EntryMeta, Method, SevenZError, Solid, Writer,
    WriterOptions,
};

#[cfg(any(feature = "tokio", feature = "futures-io"))]
mod async_core;
#[cfg(feature = "futures-io")]
pub mod futures;
#[cfg(any(feature = "tokio", feature = "futures-io"))]
mod writer_thread;

#[cfg(feature = "tokio")]
pub use self::tokio_face::AsyncWriter;

#[cfg(feature = "tokio")]
mod tokio_face {
    use std::io::{self, SeekFrom};
    use std::pin::Pin;
    use std::task::{Context, Poll};

    use tokio::io::{AsyncRead, AsyncSeek, AsyncWrite, ReadBuf};

    use super::async_core::{AsyncWriterCore, PollRead, PollSink};
    use super::{EntryMeta, SevenZError, WriterOptions};
    use crate::tokio::coop::TimedStep;
    use crate::tokio::seek::TwoStepSeek;

    /// Adapts a tokio sink and tokio's cooperative budget to [`PollSink`].
    #[derive(Debug)]
    struct Sink<W> {
        inner: W,
        seek: TwoStepSeek,
        step: TimedStep,
    }

    impl<W: AsyncWrite + AsyncSeek + Unpin> PollSink for Sink<W> {
        fn poll_write(&mut self, cx: &mut Context<'_>, buf: &[u8]) -> Poll<io::Result<usize>> {
            Pin::new(&mut self.inner).poll_write(cx, buf)
        }

        fn poll_seek(&mut self, cx: &mut Context<'_>, pos: SeekFrom) -> Poll<io::Result<u64>> {
            self.seek.poll_seek(&mut self.inner, cx, pos)
        }

        fn poll_flush(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
            Pin::new(&mut self.inner).poll_flush(cx)
        }

        fn poll_proceed(&mut self, cx: &mut Context<'_>) -> Poll<()> {
            self.step.poll_start(cx)
        }

        fn step_done(&mut self) {
            self.step.done();
        }
    }

    /// Adapts a tokio source to [`PollRead`].
    struct Source<R>(R);

    impl<R: AsyncRead + Unpin> PollRead for Source<R> {
        fn poll_read(&mut self, cx: &mut Context<'_>, buf: &mut [u8]) -> Poll<io::Result<usize>> {
            let mut rb = ReadBuf::new(buf);
            std::task::ready!(Pin::new(&mut self.0).poll_read(cx, &mut rb))?;
            Poll::Ready(Ok(rb.filled().len()))
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
        core: AsyncWriterCore<Sink<W>>,
    }

    impl<W: AsyncWrite + AsyncSeek + Unpin> AsyncWriter<W> {
        /// A writer with default options; the archive starts at the sink's
        /// current position.
        pub async fn new(sink: W) -> Result<Self, SevenZError> {
            Self::with_options(sink, WriterOptions::default()).await
        }

        /// A writer with `opts` (see [`Writer::with_options`](super::Writer::with_options)).
        pub async fn with_options(sink: W, opts: WriterOptions) -> Result<Self, SevenZError> {
            let sink = Sink {
                inner: sink,
                seek: TwoStepSeek::default(),
                step: TimedStep::default(),
            };
            Ok(AsyncWriter {
                core: AsyncWriterCore::new(sink, opts).await?,
            })
        }

        /// Adds a file whose data is read from `reader` to its end,
        /// compressed as it arrives (see [`Writer::add_file`](super::Writer::add_file)).
        pub async fn add_file<R: AsyncRead + Unpin>(
            &mut self,
            name: &str,
            reader: R,
            meta: EntryMeta,
        ) -> Result<(), SevenZError> {
            self.core.add_file(name, &mut Source(reader), meta).await
        }

        /// Adds a directory entry.
        pub async fn add_dir(&mut self, name: &str, meta: EntryMeta) -> Result<(), SevenZError> {
            self.core.add_dir(name, meta).await
        }

        /// Adds an empty file.
        pub async fn add_empty_file(
            &mut self,
            name: &str,
            meta: EntryMeta,
        ) -> Result<(), SevenZError> {
            self.core.add_empty_file(name, meta).await
        }

        /// Ends the archive (see [`Writer::finish`](super::Writer::finish)) and gives back the
        /// sink, flushed and positioned at the end of the archive. After an
        /// I/O error (or a dropped future) calling it again resumes.
        pub async fn finish(&mut self) -> Result<W, SevenZError> {
            Ok(self.core.finish().await?.inner)
        }
    }

    #[cfg(test)]
    mod tests {
        use std::io::Cursor;

        use super::*;
        use crate::sevenz::{Archive, ArchiveOptions};
        use crate::sevenz_writer::Writer;

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

        /// A tokio `File` takes a write and finishes it in the background;
        /// the start header patch's seek must wait for it.
        #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
        async fn a_tokio_file_sink_reads_back() {
            let dir = std::env::temp_dir().join(format!("lzflow-7zw-file-{}", std::process::id()));
            std::fs::create_dir_all(&dir).unwrap();
            for threads in [1, 2] {
                let path = dir.join(format!("t{threads}.7z"));
                let file = tokio::fs::File::create(&path).await.unwrap();
                let opts = WriterOptions::default()
                    .with_level(1)
                    .with_solid(crate::sevenz_writer::Solid::Files(1))
                    .with_threads(threads);
                let mut w = AsyncWriter::with_options(file, opts).await.unwrap();
                for i in 0..3u8 {
                    let name = format!("f{i}");
                    w.add_file(
                        &name,
                        &data(200_000 + usize::from(i))[..],
                        EntryMeta::default(),
                    )
                    .await
                    .unwrap();
                }
                let f = w.finish().await.unwrap();
                drop(f);
                let bytes = std::fs::read(&path).unwrap();
                let mut a = Archive::open(Cursor::new(bytes)).unwrap();
                for i in 0..3usize {
                    let mut back = Vec::new();
                    std::io::Read::read_to_end(&mut a.reader(i).unwrap(), &mut back).unwrap();
                    assert!(back == data(200_000 + i), "threads {threads}, entry {i}");
                }
            }
            let _ = std::fs::remove_dir_all(&dir);
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
