//! Finding where a Stored entry with a data descriptor ends, for the
//! forward-only reader: nothing gives the length of such an entry (flag
//! bit 3 leaves the local header's sizes at zero, and Stored data has no
//! end marker of its own), so the data ends at the first position where a
//! data descriptor could start whose CRC-32 and sizes are those of the
//! bytes before it, followed by the signature of the next record (or the
//! end of the input).
//!
//! Each position is checked for the four encodings (with and without the
//! signature, 4- or 8-byte sizes). The sizes are tested first, since they
//! must equal the offset itself; only a position that passes has the CRC-32
//! of the bytes before it computed. A false match needs the data itself to
//! hold its own CRC-32 and length at that point, then a record signature.

use crate::read::data_descriptor::DataDescriptor;

/// Signatures that may follow an entry's data descriptor: the next local
/// header, a central directory header, the end records, the digital
/// signature and the archive extra data record.
const NEXT_RECORDS: [u32; 6] = [
    0x0403_4b50,
    0x0201_4b50,
    0x0605_4b50,
    0x0606_4b50,
    0x0505_4b50,
    0x0806_4b50,
];

/// Bytes a position needs after it before it can be decided: the longest
/// descriptor (signature, CRC-32, two 8-byte sizes) and a signature.
pub(crate) const LOOK_AHEAD: usize = 24 + 4;

/// The four encodings, as (signature, zip64), most common first.
const FORMS: [(bool, bool); 4] = [(true, false), (false, false), (true, true), (false, true)];

/// What [`DescriptorScan::scan`] found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Scanned {
    /// The first this many bytes are data; no descriptor starts in them.
    Data(usize),
    /// Not enough bytes to decide anything yet.
    NeedMore,
    /// The data ends after `data` more bytes, followed by a descriptor of
    /// `descriptor_len` bytes.
    End { data: usize, descriptor_len: usize },
}

/// The running state of one entry's scan: the data accepted so far.
#[derive(Debug, Default, Clone)]
pub(crate) struct DescriptorScan {
    crc: crc32fast::Hasher,
    len: u64,
}

fn u32_at(bytes: &[u8], at: usize) -> Option<u32> {
    Some(u32::from_le_bytes(bytes.get(at..at + 4)?.try_into().ok()?))
}

fn u64_at(bytes: &[u8], at: usize) -> Option<u64> {
    Some(u64::from_le_bytes(bytes.get(at..at + 8)?.try_into().ok()?))
}

impl DescriptorScan {
    /// Bytes of data accepted so far.
    pub fn len(&self) -> u64 {
        self.len
    }

    /// The CRC-32 of the data accepted so far.
    pub fn crc(&self) -> u32 {
        self.crc.clone().finalize()
    }

    /// Accepts `data` (a prefix [`scan`](Self::scan) said was data).
    pub fn accept(&mut self, data: &[u8]) {
        self.crc.update(data);
        self.len += data.len() as u64;
    }

    /// Looks at `window`, the bytes after the data accepted so far; `eof`
    /// when nothing follows them.
    pub fn scan(&self, window: &[u8], eof: bool) -> Scanned {
        let decidable = if eof {
            window.len()
        } else {
            window.len().saturating_sub(LOOK_AHEAD - 1)
        };
        for i in 0..decidable {
            let offset = self.len + i as u64;
            for (signature, zip64) in FORMS {
                if let Some(descriptor_len) = self.matches(window, i, offset, signature, zip64, eof)
                {
                    return Scanned::End {
                        data: i,
                        descriptor_len,
                    };
                }
            }
        }
        if decidable == 0 {
            Scanned::NeedMore
        } else {
            Scanned::Data(decidable)
        }
    }

    /// Whether a descriptor of this form at `i` ends `offset` bytes of data
    /// whose first `i` bytes start `window`: its length if so.
    fn matches(
        &self,
        window: &[u8],
        i: usize,
        offset: u64,
        signature: bool,
        zip64: bool,
        eof: bool,
    ) -> Option<usize> {
        let mut at = i;
        if signature {
            if u32_at(window, at)? != DataDescriptor::SIGNATURE {
                return None;
            }
            at += 4;
        }
        let crc_at = at;
        at += 4;
        let sizes_match = if zip64 {
            u64_at(window, at)? == offset && u64_at(window, at + 8)? == offset
        } else {
            let short = u32::try_from(offset).ok()?;
            u32_at(window, at)? == short && u32_at(window, at + 4)? == short
        };
        if !sizes_match {
            return None;
        }
        let len = DataDescriptor::encoded_len(signature, zip64);
        let end = i + len;
        let next_ok = match u32_at(window, end) {
            Some(next) => NEXT_RECORDS.contains(&next),
            None => eof && end == window.len(),
        };
        if !next_ok {
            return None;
        }
        let mut crc = self.crc.clone();
        crc.update(&window[..i]);
        (crc.finalize() == u32_at(window, crc_at)?).then_some(len)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn descriptor(data: &[u8], signature: bool, zip64: bool) -> Vec<u8> {
        let mut out = Vec::new();
        if signature {
            out.extend_from_slice(&DataDescriptor::SIGNATURE.to_le_bytes());
        }
        out.extend_from_slice(&crc32fast::hash(data).to_le_bytes());
        let n = data.len() as u64;
        if zip64 {
            out.extend_from_slice(&n.to_le_bytes());
            out.extend_from_slice(&n.to_le_bytes());
        } else {
            out.extend_from_slice(&(n as u32).to_le_bytes());
            out.extend_from_slice(&(n as u32).to_le_bytes());
        }
        out
    }

    /// Runs a scan over `stream` handed over `step` bytes at a time; the
    /// data found and the descriptor's length.
    fn run(stream: &[u8], step: usize) -> Option<(Vec<u8>, usize)> {
        let mut scan = DescriptorScan::default();
        let mut data = Vec::new();
        let (mut start, mut end) = (0, 0);
        loop {
            let eof = end == stream.len();
            match scan.scan(&stream[start..end], eof) {
                Scanned::Data(n) => {
                    scan.accept(&stream[start..start + n]);
                    data.extend_from_slice(&stream[start..start + n]);
                    start += n;
                }
                Scanned::End {
                    data: n,
                    descriptor_len,
                } => {
                    scan.accept(&stream[start..start + n]);
                    data.extend_from_slice(&stream[start..start + n]);
                    assert_eq!(scan.len(), data.len() as u64);
                    assert_eq!(scan.crc(), crc32fast::hash(&data));
                    return Some((data, descriptor_len));
                }
                Scanned::NeedMore if eof => return None,
                Scanned::NeedMore => {}
            }
            if end < stream.len() {
                end = (end + step).min(stream.len());
            }
        }
    }

    #[test]
    fn every_form_any_split() {
        // Data that holds a fake descriptor signature and record
        // signatures.
        let mut data = b"PK\x07\x08 not a descriptor PK\x03\x04 ".to_vec();
        data.extend((0..3000u32).map(|i| (i * 7 % 251) as u8));
        for (signature, zip64) in FORMS {
            let mut stream = data.clone();
            stream.extend(descriptor(&data, signature, zip64));
            stream.extend_from_slice(b"PK\x01\x02rest of the directory");
            for step in [1, 3, 28, 4096] {
                let (found, len) = run(&stream, step).unwrap();
                assert_eq!(found, data, "{signature} {zip64} {step}");
                assert_eq!(len, DataDescriptor::encoded_len(signature, zip64));
            }
        }
    }

    #[test]
    fn empty_data_and_end_of_input() {
        let stream = descriptor(b"", true, false);
        assert_eq!(run(&stream, 5), Some((Vec::new(), 16)));
    }

    #[test]
    fn a_descriptor_of_the_wrong_crc_or_size_is_data() {
        let data = b"hello".to_vec();
        let mut bad = descriptor(&data, true, false);
        bad[4] ^= 1;
        let mut stream = data.clone();
        stream.extend(&bad);
        stream.extend_from_slice(b"PK\x03\x04");
        // The bytes never end as data: no descriptor matches.
        assert_eq!(run(&stream, 7), None);
    }

    #[test]
    fn a_match_not_followed_by_a_record_is_data() {
        let inner = b"abc".to_vec();
        // The data contains what would be its own descriptor after 3
        // bytes, but followed by more data, not a record.
        let mut data = inner.clone();
        data.extend(descriptor(&inner, true, false));
        data.extend_from_slice(b"more data");
        let mut stream = data.clone();
        stream.extend(descriptor(&data, true, false));
        stream.extend_from_slice(b"PK\x05\x06");
        assert_eq!(run(&stream, 2).unwrap().0, data);
    }
}
