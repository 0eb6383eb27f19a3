//! The one zip reading core, in poll style, over any [`PollSource`]:
//! locating and reading the central directory, checking that no entry
//! overlaps another or leaves the file, and reading an entry (its local
//! header checked against the central directory, then decryption,
//! decompression and the checks). The std face
//! ([`ZipArchive`](crate::ZipArchive)) drives it over a
//! [`Blocking`](lzflow_core::source::Blocking) source; the facade's tokio
//! and futures-io faces over their runtime's adapter.
//!
//! Every byte read is handed to the decoder before `Ready` is returned, so
//! a dropped future loses nothing.

use std::future::poll_fn;
use std::io::{self, SeekFrom};
use std::task::{ready, Context, Poll};

use lzflow_core::source::PollSource;
use lzflow_core::{Decode, InBuf, Lease, OutBuf, Pool, Progress};

use crate::read::central_directory::CentralDirectory;
use crate::read::end_of_central_directory::{CentralDirectoryLocation, DirectoryLocator};
use crate::read::entry_decoder::{EntryDecoder, EntrySpec};
use crate::read::local_file_header::LocalFileHeader;
use crate::read::zip_options::ZipOptions;
use crate::ZipError;

/// Stored bytes read from the source at a time. For `tokio::fs::File` each
/// read is a round trip through the blocking pool: reading a zip of one
/// 40 MiB deflated and one 30 MB stored entry took 59–64 ms through the
/// tokio face with 256 KiB reads, 71–87 ms with 64 KiB (39 ms through
/// `std::fs` either way).
const READ_CHUNK: usize = 256 << 10;

pub(crate) async fn seek<S: PollSource>(src: &mut S, pos: u64) -> Result<(), ZipError> {
    if poll_fn(|cx| src.poll_seek(cx, SeekFrom::Start(pos))).await? != pos {
        return Err(ZipError::Truncated);
    }
    Ok(())
}

/// Fills `buf` from `pos`, or reports the file as truncated.
async fn read_exact_at<S: PollSource>(
    src: &mut S,
    pos: u64,
    buf: &mut [u8],
) -> Result<(), ZipError> {
    seek(src, pos).await?;
    let mut n = 0;
    while n < buf.len() {
        let k = poll_fn(|cx| src.poll_read(cx, &mut buf[n..])).await?;
        if k == 0 {
            return Err(ZipError::Truncated);
        }
        n += k;
    }
    Ok(())
}

/// Finds the end record and, through it, the central directory, and checks
/// the directory's entry count and size against `options`' caps.
pub(crate) async fn locate_directory<S: PollSource>(
    src: &mut S,
    options: &ZipOptions,
) -> Result<CentralDirectoryLocation, ZipError> {
    let len = poll_fn(|cx| src.poll_seek(cx, SeekFrom::End(0))).await?;
    let mut locator = DirectoryLocator::new(len);
    while let Some((at, n)) = locator.request() {
        let mut bytes = vec![0u8; n];
        read_exact_at(src, at, &mut bytes).await?;
        locator.feed(&bytes)?;
    }
    let location = locator.finish()?;
    if location.entries > options.max_entries {
        return Err(lzflow_core::LimitExceeded::Entries {
            count: location.entries,
            limit: options.max_entries,
        }
        .into());
    }
    if location.size > options.max_directory_size {
        return Err(lzflow_core::LimitExceeded::HeaderSize {
            needed: location.size,
            limit: options.max_directory_size,
        }
        .into());
    }
    Ok(location)
}

/// An opened zip archive over any [`PollSource`]: the core every face
/// drives.
#[derive(Debug)]
pub struct PollZipArchive<S> {
    src: S,
    dir: CentralDirectory,
    options: ZipOptions,
}

impl<S: PollSource> PollZipArchive<S> {
    /// Locates and reads the central directory, and checks that every
    /// entry lies inside the file, before the directory, and overlaps no
    /// other (the "overlapping entries" zip bomb).
    pub async fn open(mut src: S, options: ZipOptions) -> Result<Self, ZipError> {
        let location = locate_directory(&mut src, &options).await?;
        // The locator checked the directory against the file's length, so
        // this allocation is bounded by what the file holds.
        let size = usize::try_from(location.size)
            .map_err(|_| ZipError::UnsupportedFeature("a central directory this large"))?;
        let mut bytes = vec![0u8; size];
        // Not touched yet (a large zeroed allocation is fresh pages): a
        // directory of megabytes is read into a few huge pages instead of
        // faulting in thousands of small ones.
        lzflow_core::advise_huge_pages(&mut bytes);
        read_exact_at(&mut src, location.offset, &mut bytes).await?;
        let dir = CentralDirectory::parse(bytes, &location)?;
        Ok(PollZipArchive { src, dir, options })
    }

    /// The central directory: entries by index, by name, in order.
    pub fn directory(&self) -> &CentralDirectory {
        &self.dir
    }

    /// The options the archive was opened with.
    pub fn options(&self) -> &ZipOptions {
        &self.options
    }

    /// The source.
    pub fn source_mut(&mut self) -> &mut S {
        &mut self.src
    }

    /// Gives back the source.
    pub fn into_source(self) -> S {
        self.src
    }

    /// A reader of entry `index`'s data: its local header is read and
    /// checked against the central directory, and the password (if the
    /// entry is encrypted) is verified as early as the format allows.
    pub async fn reader(&mut self, index: usize) -> Result<PollZipEntryReader<'_, S>, ZipError> {
        let entry = self.dir.get(index).ok_or(ZipError::NoSuchEntry)?;
        let at = entry.local_header_offset();
        let stored = entry.compressed_size();
        // One read for the local header and the start of the data: the
        // header's name and extra field are as long as the directory's in
        // nearly every archive (the layout check keeps this inside the
        // file either way).
        let header_guess =
            LocalFileHeader::LEN + entry.name_bytes().len() + entry.extra_bytes().len();
        let data_guess = usize::try_from(stored)
            .unwrap_or(usize::MAX)
            .min(READ_CHUNK);
        let mut buf = Pool::<u8>::global().lease(header_guess + READ_CHUNK);
        buf.resize(header_guess + data_guess, 0);
        read_exact_at(&mut self.src, at, &mut buf).await?;
        let mut local = LocalFileHeader::parse(&buf)?;
        let header_len = LocalFileHeader::LEN + local.variable_len();
        if header_len > buf.len() {
            // A local extra field longer than the directory's: read on.
            let have = buf.len();
            buf.resize(header_len, 0);
            read_exact_at(&mut self.src, at + have as u64, &mut buf[have..]).await?;
        }
        let (name, _) = local.parse_variable(&buf[LocalFileHeader::LEN..header_len])?;
        local.check_against(name, &entry)?;
        self.options
            .limits
            .check_output(entry.uncompressed_size())?;
        let dec = EntryDecoder::new(&EntrySpec::central(&entry), &self.options)?;
        // The data read along with the header.
        let read = buf.len();
        let end = read.min(header_len.saturating_add(data_guess));
        let ahead = (end - header_len.min(end)) as u64;
        let end_pos = at + end as u64;
        let start = header_len.min(end);
        // Grown as reads need it: zeroing 64 KiB for each small entry
        // would cost more than reading it.
        buf.truncate(end);
        Ok(PollZipEntryReader {
            src: &mut self.src,
            dec,
            index,
            dir: &self.dir,
            pos: end_pos,
            left: stored - ahead.min(stored),
            buf,
            start,
            end,
            // The source is where the data read ahead ends, unless the
            // local header was shorter than guessed.
            seeked: end == read,
            done: false,
        })
    }
}

/// One entry's data, from [`PollZipArchive::reader`]; ends with an error
/// if the data does not match the entry's CRC-32 (or, for WinZip AES, its
/// authentication code).
pub struct PollZipEntryReader<'a, S> {
    src: &'a mut S,
    dec: EntryDecoder,
    index: usize,
    dir: &'a CentralDirectory,
    /// Where the next stored bytes are in the file.
    pos: u64,
    /// Stored bytes not yet read.
    left: u64,
    buf: Lease<u8>,
    start: usize,
    end: usize,
    seeked: bool,
    done: bool,
}

impl<S> std::fmt::Debug for PollZipEntryReader<'_, S> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PollZipEntryReader")
            .field("index", &self.index)
            .field("left", &self.left)
            .finish_non_exhaustive()
    }
}

impl<S: PollSource> PollZipEntryReader<'_, S> {
    /// The entry's data into `out`; `Ok(0)` at its end.
    pub fn poll_read(&mut self, cx: &mut Context<'_>, out: &mut [u8]) -> Poll<io::Result<usize>> {
        if self.done || out.is_empty() {
            return Poll::Ready(Ok(0));
        }
        ready!(self.src.poll_proceed(cx));
        let r = self
            .poll_step(cx, out)
            .map_err(|e| io::Error::from(self.name_error(e)));
        if r.is_ready() {
            self.src.step_done();
        }
        r
    }

    fn poll_step(&mut self, cx: &mut Context<'_>, out: &mut [u8]) -> Poll<Result<usize, ZipError>> {
        loop {
            if self.start == self.end && self.left > 0 {
                if !self.seeked {
                    let at = ready!(self.src.poll_seek(cx, SeekFrom::Start(self.pos)))?;
                    if at != self.pos {
                        return Poll::Ready(Err(ZipError::Truncated));
                    }
                    self.seeked = true;
                }
                let want = self.left.min(READ_CHUNK as u64) as usize;
                if self.buf.len() < want {
                    self.buf.resize(want, 0);
                }
                let n = ready!(self.src.poll_read(cx, &mut self.buf[..want]))?;
                if n == 0 {
                    return Poll::Ready(Err(ZipError::Truncated));
                }
                self.start = 0;
                self.end = n;
                self.left -= n as u64;
                self.pos += n as u64;
            }
            let mut input = InBuf::new(&self.buf[self.start..self.end]).with_last(self.left == 0);
            let mut output = OutBuf::new(out);
            let p = self.dec.decode(&mut input, &mut output)?;
            self.start += input.pos();
            if p == Progress::StreamEnd {
                self.done = true;
            }
            if output.pos() > 0 || self.done {
                return Poll::Ready(Ok(output.pos()));
            }
            if p == Progress::NeedInput && self.left == 0 && self.start == self.end {
                return Poll::Ready(Err(ZipError::Truncated));
            }
        }
    }

    /// Names the entry in errors the decoders raised without its name.
    fn name_error(&self, e: ZipError) -> ZipError {
        let name = || {
            self.dir
                .get(self.index)
                .map_or_else(String::new, |e| e.name().into_owned())
        };
        match e {
            ZipError::DataCrc { entry } if entry.is_empty() => ZipError::DataCrc { entry: name() },
            e => e,
        }
    }
}

#[cfg(test)]
mod tests {
    use std::io::Cursor;

    use super::super::test_archive::{TestArchive, TestEntry};
    use crate::{ZipArchive, ZipError};

    /// Points central record `which` at the local header of record `to`.
    fn alias(file: &mut [u8], which: usize, to: usize) {
        let records: Vec<usize> = (0..file.len() - 4)
            .filter(|&i| file[i..i + 4] == *b"PK\x01\x02")
            .collect();
        let target: [u8; 4] = file[records[to] + 42..records[to] + 46].try_into().unwrap();
        file[records[which] + 42..records[which] + 46].copy_from_slice(&target);
    }

    fn three() -> Vec<u8> {
        TestArchive::new(vec![
            TestEntry::stored("a", b"aaaa"),
            TestEntry::stored("b", b"bbbb"),
            TestEntry::stored("c", b"cccc"),
        ])
        .build()
    }

    #[test]
    fn entries_that_share_their_bytes_are_refused_in_or_out_of_order() {
        assert!(ZipArchive::open(Cursor::new(three())).is_ok());
        for (which, to) in [(1, 0), (2, 0), (0, 2)] {
            let mut file = three();
            alias(&mut file, which, to);
            let e = ZipArchive::open(Cursor::new(file)).unwrap_err();
            assert!(
                matches!(&e, ZipError::Corrupt(m) if m.contains("overlap")),
                "{which}->{to}: {e:?}"
            );
        }
        // Out of order but apart: fine.
        let mut file = three();
        let records: Vec<usize> = (0..file.len() - 4)
            .filter(|&i| file[i..i + 4] == *b"PK\x01\x02")
            .collect();
        let (r0, r2) = (records[0] + 42, records[2] + 42);
        let (a, c): ([u8; 4], [u8; 4]) = (
            file[r0..r0 + 4].try_into().unwrap(),
            file[r2..r2 + 4].try_into().unwrap(),
        );
        file[r0..r0 + 4].copy_from_slice(&c);
        file[r2..r2 + 4].copy_from_slice(&a);
        // The names no longer match their local headers, but the layout
        // check passes: opening fails later, on reading, not here.
        assert!(ZipArchive::open(Cursor::new(file)).is_ok());
    }
}
