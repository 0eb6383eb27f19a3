//! Small archives written byte by byte for the record parsers' tests, and
//! a driver that runs [`DirectoryLocator`] over a file in memory, and one
//! that runs a decoder over input in `step`-byte slices.

use lzflow_core::{Decode, InBuf, OutBuf, Progress};

use super::central_directory::CentralDirectory;
use super::end_of_central_directory::{CentralDirectoryLocation, DirectoryLocator};
use crate::ZipError;

/// 2023-05-06 07:08:10.
pub(crate) const DOS_DATE: u16 = 0x56A6;
pub(crate) const DOS_TIME: u16 = 0x3905;

/// One entry, stored unless `method` says otherwise (the data is written
/// as given).
#[derive(Debug, Clone)]
pub(crate) struct TestEntry {
    pub name: Vec<u8>,
    pub data: Vec<u8>,
    pub method: u16,
    pub flags: u16,
    pub made_by: u16,
    pub external: u32,
    pub local_extra: Vec<u8>,
    pub central_extra: Vec<u8>,
    pub comment: Vec<u8>,
    /// Saturated sizes (and central offset) with a Zip64 extra field.
    pub zip64: bool,
    /// Cut the central Zip64 extra field's data to this length.
    pub central_zip64_len: Option<u16>,
}

impl TestEntry {
    pub(crate) fn stored(name: &str, data: &[u8]) -> Self {
        Self::stored_raw(name.as_bytes().to_vec(), data)
    }

    pub(crate) fn stored_raw(name: Vec<u8>, data: &[u8]) -> Self {
        TestEntry {
            name,
            data: data.to_vec(),
            method: 0,
            flags: 0,
            made_by: 0x031E,
            external: 0o100_644 << 16,
            local_extra: Vec::new(),
            central_extra: Vec::new(),
            comment: Vec::new(),
            zip64: false,
            central_zip64_len: None,
        }
    }
}

/// An archive: entries, then the central directory and end records.
#[derive(Debug, Clone)]
pub(crate) struct TestArchive {
    pub entries: Vec<TestEntry>,
    pub comment: Vec<u8>,
    /// Bytes before the archive (a self-extractor stub).
    pub prefix: Vec<u8>,
    /// Whether offsets count the prefix.
    pub adjust: bool,
    /// Zip64 end record and locator, the classic record saturated.
    pub zip64_end: bool,
    pub zip64_extensible: Vec<u8>,
}

fn u16_le(out: &mut Vec<u8>, v: u16) {
    out.extend_from_slice(&v.to_le_bytes());
}

fn u32_le(out: &mut Vec<u8>, v: u32) {
    out.extend_from_slice(&v.to_le_bytes());
}

fn u64_le(out: &mut Vec<u8>, v: u64) {
    out.extend_from_slice(&v.to_le_bytes());
}

fn len16(b: &[u8]) -> u16 {
    u16::try_from(b.len()).unwrap()
}

fn zip64_block(values: &[u64], cut: Option<u16>) -> Vec<u8> {
    let mut data = Vec::new();
    for &v in values {
        u64_le(&mut data, v);
    }
    data.truncate(cut.map_or(data.len(), usize::from));
    let mut block = Vec::new();
    u16_le(&mut block, 0x0001);
    u16_le(&mut block, len16(&data));
    block.extend_from_slice(&data);
    block
}

impl TestArchive {
    pub(crate) fn new(entries: Vec<TestEntry>) -> Self {
        TestArchive {
            entries,
            comment: Vec::new(),
            prefix: Vec::new(),
            adjust: true,
            zip64_end: false,
            zip64_extensible: Vec::new(),
        }
    }

    pub(crate) fn build(&self) -> Vec<u8> {
        let mut out = self.prefix.clone();
        let base = if self.adjust {
            0
        } else {
            self.prefix.len() as u64
        };
        let at = |out: &Vec<u8>| out.len() as u64 - base;
        let mut offsets = Vec::new();
        for e in &self.entries {
            offsets.push(at(&out));
            let crc = crc32fast::hash(&e.data);
            let size = e.data.len() as u64;
            let descriptor = e.flags & 8 != 0;
            let mut extra = Vec::new();
            if e.zip64 {
                let (u, c) = if descriptor { (0, 0) } else { (size, size) };
                extra.extend(zip64_block(&[u, c], None));
            }
            extra.extend_from_slice(&e.local_extra);
            u32_le(&mut out, 0x0403_4b50);
            u16_le(&mut out, if e.zip64 { 45 } else { 20 });
            u16_le(&mut out, e.flags);
            u16_le(&mut out, e.method);
            u16_le(&mut out, DOS_TIME);
            u16_le(&mut out, DOS_DATE);
            let (lcrc, lsize) = match (descriptor, e.zip64) {
                (true, _) => (0, 0),
                (false, true) => (crc, u32::MAX),
                (false, false) => (crc, size as u32),
            };
            u32_le(&mut out, lcrc);
            u32_le(&mut out, lsize);
            u32_le(&mut out, lsize);
            u16_le(&mut out, len16(&e.name));
            u16_le(&mut out, len16(&extra));
            out.extend_from_slice(&e.name);
            out.extend_from_slice(&extra);
            out.extend_from_slice(&e.data);
            if descriptor {
                u32_le(&mut out, 0x0807_4b50);
                u32_le(&mut out, crc);
                if e.zip64 {
                    u64_le(&mut out, size);
                    u64_le(&mut out, size);
                } else {
                    u32_le(&mut out, size as u32);
                    u32_le(&mut out, size as u32);
                }
            }
        }
        let cd_start = at(&out);
        for (e, &offset) in self.entries.iter().zip(&offsets) {
            let crc = crc32fast::hash(&e.data);
            let size = e.data.len() as u64;
            let mut extra = Vec::new();
            if e.zip64 {
                extra.extend(zip64_block(&[size, size, offset], e.central_zip64_len));
            }
            extra.extend_from_slice(&e.central_extra);
            u32_le(&mut out, 0x0201_4b50);
            u16_le(&mut out, e.made_by);
            u16_le(&mut out, if e.zip64 { 45 } else { 20 });
            u16_le(&mut out, e.flags);
            u16_le(&mut out, e.method);
            u16_le(&mut out, DOS_TIME);
            u16_le(&mut out, DOS_DATE);
            u32_le(&mut out, crc);
            if e.zip64 {
                u32_le(&mut out, u32::MAX);
                u32_le(&mut out, u32::MAX);
            } else {
                u32_le(&mut out, size as u32);
                u32_le(&mut out, size as u32);
            }
            u16_le(&mut out, len16(&e.name));
            u16_le(&mut out, len16(&extra));
            u16_le(&mut out, len16(&e.comment));
            u16_le(&mut out, 0);
            u16_le(&mut out, 0);
            u32_le(&mut out, e.external);
            u32_le(&mut out, if e.zip64 { u32::MAX } else { offset as u32 });
            out.extend_from_slice(&e.name);
            out.extend_from_slice(&extra);
            out.extend_from_slice(&e.comment);
        }
        let cd_size = at(&out) - cd_start;
        let n = self.entries.len() as u64;
        if self.zip64_end {
            let record = at(&out);
            u32_le(&mut out, 0x0606_4b50);
            u64_le(&mut out, 44 + self.zip64_extensible.len() as u64);
            u16_le(&mut out, 0x032D);
            u16_le(&mut out, 45);
            u32_le(&mut out, 0);
            u32_le(&mut out, 0);
            u64_le(&mut out, n);
            u64_le(&mut out, n);
            u64_le(&mut out, cd_size);
            u64_le(&mut out, cd_start);
            out.extend_from_slice(&self.zip64_extensible);
            u32_le(&mut out, 0x0706_4b50);
            u32_le(&mut out, 0);
            u64_le(&mut out, record);
            u32_le(&mut out, 1);
        }
        u32_le(&mut out, 0x0605_4b50);
        u16_le(&mut out, 0);
        u16_le(&mut out, 0);
        let (n16, size32, off32) = if self.zip64_end {
            (u16::MAX, u32::MAX, u32::MAX)
        } else {
            (n as u16, cd_size as u32, cd_start as u32)
        };
        u16_le(&mut out, n16);
        u16_le(&mut out, n16);
        u32_le(&mut out, size32);
        u32_le(&mut out, off32);
        u16_le(&mut out, len16(&self.comment));
        out.extend_from_slice(&self.comment);
        out
    }
}

/// Runs the locator over `file`; a range past the end comes back short.
pub(crate) fn locate(file: &[u8]) -> Result<CentralDirectoryLocation, ZipError> {
    let mut locator = DirectoryLocator::new(file.len() as u64);
    while let Some((offset, len)) = locator.request() {
        let start = usize::try_from(offset)
            .unwrap_or(usize::MAX)
            .min(file.len());
        let end = start.saturating_add(len).min(file.len());
        locator.feed(&file[start..end])?;
    }
    locator.finish()
}

/// Locates and parses the central directory of `file`.
pub(crate) fn open(file: &[u8]) -> Result<CentralDirectory, ZipError> {
    let location = locate(file)?;
    let start = usize::try_from(location.offset).unwrap();
    let bytes = file[start..][..usize::try_from(location.size).unwrap()].to_vec();
    CentralDirectory::parse(bytes, &location)
}

/// Runs `dec` over `data` in `step`-byte slices, into `room`-byte output
/// pieces, to its end; gives the output and the input bytes consumed.
pub(crate) fn decode_in_steps<D: Decode<Error = ZipError>>(
    dec: &mut D,
    data: &[u8],
    step: usize,
    room: usize,
) -> Result<(Vec<u8>, usize), ZipError> {
    let mut out = Vec::new();
    let mut buf = vec![0u8; room];
    let mut pos = 0;
    loop {
        let end = (pos + step).min(data.len());
        let mut input = InBuf::new(&data[pos..end]).with_last(end == data.len());
        let mut o = OutBuf::new(&mut buf);
        let p = dec.decode(&mut input, &mut o)?;
        out.extend_from_slice(o.written());
        pos += input.pos();
        if p == Progress::StreamEnd {
            return Ok((out, pos));
        }
    }
}
