//! The lzip (`.lz`) container for lzflow, as the lzip manual's "File
//! format" chapter defines it and as xz-utils reads it.
//!
//! A file is one or more members, each a header (`"LZIP"`, version, coded
//! dictionary size), an LZMA stream (lc=3, lp=0, pb=2) ended by the end
//! marker, and a trailer (CRC32 of the data, data size, and, from version 1
//! on, member size).
//!
//! # Organization
//! * `member_header`: the 6-byte header and the coded dictionary size.
//! * `member_trailer`: the trailer and its checks.
//! * [`list_members`]: the members of a seekable file, read from its end
//!   without decoding (as `lzip -l` does).
//! * [`LzipDecoder`]: every member of a file, then stops at trailing data
//!   exactly where xz-utils does.
//! * [`LzipEncoder`]: members as lzip writes them, optionally cut every
//!   `member_size` bytes of data ([`LzipOptions`], presets of `lzip
//!   -0..-9`).
//! * [`MtLzipEncoder`]: members compressed on several threads, as plzip
//!   does (`lzflow_core::parallel` does the threading), the same bytes as
//!   [`LzipEncoder`] with the same member size.
//! * [`LzipError`]: the layer's errors, by culprit.
#![forbid(unsafe_code)]

mod decoder;
mod encoder;
mod error;
mod member_header;
mod member_list;
mod member_trailer;
mod mt_encoder;

pub use decoder::LzipDecoder;
pub use encoder::{LzipEncoder, LzipOptions};
pub use error::LzipError;
pub use member_header::{dict_size_from_byte, dict_size_to_byte, MAGIC};
pub use member_list::{list_members, MemberInfo, MemberList};
pub use mt_encoder::MtLzipEncoder;
