//! Traditional PKWARE encryption ("ZipCrypto", APPNOTE 6.1) as a sans-I/O
//! encoder: the writing side of
//! [`read::zip_crypto`](crate::read::zip_crypto), with which it shares the
//! key schedule ([`Keys`]).
//!
//! **Weak**: known-plaintext attacks recover the keys from about a dozen
//! bytes of known data, and the check byte lets anyone test passwords
//! quickly. It is written only for readers that know no better (old
//! Windows Explorer, old `unzip`), behind an explicit writer option; WinZip
//! AES is the encryption to use.

use std::io;

use lzflow_core::{Encode, InBuf, OutBuf, Progress};
use zeroize::Zeroizing;

use crate::read::zip_crypto::{Keys, HEADER_LEN};
use crate::ZipError;

impl Keys {
    /// Encrypts one byte and steps the keys with it (APPNOTE 6.1.6).
    #[inline]
    fn encrypt_byte(&mut self, plain: u8) -> u8 {
        let cipher = plain ^ self.stream_byte();
        self.update(plain);
        cipher
    }
}

/// Encrypts a ZipCrypto entry: input is the compressed data for the
/// entry's method, output is the entry's stored bytes: the 12-byte
/// encryption header (11 random bytes and the check byte, encrypted), then
/// the encrypted data. The stored length is the data's plus
/// [`HEADER_LEN`].
///
/// Nothing is held back: every byte given to [`encode`](Encode::encode) is
/// in the output once the call returns [`Progress::NeedInput`]. After
/// [`finish`](Encode::finish), `encode` and `flush` fail. The keys are
/// wiped at `finish` and on drop.
pub(crate) struct ZipCryptoEncoder {
    /// `None` once finished (dropping wipes them).
    keys: Option<Keys>,
    /// The encrypted header.
    header: [u8; HEADER_LEN],
    /// Bytes of `header` written so far.
    header_pos: usize,
    /// Data bytes taken so far.
    data_len: u64,
}

impl std::fmt::Debug for ZipCryptoEncoder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // No keys in debug output.
        f.debug_struct("ZipCryptoEncoder")
            .field("data_len", &self.data_len)
            .field("finished", &self.keys.is_none())
            .finish_non_exhaustive()
    }
}

impl ZipCryptoEncoder {
    /// An encoder for one entry encrypted with `password` (its bytes as the
    /// reader will be given them: zip names no encoding for passwords;
    /// ASCII is the portable choice), with 11 random header bytes from the
    /// operating system.
    ///
    /// `check` is the byte readers compare the decrypted header's last byte
    /// with: [`check_from_crc`](Self::check_from_crc) of the entry's
    /// CRC-32 when the local header carries it, or, when the entry has a
    /// data descriptor (flag bit 3: the CRC is not known before the data),
    /// [`check_from_dos_time`](Self::check_from_dos_time) of the local
    /// header's modification time, as Info-ZIP's `zip` and `unzip` do.
    ///
    /// # Errors
    /// [`ZipError::Io`] when the operating system gives no random numbers.
    pub(crate) fn new(password: &[u8], check: u8) -> Result<Self, ZipError> {
        let mut random = Zeroizing::new([0u8; HEADER_LEN - 1]);
        getrandom::fill(&mut random[..]).map_err(|e| {
            ZipError::Io(io::Error::other(format!(
                "no random numbers for the ZipCrypto header: {e}"
            )))
        })?;
        Ok(Self::with_header(password, &random, check))
    }

    /// [`new`](Self::new) with given header bytes instead of random ones,
    /// for deterministic output in tests.
    pub(crate) fn with_header(password: &[u8], random: &[u8; HEADER_LEN - 1], check: u8) -> Self {
        let mut keys = Keys::new(password);
        let mut header = [0u8; HEADER_LEN];
        for (c, &p) in header.iter_mut().zip(random.iter().chain([&check])) {
            *c = keys.encrypt_byte(p);
        }
        ZipCryptoEncoder {
            keys: Some(keys),
            header,
            header_pos: 0,
            data_len: 0,
        }
    }

    /// The check byte for an entry whose local header has its CRC-32: the
    /// CRC's high byte (APPNOTE 6.1.6).
    pub(crate) fn check_from_crc(crc: u32) -> u8 {
        (crc >> 24) as u8
    }

    /// The check byte for an entry with a data descriptor: the high byte of
    /// the MS-DOS modification time in its local header.
    pub(crate) fn check_from_dos_time(time: u16) -> u8 {
        (time >> 8) as u8
    }

    /// Data bytes (the compressed data, before encryption) taken so far.
    #[cfg(test)]
    pub(crate) fn data_len(&self) -> u64 {
        self.data_len
    }

    /// Writes what is left of the header; true when all of it is out.
    fn drain_header(&mut self, output: &mut OutBuf<'_>) -> bool {
        super::send_prefix(&self.header, &mut self.header_pos, output)
    }
}

impl Encode for ZipCryptoEncoder {
    type Error = ZipError;

    fn encode(
        &mut self,
        input: &mut InBuf<'_>,
        output: &mut OutBuf<'_>,
    ) -> Result<Progress, ZipError> {
        if self.keys.is_none() {
            return Err(super::used_after_finish("ZipCrypto"));
        }
        if !self.drain_header(output) {
            return Ok(Progress::OutputFull);
        }
        let Some(keys) = &mut self.keys else {
            unreachable!("checked above");
        };
        let (n, progress) = super::cipher_step(input, output, |dst| {
            for c in dst {
                *c = keys.encrypt_byte(*c);
            }
        });
        self.data_len += n as u64;
        Ok(progress)
    }

    fn flush(&mut self, output: &mut OutBuf<'_>) -> Result<Progress, ZipError> {
        if self.keys.is_none() {
            return Err(super::used_after_finish("ZipCrypto"));
        }
        Ok(if self.drain_header(output) {
            Progress::NeedInput
        } else {
            Progress::OutputFull
        })
    }

    fn finish(&mut self, output: &mut OutBuf<'_>) -> Result<Progress, ZipError> {
        if !self.drain_header(output) {
            return Ok(Progress::OutputFull);
        }
        // Dropping the keys wipes them.
        self.keys = None;
        Ok(Progress::StreamEnd)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::read::zip_crypto::tests::encrypt as read_side_encrypt;
    use crate::write::winzip_aes::tests::{
        decode_all, deflate, encode_in_steps, have, sample, OneEntry, ScratchZip, DOS_TIME,
        INTEROP_PASSWORD,
    };
    use crate::ZipCryptoDecoder;

    const SIZES: [usize; 6] = [0, 1, 15, 16, 17, 100_000];
    const RANDOM: &[u8; 11] = b"0123456789a";

    #[test]
    fn exact_bytes_and_round_trip_every_size_and_split() {
        for size in SIZES {
            let plain = sample(size);
            let expected = read_side_encrypt(b"pw", RANDOM, 0xC3, &plain);
            assert_eq!(expected.len(), size + HEADER_LEN);
            for (in_step, out_room) in [(size.max(1), 1), (1, 1), (7, 5), (4096, 1 << 16)] {
                let mut enc = ZipCryptoEncoder::with_header(b"pw", RANDOM, 0xC3);
                let got = encode_in_steps(&mut enc, &plain, in_step, out_room);
                assert!(got == expected, "size {size} in {in_step} out {out_room}");
                assert_eq!(enc.data_len(), size as u64);
            }
            for out_room in [1, 1 << 16] {
                let mut dec = ZipCryptoDecoder::new(b"pw", 0xC3).with_len(expected.len() as u64);
                let back = decode_all(&mut dec, &expected, out_room).unwrap();
                assert!(back == plain, "size {size} out {out_room}");
            }
        }
    }

    #[test]
    fn random_header_round_trips_and_differs() {
        let plain = sample(1000);
        let crc = crc32fast::hash(&plain);
        let check = ZipCryptoEncoder::check_from_crc(crc);
        let encrypt = || {
            let mut enc = ZipCryptoEncoder::new(b"pw", check).unwrap();
            encode_in_steps(&mut enc, &plain, 99, 64)
        };
        let (a, b) = (encrypt(), encrypt());
        assert_ne!(a[..HEADER_LEN], b[..HEADER_LEN], "headers repeat");
        for stored in [&a, &b] {
            let mut dec = ZipCryptoDecoder::new(b"pw", check).with_len(stored.len() as u64);
            assert_eq!(decode_all(&mut dec, stored, 64).unwrap(), plain);
        }
        // The check byte is one byte: a wrong password passes it one time in
        // 256 (then the CRC-32 rejects the data); try two.
        let wrong = [b"nope".as_slice(), b"nah"]
            .iter()
            .filter(|pw| {
                let mut dec = ZipCryptoDecoder::new(pw, check).with_len(a.len() as u64);
                matches!(decode_all(&mut dec, &a, 64), Err(ZipError::WrongPassword))
            })
            .count();
        assert!(wrong >= 1);
    }

    #[test]
    fn check_bytes() {
        assert_eq!(ZipCryptoEncoder::check_from_crc(0xA1B2_C3D4), 0xA1);
        assert_eq!(ZipCryptoEncoder::check_from_dos_time(0x645C), 0x64);
    }

    #[test]
    fn nothing_held_back_and_finish_is_idempotent() {
        let mut enc = ZipCryptoEncoder::with_header(b"pw", RANDOM, 1);
        let mut none = OutBuf::new(&mut []);
        let mut input = InBuf::new(b"abc");
        assert_eq!(
            enc.encode(&mut input, &mut none).unwrap(),
            Progress::OutputFull
        );
        assert_eq!(input.pos(), 0);
        assert_eq!(enc.flush(&mut none).unwrap(), Progress::OutputFull);
        let mut buf = [0u8; 32];
        let mut o = OutBuf::new(&mut buf);
        assert_eq!(enc.encode(&mut input, &mut o).unwrap(), Progress::NeedInput);
        assert_eq!(enc.flush(&mut o).unwrap(), Progress::NeedInput);
        assert_eq!(o.pos(), HEADER_LEN + 3);
        assert_eq!(enc.finish(&mut o).unwrap(), Progress::StreamEnd);
        assert_eq!(enc.finish(&mut o).unwrap(), Progress::StreamEnd);
        assert_eq!(o.pos(), HEADER_LEN + 3);
        assert!(enc.encode(&mut InBuf::new(b"x"), &mut o).is_err());
        assert!(enc.flush(&mut o).is_err());
        assert_eq!(format!("{enc:?}").matches("keys").count(), 0);
    }

    /// The ZipCrypto archives of the interop tests: Stored and Deflate,
    /// with the CRC in the local header and with a data descriptor.
    fn interop_archives(test: &str) -> Vec<(String, Vec<u8>)> {
        let plain = sample(50_000);
        let crc = crc32fast::hash(&plain);
        let mut out = Vec::new();
        for method in [0u16, 8] {
            let compressed = if method == 8 {
                deflate(&plain)
            } else {
                plain.clone()
            };
            for descriptor in [false, true] {
                let check = if descriptor {
                    ZipCryptoEncoder::check_from_dos_time(DOS_TIME)
                } else {
                    ZipCryptoEncoder::check_from_crc(crc)
                };
                let mut enc = ZipCryptoEncoder::new(INTEROP_PASSWORD.as_bytes(), check).unwrap();
                let stored = encode_in_steps(&mut enc, &compressed, 4096, 1000);
                // Reads back here first.
                let mut dec = ZipCryptoDecoder::new(INTEROP_PASSWORD.as_bytes(), check)
                    .with_len(stored.len() as u64);
                assert_eq!(decode_all(&mut dec, &stored, 4096).unwrap(), compressed);
                let entry = OneEntry {
                    flags: if descriptor { 1 | 8 } else { 1 },
                    method,
                    version_needed: 20,
                    crc,
                    size: plain.len() as u32,
                    extra: Vec::new(),
                    stored: &stored,
                };
                out.push((
                    format!("{test}-m{method}-dd{}", u8::from(descriptor)),
                    entry.archive(),
                ));
            }
        }
        out
    }

    #[test]
    fn interop_7zz_tests_our_zip_crypto_entries() {
        let test = "interop_7zz_tests_our_zip_crypto_entries";
        if !have("7zz", test) {
            return;
        }
        let right = format!("-p{INTEROP_PASSWORD}");
        for (tag, archive) in interop_archives("zc7") {
            let zip = ScratchZip::new(&tag, &archive);
            zip.check("7zz", &["t", &right], &["t", "-pwrong-password"]);
        }
    }

    #[test]
    fn interop_unzip_tests_our_zip_crypto_entries() {
        let test = "interop_unzip_tests_our_zip_crypto_entries";
        if !have("unzip", test) {
            return;
        }
        for (tag, archive) in interop_archives("zcu") {
            let zip = ScratchZip::new(&tag, &archive);
            zip.check(
                "unzip",
                &["-t", "-P", INTEROP_PASSWORD],
                &["-t", "-P", "wrong-password"],
            );
        }
    }
}
