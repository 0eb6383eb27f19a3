//! Reading: the format records named after 7zFormat.txt, the sans-I/O
//! header parser ([`IndexBuilder`](archive_index::IndexBuilder)) and
//! folder decoder ([`FolderDecoder`](coder_graph::FolderDecoder)), the
//! one poll-style reading core and its std face, and extraction.

pub(crate) mod aes;
pub(crate) mod archive;
pub(crate) mod archive_index;
pub(crate) mod bcj2;
pub(crate) mod byte_reader;
pub(crate) mod coder_graph;
pub(crate) mod entry;
pub(crate) mod extract;
pub(crate) mod files_info;
pub(crate) mod folder;
pub(crate) mod folder_prefetch;
pub(crate) mod header;
pub mod multi_volume;
pub(crate) mod pack_info;
pub(crate) mod poll_archive;
pub(crate) mod property_id;
pub mod signature_header;
pub mod spool;
pub(crate) mod substreams;
