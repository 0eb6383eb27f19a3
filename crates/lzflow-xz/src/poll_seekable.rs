//! The one poll-style core of random access into `.xz` files, over any
//! [`PollSource`]: it reads every stream's footer and Index from the end
//! of the file ([`LayoutReader`]), keeps one table of Blocks
//! ([`BlockMap`]), and on a seek decodes from the start of the Block
//! holding the target ([`SeekableXzDecoder`]). Reads ask the source for no
//! more than the rest of the current Block. The std face
//! ([`SeekableXzReader`](crate::SeekableXzReader)) drives it over a
//! [`Blocking`](lzflow_core::source::Blocking) source; the facade's tokio
//! and futures-io faces over their runtime's adapter.

use std::io::{self, SeekFrom};
use std::task::{ready, Context, Poll};

use lzflow_core::source::PollSource;
use lzflow_core::{InBuf, OutBuf, Progress};

use crate::info::LayoutReader;
use crate::{BlockMap, SeekableXzDecoder, XzDecoderOptions, XzError};

/// Input read ahead from the source, at most the rest of one Block.
const READ_CHUNK: usize = 64 << 10;

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

/// Random access into an `.xz` file over any [`PollSource`]: the one
/// implementation behind every face, obtained opened from
/// [`open`](Self::open).
#[derive(Debug)]
pub struct PollSeekableXz<S> {
    src: S,
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

impl<S: PollSource> PollSeekableXz<S> {
    /// Opens `src`: reads every stream's footer and Index from the end of
    /// the file.
    pub async fn open(src: S, opts: XzDecoderOptions) -> io::Result<Self> {
        let mut core = PollSeekableXz {
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
        };
        std::future::poll_fn(|cx| core.poll_open(cx)).await?;
        Ok(core)
    }

    /// Reads the layout: every footer and Index, from the end.
    fn poll_open(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
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

    /// The sans-I/O decoder (length, position, the Block map).
    pub fn decoder(&self) -> &SeekableXzDecoder {
        // Set by `open`, the only way to get a value of this type.
        self.dec.as_ref().expect("opened")
    }

    /// Bytes read from the source so far, Indexes included.
    pub fn bytes_read(&self) -> u64 {
        self.bytes_read
    }

    /// The source.
    pub fn source_mut(&mut self) -> &mut S {
        &mut self.src
    }

    /// Gives back the source.
    pub fn into_source(self) -> S {
        self.src
    }

    /// Moves to uncompressed offset `pos`; no I/O until the next read.
    pub fn seek(&mut self, pos: SeekFrom) -> io::Result<u64> {
        // Set by `open`, the only way to get a value of this type.
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
    /// coder steps without output (async faces pass a small number; std
    /// faces `usize::MAX`) before it yields, its task woken.
    pub fn poll_read(
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
            // Set by `open`, the only way to get a value of this type.
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
