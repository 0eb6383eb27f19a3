//! One entry's data as a single decoder: decryption (ZipCrypto or WinZip
//! AES) when the entry is encrypted, then its method's decompressor, then
//! the checks: the CRC-32 (not for AE-2, which stores none), the size when
//! known, and the output and compression-ratio limits.
//!
//! Both readers use it. The central-directory reader knows every entry's
//! sizes and CRC-32. The forward-only reader may not: an entry with a data
//! descriptor ends where its decompressor says, and its CRC-32 and sizes
//! are checked against the descriptor afterwards. An encrypted entry of
//! unknown length is decrypted ahead of the decompressor; when the
//! decompressor ends, [`EntryDecoder::take_unused`] says how many of the
//! input bytes already taken were not part of the data, and the caller
//! gives them again.

use std::borrow::Cow;

use lzflow_core::{Decode, InBuf, Lease, LimitExceeded, OutBuf, Pool, Progress};

use crate::read::central_directory::CentralEntry;
use crate::read::dos_time::DosDateTime;
use crate::read::extra_field::{AesExtra, AesVendorVersion};
use crate::read::method::{self, EntryCoder};
use crate::read::winzip_aes::{AesStrength, WinZipAesDecoder};
use crate::read::zip_crypto::ZipCryptoDecoder;
use crate::read::zip_options::ZipOptions;
use crate::ZipError;

/// Decrypted bytes held between the two stages. With [`HELD`], the most
/// input an encrypted entry of unknown length may take past its data, which
/// the forward-only reader keeps so it can give it again.
pub(crate) const STAGE: usize = 32 << 10;

/// Most a decompressor takes past its data and says so
/// ([`Decode::unused_after_end`]): Deflate64's last piece of input (64
/// KiB), or the bytes PPMd held.
pub(crate) const HELD: usize = lzflow_methods::MAX_UNUSED_AFTER_END;

/// Flag bit 6: PKWARE's strong encryption, which lzflow does not read.
const FLAG_STRONG_ENCRYPTION: u16 = 1 << 6;

/// Zip method 99: WinZip AES (the real method is in the 0x9901 extra).
pub(crate) const METHOD_AES: u16 = 99;

/// Output an entry may make before the compression-ratio cap applies:
/// small entries of zeros legitimately compress beyond any cap.
const RATIO_GRACE: u64 = 1 << 20;

/// What an entry's decoder needs to know, from the central directory or
/// from a local header.
#[derive(Debug, Clone)]
pub(crate) struct EntrySpec<'a> {
    pub name: Cow<'a, str>,
    pub flags: u16,
    /// As stored (99 for WinZip AES).
    pub method: u16,
    pub dos_time: DosDateTime,
    /// `None` until a data descriptor gives it.
    pub crc32: Option<u32>,
    /// Stored bytes (encryption overhead included); `None` when only a
    /// data descriptor gives it.
    pub compressed_size: Option<u64>,
    pub uncompressed_size: Option<u64>,
    pub aes: Option<AesExtra>,
}

impl<'a> EntrySpec<'a> {
    /// The spec of a central-directory entry: everything is known.
    pub fn central(entry: &CentralEntry<'a>) -> Self {
        EntrySpec {
            name: entry.name(),
            flags: entry.flags(),
            method: entry.method(),
            dos_time: entry.dos_time(),
            crc32: Some(entry.crc32()),
            compressed_size: Some(entry.compressed_size()),
            uncompressed_size: Some(entry.uncompressed_size()),
            aes: entry.aes(),
        }
    }

    fn has_data_descriptor(&self) -> bool {
        self.flags & crate::read::central_directory::FLAG_DATA_DESCRIPTOR != 0
    }

    fn is_encrypted(&self) -> bool {
        self.flags & crate::read::central_directory::FLAG_ENCRYPTED != 0
    }
}

/// The decryption coder of an encrypted entry.
enum Decrypt {
    ZipCrypto(ZipCryptoDecoder),
    Aes(Box<WinZipAesDecoder>),
}

impl Decrypt {
    fn decode(
        &mut self,
        input: &mut InBuf<'_>,
        out: &mut OutBuf<'_>,
    ) -> Result<Progress, ZipError> {
        match self {
            Decrypt::ZipCrypto(d) => d.decode(input, out),
            Decrypt::Aes(d) => d.decode(input, out),
        }
    }
}

/// The decryption stage and the decrypted bytes it has made.
struct Stage {
    coder: Decrypt,
    buf: Lease<u8>,
    start: usize,
    end: usize,
    done: bool,
    /// The stored length is unknown: the stage decrypts ahead of the
    /// decompressor, and gives back what it took too much.
    unbounded: bool,
    /// After an unbounded AES entry's data: its authentication code is
    /// still to read.
    trailer: bool,
}

/// What the data must be and may be.
struct Checks {
    crc: crc32fast::Hasher,
    want_crc: Option<u32>,
    /// `None` for AE-2, which stores no CRC-32.
    has_crc: bool,
    size: Option<u64>,
    produced: u64,
    consumed: u64,
    output_limit: u64,
    max_ratio: Option<u64>,
    ended: bool,
    crc_value: u32,
}

impl Checks {
    /// Accounts for `made` and, at the stream's end, checks it all.
    fn after(&mut self, p: Progress, made: &[u8]) -> Result<Progress, ZipError> {
        self.crc.update(made);
        self.produced = self.produced.saturating_add(made.len() as u64);
        if self.size.is_some_and(|size| self.produced > size) {
            return Err(ZipError::corrupt("entry data is longer than its size"));
        }
        if self.produced > self.output_limit {
            return Err(LimitExceeded::Output {
                limit: self.output_limit,
            }
            .into());
        }
        if let Some(limit) = self.max_ratio {
            if self.produced > RATIO_GRACE && self.produced / self.consumed.max(1) > limit {
                return Err(LimitExceeded::Ratio { limit }.into());
            }
        }
        if p != Progress::StreamEnd {
            return Ok(p);
        }
        if self.size.is_some_and(|size| self.produced != size) {
            return Err(ZipError::corrupt("entry data is shorter than its size"));
        }
        self.crc_value = std::mem::take(&mut self.crc).finalize();
        if self.has_crc && self.want_crc.is_some_and(|want| want != self.crc_value) {
            // The reader names the entry.
            return Err(ZipError::DataCrc {
                entry: String::new(),
            });
        }
        self.ended = true;
        Ok(p)
    }
}

/// The decoder of an entry's stored bytes into its data.
pub(crate) struct EntryDecoder {
    decrypt: Option<Stage>,
    decompress: EntryCoder,
    checks: Checks,
    /// Input taken past the data, to be given again (unbounded
    /// encrypted entries, and a decompressor that held input past its
    /// end).
    unused: usize,
    /// Most bytes past the data the decompressor may have taken.
    read_ahead: usize,
}

/// One call of the decompressor, its output checked.
///
/// With the size known, the decompressor gets room for at most one byte
/// past it: data longer than its size is reported as such before the
/// decompressor goes on to whatever else is wrong, however the input and
/// output are split.
fn decompress(
    coder: &mut EntryCoder,
    checks: &mut Checks,
    input: &mut InBuf<'_>,
    output: &mut OutBuf<'_>,
) -> Result<Progress, ZipError> {
    let Some(size) = checks.size else {
        let before = output.pos();
        let p = coder.decode(input, output)?;
        return checks.after(p, &output.written()[before..]);
    };
    let spare = output.spare_mut();
    let room = usize::try_from(size.saturating_sub(checks.produced).saturating_add(1))
        .unwrap_or(usize::MAX)
        .min(spare.len());
    let spare = &mut spare[..room];
    let mut limited = OutBuf::new(spare);
    let p = coder.decode(input, &mut limited)?;
    let made = limited.pos();
    let r = checks.after(p, &spare[..made]);
    output.advance(made);
    r
}

impl EntryDecoder {
    /// The decoder chain of the entry `spec` describes, under `options`.
    pub(crate) fn new(spec: &EntrySpec<'_>, options: &ZipOptions) -> Result<Self, ZipError> {
        if spec.flags & FLAG_STRONG_ENCRYPTION != 0 {
            return Err(ZipError::UnsupportedFeature("PKWARE strong encryption"));
        }
        let mut method = spec.method;
        let mut has_crc = true;
        let decrypt: Option<Decrypt> = if !spec.is_encrypted() {
            None
        } else {
            let password = options
                .password
                .as_deref()
                .ok_or(ZipError::PasswordRequired)?;
            match spec.aes {
                Some(aes) if method == METHOD_AES => {
                    let strength = AesStrength::from_byte(aes.strength)
                        .ok_or_else(|| ZipError::corrupt("unknown WinZip AES strength"))?;
                    method = aes.method;
                    // AE-2 stores no CRC: the authentication code checks.
                    has_crc = aes.version != AesVendorVersion::Ae2;
                    let name = spec.name.clone().into_owned();
                    Some(Decrypt::Aes(Box::new(match spec.compressed_size {
                        Some(stored) => WinZipAesDecoder::new(password, strength, stored, name)?,
                        None => WinZipAesDecoder::new_unbounded(password, strength, name),
                    })))
                }
                _ if method == METHOD_AES => {
                    return Err(ZipError::corrupt(
                        "WinZip AES entry without its extra field",
                    ));
                }
                _ => {
                    // The header's last byte is the CRC's high byte, or the
                    // DOS time's when the CRC comes after the data.
                    let check = match spec.crc32 {
                        Some(crc) if !spec.has_data_descriptor() => (crc >> 24) as u8,
                        _ => (spec.dos_time.time >> 8) as u8,
                    };
                    let dec = ZipCryptoDecoder::new(password, check);
                    Some(Decrypt::ZipCrypto(match spec.compressed_size {
                        Some(stored) => dec.with_len(stored),
                        None => dec,
                    }))
                }
            }
        };
        let decompress = method::decoder(method, spec.uncompressed_size, &options.limits)?;
        let unbounded = spec.compressed_size.is_none();
        let read_ahead = method::read_ahead(method);
        if unbounded && read_ahead > 0 && matches!(decrypt, Some(Decrypt::Aes(_))) {
            // Its authentication code follows the data, where the inflater
            // does not say (`Method::read_ahead`): a guess would be checked
            // against the code at once.
            return Err(ZipError::UnsupportedFeature(
                "a WinZip AES entry of Deflate64 data whose size only its data descriptor \
                 gives, read forward-only",
            ));
        }
        let decrypt = decrypt.map(|coder| {
            let mut buf = Pool::<u8>::global().lease(STAGE);
            buf.resize(STAGE, 0);
            Stage {
                coder,
                buf,
                start: 0,
                end: 0,
                done: false,
                unbounded,
                trailer: false,
            }
        });
        Ok(EntryDecoder {
            decrypt,
            decompress,
            checks: Checks {
                crc: crc32fast::Hasher::new(),
                want_crc: spec.crc32,
                has_crc,
                size: spec.uncompressed_size,
                produced: 0,
                consumed: 0,
                output_limit: options.limits.output,
                max_ratio: options.max_ratio,
                ended: false,
                crc_value: 0,
            },
            unused: 0,
            read_ahead,
        })
    }

    /// Most stored bytes past the data the decompressor may have taken
    /// ([`Method::read_ahead`](lzflow_methods::Method::read_ahead)): where
    /// only a data descriptor sizes the entry, its data may have ended up
    /// to this many bytes before [`consumed`](Self::consumed) says, and
    /// the descriptor is there.
    pub(crate) fn read_ahead(&self) -> usize {
        self.read_ahead
    }

    /// The data ended `back` bytes before [`consumed`](Self::consumed)
    /// said (at most [`read_ahead`](Self::read_ahead)), as its data
    /// descriptor showed.
    pub(crate) fn give_back(&mut self, back: usize) {
        debug_assert!(back <= self.read_ahead);
        self.checks.consumed -= back as u64;
    }

    /// After the data ended: input bytes already taken that follow it and
    /// must be given again (at most [`STAGE`] + [`HELD`]); 0 afterwards.
    pub(crate) fn take_unused(&mut self) -> usize {
        std::mem::take(&mut self.unused)
    }

    /// After the end: the data's CRC-32, or `None` for AE-2 entries, which
    /// are authenticated instead and store none.
    pub(crate) fn data_crc(&self) -> Option<u32> {
        self.checks.has_crc.then_some(self.checks.crc_value)
    }

    /// Bytes of data made so far.
    pub(crate) fn produced(&self) -> u64 {
        self.checks.produced
    }

    /// Stored bytes taken so far (less any [`take_unused`](Self::take_unused)
    /// gave back).
    pub(crate) fn consumed(&self) -> u64 {
        self.checks.consumed
    }

    fn step(
        &mut self,
        input: &mut InBuf<'_>,
        output: &mut OutBuf<'_>,
    ) -> Result<Progress, ZipError> {
        if self.checks.ended {
            return Ok(Progress::StreamEnd);
        }
        let Some(stage) = &mut self.decrypt else {
            let p = decompress(&mut self.decompress, &mut self.checks, input, output)?;
            if p == Progress::StreamEnd {
                // Input the decompressor held past its end (PPMd).
                self.unused = self.decompress.unused_after_end();
            }
            return Ok(p);
        };
        if stage.trailer {
            return trailer(stage, &mut self.checks, input);
        }
        loop {
            if stage.start == stage.end && !stage.done {
                let mut room = OutBuf::new(&mut stage.buf[..]);
                let p = stage.coder.decode(input, &mut room)?;
                stage.start = 0;
                stage.end = room.pos();
                stage.done = p == Progress::StreamEnd;
                if stage.end == 0 && !stage.done {
                    // More input wanted (the stage reports truncation
                    // itself when the input is the last).
                    return Ok(Progress::NeedInput);
                }
            }
            let mut mid = InBuf::new(&stage.buf[stage.start..stage.end]).with_last(stage.done);
            let p = decompress(&mut self.decompress, &mut self.checks, &mut mid, output)?;
            stage.start += mid.pos();
            if p == Progress::StreamEnd && stage.unbounded {
                // Decrypted ahead: what the decompressor left, or took
                // and held past its end (PPMd), was not data, and its
                // stored bytes follow the data.
                let unused = stage.end - stage.start + self.decompress.unused_after_end();
                self.unused = unused;
                stage.start = stage.end;
                if let Decrypt::Aes(aes) = &mut stage.coder {
                    aes.end_of_data(unused)?;
                    self.checks.ended = false;
                    stage.trailer = true;
                    return Ok(Progress::NeedInput);
                }
            }
            if p == Progress::StreamEnd && !stage.unbounded && !stage.done {
                // The stored bytes go on: the decryptor reads them to its
                // end, so that the AES authentication code is checked
                // however the input was split (what it decrypts past the
                // compressed data is dropped).
                stage.start = stage.end;
                self.checks.ended = false;
                stage.trailer = true;
                return trailer(stage, &mut self.checks, input);
            }
            if p != Progress::NeedInput {
                return Ok(p);
            }
        }
    }
}

/// After the decompressor's end: the decryptor reads the rest of its
/// stored bytes (the authentication code at least) and ends.
fn trailer(
    stage: &mut Stage,
    checks: &mut Checks,
    input: &mut InBuf<'_>,
) -> Result<Progress, ZipError> {
    let mut discard = [0u8; 512];
    loop {
        let mut out = OutBuf::new(&mut discard);
        let p = stage.coder.decode(input, &mut out)?;
        if p == Progress::StreamEnd {
            stage.trailer = false;
            stage.done = true;
            checks.ended = true;
            return Ok(p);
        }
        if out.pos() == 0 {
            return Ok(p);
        }
    }
}

impl Decode for EntryDecoder {
    type Error = ZipError;
    fn decode(
        &mut self,
        input: &mut InBuf<'_>,
        output: &mut OutBuf<'_>,
    ) -> Result<Progress, ZipError> {
        let (before, had) = (input.pos(), self.unused);
        let r = self.step(input, output);
        // Bytes given back were not the entry's.
        let back = self.unused.saturating_sub(had);
        self.checks.consumed =
            (self.checks.consumed + (input.pos() - before) as u64).saturating_sub(back as u64);
        r
    }
}
