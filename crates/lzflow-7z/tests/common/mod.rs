//! Helpers shared by the integration tests.
#![allow(dead_code)]

use std::path::PathBuf;

pub mod craft;

/// A small seeded generator (xorshift64*), so inputs are the same on every
/// machine.
pub struct Rng(u64);

impl Rng {
    /// A generator for `seed`.
    pub fn new(seed: u64) -> Self {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }
    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    /// A number in `0..n`.
    pub fn below(&mut self, n: u64) -> u64 {
        self.next_u64() % n.max(1)
    }
    /// `n` random bytes.
    pub fn bytes(&mut self, n: usize) -> Vec<u8> {
        (0..n).map(|_| self.next_u64() as u8).collect()
    }
}

/// Text-like data: words from a small vocabulary.
pub fn text(rng: &mut Rng, n: usize) -> Vec<u8> {
    const WORDS: [&str; 12] = [
        "stream", "lzma", "folder", "coder", "the", "of", "archive", "window", "match", "literal",
        "\n", "range",
    ];
    let mut out = Vec::with_capacity(n + 16);
    while out.len() < n {
        out.extend_from_slice(WORDS[rng.below(12) as usize].as_bytes());
        out.push(b' ');
    }
    out.truncate(n);
    out
}

/// x86-like code: plenty of E8/E9/0F 8x opcodes with plausible targets, so
/// BCJ and BCJ2 have work to do.
pub fn code(rng: &mut Rng, n: usize) -> Vec<u8> {
    let mut out = Vec::with_capacity(n + 8);
    while out.len() < n {
        match rng.below(10) {
            0 | 1 => {
                out.push(0xE8);
                let target = (rng.below(4096) as i32 - 2048) * 16;
                out.extend_from_slice(&target.to_le_bytes());
            }
            2 => {
                out.push(0xE9);
                out.extend_from_slice(&(rng.below(65536) as u32).to_le_bytes());
            }
            3 => {
                out.push(0x0F);
                out.push(0x80 | rng.below(16) as u8);
                out.extend_from_slice(&(rng.below(1024) as u32).to_le_bytes());
            }
            _ => {
                let k = rng.below(6) as usize + 1;
                for _ in 0..k {
                    out.push([0x48, 0x89, 0x8B, 0xC3, 0x55, 0x5D, 0x90][rng.below(7) as usize]);
                }
            }
        }
    }
    out.truncate(n);
    out
}

/// A fresh empty directory under the system temp dir.
pub fn temp_dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("lzflow-7z-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn number(out: &mut Vec<u8>, v: u64) {
    // Plain 9-byte form works for every value, but use the short forms for
    // small values as 7-Zip does.
    if v < 0x80 {
        out.push(v as u8);
    } else if v < 0x4000 {
        out.push(0x80 | (v >> 8) as u8);
        out.push(v as u8);
    } else {
        out.push(0xFF);
        out.extend_from_slice(&v.to_le_bytes());
    }
}

/// Builds a 7z archive by hand: one solid Copy folder holding `files` in
/// order, a plain (unencoded) header. Lets tests store names 7-Zip would
/// never write, such as `../x`.
pub fn copy_archive(files: &[(&str, &[u8])]) -> Vec<u8> {
    let data: Vec<u8> = files.iter().flat_map(|(_, d)| d.iter().copied()).collect();
    let mut h = vec![0x01, 0x04];
    // PackInfo
    h.extend_from_slice(&[0x06, 0x00, 0x01, 0x09]);
    number(&mut h, data.len() as u64);
    h.push(0x00);
    // UnpackInfo: one folder, one Copy coder.
    h.extend_from_slice(&[0x07, 0x0B, 0x01, 0x00, 0x01, 0x01, 0x00, 0x0C]);
    number(&mut h, data.len() as u64);
    h.push(0x00);
    // SubStreamsInfo
    h.extend_from_slice(&[0x08, 0x0D]);
    number(&mut h, files.len() as u64);
    h.push(0x09);
    for (_, d) in &files[..files.len() - 1] {
        number(&mut h, d.len() as u64);
    }
    h.extend_from_slice(&[0x0A, 0x01]);
    for (_, d) in files {
        h.extend_from_slice(&crc32fast::hash(d).to_le_bytes());
    }
    h.extend_from_slice(&[0x00, 0x00]);
    // FilesInfo: names only.
    h.push(0x05);
    number(&mut h, files.len() as u64);
    let mut names = vec![0u8];
    for (n, _) in files {
        for u in n.encode_utf16() {
            names.extend_from_slice(&u.to_le_bytes());
        }
        names.extend_from_slice(&[0, 0]);
    }
    h.push(0x11);
    number(&mut h, names.len() as u64);
    h.extend_from_slice(&names);
    h.extend_from_slice(&[0x00, 0x00]);
    let mut out = vec![b'7', b'z', 0xBC, 0xAF, 0x27, 0x1C, 0, 4];
    let mut start = Vec::new();
    start.extend_from_slice(&(data.len() as u64).to_le_bytes());
    start.extend_from_slice(&(h.len() as u64).to_le_bytes());
    start.extend_from_slice(&crc32fast::hash(&h).to_le_bytes());
    out.extend_from_slice(&crc32fast::hash(&start).to_le_bytes());
    out.extend_from_slice(&start);
    out.extend_from_slice(&data);
    out.extend_from_slice(&h);
    out
}

/// Recomputes the start header's next-header CRC and its own CRC after the
/// header bytes were changed in place.
pub fn fix_crcs(archive: &mut [u8]) {
    let off = u64::from_le_bytes(archive[12..20].try_into().unwrap()) as usize + 32;
    let size = u64::from_le_bytes(archive[20..28].try_into().unwrap()) as usize;
    let end = (off + size).min(archive.len());
    let crc = crc32fast::hash(&archive[off.min(end)..end]);
    archive[28..32].copy_from_slice(&crc.to_le_bytes());
    let s = crc32fast::hash(&archive[12..32]);
    archive[8..12].copy_from_slice(&s.to_le_bytes());
}

/// A `Read + Seek` that hands out at most `step` bytes per read (cycling
/// through 1..=step), to show the output does not depend on how the input
/// arrives.
pub struct Trickle<R> {
    pub inner: R,
    pub step: usize,
    pub turn: usize,
}

impl<R: std::io::Read> std::io::Read for Trickle<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        self.turn = self.turn % self.step + 1;
        let n = buf.len().min(self.turn);
        self.inner.read(&mut buf[..n])
    }
}

impl<R: std::io::Seek> std::io::Seek for Trickle<R> {
    fn seek(&mut self, pos: std::io::SeekFrom) -> std::io::Result<u64> {
        self.inner.seek(pos)
    }
}

/// Like [`copy_archive`] but with a CRC for the packed stream in PackInfo.
pub fn copy_archive_with_pack_crc(files: &[(&str, &[u8])]) -> Vec<u8> {
    let data: Vec<u8> = files.iter().flat_map(|(_, d)| d.iter().copied()).collect();
    let mut a = copy_archive(files);
    // PackInfo starts at header offset 2: 06 00 01 09 <size> 00; insert a
    // kCRC record before its kEnd.
    let off = 32 + data.len();
    let mut h = a.split_off(off);
    let mut size_len = 1;
    if data.len() >= 0x80 {
        size_len = if data.len() < 0x4000 { 2 } else { 9 };
    }
    let end_at = 2 + 4 + size_len;
    assert_eq!(h[end_at], 0x00);
    let mut rec = vec![0x0A, 0x01];
    rec.extend_from_slice(&crc32fast::hash(&data).to_le_bytes());
    h.splice(end_at..end_at, rec);
    a[20..28].copy_from_slice(&(h.len() as u64).to_le_bytes());
    a.extend_from_slice(&h);
    fix_crcs(&mut a);
    a
}
