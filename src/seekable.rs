//! Random access into `.xz` files: [`SeekableXzReader`] (std `Read +
//! Seek`), [`AsyncSeekableXzReader`] (tokio) and
//! [`futures::AsyncSeekableXzReader`] (futures-io).
//!
//! All three run one poll-style core over a small source trait: it reads
//! every stream's footer and Index from the end of the file
//! ([`LayoutReader`]), keeps one table of Blocks ([`BlockMap`]), and on a
//! seek decodes from the start of the Block holding the target
//! ([`SeekableXzDecoder`]). Reads ask the source for no more than the rest
//! of the current Block, so reading 4 KiB in the middle of a large file
//! costs one Block (plus, once, the Indexes) — what a source over HTTP
//! range requests wants. Reading on continues into the next Block without
//! seeking the source again. Every Block read to its end has its check
//! verified.
//!
//! ```
//! use std::io::{Read, Seek, SeekFrom, Write};
//! # fn main() -> std::io::Result<()> {
//! let data: Vec<u8> = (0..300_000u32).map(|i| (i % 251) as u8).collect();
//! let mut enc = lzflow::write::XzEncoder::builder()
//!     .preset(1)
//!     .block_size(64 << 10) // many Blocks: cheap seeks
//!     .build(Vec::new());
//! enc.write_all(&data)?;
//! let file = enc.finish()?;
//!
//! let mut xz = lzflow::seekable::SeekableXzReader::open(std::io::Cursor::new(file))?;
//! assert_eq!(xz.len(), data.len() as u64);
//! xz.seek(SeekFrom::Start(200_000))?;
//! let mut slice = [0u8; 4096];
//! xz.read_exact(&mut slice)?;
//! assert_eq!(slice[..], data[200_000..204_096]);
//! # Ok(()) }
//! ```

use std::io::{self, Read, Seek, SeekFrom};
use std::task::{ready, Context, Poll};

use lzflow_core::{InBuf, OutBuf, Progress};
use lzflow_xz::info::LayoutReader;
use lzflow_xz::{BlockMap, SeekableXzDecoder, XzDecoderOptions, XzError};

#[cfg(feature = "futures-io")]
pub mod futures;
#[cfg(feature = "tokio")]
mod tokio_face;

#[cfg(feature = "tokio")]
pub use tokio_face::AsyncSeekableXzReader;

pub(crate) use lzflow_core::source::{Blocking, PollSource as SeekSource};

/// Input read ahead from the source, at most the rest of one Block.
const READ_CHUNK: usize = 64 << 10;

/// Coder steps one async poll may take without output before it yields.
#[cfg(any(feature = "tokio", feature = "futures-io"))]
pub(crate) const STEPS_PER_POLL: usize = 32;

/// Where opening stands.
#[derive(Debug)]
enum Opening {
    /// Finding the file's length.
    Length,
    /// Reading the byte range the layout asked for: `have` of it so far.
    Range {
        layout: Box<LayoutReader>,
        at: u64,
        have: usize,
        seeked: bool,
    },
}

/// The one implementation behind every face.
#[derive(Debug)]
pub(crate) struct Core<S> {
    pub(crate) src: S,
    opts: XzDecoderOptions,
    opening: Option<Opening>,
    dec: Option<SeekableXzDecoder>,
    /// Bytes read from the source: `buf[start..end]` is the file from
    /// `buf_offset` on.
    buf: Vec<u8>,
    start: usize,
    end: usize,
    buf_offset: u64,
    /// The source's position, when known.
    src_pos: Option<u64>,
    /// The last read of the source returned nothing.
    at_eof: bool,
    /// Bytes read from the source so far (for callers that pay per byte).
    bytes_read: u64,
}

impl<S: SeekSource> Core<S> {
    pub(crate) fn new(src: S, opts: XzDecoderOptions) -> Self {
        Core {
            src,
            opts,
            opening: Some(Opening::Length),
            dec: None,
            buf: Vec::new(),
            start: 0,
            end: 0,
            buf_offset: 0,
            src_pos: None,
            at_eof: false,
            bytes_read: 0,
        }
    }

    /// Reads the layout: every footer and Index, from the end.
    pub(crate) fn poll_open(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        loop {
            match self.opening.take() {
                None => return Poll::Ready(Ok(())),
                Some(Opening::Length) => {
                    let len = match self.src.poll_seek(cx, SeekFrom::End(0)) {
                        Poll::Pending => {
                            self.opening = Some(Opening::Length);
                            return Poll::Pending;
                        }
                        Poll::Ready(r) => r?,
                    };
                    self.src_pos = Some(len);
                    self.opening = self.next_range(Box::new(LayoutReader::new(len)))?;
                }
                Some(Opening::Range {
                    mut layout,
                    at,
                    mut have,
                    mut seeked,
                }) => {
                    let poll = self.poll_range(cx, at, &mut have, &mut seeked);
                    match poll {
                        Poll::Pending => {
                            self.opening = Some(Opening::Range {
                                layout,
                                at,
                                have,
                                seeked,
                            });
                            return Poll::Pending;
                        }
                        Poll::Ready(r) => r?,
                    }
                    layout.feed(&self.buf[..have]).map_err(io::Error::from)?;
                    self.opening = self.next_range(layout)?;
                }
            }
        }
    }

    /// The next range the layout wants; `None` once the decoder is made.
    fn next_range(&mut self, layout: Box<LayoutReader>) -> io::Result<Option<Opening>> {
        match layout.request() {
            Some((at, n)) => {
                self.buf.clear();
                self.buf.resize(n, 0);
                Ok(Some(Opening::Range {
                    layout,
                    at,
                    have: 0,
                    seeked: false,
                }))
            }
            None => {
                let info = layout.finish().map_err(io::Error::from)?;
                let map = BlockMap::new(&info).map_err(io::Error::from)?;
                self.dec = Some(SeekableXzDecoder::new(map, self.opts.clone()));
                self.buf.clear();
                self.buf.resize(READ_CHUNK, 0);
                self.start = 0;
                self.end = 0;
                Ok(None)
            }
        }
    }

    /// Fills `buf[..len]` from file offset `at`.
    fn poll_range(
        &mut self,
        cx: &mut Context<'_>,
        at: u64,
        have: &mut usize,
        seeked: &mut bool,
    ) -> Poll<io::Result<()>> {
        if !*seeked {
            ready!(self.src.poll_seek(cx, SeekFrom::Start(at)))?;
            *seeked = true;
            self.src_pos = Some(at);
        }
        while *have < self.buf.len() {
            let n = ready!(self.src.poll_read(cx, &mut self.buf[*have..]))?;
            if n == 0 {
                return Poll::Ready(Err(XzError::Truncated { during: "index" }.into()));
            }
            *have += n;
            self.bytes_read += n as u64;
            self.src_pos = self.src_pos.map(|p| p + n as u64);
        }
        Poll::Ready(Ok(()))
    }

    pub(crate) fn decoder(&self) -> &SeekableXzDecoder {
        self.dec.as_ref().expect("opened")
    }

    pub(crate) fn bytes_read(&self) -> u64 {
        self.bytes_read
    }

    /// Moves to uncompressed offset `pos`; no I/O until the next read.
    pub(crate) fn seek(&mut self, pos: SeekFrom) -> io::Result<u64> {
        let dec = self.dec.as_mut().expect("opened");
        let target = match pos {
            SeekFrom::Start(p) => Some(p),
            SeekFrom::End(d) => dec.len().checked_add_signed(d),
            SeekFrom::Current(d) => dec.position().checked_add_signed(d),
        }
        .ok_or_else(|| {
            io::Error::new(
                io::ErrorKind::InvalidInput,
                "seek to a negative or overflowing position",
            )
        })?;
        dec.seek(target);
        Ok(target)
    }

    /// Decodes into `out`; `Ok(0)` at the end of the data. At most `steps`
    /// coder steps without output (async faces: [`STEPS_PER_POLL`]; std:
    /// unbounded) before it yields.
    pub(crate) fn poll_read(
        &mut self,
        cx: &mut Context<'_>,
        out: &mut [u8],
        steps: usize,
    ) -> Poll<io::Result<usize>> {
        if out.is_empty() {
            return Poll::Ready(Ok(0));
        }
        ready!(self.src.poll_proceed(cx));
        let r = self.poll_read_steps(cx, out, steps);
        if r.is_ready() {
            self.src.step_done();
        }
        r
    }

    fn poll_read_steps(
        &mut self,
        cx: &mut Context<'_>,
        out: &mut [u8],
        steps: usize,
    ) -> Poll<io::Result<usize>> {
        for _ in 0..steps {
            let dec = self.dec.as_mut().expect("opened");
            let Some(want_at) = dec.input_offset() else {
                return Poll::Ready(Ok(0));
            };
            // Keep buffered bytes only if they are where the decoder is.
            let buffered = self.buf_offset..self.buf_offset + (self.end - self.start) as u64;
            if buffered.contains(&want_at) || (want_at == buffered.end && self.at_eof) {
                self.start += (want_at - self.buf_offset) as usize;
                self.buf_offset = want_at;
            } else {
                self.start = 0;
                self.end = 0;
                self.buf_offset = want_at;
                self.at_eof = false;
            }
            if self.start == self.end && !self.at_eof {
                if self.src_pos != Some(want_at) {
                    ready!(self.src.poll_seek(cx, SeekFrom::Start(want_at)))?;
                    self.src_pos = Some(want_at);
                }
                let want = dec.input_wanted().clamp(1, READ_CHUNK as u64) as usize;
                let n = ready!(self.src.poll_read(cx, &mut self.buf[..want]))?;
                self.start = 0;
                self.end = n;
                self.at_eof = n == 0;
                self.bytes_read += n as u64;
                self.src_pos = Some(want_at + n as u64);
            }
            let mut input = InBuf::new(&self.buf[self.start..self.end]).with_last(self.at_eof);
            let mut output = OutBuf::new(out);
            let progress = dec
                .decode(&mut input, &mut output)
                .map_err(io::Error::from)?;
            self.start += input.pos();
            self.buf_offset += input.pos() as u64;
            if output.pos() > 0 {
                return Poll::Ready(Ok(output.pos()));
            }
            if progress == Progress::StreamEnd {
                return Poll::Ready(Ok(0));
            }
        }
        cx.waker().wake_by_ref();
        Poll::Pending
    }
}

/// Random access into an `.xz` file over a `Read + Seek` source (a file,
/// a cursor, a source over HTTP range requests).
///
/// [`open`](Self::open) reads every stream's footer and Index from the end
/// of the file; then `Seek` moves anywhere in the uncompressed data and
/// `Read` decodes from the Block that holds it.
#[derive(Debug)]
pub struct SeekableXzReader<R> {
    core: Core<Blocking<R>>,
}

impl<R: Read + Seek> SeekableXzReader<R> {
    /// Opens `reader` with default options (checks verified, no limits).
    pub fn open(reader: R) -> io::Result<Self> {
        Self::open_with(reader, XzDecoderOptions::default())
    }

    /// Opens `reader` with decoder options (memory limit, verification).
    pub fn open_with(reader: R, opts: XzDecoderOptions) -> io::Result<Self> {
        let mut core = Core::new(Blocking(reader), opts);
        lzflow_core::source::block_on_poll(|cx| core.poll_open(cx))?;
        Ok(SeekableXzReader { core })
    }

    /// Bytes of uncompressed data.
    pub fn len(&self) -> u64 {
        self.core.decoder().len()
    }

    /// True when the file holds no data.
    pub fn is_empty(&self) -> bool {
        self.core.decoder().is_empty()
    }

    /// Number of Blocks in the file.
    pub fn block_count(&self) -> usize {
        self.core.decoder().map().block_count()
    }

    /// Bytes read from the source so far, Indexes included.
    pub fn bytes_read(&self) -> u64 {
        self.core.bytes_read()
    }

    /// Gives back the source.
    pub fn into_inner(self) -> R {
        self.core.src.0
    }
}

impl<R: Read + Seek> Read for SeekableXzReader<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        lzflow_core::source::block_on_poll(|cx| self.core.poll_read(cx, buf, usize::MAX))
    }
}

impl<R: Read + Seek> Seek for SeekableXzReader<R> {
    fn seek(&mut self, pos: SeekFrom) -> io::Result<u64> {
        self.core.seek(pos)
    }

    fn stream_position(&mut self) -> io::Result<u64> {
        Ok(self.core.decoder().position())
    }
}
