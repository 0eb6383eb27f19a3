//! One entry's data as a single encoder: the method's compressor, then
//! (for an encrypted entry) the encryption over its output, appending to
//! the writer's output buffer.

use lzflow_core::{
    encode_input, finish_output, Encode, ErrInto, InBuf, Lease, OutBuf, Pool, Progress,
};
use lzflow_methods::BoxedEncoder;

use crate::write::winzip_aes::WinZipAesEncoder;
use crate::write::zip_crypto::ZipCryptoEncoder;
use crate::ZipError;

/// The encoder of an entry's method: the registry's (one box, its errors
/// converted in place) or one of this crate's or lzflow-xz's.
pub(crate) enum StageEncoder {
    /// Stored, Deflate, BZip2: the method registry's.
    Registry(ErrInto<BoxedEncoder, ZipError>),
    /// LZMA with its zip header, XZ.
    Other(Box<dyn Encode<Error = ZipError> + Send>),
}

impl Encode for StageEncoder {
    type Error = ZipError;
    fn encode(
        &mut self,
        input: &mut InBuf<'_>,
        output: &mut OutBuf<'_>,
    ) -> Result<Progress, ZipError> {
        match self {
            StageEncoder::Registry(e) => e.encode(input, output),
            StageEncoder::Other(e) => e.encode(input, output),
        }
    }
    fn flush(&mut self, output: &mut OutBuf<'_>) -> Result<Progress, ZipError> {
        match self {
            StageEncoder::Registry(e) => e.flush(output),
            StageEncoder::Other(e) => e.flush(output),
        }
    }
    fn finish(&mut self, output: &mut OutBuf<'_>) -> Result<Progress, ZipError> {
        match self {
            StageEncoder::Registry(e) => e.finish(output),
            StageEncoder::Other(e) => e.finish(output),
        }
    }
}

/// Bytes moved through an encoder at a time.
const SCRATCH: usize = 16 << 10;

/// An entry's encryption, held in place: its state (keys, cipher and
/// authentication states) is part of the entry, which the writer reuses,
/// rather than an allocation of its own per entry.
// Large on purpose (AES's key schedules): boxing it is what this avoids.
#[allow(clippy::large_enum_variant)]
pub(crate) enum Crypt {
    /// WinZip AES.
    Aes(WinZipAesEncoder),
    /// Traditional PKWARE encryption.
    ZipCrypto(ZipCryptoEncoder),
}

impl Crypt {
    fn coder(&mut self) -> &mut dyn Encode<Error = ZipError> {
        match self {
            Crypt::Aes(e) => e,
            Crypt::ZipCrypto(e) => e,
        }
    }
}

/// The encoders of one entry.
pub(crate) struct EntryEncoder {
    method: StageEncoder,
    crypt: Option<Crypt>,
    /// The method's output, before encryption.
    mid: Option<Lease<u8>>,
    scratch: Lease<u8>,
}

impl EntryEncoder {
    /// `method`'s output, encrypted by `crypt` if any.
    pub fn new(method: StageEncoder, crypt: Option<Crypt>) -> Self {
        // Written before it is read: a reused buffer need not be cleared.
        let scratch = Pool::<u8>::global().lease_any(SCRATCH);
        EntryEncoder {
            method,
            // Only encrypted entries have one; from the pool, it is reused.
            mid: crypt.is_some().then(|| Pool::<u8>::global().lease(SCRATCH)),
            crypt,
            scratch,
        }
    }

    /// Encodes `data`, appending the output to `out`.
    pub fn push(&mut self, data: &[u8], out: &mut Vec<u8>) -> Result<(), ZipError> {
        match &mut self.crypt {
            None => encode_input(&mut self.method, data, out, &mut self.scratch),
            Some(crypt) => {
                let mid = self.mid.as_mut().expect("made with the encryption");
                mid.clear();
                encode_input(&mut self.method, data, mid, &mut self.scratch)?;
                encode_input(crypt.coder(), mid, out, &mut self.scratch)
            }
        }
    }

    /// Ends the data, appending the rest of the output (and the
    /// encryption's trailer) to `out`.
    pub fn finish(&mut self, out: &mut Vec<u8>) -> Result<(), ZipError> {
        match &mut self.crypt {
            None => finish_output(&mut self.method, out, &mut self.scratch),
            Some(crypt) => {
                let mid = self.mid.as_mut().expect("made with the encryption");
                mid.clear();
                finish_output(&mut self.method, mid, &mut self.scratch)?;
                encode_input(crypt.coder(), mid, out, &mut self.scratch)?;
                finish_output(crypt.coder(), out, &mut self.scratch)
            }
        }
    }
}
