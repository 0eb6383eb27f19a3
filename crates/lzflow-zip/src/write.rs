//! Writing: the APPNOTE records, one file each, the encryption and
//! method encoders, and the one poll-style writing core with its faces.

pub(crate) mod central_directory;
pub(crate) mod data_descriptor;
pub(crate) mod end_of_central_directory;
pub(crate) mod entry_encoder;
pub(crate) mod entry_options;
pub(crate) mod extra_field;
pub(crate) mod local_file_header;
pub(crate) mod method;
pub(crate) mod parallel;
pub(crate) mod poll_writer;
pub(crate) mod winzip_aes;
pub(crate) mod writer;
pub(crate) mod writer_options;
pub(crate) mod zip_crypto;

/// The error of an encoder called after its `finish`: a bug in the
/// writer that drives it.
pub(crate) fn used_after_finish(encoder: &str) -> crate::ZipError {
    crate::ZipError::Usage(format!(
        "the {encoder} encoder was used after finish (a bug in the zip writer)"
    ))
}
