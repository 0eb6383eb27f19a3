//! The futures-io face: [`AsyncWriter`] over `futures_io::AsyncWrite +
//! AsyncSeek` (async-std, smol, `futures::io::AllowStdIo`, …), the generic
//! face with the futures-io adapter.

use super::face;
use crate::futures::source::FuturesSink;

/// A 7z writer over a futures-io `AsyncWrite + AsyncSeek` sink, with the
/// behaviour of the tokio [`AsyncWriter`](crate::sevenz_writer::AsyncWriter).
pub type AsyncWriter<W> = face::AsyncWriter<FuturesSink<W>>;

/// The data of the file begun by
/// [`begin_file`](face::AsyncWriter::begin_file); flushing hands what
/// is compressed so far to the sink; shutting down ends the file and
/// flushes the sink (the archive is ended by `finish`).
impl<W: futures_io::AsyncWrite + futures_io::AsyncSeek + Unpin> futures_io::AsyncWrite
    for face::AsyncWriter<FuturesSink<W>>
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

    fn poll_close(
        self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<std::io::Result<()>> {
        self.get_mut().core.poll_shutdown(cx).map_err(Into::into)
    }
}

#[cfg(test)]
mod tests {
    use futures::io::Cursor;

    use super::*;
    use crate::sevenz_writer::{EntryMeta, SevenZError, WriterOptions};
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
