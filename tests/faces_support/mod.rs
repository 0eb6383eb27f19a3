//! Shared by the face tests: fixtures and their expected content, readers
//! and writers that split and delay I/O, and reference coders the generic
//! faces drive (lzflow's own, behind `io::Error`; the comparisons with the
//! C liblzma live in crates/lzflow-bench/tests).
#![allow(dead_code)]

use std::io::{self, BufRead, Read, Write};
use std::path::{Path, PathBuf};
use std::pin::Pin;
use std::task::{Context, Poll};

use lzflow_core::{Decode, Encode, InBuf, OutBuf, Progress};
use sha2::{Digest, Sha256};

/// One single-stream fixture from `fixtures/generated/MANIFEST.tsv`.
#[derive(Debug, Clone)]
pub struct Fixture {
    pub path: PathBuf,
    pub name: String,
    pub container: String,
    pub coders: String,
    pub ok: bool,
    pub size: u64,
    pub sha256: String,
}

impl Fixture {
    pub fn bytes(&self) -> Vec<u8> {
        std::fs::read(&self.path).unwrap()
    }
}

pub fn generated_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/generated")
}

/// Every fixture of `container` (`xz`, `lzma_alone`, `raw`).
pub fn fixtures(container: &str) -> Vec<Fixture> {
    let text = std::fs::read_to_string(generated_dir().join("MANIFEST.tsv")).unwrap();
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().unwrap().split('\t').collect();
    let col = |name: &str| header.iter().position(|h| *h == name).unwrap();
    let (file, cont, coders, expected, size, sha) = (
        col("file"),
        col("container"),
        col("coders"),
        col("expected"),
        col("entry_size"),
        col("entry_sha256"),
    );
    let out: Vec<Fixture> = lines
        .map(|l| l.split('\t').collect::<Vec<_>>())
        .filter(|f| f[cont] == container)
        .map(|f| Fixture {
            path: generated_dir().join(f[file]),
            name: f[file].to_string(),
            container: f[cont].to_string(),
            coders: f[coders].to_string(),
            ok: f[expected] == "ok",
            size: f[size].parse().unwrap_or(0),
            sha256: f[sha].to_string(),
        })
        .collect();
    assert!(!out.is_empty(), "no {container} fixtures found");
    out
}

pub fn sha256_hex(data: &[u8]) -> String {
    Sha256::digest(data)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// Asserts that `got` is the fixture's expected content.
pub fn assert_content(fx: &Fixture, got: &[u8], how: &str) {
    assert_eq!(got.len() as u64, fx.size, "{}: size via {how}", fx.name);
    assert_eq!(sha256_hex(got), fx.sha256, "{}: sha256 via {how}", fx.name);
}

/// A tiny deterministic generator (xorshift) for split sizes.
#[derive(Debug, Clone)]
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Self {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    /// Uniform in `1..=max`.
    pub fn size(&mut self, max: usize) -> usize {
        1 + (self.next() % max as u64) as usize
    }
}

/// A reader (and `BufRead`) that hands out at most `max` bytes per call,
/// with sizes drawn from a seeded generator (`max == 1`: one byte a call).
pub struct SplitReader {
    data: Vec<u8>,
    pos: usize,
    window: usize,
    max: usize,
    rng: Rng,
}

impl SplitReader {
    pub fn new(data: Vec<u8>, max: usize, seed: u64) -> Self {
        SplitReader {
            data,
            pos: 0,
            window: 0,
            max,
            rng: Rng::new(seed),
        }
    }
    pub fn position(&self) -> usize {
        self.pos
    }
}

impl Read for SplitReader {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self
            .rng
            .size(self.max)
            .min(buf.len())
            .min(self.data.len() - self.pos);
        buf[..n].copy_from_slice(&self.data[self.pos..self.pos + n]);
        self.pos += n;
        Ok(n)
    }
}

impl BufRead for SplitReader {
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        if self.window == 0 {
            self.window = self.rng.size(self.max).min(self.data.len() - self.pos);
        }
        Ok(&self.data[self.pos..self.pos + self.window])
    }
    fn consume(&mut self, n: usize) {
        assert!(n <= self.window);
        self.pos += n;
        self.window -= n;
    }
}

/// A writer that takes at most `max` bytes per call (random sizes).
pub struct SplitWriter {
    pub data: Vec<u8>,
    max: usize,
    rng: Rng,
}

impl SplitWriter {
    pub fn new(max: usize, seed: u64) -> Self {
        SplitWriter {
            data: Vec::new(),
            max,
            rng: Rng::new(seed),
        }
    }
}

impl Write for SplitWriter {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let n = self.rng.size(self.max).min(buf.len());
        self.data.extend_from_slice(&buf[..n]);
        Ok(n)
    }
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// Writes `data` to `w` in random pieces of at most `max` bytes, the way
/// a network server would hand over a body.
pub fn write_in_pieces<W: Write>(w: &mut W, data: &[u8], max: usize, seed: u64) -> io::Result<()> {
    let mut rng = Rng::new(seed);
    let mut pos = 0;
    while pos < data.len() {
        let n = rng.size(max).min(data.len() - pos);
        w.write_all(&data[pos..pos + n])?;
        pos += n;
    }
    Ok(())
}

/// An async reader / buffered reader / writer that returns `Pending`
/// (after waking the waker) before every ready poll, and moves 1..=max
/// bytes per ready poll. Implements both tokio's and futures-io's traits.
pub struct PendingIo {
    data: Vec<u8>,
    pos: usize,
    window: usize,
    max: usize,
    rng: Rng,
    pend: bool,
    /// Never return `Pending` (an always-ready source).
    pub always_ready: bool,
    pub written: Vec<u8>,
    pub shutdowns: usize,
    pub flushes: usize,
}

impl PendingIo {
    pub fn reader(data: Vec<u8>, max: usize, seed: u64) -> Self {
        PendingIo {
            data,
            pos: 0,
            window: 0,
            max,
            rng: Rng::new(seed),
            pend: true,
            always_ready: false,
            written: Vec::new(),
            shutdowns: 0,
            flushes: 0,
        }
    }
    pub fn position(&self) -> usize {
        self.pos
    }
    pub fn writer(max: usize, seed: u64) -> Self {
        Self::reader(Vec::new(), max, seed)
    }
    /// Alternates: `true` means this poll must return `Pending`.
    fn delay(&mut self, cx: &mut Context<'_>) -> bool {
        if self.always_ready {
            return false;
        }
        self.pend = !self.pend;
        if !self.pend {
            cx.waker().wake_by_ref();
        }
        !self.pend
    }
    fn fill(&mut self, cx: &mut Context<'_>) -> Poll<&[u8]> {
        if self.window == 0 {
            if self.delay(cx) {
                return Poll::Pending;
            }
            self.window = self.rng.size(self.max).min(self.data.len() - self.pos);
        }
        Poll::Ready(&self.data[self.pos..self.pos + self.window])
    }
    fn take(&mut self, n: usize) {
        assert!(n <= self.window);
        self.pos += n;
        self.window -= n;
    }
    fn read_into(&mut self, cx: &mut Context<'_>, buf: &mut [u8]) -> Poll<usize> {
        if self.delay(cx) {
            return Poll::Pending;
        }
        let n = self
            .rng
            .size(self.max)
            .min(buf.len())
            .min(self.data.len() - self.pos);
        buf[..n].copy_from_slice(&self.data[self.pos..self.pos + n]);
        self.pos += n;
        Poll::Ready(n)
    }
    fn write_from(&mut self, cx: &mut Context<'_>, buf: &[u8]) -> Poll<usize> {
        if self.delay(cx) {
            return Poll::Pending;
        }
        let n = self.rng.size(self.max).min(buf.len());
        self.written.extend_from_slice(&buf[..n]);
        Poll::Ready(n)
    }
    fn pend_then(&mut self, cx: &mut Context<'_>) -> Poll<()> {
        if self.delay(cx) {
            Poll::Pending
        } else {
            Poll::Ready(())
        }
    }
}

impl tokio::io::AsyncRead for PendingIo {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut tokio::io::ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        let n = std::task::ready!(this.read_into(cx, buf.initialize_unfilled()));
        buf.advance(n);
        Poll::Ready(Ok(()))
    }
}

impl tokio::io::AsyncBufRead for PendingIo {
    fn poll_fill_buf(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<&[u8]>> {
        self.get_mut().fill(cx).map(Ok)
    }
    fn consume(self: Pin<&mut Self>, n: usize) {
        self.get_mut().take(n)
    }
}

impl tokio::io::AsyncWrite for PendingIo {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        self.get_mut().write_from(cx, buf).map(Ok)
    }
    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        std::task::ready!(this.pend_then(cx));
        this.flushes += 1;
        Poll::Ready(Ok(()))
    }
    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        std::task::ready!(this.pend_then(cx));
        this.shutdowns += 1;
        Poll::Ready(Ok(()))
    }
}

impl futures::io::AsyncRead for PendingIo {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut [u8],
    ) -> Poll<io::Result<usize>> {
        self.get_mut().read_into(cx, buf).map(Ok)
    }
}

impl futures::io::AsyncBufRead for PendingIo {
    fn poll_fill_buf(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<&[u8]>> {
        self.get_mut().fill(cx).map(Ok)
    }
    fn consume(self: Pin<&mut Self>, n: usize) {
        self.get_mut().take(n)
    }
}

impl futures::io::AsyncWrite for PendingIo {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        self.get_mut().write_from(cx, buf).map(Ok)
    }
    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        std::task::ready!(this.pend_then(cx));
        this.flushes += 1;
        Poll::Ready(Ok(()))
    }
    fn poll_close(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        std::task::ready!(this.pend_then(cx));
        this.shutdowns += 1;
        Poll::Ready(Ok(()))
    }
}

/// A sans-I/O `Decode` with `io::Error` errors, driven through the generic
/// faces (`Decoder::with_coder`): lzflow's own coders, so the face tests
/// need no C library. The expected output comes from the fixture manifest
/// (sizes and SHA-256 of what xz made), not from this coder.
pub enum RefDecoder {
    // Both boxed: the decoders differ much in size.
    Xz(Box<lzflow_xz::XzDecoder>),
    Lzma(Box<lzflow_lzma::AloneDecoder>),
}

impl RefDecoder {
    /// `.xz`, concatenated streams and padding accepted (like `xz -d`).
    pub fn xz() -> Self {
        RefDecoder::Xz(Box::new(lzflow_xz::XzDecoder::new(Default::default())))
    }
    /// `.xz`, one stream only: stops after its footer, like liblzma
    /// without `LZMA_CONCATENATED`.
    pub fn xz_single() -> Self {
        RefDecoder::Xz(Box::new(lzflow_xz::XzDecoder::new(
            lzflow_xz::XzDecoderOptions::default().with_multi_stream(false),
        )))
    }
    /// `.lzma`.
    pub fn lzma() -> Self {
        RefDecoder::Lzma(Box::new(
            lzflow_lzma::AloneDecoder::new(&Default::default()),
        ))
    }
}

impl Decode for RefDecoder {
    type Error = io::Error;
    fn decode(&mut self, input: &mut InBuf<'_>, output: &mut OutBuf<'_>) -> io::Result<Progress> {
        match self {
            RefDecoder::Xz(d) => d.decode(input, output).map_err(Into::into),
            RefDecoder::Lzma(d) => d.decode(input, output).map_err(Into::into),
        }
    }
}

/// lzflow's `.xz` encoder (CRC64, like `xz`) as a sans-I/O `Encode` with
/// `io::Error` errors.
pub struct RefEncoder(lzflow_xz::XzEncoder);

impl RefEncoder {
    pub fn xz(preset: u32) -> Self {
        let opts = lzflow_xz::XzEncoderOptions::preset(preset)
            .unwrap()
            .with_check(lzflow_xz::Check::Crc64);
        RefEncoder(lzflow_xz::XzEncoder::new(opts).unwrap())
    }
}

impl Encode for RefEncoder {
    type Error = io::Error;
    fn encode(&mut self, input: &mut InBuf<'_>, output: &mut OutBuf<'_>) -> io::Result<Progress> {
        self.0.encode(input, output).map_err(Into::into)
    }
    fn flush(&mut self, output: &mut OutBuf<'_>) -> io::Result<Progress> {
        self.0.flush(output).map_err(Into::into)
    }
    fn finish(&mut self, output: &mut OutBuf<'_>) -> io::Result<Progress> {
        self.0.finish(output).map_err(Into::into)
    }
}

/// `.xz` of `data` at `preset`, made in one call (input data for tests).
pub fn xz_of(data: &[u8], preset: u32) -> Vec<u8> {
    let mut out = Vec::new();
    lzflow::read::Encoder::with_coder(data, RefEncoder::xz(preset))
        .read_to_end(&mut out)
        .unwrap();
    out
}

/// Decodes `data` in one go (concatenated streams accepted).
pub fn ref_decode_xz(data: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    lzflow::read::Decoder::with_coder(data, RefDecoder::xz())
        .read_to_end(&mut out)
        .unwrap();
    out
}

/// Seeded, moderately compressible test data.
pub fn sample_data(len: usize, seed: u64) -> Vec<u8> {
    let mut rng = Rng::new(seed);
    let words: [&[u8]; 8] = [
        b"stream ",
        b"lzflow ",
        b"poll ",
        b"\n",
        b"chunk ",
        b"window ",
        b"0123456789",
        b"xz ",
    ];
    let mut out = Vec::with_capacity(len + 16);
    while out.len() < len {
        if rng.next().is_multiple_of(16) {
            out.push(rng.next() as u8);
        } else {
            out.extend_from_slice(words[(rng.next() % 8) as usize]);
        }
    }
    out.truncate(len);
    out
}

/// A waker that counts its wake-ups.
pub struct CountingWaker(pub std::sync::atomic::AtomicUsize);

impl std::task::Wake for CountingWaker {
    fn wake(self: std::sync::Arc<Self>) {
        self.wake_by_ref();
    }
    fn wake_by_ref(self: &std::sync::Arc<Self>) {
        self.0.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
    }
}

/// A one-entry zip archive holding `stored` (the data after method
/// `method`; `data` is what it decodes to), with a central directory.
/// With `descriptor`, as a streaming writer makes it: flag bit 3, zeros in
/// the local header, a signed data descriptor after the data.
pub fn one_entry_zip(
    name: &str,
    method: u16,
    stored: &[u8],
    data: &[u8],
    descriptor: bool,
) -> Vec<u8> {
    let crc = crc32fast::hash(data);
    let (c, u) = (stored.len() as u32, data.len() as u32);
    let flags: u16 = if descriptor { 1 << 3 } else { 0 };
    let le16 = |v: u16| v.to_le_bytes();
    let le32 = |v: u32| v.to_le_bytes();
    let mut out = Vec::new();
    out.extend_from_slice(b"PK\x03\x04");
    out.extend_from_slice(&le16(20));
    out.extend_from_slice(&le16(flags));
    out.extend_from_slice(&le16(method));
    out.extend_from_slice(&[0; 4]);
    let (lc, lcs, lus) = if descriptor { (0, 0, 0) } else { (crc, c, u) };
    for v in [lc, lcs, lus] {
        out.extend_from_slice(&le32(v));
    }
    out.extend_from_slice(&le16(name.len() as u16));
    out.extend_from_slice(&le16(0));
    out.extend_from_slice(name.as_bytes());
    out.extend_from_slice(stored);
    if descriptor {
        out.extend_from_slice(b"PK\x07\x08");
        for v in [crc, c, u] {
            out.extend_from_slice(&le32(v));
        }
    }
    let cd = out.len() as u32;
    out.extend_from_slice(b"PK\x01\x02");
    out.extend_from_slice(&le16(20));
    out.extend_from_slice(&le16(20));
    out.extend_from_slice(&le16(flags));
    out.extend_from_slice(&le16(method));
    out.extend_from_slice(&[0; 4]);
    for v in [crc, c, u] {
        out.extend_from_slice(&le32(v));
    }
    out.extend_from_slice(&le16(name.len() as u16));
    out.extend_from_slice(&[0; 12]);
    out.extend_from_slice(&le32(0));
    out.extend_from_slice(name.as_bytes());
    let cd_len = out.len() as u32 - cd;
    out.extend_from_slice(b"PK\x05\x06");
    out.extend_from_slice(&[0; 4]);
    out.extend_from_slice(&le16(1));
    out.extend_from_slice(&le16(1));
    out.extend_from_slice(&le32(cd_len));
    out.extend_from_slice(&le32(cd));
    out.extend_from_slice(&le16(0));
    out
}
