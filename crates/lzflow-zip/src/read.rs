//! Reading: the APPNOTE records, one file each, then the entry decoder
//! (decryption, method, checks) and the three poll-style cores (through
//! the central directory, forward only, listing), each with its std face.

pub(crate) mod archive;
pub(crate) mod central_directory;
pub(crate) mod data_descriptor;
pub(crate) mod descriptor_scan;
pub(crate) mod directory_reader;
pub(crate) mod dos_time;
pub(crate) mod end_of_central_directory;
pub(crate) mod entry_decoder;
pub(crate) mod entry_name;
pub(crate) mod extra_field;
pub(crate) mod extract;
mod little_endian;
pub(crate) mod local_file_header;
pub(crate) mod method;
pub(crate) mod poll_archive;
pub(crate) mod poll_directory;
pub(crate) mod poll_stream;
pub(crate) mod stream_reader;
#[cfg(test)]
mod test_archive;
pub(crate) mod winzip_aes;
pub(crate) mod zip_crypto;
pub(crate) mod zip_options;
