//! 7z archives.
//!
//! The blocking reader is [`Archive`] (from `lzflow-7z`) over any
//! `Read + Seek`. With the `tokio` feature, [`AsyncArchive`] reads an
//! `AsyncRead + AsyncSeek` source: the header range is read asynchronously,
//! then each folder's packed streams are read on demand and pushed through
//! the same sans-I/O decode chain ([`FolderDecoder`]). Every read a future
//! makes is held in the reader's state, so dropping a future loses nothing.
//!
//! ```no_run
//! # async fn demo() -> Result<(), lzflow::sevenz::SevenZError> {
//! use lzflow::sevenz::{ArchiveOptions, AsyncArchive};
//! use tokio::io::AsyncReadExt;
//! let file = tokio::fs::File::open("backup.7z").await?;
//! let mut archive =
//!     AsyncArchive::open_with(file, ArchiveOptions::default().with_password("pw")).await?;
//! let mut entries = archive.entries_stream();
//! while let Some(entry) = entries.next_entry().await? {
//!     let mut data = Vec::new();
//!     entries.read_to_end(&mut data).await?;
//!     println!("{} {} bytes", entry.name, data.len());
//! }
//! # Ok(()) }
//! ```

pub use lzflow_7z::{
    filetime_to_system_time, Archive, ArchiveIndex, ArchiveOptions, Entry, EntryCheck, EntryReader,
    FolderDecoder, FolderStep, HeaderStep, IndexBuilder, PackRequest, SevenZError, SignatureHeader,
};

#[cfg(feature = "tokio")]
pub use self::async_face::{AsyncArchive, AsyncEntries, AsyncEntryReader};

#[cfg(feature = "tokio")]
mod async_face {
    use std::future::poll_fn;
    use std::io::{self, SeekFrom};
    use std::pin::Pin;
    use std::task::{ready, Context, Poll};

    use ::tokio::io::{AsyncRead, AsyncReadExt, AsyncSeek, AsyncSeekExt, ReadBuf};

    use super::HeaderStep;
    use super::{ArchiveIndex, ArchiveOptions, Entry, EntryCheck, FolderDecoder, FolderStep};
    use super::{IndexBuilder, PackRequest, SevenZError};

    /// Reads until `buf` is full or the source ends.
    async fn read_full<R: AsyncRead + Unpin>(r: &mut R, buf: &mut [u8]) -> io::Result<usize> {
        let mut n = 0;
        while n < buf.len() {
            let k = r.read(&mut buf[n..]).await?;
            if k == 0 {
                break;
            }
            n += k;
        }
        Ok(n)
    }

    /// A folder decoder plus the read it is waiting for.
    struct FolderPump {
        dec: FolderDecoder,
        pending: Option<PackRequest>,
        seeking: bool,
        pos: Option<u64>,
        produced: u64,
    }

    impl FolderPump {
        fn new(dec: FolderDecoder) -> Self {
            FolderPump {
                dec,
                pending: None,
                seeking: false,
                pos: None,
                produced: 0,
            }
        }

        /// Produces folder output into `out`; `Ok(0)` at the folder's end.
        fn poll_fill<R: AsyncRead + AsyncSeek + Unpin>(
            &mut self,
            reader: &mut R,
            cx: &mut Context<'_>,
            out: &mut [u8],
        ) -> Poll<Result<usize, SevenZError>> {
            if out.is_empty() {
                return Poll::Ready(Ok(0));
            }
            loop {
                if let Some(req) = self.pending {
                    if self.pos != Some(req.offset) {
                        if !self.seeking {
                            Pin::new(&mut *reader).start_seek(SeekFrom::Start(req.offset))?;
                            self.seeking = true;
                        }
                        let at = ready!(Pin::new(&mut *reader).poll_complete(cx));
                        self.seeking = false;
                        if at? != req.offset {
                            return Poll::Ready(Err(SevenZError::Truncated));
                        }
                        self.pos = Some(req.offset);
                    }
                    let space = self.dec.pack_space(req.stream);
                    let mut rb = ReadBuf::new(space);
                    ready!(Pin::new(&mut *reader).poll_read(cx, &mut rb))?;
                    let n = rb.filled().len();
                    if n == 0 {
                        return Poll::Ready(Err(SevenZError::Truncated));
                    }
                    self.pos = Some(req.offset + n as u64);
                    self.dec.pack_filled(req.stream, n);
                    self.pending = None;
                }
                match self.dec.read(out)? {
                    FolderStep::Data(n) => {
                        self.produced += n as u64;
                        return Poll::Ready(Ok(n));
                    }
                    FolderStep::End => return Poll::Ready(Ok(0)),
                    FolderStep::NeedPack(req) => self.pending = Some(req),
                }
            }
        }

        async fn fill<R: AsyncRead + AsyncSeek + Unpin>(
            &mut self,
            reader: &mut R,
            out: &mut [u8],
        ) -> Result<usize, SevenZError> {
            poll_fn(|cx| self.poll_fill(reader, cx, out)).await
        }

        /// Decodes and drops output up to folder position `offset`.
        async fn skip_to<R: AsyncRead + AsyncSeek + Unpin>(
            &mut self,
            reader: &mut R,
            offset: u64,
        ) -> Result<(), SevenZError> {
            let mut scratch = vec![0u8; 16 << 10];
            while self.produced < offset {
                let n = (offset - self.produced).min(scratch.len() as u64) as usize;
                if self.fill(reader, &mut scratch[..n]).await? == 0 {
                    return Err(SevenZError::Corrupt("folder ends before an entry".into()));
                }
            }
            Ok(())
        }

        /// Drives the folder to its end so that its CRC is checked.
        async fn finish<R: AsyncRead + AsyncSeek + Unpin>(
            &mut self,
            reader: &mut R,
        ) -> Result<(), SevenZError> {
            let mut probe = [0u8; 1];
            if self.fill(reader, &mut probe).await? != 0 {
                return Err(SevenZError::Corrupt(
                    "folder holds more data than its entries".into(),
                ));
            }
            Ok(())
        }
    }

    /// Reads entry data from `pump` into `buf`, counting it down and
    /// verifying the CRC at the end.
    fn poll_entry_read<R: AsyncRead + AsyncSeek + Unpin>(
        check: &mut EntryCheck,
        pump: &mut FolderPump,
        reader: &mut R,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<Result<(), SevenZError>> {
        if check.left() == 0 || buf.remaining() == 0 {
            return Poll::Ready(Ok(()));
        }
        let want = buf
            .remaining()
            .min(usize::try_from(check.left()).unwrap_or(usize::MAX));
        let dst = buf.initialize_unfilled_to(want);
        let n = ready!(pump.poll_fill(reader, cx, dst))?;
        if n == 0 {
            return Poll::Ready(Err(pump.dec.classify_error(SevenZError::Corrupt(format!(
                "the data of {} ends early",
                check.name()
            )))));
        }
        let verdict = check.update(&dst[..n]);
        buf.advance(n);
        Poll::Ready(verdict.map_err(|e| pump.dec.classify_error(e)))
    }

    /// A 7z archive over an `AsyncRead + AsyncSeek` source (e.g.
    /// `tokio::fs::File`).
    #[derive(Debug)]
    pub struct AsyncArchive<R> {
        reader: R,
        index: ArchiveIndex,
    }

    impl<R: AsyncRead + AsyncSeek + Unpin> AsyncArchive<R> {
        /// Opens an archive with default options.
        pub async fn open(reader: R) -> Result<Self, SevenZError> {
            Self::open_with(reader, ArchiveOptions::default()).await
        }

        /// Opens an archive: reads and verifies the signature header and the
        /// header (decoding and decrypting it when packed).
        pub async fn open_with(
            mut reader: R,
            options: ArchiveOptions,
        ) -> Result<Self, SevenZError> {
            let len = reader.seek(SeekFrom::End(0)).await?;
            reader.seek(SeekFrom::Start(0)).await?;
            let mut sig = [0u8; 32];
            let got = read_full(&mut reader, &mut sig).await?;
            if got < sig.len() {
                let n = got.min(6);
                return Err(
                    if got > 0 && sig[..n] == lzflow_7z::signature_header::SIGNATURE[..n] {
                        SevenZError::Truncated
                    } else {
                        SevenZError::NotSevenZ
                    },
                );
            }
            let mut builder = IndexBuilder::new(options);
            let start = builder.start(&sig, Some(len))?;
            let mut header = vec![0u8; start.next_header_size as usize];
            reader
                .seek(SeekFrom::Start(start.header_position()?))
                .await?;
            if read_full(&mut reader, &mut header).await? < header.len() {
                return Err(SevenZError::Truncated);
            }
            let mut step = builder.header(&start, &header)?;
            let index = loop {
                match step {
                    HeaderStep::Index(index) => break *index,
                    HeaderStep::Encoded(folders) => {
                        let mut bytes = Vec::new();
                        for dec in folders {
                            let size = dec.unpack_size() as usize;
                            let mut pump = FolderPump::new(dec);
                            let at = bytes.len();
                            bytes.resize(at + size, 0);
                            let mut pos = at;
                            while pos < bytes.len() {
                                let n = pump.fill(&mut reader, &mut bytes[pos..]).await?;
                                if n == 0 {
                                    return Err(SevenZError::Corrupt(
                                        "header folder output is short".into(),
                                    ));
                                }
                                pos += n;
                            }
                            pump.finish(&mut reader).await?;
                        }
                        step = builder.decoded_header(&bytes)?;
                    }
                }
            };
            Ok(AsyncArchive { reader, index })
        }

        /// Every entry, in archive order.
        pub fn entries(&self) -> &[Entry] {
            self.index.entries()
        }

        /// The parsed header.
        pub fn index(&self) -> &ArchiveIndex {
            &self.index
        }

        /// Gives back the source.
        pub fn into_inner(self) -> R {
            self.reader
        }

        /// An `AsyncRead` of entry `index`'s data; in a solid folder the
        /// entries before it are decoded and discarded first.
        pub async fn reader(
            &mut self,
            index: usize,
        ) -> Result<AsyncEntryReader<'_, R>, SevenZError> {
            let entry = self
                .index
                .entries()
                .get(index)
                .ok_or(SevenZError::NoSuchEntry(index))?
                .clone();
            self.index
                .options()
                .limits
                .check_output(entry.offset_in_folder().saturating_add(entry.size))?;
            let pump = match entry.folder() {
                Some(fi) => {
                    let mut pump = FolderPump::new(self.index.folder_decoder(fi)?);
                    pump.skip_to(&mut self.reader, entry.offset_in_folder())
                        .await?;
                    Some(pump)
                }
                None => None,
            };
            Ok(AsyncEntryReader {
                reader: &mut self.reader,
                pump,
                check: EntryCheck::new(&entry),
            })
        }

        /// Walks the entries in archive order, decoding each folder once;
        /// see [`AsyncEntries::next_entry`].
        pub fn entries_stream(&mut self) -> AsyncEntries<'_, R> {
            AsyncEntries {
                reader: &mut self.reader,
                index: &self.index,
                next: 0,
                current: None,
                check: None,
                total: 0,
                scratch: Vec::new(),
            }
        }
    }

    /// Reads one entry's data (from [`AsyncArchive::reader`]); ends with an
    /// error if the data does not match the entry's CRC.
    pub struct AsyncEntryReader<'a, R> {
        reader: &'a mut R,
        pump: Option<FolderPump>,
        check: EntryCheck,
    }

    impl<R> std::fmt::Debug for AsyncEntryReader<'_, R> {
        fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.debug_struct("AsyncEntryReader")
                .field("entry", &self.check.name())
                .field("left", &self.check.left())
                .finish()
        }
    }

    impl<R: AsyncRead + AsyncSeek + Unpin> AsyncRead for AsyncEntryReader<'_, R> {
        fn poll_read(
            self: Pin<&mut Self>,
            cx: &mut Context<'_>,
            buf: &mut ReadBuf<'_>,
        ) -> Poll<io::Result<()>> {
            let this = self.get_mut();
            match &mut this.pump {
                Some(pump) => poll_entry_read(&mut this.check, pump, this.reader, cx, buf)
                    .map_err(io::Error::from),
                None => Poll::Ready(Ok(())),
            }
        }
    }

    /// Sequential access to every entry: call
    /// [`next_entry`](Self::next_entry), then read the entry's data from
    /// `self` (it implements `AsyncRead`). Data left unread is decoded and
    /// its CRC verified when moving on.
    pub struct AsyncEntries<'a, R> {
        reader: &'a mut R,
        index: &'a ArchiveIndex,
        next: usize,
        current: Option<(usize, FolderPump)>,
        check: Option<EntryCheck>,
        total: u64,
        scratch: Vec<u8>,
    }

    impl<R> std::fmt::Debug for AsyncEntries<'_, R> {
        fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.debug_struct("AsyncEntries")
                .field("next", &self.next)
                .finish_non_exhaustive()
        }
    }

    impl<R: AsyncRead + AsyncSeek + Unpin> AsyncEntries<'_, R> {
        /// Finishes the current entry (verifying its CRC) and moves to the
        /// next one; `None` after the last.
        pub async fn next_entry(&mut self) -> Result<Option<Entry>, SevenZError> {
            // Drain what the caller left of the previous entry.
            if self.check.as_ref().is_some_and(|c| c.left() > 0) {
                let mut scratch = std::mem::take(&mut self.scratch);
                scratch.resize(16 << 10, 0);
                while self.check.as_ref().is_some_and(|c| c.left() > 0) {
                    let mut rb = ReadBuf::new(&mut scratch);
                    poll_fn(|cx| self.poll_entry(cx, &mut rb)).await?;
                }
                self.scratch = scratch;
            }
            self.check = None;
            let Some(entry) = self.index.entries().get(self.next).cloned() else {
                if let Some((_, mut pump)) = self.current.take() {
                    pump.finish(self.reader).await?;
                }
                return Ok(None);
            };
            self.next += 1;
            self.total = self.total.saturating_add(entry.size);
            self.index.options().limits.check_output(self.total)?;
            if let Some(fi) = entry.folder() {
                if self.current.as_ref().is_none_or(|(c, _)| *c != fi) {
                    if let Some((_, mut pump)) = self.current.take() {
                        pump.finish(self.reader).await?;
                    }
                    self.current = Some((fi, FolderPump::new(self.index.folder_decoder(fi)?)));
                }
                if let Some((_, pump)) = &mut self.current {
                    pump.skip_to(self.reader, entry.offset_in_folder()).await?;
                }
            }
            self.check = Some(EntryCheck::new(&entry));
            Ok(Some(entry))
        }

        fn poll_entry(
            &mut self,
            cx: &mut Context<'_>,
            buf: &mut ReadBuf<'_>,
        ) -> Poll<Result<(), SevenZError>> {
            match (&mut self.check, &mut self.current) {
                (Some(check), Some((_, pump))) if check.left() > 0 => {
                    poll_entry_read(check, pump, self.reader, cx, buf)
                }
                _ => Poll::Ready(Ok(())),
            }
        }
    }

    impl<R: AsyncRead + AsyncSeek + Unpin> AsyncRead for AsyncEntries<'_, R> {
        fn poll_read(
            self: Pin<&mut Self>,
            cx: &mut Context<'_>,
            buf: &mut ReadBuf<'_>,
        ) -> Poll<io::Result<()>> {
            self.get_mut().poll_entry(cx, buf).map_err(io::Error::from)
        }
    }

    #[cfg(test)]
    mod tests {
        use super::*;
        use std::path::PathBuf;

        fn fixture(name: &str) -> PathBuf {
            PathBuf::from(env!("CARGO_MANIFEST_DIR"))
                .join("fixtures/generated/7z")
                .join(name)
        }

        /// A source that returns `Pending` before every read and hands out
        /// at most 7 bytes at a time, to show that the output does not
        /// depend on how the input arrives.
        struct Trickle {
            data: std::io::Cursor<Vec<u8>>,
            flip: bool,
        }

        impl AsyncRead for Trickle {
            fn poll_read(
                mut self: Pin<&mut Self>,
                cx: &mut Context<'_>,
                buf: &mut ReadBuf<'_>,
            ) -> Poll<io::Result<()>> {
                self.flip = !self.flip;
                if self.flip {
                    cx.waker().wake_by_ref();
                    return Poll::Pending;
                }
                let mut tmp = [0u8; 7];
                let n = buf.remaining().min(7);
                let k = std::io::Read::read(&mut self.data, &mut tmp[..n])?;
                buf.put_slice(&tmp[..k]);
                Poll::Ready(Ok(()))
            }
        }

        impl AsyncSeek for Trickle {
            fn start_seek(mut self: Pin<&mut Self>, pos: SeekFrom) -> io::Result<()> {
                std::io::Seek::seek(&mut self.data, pos).map(drop)
            }
            fn poll_complete(self: Pin<&mut Self>, _: &mut Context<'_>) -> Poll<io::Result<u64>> {
                Poll::Ready(Ok(self.data.position()))
            }
        }

        fn sync_contents(name: &str, pw: Option<&str>) -> Vec<(String, Vec<u8>)> {
            let mut o = ArchiveOptions::default();
            if let Some(p) = pw {
                o = o.with_password(p);
            }
            let f = std::fs::File::open(fixture(name)).unwrap();
            let mut a = super::super::Archive::open_with(f, o).unwrap();
            let mut out = Vec::new();
            a.for_each_entry(|e, r| {
                let mut d = Vec::new();
                r.read_to_end(&mut d)?;
                out.push((e.name.clone(), d));
                Ok(())
            })
            .unwrap();
            out
        }

        async fn async_contents<R: AsyncRead + AsyncSeek + Unpin>(
            src: R,
            pw: Option<&str>,
        ) -> Result<Vec<(String, Vec<u8>)>, SevenZError> {
            let mut o = ArchiveOptions::default();
            if let Some(p) = pw {
                o = o.with_password(p);
            }
            let mut a = AsyncArchive::open_with(src, o).await?;
            let mut entries = a.entries_stream();
            let mut out = Vec::new();
            while let Some(e) = entries.next_entry().await? {
                let mut d = Vec::new();
                entries.read_to_end(&mut d).await?;
                out.push((e.name, d));
            }
            Ok(out)
        }

        #[::tokio::test]
        async fn async_matches_sync_on_fixtures() {
            for (name, pw) in [
                ("lzma2.7z", None),
                ("solid-3f.7z", None),
                ("bcj-lzma-elf.7z", None),
                ("bzip2.7z", None),
                ("aes-header.7z", Some("fixture-pass")),
                ("empty-file.7z", None),
            ] {
                let want = sync_contents(name, pw);
                let file = ::tokio::fs::File::open(fixture(name)).await.unwrap();
                assert_eq!(async_contents(file, pw).await.unwrap(), want, "{name}");
            }
        }

        #[::tokio::test]
        async fn trickled_input_gives_the_same_output() {
            for (name, pw) in [("nonsolid.7z", None), ("aes.7z", Some("fixture-pass"))] {
                let want = sync_contents(name, pw);
                let src = Trickle {
                    data: std::io::Cursor::new(std::fs::read(fixture(name)).unwrap()),
                    flip: false,
                };
                assert_eq!(async_contents(src, pw).await.unwrap(), want, "{name}");
            }
        }

        #[::tokio::test]
        async fn random_access_and_errors() {
            let file = ::tokio::fs::File::open(fixture("solid.7z")).await.unwrap();
            let mut a = AsyncArchive::open(file).await.unwrap();
            let last = a.entries().len() - 1;
            let want = sync_contents("solid.7z", None);
            let mut d = Vec::new();
            a.reader(last)
                .await
                .unwrap()
                .read_to_end(&mut d)
                .await
                .unwrap();
            assert_eq!(d, want[last].1);

            let file = ::tokio::fs::File::open(fixture("aes.7z")).await.unwrap();
            let r = async_contents(file, Some("wrong-pass")).await;
            assert!(matches!(r, Err(SevenZError::WrongPassword)), "{r:?}");
            let file = ::tokio::fs::File::open(fixture("aes-header.7z"))
                .await
                .unwrap();
            let r = AsyncArchive::open(file).await;
            assert!(matches!(r, Err(SevenZError::PasswordRequired)), "{r:?}");
            let file = ::tokio::fs::File::open(fixture("bad-truncated.7z"))
                .await
                .unwrap();
            let r = AsyncArchive::open(file).await;
            assert!(matches!(r, Err(SevenZError::Truncated)), "{r:?}");
        }
    }
}
