//! The futures-io face: [`AsyncWriter`] over `futures_io::AsyncWrite +
//! AsyncSeek` (async-std, smol, `futures::io::AllowStdIo`, …). A thin
//! adapter over the runtime-free core, twin of the tokio face.

use futures_io::{AsyncRead, AsyncSeek, AsyncWrite};

use super::{face, EntryMeta, SevenZError, WriterOptions};
use crate::futures::source::{FuturesSink, FuturesSource};
use lzflow_7z::PollWriter;

/// A 7z writer over a futures-io `AsyncWrite + AsyncSeek` sink, with the
/// behaviour of the tokio [`AsyncWriter`](crate::sevenz_writer::AsyncWriter).
pub type AsyncWriter<W> = face::AsyncWriter<FuturesSink<W>>;

impl<W: AsyncWrite + AsyncSeek + Unpin> AsyncWriter<W> {
    /// A writer with default options; the archive starts at the sink's
    /// current position.
    pub async fn new(sink: W) -> Result<Self, SevenZError> {
        Self::with_options(sink, WriterOptions::default()).await
    }

    /// A writer with `opts` (see [`Writer::with_options`](super::Writer::with_options)).
    pub async fn with_options(sink: W, opts: WriterOptions) -> Result<Self, SevenZError> {
        let core = PollWriter::new(FuturesSink::new(sink), opts).await?;
        Ok(face::AsyncWriter { core })
    }

    /// Adds a file whose data is read from `reader` to its end,
    /// compressed as it arrives (see [`Writer::add_file`](super::Writer::add_file)).
    pub async fn add_file<R: AsyncRead + Unpin>(
        &mut self,
        name: &str,
        reader: R,
        meta: EntryMeta,
    ) -> Result<(), SevenZError> {
        let mut src = FuturesSource::new(reader);
        self.core.add_file(name, &mut src, meta).await
    }

    /// Ends the archive (see [`Writer::finish`](super::Writer::finish)) and gives back the
    /// sink, flushed and positioned at the end of the archive. After an
    /// I/O error (or a dropped future) calling it again resumes.
    pub async fn finish(&mut self) -> Result<W, SevenZError> {
        Ok(self.core.finish().await?.into_inner())
    }
}

#[cfg(test)]
mod tests {
    use futures::io::Cursor;

    use super::*;
    use crate::sevenz_writer::{Solid, Writer};

    fn data(n: usize) -> Vec<u8> {
        (0..n)
            .map(|i| (i * 13 % 251) as u8 ^ (i >> 7) as u8)
            .collect()
    }

    #[test]
    fn futures_output_equals_the_blocking_writers() {
        let big = data(200_000);
        let opts = || {
            WriterOptions::default()
                .with_level(1)
                .with_solid(Solid::Files(1))
                .with_password("pw")
                .with_aes_cycles_power(4)
        };
        let got = futures::executor::block_on(async {
            let mut sink = Cursor::new(b"lead".to_vec());
            sink.set_position(4);
            let mut w = AsyncWriter::with_options(sink, opts()).await.unwrap();
            w.add_dir("d", EntryMeta::default()).await.unwrap();
            w.add_file("d/big", &big[..], EntryMeta::default())
                .await
                .unwrap();
            w.add_empty_file("e", EntryMeta::default()).await.unwrap();
            let out = w.finish().await.unwrap();
            assert_eq!(out.position() as usize, out.get_ref().len());
            assert!(matches!(
                w.finish().await,
                Err(SevenZError::WriterUnusable(_))
            ));
            out.into_inner()
        });
        assert_eq!(&got[..4], b"lead");

        // The same options give the same archive, but the salt and IV are
        // random and even the compressed header's length depends on them:
        // compare everything through the reader instead.
        let mut s = Writer::with_options(std::io::Cursor::new(Vec::new()), opts()).unwrap();
        s.add_dir("d", EntryMeta::default()).unwrap();
        s.add_file("d/big", &big[..], EntryMeta::default()).unwrap();
        s.add_empty_file("e", EntryMeta::default()).unwrap();
        let want = s.finish().unwrap().into_inner();
        for archive in [&got[4..], &want[..]] {
            let mut a = crate::sevenz::Archive::open_with(
                std::io::Cursor::new(archive.to_vec()),
                crate::sevenz::ArchiveOptions::default().with_password("pw"),
            )
            .unwrap();
            let names: Vec<_> = a.entries().iter().map(|e| e.name.clone()).collect();
            assert_eq!(names, ["d", "d/big", "e"]);
            let mut back = Vec::new();
            std::io::Read::read_to_end(&mut a.reader(1).unwrap(), &mut back).unwrap();
            assert_eq!(back, big);
        }
    }
}
