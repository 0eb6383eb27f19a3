//! 7-Zip's AES-256 coder, encrypting side: the archive key (derived once
//! from the password), a random IV per folder from the OS, the coder
//! properties, and CBC encryption padded with zeros to whole blocks.

use aes::Aes256;
use cbc::cipher::generic_array::GenericArray;
use cbc::cipher::{BlockEncryptMut, KeyIvInit};
use lzflow_core::{Encode, InBuf, OutBuf, Progress};
use zeroize::{Zeroize, Zeroizing};

use crate::read::aes::derive_key;
use crate::SevenZError;

/// Most key derivation rounds the reader (and 7-Zip) accepts: 2^24.
pub(crate) const MAX_CYCLES_POWER: u8 = 24;

/// The key of an archive: every encrypted folder (data and header) uses it
/// with its own IV. No salt is used, as 7-Zip does, so one derivation
/// serves the whole archive.
pub(crate) struct ArchiveKey {
    key: Zeroizing<[u8; 32]>,
    cycles_power: u8,
}

impl std::fmt::Debug for ArchiveKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ArchiveKey")
            .field("cycles_power", &self.cycles_power)
            .finish_non_exhaustive()
    }
}

impl ArchiveKey {
    /// Derives the key from `password` (as UTF-16LE, like 7-Zip) with
    /// `2^cycles_power` SHA-256 rounds.
    pub(crate) fn derive(password: &str, cycles_power: u8) -> Result<Self, SevenZError> {
        if cycles_power > MAX_CYCLES_POWER {
            return Err(SevenZError::InvalidWriterOptions(
                "aes_cycles_power must be at most 24",
            ));
        }
        let utf16: Zeroizing<Vec<u8>> =
            Zeroizing::new(password.encode_utf16().flat_map(u16::to_le_bytes).collect());
        Ok(ArchiveKey {
            key: derive_key(&utf16, &[], cycles_power),
            cycles_power,
        })
    }

    /// A fresh encryption coder and its properties, with a random IV.
    pub(crate) fn encoder(&self) -> Result<(AesEncoder, Vec<u8>), SevenZError> {
        let iv = random_iv()?;
        Ok((AesEncoder::new(&self.key, &iv), self.props(&iv)))
    }

    /// The coder properties: cycles power with the "IV present" bit, then
    /// `0x0F` (no salt, 16 IV bytes), then the IV.
    fn props(&self, iv: &[u8; 16]) -> Vec<u8> {
        let mut p = Vec::with_capacity(18);
        p.push(0x40 | self.cycles_power);
        p.push(0x0F);
        p.extend_from_slice(iv);
        p
    }
}

/// 16 bytes from the operating system's random number generator.
fn random_iv() -> Result<[u8; 16], SevenZError> {
    let mut iv = [0u8; 16];
    getrandom::fill(&mut iv).map_err(|e| {
        SevenZError::Io(std::io::Error::other(format!(
            "no random numbers for the AES IV: {e}"
        )))
    })?;
    Ok(iv)
}

type Cbc = cbc::Encryptor<Aes256>;

/// AES-256-CBC encryption. The last partial block is padded with zeros at
/// [`finish`](Encode::finish); the reader cuts the output at the stored
/// size.
pub(crate) struct AesEncoder {
    cipher: Cbc,
    /// Plaintext of a block that arrived in pieces.
    stage: [u8; 16],
    stage_len: usize,
    /// Ciphertext of a block that did not fit the output.
    pending: [u8; 16],
    pending_pos: usize,
    /// Bytes taken so far (the coder's unpack size in the folder).
    total_in: u64,
    finished: bool,
}

impl AesEncoder {
    pub(crate) fn new(key: &[u8; 32], iv: &[u8; 16]) -> Self {
        AesEncoder {
            cipher: Cbc::new(key.into(), iv.into()),
            stage: [0; 16],
            stage_len: 0,
            pending: [0; 16],
            pending_pos: 16,
            total_in: 0,
            finished: false,
        }
    }

    /// Plaintext bytes taken so far.
    #[cfg(test)]
    pub(crate) fn total_in(&self) -> u64 {
        self.total_in
    }

    /// Ciphertext bytes the stream ends up with after `plain` bytes.
    pub(crate) fn padded_len(plain: u64) -> u64 {
        plain.div_ceil(16) * 16
    }

    fn encrypt_block(&mut self) {
        let mut block = self.stage;
        self.cipher
            .encrypt_block_mut(GenericArray::from_mut_slice(&mut block));
        self.pending = block;
        self.pending_pos = 0;
        self.stage.zeroize();
        self.stage_len = 0;
    }

    /// Hands out a held ciphertext block; false while some of it is left.
    fn drain(&mut self, output: &mut OutBuf<'_>) -> bool {
        if self.pending_pos < 16 {
            self.pending_pos += output.push(&self.pending[self.pending_pos..]);
        }
        self.pending_pos == 16
    }
}

impl Drop for AesEncoder {
    fn drop(&mut self) {
        self.stage.zeroize();
    }
}

impl Encode for AesEncoder {
    type Error = SevenZError;

    fn encode(
        &mut self,
        input: &mut InBuf<'_>,
        output: &mut OutBuf<'_>,
    ) -> Result<Progress, SevenZError> {
        if self.finished {
            return Err(SevenZError::WriterUnusable("AES coder used after finish"));
        }
        loop {
            if !self.drain(output) {
                return Ok(Progress::OutputFull);
            }
            if input.is_empty() {
                return Ok(Progress::NeedInput);
            }
            // Whole blocks go straight from input to output.
            if self.stage_len == 0 && input.len() >= 16 && output.available() >= 16 {
                let n = input.len().min(output.available()) / 16 * 16;
                let dst = &mut output.spare_mut()[..n];
                dst.copy_from_slice(input.take(n));
                for block in dst.chunks_exact_mut(16) {
                    self.cipher
                        .encrypt_block_mut(GenericArray::from_mut_slice(block));
                }
                output.advance(n);
                self.total_in += n as u64;
                continue;
            }
            let got = input.take(16 - self.stage_len);
            self.stage[self.stage_len..self.stage_len + got.len()].copy_from_slice(got);
            self.stage_len += got.len();
            self.total_in += got.len() as u64;
            if self.stage_len == 16 {
                self.encrypt_block();
            }
        }
    }

    fn flush(&mut self, output: &mut OutBuf<'_>) -> Result<Progress, SevenZError> {
        // A partial block cannot be emitted before the stream ends.
        Ok(if self.drain(output) {
            Progress::NeedInput
        } else {
            Progress::OutputFull
        })
    }

    fn finish(&mut self, output: &mut OutBuf<'_>) -> Result<Progress, SevenZError> {
        if !self.drain(output) {
            return Ok(Progress::OutputFull);
        }
        if !self.finished {
            self.finished = true;
            if self.stage_len > 0 {
                self.stage[self.stage_len..].fill(0);
                self.encrypt_block();
                if !self.drain(output) {
                    return Ok(Progress::OutputFull);
                }
            }
        }
        Ok(Progress::StreamEnd)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::read::aes::{AesDecoder, AesProps, KeyCache};
    use lzflow_core::Decode;

    fn encrypt_all(enc: &mut AesEncoder, data: &[u8], in_step: usize, out_step: usize) -> Vec<u8> {
        let mut out = Vec::new();
        let mut pos = 0;
        let mut space = vec![0u8; out_step];
        while pos < data.len() {
            let end = (pos + in_step).min(data.len());
            let mut input = InBuf::new(&data[pos..end]);
            loop {
                let mut o = OutBuf::new(&mut space);
                let p = enc.encode(&mut input, &mut o).unwrap();
                out.extend_from_slice(o.written());
                if p == Progress::NeedInput {
                    break;
                }
            }
            pos = end;
        }
        loop {
            let mut o = OutBuf::new(&mut space);
            let p = enc.finish(&mut o).unwrap();
            out.extend_from_slice(o.written());
            if p == Progress::StreamEnd {
                break;
            }
        }
        out
    }

    #[test]
    fn output_is_split_independent_and_decrypts() {
        let key = [5u8; 32];
        let iv = [9u8; 16];
        let plain: Vec<u8> = (0..100u8).collect();
        let whole = encrypt_all(&mut AesEncoder::new(&key, &iv), &plain, 100, 256);
        assert_eq!(whole.len(), 112);
        for (i, o) in [(1, 1), (7, 5), (16, 16), (33, 3)] {
            let mut enc = AesEncoder::new(&key, &iv);
            assert_eq!(encrypt_all(&mut enc, &plain, i, o), whole, "in {i} out {o}");
            assert_eq!(enc.total_in(), 100);
        }
        let mut dec = AesDecoder::new(&key, &iv);
        let mut space = [0u8; 128];
        let mut o = OutBuf::new(&mut space);
        dec.decode(&mut InBuf::last(&whole), &mut o).unwrap();
        assert_eq!(&o.written()[..100], &plain[..]);
        assert_eq!(&o.written()[100..112], &[0u8; 12]);
        assert_eq!(AesEncoder::padded_len(100), 112);
        assert_eq!(AesEncoder::padded_len(0), 0);
    }

    #[test]
    fn props_parse_back_and_key_matches_the_reader() {
        let k = ArchiveKey::derive("pässwörd", 4).unwrap();
        let iv = [0xA5u8; 16];
        let props = AesProps::parse(&k.props(&iv)).unwrap();
        assert_eq!(props.cycles, 4);
        assert!(props.salt.is_empty());
        assert_eq!(props.iv, iv);
        let cache = KeyCache::new(Some("pässwörd"));
        assert_eq!(&cache.key(&props).unwrap()[..], &k.key[..]);
        assert!(matches!(
            ArchiveKey::derive("x", 25),
            Err(SevenZError::InvalidWriterOptions(_))
        ));
        let (_, p1) = k.encoder().unwrap();
        let (_, p2) = k.encoder().unwrap();
        assert_ne!(p1, p2, "IVs must be fresh per folder");
    }
}
