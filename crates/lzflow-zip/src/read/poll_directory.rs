//! Listing an archive without holding its central directory: the records
//! (APPNOTE 4.3.12) stream through one window and are handed out one at a
//! time as borrowed [`CentralEntry`] views, each checked as
//! [`CentralDirectory::parse`](crate::CentralDirectory::parse) checks it.
//!
//! [`PollZipArchive`](crate::PollZipArchive) keeps the whole directory for
//! random access, which costs a fresh allocation of its size (6.4 MB for
//! 100,000 short names) before the first entry. A listing needs one record
//! at a time: this reader's memory is one window of
//! [`WINDOW`] bytes, grown only for a record longer than that (at most
//! 46 + 3 × 65,535 bytes).
//!
//! What it does not check: the entries' data layout (each entry's bytes
//! before the directory and overlapping no other entry's), which needs
//! every record at once and matters only to reading entry data, which this
//! reader does not do. The layout checks of the local header offsets record
//! by record (before the directory) are made.

use std::future::poll_fn;
use std::task::{ready, Context, Poll};

use lzflow_core::source::PollSource;

use crate::read::central_directory::{
    check_record, record_len, CentralEntry, CENTRAL_FILE_HEADER_LEN, DIGITAL_SIGNATURE,
};
use crate::read::end_of_central_directory::CentralDirectoryLocation;
use crate::read::little_endian::u32_at;
use crate::read::poll_archive::{locate_directory, seek};
use crate::read::zip_options::ZipOptions;
use crate::ZipError;

/// Bytes of the directory read at a time.
pub const WINDOW: usize = 64 << 10;

/// The central directory read record by record over any [`PollSource`]:
/// the core of the std [`CentralDirectoryReader`](crate::CentralDirectoryReader)
/// and the facade's async faces.
#[derive(Debug)]
pub struct PollCentralDirectoryReader<S> {
    src: S,
    location: CentralDirectoryLocation,
    /// The window: `buf[start..end]` is read and not yet handed out.
    buf: Vec<u8>,
    start: usize,
    end: usize,
    /// Directory bytes not read from the source yet.
    unread: u64,
    /// The next record's index.
    index: u64,
    state: State,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    Records,
    Done,
    Failed,
}

impl<S: PollSource> PollCentralDirectoryReader<S> {
    /// Locates the central directory through the end record, checks its
    /// size and entry count against `options`' caps, and positions the
    /// source at its first record.
    pub async fn open(mut src: S, options: &ZipOptions) -> Result<Self, ZipError> {
        let location = locate_directory(&mut src, options).await?;
        seek(&mut src, location.offset).await?;
        // The locator checked the directory against the file's length.
        let window = usize::try_from(location.size).map_or(WINDOW, |n| n.min(WINDOW));
        Ok(PollCentralDirectoryReader {
            src,
            unread: location.size,
            location,
            buf: vec![0u8; window],
            start: 0,
            end: 0,
            index: 0,
            state: State::Records,
        })
    }

    /// Where the directory is, how many entries the end record counts,
    /// and the archive comment.
    pub fn location(&self) -> &CentralDirectoryLocation {
        &self.location
    }

    /// The next entry, `None` after the last. After an error, every call
    /// fails. Cancellation-safe: what a call has read is kept in the window
    /// before it can be dropped.
    pub async fn next_entry(&mut self) -> Result<Option<CentralEntry<'_>>, ZipError> {
        let len = match self.next_in_window() {
            Some(len) => Some(len),
            None => poll_fn(|cx| self.poll_advance(cx)).await?,
        };
        Ok(len.map(|len| self.entry(len)))
    }

    /// The fast path of most records: the next record when it is whole in
    /// the window and passes every check, its length. `None` leaves
    /// everything as it was, for [`poll_advance`](Self::poll_advance) to
    /// read more or report the error. Per record, returning a plain
    /// `Option` instead of a `Poll<Result<…, ZipError>>` through memory
    /// halves the listing's time.
    #[inline]
    pub(crate) fn next_in_window(&mut self) -> Option<usize> {
        if self.state != State::Records || self.index == self.location.entries {
            return None;
        }
        let rest = self.window();
        if rest.len() < record_len(rest)? {
            return None;
        }
        let len = check_record(rest, self.index, &self.location).ok()?;
        self.start += len;
        self.index += 1;
        Some(len)
    }

    /// The record just passed, `len` bytes long.
    #[inline]
    pub(crate) fn entry(&self, len: usize) -> CentralEntry<'_> {
        let record = &self.buf[self.start - len..self.start];
        CentralEntry::new(record, self.location.prefix)
    }

    /// Checks the next record and moves past it: its length, or `None`
    /// after the last record. A plain poll function rather than an `async`
    /// one: most records are already in the window, and the state machine
    /// of an `async` step per record cost more than the check itself.
    pub(crate) fn poll_advance(
        &mut self,
        cx: &mut Context<'_>,
    ) -> Poll<Result<Option<usize>, ZipError>> {
        let r = ready!(self.poll_step(cx));
        if r.is_err() {
            self.state = State::Failed;
        }
        Poll::Ready(r)
    }

    fn poll_step(&mut self, cx: &mut Context<'_>) -> Poll<Result<Option<usize>, ZipError>> {
        match self.state {
            State::Failed => {
                return Poll::Ready(Err(ZipError::corrupt(
                    "the central directory cannot be read on after an earlier error",
                )))
            }
            State::Done => return Poll::Ready(Ok(None)),
            State::Records => {}
        }
        if self.index == self.location.entries {
            // What follows the last record: nothing, or the digital
            // signature record, as `CentralDirectory::parse` accepts.
            ready!(self.poll_fill(cx, 4))?;
            let rest = self.window();
            if !rest.is_empty() && u32_at(rest, 0) != Some(DIGITAL_SIGNATURE) {
                let left = rest.len() as u64 + self.unread;
                return Poll::Ready(Err(ZipError::corrupt(format!(
                    "{left} bytes follow the last of the {} central directory records",
                    self.location.entries
                ))));
            }
            self.state = State::Done;
            return Poll::Ready(Ok(None));
        }
        ready!(self.poll_fill(cx, CENTRAL_FILE_HEADER_LEN))?;
        if let Some(len) = record_len(self.window()) {
            ready!(self.poll_fill(cx, len))?;
        }
        let len = check_record(self.window(), self.index, &self.location)?;
        self.start += len;
        self.index += 1;
        Poll::Ready(Ok(Some(len)))
    }

    fn window(&self) -> &[u8] {
        &self.buf[self.start..self.end]
    }

    /// Makes the window hold at least `n` bytes, or all the directory has
    /// left. Each read's bytes are in the window before the next poll.
    fn poll_fill(&mut self, cx: &mut Context<'_>, n: usize) -> Poll<Result<(), ZipError>> {
        if self.end - self.start >= n || self.unread == 0 {
            return Poll::Ready(Ok(()));
        }
        if self.buf.len() - self.start < n {
            self.buf.copy_within(self.start..self.end, 0);
            self.end -= self.start;
            self.start = 0;
            if self.buf.len() < n {
                // A record of long name, extra field and comment: n is at
                // most 46 + 3 × 65,535.
                self.buf.resize(n, 0);
            }
        }
        while self.end - self.start < n && self.unread > 0 {
            let room = usize::try_from(self.unread).map_or(self.buf.len() - self.end, |u| {
                u.min(self.buf.len() - self.end)
            });
            let k = ready!(self
                .src
                .poll_read(cx, &mut self.buf[self.end..self.end + room]))?;
            if k == 0 {
                return Poll::Ready(Err(ZipError::Truncated));
            }
            self.end += k;
            self.unread -= k as u64;
        }
        Poll::Ready(Ok(()))
    }

    /// Gives back the source.
    pub fn into_source(self) -> S {
        self.src
    }
}
