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

/// Writes what is left of `bytes` (a header an encoder sends before its
/// data) past the `sent` already written; true when all of it is out.
pub(crate) fn send_prefix(
    bytes: &[u8],
    sent: &mut usize,
    output: &mut lzflow_core::OutBuf<'_>,
) -> bool {
    *sent += output.push(&bytes[*sent..]);
    *sent == bytes.len()
}

/// The data step of an entry's stream cipher (WinZip AES, ZipCrypto): as
/// much of `input` as `output` has room for, copied and encrypted in place
/// by `encrypt`. The number of bytes moved, and the step's progress.
pub(crate) fn cipher_step(
    input: &mut lzflow_core::InBuf<'_>,
    output: &mut lzflow_core::OutBuf<'_>,
    encrypt: impl FnOnce(&mut [u8]),
) -> (usize, lzflow_core::Progress) {
    let n = input.len().min(output.available());
    let dst = &mut output.spare_mut()[..n];
    dst.copy_from_slice(input.take(n));
    encrypt(dst);
    output.advance(n);
    let progress = if input.is_empty() {
        lzflow_core::Progress::NeedInput
    } else {
        lzflow_core::Progress::OutputFull
    };
    (n, progress)
}
