//! One entry's data as a single encoder: the method's compressor, then
//! (for an encrypted entry) the encryption over its output, appending to
//! the writer's output buffer.

use lzflow_core::{encode_input, finish_output, Encode, Lease, Pool};

use crate::ZipError;

/// A boxed encoder of one stage.
pub(crate) type StageEncoder = Box<dyn Encode<Error = ZipError> + Send>;

/// Bytes moved through an encoder at a time.
const SCRATCH: usize = 16 << 10;

/// The encoders of one entry.
pub(crate) struct EntryEncoder {
    method: StageEncoder,
    crypt: Option<StageEncoder>,
    /// The method's output, before encryption.
    mid: Vec<u8>,
    scratch: Lease<u8>,
}

impl EntryEncoder {
    /// `method`'s output, encrypted by `crypt` if any.
    pub fn new(method: StageEncoder, crypt: Option<StageEncoder>) -> Self {
        let mut scratch = Pool::<u8>::global().lease(SCRATCH);
        scratch.resize(SCRATCH, 0);
        EntryEncoder {
            method,
            crypt,
            mid: Vec::new(),
            scratch,
        }
    }

    /// Encodes `data`, appending the output to `out`.
    pub fn push(&mut self, data: &[u8], out: &mut Vec<u8>) -> Result<(), ZipError> {
        match &mut self.crypt {
            None => encode_input(&mut *self.method, data, out, &mut self.scratch),
            Some(crypt) => {
                self.mid.clear();
                encode_input(&mut *self.method, data, &mut self.mid, &mut self.scratch)?;
                encode_input(&mut **crypt, &self.mid, out, &mut self.scratch)
            }
        }
    }

    /// Ends the data, appending the rest of the output (and the
    /// encryption's trailer) to `out`.
    pub fn finish(&mut self, out: &mut Vec<u8>) -> Result<(), ZipError> {
        match &mut self.crypt {
            None => finish_output(&mut *self.method, out, &mut self.scratch),
            Some(crypt) => {
                self.mid.clear();
                finish_output(&mut *self.method, &mut self.mid, &mut self.scratch)?;
                encode_input(&mut **crypt, &self.mid, out, &mut self.scratch)?;
                finish_output(&mut **crypt, out, &mut self.scratch)
            }
        }
    }
}
