//! WinZip AES encryption (AE-1 and AE-2, compression method 99 with the
//! 0x9901 extra field) as a sans-I/O decoder.
//!
//! An entry's stored bytes are: a salt (half the key length), a 2-byte
//! password verification value, the encrypted data, and a 10-byte
//! authentication code. PBKDF2-HMAC-SHA1 (1000 iterations) turns password
//! and salt into the AES key, the HMAC key and the verification value; the
//! data is AES in CTR mode with a little-endian 128-bit counter starting at
//! 1, and the code is HMAC-SHA1 of the encrypted data cut to 10 bytes.
//! AE-1 and AE-2 differ only in the CRC-32 field (AE-2 stores 0), which is
//! the caller's concern: the decryption is the same.

use aes::{Aes128, Aes192, Aes256};
use ctr::cipher::{KeyIvInit, StreamCipher};
use ctr::Ctr128LE;
use hmac::{Hmac, Mac};
use lzflow_core::{Decode, InBuf, OutBuf, Progress};
use sha1::Sha1;
use zeroize::Zeroizing;

use crate::ZipError;

/// More than a decompressor that may follow WinZip AES in an entry of
/// unknown length holds past its data ([`Decode::unused_after_end`]): PPMd
/// var. I up to 4 × (16 + 2) − 1 = 71 bytes. (Deflate64, which takes up to
/// its 64 KiB piece, is refused there: see `EntryDecoder::new`.)
const LAG_HELD: usize = 128;

/// PBKDF2 iteration count fixed by the format.
const PBKDF2_ROUNDS: u32 = 1000;
/// Length of the password verification value.
pub(crate) const VERIFIER_LEN: usize = 2;
/// Length of the authentication code after the data.
pub const AUTH_CODE_LEN: usize = 10;
/// Largest salt plus verifier (AES-256).
pub(crate) const MAX_HEAD: usize = 16 + VERIFIER_LEN;
/// Largest derived-key output: two 32-byte keys and the verifier.
const MAX_DERIVED: usize = 2 * 32 + VERIFIER_LEN;

pub(crate) type HmacSha1 = Hmac<Sha1>;

/// The AES key size of a WinZip AES entry, from its 0x9901 extra field.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AesStrength {
    /// 128-bit key, 8-byte salt (strength byte 1).
    Aes128,
    /// 192-bit key, 12-byte salt (strength byte 2).
    Aes192,
    /// 256-bit key, 16-byte salt (strength byte 3).
    Aes256,
}

impl AesStrength {
    /// The strength of the 0x9901 extra field's strength byte (1, 2 or 3);
    /// `None` for any other value.
    pub fn from_byte(byte: u8) -> Option<Self> {
        match byte {
            1 => Some(AesStrength::Aes128),
            2 => Some(AesStrength::Aes192),
            3 => Some(AesStrength::Aes256),
            _ => None,
        }
    }

    /// The 0x9901 extra field's strength byte: 1, 2 or 3.
    pub fn byte(self) -> u8 {
        match self {
            AesStrength::Aes128 => 1,
            AesStrength::Aes192 => 2,
            AesStrength::Aes256 => 3,
        }
    }

    /// The AES key length in bytes (16, 24 or 32).
    pub fn key_len(self) -> usize {
        match self {
            AesStrength::Aes128 => 16,
            AesStrength::Aes192 => 24,
            AesStrength::Aes256 => 32,
        }
    }

    /// The salt length in bytes: half the key length.
    pub fn salt_len(self) -> usize {
        self.key_len() / 2
    }

    /// Bytes an entry stores besides its encrypted data: salt,
    /// verification value and authentication code.
    pub fn overhead(self) -> u64 {
        (self.salt_len() + VERIFIER_LEN + AUTH_CODE_LEN) as u64
    }
}

/// AES-CTR with the key size of the entry. The block ciphers wipe their
/// round keys when dropped (the `aes` and `ctr` crates' `zeroize`
/// features).
pub(crate) enum Keystream {
    Aes128(Ctr128LE<Aes128>),
    Aes192(Ctr128LE<Aes192>),
    Aes256(Ctr128LE<Aes256>),
}

impl Keystream {
    pub(crate) fn new(strength: AesStrength, key: &[u8]) -> Self {
        // The counter block is the little-endian number 1.
        let iv = 1u128.to_le_bytes();
        let wrong = "AES key length matches the strength";
        match strength {
            AesStrength::Aes128 => {
                Keystream::Aes128(Ctr128LE::new_from_slices(key, &iv).expect(wrong))
            }
            AesStrength::Aes192 => {
                Keystream::Aes192(Ctr128LE::new_from_slices(key, &iv).expect(wrong))
            }
            AesStrength::Aes256 => {
                Keystream::Aes256(Ctr128LE::new_from_slices(key, &iv).expect(wrong))
            }
        }
    }

    pub(crate) fn apply(&mut self, buf: &mut [u8]) {
        match self {
            Keystream::Aes128(c) => c.apply_keystream(buf),
            Keystream::Aes192(c) => c.apply_keystream(buf),
            Keystream::Aes256(c) => c.apply_keystream(buf),
        }
    }
}

/// Runs PBKDF2-HMAC-SHA1 over `password` and `salt`: returns the buffer
/// holding the AES key, the HMAC key and the verification value, in that
/// order (`2 × key_len + 2` bytes used), wiped when dropped.
pub(crate) fn derive(
    password: &[u8],
    strength: AesStrength,
    salt: &[u8],
) -> Zeroizing<[u8; MAX_DERIVED]> {
    let mut out = Zeroizing::new([0u8; MAX_DERIVED]);
    let len = 2 * strength.key_len() + VERIFIER_LEN;
    pbkdf2::pbkdf2_hmac::<Sha1>(password, salt, PBKDF2_ROUNDS, &mut out[..len]);
    out
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Failure {
    WrongPassword,
    Truncated,
    Authentication,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    /// Reading salt and verification value.
    Head,
    /// Decrypting; `data_left` bytes to go.
    Data,
    /// Reading the authentication code.
    Code,
    Done,
    Failed(Failure),
}

/// Decrypts and authenticates a WinZip AES entry: input is the entry's
/// stored bytes (salt, verification value, encrypted data, authentication
/// code), output is the compressed data for the method the 0x9901 extra
/// field names.
///
/// The password is checked against the 2-byte verification value as soon
/// as it arrives ([`ZipError::WrongPassword`]; about one wrong password in
/// 65536 passes, which the authentication code then rejects). Decrypted
/// bytes are produced as the data streams through, so they are not
/// authenticated until the decoder reports [`Progress::StreamEnd`], which it
/// does only after the authentication code matched; a mismatch is
/// [`ZipError::Authentication`]. Input past the entry's bytes is left
/// unconsumed.
pub struct WinZipAesDecoder {
    entry: String,
    strength: AesStrength,
    /// Held until the salt arrives, then wiped.
    password: Zeroizing<Vec<u8>>,
    head: [u8; MAX_HEAD],
    head_len: usize,
    keystream: Option<Keystream>,
    mac: Option<HmacSha1>,
    data_left: u64,
    code: [u8; AUTH_CODE_LEN],
    code_len: usize,
    state: State,
    /// For an entry whose length only its data descriptor gives: the
    /// encrypted bytes of the last call, authenticated only once the
    /// caller has used all their plaintext (see
    /// [`new_unbounded`](WinZipAesDecoder::new_unbounded)).
    lag: Option<Vec<u8>>,
}

impl std::fmt::Debug for WinZipAesDecoder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // No password or keys in debug output.
        f.debug_struct("WinZipAesDecoder")
            .field("entry", &self.entry)
            .field("strength", &self.strength)
            .field("data_left", &self.data_left)
            .field("state", &self.state)
            .finish_non_exhaustive()
    }
}

impl WinZipAesDecoder {
    /// A decoder for an entry of `strength` encrypted with `password` (its
    /// bytes as given to the writer; WinZip uses UTF-8). `data_len` is the
    /// entry's compressed size, which counts salt, verification value and
    /// authentication code; `entry_name` names the entry in
    /// [`ZipError::Authentication`].
    ///
    /// The key derivation (PBKDF2, 1000 rounds) runs in the first
    /// [`decode`](Decode::decode) call that completes the salt and
    /// verification value.
    ///
    /// # Errors
    /// [`ZipError::Corrupt`] when `data_len` is smaller than the salt,
    /// verification value and authentication code together.
    pub fn new(
        password: &[u8],
        strength: AesStrength,
        data_len: u64,
        entry_name: String,
    ) -> Result<Self, ZipError> {
        let Some(data_left) = data_len.checked_sub(strength.overhead()) else {
            return Err(ZipError::Corrupt(format!(
                "WinZip AES entry {entry_name}: compressed size {data_len} is smaller than \
                 the {} bytes of salt, verifier and authentication code",
                strength.overhead()
            )));
        };
        Ok(WinZipAesDecoder {
            entry: entry_name,
            strength,
            password: Zeroizing::new(password.to_vec()),
            head: [0; MAX_HEAD],
            head_len: 0,
            keystream: None,
            mac: None,
            data_left,
            code: [0; AUTH_CODE_LEN],
            code_len: 0,
            state: State::Head,
            lag: None,
        })
    }

    /// A decoder for an entry whose stored length is not known before
    /// its data ends (a forward-only reader of an entry with a data
    /// descriptor): it decrypts whatever input it is given, ahead of the
    /// decompressor, and authenticates each call's bytes only when the
    /// next call shows that all of them were data (but for the last
    /// 128 bytes, `LAG_HELD`, which a decompressor may have held past its end).
    /// When the decompressor has ended, [`end_of_data`](Self::end_of_data)
    /// says how much of its output was not data (what it left of the last
    /// call's and what it held), and the decoder then reads the
    /// authentication code from the input that follows the data (the
    /// caller gives those unused bytes again).
    ///
    /// The caller must use all of one call's output before calling again.
    pub fn new_unbounded(password: &[u8], strength: AesStrength, entry_name: String) -> Self {
        let mut dec = Self::new(password, strength, u64::MAX, entry_name)
            .expect("u64::MAX exceeds any overhead");
        dec.lag = Some(Vec::new());
        dec
    }

    /// Ends the data of an unbounded decoder: all of its output but the
    /// last `unused` bytes was data. The next input is the authentication
    /// code. No-op for a decoder of known length.
    pub fn end_of_data(&mut self, unused: usize) -> Result<(), ZipError> {
        let Some(lag) = self.lag.take() else {
            return Ok(());
        };
        if self.state != State::Data || unused > lag.len() {
            return Err(self.fail(Failure::Truncated));
        }
        if let Some(mac) = &mut self.mac {
            mac.update(&lag[..lag.len() - unused]);
        }
        self.keystream = None;
        self.data_left = 0;
        self.state = State::Code;
        Ok(())
    }

    /// Enters the failed state (dropping every secret) and returns its
    /// error.
    fn fail(&mut self, failure: Failure) -> ZipError {
        self.state = State::Failed(failure);
        self.keystream = None;
        self.mac = None;
        self.password = Zeroizing::new(Vec::new());
        match failure {
            Failure::WrongPassword => ZipError::WrongPassword,
            Failure::Truncated => ZipError::Truncated,
            Failure::Authentication => ZipError::Authentication {
                entry: self.entry.clone(),
            },
        }
    }

    /// `NeedInput`, or the truncation error when no input follows.
    fn starved(&mut self, input: &InBuf<'_>) -> Result<Progress, ZipError> {
        if input.is_last() {
            Err(self.fail(Failure::Truncated))
        } else {
            Ok(Progress::NeedInput)
        }
    }

    /// Derives the keys from the complete salt and checks the verifier.
    fn start(&mut self) -> Result<(), ZipError> {
        let salt_len = self.strength.salt_len();
        let key_len = self.strength.key_len();
        let (salt, stored) = self.head[..salt_len + VERIFIER_LEN].split_at(salt_len);
        let derived = derive(&self.password, self.strength, salt);
        // The password is not needed any more.
        self.password = Zeroizing::new(Vec::new());
        // The verifier is stored in the clear: comparing it in variable
        // time reveals nothing.
        if derived[2 * key_len..2 * key_len + VERIFIER_LEN] != *stored {
            return Err(self.fail(Failure::WrongPassword));
        }
        self.keystream = Some(Keystream::new(self.strength, &derived[..key_len]));
        self.mac = Some(
            HmacSha1::new_from_slice(&derived[key_len..2 * key_len])
                .expect("HMAC takes keys of any length"),
        );
        Ok(())
    }
}

impl Decode for WinZipAesDecoder {
    type Error = ZipError;

    fn decode(
        &mut self,
        input: &mut InBuf<'_>,
        output: &mut OutBuf<'_>,
    ) -> Result<Progress, ZipError> {
        loop {
            match self.state {
                State::Failed(failure) => return Err(self.fail(failure)),
                State::Done => return Ok(Progress::StreamEnd),
                State::Head => {
                    let want = self.strength.salt_len() + VERIFIER_LEN;
                    let got = input.take(want - self.head_len);
                    self.head[self.head_len..self.head_len + got.len()].copy_from_slice(got);
                    self.head_len += got.len();
                    if self.head_len < want {
                        return self.starved(input);
                    }
                    self.start()?;
                    self.state = State::Data;
                }
                State::Data => {
                    let left = usize::try_from(self.data_left).unwrap_or(usize::MAX);
                    let n = left.min(input.len()).min(output.available());
                    let src = input.take(n);
                    let (Some(mac), Some(keystream)) = (&mut self.mac, &mut self.keystream) else {
                        unreachable!("keys are set before the data");
                    };
                    // The code covers the encrypted bytes: at once when the
                    // length is known, else one call later (all of the last
                    // call's output has been used when the caller calls
                    // again).
                    match &mut self.lag {
                        None => mac.update(src),
                        Some(lag) => {
                            // Of the earlier calls' bytes, the caller's
                            // decompressor may hold a few past the data
                            // (PPMd): those wait too.
                            let done = lag.len().saturating_sub(LAG_HELD);
                            mac.update(&lag[..done]);
                            lag.drain(..done);
                            lag.extend_from_slice(src);
                        }
                    }
                    let dst = &mut output.spare_mut()[..n];
                    dst.copy_from_slice(src);
                    keystream.apply(dst);
                    output.advance(n);
                    self.data_left -= n as u64;
                    if self.data_left == 0 {
                        self.keystream = None;
                        self.state = State::Code;
                        if n > 0 {
                            // The last plaintext goes on before the
                            // authentication code is checked, as it would
                            // have had the code come in a later call: the
                            // entry's first error is then the same however
                            // the input is split.
                            return Ok(Progress::OutputFull);
                        }
                    } else if input.is_empty() {
                        // What was decrypted goes on first, even at the
                        // end of the input: in an entry of unknown length
                        // the data may end within it.
                        return if n > 0 {
                            Ok(Progress::NeedInput)
                        } else {
                            self.starved(input)
                        };
                    } else {
                        return Ok(Progress::OutputFull);
                    }
                }
                State::Code => {
                    let got = input.take(AUTH_CODE_LEN - self.code_len);
                    self.code[self.code_len..self.code_len + got.len()].copy_from_slice(got);
                    self.code_len += got.len();
                    if self.code_len < AUTH_CODE_LEN {
                        return self.starved(input);
                    }
                    let Some(mac) = self.mac.take() else {
                        unreachable!("keys are set before the code");
                    };
                    // Constant-time comparison of the leftmost 10 bytes.
                    if mac.verify_truncated_left(&self.code).is_err() {
                        return Err(self.fail(Failure::Authentication));
                    }
                    self.state = State::Done;
                    return Ok(Progress::StreamEnd);
                }
            }
        }
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    pub(crate) const PASSWORD: &[u8] = b"fixture-pass";

    /// WinZip AES encryption, for round trips only (the reader never
    /// encrypts).
    pub(crate) fn encrypt(strength: AesStrength, salt: &[u8], plain: &[u8]) -> Vec<u8> {
        let dk = derive(PASSWORD, strength, salt);
        let k = strength.key_len();
        let mut ct = plain.to_vec();
        Keystream::new(strength, &dk[..k]).apply(&mut ct);
        let mut mac = HmacSha1::new_from_slice(&dk[k..2 * k]).unwrap();
        mac.update(&ct);
        let code = mac.finalize().into_bytes();
        let mut out = salt.to_vec();
        out.extend_from_slice(&dk[2 * k..2 * k + 2]);
        out.extend_from_slice(&ct);
        out.extend_from_slice(&code[..AUTH_CODE_LEN]);
        out
    }

    fn run(dec: &mut WinZipAesDecoder, data: &[u8], step: usize) -> Result<Vec<u8>, ZipError> {
        let (out, used) = crate::read::test_archive::decode_in_steps(dec, data, step, 5)?;
        assert_eq!(used, data.len());
        Ok(out)
    }

    fn decoder(strength: AesStrength, data: &[u8], password: &[u8]) -> WinZipAesDecoder {
        WinZipAesDecoder::new(password, strength, data.len() as u64, "e".into()).unwrap()
    }

    #[test]
    fn strength_bytes() {
        assert_eq!(AesStrength::from_byte(1), Some(AesStrength::Aes128));
        assert_eq!(AesStrength::from_byte(2), Some(AesStrength::Aes192));
        assert_eq!(AesStrength::from_byte(3), Some(AesStrength::Aes256));
        assert_eq!(AesStrength::from_byte(0), None);
        assert_eq!(AesStrength::from_byte(4), None);
        assert_eq!(AesStrength::Aes192.overhead(), 12 + 2 + 10);
    }

    #[test]
    fn round_trip_every_strength_any_split() {
        let plain: Vec<u8> = (0..77u8).collect();
        for (strength, salt) in [
            (AesStrength::Aes128, &[1u8; 8][..]),
            (AesStrength::Aes192, &[2u8; 12][..]),
            (AesStrength::Aes256, &[3u8; 16][..]),
        ] {
            let data = encrypt(strength, salt, &plain);
            for step in [1, 3, 16, 17, 1000] {
                let mut dec = decoder(strength, &data, PASSWORD);
                assert_eq!(run(&mut dec, &data, step).unwrap(), plain);
            }
        }
    }

    #[test]
    fn empty_data() {
        let data = encrypt(AesStrength::Aes128, &[9; 8], b"");
        let mut dec = decoder(AesStrength::Aes128, &data, PASSWORD);
        assert_eq!(run(&mut dec, &data, 1).unwrap(), b"");
    }

    #[test]
    fn wrong_password_before_any_data() {
        let data = encrypt(AesStrength::Aes256, &[7; 16], b"secret data");
        let mut dec = decoder(AesStrength::Aes256, &data, b"wrong-pass");
        let mut input = InBuf::new(&data[..18]);
        let r = dec.decode(&mut input, &mut OutBuf::new(&mut [0u8; 4]));
        assert!(matches!(r, Err(ZipError::WrongPassword)));
        let r = dec.decode(&mut InBuf::last(b""), &mut OutBuf::new(&mut [0u8; 4]));
        assert!(matches!(r, Err(ZipError::WrongPassword)), "sticky");
    }

    #[test]
    fn altered_data_or_code_fails_authentication() {
        let data = encrypt(AesStrength::Aes128, &[5; 8], b"some payload bytes");
        for at in [8 + 2, data.len() - 3] {
            let mut bad = data.clone();
            bad[at] ^= 0x40;
            let mut dec = decoder(AesStrength::Aes128, &bad, PASSWORD);
            match run(&mut dec, &bad, 4) {
                Err(ZipError::Authentication { entry }) => assert_eq!(entry, "e"),
                other => panic!("{other:?}"),
            }
            let r = dec.decode(&mut InBuf::last(b""), &mut OutBuf::new(&mut [0u8; 4]));
            assert!(matches!(r, Err(ZipError::Authentication { .. })), "sticky");
        }
    }

    #[test]
    fn truncated_anywhere() {
        let data = encrypt(AesStrength::Aes192, &[4; 12], b"0123456789abcdef!");
        for cut in [0, 5, 14, 20, data.len() - 1] {
            let mut dec = decoder(AesStrength::Aes192, &data, PASSWORD);
            assert!(
                matches!(run(&mut dec, &data[..cut], 3), Err(ZipError::Truncated)),
                "cut {cut}"
            );
        }
    }

    #[test]
    fn too_short_for_overhead_is_corrupt() {
        let r = WinZipAesDecoder::new(PASSWORD, AesStrength::Aes256, 27, "e".into());
        assert!(matches!(r, Err(ZipError::Corrupt(_))));
        assert!(WinZipAesDecoder::new(PASSWORD, AesStrength::Aes256, 28, "e".into()).is_ok());
    }

    #[test]
    fn trailing_input_is_left() {
        let data = encrypt(AesStrength::Aes128, &[6; 8], b"abc");
        let mut with_tail = data.clone();
        with_tail.extend_from_slice(b"PK\x07\x08");
        let mut dec = decoder(AesStrength::Aes128, &data, PASSWORD);
        let mut input = InBuf::new(&with_tail);
        let mut buf = [0u8; 16];
        let mut o = OutBuf::new(&mut buf);
        // The plaintext first, then the authentication code's verdict.
        assert_eq!(
            dec.decode(&mut input, &mut o).unwrap(),
            Progress::OutputFull
        );
        assert_eq!(o.written(), b"abc");
        assert_eq!(dec.decode(&mut input, &mut o).unwrap(), Progress::StreamEnd);
        assert_eq!(o.written(), b"abc");
        assert_eq!(input.remaining(), b"PK\x07\x08");
    }
}
