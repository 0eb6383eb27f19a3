//! lzflow is exactly as strict as 7-Zip on crafted archives. Each test
//! asserts lzflow's exact verdict and, when `7zz` is installed, that
//! `7zz t` agrees on ok versus error; the comment says what `7zz t`
//! reports.

mod common;

use std::io::{Cursor, Read};

use common::craft::{
    self, assemble, id, method, names_utf16, property, seven_zip_accepts, OneFolder,
};
use lzflow_7z::{Archive, EntryMeta, Method, SevenZError, Solid, Writer, WriterOptions};
use lzflow_lzma::LzmaError;

/// Opens `archive` and reads every entry: the names and data.
fn read_all(archive: &[u8]) -> Result<Vec<(String, Vec<u8>)>, SevenZError> {
    let mut a = Archive::open(Cursor::new(archive.to_vec()))?;
    let mut out = Vec::new();
    a.for_each_entry(|e, r| {
        let mut data = Vec::new();
        r.read_to_end(&mut data)?;
        out.push((e.name.clone(), data));
        Ok(())
    })?;
    Ok(out)
}

/// lzflow's verdict on `archive`, after checking that `7zz t` agrees on
/// ok versus error (when it is installed).
fn verdict(archive: &[u8]) -> Result<Vec<(String, Vec<u8>)>, SevenZError> {
    let ours = read_all(archive);
    if let Some(theirs) = seven_zip_accepts(archive, "") {
        let summary = ours
            .as_ref()
            .map(|v| v.iter().map(|(n, d)| (n, d.len())).collect::<Vec<_>>());
        assert_eq!(
            theirs,
            ours.is_ok(),
            "7zz disagrees with lzflow: {summary:?}"
        );
    }
    ours
}

/// A folder error only shows when the data is read: opening succeeds.
fn data_error(archive: &[u8]) -> SevenZError {
    assert!(
        Archive::open(Cursor::new(archive.to_vec())).is_ok(),
        "the header is fine"
    );
    verdict(archive).unwrap_err()
}

fn text() -> Vec<u8> {
    let mut rng = common::Rng::new(11);
    common::text(&mut rng, 5000)
}

/// A folder of one coder (LZMA2 or LZMA, written by lzflow's writer)
/// decoding to `data`: its method ID, properties and packed stream.
fn coded(m: Method, data: &[u8]) -> (Vec<u8>, Vec<u8>, Vec<u8>) {
    let opts = WriterOptions::default()
        .with_method(m)
        .with_compress_header(false)
        .with_solid(Solid::None);
    let mut w = Writer::with_options(Cursor::new(Vec::new()), opts).unwrap();
    w.add_file("a", data, EntryMeta::default()).unwrap();
    let archive = w.finish().unwrap().into_inner();
    let (packed, header) = craft::split(&archive);
    let (id_bytes, props_len) = match m {
        Method::Lzma2 => (method::LZMA2, 1),
        Method::Lzma => (method::LZMA, 5),
        Method::Copy | Method::Deflate | Method::BZip2 | Method::Ppmd { .. } => {
            unreachable!("not a method these tests use")
        }
    };
    // The coder record: flags (ID length | has properties), ID, size,
    // properties.
    let mut record = vec![id_bytes.len() as u8 | 0x20];
    record.extend_from_slice(id_bytes);
    record.push(props_len as u8);
    let at = header
        .windows(record.len())
        .position(|w| w == record)
        .expect("the coder record")
        + record.len();
    (
        id_bytes.to_vec(),
        header[at..at + props_len].to_vec(),
        packed.to_vec(),
    )
}

fn lzma2_folder(data: &[u8]) -> OneFolder {
    let (m, props, packed) = coded(Method::Lzma2, data);
    OneFolder::coded(&m, &props, packed, &[("a", data)])
}

#[test]
fn the_crafted_archive_is_valid() {
    // 7zz t: Everything is Ok.
    let data = text();
    let got = verdict(&OneFolder::copy(&[("a", b"hello"), ("b", &data)]).archive()).unwrap();
    assert_eq!(
        got,
        [("a".into(), b"hello".to_vec()), ("b".into(), data.clone())]
    );
    assert_eq!(verdict(&lzma2_folder(&data).archive()).unwrap()[0].1, data);
}

// ---- data ----

#[test]
fn a_zero_length_entry_with_a_stream_has_its_crc_checked() {
    // 7zz t: "CRC Failed : e" for a stored CRC that is not 0.
    let files: [(&str, &[u8]); 2] = [("a", b"hello"), ("e", b"")];
    let mut f = OneFolder::copy(&files);
    assert_eq!(f.crcs[1], 0, "the CRC of no data");
    assert!(verdict(&f.archive()).is_ok());
    f.crcs[1] = 1234;
    let archive = f.archive();
    assert!(matches!(data_error(&archive), SevenZError::DataCrc { entry } if entry == "e"));
    // The single-entry reader checks it too.
    let mut a = Archive::open(Cursor::new(archive)).unwrap();
    let mut data = Vec::new();
    let r = a.reader(1).unwrap().read_to_end(&mut data);
    assert!(matches!(
        SevenZError::from(r.unwrap_err()),
        SevenZError::DataCrc { entry } if entry == "e"
    ));
}

#[test]
fn packed_bytes_after_a_copy_folder_are_a_data_error() {
    // 7zz t: "There are some data after the end of the payload data".
    let mut f = OneFolder::copy(&[("a", b"hello")]);
    f.packed.push(b'!');
    assert!(matches!(
        data_error(&f.archive()),
        SevenZError::DataSize { folder, .. } if folder == "folder 0"
    ));
}

#[test]
fn packed_bytes_after_the_lzma2_end_are_a_data_error() {
    // 7zz t: "Data Error", whatever the byte.
    let data = text();
    for extra in [0x00, 0x55] {
        let mut f = lzma2_folder(&data);
        f.packed.push(extra);
        assert!(matches!(
            data_error(&f.archive()),
            SevenZError::DataSize { .. }
        ));
    }
}

#[test]
fn packed_bytes_after_the_lzma_end_are_a_data_error() {
    // 7zz t: "There are some data after the end of the payload data".
    let data = text();
    let (m, props, mut packed) = coded(Method::Lzma, &data);
    assert!(
        verdict(&OneFolder::coded(&m, &props, packed.clone(), &[("a", &data)]).archive()).is_ok()
    );
    packed.push(0);
    let f = OneFolder::coded(&m, &props, packed, &[("a", &data)]);
    assert!(matches!(
        data_error(&f.archive()),
        SevenZError::DataSize { .. }
    ));
}

#[test]
fn a_coder_producing_more_than_its_unpack_size_is_a_data_error() {
    // 7zz t: "Data Error" (LZMA2 and LZMA decode past the declared size).
    let data = text();
    let short = &data[..data.len() - 1];
    let mut f = lzma2_folder(&data);
    f.unpack_size -= 1;
    f.sizes[0] -= 1;
    f.crcs[0] = crc32fast::hash(short);
    assert!(matches!(
        data_error(&f.archive()),
        SevenZError::DataSize { .. }
    ));
    let (m, props, packed) = coded(Method::Lzma, &data);
    let f = OneFolder::coded(&m, &props, packed, &[("a", short)]);
    assert!(matches!(
        data_error(&f.archive()),
        SevenZError::Lzma(LzmaError::SizeMismatch { .. })
    ));
}

#[test]
fn lzma2_without_its_end_byte_is_accepted_like_7zip() {
    // 7zz t: Everything is Ok (multi-threaded; `-mmt=1` says "Data
    // Error"). Nothing is lost: the folder's size says where the data ends.
    let data = text();
    let mut f = lzma2_folder(&data);
    assert_eq!(f.packed.pop(), Some(0x00), "the end byte");
    assert_eq!(verdict(&f.archive()).unwrap()[0].1, data);
    // A stream cut inside a chunk is still short.
    f.packed.pop();
    assert!(matches!(
        data_error(&f.archive()),
        SevenZError::Lzma(LzmaError::Truncated)
    ));
}

/// Offsets of the chunk headers of an LZMA2 stream, the end byte last.
fn lzma2_chunks(s: &[u8]) -> Vec<usize> {
    let mut at = 0;
    let mut out = Vec::new();
    loop {
        out.push(at);
        let c = s[at];
        let size = |i: usize| usize::from(u16::from_be_bytes([s[at + i], s[at + i + 1]])) + 1;
        at += match c {
            0x00 => return out,
            0x01 | 0x02 => 3 + size(1),
            _ => (if c >= 0xC0 { 6 } else { 5 }) + size(3),
        };
    }
}

#[test]
fn an_lzma2_chunk_size_that_disagrees_with_its_data_is_an_error_however_the_folder_ends() {
    // 7zz t: "Data Error", with or without the end byte after the chunk.
    let data = text();
    let f = lzma2_folder(&data);
    let chunks = lzma2_chunks(&f.packed);
    let last = chunks[chunks.len() - 2];
    assert!(f.packed[last] >= 0x80, "an LZMA chunk");
    // The last chunk claims one packed byte more, and the byte is there.
    let mut packed = f.packed.clone();
    let size = u16::from_be_bytes([packed[last + 3], packed[last + 4]]) + 1;
    packed[last + 3..last + 5].copy_from_slice(&size.to_be_bytes());
    let end = packed.len() - 1;
    packed.insert(end, 0);
    for with_end_byte in [true, false] {
        let mut f = f.clone();
        f.packed = packed.clone();
        if !with_end_byte {
            f.packed.pop();
        }
        assert!(
            matches!(
                data_error(&f.archive()),
                SevenZError::Lzma(LzmaError::ChunkSizeMismatch)
            ),
            "end byte: {with_end_byte}"
        );
    }
}

// ---- header ----

/// A header error: opening fails with [`SevenZError::Corrupt`].
fn header_error(archive: &[u8]) {
    let r = verdict(archive);
    assert!(matches!(r, Err(SevenZError::Corrupt(_))), "{r:?}");
}

#[test]
fn bytes_after_the_final_end_are_a_header_error() {
    // 7zz t: "Headers Error".
    let f = OneFolder::copy(&[("a", b"hello")]);
    for extra in [0x00, 0x01, 0x19] {
        let mut h = f.header();
        h.push(extra);
        header_error(&assemble(&f.packed, &h));
    }
}

#[test]
fn a_header_ending_in_another_id_than_end_is_accepted_like_7zip() {
    // 7zz t: Everything is Ok, with the warning "Unsupported feature".
    // Nothing follows the ID, so nothing is lost.
    let f = OneFolder::copy(&[("a", b"hello")]);
    for last in [id::FILES_INFO, 0x33] {
        let mut h = f.header();
        *h.last_mut().unwrap() = last;
        assert_eq!(verdict(&assemble(&f.packed, &h)).unwrap()[0].1, b"hello");
    }
}

#[test]
fn a_header_cut_before_its_final_end_is_a_header_error() {
    // 7zz t: "Cannot open the file as [7z] archive" (Headers Error).
    let f = OneFolder::copy(&[("a", b"hello")]);
    let mut h = f.header();
    h.pop();
    header_error(&assemble(&f.packed, &h));
}

#[test]
fn names_beyond_the_file_count_are_a_header_error() {
    // 7zz t: "Headers Error" for an extra name, an extra unit and an odd
    // trailing byte.
    let files: [(&str, &[u8]); 2] = [("a", b"x"), ("b", b"y")];
    let mut f = OneFolder::copy(&files);
    f.names = craft::names(&["a", "b", "c"]);
    header_error(&f.archive());
    f.names = craft::names(&["a", "b"]);
    f.names.extend([b'c', 0]);
    header_error(&f.archive());
    f.names = craft::names(&["a", "b"]);
    f.names.push(b'c');
    header_error(&f.archive());
}

#[test]
fn a_nul_inside_a_name_is_a_header_error() {
    // 7zz t: "Headers Error". Before, lzflow read "a" and dropped "b".
    let mut f = OneFolder::copy(&[("a", b"x")]);
    f.names = craft::names(&["a\0b"]);
    header_error(&f.archive());
}

#[test]
fn lone_surrogates_in_names_read_as_replacement_characters() {
    // 7zz t: Everything is Ok (7zz l shows the surrogates as they are,
    // which UTF-8 cannot hold).
    let files: [(&str, &[u8]); 2] = [("a", b"x"), ("b", b"y")];
    let mut f = OneFolder::copy(&files);
    f.names = names_utf16(&[0x61, 0xD800, 0x62, 0, 0xDC00, 0]);
    let got = verdict(&f.archive()).unwrap();
    assert_eq!(got[0].0, "a\u{FFFD}b");
    assert_eq!(got[1].0, "\u{FFFD}");
}

#[test]
fn dummy_padding_must_be_zero() {
    // 7zz t: Everything is Ok for zeros, "Headers Error" otherwise.
    let mut f = OneFolder::copy(&[("a", b"x")]);
    f.file_props = property(id::DUMMY, &[0, 0, 0]);
    assert!(verdict(&f.archive()).is_ok());
    f.file_props = property(id::DUMMY, &[0, 1, 0]);
    header_error(&f.archive());
}

#[test]
fn a_file_property_must_be_used_exactly() {
    // 7zz t: "Headers Error" for a byte left over in a known property.
    let mut f = OneFolder::copy(&[("a", b"x")]);
    let mtime = [&[1u8, 0][..], &7u64.to_le_bytes()].concat();
    f.file_props = property(id::MTIME, &mtime);
    assert!(verdict(&f.archive()).is_ok());
    f.file_props = property(id::MTIME, &[&mtime[..], &[0]].concat());
    header_error(&f.archive());
    f.file_props = property(id::EMPTY_STREAM, &[0, 0]);
    header_error(&f.archive());
}

#[test]
fn unknown_properties_are_skipped_like_7zip() {
    // 7zz t: Everything is Ok (a warning in FilesInfo). IDs are NUMBERs:
    // 0x80 0x30 is one ID.
    let mut f = OneFolder::copy(&[("a", b"x")]);
    for p in [
        property(0x30, &[1, 2]),
        [&[0x80][..], &property(0x30, &[0])].concat(),
    ] {
        f.file_props = p;
        assert!(verdict(&f.archive()).is_ok());
    }
    // In PackInfo, CodersInfo and SubStreamsInfo too.
    let f = OneFolder::copy(&[("a", b"x")]);
    let h = f.header();
    let unknown = property(0x30, &[9]);
    for (after, what) in [
        (&[id::PACK_INFO, 0, 1][..], "pack info, before kSize"),
        (&[id::UNPACK_INFO][..], "coders info, before kFolder"),
        (&[id::SUBSTREAMS_INFO][..], "substreams info"),
    ] {
        let at = h.windows(after.len()).position(|w| w == after).unwrap() + after.len();
        let mut bad = h.clone();
        bad.splice(at..at, unknown.iter().copied());
        assert!(verdict(&assemble(&f.packed, &bad)).is_ok(), "{what}");
    }
}

#[test]
fn streams_info_records_come_in_order() {
    // 7zz t: "Headers Error" for CodersInfo before PackInfo, a repeated
    // PackInfo, and an unknown record in StreamsInfo.
    let f = OneFolder::copy(&[("a", b"x")]);
    let h = f.header();
    let pack_at = 2;
    let unpack_at = h.iter().position(|&b| b == id::UNPACK_INFO).unwrap();
    let subs_at = h.iter().position(|&b| b == id::SUBSTREAMS_INFO).unwrap();
    let (pack, unpack) = (&h[pack_at..unpack_at], &h[unpack_at..subs_at]);
    let swapped = [&h[..pack_at], unpack, pack, &h[subs_at..]].concat();
    header_error(&assemble(&f.packed, &swapped));
    let twice = [&h[..unpack_at], pack, &h[unpack_at..]].concat();
    header_error(&assemble(&f.packed, &twice));
    let unknown = [&h[..subs_at], &[0x30], &h[subs_at..]].concat();
    header_error(&assemble(&f.packed, &unknown));
    // PackInfo without its sizes.
    let no_sizes = [
        &h[..pack_at],
        &[id::PACK_INFO, 0, 1, id::END],
        &h[unpack_at..],
    ]
    .concat();
    header_error(&assemble(&f.packed, &no_sizes));
}

#[test]
fn the_reserved_coder_flag_is_a_header_error() {
    // 7zz t: "Unsupported feature" (an open error).
    let f = OneFolder::copy(&[("a", b"x")]);
    let mut h = f.header();
    let at = h
        .windows(5)
        .position(|w| w == [id::UNPACK_INFO, id::FOLDER, 1, 0, 1])
        .unwrap()
        + 5;
    assert_eq!(h[at], 0x01, "Copy: an ID of one byte");
    h[at] |= 0x40;
    header_error(&assemble(&f.packed, &h));
}

/// An archive whose header is stored as a Copy folder, `pack_extra`
/// after it in its packed stream and `tail` after the encoded-header
/// record.
fn encoded_header(pack_extra: &[u8], tail: &[u8]) -> Vec<u8> {
    let files: [(&str, &[u8]); 2] = [("a", b"hello"), ("b", b"world")];
    let f = OneFolder::copy(&files);
    let h = f.header();
    let packed = [&f.packed[..], &h, pack_extra].concat();
    let mut e = vec![id::ENCODED_HEADER, id::PACK_INFO];
    e.extend(craft::number(f.packed.len() as u64));
    e.extend([1, id::SIZE]);
    e.extend(craft::number((h.len() + pack_extra.len()) as u64));
    e.extend([id::END, id::UNPACK_INFO, id::FOLDER, 1, 0, 1, 0x01, 0x00]);
    e.push(id::CODERS_UNPACK_SIZE);
    e.extend(craft::number(h.len() as u64));
    e.extend([id::CRC, 1]);
    e.extend(crc32fast::hash(&h).to_le_bytes());
    e.extend([id::END, id::END]);
    e.extend_from_slice(tail);
    assemble(&packed, &e)
}

#[test]
fn an_encoded_header_must_use_its_whole_packed_stream() {
    // 7zz t: Everything is Ok; "Headers Error" with a byte left in the
    // header's packed stream or after the encoded-header record.
    assert_eq!(verdict(&encoded_header(&[], &[])).unwrap().len(), 2);
    let r = verdict(&encoded_header(&[0], &[]));
    assert!(
        matches!(&r, Err(SevenZError::DataSize { folder, .. }) if folder == "the archive header"),
        "{r:?}"
    );
    header_error(&encoded_header(&[], &[0]));
}

#[test]
fn an_encoded_header_without_folders_is_an_empty_archive() {
    // 7zz t: "No files to process" (ok).
    let f = OneFolder::copy(&[("a", b"hello")]);
    let bare = [id::ENCODED_HEADER, id::END];
    assert_eq!(verdict(&assemble(&f.packed, &bare)).unwrap(), []);
}

/// A BCJ (x86) coder fed by `inner` (method ID, properties) whose packed
/// stream is `packed`; the folder decodes to `data` (no branch
/// instructions in it, so BCJ changes nothing).
fn bcj_over(
    inner: &[u8],
    props: &[u8],
    packed: Vec<u8>,
    data: &[u8],
    inner_size: u64,
) -> OneFolder {
    let mut f = OneFolder::coded(method::COPY, &[], packed, &[("a", data)]);
    // Coder 0: BCJ; coder 1: the inner coder; bind pair: BCJ's input
    // (0) takes coder 1's output; the packed stream feeds input 1.
    let mut record = vec![0x02, 0x04, 0x03, 0x03, 0x01, 0x03];
    record.push(inner.len() as u8 | if props.is_empty() { 0 } else { 0x20 });
    record.extend_from_slice(inner);
    if !props.is_empty() {
        record.push(props.len() as u8);
        record.extend_from_slice(props);
    }
    record.extend([0x00, 0x01]);
    f.folder = Some((record, vec![data.len() as u64, inner_size]));
    f
}

#[test]
fn a_coder_feeding_another_may_end_early_unless_it_checks_its_size() {
    // 7zz t: Everything is Ok for a Copy coder under BCJ that declares a
    // byte more than its packed stream (BCJ gets all it needs, nothing is
    // lost); "Data Error" for LZMA2, whose decoder checks its size.
    let data = b"plain text without branches".repeat(20);
    let n = data.len() as u64;
    assert_eq!(
        verdict(&bcj_over(method::COPY, &[], data.clone(), &data, n).archive()).unwrap()[0].1,
        data
    );
    assert_eq!(
        verdict(&bcj_over(method::COPY, &[], data.clone(), &data, n + 1).archive()).unwrap()[0].1,
        data
    );
    let (m, props, packed) = coded(Method::Lzma2, &data);
    assert!(verdict(&bcj_over(&m, &props, packed.clone(), &data, n).archive()).is_ok());
    assert!(matches!(
        data_error(&bcj_over(&m, &props, packed, &data, n + 1).archive()),
        SevenZError::DataSize { .. }
    ));
}

#[test]
fn every_coder_must_feed_the_folder_output() {
    // 7zz t: an error (7-Zip checks that the bind pairs reach every coder
    // from the output). Here the inner coder binds to itself, and the
    // output is BCJ over the packed stream directly.
    let data = b"plain text without branches".repeat(20);
    let n = data.len() as u64;
    let mut f = bcj_over(method::COPY, &[], data.clone(), &data, n);
    let (record, _) = f.folder.as_mut().unwrap();
    let len = record.len();
    // Bind pair: coder 1's input (1) takes coder 1's output (1); the free
    // input 0 is BCJ's, fed by the packed stream.
    record[len - 2..].copy_from_slice(&[0x01, 0x01]);
    let r = verdict(&f.archive());
    assert!(matches!(&r, Err(SevenZError::Corrupt(_))), "{r:?}");
}

#[test]
fn an_encoded_header_has_one_folder() {
    // 7zz t: "Headers Error" for a header split over two Copy folders
    // (lzflow used to join them).
    let f = OneFolder::copy(&[("a", b"hello")]);
    let h = f.header();
    let (h1, h2) = h.split_at(10);
    let packed = [&f.packed[..], h1, h2].concat();
    let mut e = vec![id::ENCODED_HEADER, id::PACK_INFO];
    e.extend(craft::number(f.packed.len() as u64));
    e.extend([2, id::SIZE, h1.len() as u8, h2.len() as u8, id::END]);
    e.extend([
        id::UNPACK_INFO,
        id::FOLDER,
        2,
        0,
        1,
        0x01,
        0x00,
        1,
        0x01,
        0x00,
    ]);
    e.extend([id::CODERS_UNPACK_SIZE, h1.len() as u8, h2.len() as u8]);
    e.extend([id::END, id::END]);
    header_error(&assemble(&packed, &e));
}

/// An encoded-header record for a Copy folder holding `content`, stored at
/// `pack_pos`.
fn copy_encoded_header(pack_pos: u64, content: &[u8]) -> Vec<u8> {
    let mut e = vec![id::ENCODED_HEADER, id::PACK_INFO];
    e.extend(craft::number(pack_pos));
    e.extend([1, id::SIZE]);
    e.extend(craft::number(content.len() as u64));
    e.extend([id::END, id::UNPACK_INFO, id::FOLDER, 1, 0, 1, 0x01, 0x00]);
    e.push(id::CODERS_UNPACK_SIZE);
    e.extend(craft::number(content.len() as u64));
    e.extend([id::CRC, 1]);
    e.extend(crc32fast::hash(content).to_le_bytes());
    e.extend([id::END, id::END]);
    e
}

#[test]
fn a_header_encoded_twice_is_a_header_error() {
    // 7-Zip requires the decoded header to be a plain one ("Headers
    // Error" / cannot open).
    let f = OneFolder::copy(&[("a", b"hello")]);
    let h = f.header();
    let inner = copy_encoded_header(f.packed.len() as u64, &h);
    let outer = copy_encoded_header((f.packed.len() + h.len()) as u64, &inner);
    let packed = [&f.packed[..], &h, &inner].concat();
    let archive = assemble(&packed, &outer);
    header_error(&archive);
    if let Some(accepted) = craft::seven_zip_accepts(&archive, "") {
        assert!(!accepted, "7zz refuses it too");
    }
    // Encoded once, the same header opens.
    let once = assemble(&[&f.packed[..], &h].concat(), &inner);
    assert_eq!(verdict(&once).unwrap()[0].1, b"hello");
}
