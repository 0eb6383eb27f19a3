//! The front door: which format a stream is, from its first bytes, and a
//! reader or archive for it without naming the format
//! ([`detect`], [`decoder`], [`open_archive`]).
//!
//! Single-stream formats (`.xz`, `.lzma`, `.lz`) are told apart by their
//! magic bytes; `.lzma` has none and is recognised as xz recognises it (a
//! valid properties byte, a dictionary size of the form 2^n or 2^n +
//! 2^(n-1), a plausible uncompressed size). Raw LZMA and LZMA2 streams
//! carry nothing to detect and are not guessed. Archives: 7z by its
//! signature; zip by a local header or an empty archive's end record at
//! the start, or, for [`open_archive`], by its end record at the end
//! (self-extracting archives).

use std::io::{self, Cursor, Read};
#[cfg(any(feature = "sevenz", feature = "zip"))]
use std::{
    io::{Seek, SeekFrom},
    path::Path,
};

#[cfg(any(feature = "sevenz", feature = "zip"))]
use crate::extract::ExtractOptions;

/// A format lzflow reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Format {
    /// `.xz`.
    Xz,
    /// `.lzma` (LZMA-alone).
    Lzma,
    /// `.lz` (lzip).
    Lzip,
    /// A 7z archive.
    SevenZ,
    /// A zip archive.
    Zip,
}

impl Format {
    /// True for the archive formats ([`open_archive`]'s), false for the
    /// single streams ([`decoder`]'s).
    pub fn is_archive(self) -> bool {
        matches!(self, Format::SevenZ | Format::Zip)
    }
}

/// Bytes [`detect`] needs to decide every format: the LZMA-alone header's
/// 13.
pub const DETECT_LEN: usize = 13;

const XZ_MAGIC: [u8; 6] = [0xFD, b'7', b'z', b'X', b'Z', 0x00];
const SEVEN_Z_MAGIC: [u8; 6] = [b'7', b'z', 0xBC, 0xAF, 0x27, 0x1C];
const LZIP_MAGIC: [u8; 4] = *b"LZIP";
/// A local file header, and an empty archive's end record.
const ZIP_MAGICS: [[u8; 4]; 2] = [*b"PK\x03\x04", *b"PK\x05\x06"];

/// The format of a stream whose first bytes are `head` ([`DETECT_LEN`] of
/// them, or all there are); `None` when it is none lzflow recognises.
pub fn detect(head: &[u8]) -> Option<Format> {
    if head.starts_with(&XZ_MAGIC) {
        Some(Format::Xz)
    } else if head.starts_with(&SEVEN_Z_MAGIC) {
        Some(Format::SevenZ)
    } else if head.starts_with(&LZIP_MAGIC) {
        Some(Format::Lzip)
    } else if ZIP_MAGICS.iter().any(|m| head.starts_with(m)) {
        Some(Format::Zip)
    } else if looks_like_lzma_alone(head) {
        Some(Format::Lzma)
    } else {
        None
    }
}

fn looks_like_lzma_alone(head: &[u8]) -> bool {
    // lc/lp/pb: lc + lp * 9 + pb * 45, each within its range.
    if head.len() < DETECT_LEN || head[0] >= 9 * 5 * 5 {
        return false;
    }
    let dict = u32::from_le_bytes([head[1], head[2], head[3], head[4]]);
    let mut size = [0u8; 8];
    size.copy_from_slice(&head[5..13]);
    let size = u64::from_le_bytes(size);
    let dict_ok = dict == u32::MAX || {
        // 2^n or 2^n + 2^(n-1): at most two set bits, and adjacent.
        let low = dict & dict.wrapping_neg();
        let rest = dict - low;
        dict != 0 && (rest == 0 || rest == low << 1)
    };
    // Unknown, or below 256 GiB as xz requires of a file it detects.
    dict_ok && (size == u64::MAX || size < 1 << 38)
}

/// Reads up to [`DETECT_LEN`] bytes (fewer only at the end of `r`).
fn read_head(r: &mut impl Read) -> io::Result<Vec<u8>> {
    let mut head = Vec::with_capacity(DETECT_LEN);
    r.by_ref().take(DETECT_LEN as u64).read_to_end(&mut head)?;
    Ok(head)
}

/// What [`decoder`] reads from: the bytes it looked at, then the rest.
pub type Sniffed<R> = io::Chain<Cursor<Vec<u8>>, R>;

/// A decoder of whichever single-stream format [`decoder`] found.
#[derive(Debug)]
#[non_exhaustive]
pub enum AnyDecoder<R: Read> {
    /// `.xz` (every stream, as `xz -d`).
    Xz(Box<crate::read::XzDecoder<Sniffed<R>>>),
    /// `.lzma`.
    Lzma(Box<crate::read::LzmaDecoder<Sniffed<R>>>),
    /// `.lz` (every member).
    Lzip(Box<crate::read::LzipDecoder<Sniffed<R>>>),
}

impl<R: Read> AnyDecoder<R> {
    /// The format being decoded.
    pub fn format(&self) -> Format {
        match self {
            AnyDecoder::Xz(_) => Format::Xz,
            AnyDecoder::Lzma(_) => Format::Lzma,
            AnyDecoder::Lzip(_) => Format::Lzip,
        }
    }
}

impl<R: Read> Read for AnyDecoder<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        match self {
            AnyDecoder::Xz(d) => d.read(buf),
            AnyDecoder::Lzma(d) => d.read(buf),
            AnyDecoder::Lzip(d) => d.read(buf),
        }
    }
}

/// A decoder of `reader`, whose format (`.xz`, `.lzma`, `.lz`) comes from
/// its first bytes. Archives and unknown data are an `InvalidData` error
/// naming what was found. No limits are set: for untrusted data, detect
/// first and build the format's decoder with its builder.
pub fn decoder<R: Read>(mut reader: R) -> io::Result<AnyDecoder<R>> {
    let head = read_head(&mut reader)?;
    let format = detect(&head);
    let input = Cursor::new(head).chain(reader);
    match format {
        Some(Format::Xz) => Ok(AnyDecoder::Xz(Box::new(crate::read::XzDecoder::new(input)))),
        Some(Format::Lzma) => Ok(AnyDecoder::Lzma(Box::new(crate::read::LzmaDecoder::new(
            input,
        )))),
        Some(Format::Lzip) => Ok(AnyDecoder::Lzip(Box::new(crate::read::LzipDecoder::new(
            input,
        )))),
        Some(archive) => Err(io::Error::new(
            io::ErrorKind::InvalidData,
            format!("a {archive:?} archive, not a compressed stream: open it with open_archive"),
        )),
        None => Err(io::Error::new(
            io::ErrorKind::InvalidData,
            "not .xz, .lzma or .lz data",
        )),
    }
}

/// An archive of whichever format [`open_archive`] found (each variant
/// with its feature, `sevenz` or `zip`).
#[cfg(any(feature = "sevenz", feature = "zip"))]
#[cfg_attr(docsrs, doc(cfg(any(feature = "sevenz", feature = "zip"))))]
#[derive(Debug)]
#[non_exhaustive]
pub enum AnyArchive<R: Read + Seek> {
    /// A 7z archive.
    #[cfg(feature = "sevenz")]
    #[cfg_attr(docsrs, doc(cfg(feature = "sevenz")))]
    SevenZ(Box<crate::sevenz::Archive<R>>),
    /// A zip archive.
    #[cfg(feature = "zip")]
    #[cfg_attr(docsrs, doc(cfg(feature = "zip")))]
    Zip(crate::zip::ZipArchive<R>),
}

#[cfg(any(feature = "sevenz", feature = "zip"))]
impl<R: Read + Seek> AnyArchive<R> {
    /// The archive's format.
    pub fn format(&self) -> Format {
        match self {
            #[cfg(feature = "sevenz")]
            AnyArchive::SevenZ(_) => Format::SevenZ,
            #[cfg(feature = "zip")]
            AnyArchive::Zip(_) => Format::Zip,
        }
    }

    /// The number of entries.
    pub fn len(&self) -> usize {
        match self {
            #[cfg(feature = "sevenz")]
            AnyArchive::SevenZ(a) => a.entries().len(),
            #[cfg(feature = "zip")]
            AnyArchive::Zip(a) => a.len(),
        }
    }

    /// True for an archive without entries.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The entries' names, in archive order (lossy for names that are not
    /// valid UTF-8).
    pub fn names(&self) -> Vec<String> {
        match self {
            #[cfg(feature = "sevenz")]
            AnyArchive::SevenZ(a) => a.entries().iter().map(|e| e.name.clone()).collect(),
            #[cfg(feature = "zip")]
            AnyArchive::Zip(a) => a
                .directory()
                .iter()
                .map(|e| e.name().into_owned())
                .collect(),
        }
    }

    /// Extracts every entry under `dir` with the rules every lzflow
    /// container shares (see [`ExtractOptions`]).
    pub fn extract_to_with(
        &mut self,
        dir: impl AsRef<Path>,
        options: &ExtractOptions,
    ) -> io::Result<()> {
        match self {
            #[cfg(feature = "sevenz")]
            AnyArchive::SevenZ(a) => a.extract_to_with(dir, options).map_err(io::Error::from),
            #[cfg(feature = "zip")]
            AnyArchive::Zip(a) => a.extract_to_with(dir, options).map_err(io::Error::from),
        }
    }
}

/// Opens `reader` as a 7z or zip archive, whichever its bytes say: the
/// signature at the start, or (zip) the end record at the end, so that
/// self-extracting archives open too. Not an archive: `InvalidData`. An
/// archive of a kind this build leaves out (feature `sevenz` or `zip`
/// off): `Unsupported`, naming the feature.
#[cfg(any(feature = "sevenz", feature = "zip"))]
#[cfg_attr(docsrs, doc(cfg(any(feature = "sevenz", feature = "zip"))))]
pub fn open_archive<R: Read + Seek>(mut reader: R) -> io::Result<AnyArchive<R>> {
    reader.seek(SeekFrom::Start(0))?;
    let head = read_head(&mut reader)?;
    reader.seek(SeekFrom::Start(0))?;
    match detect(&head) {
        #[cfg(feature = "sevenz")]
        Some(Format::SevenZ) => Ok(AnyArchive::SevenZ(Box::new(
            crate::sevenz::Archive::open(reader).map_err(io::Error::from)?,
        ))),
        #[cfg(not(feature = "sevenz"))]
        Some(Format::SevenZ) => Err(io::Error::new(
            io::ErrorKind::Unsupported,
            "a 7z archive: lzflow was built without its `sevenz` feature",
        )),
        #[cfg(not(feature = "zip"))]
        Some(Format::Zip) => Err(io::Error::new(
            io::ErrorKind::Unsupported,
            "a zip archive: lzflow was built without its `zip` feature",
        )),
        #[cfg(not(feature = "zip"))]
        None => Err(io::Error::new(
            io::ErrorKind::InvalidData,
            "not a 7z archive (and zip is not built in: feature `zip`)",
        )),
        #[cfg(feature = "zip")]
        Some(Format::Zip) | None => match crate::zip::ZipArchive::open(reader) {
            Ok(a) => Ok(AnyArchive::Zip(a)),
            Err(lzflow_zip::ZipError::NotZip) => Err(io::Error::new(
                io::ErrorKind::InvalidData,
                "not a 7z or zip archive",
            )),
            Err(e) => Err(e.into()),
        },
        Some(stream) => Err(io::Error::new(
            io::ErrorKind::InvalidData,
            format!("a {stream:?} stream, not an archive: decode it with decoder"),
        )),
    }
}
