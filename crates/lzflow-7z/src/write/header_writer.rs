//! Serialising the header model (the reader's [`Header`] and
//! [`StreamsInfo`] records) into 7z header bytes, the encoded-header
//! indirection, and the start header that points at them.
//!
//! Every record is written through [`Out`]: into a buffer, into a [`Count`]
//! that only measures, or (the writer's compressed header) straight into
//! an encoder, a piece at a time. A header is measured first, so its size
//! is known before a byte of it is written; a buffer gets exactly that
//! size, and no record needs an intermediate buffer (a FilesInfo property
//! measures its body before writing it).

use crate::read::folder::Folder;
use crate::read::header::StreamsInfo;
use crate::read::property_id as id;
use crate::read::signature_header::SIGNATURE;
use crate::write::file_table::{self, FileTable};

/// Format version written: 0.4, as current 7-Zip.
const MINOR_VERSION: u8 = 4;

/// Where header bytes go.
pub(crate) trait Out {
    /// Appends one byte.
    fn push(&mut self, b: u8);
    /// Appends bytes.
    fn extend_from_slice(&mut self, b: &[u8]);
}

impl Out for Vec<u8> {
    fn push(&mut self, b: u8) {
        Vec::push(self, b);
    }
    fn extend_from_slice(&mut self, b: &[u8]) {
        Vec::extend_from_slice(self, b);
    }
}

/// Counts bytes instead of storing them.
#[derive(Debug, Default)]
pub(crate) struct Count(pub(crate) usize);

impl Out for Count {
    fn push(&mut self, _: u8) {
        self.0 += 1;
    }
    fn extend_from_slice(&mut self, b: &[u8]) {
        self.0 += b.len();
    }
}

/// Measures what `write` produces, then writes it into a buffer of exactly
/// that size.
fn exact(write: impl Fn(&mut dyn Out)) -> Vec<u8> {
    let mut n = Count::default();
    write(&mut n);
    let mut out = Vec::with_capacity(n.0);
    write(&mut out);
    debug_assert_eq!(out.len(), n.0, "measured and written sizes differ");
    out
}

/// Appends a 7z NUMBER: the count of leading one bits of the first byte
/// says how many little-endian bytes follow; the rest of the first byte
/// holds the value's top bits.
pub(crate) fn write_number<O: Out + ?Sized>(out: &mut O, v: u64) {
    for n in 0..8u32 {
        // With n extra bytes the value has 7 * (n + 1) bits of room.
        if v < 1u64 << (7 * (n + 1)) {
            let mask = !(0xFFu8 >> n);
            let high = (v >> (8 * n)) as u8;
            out.push(mask | high);
            out.extend_from_slice(&v.to_le_bytes()[..n as usize]);
            return;
        }
    }
    out.push(0xFF);
    out.extend_from_slice(&v.to_le_bytes());
}

/// Appends a bit vector, most significant bit first, padded with zeros.
fn write_bits<O: Out + ?Sized>(out: &mut O, bits: impl IntoIterator<Item = bool>) {
    let mut byte = 0u8;
    let mut n = 0;
    for b in bits {
        byte |= u8::from(b) << (7 - n);
        n += 1;
        if n == 8 {
            out.push(byte);
            byte = 0;
            n = 0;
        }
    }
    if n > 0 {
        out.push(byte);
    }
}

/// Appends a "defined" vector: `1` when every item is defined, else `0`
/// and the bits.
fn write_defined<O: Out + ?Sized>(out: &mut O, defined: impl Iterator<Item = bool> + Clone) {
    if defined.clone().all(|d| d) {
        out.push(1);
    } else {
        out.push(0);
        write_bits(out, defined);
    }
}

/// Appends a digests record for the defined CRCs.
fn write_digests<O: Out + ?Sized>(out: &mut O, crcs: impl Iterator<Item = Option<u32>> + Clone) {
    write_defined(out, crcs.clone().map(|c| c.is_some()));
    for c in crcs.flatten() {
        out.extend_from_slice(&c.to_le_bytes());
    }
}

/// Appends one folder record (coders, bind pairs, packed stream indices).
fn write_folder<O: Out + ?Sized>(out: &mut O, f: &Folder) {
    write_number(out, f.coders.len() as u64);
    for c in &f.coders {
        let complex = c.num_in_streams != 1 || c.num_out_streams != 1;
        let mut flags = c.method.len() as u8 & 0x0F;
        if complex {
            flags |= 0x10;
        }
        if !c.properties.is_empty() {
            flags |= 0x20;
        }
        out.push(flags);
        out.extend_from_slice(&c.method);
        if complex {
            write_number(out, c.num_in_streams as u64);
            write_number(out, c.num_out_streams as u64);
        }
        if !c.properties.is_empty() {
            write_number(out, c.properties.len() as u64);
            out.extend_from_slice(&c.properties);
        }
    }
    for b in &f.bind_pairs {
        write_number(out, b.in_index as u64);
        write_number(out, b.out_index as u64);
    }
    // A single packed stream is implied (the one unbound input).
    if f.packed_streams.len() > 1 {
        for &p in &f.packed_streams {
            write_number(out, p as u64);
        }
    }
}

/// Appends a StreamsInfo record (without its introducing ID); the
/// SubStreamsInfo only when `with_substreams`.
pub(crate) fn write_streams_info<O: Out + ?Sized>(
    out: &mut O,
    s: &StreamsInfo,
    with_substreams: bool,
) {
    out.push(id::PACK_INFO);
    write_number(out, s.pack.pack_pos);
    write_number(out, s.pack.sizes.len() as u64);
    out.push(id::SIZE);
    for &size in &s.pack.sizes {
        write_number(out, size);
    }
    if s.pack.crcs.iter().any(Option::is_some) {
        out.push(id::CRC);
        write_digests(out, s.pack.crcs.iter().copied());
    }
    out.push(id::END);

    out.push(id::UNPACK_INFO);
    out.push(id::FOLDER);
    write_number(out, s.folders.len() as u64);
    out.push(0); // not external
    for f in &s.folders {
        write_folder(out, f);
    }
    out.push(id::CODERS_UNPACK_SIZE);
    for f in &s.folders {
        for &size in &f.unpack_sizes {
            write_number(out, size);
        }
    }
    if s.folders.iter().any(|f| f.crc.is_some()) {
        out.push(id::CRC);
        write_digests(out, s.folders.iter().map(|f| f.crc));
    }
    out.push(id::END);

    if with_substreams {
        write_substreams(out, s);
    }
    out.push(id::END);
}

fn write_substreams<O: Out + ?Sized>(out: &mut O, s: &StreamsInfo) {
    let sub = &s.substreams;
    out.push(id::SUBSTREAMS_INFO);
    if sub.per_folder.iter().any(|&n| n != 1) {
        out.push(id::NUM_UNPACK_STREAM);
        for &n in &sub.per_folder {
            write_number(out, n as u64);
        }
    }
    if sub.per_folder.iter().any(|&n| n > 1) {
        out.push(id::SIZE);
        let mut at = 0;
        for &n in &sub.per_folder {
            // The last size of a folder is implied by the folder size.
            for &size in &sub.sizes[at..at + n.saturating_sub(1)] {
                write_number(out, size);
            }
            at += n;
        }
    }
    // CRCs of substreams whose folder does not carry it already.
    let crcs = s
        .folders
        .iter()
        .zip(&sub.per_folder)
        .scan(0usize, |at, (f, &n)| {
            let first = *at;
            *at += n;
            Some((first, n, !(n == 1 && f.crc.is_some())))
        })
        .filter(|&(_, _, listed)| listed)
        .flat_map(|(first, n, _)| sub.crcs[first..first + n].iter().copied());
    if crcs.clone().any(|c| c.is_some()) {
        out.push(id::CRC);
        write_digests(out, crcs);
    }
    out.push(id::END);
}

/// Appends one FilesInfo property: ID, size, then the data `body` writes
/// (measured first).
fn write_property<O: Out + ?Sized>(out: &mut O, prop: u8, body: impl Fn(&mut dyn Out)) {
    let mut n = Count::default();
    body(&mut n);
    out.push(prop);
    write_number(out, n.0 as u64);
    let mut sink = OutRef(out);
    body(&mut sink);
}

/// An `&mut O` seen as `dyn Out` (for bodies written into a generic out).
struct OutRef<'a, O: Out + ?Sized>(&'a mut O);

impl<O: Out + ?Sized> Out for OutRef<'_, O> {
    fn push(&mut self, b: u8) {
        self.0.push(b);
    }
    fn extend_from_slice(&mut self, b: &[u8]) {
        self.0.extend_from_slice(b);
    }
}

fn write_files_info<O: Out + ?Sized>(out: &mut O, files: &FileTable) {
    write_number(out, files.len() as u64);
    if files.empty_stream().any(|e| e) {
        write_property(out, id::EMPTY_STREAM, |o| {
            write_bits(o, files.empty_stream())
        });
        if files.empty_file().any(|e| e) {
            write_property(out, id::EMPTY_FILE, |o| write_bits(o, files.empty_file()));
        }
    }
    // The name list's size is known: it is not measured by writing it.
    out.push(id::NAME);
    write_number(out, 1 + 2 * files.name_units());
    out.push(0); // not external
    write_utf16(out, files.names());
    for (prop, which) in [
        (id::CTIME, file_table::CTIME),
        (id::ATIME, file_table::ATIME),
        (id::MTIME, file_table::MTIME),
    ] {
        if !files.times(which).is_empty() {
            write_property(out, prop, |o| {
                write_defined(o, files.time_defined(which));
                o.push(0); // not external
                for v in files.times(which) {
                    o.extend_from_slice(&v.to_le_bytes());
                }
            });
        }
    }
    if !files.attributes().is_empty() {
        write_property(out, id::WIN_ATTRIBUTES, |o| {
            write_defined(o, files.attributes_defined());
            o.push(0); // not external
            for a in files.attributes() {
                o.extend_from_slice(&a.to_le_bytes());
            }
        });
    }
    out.push(id::END);
}

/// Appends `s` as UTF-16LE, a few hundred bytes at a time (one call per
/// unit would cost a dynamic call per byte pair).
fn write_utf16<O: Out + ?Sized>(out: &mut O, s: &str) {
    let mut buf = [0u8; 512];
    let mut n = 0;
    for u in s.encode_utf16() {
        buf[n..n + 2].copy_from_slice(&u.to_le_bytes());
        n += 2;
        if n == buf.len() {
            out.extend_from_slice(&buf);
            n = 0;
        }
    }
    out.extend_from_slice(&buf[..n]);
}

/// Writes a plain header: the main streams (when any folder exists) and
/// the file records.
pub(crate) fn write_header<O: Out + ?Sized>(out: &mut O, main: &StreamsInfo, files: &FileTable) {
    out.push(id::HEADER);
    if !main.folders.is_empty() {
        out.push(id::MAIN_STREAMS_INFO);
        write_streams_info(out, main, true);
    }
    if !files.is_empty() {
        out.push(id::FILES_INFO);
        write_files_info(out, files);
    }
    out.push(id::END);
}

/// The size of the plain header [`write_header`] writes.
pub(crate) fn header_size(main: &StreamsInfo, files: &FileTable) -> u64 {
    let mut n = Count::default();
    write_header(&mut n, main, files);
    n.0 as u64
}

/// The bytes of a plain header, in one buffer of exactly their size.
pub(crate) fn header_bytes(main: &StreamsInfo, files: &FileTable) -> Vec<u8> {
    exact(|out| write_header(out, main, files))
}

/// The bytes of an encoded header: the streams that decode to the real
/// header.
pub(crate) fn write_encoded_header(streams: &StreamsInfo) -> Vec<u8> {
    exact(|out| {
        out.push(id::ENCODED_HEADER);
        write_streams_info(out, streams, false);
    })
}

pub(crate) fn start_header(offset: u64, size: u64, crc: u32) -> [u8; 32] {
    let mut b = [0u8; 32];
    b[..6].copy_from_slice(&SIGNATURE);
    b[7] = MINOR_VERSION;
    b[12..20].copy_from_slice(&offset.to_le_bytes());
    b[20..28].copy_from_slice(&size.to_le_bytes());
    b[28..32].copy_from_slice(&crc.to_le_bytes());
    let start_crc = crc32fast::hash(&b[12..32]);
    b[8..12].copy_from_slice(&start_crc.to_le_bytes());
    b
}

/// The start header of an archive still being written: signature and
/// version, everything else zero, so no reader takes it for complete (the
/// start header CRC does not match).
pub(crate) fn unfinished_start_header() -> [u8; 32] {
    let mut b = [0u8; 32];
    b[..6].copy_from_slice(&SIGNATURE);
    b[7] = MINOR_VERSION;
    b
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::read::byte_reader::ByteReader;
    use crate::read::files_info::FileRecord;
    use crate::read::folder::{BindPair, Coder};
    use crate::read::header::{parse_header_block, Header, HeaderBlock};
    use crate::read::pack_info::PackInfo;
    use crate::read::signature_header::SignatureHeader;
    use crate::read::substreams::SubStreams;
    use crate::write::file_table::Fields;

    #[test]
    fn numbers_round_trip_at_every_width() {
        let cases = [
            0u64,
            0x7F,
            0x80,
            0x3FFF,
            0x4000,
            3024,
            1 << 20,
            (1 << 56) - 1,
            1 << 56,
            u64::MAX,
        ];
        for v in cases {
            let mut out = Vec::new();
            write_number(&mut out, v);
            let mut r = ByteReader::new(&out);
            assert_eq!(r.number().unwrap(), v, "{v:#x}");
            assert_eq!(r.remaining(), 0, "{v:#x} used extra bytes");
        }
        // 3024 as 7-Zip writes it.
        let mut out = Vec::new();
        write_number(&mut out, 3024);
        assert_eq!(out, [0x8B, 0xD0]);
    }

    fn sample_header() -> Header {
        let lzma2 = Coder {
            method: vec![0x21],
            num_in_streams: 1,
            num_out_streams: 1,
            properties: vec![0x10],
        };
        let bcj = Coder {
            method: vec![0x03, 0x03, 0x01, 0x03],
            num_in_streams: 1,
            num_out_streams: 1,
            properties: Vec::new(),
        };
        let folders = vec![
            Folder {
                coders: vec![lzma2.clone(), bcj],
                bind_pairs: vec![BindPair {
                    in_index: 1,
                    out_index: 0,
                }],
                packed_streams: vec![0],
                unpack_sizes: vec![300, 300],
                crc: None,
            },
            Folder {
                coders: vec![lzma2],
                bind_pairs: Vec::new(),
                packed_streams: vec![0],
                unpack_sizes: vec![7],
                crc: None,
            },
        ];
        let file = |name: &str, empty_stream: bool, empty_file: bool| FileRecord {
            name: name.to_string(),
            empty_stream,
            empty_file,
            mtime: Some(1234),
            attributes: Some(0x20),
            ..FileRecord::default()
        };
        let mut dir = file("d", true, false);
        dir.mtime = None;
        dir.ctime = Some(99);
        Header {
            main: StreamsInfo {
                pack: PackInfo {
                    pack_pos: 0,
                    sizes: vec![200, 20],
                    crcs: vec![None, None],
                },
                folders,
                substreams: SubStreams {
                    per_folder: vec![2, 1],
                    sizes: vec![100, 200, 7],
                    crcs: vec![Some(1), Some(2), Some(3)],
                },
            },
            files: vec![
                dir,
                file("a", false, false),
                file("e😀", true, true),
                file("b", false, false),
                file("c", false, false),
            ],
        }
    }

    /// The writer's columns for the records (which use no field the writer
    /// does not write).
    fn table(files: &[FileRecord]) -> FileTable {
        let mut t = FileTable::default();
        for f in files {
            t.push_entry(
                &f.name,
                Fields {
                    empty_stream: f.empty_stream,
                    empty_file: f.empty_file,
                    times: [f.ctime, f.atime, f.mtime],
                    attributes: f.attributes,
                },
            );
        }
        t
    }

    #[test]
    fn header_parses_back_to_the_same_model() {
        let h = sample_header();
        let files = table(&h.files);
        let bytes = header_bytes(&h.main, &files);
        assert_eq!(bytes.len() as u64, header_size(&h.main, &files));
        match parse_header_block(&bytes, 100, 100).unwrap() {
            HeaderBlock::Plain(back) => assert_eq!(back, h),
            HeaderBlock::Encoded(_) => panic!("plain header read as encoded"),
        }
    }

    #[test]
    fn encoded_header_parses_back() {
        let mut s = sample_header().main;
        s.folders.truncate(1);
        s.folders[0].crc = Some(0xDEAD_BEEF);
        s.pack.sizes.truncate(1);
        s.pack.crcs.truncate(1);
        s.substreams = SubStreams::one_per_folder(&s.folders);
        let bytes = write_encoded_header(&s);
        match parse_header_block(&bytes, 100, 100).unwrap() {
            HeaderBlock::Encoded(back) => assert_eq!(back, s),
            HeaderBlock::Plain(_) => panic!("encoded header read as plain"),
        }
    }

    #[test]
    fn start_headers_finished_and_unfinished() {
        let b = start_header(100, 20, 0xAABB_CCDD);
        let h = SignatureHeader::parse(&b).unwrap();
        assert_eq!(
            (h.next_header_offset, h.next_header_size, h.next_header_crc),
            (100, 20, 0xAABB_CCDD)
        );
        assert!(matches!(
            SignatureHeader::parse(&unfinished_start_header()),
            Err(crate::SevenZError::HeaderCrc)
        ));
    }
}
