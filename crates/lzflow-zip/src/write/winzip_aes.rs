//! WinZip AES encryption (AE-1 and AE-2, compression method 99 with the
//! 0x9901 extra field) as a sans-I/O encoder: the writing side of
//! [`read::winzip_aes`](crate::read::winzip_aes), with which it shares the
//! key derivation, the CTR keystream and the HMAC type.
//!
//! The encoder's output is an entry's stored bytes: a random salt (half the
//! key length), the 2-byte password verification value, the compressed
//! data encrypted with AES-CTR (little-endian 128-bit counter starting at
//! 1), and, at [`finish`](Encode::finish), the 10-byte authentication code
//! (HMAC-SHA1 of the encrypted bytes, cut to 10 bytes). AE-1 and AE-2 are
//! the same bytes: the caller decides the CRC-32 field (AE-2 stores 0) and
//! the vendor version of the 0x9901 extra field.
//!
//! Every entry gets a fresh salt from the operating system's random number
//! generator, so PBKDF2 (1000 rounds of HMAC-SHA1) runs once per entry, in
//! the constructor; no derived key can serve a second entry.

use std::io;

use hmac::Mac;
use lzflow_core::{Encode, InBuf, OutBuf, Progress};

use crate::read::winzip_aes::{
    derive, AesStrength, HmacSha1, Keystream, AUTH_CODE_LEN, MAX_HEAD, VERIFIER_LEN,
};
use crate::ZipError;

/// Encrypts a WinZip AES entry: input is the compressed data for the
/// method the 0x9901 extra field names, output is the entry's stored bytes
/// (salt, verification value, encrypted data, authentication code), whose
/// length is the data's plus [`AesStrength::overhead`].
///
/// Nothing is held back: every byte given to [`encode`](Encode::encode) is
/// in the output once the call returns [`Progress::NeedInput`], so
/// [`flush`](Encode::flush) only writes what did not fit before. The
/// authentication code comes at [`finish`](Encode::finish). After `finish`
/// has begun, `encode` and `flush` fail.
///
/// The AES round keys are wiped when the encoder finishes or is dropped
/// (the `aes` and `ctr` crates' `zeroize` features), and so is the
/// PBKDF2 output; the password is never stored. The HMAC state cannot be
/// wiped (the `hmac` crate offers no way); it is dropped at `finish`.
pub(crate) struct WinZipAesEncoder {
    strength: AesStrength,
    /// Salt, then verification value: the stream's first bytes.
    head: [u8; MAX_HEAD],
    /// Bytes of `head` written so far.
    head_pos: usize,
    /// `None` once finishing began.
    keystream: Option<Keystream>,
    /// `None` once finishing began.
    mac: Option<HmacSha1>,
    /// The authentication code, set when finishing begins.
    code: [u8; AUTH_CODE_LEN],
    /// Bytes of `code` written so far.
    code_pos: usize,
    /// Data bytes encrypted so far.
    data_len: u64,
}

impl std::fmt::Debug for WinZipAesEncoder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // No keys in debug output.
        f.debug_struct("WinZipAesEncoder")
            .field("strength", &self.strength)
            .field("data_len", &self.data_len)
            .field("finishing", &self.mac.is_none())
            .finish_non_exhaustive()
    }
}

impl WinZipAesEncoder {
    /// An encoder for one entry of `strength`, encrypted with `password`
    /// (its bytes as the reader will be given them; WinZip and 7-Zip use
    /// UTF-8), with a fresh random salt from the operating system. Runs the
    /// key derivation (PBKDF2-HMAC-SHA1, 1000 rounds): construct one
    /// encoder per entry, off any async runtime's threads when that
    /// matters.
    ///
    /// # Errors
    /// [`ZipError::Io`] when the operating system gives no random numbers.
    pub(crate) fn new(password: &[u8], strength: AesStrength) -> Result<Self, ZipError> {
        let mut salt = [0u8; MAX_HEAD - VERIFIER_LEN];
        let salt = &mut salt[..strength.salt_len()];
        getrandom::fill(salt).map_err(|e| {
            ZipError::Io(io::Error::other(format!(
                "no random numbers for the WinZip AES salt: {e}"
            )))
        })?;
        Ok(Self::with_salt(password, strength, salt))
    }

    /// [`new`](Self::new) with a given salt instead of a random one, for
    /// deterministic output in tests. Never use one salt twice with one
    /// password outside tests: the keystream would repeat, and the XOR of
    /// two entries' ciphertexts is the XOR of their data.
    ///
    /// # Panics
    /// When `salt` is not [`strength.salt_len()`](AesStrength::salt_len)
    /// bytes long.
    pub(crate) fn with_salt(password: &[u8], strength: AesStrength, salt: &[u8]) -> Self {
        let salt_len = strength.salt_len();
        let key_len = strength.key_len();
        assert_eq!(
            salt.len(),
            salt_len,
            "a WinZip AES salt of {strength:?} is {salt_len} bytes"
        );
        // AES key, HMAC key, verification value; wiped when dropped.
        let derived = derive(password, strength, salt);
        let mut head = [0u8; MAX_HEAD];
        head[..salt_len].copy_from_slice(salt);
        head[salt_len..salt_len + VERIFIER_LEN]
            .copy_from_slice(&derived[2 * key_len..2 * key_len + VERIFIER_LEN]);
        WinZipAesEncoder {
            strength,
            head,
            head_pos: 0,
            keystream: Some(Keystream::new(strength, &derived[..key_len])),
            mac: Some(
                HmacSha1::new_from_slice(&derived[key_len..2 * key_len])
                    .expect("HMAC takes keys of any length"),
            ),
            code: [0; AUTH_CODE_LEN],
            code_pos: 0,
            data_len: 0,
        }
    }

    /// The key size this encoder encrypts with.
    #[cfg(test)]
    pub(crate) fn strength(&self) -> AesStrength {
        self.strength
    }

    /// Data bytes (the compressed data, before encryption) taken so far.
    #[cfg(test)]
    pub(crate) fn data_len(&self) -> u64 {
        self.data_len
    }

    /// Writes what is left of the salt and verification value; true when
    /// all of it is out.
    fn drain_head(&mut self, output: &mut OutBuf<'_>) -> bool {
        let len = self.strength.salt_len() + VERIFIER_LEN;
        super::send_prefix(&self.head[..len], &mut self.head_pos, output)
    }
}

impl Encode for WinZipAesEncoder {
    type Error = ZipError;

    fn encode(
        &mut self,
        input: &mut InBuf<'_>,
        output: &mut OutBuf<'_>,
    ) -> Result<Progress, ZipError> {
        if self.mac.is_none() {
            return Err(super::used_after_finish("WinZip AES"));
        }
        if !self.drain_head(output) {
            return Ok(Progress::OutputFull);
        }
        let (Some(keystream), Some(mac)) = (&mut self.keystream, &mut self.mac) else {
            unreachable!("the keys live until finish");
        };
        let (n, progress) = super::cipher_step(input, output, |dst| {
            keystream.apply(dst);
            // The code covers the encrypted bytes.
            mac.update(dst);
        });
        self.data_len += n as u64;
        Ok(progress)
    }

    fn flush(&mut self, output: &mut OutBuf<'_>) -> Result<Progress, ZipError> {
        if self.mac.is_none() {
            return Err(super::used_after_finish("WinZip AES"));
        }
        // CTR holds nothing back: only the head can be pending.
        Ok(if self.drain_head(output) {
            Progress::NeedInput
        } else {
            Progress::OutputFull
        })
    }

    fn finish(&mut self, output: &mut OutBuf<'_>) -> Result<Progress, ZipError> {
        if !self.drain_head(output) {
            return Ok(Progress::OutputFull);
        }
        if let Some(mac) = self.mac.take() {
            // Wipes the round keys.
            self.keystream = None;
            let tag = mac.finalize().into_bytes();
            self.code.copy_from_slice(&tag[..AUTH_CODE_LEN]);
        }
        self.code_pos += output.push(&self.code[self.code_pos..]);
        Ok(if self.code_pos == AUTH_CODE_LEN {
            Progress::StreamEnd
        } else {
            Progress::OutputFull
        })
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::read::winzip_aes::tests::{encrypt as read_side_encrypt, PASSWORD};
    use crate::WinZipAesDecoder;
    use aes::cipher::{BlockEncrypt, KeyInit};
    use lzflow_core::Decode;
    use std::path::PathBuf;
    use std::process::{Command, Output, Stdio};

    const STRENGTHS: [AesStrength; 3] = [
        AesStrength::Aes128,
        AesStrength::Aes192,
        AesStrength::Aes256,
    ];
    const SIZES: [usize; 6] = [0, 1, 15, 16, 17, 100_000];

    /// Deterministic test bytes: text-like runs and xorshift noise, so that
    /// Deflate both shrinks and keeps some of it.
    pub(crate) fn sample(len: usize) -> Vec<u8> {
        let mut x = 0x9E37_79B9_7F4A_7C15u64 ^ len as u64;
        let mut out = Vec::with_capacity(len);
        while out.len() < len {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            if x & 3 == 0 {
                out.extend_from_slice(b"the quick brown fox jumps over the lazy dog ");
            } else {
                out.extend_from_slice(&x.to_le_bytes());
            }
        }
        out.truncate(len);
        out
    }

    /// Runs `enc` over `data` given in `in_step`-byte pieces, through
    /// `out_room`-byte output slices, with a flush halfway; then finishes.
    pub(crate) fn encode_in_steps<E: Encode<Error = ZipError>>(
        enc: &mut E,
        data: &[u8],
        in_step: usize,
        out_room: usize,
    ) -> Vec<u8> {
        let mut out = Vec::new();
        let mut buf = vec![0u8; out_room];
        let mut call = |out: &mut Vec<u8>, f: &mut dyn FnMut(&mut OutBuf<'_>) -> Progress| {
            let mut o = OutBuf::new(&mut buf);
            let p = f(&mut o);
            out.extend_from_slice(o.written());
            p
        };
        let chunks: Vec<&[u8]> = data.chunks(in_step).collect();
        for (i, chunk) in chunks.iter().enumerate() {
            let mut input = InBuf::new(chunk);
            loop {
                let before = (out.len(), input.pos());
                let p = call(&mut out, &mut |o| enc.encode(&mut input, o).unwrap());
                if p == Progress::NeedInput {
                    assert!(input.is_empty());
                    break;
                }
                assert_eq!(p, Progress::OutputFull);
                assert_ne!(before, (out.len(), input.pos()), "no progress");
            }
            if i == chunks.len() / 2 {
                while call(&mut out, &mut |o| enc.flush(o).unwrap()) != Progress::NeedInput {}
            }
        }
        while call(&mut out, &mut |o| enc.finish(o).unwrap()) != Progress::StreamEnd {}
        out
    }

    /// Decodes all of `data` (the whole of it, last) through `out_room`-byte
    /// output slices.
    pub(crate) fn decode_all<D: Decode<Error = ZipError>>(
        dec: &mut D,
        data: &[u8],
        out_room: usize,
    ) -> Result<Vec<u8>, ZipError> {
        let mut out = Vec::new();
        let mut buf = vec![0u8; out_room];
        let mut input = InBuf::last(data);
        loop {
            let mut o = OutBuf::new(&mut buf);
            let p = dec.decode(&mut input, &mut o)?;
            out.extend_from_slice(o.written());
            if p == Progress::StreamEnd {
                assert!(input.is_empty(), "the decoder left input");
                return Ok(out);
            }
        }
    }

    fn decoder(strength: AesStrength, stored: &[u8], password: &[u8]) -> WinZipAesDecoder {
        WinZipAesDecoder::new(password, strength, stored.len() as u64, "e".into()).unwrap()
    }

    fn salt_of(strength: AesStrength, seed: u8) -> Vec<u8> {
        (0..strength.salt_len() as u8)
            .map(|i| i.wrapping_mul(31) ^ seed)
            .collect()
    }

    /// WinZip AES from the primitives alone (PBKDF2, the AES block cipher,
    /// HMAC), not through the shared `derive` and `Keystream`: pins the
    /// key layout, the counter (little-endian, from 1) and what the code
    /// covers.
    fn reference(password: &[u8], strength: AesStrength, salt: &[u8], plain: &[u8]) -> Vec<u8> {
        let k = strength.key_len();
        let mut dk = vec![0u8; 2 * k + 2];
        pbkdf2::pbkdf2_hmac::<sha1::Sha1>(password, salt, 1000, &mut dk);
        let key = &dk[..k];
        let block_fn: Box<dyn Fn(&mut aes::Block)> = match strength {
            AesStrength::Aes128 => {
                let c = aes::Aes128::new_from_slice(key).unwrap();
                Box::new(move |b| c.encrypt_block(b))
            }
            AesStrength::Aes192 => {
                let c = aes::Aes192::new_from_slice(key).unwrap();
                Box::new(move |b| c.encrypt_block(b))
            }
            AesStrength::Aes256 => {
                let c = aes::Aes256::new_from_slice(key).unwrap();
                Box::new(move |b| c.encrypt_block(b))
            }
        };
        let mut ct = plain.to_vec();
        for (i, chunk) in ct.chunks_mut(16).enumerate() {
            let mut block = aes::Block::from((i as u128 + 1).to_le_bytes());
            block_fn(&mut block);
            for (c, s) in chunk.iter_mut().zip(block) {
                *c ^= s;
            }
        }
        let mut mac = <HmacSha1 as Mac>::new_from_slice(&dk[k..2 * k]).unwrap();
        mac.update(&ct);
        let mut out = salt.to_vec();
        out.extend_from_slice(&dk[2 * k..]);
        out.extend_from_slice(&ct);
        out.extend_from_slice(&mac.finalize().into_bytes()[..AUTH_CODE_LEN]);
        out
    }

    #[test]
    fn exact_bytes_and_round_trip_every_strength_size_and_split() {
        for strength in STRENGTHS {
            let salt = salt_of(strength, 0x5A);
            for size in SIZES {
                let plain = sample(size);
                let expected = reference(PASSWORD, strength, &salt, &plain);
                assert_eq!(expected, read_side_encrypt(strength, &salt, &plain));
                assert_eq!(expected.len() as u64, size as u64 + strength.overhead());
                for (in_step, out_room) in [(size.max(1), 1), (1, 1), (7, 5), (4096, 1 << 16)] {
                    let mut enc = WinZipAesEncoder::with_salt(PASSWORD, strength, &salt);
                    let got = encode_in_steps(&mut enc, &plain, in_step, out_room);
                    assert!(
                        got == expected,
                        "{strength:?} size {size} in {in_step} out {out_room}"
                    );
                    assert_eq!(enc.data_len(), size as u64);
                    assert_eq!(enc.strength(), strength);
                }
                for out_room in [1, 1 << 16] {
                    let mut dec = decoder(strength, &expected, PASSWORD);
                    let back = decode_all(&mut dec, &expected, out_room).unwrap();
                    assert!(back == plain, "{strength:?} size {size} out {out_room}");
                }
            }
        }
    }

    #[test]
    fn random_salt_round_trips_and_differs() {
        let plain = sample(1000);
        for strength in STRENGTHS {
            let a = encode_in_steps(
                &mut WinZipAesEncoder::new(PASSWORD, strength).unwrap(),
                &plain,
                333,
                100,
            );
            let b = encode_in_steps(
                &mut WinZipAesEncoder::new(PASSWORD, strength).unwrap(),
                &plain,
                333,
                100,
            );
            let salt_len = strength.salt_len();
            assert_ne!(a[..salt_len], b[..salt_len], "{strength:?}: salts repeat");
            assert_ne!(a[salt_len + 2..], b[salt_len + 2..], "{strength:?}");
            for stored in [&a, &b] {
                let back = decode_all(&mut decoder(strength, stored, PASSWORD), stored, 64);
                assert_eq!(back.unwrap(), plain);
                let wrong = decode_all(&mut decoder(strength, stored, b"nope"), stored, 64);
                // One wrong password in 65536 passes the verifier; the
                // authentication code then rejects it.
                assert!(
                    matches!(
                        wrong,
                        Err(ZipError::WrongPassword | ZipError::Authentication { .. })
                    ),
                    "{wrong:?}"
                );
            }
        }
    }

    #[test]
    fn flipped_ciphertext_bit_fails_authentication() {
        let plain = sample(100);
        for strength in STRENGTHS {
            let salt = salt_of(strength, 1);
            let mut enc = WinZipAesEncoder::with_salt(PASSWORD, strength, &salt);
            let stored = encode_in_steps(&mut enc, &plain, 100, 4096);
            let data_start = strength.salt_len() + VERIFIER_LEN;
            for (at, bit) in [(data_start, 0), (data_start + 50, 7), (data_start + 99, 3)] {
                let mut bad = stored.clone();
                bad[at] ^= 1 << bit;
                match decode_all(&mut decoder(strength, &bad, PASSWORD), &bad, 1) {
                    Err(ZipError::Authentication { entry }) => assert_eq!(entry, "e"),
                    other => panic!("{strength:?} byte {at}: {other:?}"),
                }
            }
        }
    }

    #[test]
    fn nothing_held_back_and_finish_is_idempotent() {
        let strength = AesStrength::Aes256;
        let mut enc = WinZipAesEncoder::with_salt(PASSWORD, strength, &[7; 16]);
        let mut buf = [0u8; 64];
        let mut o = OutBuf::new(&mut buf);
        let mut input = InBuf::new(b"abc");
        assert_eq!(enc.encode(&mut input, &mut o).unwrap(), Progress::NeedInput);
        assert_eq!(o.pos(), 16 + 2 + 3);
        assert_eq!(enc.flush(&mut o).unwrap(), Progress::NeedInput);
        assert_eq!(o.pos(), 16 + 2 + 3);
        // No room at all: the head waits, nothing is taken.
        let mut enc = WinZipAesEncoder::with_salt(PASSWORD, strength, &[7; 16]);
        let mut input = InBuf::new(b"abc");
        let mut none = OutBuf::new(&mut []);
        assert_eq!(
            enc.encode(&mut input, &mut none).unwrap(),
            Progress::OutputFull
        );
        assert_eq!(input.pos(), 0);
        assert_eq!(enc.flush(&mut none).unwrap(), Progress::OutputFull);
        assert_eq!(enc.finish(&mut none).unwrap(), Progress::OutputFull);
        let mut o = OutBuf::new(&mut buf);
        assert_eq!(enc.finish(&mut o).unwrap(), Progress::StreamEnd);
        assert_eq!(o.pos(), 16 + 2 + AUTH_CODE_LEN);
        let mut o = OutBuf::new(&mut buf);
        assert_eq!(enc.finish(&mut o).unwrap(), Progress::StreamEnd);
        assert_eq!(o.pos(), 0);
        assert!(enc.encode(&mut InBuf::new(b"x"), &mut o).is_err());
        assert!(enc.flush(&mut o).is_err());
    }

    #[test]
    #[should_panic(expected = "salt")]
    fn wrong_salt_length_panics() {
        let _ = WinZipAesEncoder::with_salt(PASSWORD, AesStrength::Aes128, &[0; 16]);
    }

    #[test]
    fn debug_output_has_no_keys() {
        let enc = WinZipAesEncoder::with_salt(PASSWORD, AesStrength::Aes128, &[0; 8]);
        let text = format!("{enc:?}");
        assert!(text.starts_with("WinZipAesEncoder"), "{text}");
        assert!(!text.contains("head") && !text.contains("mac"), "{text}");
    }

    // -----------------------------------------------------------------
    // Interop: hand-built one-entry archives tested by 7-Zip (and, for
    // ZipCrypto, Info-ZIP's unzip).
    // -----------------------------------------------------------------

    /// The password the interop archives are encrypted with.
    pub(crate) const INTEROP_PASSWORD: &str = "Interop-Pass_7";
    /// 2024-05-17 12:34:56 as MS-DOS time and date.
    pub(crate) const DOS_TIME: u16 = (12 << 11) | (34 << 5) | (56 / 2);
    const DOS_DATE: u16 = ((2024 - 1980) << 9) | (5 << 5) | 17;

    /// Whether `tool` is installed. When it is not, the calling test is
    /// skipped loudly, or fails if `CI` is set (`.ci/run` installs `7zz`
    /// and `unzip`).
    pub(crate) fn have(tool: &str, test: &str) -> bool {
        let found = std::env::var_os("PATH")
            .is_some_and(|path| std::env::split_paths(&path).any(|dir| dir.join(tool).is_file()));
        if !found {
            assert!(
                std::env::var_os("CI").is_none(),
                "{test}: `{tool}` is not installed, and CI is set (.ci/run installs it)"
            );
            eprintln!("SKIP: {test}: `{tool}` not installed");
        }
        found
    }

    /// Raw Deflate of `data` (flate2).
    pub(crate) fn deflate(data: &[u8]) -> Vec<u8> {
        use std::io::Write;
        let mut enc =
            flate2::write::DeflateEncoder::new(Vec::new(), flate2::Compression::default());
        enc.write_all(data).unwrap();
        enc.finish().unwrap()
    }

    /// One entry of a hand-built archive: the header fields as stored.
    pub(crate) struct OneEntry<'a> {
        /// General-purpose flags (bit 0: encrypted; bit 3: data descriptor).
        pub(crate) flags: u16,
        /// The method field (99 for WinZip AES).
        pub(crate) method: u16,
        /// The "version needed to extract" field.
        pub(crate) version_needed: u16,
        /// The CRC-32 field.
        pub(crate) crc: u32,
        /// Uncompressed size.
        pub(crate) size: u32,
        /// The extra field, in both headers.
        pub(crate) extra: Vec<u8>,
        /// The entry's stored bytes.
        pub(crate) stored: &'a [u8],
    }

    impl OneEntry<'_> {
        /// A one-entry archive: local header (with zero CRC and sizes and a
        /// data descriptor after the data when flag bit 3 is set), central
        /// directory header, end of central directory record.
        pub(crate) fn archive(&self) -> Vec<u8> {
            const NAME: &[u8] = b"hello.bin";
            let descriptor = self.flags & 8 != 0;
            let csize = u32::try_from(self.stored.len()).unwrap();
            let mut z = Vec::new();
            let fields = |z: &mut Vec<u8>, local: bool| {
                z.extend_from_slice(&self.version_needed.to_le_bytes());
                z.extend_from_slice(&self.flags.to_le_bytes());
                z.extend_from_slice(&self.method.to_le_bytes());
                z.extend_from_slice(&DOS_TIME.to_le_bytes());
                z.extend_from_slice(&DOS_DATE.to_le_bytes());
                let (crc, csize, size) = if local && descriptor {
                    (0, 0, 0)
                } else {
                    (self.crc, csize, self.size)
                };
                z.extend_from_slice(&crc.to_le_bytes());
                z.extend_from_slice(&csize.to_le_bytes());
                z.extend_from_slice(&size.to_le_bytes());
                z.extend_from_slice(&(NAME.len() as u16).to_le_bytes());
                z.extend_from_slice(&(self.extra.len() as u16).to_le_bytes());
            };
            z.extend_from_slice(&0x0403_4b50u32.to_le_bytes());
            fields(&mut z, true);
            z.extend_from_slice(NAME);
            z.extend_from_slice(&self.extra);
            z.extend_from_slice(self.stored);
            if descriptor {
                z.extend_from_slice(&0x0807_4b50u32.to_le_bytes());
                z.extend_from_slice(&self.crc.to_le_bytes());
                z.extend_from_slice(&csize.to_le_bytes());
                z.extend_from_slice(&self.size.to_le_bytes());
            }
            let cd_offset = z.len() as u32;
            z.extend_from_slice(&0x0201_4b50u32.to_le_bytes());
            z.extend_from_slice(&(self.version_needed | 3 << 8).to_le_bytes()); // made by Unix
            fields(&mut z, false);
            z.extend_from_slice(&0u16.to_le_bytes()); // comment length
            z.extend_from_slice(&0u16.to_le_bytes()); // disk number start
            z.extend_from_slice(&0u16.to_le_bytes()); // internal attributes
            z.extend_from_slice(&(0o100644u32 << 16).to_le_bytes()); // external: -rw-r--r--
            z.extend_from_slice(&0u32.to_le_bytes()); // local header offset
            z.extend_from_slice(NAME);
            z.extend_from_slice(&self.extra);
            let cd_size = z.len() as u32 - cd_offset;
            z.extend_from_slice(&0x0605_4b50u32.to_le_bytes());
            z.extend_from_slice(&[0, 0, 0, 0, 1, 0, 1, 0]); // disks; entries
            z.extend_from_slice(&cd_size.to_le_bytes());
            z.extend_from_slice(&cd_offset.to_le_bytes());
            z.extend_from_slice(&0u16.to_le_bytes()); // comment length
            z
        }
    }

    /// `archive` written to a scratch file, removed when dropped (kept when
    /// the test failed).
    pub(crate) struct ScratchZip(pub(crate) PathBuf);

    impl ScratchZip {
        /// Writes `archive` to a file named after `tag`.
        pub(crate) fn new(tag: &str, archive: &[u8]) -> Self {
            let path = std::env::temp_dir().join(format!(
                "lzflow-zip-write-crypto-{}-{tag}.zip",
                std::process::id()
            ));
            std::fs::write(&path, archive).unwrap();
            ScratchZip(path)
        }

        /// Runs `program args... file` and returns its output.
        pub(crate) fn run(&self, program: &str, args: &[&str]) -> Output {
            Command::new(program)
                .args(args)
                .arg(&self.0)
                .env("LC_ALL", "C.UTF-8")
                .env("TZ", "UTC")
                .stdin(Stdio::null())
                .output()
                .unwrap_or_else(|e| panic!("cannot run {program}: {e}"))
        }

        /// Asserts that `program args... file` succeeds with the right
        /// password and fails with a wrong one.
        pub(crate) fn check(&self, program: &str, right: &[&str], wrong: &[&str]) {
            let out = self.run(program, right);
            assert!(
                out.status.success(),
                "{program} {right:?} {}: {}\nstdout: {}\nstderr: {}",
                self.0.display(),
                out.status,
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&out.stderr)
            );
            let out = self.run(program, wrong);
            assert!(
                !out.status.success(),
                "{program} {wrong:?} {} accepted a wrong password\nstdout: {}",
                self.0.display(),
                String::from_utf8_lossy(&out.stdout)
            );
        }
    }

    impl Drop for ScratchZip {
        fn drop(&mut self) {
            if std::thread::panicking() {
                eprintln!("kept {} for inspection", self.0.display());
            } else {
                let _ = std::fs::remove_file(&self.0);
            }
        }
    }

    #[test]
    fn interop_7zz_tests_our_aes_entries() {
        if !have("7zz", "interop_7zz_tests_our_aes_entries") {
            return;
        }
        let plain = sample(50_000);
        let crc = crc32fast::hash(&plain);
        let right = format!("-p{INTEROP_PASSWORD}");
        for strength in STRENGTHS {
            let strength_byte: u8 = match strength {
                AesStrength::Aes128 => 1,
                AesStrength::Aes192 => 2,
                AesStrength::Aes256 => 3,
            };
            for method in [0u16, 8] {
                let compressed = if method == 8 {
                    deflate(&plain)
                } else {
                    plain.clone()
                };
                for vendor_version in [1u16, 2] {
                    let mut enc =
                        WinZipAesEncoder::new(INTEROP_PASSWORD.as_bytes(), strength).unwrap();
                    let stored = encode_in_steps(&mut enc, &compressed, 4096, 1000);
                    let mut extra = vec![0x01, 0x99, 7, 0];
                    extra.extend_from_slice(&vendor_version.to_le_bytes());
                    extra.extend_from_slice(b"AE");
                    extra.push(strength_byte);
                    extra.extend_from_slice(&method.to_le_bytes());
                    let entry = OneEntry {
                        flags: 1,
                        method: 99,
                        version_needed: 51,
                        // AE-2 stores no CRC.
                        crc: if vendor_version == 2 { 0 } else { crc },
                        size: plain.len() as u32,
                        extra,
                        stored: &stored,
                    };
                    let tag = format!("aes{strength_byte}-m{method}-ae{vendor_version}");
                    let zip = ScratchZip::new(&tag, &entry.archive());
                    zip.check("7zz", &["t", &right], &["t", "-pwrong-password"]);
                    // The archive also reads back here.
                    let mut dec = decoder(strength, &stored, INTEROP_PASSWORD.as_bytes());
                    assert_eq!(decode_all(&mut dec, &stored, 4096).unwrap(), compressed);
                }
            }
        }
    }
}
