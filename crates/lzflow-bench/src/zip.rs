//! `compare zip`: reading zip archives with lzflow beside the `zip` crate,
//! rawzip, rc-zip, async_zip, Info-ZIP's `unzip` and 7-Zip's `7zz`.
//!
//! Four tables, each one interleaved run (see `child`: every contestant
//! in a fresh child process, so its allocations and peak RSS are its own):
//!
//! * list: open a 100,000-entry archive and go through every entry's name
//!   and size (no entry data): lzflow's streamed `CentralDirectoryReader`
//!   (the listing API, as rawzip's is) and `ZipArchive` (which holds the
//!   directory for random access);
//! * read: the data of all 100,000 one-byte entries of the same archive,
//!   read into one reused buffer; then 10,000 such entries extracted to
//!   disk (100,000 files take tens of seconds per run here, most of it in
//!   the kernel);
//! * one 200 MiB Deflate entry, decoded and discarded;
//! * forward-only: a 10,000-entry archive written by a streaming writer
//!   (every entry Deflate with a data descriptor), read entry by entry from
//!   a socket-like source (at most 16 KiB per read, `Pending` before every
//!   read) against lzflow's seekable reader on the same bytes in memory.
//!
//! The archives are written at the start of the run by the `zip` crate
//! from fixed seeds (Deflate at flate2's default level, 6), so every run
//! reads the same bytes. Ratios are against the first (lzflow) row of each
//! table; below each table the targets are checked.
//!
//! The Deflate decoders behind the peers: the `zip` crate, rawzip (given
//! flate2 here) and async_zip (through async-compression) all decode with
//! flate2 on its zlib-rs backend, as lzflow does; rc-zip decodes with
//! miniz_oxide (it offers nothing else).

use std::fs::File;
use std::io::{self, BufReader, BufWriter, Read, Write};
use std::path::Path;
use std::pin::Pin;
use std::task::{Context, Poll};

use crate::child::{self, alloc_cell, interleave, summarise, ChildSample, Entrant, Summary};
use crate::sevenz::{arg, temp_dir};
use crate::workloads::scaled;

/// Jobs the child processes can run. Every job takes the archive's path
/// first and returns what it read: for the list jobs the sum over entries
/// of name length plus uncompressed size (names alone for `zip-list-zip`,
/// which has no sizes without reading local headers), for the others the
/// data bytes.
pub const JOBS: &[(&str, child::Job)] = &[
    ("zip-list-lzflow", list_lzflow),
    ("zip-list-lzflow-mem", list_lzflow_mem),
    ("zip-list-lzflow-tokio", list_lzflow_tokio),
    ("zip-list-lzflow-stream", list_lzflow_stream),
    ("zip-list-lzflow-stream-tokio", list_lzflow_stream_tokio),
    ("zip-list-zip", list_zip_names),
    ("zip-list-zip-raw", list_zip_raw),
    ("zip-list-rawzip", list_rawzip),
    ("zip-list-rawzip-slice", list_rawzip_slice),
    ("zip-list-rc-zip", list_rc_zip),
    ("zip-list-async-zip", list_async_zip),
    ("zip-read-lzflow", read_lzflow),
    ("zip-read-lzflow-walk", read_lzflow_walk),
    ("zip-read-lzflow-tokio", read_lzflow_tokio),
    ("zip-read-lzflow-tokio-mem", read_lzflow_tokio_mem),
    ("zip-read-zip", read_zip_crate),
    ("zip-read-rawzip", read_rawzip),
    ("zip-read-rc-zip", read_rc_zip),
    ("zip-read-async-zip", read_async_zip),
    ("zip-read-async-zip-mem", read_async_zip_mem),
    ("zip-x-lzflow", extract_lzflow),
    ("zip-x-lzflow-tokio", extract_lzflow_tokio),
    ("zip-x-zip", extract_zip_crate),
    ("zip-fwd-seekable", forward_seekable),
    ("zip-fwd-lzflow", forward_lzflow),
    ("zip-fwd-lzflow-mem", forward_lzflow_mem),
    ("zip-fwd-lzflow-sync", forward_lzflow_sync),
    ("zip-fwd-async-zip", forward_async_zip),
    ("zip-fwd-rc-zip", forward_rc_zip),
];

/// Read buffer of every contestant (on the stack or made before the
/// measurement starts: the harness's buffer is not the contestant's).
const BUF: usize = 64 * 1024;
/// Most bytes the socket-like sources hand over per read.
const TRICKLE: usize = 16 * 1024;

/// Entries of the list and read archive.
const MANY: usize = 100_000;
/// Size of the one entry of the Deflate archive.
const BIG: usize = 200 << 20;
/// Entries of the forward-only archive.
const STREAMED: usize = 10_000;
/// Largest entry of the forward-only archive (sizes are uniform below).
const STREAMED_MAX: usize = 8 << 10;

const SEED_BIG: u64 = 0x21b_0001;
const SEED_STREAMED: u64 = 0x21b_0002;

// ---------------------------------------------------------------------
// Inputs.

/// Words for the text-like data: 2,048 of 2-10 letters from a seeded
/// alphabet walk, drawn with a heavy skew towards the first ones, so the
/// text compresses about as prose does (Deflate about 3:1).
fn vocabulary(rng: &mut fastrand::Rng) -> Vec<Vec<u8>> {
    const LETTERS: &[u8] = b"etaoinshrdlucmfwypvbgkjqxz";
    (0..2048)
        .map(|_| {
            let len = 2 + rng.usize(..9);
            (0..len)
                .map(|_| {
                    // Common letters more often.
                    let r = rng.f32();
                    LETTERS[(r * r * LETTERS.len() as f32) as usize]
                })
                .collect()
        })
        .collect()
}

/// Text-like bytes from a seeded generator: `fill(out, n)` appends `n`
/// bytes of lines of words with punctuation.
struct Text {
    rng: fastrand::Rng,
    words: Vec<Vec<u8>>,
    column: usize,
}

impl Text {
    fn new(seed: u64) -> Self {
        let mut rng = fastrand::Rng::with_seed(seed);
        let words = vocabulary(&mut rng);
        Text {
            rng,
            words,
            column: 0,
        }
    }

    fn fill(&mut self, out: &mut Vec<u8>, n: usize) {
        let end = out.len() + n;
        while out.len() < end {
            let r = self.rng.f32();
            let word = &self.words[(r * r * r * self.words.len() as f32) as usize];
            out.extend_from_slice(word);
            self.column += word.len() + 1;
            if self.column > 72 {
                out.extend_from_slice(b".\n");
                self.column = 0;
            } else if self.rng.u8(..) < 16 {
                out.extend_from_slice(b", ");
            } else {
                out.push(b' ');
            }
        }
        out.truncate(end);
    }
}

/// Options of every entry written: fixed time and mode.
fn entry_options(method: ::zip::CompressionMethod) -> ::zip::write::SimpleFileOptions {
    ::zip::write::SimpleFileOptions::default()
        .compression_method(method)
        .compression_level(None)
        .last_modified_time(::zip::DateTime::default())
        .unix_permissions(0o644)
}

/// Name of entry `i` of the many-entry archive.
fn many_name(i: usize) -> String {
    format!("dir/{i:06}.txt")
}

/// `n` entries `dir/NNNNNN.txt` of one byte each, Stored (as `zip` stores
/// what Deflate cannot shrink). Returns what the list jobs report: names
/// plus sizes.
fn write_many(path: &Path, n: usize) -> io::Result<u64> {
    let mut w = ::zip::ZipWriter::new(BufWriter::new(File::create(path)?));
    let o = entry_options(::zip::CompressionMethod::Stored);
    let mut listed = 0;
    for i in 0..n {
        let name = many_name(i);
        listed += name.len() as u64 + 1;
        w.start_file(name, o).map_err(io::Error::other)?;
        w.write_all(&[b'a' + (i % 26) as u8])?;
    }
    w.finish().map_err(io::Error::other)?.flush()?;
    Ok(listed)
}

/// One entry `big.txt` of `len` text-like bytes, Deflate at flate2's
/// default level.
fn write_big(path: &Path, len: usize, seed: u64) -> io::Result<()> {
    let mut w = ::zip::ZipWriter::new(BufWriter::new(File::create(path)?));
    w.start_file("big.txt", entry_options(::zip::CompressionMethod::Deflated))
        .map_err(io::Error::other)?;
    let mut text = Text::new(seed);
    let mut chunk = Vec::with_capacity(1 << 20);
    let mut left = len;
    while left > 0 {
        let n = left.min(1 << 20);
        chunk.clear();
        text.fill(&mut chunk, n);
        w.write_all(&chunk)?;
        left -= n;
    }
    w.finish().map_err(io::Error::other)?.flush()?;
    Ok(())
}

/// `n` entries `s/NNNNN.txt` of 0 to [`STREAMED_MAX`] text-like bytes,
/// Deflate, written by the `zip` crate's streaming writer (no seeking, so
/// every entry has a data descriptor). Returns the data bytes.
fn write_streamed(path: &Path, n: usize, seed: u64) -> io::Result<u64> {
    let mut w = ::zip::ZipWriter::new_stream(BufWriter::new(File::create(path)?));
    let o = entry_options(::zip::CompressionMethod::Deflated);
    let mut text = Text::new(seed);
    let mut sizes = fastrand::Rng::with_seed(seed ^ 0x5eed);
    let mut data = Vec::with_capacity(STREAMED_MAX);
    let mut total = 0;
    for i in 0..n {
        data.clear();
        text.fill(&mut data, sizes.usize(..=STREAMED_MAX));
        total += data.len() as u64;
        w.start_file(format!("s/{i:05}.txt"), o)
            .map_err(io::Error::other)?;
        w.write_all(&data)?;
    }
    w.finish().map_err(io::Error::other)?.into_inner().flush()?;
    Ok(total)
}

// ---------------------------------------------------------------------
// Shared helpers of the jobs.

fn drain(r: &mut impl Read, buf: &mut [u8]) -> io::Result<u64> {
    let mut n = 0u64;
    loop {
        match r.read(buf) {
            Ok(0) => return Ok(n),
            Ok(k) => n += k as u64,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
}

async fn drain_tokio(
    r: &mut (impl tokio::io::AsyncRead + Unpin),
    buf: &mut [u8],
) -> io::Result<u64> {
    use tokio::io::AsyncReadExt;
    let mut n = 0u64;
    loop {
        match r.read(buf).await? {
            0 => return Ok(n),
            k => n += k as u64,
        }
    }
}

async fn drain_futures(
    r: &mut (impl futures::io::AsyncRead + Unpin),
    buf: &mut [u8],
) -> io::Result<u64> {
    use futures::io::AsyncReadExt;
    let mut n = 0u64;
    loop {
        match r.read(buf).await? {
            0 => return Ok(n),
            k => n += k as u64,
        }
    }
}

/// A current-thread tokio runtime (blocking pool for `tokio::fs`), made
/// before the measurement starts.
fn runtime() -> io::Result<tokio::runtime::Runtime> {
    tokio::runtime::Builder::new_current_thread().build()
}

fn archive(args: &[String]) -> io::Result<&str> {
    arg(args, 0, "archive")
}

fn other(e: impl std::error::Error + Send + Sync + 'static) -> io::Error {
    io::Error::other(e)
}

/// A socket-like tokio source over bytes in memory: every read is
/// `Pending` first (waking itself at once, as a socket whose next segment
/// has just arrived) and then hands over at most [`TRICKLE`] bytes.
struct Trickle {
    data: Vec<u8>,
    pos: usize,
    pending: bool,
}

impl Trickle {
    fn new(data: Vec<u8>) -> Self {
        Trickle {
            data,
            pos: 0,
            pending: true,
        }
    }
}

impl tokio::io::AsyncRead for Trickle {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut tokio::io::ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        if this.pending {
            this.pending = false;
            cx.waker().wake_by_ref();
            return Poll::Pending;
        }
        this.pending = true;
        let n = buf.remaining().min(TRICKLE).min(this.data.len() - this.pos);
        buf.put_slice(&this.data[this.pos..this.pos + n]);
        this.pos += n;
        Poll::Ready(Ok(()))
    }
}

/// The blocking twin of [`Trickle`]: at most [`TRICKLE`] bytes per read.
struct SyncTrickle<'a>(&'a [u8]);

impl Read for SyncTrickle<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = buf.len().min(TRICKLE).min(self.0.len());
        buf[..n].copy_from_slice(&self.0[..n]);
        self.0 = &self.0[n..];
        Ok(n)
    }
}

// ---------------------------------------------------------------------
// (a) Listing: open, then every entry's name and size.

fn list_directory(d: &lzflow::zip::CentralDirectory) -> u64 {
    d.iter()
        .map(|e| e.name_bytes().len() as u64 + e.uncompressed_size())
        .sum()
}

/// lzflow's `ZipArchive` over the file.
fn list_lzflow(args: &[String]) -> io::Result<u64> {
    let a = lzflow::zip::ZipArchive::open(File::open(archive(args)?)?)?;
    Ok(list_directory(a.directory()))
}

/// lzflow's `ZipArchive` over the archive in memory (read before the
/// measurement starts).
fn list_lzflow_mem(args: &[String]) -> io::Result<u64> {
    let bytes = std::fs::read(archive(args)?)?;
    child::measure_from_here();
    let a = lzflow::zip::ZipArchive::open(io::Cursor::new(&bytes[..]))?;
    Ok(list_directory(a.directory()))
}

/// lzflow's tokio `AsyncZipArchive` over a `tokio::fs::File`.
fn list_lzflow_tokio(args: &[String]) -> io::Result<u64> {
    let rt = runtime()?;
    child::measure_from_here();
    rt.block_on(async {
        let f = tokio::fs::File::open(archive(args)?).await?;
        let a = lzflow::zip::AsyncZipArchive::open(f).await?;
        Ok(list_directory(a.directory()))
    })
}

/// lzflow's `CentralDirectoryReader` over the file: the directory streamed
/// through one window, nothing held.
fn list_lzflow_stream(args: &[String]) -> io::Result<u64> {
    let mut list = lzflow::zip::CentralDirectoryReader::open(File::open(archive(args)?)?)?;
    let mut n = 0;
    while let Some(e) = list.next_entry()? {
        n += e.name_bytes().len() as u64 + e.uncompressed_size();
    }
    Ok(n)
}

/// lzflow's tokio `AsyncCentralDirectoryReader` over a `tokio::fs::File`.
fn list_lzflow_stream_tokio(args: &[String]) -> io::Result<u64> {
    let rt = runtime()?;
    child::measure_from_here();
    rt.block_on(async {
        let f = tokio::fs::File::open(archive(args)?).await?;
        let mut list = lzflow::zip::AsyncCentralDirectoryReader::open(f).await?;
        let mut n = 0;
        while let Some(e) = list.next_entry().await? {
            n += e.name_bytes().len() as u64 + e.uncompressed_size();
        }
        Ok(n)
    })
}

/// The `zip` crate's best: `ZipArchive::new` (which parses every central
/// header) and `file_names`, names alone (sizes need `by_index*`, which
/// reads each local header). The `zip` crate jobs read the `File` itself:
/// through a `BufReader` they were no faster (its buffer is dropped on
/// every seek).
fn list_zip_names(args: &[String]) -> io::Result<u64> {
    let a = ::zip::ZipArchive::new(File::open(archive(args)?)?).map_err(other)?;
    Ok(a.file_names().map(|n| n.len() as u64).sum())
}

/// The `zip` crate with sizes: `by_index_raw` for every entry.
fn list_zip_raw(args: &[String]) -> io::Result<u64> {
    let mut a = ::zip::ZipArchive::new(File::open(archive(args)?)?).map_err(other)?;
    let mut n = 0;
    for i in 0..a.len() {
        let f = a.by_index_raw(i).map_err(other)?;
        n += f.name_raw().len() as u64 + f.size();
    }
    Ok(n)
}

/// rawzip's file reader: the central directory streamed through one
/// buffer, nothing materialised.
fn list_rawzip(args: &[String]) -> io::Result<u64> {
    let mut buf = vec![0u8; rawzip::RECOMMENDED_BUFFER_SIZE];
    let a = rawzip::ZipArchive::from_file(File::open(archive(args)?)?, &mut buf).map_err(other)?;
    let mut entries = a.entries(&mut buf);
    let mut n = 0;
    while let Some(e) = entries.next_entry().map_err(other)? {
        n += e.file_path().as_bytes().len() as u64 + e.uncompressed_size_hint();
    }
    Ok(n)
}

/// rawzip over the archive in memory (read before the measurement starts).
fn list_rawzip_slice(args: &[String]) -> io::Result<u64> {
    let bytes = std::fs::read(archive(args)?)?;
    child::measure_from_here();
    let a = rawzip::ZipArchive::from_slice(&bytes[..]).map_err(other)?;
    let mut entries = a.entries();
    let mut n = 0;
    while let Some(e) = entries.next_entry().map_err(other)? {
        n += e.file_path().as_bytes().len() as u64 + e.uncompressed_size_hint();
    }
    Ok(n)
}

/// rc-zip's sync face over the file.
fn list_rc_zip(args: &[String]) -> io::Result<u64> {
    use rc_zip_sync::ReadZip;
    let f = File::open(archive(args)?)?;
    let a = f.read_zip().map_err(other)?;
    Ok(a.entries()
        .map(|e| e.name.len() as u64 + e.uncompressed_size)
        .sum())
}

/// async_zip's seek reader (`read1`, its current API, default options:
/// every check on) over a buffered `tokio::fs::File`.
async fn open_async_zip(
    path: &str,
) -> io::Result<async_zip::base::read1::seek::ZipArchiveReader<AsyncZipSource>> {
    use tokio_util::compat::TokioAsyncReadCompatExt;
    let f = tokio::io::BufReader::new(tokio::fs::File::open(path).await?).compat();
    async_zip::base::read1::seek::ZipArchiveReader::open(f)
        .await
        .map_err(other)
}

/// What async_zip reads from: a tokio file behind tokio's `BufReader`, as
/// futures-io.
type AsyncZipSource = tokio_util::compat::Compat<tokio::io::BufReader<tokio::fs::File>>;

fn list_async_zip(args: &[String]) -> io::Result<u64> {
    let rt = runtime()?;
    child::measure_from_here();
    rt.block_on(async {
        let a = open_async_zip(archive(args)?).await?;
        let mut n = 0;
        for e in a.cdrs() {
            n += e.insecure_file_name.as_bytes().len() as u64
                + e.uncompressed_size().map_err(other)?;
        }
        Ok(n)
    })
}

// ---------------------------------------------------------------------
// (b) and (c): every entry's data into one reused buffer.

fn read_all_lzflow<R: Read + io::Seek>(a: &mut lzflow::zip::ZipArchive<R>) -> io::Result<u64> {
    let mut buf = [0u8; BUF];
    let mut total = 0;
    for i in 0..a.len() {
        total += drain(&mut a.reader(i)?, &mut buf)?;
    }
    Ok(total)
}

/// lzflow's `ZipArchive` over the file: open, then every entry.
fn read_lzflow(args: &[String]) -> io::Result<u64> {
    let mut a = lzflow::zip::ZipArchive::open(File::open(archive(args)?)?)?;
    read_all_lzflow(&mut a)
}

/// The walk alone: the archive in memory, opened before the measurement
/// starts (what reading entries costs per entry).
fn read_lzflow_walk(args: &[String]) -> io::Result<u64> {
    let bytes = std::fs::read(archive(args)?)?;
    let mut a = lzflow::zip::ZipArchive::open(io::Cursor::new(&bytes[..]))?;
    child::measure_from_here();
    read_all_lzflow(&mut a)
}

async fn read_all_lzflow_tokio<R>(
    a: &mut lzflow::zip::AsyncZipArchive<R>,
    buf: &mut [u8],
) -> io::Result<u64>
where
    R: tokio::io::AsyncRead + tokio::io::AsyncSeek + Unpin,
{
    let mut total = 0;
    for i in 0..a.len() {
        total += drain_tokio(&mut a.reader(i).await?, buf).await?;
    }
    Ok(total)
}

/// lzflow's tokio `AsyncZipArchive` over a `tokio::fs::File` (as its docs
/// open one).
fn read_lzflow_tokio(args: &[String]) -> io::Result<u64> {
    let rt = runtime()?;
    let mut buf = vec![0u8; BUF];
    child::measure_from_here();
    rt.block_on(async {
        let f = tokio::fs::File::open(archive(args)?).await?;
        let mut a = lzflow::zip::AsyncZipArchive::open(f).await?;
        read_all_lzflow_tokio(&mut a, &mut buf).await
    })
}

/// lzflow's tokio `AsyncZipArchive` over the archive in memory (a
/// `Cursor`, read before the measurement starts): the library's per-entry
/// cost without tokio's blocking pool, which a `tokio::fs::File` visits on
/// every seek and read.
fn read_lzflow_tokio_mem(args: &[String]) -> io::Result<u64> {
    let rt = runtime()?;
    let bytes = std::fs::read(archive(args)?)?;
    let mut buf = vec![0u8; BUF];
    child::measure_from_here();
    rt.block_on(async {
        let mut a = lzflow::zip::AsyncZipArchive::open(io::Cursor::new(bytes)).await?;
        read_all_lzflow_tokio(&mut a, &mut buf).await
    })
}

/// The `zip` crate: `by_index` for every entry (checks the CRC-32).
fn read_zip_crate(args: &[String]) -> io::Result<u64> {
    let mut a = ::zip::ZipArchive::new(File::open(archive(args)?)?).map_err(other)?;
    let mut buf = [0u8; BUF];
    let mut total = 0;
    for i in 0..a.len() {
        total += drain(&mut a.by_index(i).map_err(other)?, &mut buf)?;
    }
    Ok(total)
}

/// rawzip's file reader, flate2 (zlib-rs) for Deflate entries, its
/// verifying reader checking size and CRC-32.
fn read_rawzip(args: &[String]) -> io::Result<u64> {
    let mut dir_buf = vec![0u8; rawzip::RECOMMENDED_BUFFER_SIZE];
    let a =
        rawzip::ZipArchive::from_file(File::open(archive(args)?)?, &mut dir_buf).map_err(other)?;
    let mut entries = a.entries(&mut dir_buf);
    let mut buf = [0u8; BUF];
    let mut total = 0;
    while let Some(e) = entries.next_entry().map_err(other)? {
        let method = e.compression_method();
        let entry = a.get_entry(e.wayfinder()).map_err(other)?;
        total += if method == rawzip::CompressionMethod::STORE {
            drain(&mut entry.verifying_reader(entry.reader()), &mut buf)?
        } else if method == rawzip::CompressionMethod::DEFLATE {
            let inflate =
                flate2::bufread::DeflateDecoder::new(BufReader::with_capacity(BUF, entry.reader()));
            drain(&mut entry.verifying_reader(inflate), &mut buf)?
        } else {
            return Err(io::Error::other("rawzip job: neither Stored nor Deflate"));
        };
    }
    Ok(total)
}

/// rc-zip's sync face over the file (miniz_oxide for Deflate).
fn read_rc_zip(args: &[String]) -> io::Result<u64> {
    use rc_zip_sync::ReadZip;
    let f = File::open(archive(args)?)?;
    let a = f.read_zip().map_err(other)?;
    let mut buf = [0u8; BUF];
    let mut total = 0;
    for e in a.entries() {
        total += drain(&mut e.reader(), &mut buf)?;
    }
    Ok(total)
}

async fn read_all_async_zip<R>(
    a: &mut async_zip::base::read1::seek::ZipArchiveReader<R>,
    buf: &mut [u8],
) -> io::Result<u64>
where
    R: futures::io::AsyncBufRead + futures::io::AsyncSeek + Unpin,
{
    let mut total = 0;
    for i in 0..a.cdrs().len() {
        let mut r = a.file(i).await.map_err(other)?;
        total += drain_futures(&mut r, buf).await?;
    }
    Ok(total)
}

/// async_zip's seek reader over a buffered `tokio::fs::File`
/// (async-compression, flate2 on zlib-rs, for Deflate; checks the CRC-32
/// at the end of each entry).
fn read_async_zip(args: &[String]) -> io::Result<u64> {
    let rt = runtime()?;
    let mut buf = vec![0u8; BUF];
    child::measure_from_here();
    rt.block_on(async {
        let mut a = open_async_zip(archive(args)?).await?;
        read_all_async_zip(&mut a, &mut buf).await
    })
}

/// async_zip's seek reader over the archive in memory (a futures-io
/// `Cursor`, read before the measurement starts).
fn read_async_zip_mem(args: &[String]) -> io::Result<u64> {
    let rt = runtime()?;
    let bytes = std::fs::read(archive(args)?)?;
    let mut buf = vec![0u8; BUF];
    child::measure_from_here();
    rt.block_on(async {
        let src = futures::io::Cursor::new(bytes);
        let mut a = async_zip::base::read1::seek::ZipArchiveReader::open(src)
            .await
            .map_err(other)?;
        read_all_async_zip(&mut a, &mut buf).await
    })
}

// ---------------------------------------------------------------------
// (b) on disk: `<archive> <empty output dir>`; returns the entries' size.

/// lzflow's `extract_to_with` (what `lzflow x` runs), default options.
fn extract_lzflow(args: &[String]) -> io::Result<u64> {
    let out = arg(args, 1, "output directory")?;
    let mut a = lzflow::zip::ZipArchive::open(File::open(archive(args)?)?)?;
    let total = a.directory().iter().map(|e| e.uncompressed_size()).sum();
    a.extract_to_with(out, &lzflow::zip::ExtractOptions::default())?;
    Ok(total)
}

/// lzflow's tokio `AsyncZipArchive::extract_to_with` (the file-system
/// calls on the extraction's own thread), default options, over the
/// archive read into memory first: a `tokio::fs::File` would add a trip
/// to tokio's blocking pool for every entry (0.5 s for 10,000 entries
/// here, reading alone).
fn extract_lzflow_tokio(args: &[String]) -> io::Result<u64> {
    let out = arg(args, 1, "output directory")?;
    let bytes = std::fs::read(archive(args)?)?;
    let rt = runtime()?;
    child::measure_from_here();
    rt.block_on(async {
        let mut a = lzflow::zip::AsyncZipArchive::open(io::Cursor::new(bytes)).await?;
        let total = a.directory().iter().map(|e| e.uncompressed_size()).sum();
        a.extract_to_with(out, &lzflow::zip::ExtractOptions::default())
            .await?;
        Ok(total)
    })
}

/// The `zip` crate's `extract`.
fn extract_zip_crate(args: &[String]) -> io::Result<u64> {
    let out = arg(args, 1, "output directory")?;
    let mut a = ::zip::ZipArchive::new(File::open(archive(args)?)?).map_err(other)?;
    let total = a.decompressed_size().unwrap_or(0) as u64;
    a.extract(out).map_err(other)?;
    Ok(total)
}

// ---------------------------------------------------------------------
// (d) Forward-only: the archive read into memory before the measurement.

/// lzflow's seekable `AsyncZipArchive` over a `Cursor` (the baseline).
fn forward_seekable(args: &[String]) -> io::Result<u64> {
    let rt = runtime()?;
    let bytes = std::fs::read(archive(args)?)?;
    let mut buf = vec![0u8; BUF];
    child::measure_from_here();
    rt.block_on(async {
        let mut a = lzflow::zip::AsyncZipArchive::open(io::Cursor::new(bytes)).await?;
        let mut total = 0;
        for i in 0..a.len() {
            total += drain_tokio(&mut a.reader(i).await?, &mut buf).await?;
        }
        Ok(total)
    })
}

async fn forward_tokio<R: tokio::io::AsyncRead + Unpin>(src: R, buf: &mut [u8]) -> io::Result<u64> {
    let mut z = lzflow::zip::AsyncZipStreamReader::new(src);
    let mut total = 0;
    while let Some(mut e) = z.next_entry().await? {
        total += drain_tokio(&mut e, buf).await?;
    }
    Ok(total)
}

/// lzflow's `AsyncZipStreamReader` over the socket-like [`Trickle`].
fn forward_lzflow(args: &[String]) -> io::Result<u64> {
    let rt = runtime()?;
    let src = Trickle::new(std::fs::read(archive(args)?)?);
    let mut buf = vec![0u8; BUF];
    child::measure_from_here();
    rt.block_on(forward_tokio(src, &mut buf))
}

/// lzflow's `AsyncZipStreamReader` over the whole archive as one slice.
fn forward_lzflow_mem(args: &[String]) -> io::Result<u64> {
    let rt = runtime()?;
    let bytes = std::fs::read(archive(args)?)?;
    let mut buf = vec![0u8; BUF];
    child::measure_from_here();
    rt.block_on(forward_tokio(&bytes[..], &mut buf))
}

/// lzflow's blocking `ZipStreamReader` over 16 KiB reads.
fn forward_lzflow_sync(args: &[String]) -> io::Result<u64> {
    let bytes = std::fs::read(archive(args)?)?;
    child::measure_from_here();
    let mut z = lzflow::zip::ZipStreamReader::new(SyncTrickle(&bytes));
    let mut buf = [0u8; BUF];
    let mut total = 0;
    while let Some(mut e) = z.next_entry()? {
        total += drain(&mut e, &mut buf)?;
    }
    Ok(total)
}

/// async_zip's stream reader over the [`Trickle`] (it needs an
/// `AsyncBufRead`: tokio's `BufReader`, 16 KiB).
fn forward_async_zip(args: &[String]) -> io::Result<u64> {
    let rt = runtime()?;
    let src = Trickle::new(std::fs::read(archive(args)?)?);
    let mut buf = vec![0u8; BUF];
    child::measure_from_here();
    rt.block_on(async {
        let src = tokio::io::BufReader::with_capacity(TRICKLE, src);
        let mut z = async_zip::base::read::stream::ZipFileReader::with_tokio(src);
        let mut total = 0;
        while let Some(mut e) = z.next_without_entry().await.map_err(other)? {
            total += drain_futures(e.reader_mut(), &mut buf).await?;
            z = e.done().await.map_err(other)?;
        }
        Ok(total)
    })
}

/// rc-zip's blocking streaming reader over 16 KiB reads. It feeds the
/// decoder as many bytes as the local header's compressed size, which is 0
/// when a data descriptor follows, so it fails on this archive (4.4.2);
/// the row stays to say so.
fn forward_rc_zip(args: &[String]) -> io::Result<u64> {
    use rc_zip_sync::ReadZipStreaming;
    let bytes = std::fs::read(archive(args)?)?;
    child::measure_from_here();
    let mut buf = [0u8; BUF];
    let mut total = 0;
    let mut next = Some(
        SyncTrickle(&bytes)
            .stream_zip_entries_throwing_caution_to_the_wind()
            .map_err(other)?,
    );
    while let Some(mut e) = next {
        total += drain(&mut e, &mut buf)?;
        next = e.finish().map_err(other)?;
    }
    Ok(total)
}

// ---------------------------------------------------------------------
// The tables.

/// What a table's throughput column counts.
#[derive(Clone, Copy)]
enum Per {
    /// Thousands of entries per second.
    Entries(u64),
    /// MB of data per second.
    Bytes(u64),
}

fn print_header(first: &str, per: Per) {
    let unit = match per {
        Per::Entries(_) => "k entries/s",
        Per::Bytes(_) => "MB/s",
    };
    println!(
        "{:<32} {:>10} {:>11} {:>8} {:>13} {:>9} {:>10} {:>9}",
        first, "median ms", unit, "ratio", "alloc B/op", "allocs/op", "peak RSS", "RSS+"
    );
}

type Results = Vec<Result<Vec<ChildSample>, String>>;

fn summary(results: &Results, i: usize) -> Option<Summary> {
    results[i].as_ref().ok().map(|v| summarise(v))
}

/// Prints a table's rows, ratios against row 0.
fn print_rows(labels: &[&str], results: &Results, per: Per) {
    let base = summary(results, 0).map(|s| s.time);
    for (i, (name, r)) in labels.iter().zip(results).enumerate() {
        let v = match r {
            Err(why) => {
                // The child's last stderr line, cut to fit a row.
                let why: String = why.chars().take(150).collect();
                println!("{name:<32} failed: {why}");
                continue;
            }
            Ok(v) => v,
        };
        let sm = summarise(v);
        let ext = v[0].external;
        let secs = sm.time.as_secs_f64();
        let rate = match per {
            Per::Entries(n) => n as f64 / secs / 1e3,
            Per::Bytes(n) => n as f64 / secs / 1e6,
        };
        let ratio = match base {
            Some(b) if i > 0 => format!("{:.3}x", secs / b.as_secs_f64()),
            Some(_) => "1.000x".to_string(),
            None => "-".to_string(),
        };
        let plus = if ext {
            "-".to_string()
        } else {
            format!("{:.1}MiB", sm.rss_plus_kib as f64 / 1024.0)
        };
        println!(
            "{:<32} {:>10.2} {:>11.1} {:>8} {:>13} {:>9} {:>7.1}MiB {:>9}",
            name,
            secs * 1e3,
            rate,
            ratio,
            alloc_cell(sm.alloc_bytes, ext),
            alloc_cell(sm.alloc_count, ext),
            sm.peak_rss_kib as f64 / 1024.0,
            plus
        );
    }
}

/// One target line: `ours / theirs` against `bound`. `at_most`: the
/// ratio must not exceed the bound (else it must reach it).
fn target(
    results: &Results,
    labels: &[&str],
    ours: usize,
    theirs: usize,
    bound: f64,
    at_most: bool,
) {
    let (Some(a), Some(b)) = (summary(results, ours), summary(results, theirs)) else {
        println!(
            "  target {} vs {}: not measured",
            labels[ours], labels[theirs]
        );
        return;
    };
    let r = a.time.as_secs_f64() / b.time.as_secs_f64();
    let met = if at_most { r <= bound } else { r >= bound };
    println!(
        "  target: {} / {} = {:.3}x ({} {:.2}x): {}",
        labels[ours],
        labels[theirs],
        r,
        if at_most { "≤" } else { "≥" },
        bound,
        if met { "met" } else { "MISSED" }
    );
}

/// Runs `entrants` interleaved; every in-process row must report `want(i)`
/// bytes.
fn run(entrants: &[Entrant], rounds: usize, want: impl Fn(usize) -> u64) -> io::Result<Results> {
    interleave(
        entrants,
        rounds,
        |_| Ok(()),
        |i, c| {
            if c.external || c.out_bytes == want(i) {
                Ok(())
            } else {
                Err(format!("wrong size {} (want {})", c.out_bytes, want(i)))
            }
        },
    )
}

fn s(p: &Path) -> String {
    p.to_string_lossy().into_owned()
}

fn job(name: &'static str, args: &[String]) -> Entrant {
    Entrant::Job(name, args.to_vec())
}

fn cmd(dir: &Path, prog: &str, args: &[&str]) -> Entrant {
    Entrant::Cmd(
        s(dir),
        prog.to_string(),
        args.iter().map(|a| a.to_string()).collect(),
    )
}

/// (a) Listing the many-entry archive.
fn list_table(dir: &Path, n: usize, listed: u64, rounds: usize) -> io::Result<()> {
    let a = [s(&dir.join("many.zip"))];
    let names: u64 = (0..n).map(|i| many_name(i).len() as u64).sum();
    let rows: Vec<(&str, Entrant)> = vec![
        (
            "lzflow CentralDirectoryReader (file)",
            job("zip-list-lzflow-stream", &a),
        ),
        ("lzflow ZipArchive (file)", job("zip-list-lzflow", &a)),
        ("lzflow ZipArchive (memory)", job("zip-list-lzflow-mem", &a)),
        (
            "lzflow AsyncCentralDirectoryReader (tokio)",
            job("zip-list-lzflow-stream-tokio", &a),
        ),
        (
            "lzflow AsyncZipArchive (tokio)",
            job("zip-list-lzflow-tokio", &a),
        ),
        ("zip crate file_names", job("zip-list-zip", &a)),
        ("zip crate by_index_raw", job("zip-list-zip-raw", &a)),
        ("rawzip from_file", job("zip-list-rawzip", &a)),
        (
            "rawzip from_slice (memory)",
            job("zip-list-rawzip-slice", &a),
        ),
        ("rc-zip-sync (file)", job("zip-list-rc-zip", &a)),
        ("async_zip seek (tokio)", job("zip-list-async-zip", &a)),
        ("unzip -l", cmd(dir, "unzip", &["-l", "many.zip"])),
        ("7zz l", cmd(dir, "7zz", &["l", "many.zip"])),
    ];
    let (labels, entrants): (Vec<&str>, Vec<Entrant>) = rows.into_iter().unzip();
    let results = run(&entrants, rounds, |i| if i == 5 { names } else { listed })?;
    println!("(a) list: open + every name and size, {n} entries `dir/NNNNNN.txt`");
    print_header("list", Per::Entries(n as u64));
    print_rows(&labels, &results, Per::Entries(n as u64));
    // Listing: the streamed reader against the peers' listing APIs.
    target(&results, &labels, 0, 5, 0.25, true);
    target(&results, &labels, 0, 6, 0.25, true);
    target(&results, &labels, 0, 7, 1.5, true);
    // Opening for random access (the whole directory held), for reference.
    target(&results, &labels, 1, 7, 1.5, true);
    target(&results, &labels, 2, 8, 1.5, true);
    Ok(())
}

/// Prints lzflow's allocations per entry of the read table's rows.
fn per_entry(labels: &[&str], results: &Results, rows: &[usize], n: usize) {
    for &i in rows {
        if let Some(sm) = summary(results, i) {
            println!(
                "  allocated per entry, {}: {:.1} B in {:.2} allocations",
                labels[i],
                sm.alloc_bytes as f64 / n as f64,
                sm.alloc_count as f64 / n as f64
            );
        }
    }
}

/// (b) Every entry's data of the many-entry archive, in memory and to
/// disk.
fn read_table(dir: &Path, n: usize, rounds: usize) -> io::Result<()> {
    let a = [s(&dir.join("many.zip"))];
    let rows: Vec<(&str, Entrant)> = vec![
        ("lzflow ZipArchive (file)", job("zip-read-lzflow", &a)),
        ("lzflow warm", job("zip-read-lzflow:warm", &a)),
        (
            "lzflow walk (memory) warm",
            job("zip-read-lzflow-walk:warm", &a),
        ),
        (
            "lzflow AsyncZipArchive (memory)",
            job("zip-read-lzflow-tokio-mem", &a),
        ),
        ("zip crate by_index", job("zip-read-zip", &a)),
        ("rawzip from_file", job("zip-read-rawzip", &a)),
        ("rc-zip-sync (file)", job("zip-read-rc-zip", &a)),
        ("async_zip seek (memory)", job("zip-read-async-zip-mem", &a)),
    ];
    let (labels, entrants): (Vec<&str>, Vec<Entrant>) = rows.into_iter().unzip();
    let results = run(&entrants, rounds, |_| n as u64)?;
    println!("(b) read: every entry's data into one reused buffer, {n} one-byte Stored entries");
    print_header("read (memory)", Per::Entries(n as u64));
    print_rows(&labels, &results, Per::Entries(n as u64));
    target(&results, &labels, 0, 4, 0.5, true);
    per_entry(&labels, &results, &[0, 1, 2], n);
    Ok(())
}

/// Files and bytes below `dir`.
fn tree_size(dir: &Path) -> io::Result<(u64, u64)> {
    let (mut files, mut bytes) = (0, 0);
    for e in std::fs::read_dir(dir)? {
        let e = e?;
        let t = e.file_type()?;
        if t.is_dir() {
            let (f, b) = tree_size(&e.path())?;
            files += f;
            bytes += b;
        } else {
            files += 1;
            bytes += e.metadata()?.len();
        }
    }
    Ok((files, bytes))
}

/// (b) on disk: extraction of a 10,000-entry archive like the read
/// table's into an empty directory (emptied, untimed, before every run).
fn disk_table(dir: &Path, n: usize, rounds: usize) -> io::Result<()> {
    let out = dir.join("x-out");
    let (arc, o) = (s(&dir.join("disk.zip")), s(&out));
    let a = [arc, o.clone()];
    let seven_out = format!("-o{o}");
    let rows: Vec<(&str, Entrant)> = vec![
        ("lzflow extract_to_with", job("zip-x-lzflow", &a)),
        ("zip crate extract", job("zip-x-zip", &a)),
        (
            "lzflow tokio (archive in memory)",
            job("zip-x-lzflow-tokio", &a),
        ),
        (
            "unzip -q -o -d",
            cmd(dir, "unzip", &["-q", "-o", "disk.zip", "-d", &o]),
        ),
        (
            "7zz x -y",
            cmd(
                dir,
                "7zz",
                &["x", "-y", "-bsp0", "-bso0", &seven_out, "disk.zip"],
            ),
        ),
    ];
    let (labels, entrants): (Vec<&str>, Vec<Entrant>) = rows.into_iter().unzip();
    let fresh = || -> io::Result<()> {
        if out.exists() {
            std::fs::remove_dir_all(&out)?;
        }
        std::fs::create_dir_all(&out)
    };
    let results = interleave(
        &entrants,
        rounds,
        |_| fresh(),
        |_, c| {
            // After the warm-up run: the tree must hold every entry.
            let want = (n as u64, n as u64);
            match tree_size(&out) {
                Ok(got) if got == want && (c.external || c.out_bytes == n as u64) => Ok(()),
                Ok(got) => Err(format!("wrote {got:?} (files, bytes), want {want:?}")),
                Err(e) => Err(e.to_string()),
            }
        },
    )?;
    let _ = std::fs::remove_dir_all(&out);
    println!(
        "(b) extract to disk: {n} one-byte Stored entries `dir/NNNNNN.txt` into an empty directory"
    );
    print_header("extract (disk)", Per::Entries(n as u64));
    print_rows(&labels, &results, Per::Entries(n as u64));
    target(&results, &labels, 0, 1, 0.5, true);
    Ok(())
}

/// (c) One large Deflate entry, decoded and discarded.
fn big_table(dir: &Path, len: usize, rounds: usize) -> io::Result<()> {
    let a = [s(&dir.join("big.zip"))];
    let packed = std::fs::metadata(dir.join("big.zip"))?.len();
    let rows: Vec<(&str, Entrant)> = vec![
        ("lzflow ZipArchive (file)", job("zip-read-lzflow", &a)),
        (
            "lzflow AsyncZipArchive (tokio)",
            job("zip-read-lzflow-tokio", &a),
        ),
        ("zip crate (flate2 zlib-rs)", job("zip-read-zip", &a)),
        ("rawzip + flate2 zlib-rs", job("zip-read-rawzip", &a)),
        ("rc-zip-sync (miniz_oxide)", job("zip-read-rc-zip", &a)),
        ("async_zip (flate2 zlib-rs)", job("zip-read-async-zip", &a)),
        ("unzip -p >/dev/null", cmd(dir, "unzip", &["-p", "big.zip"])),
        (
            "7zz e -so >/dev/null",
            cmd(dir, "7zz", &["e", "-so", "-bsp0", "big.zip"]),
        ),
    ];
    let (labels, entrants): (Vec<&str>, Vec<Entrant>) = rows.into_iter().unzip();
    let results = run(&entrants, rounds, |_| len as u64)?;
    println!(
        "(c) one Deflate entry: {} MiB text-like, level 6, packed {packed} bytes",
        len >> 20
    );
    print_header("inflate (discard)", Per::Bytes(len as u64));
    print_rows(&labels, &results, Per::Bytes(len as u64));
    target(&results, &labels, 0, 2, 1.0, true);
    target(&results, &labels, 0, 6, 1.0, true);
    Ok(())
}

/// (d) Forward-only reading of the data-descriptor archive.
fn forward_table(dir: &Path, n: usize, total: u64, rounds: usize) -> io::Result<()> {
    let a = [s(&dir.join("stream.zip"))];
    let rows: Vec<(&str, Entrant)> = vec![
        ("lzflow AsyncZipArchive (seek)", job("zip-fwd-seekable", &a)),
        ("lzflow AsyncZipStreamReader", job("zip-fwd-lzflow", &a)),
        ("lzflow stream (one slice)", job("zip-fwd-lzflow-mem", &a)),
        (
            "lzflow ZipStreamReader (sync)",
            job("zip-fwd-lzflow-sync", &a),
        ),
        ("async_zip stream", job("zip-fwd-async-zip", &a)),
        ("rc-zip-sync streaming (sync)", job("zip-fwd-rc-zip", &a)),
    ];
    let (labels, entrants): (Vec<&str>, Vec<Entrant>) = rows.into_iter().unzip();
    let results = run(&entrants, rounds, |_| total)?;
    let packed = std::fs::metadata(dir.join("stream.zip"))?.len();
    println!(
        "(d) forward-only: {n} Deflate entries with data descriptors, {total} bytes (packed {packed}); \
         socket-like source: ≤ {} KiB per read, Pending before each (sync rows: ≤ {} KiB reads)",
        TRICKLE >> 10,
        TRICKLE >> 10
    );
    print_header("forward-only (memory source)", Per::Bytes(total));
    print_rows(&labels, &results, Per::Bytes(total));
    target(&results, &labels, 1, 0, 1.05, true);
    Ok(())
}

/// Prints the four tables.
pub fn compare_zip(rounds: usize) -> io::Result<()> {
    let dir = temp_dir("zip")?;
    eprintln!("building the archives in {}…", dir.display());
    let t = std::time::Instant::now();
    let n = scaled(MANY);
    let listed = write_many(&dir.join("many.zip"), n)?;
    let big = scaled(BIG);
    write_big(&dir.join("big.zip"), big, SEED_BIG)?;
    let streamed = scaled(STREAMED);
    let streamed_total = write_streamed(&dir.join("stream.zip"), streamed, SEED_STREAMED)?;
    let on_disk = scaled(ON_DISK);
    write_many(&dir.join("disk.zip"), on_disk)?;
    eprintln!("built in {:.1} s", t.elapsed().as_secs_f64());
    list_table(&dir, n, listed, rounds)?;
    println!();
    read_table(&dir, n, rounds)?;
    println!();
    disk_table(&dir, on_disk, rounds.min(DISK_ROUNDS))?;
    println!();
    big_table(&dir, big, rounds)?;
    println!();
    forward_table(&dir, streamed, streamed_total, rounds)?;
    let _ = std::fs::remove_dir_all(&dir);
    Ok(())
}

/// Entries of the archive extracted to disk (the first of the list and
/// read archive's names): at 100,000 one run took 25 s here, nearly all
/// of it in the kernel.
const ON_DISK: usize = 10_000;
/// Most rounds of the extraction to disk (the directory is emptied,
/// untimed, before each run).
const DISK_ROUNDS: usize = 3;

#[cfg(test)]
mod tests {
    use super::*;

    /// Every in-process job reads tiny generated archives to the exact
    /// count.
    #[test]
    fn jobs_read_tiny_archives() {
        let dir = temp_dir("zip-test").unwrap();
        let (n, big, streamed) = (50, 100_000, 20);
        let listed = write_many(&dir.join("many.zip"), n).unwrap();
        assert_eq!(listed, n as u64 * 15);
        write_big(&dir.join("big.zip"), big, 1).unwrap();
        let total = write_streamed(&dir.join("stream.zip"), streamed, 2).unwrap();
        let many = [s(&dir.join("many.zip"))];
        for job in [
            list_lzflow,
            list_lzflow_mem,
            list_lzflow_tokio,
            list_lzflow_stream,
            list_lzflow_stream_tokio,
            list_zip_raw,
            list_rawzip,
            list_rawzip_slice,
            list_rc_zip,
            list_async_zip,
        ] {
            assert_eq!(job(&many).unwrap(), listed);
        }
        assert_eq!(list_zip_names(&many).unwrap(), n as u64 * 14);
        let readers = [
            read_lzflow,
            read_lzflow_walk,
            read_lzflow_tokio,
            read_lzflow_tokio_mem,
            read_zip_crate,
            read_rawzip,
            read_rc_zip,
            read_async_zip,
            read_async_zip_mem,
        ];
        let big_arc = [s(&dir.join("big.zip"))];
        for job in readers {
            assert_eq!(job(&many).unwrap(), n as u64);
            assert_eq!(job(&big_arc).unwrap(), big as u64);
        }
        let out = dir.join("out");
        for job in [extract_lzflow, extract_zip_crate, extract_lzflow_tokio] {
            let _ = std::fs::remove_dir_all(&out);
            std::fs::create_dir_all(&out).unwrap();
            assert_eq!(job(&[many[0].clone(), s(&out)]).unwrap(), n as u64);
            assert_eq!(tree_size(&out).unwrap(), (n as u64, n as u64));
        }
        // Every entry of the streamed archive has a data descriptor.
        let a = lzflow::zip::ZipArchive::open(File::open(dir.join("stream.zip")).unwrap()).unwrap();
        assert_eq!(a.len(), streamed);
        assert!(a.directory().iter().all(|e| e.has_data_descriptor()));
        let st = [s(&dir.join("stream.zip"))];
        for job in [
            forward_seekable,
            forward_lzflow,
            forward_lzflow_mem,
            forward_lzflow_sync,
            forward_async_zip,
        ] {
            assert_eq!(job(&st).unwrap(), total);
        }
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// The socket-like source is `Pending` before every read and never
    /// hands over more than 16 KiB.
    #[test]
    fn trickle_is_pending_then_short() {
        use tokio::io::{AsyncRead, AsyncReadExt};
        let rt = runtime().unwrap();
        let data: Vec<u8> = (0..40_000u32).map(|i| i as u8).collect();
        let mut t = Trickle::new(data.clone());
        let mut got = Vec::new();
        let mut buf = vec![0u8; 64 << 10];
        rt.block_on(async {
            loop {
                let n = t.read(&mut buf).await.unwrap();
                assert!(n <= TRICKLE);
                if n == 0 {
                    break;
                }
                got.extend_from_slice(&buf[..n]);
            }
        });
        assert_eq!(got, data);
        let waker = futures::task::noop_waker();
        let mut cx = Context::from_waker(&waker);
        let mut t = Trickle::new(vec![1, 2, 3]);
        let mut b = [0u8; 8];
        let mut rb = tokio::io::ReadBuf::new(&mut b);
        assert!(Pin::new(&mut t).poll_read(&mut cx, &mut rb).is_pending());
        assert!(Pin::new(&mut t).poll_read(&mut cx, &mut rb).is_ready());
        assert_eq!(rb.filled(), &[1, 2, 3]);
    }
}
