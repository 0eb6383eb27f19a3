//! The header model: streams info (packed streams, folders, substreams) and
//! the file records, plus the encoded-header indirection.

use crate::read::byte_reader::ByteReader;
use crate::read::files_info::{parse_files_info, FileRecord};
use crate::read::folder::{parse_unpack_info, Folder};
use crate::read::pack_info::PackInfo;
use crate::read::property_id as id;
use crate::read::substreams::SubStreams;
use crate::SevenZError;

/// Packed streams, the folders that decode them and the files they hold.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct StreamsInfo {
    /// The packed streams.
    pub pack: PackInfo,
    /// The folders (coder graphs).
    pub folders: Vec<Folder>,
    /// How folder outputs split into files.
    pub substreams: SubStreams,
}

impl StreamsInfo {
    /// Parses a StreamsInfo record (after its introducing ID): PackInfo,
    /// CodersInfo and SubStreamsInfo, each optional, in this order.
    pub(crate) fn parse(r: &mut ByteReader<'_>) -> Result<Self, SevenZError> {
        let mut info = StreamsInfo::default();
        let mut t = r.id()?;
        if t == id::PACK_INFO {
            info.pack = PackInfo::parse(r)?;
            t = r.id()?;
        }
        if t == id::UNPACK_INFO {
            info.folders = parse_unpack_info(r)?;
            t = r.id()?;
        }
        if t == id::SUBSTREAMS_INFO {
            info.substreams = SubStreams::parse(r, &info.folders)?;
            t = r.id()?;
        } else {
            info.substreams = SubStreams::one_per_folder(&info.folders);
        }
        if t != id::END {
            return Err(SevenZError::corrupt(format!(
                "unexpected property 0x{t:02x} in streams info"
            )));
        }
        let needed: usize = info.folders.iter().map(|f| f.packed_streams.len()).sum();
        if needed > info.pack.sizes.len() {
            return Err(SevenZError::corrupt(
                "folders use more packed streams than exist",
            ));
        }
        for f in &info.folders {
            if f.main_out_index().is_none() {
                return Err(SevenZError::corrupt("folder has no final output"));
            }
        }
        Ok(info)
    }

    /// Index of the first packed stream of each folder.
    pub fn first_pack_stream(&self) -> Vec<usize> {
        let mut at = 0;
        self.folders
            .iter()
            .map(|f| {
                let first = at;
                at += f.packed_streams.len();
                first
            })
            .collect()
    }
}

/// A decoded (plain) header.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Header {
    /// The streams holding file data.
    pub main: StreamsInfo,
    /// One record per entry.
    pub files: Vec<FileRecord>,
}

/// What the bytes at the header position hold.
#[derive(Debug)]
pub(crate) enum HeaderBlock {
    /// The header itself.
    Plain(Header),
    /// A description of packed streams whose decoded output is the header.
    Encoded(StreamsInfo),
}

/// Parses the bytes at the header position. Nothing may follow the
/// record; an encoded header has one folder (none: an empty archive), as
/// 7-Zip requires.
pub(crate) fn parse_header_block(
    data: &[u8],
    max_entries: usize,
    max_name_len: usize,
) -> Result<HeaderBlock, SevenZError> {
    let mut r = ByteReader::new(data);
    let block = match r.id()? {
        id::HEADER => HeaderBlock::Plain(parse_header(&mut r, max_entries, max_name_len)?),
        id::ENCODED_HEADER => {
            let streams = StreamsInfo::parse(&mut r)?;
            match streams.folders.len() {
                0 => HeaderBlock::Plain(Header::default()),
                1 => HeaderBlock::Encoded(streams),
                n => {
                    return Err(SevenZError::corrupt(format!(
                        "the encoded header has {n} folders, not one"
                    )))
                }
            }
        }
        other => {
            return Err(SevenZError::corrupt(format!(
                "header starts with unknown property 0x{other:02x}"
            )))
        }
    };
    if r.remaining() != 0 {
        return Err(SevenZError::corrupt(format!(
            "{} bytes follow the end of the header",
            r.remaining()
        )));
    }
    Ok(block)
}

fn parse_header(
    r: &mut ByteReader<'_>,
    max_entries: usize,
    max_name_len: usize,
) -> Result<Header, SevenZError> {
    let mut header = Header::default();
    let mut t = r.id()?;
    if t == id::ARCHIVE_PROPERTIES {
        while r.id()? != id::END {
            r.skip_data()?;
        }
        t = r.id()?;
    }
    if t == id::ADDITIONAL_STREAMS_INFO {
        // Only referenced by "external" records, which are rejected anyway.
        StreamsInfo::parse(r)?;
        t = r.id()?;
    }
    if t == id::MAIN_STREAMS_INFO {
        header.main = StreamsInfo::parse(r)?;
        t = r.id()?;
    }
    if t == id::FILES_INFO {
        header.files = parse_files_info(r, max_entries, max_name_len)?;
        r.id()?;
    }
    // The ID read last should be kEnd. 7-Zip takes another (warning of an
    // "unsupported feature") when nothing follows it, which the caller
    // checks, so no record is lost.
    let with_data = header.files.iter().filter(|f| !f.empty_stream).count();
    if with_data != header.main.substreams.sizes.len() {
        return Err(SevenZError::corrupt(format!(
            "{with_data} files with data but {} data streams",
            header.main.substreams.sizes.len()
        )));
    }
    Ok(header)
}
