//! The local file header (APPNOTE 4.3.7) that precedes each entry's data:
//! 30 fixed bytes, then the name and the extra field. The reader parses
//! the fixed part, reads the [`variable_len`](LocalFileHeader::variable_len)
//! bytes after it, and hands them to
//! [`parse_variable`](LocalFileHeader::parse_variable).

use std::borrow::Cow;
use std::fmt::Display;

use super::central_directory::{CentralEntry, FLAG_DATA_DESCRIPTOR, FLAG_ENCRYPTED, FLAG_UTF8};
use super::dos_time::DosDateTime;
use super::entry_name;
use super::extra_field::{self, Zip64ExtendedInformation, Zip64Fields};
use super::little_endian::FieldReader;
use crate::ZipError;

/// A local file header's fields.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LocalFileHeader {
    /// "Version needed to extract".
    pub version_needed: u16,
    /// The general purpose flags.
    pub flags: u16,
    /// The compression method as stored (99 for WinZip AES).
    pub method: u16,
    /// The MS-DOS modification date and time.
    pub dos_time: DosDateTime,
    /// The CRC-32; 0 when flag bit 3 defers it to the data descriptor.
    pub crc32: u32,
    /// The compressed size, from the Zip64 extra field once
    /// [`parse_variable`](Self::parse_variable) has seen it; 0 (or
    /// anything) when flag bit 3 defers it to the data descriptor.
    pub compressed_size: u64,
    /// The uncompressed size, likewise.
    pub uncompressed_size: u64,
    /// Length of the name after the fixed part.
    pub name_len: u16,
    /// Length of the extra field after the name.
    pub extra_len: u16,
    /// Whether the extra field has a Zip64 block (set by
    /// [`parse_variable`](Self::parse_variable)): the entry's data
    /// descriptor, if any, then has 8-byte sizes.
    pub zip64: bool,
}

impl LocalFileHeader {
    /// `PK\x03\x04`.
    pub const SIGNATURE: u32 = 0x0403_4b50;
    /// The fixed part's length.
    pub const LEN: usize = 30;

    /// Parses the fixed part, the first [`Self::LEN`] bytes of `bytes`.
    pub fn parse(bytes: &[u8]) -> Result<Self, ZipError> {
        let mut r = FieldReader::new(bytes);
        r.signature(Self::SIGNATURE, || {
            ZipError::corrupt("bad local file header signature")
        })?;
        let (
            Some(version_needed),
            Some(flags),
            Some(method),
            Some(time),
            Some(date),
            Some(crc32),
            Some(compressed_size),
            Some(uncompressed_size),
            Some(name_len),
            Some(extra_len),
        ) = (
            r.u16(),
            r.u16(),
            r.u16(),
            r.u16(),
            r.u16(),
            r.u32(),
            r.u32(),
            r.u32(),
            r.u16(),
            r.u16(),
        )
        else {
            return Err(ZipError::Truncated);
        };
        Ok(LocalFileHeader {
            version_needed,
            flags,
            method,
            dos_time: DosDateTime::new(date, time),
            crc32,
            compressed_size: u64::from(compressed_size),
            uncompressed_size: u64::from(uncompressed_size),
            name_len,
            extra_len,
            zip64: false,
        })
    }

    /// The bytes of name and extra field that follow the fixed part.
    pub fn variable_len(&self) -> usize {
        usize::from(self.name_len) + usize::from(self.extra_len)
    }

    /// Where the entry's data starts for a header at `header_offset`
    /// (saturating: an offset near `u64::MAX` is past any file anyway).
    pub fn data_offset(&self, header_offset: u64) -> u64 {
        header_offset
            .saturating_add(Self::LEN as u64)
            .saturating_add(self.variable_len() as u64)
    }

    /// Splits the [`variable_len`](Self::variable_len) bytes after the
    /// fixed part into name and extra field, and takes the sizes from a
    /// Zip64 extra field where the fixed fields are saturated.
    ///
    /// APPNOTE 4.5.3 has a local Zip64 block hold both sizes; when it is
    /// that long, both are read from it, else only the saturated ones.
    pub fn parse_variable<'b>(
        &mut self,
        variable: &'b [u8],
    ) -> Result<(&'b [u8], &'b [u8]), ZipError> {
        let mut r = FieldReader::new(variable);
        let (Some(name), Some(extra)) = (
            r.take(usize::from(self.name_len)),
            r.take(usize::from(self.extra_len)),
        ) else {
            return Err(ZipError::Truncated);
        };
        if let Some(data) = extra_field::find(extra, Zip64ExtendedInformation::ID) {
            self.zip64 = true;
            let saturated = |v: u64| v == u64::from(u32::MAX);
            let both = data.len() >= 16;
            let wanted = Zip64Fields {
                uncompressed_size: both || saturated(self.uncompressed_size),
                compressed_size: both || saturated(self.compressed_size),
                ..Zip64Fields::default()
            };
            let values = Zip64ExtendedInformation::parse(data, wanted)?;
            if saturated(self.uncompressed_size) {
                self.uncompressed_size = values.uncompressed_size.unwrap_or(self.uncompressed_size);
            }
            if saturated(self.compressed_size) {
                self.compressed_size = values.compressed_size.unwrap_or(self.compressed_size);
            }
        }
        Ok((name, extra))
    }

    /// Flag bit 0: the data is encrypted.
    pub fn is_encrypted(&self) -> bool {
        self.flags & FLAG_ENCRYPTED != 0
    }

    /// Flag bit 3: CRC-32 and sizes follow the data in a data descriptor.
    pub fn has_data_descriptor(&self) -> bool {
        self.flags & FLAG_DATA_DESCRIPTOR != 0
    }

    /// Flag bit 11: name and comment are UTF-8.
    pub fn is_utf8(&self) -> bool {
        self.flags & FLAG_UTF8 != 0
    }

    /// The name as text, by the rules of [`CentralEntry::name`].
    pub fn name<'b>(&self, name: &'b [u8], extra: &'b [u8]) -> Cow<'b, str> {
        entry_name::decode_name(name, self.is_utf8(), extra)
    }

    /// Checks this header (with its raw `name`) against the entry's
    /// central header: same name, method and encryption flag, and, unless
    /// flag bit 3 leaves them to the data descriptor, the same CRC-32 and
    /// sizes. The error names the first field that differs.
    pub fn check_against(&self, name: &[u8], central: &CentralEntry<'_>) -> Result<(), ZipError> {
        let mismatch = |field: &str, ours: &dyn Display, theirs: &dyn Display| {
            ZipError::corrupt(format!(
                "local header of {:?} disagrees with the central directory on the {field} \
                 ({ours} against {theirs})",
                central.name(),
            ))
        };
        if name != central.name_bytes() {
            return Err(ZipError::corrupt(format!(
                "local header names {:?} where the central directory names {:?}",
                String::from_utf8_lossy(name),
                String::from_utf8_lossy(central.name_bytes()),
            )));
        }
        if self.method != central.method() {
            return Err(mismatch(
                "compression method",
                &self.method,
                &central.method(),
            ));
        }
        if self.is_encrypted() != central.is_encrypted() {
            return Err(mismatch(
                "encryption flag",
                &self.is_encrypted(),
                &central.is_encrypted(),
            ));
        }
        if self.has_data_descriptor() {
            return Ok(());
        }
        if self.crc32 != central.crc32() {
            return Err(mismatch(
                "CRC-32",
                &format_args!("{:08x}", self.crc32),
                &format_args!("{:08x}", central.crc32()),
            ));
        }
        if self.compressed_size != central.compressed_size() {
            return Err(mismatch(
                "compressed size",
                &self.compressed_size,
                &central.compressed_size(),
            ));
        }
        if self.uncompressed_size != central.uncompressed_size() {
            return Err(mismatch(
                "uncompressed size",
                &self.uncompressed_size,
                &central.uncompressed_size(),
            ));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_archive::{open, TestArchive, TestEntry, DOS_DATE, DOS_TIME};
    use super::*;

    /// Parses the local header of every entry of `file` and checks it.
    fn check_all(file: &[u8]) -> Result<Vec<LocalFileHeader>, ZipError> {
        let cd = open(file)?;
        let mut out = Vec::new();
        for e in cd.iter() {
            let at = e.local_header_offset() as usize;
            let mut h = LocalFileHeader::parse(&file[at..])?;
            let var = &file[at + LocalFileHeader::LEN..][..h.variable_len()];
            let (name, _extra) = h.parse_variable(var)?;
            h.check_against(name, &e)?;
            out.push(h);
        }
        Ok(out)
    }

    #[test]
    fn headers_match_their_central_records() {
        let mut z = TestEntry::stored("z64", b"zip64 data");
        z.zip64 = true;
        let mut dd = TestEntry::stored("dd", b"described later");
        dd.flags |= FLAG_DATA_DESCRIPTOR;
        let file = TestArchive::new(vec![TestEntry::stored("plain", b"plain"), z, dd]).build();
        let headers = check_all(&file).unwrap();
        assert_eq!(headers[0].dos_time, DosDateTime::new(DOS_DATE, DOS_TIME));
        assert_eq!(headers[0].data_offset(0), 35);
        assert!(headers[1].zip64);
        assert_eq!(headers[1].compressed_size, 10);
        assert!(headers[2].has_data_descriptor());
        assert_eq!(headers[2].crc32, 0);
    }

    #[test]
    fn mismatches_name_the_field() {
        let file = TestArchive::new(vec![TestEntry::stored("a.txt", b"alpha")]).build();
        // (position in the local header, expected word in the message)
        for (at, what) in [
            (8, "compression method"),
            (6, "encryption flag"),
            (14, "CRC-32"),
            (18, "compressed size"),
            (22, "uncompressed size"),
            (30, "names"),
        ] {
            let mut f = file.clone();
            f[at] ^= 1;
            match check_all(&f) {
                Err(ZipError::Corrupt(m)) => assert!(m.contains(what), "{m}"),
                other => panic!("{what}: {other:?}"),
            }
        }
        let mut f = file.clone();
        f[3] = 5;
        assert!(matches!(check_all(&f), Err(ZipError::Corrupt(m)) if m.contains("signature")));
    }

    #[test]
    fn truncated_headers_never_panic() {
        let mut z = TestEntry::stored("z64", b"zip64 data");
        z.zip64 = true;
        let file = TestArchive::new(vec![z]).build();
        let fixed = &file[..LocalFileHeader::LEN];
        for len in 0..LocalFileHeader::LEN {
            assert!(matches!(
                LocalFileHeader::parse(&fixed[..len]),
                Err(ZipError::Truncated)
            ));
        }
        let h = LocalFileHeader::parse(fixed).unwrap();
        let var = &file[LocalFileHeader::LEN..][..h.variable_len()];
        for len in 0..var.len() {
            assert!(h.clone().parse_variable(&var[..len]).is_err());
        }
        // A Zip64 block too short for the saturated sizes.
        let mut short = h;
        short.extra_len = 4 + 4;
        let mut var = b"z64".to_vec();
        var.extend_from_slice(&[1, 0, 4, 0, 0, 0, 0, 0]);
        assert!(matches!(
            short.parse_variable(&var),
            Err(ZipError::Corrupt(m)) if m.contains("Zip64")
        ));
    }
}
