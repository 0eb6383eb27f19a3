//! Zip compression methods (APPNOTE 4.4.5) onto lzflow's encoders: the
//! method registry's for Stored, Deflate, BZip2, PPMd and LZMA (after its zip
//! header, APPNOTE 5.8.8, and ending with the end marker that flag bit 1
//! announces), lzflow-xz's for XZ.
//!
//! Zstandard (93) is not written: the only pure-Rust encoder, `ruzstd`
//! 0.9, has one working level (its others are unimplemented and panic),
//! and on 20 MiB of C headers it wrote 6.62 MB in 0.31 s where `zstd -3`
//! writes 4.04 MB in 0.10 s (64 % larger, 3 times slower; larger even
//! than Deflate's 4.10 MB from `gzip -6`).

use lzflow_core::{Encode, ErrInto, InBuf, OutBuf, Progress};
use lzflow_methods::{
    encoder_memory as registry_memory, encoder_properties, new_encoder_sized, new_zip_ppmd_encoder,
    zip_ppmd_encoder_memory, BoxedEncoder, Method, MAX_LEVEL,
};
use lzflow_xz::{Check, XzEncoder, XzEncoderOptions};

use crate::write::entry_encoder::StageEncoder;
use crate::ZipError;

/// The version bytes of the zip LZMA header (APPNOTE 5.8.8.1: the major
/// and minor version of the LZMA SDK that wrote the data). 7-Zip writes
/// its own version there (7zz 26.02 writes 26, 2); no reader checks them
/// (7-Zip, libzip, Python's `zipfile` and lzflow's reader all skip them).
/// These are 16.02's, the 7-Zip most zip archives with LZMA entries from
/// Unix systems carry (p7zip 16.02); the stream format is the same in
/// every version.
pub(crate) const LZMA_VERSION: [u8; 2] = [16, 2];

/// Bytes of the zip LZMA header: version (2), properties size (2), then
/// the 5 properties bytes (lc/lp/pb and the dictionary size).
const LZMA_HEADER: usize = 9;

/// The encoder of zip method `method` at `level` (0-9; above 9 is taken as
/// 9) for data of unknown size.
pub(crate) fn encoder(method: u16, level: u32) -> Result<StageEncoder, ZipError> {
    encoder_sized(method, level, None)
}

/// The encoder of zip method `method` at `level` (0-9; above 9 is taken as
/// 9) for data of about `size_hint` bytes (`None`: unknown; LZMA's and
/// XZ's dictionaries are fitted to a size, which saves memory on small
/// entries and changes nothing else):
///
/// * 0 Stored, 8 Deflate (levels as zlib's), 12 BZip2 (level 0 is 1):
///   the registry's encoders.
/// * 14 LZMA: the zip LZMA header ([`LZMA_VERSION`], properties size 5,
///   the properties), then the raw LZMA stream of lzflow's preset `level`
///   with the end marker (the writer sets flag bit 1).
/// * 95 XZ: one `.xz` stream of xz's preset `level` with CRC32 checks, as
///   7-Zip writes them (the entry's own CRC-32 covers the data already).
/// * 98 PPMd: var. I rev. 1 with 7-Zip's properties for `level` and the
///   end marker (the registry's zip PPMd encoder).
///
/// Other methods (Zstandard included, see the module's note) are
/// [`ZipError::UnsupportedMethod`].
pub(crate) fn encoder_sized(
    method: u16,
    level: u32,
    size_hint: Option<u64>,
) -> Result<StageEncoder, ZipError> {
    let unsupported = |name| ZipError::UnsupportedMethod { method, name };
    let Some(m) = Method::from_zip_id(method) else {
        return Err(unsupported(""));
    };
    let level = level.min(MAX_LEVEL);
    match m {
        Method::Copy | Method::Deflate | Method::BZip2 => Ok(StageEncoder::Registry(ErrInto::new(
            new_encoder_sized(m, level, size_hint)?,
        ))),
        Method::Lzma => Ok(StageEncoder::Other(Box::new(ZipLzmaEncoder::new(
            level, size_hint,
        )?))),
        Method::Xz => Ok(StageEncoder::Other(Box::new(ErrInto::new(XzEncoder::new(
            xz_options(level, size_hint)?,
        )?)))),
        Method::Ppmd => Ok(StageEncoder::Registry(ErrInto::new(new_zip_ppmd_encoder(
            level, size_hint,
        )?))),
        other => Err(unsupported(other.name())),
    }
}

/// Bytes the encoder of [`encoder_sized`]`(method, level, size_hint)`
/// allocates at most; 0 for methods it does not write.
pub(crate) fn encoder_memory(method: u16, level: u32, size_hint: Option<u64>) -> u64 {
    match Method::from_zip_id(method) {
        Some(Method::Xz) => {
            xz_options(level, size_hint).map_or(0, |opts| XzEncoder::memory_usage(&opts))
        }
        Some(Method::Ppmd) => zip_ppmd_encoder_memory(level, size_hint),
        Some(m) => registry_memory(m, level, size_hint),
        None => 0,
    }
}

/// XZ's options: xz's preset `level` with CRC32; with a size, the
/// dictionary fitted to it and Blocks no larger (the encoder buffers one
/// Block's output).
fn xz_options(level: u32, size_hint: Option<u64>) -> Result<XzEncoderOptions, ZipError> {
    let mut opts = XzEncoderOptions::preset(level.min(MAX_LEVEL))?.with_check(Check::Crc32);
    if let Some(size) = size_hint {
        opts.lzma = opts.lzma.fitted_to(size);
        opts.block_size = Some(size.clamp(1, opts.effective_block_size()));
    }
    Ok(opts)
}

/// LZMA in zip: the header, then the raw stream with its end marker.
struct ZipLzmaEncoder {
    header: [u8; LZMA_HEADER],
    sent: usize,
    inner: BoxedEncoder,
}

impl ZipLzmaEncoder {
    fn new(level: u32, size_hint: Option<u64>) -> Result<Self, ZipError> {
        let props = encoder_properties(Method::Lzma, level, size_hint)?.to_7z();
        let mut header = [0; LZMA_HEADER];
        header[..2].copy_from_slice(&LZMA_VERSION);
        header[2..4].copy_from_slice(&(props.len() as u16).to_le_bytes());
        header[4..].copy_from_slice(&props);
        Ok(ZipLzmaEncoder {
            header,
            sent: 0,
            inner: new_encoder_sized(Method::Lzma, level, size_hint)?,
        })
    }

    /// Writes what is left of the header; true when it is all out.
    fn header_done(&mut self, output: &mut OutBuf<'_>) -> bool {
        crate::write::send_prefix(&self.header, &mut self.sent, output)
    }
}

impl Encode for ZipLzmaEncoder {
    type Error = ZipError;

    fn encode(
        &mut self,
        input: &mut InBuf<'_>,
        output: &mut OutBuf<'_>,
    ) -> Result<Progress, ZipError> {
        if !self.header_done(output) {
            return Ok(Progress::OutputFull);
        }
        Ok(self.inner.encode(input, output)?)
    }

    fn flush(&mut self, output: &mut OutBuf<'_>) -> Result<Progress, ZipError> {
        if !self.header_done(output) {
            return Ok(Progress::OutputFull);
        }
        Ok(self.inner.flush(output)?)
    }

    fn finish(&mut self, output: &mut OutBuf<'_>) -> Result<Progress, ZipError> {
        if !self.header_done(output) {
            return Ok(Progress::OutputFull);
        }
        Ok(self.inner.finish(output)?)
    }
}

#[cfg(test)]
mod tests {
    use lzflow_core::{Decode, Limits};

    use super::*;

    /// Text, zeros and noise.
    fn sample(n: usize) -> Vec<u8> {
        let mut x = 0x1234_5678u32;
        let mut out = Vec::with_capacity(n);
        while out.len() < n {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            match x % 3 {
                0 => out.extend_from_slice(b"the zip writer writes entries; "),
                1 => out.resize(out.len() + (x >> 20) as usize % 300, 0),
                _ => out.extend((0..(x >> 24)).map(|i| (x >> (i % 24)) as u8)),
            }
        }
        out.truncate(n);
        out
    }

    /// Encodes `data` `in_step` bytes at a time into `out_step` bytes of
    /// room at a time, and finishes.
    fn encode(enc: &mut StageEncoder, data: &[u8], in_step: usize, out_step: usize) -> Vec<u8> {
        let mut out = Vec::new();
        let mut space = vec![0u8; out_step];
        for chunk in data.chunks(in_step) {
            let mut input = InBuf::new(chunk);
            loop {
                let mut o = OutBuf::new(&mut space);
                let p = enc.encode(&mut input, &mut o).unwrap();
                out.extend_from_slice(o.written());
                if p == Progress::NeedInput {
                    break;
                }
            }
        }
        loop {
            let mut o = OutBuf::new(&mut space);
            let p = enc.finish(&mut o).unwrap();
            out.extend_from_slice(o.written());
            if p == Progress::StreamEnd {
                return out;
            }
        }
    }

    /// Decodes an entry's data with the read side's decoder of `method`.
    fn decode(method: u16, size: Option<u64>, data: &[u8]) -> Vec<u8> {
        let mut dec = crate::read::method::decoder(method, size, &Limits::NONE).unwrap();
        let mut out = Vec::new();
        let mut space = vec![0u8; 1 << 16];
        let mut input = InBuf::last(data);
        for _ in 0..10_000 {
            let mut o = OutBuf::new(&mut space);
            let p = dec.decode(&mut input, &mut o).unwrap();
            out.extend_from_slice(o.written());
            if p == Progress::StreamEnd {
                return out;
            }
        }
        panic!("no end");
    }

    #[test]
    fn every_method_round_trips_through_the_reader() {
        for method in [0u16, 8, 12, 14, 95] {
            for level in [0, 1, 6] {
                for len in [0usize, 1, 1000, 200_000] {
                    let data = sample(len);
                    // LZMA's and XZ's large presets get the size.
                    let hint = (level > 1).then_some(len as u64);
                    let what = format!("method {method} level {level}, {len} bytes");
                    let packed = encode(
                        &mut encoder_sized(method, level, hint).unwrap(),
                        &data,
                        1 << 16,
                        1 << 16,
                    );
                    let size = Some(len as u64);
                    assert!(decode(method, size, &packed) == data, "{what}");
                    if method != 0 {
                        // A forward-only reader does not know the size.
                        assert!(decode(method, None, &packed) == data, "{what}, no size");
                    }
                    if len <= 1000 {
                        let tiny = encode(
                            &mut encoder_sized(method, level, hint).unwrap(),
                            &data,
                            1,
                            1,
                        );
                        assert!(tiny == packed, "{what}: other bytes with 1-byte slices");
                    }
                }
            }
        }
    }

    #[test]
    fn lzma_entries_start_with_the_zip_lzma_header() {
        let packed = encode(&mut encoder(14, 6).unwrap(), b"abc", 3, 1);
        // 16.02, 5 properties bytes: lc=3 lp=0 pb=2, 8 MiB.
        assert_eq!(packed[..9], [16, 2, 5, 0, 0x5D, 0, 0, 0x80, 0]);
        let packed = encode(&mut encoder_sized(14, 9, Some(3)).unwrap(), b"abc", 3, 1);
        assert_eq!(packed[4..9], [0x5D, 0, 0x10, 0, 0], "4 KiB, fitted");
    }

    #[test]
    fn xz_entries_check_with_crc32() {
        let packed = encode(&mut encoder(95, 0).unwrap(), b"abc", 3, 1 << 10);
        assert_eq!(packed[..6], *b"\xFD7zXZ\0");
        assert_eq!(packed[6..8], [0, 1], "stream flags: CRC32");
    }

    #[test]
    fn unwritable_methods_are_refused_by_number() {
        for (method, name) in [
            (93, "Zstandard"),
            (9, "Deflate64"),
            (99, "AES"),
            (7, ""),
            (1, ""),
        ] {
            match encoder(method, 6) {
                Err(ZipError::UnsupportedMethod { method: m, name: n }) => {
                    assert_eq!((m, n), (method, name));
                }
                Err(e) => panic!("{method}: {e}"),
                Ok(_) => panic!("{method} is written"),
            }
            assert_eq!(encoder_memory(method, 6, None), 0);
        }
    }

    #[test]
    fn memory_follows_the_level_and_the_size() {
        let xz6 = encoder_memory(95, 6, None);
        assert!(xz6 > 64 << 20, "{xz6}");
        assert!(encoder_memory(95, 6, Some(1000)) < 4 << 20);
        assert!(encoder_memory(14, 6, Some(1000)) < 4 << 20);
        // PPMd: 7-Zip's 2^(level - 1) MiB, fitted to a small entry.
        assert!(encoder_memory(98, 6, None) > 32 << 20);
        assert!(encoder_memory(98, 6, Some(1000)) < 2 << 20);
        assert!(encoder_memory(8, 6, None) < 1 << 20);
        assert_eq!(encoder_memory(0, 6, None), 0);
        assert!(encoder_memory(12, 9, None) > encoder_memory(12, 1, None));
    }
}
