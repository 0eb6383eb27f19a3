//! The header model: streams info (packed streams, folders, substreams) and
//! the file records, plus the encoded-header indirection.

use crate::byte_reader::ByteReader;
use crate::files_info::{parse_files_info, FileRecord};
use crate::folder::{parse_unpack_info, Folder};
use crate::pack_info::PackInfo;
use crate::property_id as id;
use crate::substreams::SubStreams;
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
    /// Parses a StreamsInfo record (after its introducing ID).
    pub(crate) fn parse(r: &mut ByteReader<'_>) -> Result<Self, SevenZError> {
        let mut info = StreamsInfo::default();
        let mut substreams = None;
        loop {
            match r.byte()? {
                id::END => break,
                id::PACK_INFO => info.pack = PackInfo::parse(r)?,
                id::UNPACK_INFO => info.folders = parse_unpack_info(r)?,
                id::SUBSTREAMS_INFO => substreams = Some(SubStreams::parse(r, &info.folders)?),
                other => {
                    return Err(SevenZError::corrupt(format!(
                        "unexpected property 0x{other:02x} in streams info"
                    )))
                }
            }
        }
        info.substreams = match substreams {
            Some(s) => s,
            None => SubStreams::one_per_folder(&info.folders),
        };
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

/// Parses the bytes at the header position.
pub(crate) fn parse_header_block(
    data: &[u8],
    max_entries: usize,
    max_name_len: usize,
) -> Result<HeaderBlock, SevenZError> {
    let mut r = ByteReader::new(data);
    match r.byte()? {
        id::HEADER => parse_header(&mut r, max_entries, max_name_len).map(HeaderBlock::Plain),
        id::ENCODED_HEADER => StreamsInfo::parse(&mut r).map(HeaderBlock::Encoded),
        other => Err(SevenZError::corrupt(format!(
            "header starts with unknown property 0x{other:02x}"
        ))),
    }
}

fn parse_header(
    r: &mut ByteReader<'_>,
    max_entries: usize,
    max_name_len: usize,
) -> Result<Header, SevenZError> {
    let mut header = Header::default();
    let mut t = r.byte()?;
    if t == id::ARCHIVE_PROPERTIES {
        loop {
            if r.byte()? == 0 {
                break;
            }
            let size = r.number()?;
            r.bytes(size)?;
        }
        t = r.byte()?;
    }
    if t == id::ADDITIONAL_STREAMS_INFO {
        // Only referenced by "external" records, which are rejected anyway.
        StreamsInfo::parse(r)?;
        t = r.byte()?;
    }
    if t == id::MAIN_STREAMS_INFO {
        header.main = StreamsInfo::parse(r)?;
        t = r.byte()?;
    }
    if t == id::FILES_INFO {
        header.files = parse_files_info(r, max_entries, max_name_len)?;
        t = r.byte()?;
    }
    if t != id::END {
        return Err(SevenZError::corrupt(format!(
            "unexpected property 0x{t:02x} in header"
        )));
    }
    let with_data = header.files.iter().filter(|f| !f.empty_stream).count();
    if with_data != header.main.substreams.sizes.len() {
        return Err(SevenZError::corrupt(format!(
            "{with_data} files with data but {} data streams",
            header.main.substreams.sizes.len()
        )));
    }
    Ok(header)
}
