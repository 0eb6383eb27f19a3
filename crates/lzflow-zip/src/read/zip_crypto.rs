//! Traditional PKWARE encryption ("ZipCrypto", APPNOTE 6.1) as a sans-I/O
//! decoder.
//!
//! The cipher is the format's own: three 32-bit keys seeded with the
//! password, each byte stepping them with the CRC-32 register update (no
//! pre- or post-inversion) and a linear congruential step. Every encrypted
//! entry starts with a 12-byte encryption header whose last byte, once
//! decrypted, must equal a check byte the reader supplies. The scheme is
//! weak by today's standards; it is read for compatibility only.

// The entry reader constructs this decoder; until it is wired up, the
// library build does not use it.

use lzflow_core::{Decode, InBuf, OutBuf, Progress};
use zeroize::Zeroize;

use crate::ZipError;

/// Length of the encryption header in front of the entry data.
pub const HEADER_LEN: usize = 12;

/// CRC-32 register table for the reflected polynomial 0xEDB88320 (the one
/// zip uses everywhere), built at compile time.
const CRC_TABLE: [u32; 256] = {
    let mut table = [0u32; 256];
    let mut i = 0;
    while i < 256 {
        let mut reg = i as u32;
        let mut bit = 0;
        while bit < 8 {
            reg = if reg & 1 != 0 {
                (reg >> 1) ^ 0xEDB8_8320
            } else {
                reg >> 1
            };
            bit += 1;
        }
        table[i] = reg;
        i += 1;
    }
    table
};

/// One step of the raw CRC-32 register: APPNOTE's `crc32(old, byte)`.
#[inline]
fn crc_step(reg: u32, byte: u8) -> u32 {
    (reg >> 8) ^ CRC_TABLE[((reg ^ u32::from(byte)) & 0xff) as usize]
}

/// The three keys of the cipher; wiped when dropped.
pub(crate) struct Keys([u32; 3]);

impl Keys {
    pub(crate) fn new(password: &[u8]) -> Self {
        let mut keys = Keys([0x1234_5678, 0x2345_6789, 0x3456_7890]);
        for &b in password {
            keys.update(b);
        }
        keys
    }

    /// Steps the keys with one plaintext byte.
    #[inline]
    pub(crate) fn update(&mut self, plain: u8) {
        let k = &mut self.0;
        k[0] = crc_step(k[0], plain);
        k[1] = k[1]
            .wrapping_add(k[0] & 0xff)
            .wrapping_mul(134_775_813)
            .wrapping_add(1);
        k[2] = crc_step(k[2], (k[1] >> 24) as u8);
    }

    /// The next keystream byte.
    #[inline]
    pub(crate) fn stream_byte(&self) -> u8 {
        let t = (self.0[2] | 2) & 0xffff;
        ((t * (t ^ 1)) >> 8) as u8
    }

    #[inline]
    fn decrypt_byte(&mut self, cipher: u8) -> u8 {
        let plain = cipher ^ self.stream_byte();
        self.update(plain);
        plain
    }
}

impl Drop for Keys {
    fn drop(&mut self) {
        self.0.zeroize();
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    /// Reading the 12-byte header; the count read so far.
    Header(u8),
    Data,
    Done,
    WrongPassword,
    Truncated,
}

/// Decrypts a ZipCrypto entry: input is the entry's stored bytes (the
/// 12-byte encryption header, then the encrypted data), output is the
/// compressed data for the entry's method.
///
/// The decoder checks the header's last byte against `check` and fails with
/// [`ZipError::WrongPassword`] on a mismatch. That check is one byte wide:
/// about one wrong password in 256 passes it and yields garbage, which the
/// decompressor or the entry's CRC-32 then rejects. Callers must check the
/// CRC-32 of the output of the method's decoder.
///
/// Without [`with_len`](Self::with_len) the stream ends when the input ends
/// (`input.is_last()`); with it, after exactly that many bytes, leaving the
/// rest of the input unconsumed.
pub struct ZipCryptoDecoder {
    keys: Keys,
    check: u8,
    /// Bytes of input still belonging to the entry, when known.
    remaining: Option<u64>,
    state: State,
}

impl std::fmt::Debug for ZipCryptoDecoder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // No keys in debug output.
        f.debug_struct("ZipCryptoDecoder")
            .field("remaining", &self.remaining)
            .field("state", &self.state)
            .finish_non_exhaustive()
    }
}

impl ZipCryptoDecoder {
    /// A decoder for an entry encrypted with `password` (its bytes as
    /// stored: zip gives no encoding for passwords; CP437 or UTF-8 in
    /// practice).
    ///
    /// `check` is the byte the decrypted header's last byte must equal. The
    /// caller decides which: APPNOTE 6.1.6 gives the high byte of the
    /// entry's CRC-32, but when general-purpose flag bit 3 is set (CRC and
    /// sizes in a data descriptor) writers such as Info-ZIP use the high
    /// byte of the DOS modification time instead (`(time >> 8) as u8`).
    pub fn new(password: &[u8], check: u8) -> Self {
        ZipCryptoDecoder {
            keys: Keys::new(password),
            check,
            remaining: None,
            state: State::Header(0),
        }
    }

    /// Limits the stream to `len` input bytes (the entry's compressed size,
    /// header included). Past them the decoder reports
    /// [`Progress::StreamEnd`] and leaves any further input unconsumed; an
    /// input ending before them is [`ZipError::Truncated`], and so is a
    /// `len` shorter than the header.
    pub fn with_len(mut self, len: u64) -> Self {
        self.remaining = Some(len);
        self
    }

    fn fail(&mut self, state: State) -> ZipError {
        self.state = state;
        self.keys.0.zeroize();
        match state {
            State::WrongPassword => ZipError::WrongPassword,
            _ => ZipError::Truncated,
        }
    }

    /// How much of `input` this decoder may take.
    fn allowed(&self, input: &InBuf<'_>) -> usize {
        match self.remaining {
            Some(r) => usize::try_from(r).map_or(input.len(), |r| r.min(input.len())),
            None => input.len(),
        }
    }

    fn took(&mut self, n: usize) {
        if let Some(r) = &mut self.remaining {
            *r -= n as u64;
        }
    }
}

impl Decode for ZipCryptoDecoder {
    type Error = ZipError;

    fn decode(
        &mut self,
        input: &mut InBuf<'_>,
        output: &mut OutBuf<'_>,
    ) -> Result<Progress, ZipError> {
        loop {
            match self.state {
                State::WrongPassword | State::Truncated => return Err(self.fail(self.state)),
                State::Done => return Ok(Progress::StreamEnd),
                State::Header(read) => {
                    if self.remaining == Some(0) {
                        return Err(self.fail(State::Truncated));
                    }
                    if self.allowed(input) == 0 {
                        return if input.is_last() {
                            Err(self.fail(State::Truncated))
                        } else {
                            Ok(Progress::NeedInput)
                        };
                    }
                    let Some(c) = input.take_byte() else {
                        unreachable!("allowed() > 0");
                    };
                    self.took(1);
                    let plain = self.keys.decrypt_byte(c);
                    let read = read + 1;
                    if usize::from(read) < HEADER_LEN {
                        self.state = State::Header(read);
                    } else if plain != self.check {
                        return Err(self.fail(State::WrongPassword));
                    } else {
                        self.state = State::Data;
                    }
                }
                State::Data => {
                    if self.remaining == Some(0) {
                        self.state = State::Done;
                        self.keys.0.zeroize();
                        return Ok(Progress::StreamEnd);
                    }
                    let n = self.allowed(input).min(output.available());
                    let src = input.take(n);
                    let dst = &mut output.spare_mut()[..n];
                    for (d, &c) in dst.iter_mut().zip(src) {
                        *d = self.keys.decrypt_byte(c);
                    }
                    output.advance(n);
                    self.took(n);
                    if self.remaining == Some(0) {
                        continue;
                    }
                    if input.is_empty() {
                        return match (input.is_last(), self.remaining) {
                            (false, _) => Ok(Progress::NeedInput),
                            (true, None) => {
                                self.state = State::Done;
                                self.keys.0.zeroize();
                                Ok(Progress::StreamEnd)
                            }
                            (true, Some(_)) => Err(self.fail(State::Truncated)),
                        };
                    }
                    return Ok(Progress::OutputFull);
                }
            }
        }
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// ZipCrypto encryption, for round trips only (the reader never
    /// encrypts).
    pub(crate) fn encrypt(
        password: &[u8],
        header11: &[u8; 11],
        check: u8,
        plain: &[u8],
    ) -> Vec<u8> {
        let mut keys = Keys::new(password);
        header11
            .iter()
            .copied()
            .chain([check])
            .chain(plain.iter().copied())
            .map(|p| {
                let c = p ^ keys.stream_byte();
                keys.update(p);
                c
            })
            .collect()
    }

    fn run(dec: &mut ZipCryptoDecoder, data: &[u8], step: usize) -> Result<Vec<u8>, ZipError> {
        crate::read::test_archive::decode_in_steps(dec, data, step, 7).map(|(out, _)| out)
    }

    #[test]
    fn crc_table_matches_crc32fast() {
        // The raw register step, inverted on both ends, is the usual CRC-32.
        let data = b"123456789 zip crypto";
        let reg = data.iter().fold(!0u32, |r, &b| crc_step(r, b));
        assert_eq!(!reg, crc32fast::hash(data));
    }

    #[test]
    fn initial_keys_follow_appnote() {
        // Empty password: the keys are APPNOTE's constants.
        let keys = Keys::new(b"");
        assert_eq!(keys.0, [305_419_896, 591_751_049, 878_082_192]);
    }

    #[test]
    fn round_trip_any_split() {
        let plain: Vec<u8> = (0..300u32).map(|i| (i * 7 + 3) as u8).collect();
        let data = encrypt(b"pw", b"abcdefghijk", 0x5a, &plain);
        for step in [1, 2, 5, 11, 12, 13, 64, 1000] {
            let mut dec = ZipCryptoDecoder::new(b"pw", 0x5a);
            assert_eq!(run(&mut dec, &data, step).unwrap(), plain, "step {step}");
            let mut dec = ZipCryptoDecoder::new(b"pw", 0x5a).with_len(data.len() as u64);
            assert_eq!(run(&mut dec, &data, step).unwrap(), plain, "step {step}");
        }
    }

    #[test]
    fn length_leaves_trailing_input() {
        let data = encrypt(b"pw", b"abcdefghijk", 1, b"xyz");
        let mut with_tail = data.clone();
        with_tail.extend_from_slice(b"TAIL");
        let mut dec = ZipCryptoDecoder::new(b"pw", 1).with_len(data.len() as u64);
        let mut input = InBuf::new(&with_tail);
        let mut buf = [0u8; 16];
        let mut o = OutBuf::new(&mut buf);
        assert_eq!(dec.decode(&mut input, &mut o).unwrap(), Progress::StreamEnd);
        assert_eq!(o.written(), b"xyz");
        assert_eq!(input.remaining(), b"TAIL");
    }

    #[test]
    fn wrong_check_byte_is_sticky() {
        let data = encrypt(b"pw", b"abcdefghijk", 1, b"xyz");
        let mut dec = ZipCryptoDecoder::new(b"pw", 2);
        assert!(matches!(
            run(&mut dec, &data, 3),
            Err(ZipError::WrongPassword)
        ));
        let mut buf = [0u8; 4];
        let r = dec.decode(&mut InBuf::last(b""), &mut OutBuf::new(&mut buf));
        assert!(matches!(r, Err(ZipError::WrongPassword)));
    }

    #[test]
    fn truncation() {
        let data = encrypt(b"pw", b"abcdefghijk", 1, b"xyz");
        // Inside the header.
        let mut dec = ZipCryptoDecoder::new(b"pw", 1);
        assert!(matches!(
            run(&mut dec, &data[..11], 4),
            Err(ZipError::Truncated)
        ));
        let mut buf = [0u8; 4];
        let r = dec.decode(&mut InBuf::last(b""), &mut OutBuf::new(&mut buf));
        assert!(matches!(r, Err(ZipError::Truncated)));
        // Inside the data, when the length is known.
        let mut dec = ZipCryptoDecoder::new(b"pw", 1).with_len(data.len() as u64);
        assert!(matches!(
            run(&mut dec, &data[..13], 4),
            Err(ZipError::Truncated)
        ));
        // A length shorter than the header.
        let mut dec = ZipCryptoDecoder::new(b"pw", 1).with_len(5);
        assert!(matches!(run(&mut dec, &data, 4), Err(ZipError::Truncated)));
    }

    #[test]
    fn zero_output_room_reports_output_full() {
        let data = encrypt(b"pw", b"abcdefghijk", 1, b"xyz");
        let mut dec = ZipCryptoDecoder::new(b"pw", 1);
        let mut input = InBuf::new(&data);
        let mut o = OutBuf::new(&mut []);
        assert_eq!(
            dec.decode(&mut input, &mut o).unwrap(),
            Progress::OutputFull
        );
        assert_eq!(input.pos(), HEADER_LEN);
    }
}
