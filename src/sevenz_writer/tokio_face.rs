//! The tokio face: [`AsyncWriter`] over `tokio::io::AsyncWrite +
//! AsyncSeek`, the generic face with the tokio adapter.

use super::face;
use crate::tokio::source::TokioSink;

/// A 7z writer over a tokio `AsyncWrite + AsyncSeek` sink; files added
/// are read from tokio `AsyncRead`s.
pub type AsyncWriter<W> = face::AsyncWriter<TokioSink<W>>;

/// The data of the file begun by
/// [`begin_file`](face::AsyncWriter::begin_file); flushing hands what
/// is compressed so far to the sink; shutting down ends the file and
/// flushes the sink (the archive is ended by `finish`).
impl<W: ::tokio::io::AsyncWrite + ::tokio::io::AsyncSeek + Unpin> ::tokio::io::AsyncWrite
    for face::AsyncWriter<TokioSink<W>>
{
    fn poll_write(
        self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
        buf: &[u8],
    ) -> std::task::Poll<std::io::Result<usize>> {
        self.get_mut()
            .core
            .poll_write_data(cx, buf)
            .map_err(Into::into)
    }

    fn poll_flush(
        self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<std::io::Result<()>> {
        self.get_mut().core.poll_flush(cx).map_err(Into::into)
    }

    fn poll_shutdown(
        self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<std::io::Result<()>> {
        self.get_mut().core.poll_shutdown(cx).map_err(Into::into)
    }
}

#[cfg(feature = "tokio-fs")]
impl<W: ::tokio::io::AsyncWrite + ::tokio::io::AsyncSeek + Unpin> AsyncWriter<W> {
    /// Adds `disk_path` as `name_in_archive` as the blocking writer's
    /// `add_path` does, with the same bytes: a directory with everything
    /// below it (depth first, each directory's children in name order), a
    /// symbolic link as a link (its target as data), a file, each with
    /// [`EntryMeta::from_metadata`](lzflow_7z::EntryMeta::from_metadata).
    /// Anything else (a FIFO, a device, a socket) is an `InvalidInput`
    /// error, never opened. Files are read through
    /// [`ReadAheadFile::open_regular`](crate::tokio::fs::ReadAheadFile::open_regular),
    /// up to the size they had when opened (as tar reads them).
    pub async fn add_path(
        &mut self,
        disk_path: impl AsRef<std::path::Path>,
        name_in_archive: &str,
    ) -> Result<(), lzflow_7z::SevenZError> {
        use lzflow_7z::EntryMeta;
        let mut walk = crate::tokio::fs::TreeWalk::new(disk_path, name_in_archive);
        while let Some((path, name, md)) = walk.next().await? {
            let meta = EntryMeta::from_metadata(&md);
            if md.is_dir() {
                self.add_dir(&name, meta).await?;
            } else if md.file_type().is_symlink() {
                let target = ::tokio::fs::read_link(&path).await?;
                let bytes = target.to_string_lossy().into_owned().into_bytes();
                self.add_file(&name, &bytes[..], meta).await?;
            } else if md.is_file() {
                let (file, md) = crate::tokio::fs::ReadAheadFile::open_regular(&path).await?;
                if self.skip.is_some_and(|id| id.is_of(&md)) {
                    continue;
                }
                // Up to the size it had when opened, as tar reads.
                let file = ::tokio::io::AsyncReadExt::take(file, md.len());
                self.add_file(&name, file, EntryMeta::from_metadata(&md))
                    .await?;
            } else {
                return Err(lzflow_core::input_file::not_regular(&path).into());
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use std::io::Cursor;

    use super::*;
    use crate::sevenz::{Archive, ArchiveOptions};
    use crate::sevenz_writer::Writer;
    use crate::sevenz_writer::{EntryMeta, SevenZError, WriterOptions};

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
