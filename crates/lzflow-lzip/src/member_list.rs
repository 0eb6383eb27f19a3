//! Listing a file's members from its end, without decoding: each version-1
//! trailer gives its member's size, which leads to the member before it.

use std::io::{self, Read, Seek, SeekFrom};

use crate::member_header::{MemberHeader, HEADER_LEN, MAGIC};
use crate::member_trailer::V1_LEN;
use crate::LzipError;

/// Most bytes of trailing data searched for the last member's trailer.
const MAX_TRAILING: u64 = 1 << 16;

/// One member, as its header and trailer describe it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MemberInfo {
    /// Offset of the member in the file.
    pub offset: u64,
    /// Bytes of the member: header, LZMA stream and trailer.
    pub member_size: u64,
    /// Bytes of data it decodes to.
    pub data_size: u64,
    /// Dictionary size from its header.
    pub dict_size: u32,
    /// CRC32 of its data, from its trailer.
    pub crc32: u32,
}

/// A file's members in order, and the bytes of trailing data after them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MemberList {
    /// The members, first to last.
    pub members: Vec<MemberInfo>,
    /// Bytes after the last member that belong to no member.
    pub trailing: u64,
}

impl MemberList {
    /// Total decoded size.
    pub fn data_size(&self) -> u64 {
        self.members.iter().map(|m| m.data_size).sum()
    }
}

/// Reads the members of a seekable `.lz` file from its end, as `lzip -l`
/// does: each trailer's member size leads to the previous member, whose
/// header must be there. Trailing data (up to 64 KiB) after the last member
/// is skipped by searching back for a trailer that leads to a header.
/// Version-0 members have no member size and cannot be listed this way
/// ([`LzipError::UnsupportedVersion`] reports that).
pub fn list_members<R: Read + Seek>(file: &mut R) -> io::Result<MemberList> {
    let len = file.seek(SeekFrom::End(0))?;
    let mut end = len;
    let mut trailing = None;
    let mut members = Vec::new();
    while end > 0 {
        match member_ending_at(file, end)? {
            Some(m) => {
                trailing.get_or_insert(len - end);
                end = m.offset;
                members.push(m);
            }
            None if trailing.is_none() && len - end < MAX_TRAILING && end > 1 => end -= 1,
            None => return Err(corrupt_or_old(file, end)?.into()),
        }
    }
    members.reverse();
    if members.is_empty() {
        return Err(LzipError::NotLzip.into());
    }
    Ok(MemberList {
        members,
        trailing: trailing.unwrap_or(0),
    })
}

/// The member whose trailer ends at `end`, if the bytes there make one.
fn member_ending_at<R: Read + Seek>(file: &mut R, end: u64) -> io::Result<Option<MemberInfo>> {
    const MIN_MEMBER: u64 = (HEADER_LEN + V1_LEN) as u64;
    if end < MIN_MEMBER {
        return Ok(None);
    }
    let mut trailer = [0u8; V1_LEN];
    file.seek(SeekFrom::Start(end - V1_LEN as u64))?;
    file.read_exact(&mut trailer)?;
    let field = |at: usize| u64::from_le_bytes(trailer[at..at + 8].try_into().expect("8 bytes"));
    let (data_size, member_size) = (field(4), field(12));
    if member_size < MIN_MEMBER || member_size > end {
        return Ok(None);
    }
    let offset = end - member_size;
    let mut header = [0u8; HEADER_LEN];
    file.seek(SeekFrom::Start(offset))?;
    file.read_exact(&mut header)?;
    if header[..4] != MAGIC || header[4] != 1 {
        return Ok(None);
    }
    let Ok(h) = MemberHeader::parse(header[4], header[5]) else {
        return Ok(None);
    };
    Ok(Some(MemberInfo {
        offset,
        member_size,
        data_size,
        dict_size: h.dict_size,
        crc32: u32::from_le_bytes(trailer[0..4].try_into().expect("4 bytes")),
    }))
}

/// Why no member ends at `end`: a version-0 member at the start of the file
/// (which the format cannot list backwards), or damage.
fn corrupt_or_old<R: Read + Seek>(file: &mut R, end: u64) -> io::Result<LzipError> {
    let mut head = [0u8; 5];
    file.seek(SeekFrom::Start(0))?;
    let n = file.read(&mut head)?;
    Ok(if n == 5 && head[..4] == MAGIC && head[4] == 0 {
        LzipError::UnsupportedVersion(0)
    } else if n >= 4 && head[..4] == MAGIC {
        LzipError::NoMemberEndsAt(end)
    } else {
        LzipError::NotLzip
    })
}
