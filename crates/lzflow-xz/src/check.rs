//! Integrity checks (spec section 3.4): the Check field that follows each
//! Block's compressed data, computed over the Block's uncompressed data.

use sha2::{Digest as _, Sha256};

/// The check types lzflow can compute and verify.
///
/// Stream Flags may name sixteen check IDs (0..=15). Only these four are
/// defined; the others are reserved but their sizes are fixed by the spec,
/// so [`XzDecoder`](crate::XzDecoder) still decodes such streams, skipping
/// the check without verifying it (see
/// [`XzDecoder::unverified_check_id`](crate::XzDecoder::unverified_check_id)).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Check {
    /// No check (ID 0x00).
    None,
    /// CRC32 (ID 0x01), 4 bytes, little endian.
    Crc32,
    /// CRC64 as in ECMA-182 / xz (ID 0x04), 8 bytes, little endian.
    #[default]
    Crc64,
    /// SHA-256 (ID 0x0A), 32 bytes.
    Sha256,
}

impl Check {
    // `Check::from_id` is defined in `error`, beside the errors it returns,
    // so that this module stays below `error` (which names `Check`).

    /// The check ID stored in Stream Flags.
    pub fn id(self) -> u8 {
        match self {
            Check::None => 0x00,
            Check::Crc32 => 0x01,
            Check::Crc64 => 0x04,
            Check::Sha256 => 0x0A,
        }
    }

    /// Size in bytes of the Check field.
    pub fn size(self) -> usize {
        size_of_id(self.id())
    }

    /// Human-readable name, as `xz --list` prints it.
    pub fn name(self) -> &'static str {
        match self {
            Check::None => "None",
            Check::Crc32 => "CRC32",
            Check::Crc64 => "CRC64",
            Check::Sha256 => "SHA-256",
        }
    }
}

impl std::fmt::Display for Check {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// Size of the Check field for any check ID 0..=15; the spec fixes it in
/// groups of three so that unknown checks can be skipped.
pub fn size_of_id(id: u8) -> usize {
    match id {
        0 => 0,
        1..=3 => 4,
        4..=6 => 8,
        7..=9 => 16,
        10..=12 => 32,
        _ => 64,
    }
}

/// A running check over uncompressed data.
#[derive(Clone)]
pub(crate) enum Checker {
    /// Nothing to compute: check None, an unknown check ID, or verification
    /// switched off.
    Skip,
    Crc32(crc32fast::Hasher),
    Crc64(crc64fast::Digest),
    Sha256(Box<Sha256>),
}

impl std::fmt::Debug for Checker {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Checker::Skip => "Checker::Skip",
            Checker::Crc32(_) => "Checker::Crc32",
            Checker::Crc64(_) => "Checker::Crc64",
            Checker::Sha256(_) => "Checker::Sha256",
        })
    }
}

impl Checker {
    /// A fresh checker for `check`.
    pub(crate) fn new(check: Check) -> Self {
        match check {
            Check::None => Checker::Skip,
            Check::Crc32 => Checker::Crc32(crc32fast::Hasher::new()),
            Check::Crc64 => Checker::Crc64(crc64fast::Digest::new()),
            Check::Sha256 => Checker::Sha256(Box::default()),
        }
    }

    /// Resets to the state of [`new`](Self::new) without reallocating.
    pub(crate) fn reset(&mut self) {
        match self {
            Checker::Skip => {}
            Checker::Crc32(h) => *h = crc32fast::Hasher::new(),
            Checker::Crc64(h) => *h = crc64fast::Digest::new(),
            Checker::Sha256(h) => **h = Sha256::new(),
        }
    }

    /// Adds `data` to the check.
    pub(crate) fn update(&mut self, data: &[u8]) {
        match self {
            Checker::Skip => {}
            Checker::Crc32(h) => h.update(data),
            Checker::Crc64(h) => h.write(data),
            Checker::Sha256(h) => h.update(data),
        }
    }

    /// The Check field as stored in the file; `None` for [`Checker::Skip`].
    /// Leaves the checker reset for the next Block.
    pub(crate) fn finish(&mut self) -> Option<CheckValue> {
        let value = match self {
            Checker::Skip => return None,
            Checker::Crc32(h) => CheckValue::from_slice(&h.clone().finalize().to_le_bytes()),
            Checker::Crc64(h) => CheckValue::from_slice(&h.sum64().to_le_bytes()),
            Checker::Sha256(h) => CheckValue::from_slice(&h.finalize_reset()),
        };
        self.reset();
        Some(value)
    }
}

/// A computed Check field (at most 32 bytes for the known checks).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct CheckValue {
    bytes: [u8; 32],
    len: usize,
}

impl CheckValue {
    fn from_slice(s: &[u8]) -> Self {
        let mut bytes = [0; 32];
        bytes[..s.len()].copy_from_slice(s);
        CheckValue {
            bytes,
            len: s.len(),
        }
    }

    /// The bytes as stored in the file.
    pub(crate) fn as_bytes(&self) -> &[u8] {
        &self.bytes[..self.len]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn field(check: Check, data: &[u8]) -> Vec<u8> {
        let mut c = Checker::new(check);
        // Split to show that updates compose.
        let (a, b) = data.split_at(data.len() / 2);
        c.update(a);
        c.update(b);
        c.finish().unwrap().as_bytes().to_vec()
    }

    #[test]
    fn known_vectors() {
        // The standard "123456789" check values of CRC-32 and CRC-64/XZ
        // (ECMA-182 polynomial, reflected, all-ones init and xor-out).
        assert_eq!(
            field(Check::Crc32, b"123456789"),
            0xCBF4_3926u32.to_le_bytes()
        );
        assert_eq!(
            field(Check::Crc64, b"123456789"),
            0x995D_C9BB_DF19_39FAu64.to_le_bytes()
        );
        assert_eq!(
            field(Check::Sha256, b"abc")[..4],
            [0xba, 0x78, 0x16, 0xbf],
            "SHA-256 of abc starts ba7816bf"
        );
        assert!(Checker::new(Check::None).finish().is_none());
    }

    #[test]
    fn finish_resets() {
        let mut c = Checker::new(Check::Crc64);
        c.update(b"garbage");
        c.finish();
        c.update(b"123456789");
        assert_eq!(
            c.finish().unwrap().as_bytes(),
            0x995D_C9BB_DF19_39FAu64.to_le_bytes()
        );
    }

    #[test]
    fn ids_and_sizes() {
        for check in [Check::None, Check::Crc32, Check::Crc64, Check::Sha256] {
            assert_eq!(Check::from_id(check.id()).unwrap(), check);
        }
        assert_eq!(Check::Sha256.size(), 32);
        assert_eq!(Check::Crc64.size(), 8);
        assert_eq!(size_of_id(15), 64);
        assert_eq!(size_of_id(7), 16);
    }
}
