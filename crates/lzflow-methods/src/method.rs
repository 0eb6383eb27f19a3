//! Every coding method lzflow knows and the one table of its IDs in each
//! container and its name.

use lzflow_filters::FilterKind;

/// A coding method, whatever container it is stored in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Method {
    /// No compression (7z Copy, zip Stored).
    Copy,
    /// LZMA.
    Lzma,
    /// LZMA2.
    Lzma2,
    /// A BCJ filter or Delta.
    Filter(FilterKind),
    /// 7-Zip's x86 branch converter with four streams.
    Bcj2,
    /// Deflate.
    Deflate,
    /// Deflate64 (enhanced Deflate).
    Deflate64,
    /// BZip2.
    BZip2,
    /// PPMd (var. H in 7z, var. I rev. 1 in zip).
    Ppmd,
    /// Zstandard.
    Zstd,
    /// A whole `.xz` stream (zip method 95).
    Xz,
    /// 7-Zip's AES-256 with SHA-256 key derivation.
    Aes7z,
    /// WinZip AES (zip method 99: the real method is in the extra field).
    WinZipAes,
}

/// One row of the table.
struct Row {
    method: Method,
    /// The name lzflow's messages and listings use.
    name: &'static str,
    /// The coder's name in 7-Zip's technical listing of a 7z archive
    /// (`7zz l -slt`), before its properties: `BCJ`, `PPMD`, `ARMT`.
    listing: &'static str,
    /// 7z method IDs: the first is the one written, the rest are aliases
    /// read as well.
    sevenz: &'static [&'static [u8]],
    /// XZ filter ID.
    xz: Option<u64>,
    /// Zip compression method.
    zip: Option<u16>,
}

const fn row(
    method: Method,
    name: &'static str,
    listing: &'static str,
    sevenz: &'static [&'static [u8]],
    xz: Option<u64>,
    zip: Option<u16>,
) -> Row {
    Row {
        method,
        name,
        listing,
        sevenz,
        xz,
        zip,
    }
}

use FilterKind as F;
use Method as M;

/// The one table. 7z IDs are from 7-Zip's Methods.txt (the one-byte BCJ
/// aliases are the XZ IDs, which 7-Zip also reads); XZ IDs from
/// xz-file-format 5.3; zip methods from APPNOTE 4.4.5.
static TABLE: &[Row] = &[
    row(M::Copy, "Copy", "Copy", &[&[0x00]], None, Some(0)),
    row(
        M::Lzma,
        "LZMA",
        "LZMA",
        &[&[0x03, 0x01, 0x01]],
        None,
        Some(14),
    ),
    row(M::Lzma2, "LZMA2", "LZMA2", &[&[0x21]], Some(0x21), None),
    row(
        M::Filter(F::Delta),
        "Delta",
        "Delta",
        &[&[0x03]],
        Some(0x03),
        None,
    ),
    row(
        M::Filter(F::X86),
        "BCJ x86",
        "BCJ",
        &[&[0x03, 0x03, 0x01, 0x03], &[0x04]],
        Some(0x04),
        None,
    ),
    row(
        M::Filter(F::PowerPc),
        "BCJ PowerPC",
        "PPC",
        &[&[0x03, 0x03, 0x02, 0x05], &[0x05]],
        Some(0x05),
        None,
    ),
    row(
        M::Filter(F::Ia64),
        "BCJ IA-64",
        "IA64",
        &[&[0x03, 0x03, 0x04, 0x01], &[0x06]],
        Some(0x06),
        None,
    ),
    row(
        M::Filter(F::Arm),
        "BCJ ARM",
        "ARM",
        &[&[0x03, 0x03, 0x05, 0x01], &[0x07]],
        Some(0x07),
        None,
    ),
    row(
        M::Filter(F::ArmThumb),
        "BCJ ARM-Thumb",
        "ARMT",
        &[&[0x03, 0x03, 0x07, 0x01], &[0x08]],
        Some(0x08),
        None,
    ),
    row(
        M::Filter(F::Sparc),
        "BCJ SPARC",
        "SPARC",
        &[&[0x03, 0x03, 0x08, 0x05], &[0x09]],
        Some(0x09),
        None,
    ),
    row(
        M::Filter(F::Arm64),
        "BCJ ARM64",
        "ARM64",
        &[&[0x0A]],
        Some(0x0A),
        None,
    ),
    row(
        M::Filter(F::RiscV),
        "BCJ RISC-V",
        "RISCV",
        &[&[0x0B]],
        Some(0x0B),
        None,
    ),
    row(
        M::Bcj2,
        "BCJ2",
        "BCJ2",
        &[&[0x03, 0x03, 0x01, 0x1B]],
        None,
        None,
    ),
    row(
        M::Deflate,
        "Deflate",
        "Deflate",
        &[&[0x04, 0x01, 0x08]],
        None,
        Some(8),
    ),
    row(
        M::Deflate64,
        "Deflate64",
        "Deflate64",
        &[&[0x04, 0x01, 0x09]],
        None,
        Some(9),
    ),
    row(
        M::BZip2,
        "BZip2",
        "BZip2",
        &[&[0x04, 0x02, 0x02]],
        None,
        Some(12),
    ),
    row(
        M::Ppmd,
        "PPMd",
        "PPMD",
        &[&[0x03, 0x04, 0x01]],
        None,
        Some(98),
    ),
    row(
        M::Zstd,
        "Zstandard",
        "ZSTD",
        &[&[0x04, 0xF7, 0x11, 0x01]],
        None,
        Some(93),
    ),
    row(M::Xz, "XZ", "XZ", &[], None, Some(95)),
    row(
        M::Aes7z,
        "7zAES",
        "7zAES",
        &[&[0x06, 0xF1, 0x07, 0x01]],
        None,
        None,
    ),
    row(M::WinZipAes, "AES", "AES", &[], None, Some(99)),
];

impl Method {
    fn row(self) -> &'static Row {
        TABLE
            .iter()
            .find(|r| r.method == self)
            .expect("every method has a row")
    }

    /// The method with this 7z method ID (the write ID or an alias).
    pub fn from_7z_id(id: &[u8]) -> Option<Self> {
        TABLE
            .iter()
            .find(|r| r.sevenz.contains(&id))
            .map(|r| r.method)
    }

    /// The 7z method ID written for this method, if 7z has one.
    pub fn sevenz_id(self) -> Option<&'static [u8]> {
        self.row().sevenz.first().copied()
    }

    /// The method with this XZ filter ID.
    pub fn from_xz_id(id: u64) -> Option<Self> {
        TABLE.iter().find(|r| r.xz == Some(id)).map(|r| r.method)
    }

    /// The XZ filter ID, if XZ can hold this method.
    pub fn xz_id(self) -> Option<u64> {
        self.row().xz
    }

    /// Most bytes past the end of its data that this method's decoder may
    /// take without saying how many
    /// ([`Decode::unused_after_end`](lzflow_core::Decode::unused_after_end)
    /// says it for PPMd, which holds input to resume): 0 for the rest,
    /// which stop exactly where their data ends. A container that finds
    /// what follows the data only by where the decoder stopped (a zip data
    /// descriptor, read forward-only) looks this far back.
    ///
    /// Deflate64's inflater (the `deflate64` crate) fills its bit buffer
    /// two bytes at a time and keeps the bits it has not used when the data
    /// ends: the buffer holds at most 32 bits, so up to 4 bytes (the same
    /// however the input is split: its decoder gives it the stream in
    /// pieces at fixed offsets).
    pub const fn read_ahead(self) -> usize {
        match self {
            Method::Deflate64 => 4,
            _ => 0,
        }
    }

    /// The method with this zip compression method number.
    pub fn from_zip_id(id: u16) -> Option<Self> {
        TABLE.iter().find(|r| r.zip == Some(id)).map(|r| r.method)
    }

    /// The zip compression method number, if zip can hold this method.
    pub fn zip_id(self) -> Option<u16> {
        self.row().zip
    }

    /// The name lzflow's messages and listings use (7-Zip's listings of a
    /// 7z archive use another, see [`listing_name_7z`]).
    pub fn name(self) -> &'static str {
        self.row().name
    }
}

impl std::fmt::Display for Method {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.pad(self.name())
    }
}

/// A 7z method ID for messages: the ID in hex and its name when known,
/// e.g. `030401 (PPMd)`.
pub fn describe_7z(id: &[u8]) -> String {
    let hex: String = id.iter().map(|b| format!("{b:02X}")).collect();
    match (Method::from_7z_id(id), hex.is_empty()) {
        (Some(m), _) => format!("{hex} ({})", m.name()),
        (None, true) => "(empty ID)".to_string(),
        (None, false) => hex,
    }
}

/// A 7z coder as 7-Zip's technical listing shows it (`7zz l -slt`):
/// its name and the properties that matter, e.g. `LZMA2:24`,
/// `LZMA:192k:lc0:lp2`, `PPMD:o6:mem24`, `Delta:4`, `7zAES:19`, `BCJ`
/// (sizes by [`size_text`]; LZMA's lc, lp and pb only where they are not
/// 3, 0 and 2). An unknown ID shows in hex.
pub fn listing_name_7z(id: &[u8], props: &[u8]) -> String {
    let Some(method) = Method::from_7z_id(id) else {
        return describe_7z(id);
    };
    let name = method.row().listing;
    match crate::Properties::from_7z(method, props) {
        Ok(crate::Properties::Lzma {
            props: p,
            dict_size,
        }) => {
            let mut s = format!("{name}:{}", size_text(dict_size.into()));
            for (key, value, default) in [("lc", p.lc, 3), ("lp", p.lp, 0), ("pb", p.pb, 2)] {
                if value != default {
                    s += &format!(":{key}{value}");
                }
            }
            s
        }
        Ok(crate::Properties::Lzma2 { dict_size }) => {
            format!("{name}:{}", size_text(dict_size.into()))
        }
        Ok(crate::Properties::Ppmd { order, mem_size }) => {
            format!("{name}:o{order}:mem{}", size_text(mem_size.into()))
        }
        Ok(crate::Properties::Filter(cfg)) if cfg.kind == lzflow_filters::FilterKind::Delta => {
            format!("{name}:{}", cfg.distance)
        }
        // The number of SHA-256 rounds, as a power of two (the low six
        // bits of the first property byte).
        _ if method == Method::Aes7z && !props.is_empty() => {
            format!("{name}:{}", props[0] & 0x3F)
        }
        _ => name.to_string(),
    }
}

/// A 7z archive's methods as 7-Zip's technical listing sums them up (its
/// `Method` line): each method once, by ascending ID, LZMA and LZMA2 with
/// the largest dictionary any of their coders declares, the others by
/// name alone, e.g. `LZMA2:24 BCJ 7zAES`. `coders` are every folder's
/// (ID, properties).
pub fn archive_listing_7z<'a>(coders: impl IntoIterator<Item = (&'a [u8], &'a [u8])>) -> String {
    let mut methods: Vec<(&[u8], Option<u32>)> = Vec::new();
    for (id, props) in coders {
        let dict = Method::from_7z_id(id)
            .and_then(|m| crate::Properties::from_7z(m, props).ok())
            .and_then(|p| p.dict_size());
        match methods.iter_mut().find(|(known, _)| *known == id) {
            Some((_, max)) => *max = (*max).max(dict),
            None => methods.push((id, dict)),
        }
    }
    // By the ID read as a big-endian number, as 7-Zip orders them.
    methods.sort_by_key(|&(id, _)| {
        (
            id.iter().fold(0u128, |k, &b| k << 8 | u128::from(b)),
            id.len(),
        )
    });
    methods
        .iter()
        .map(|&(id, dict)| match (Method::from_7z_id(id), dict) {
            (Some(m), Some(d)) => format!("{}:{}", m.row().listing, size_text(d.into())),
            (Some(m), None) => m.row().listing.to_string(),
            (None, _) => describe_7z(id),
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// A dictionary or model size as 7-Zip's listings write it: the power of
/// two's exponent (`24` for 16 MiB), else whole MiB (`3m`), whole KiB
/// (`192k`) or bytes.
pub fn size_text(size: u64) -> String {
    match size {
        s if s.is_power_of_two() => s.trailing_zeros().to_string(),
        s if s % (1 << 20) == 0 => format!("{}m", s >> 20),
        s if s % (1 << 10) == 0 => format!("{}k", s >> 10),
        s => s.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn listing_names() {
        // What `7zz l -slt` prints for the same coders.
        assert_eq!(listing_name_7z(&[0x21], &[16]), "LZMA2:20");
        assert_eq!(listing_name_7z(&[0x21], &[17]), "LZMA2:1536k");
        assert_eq!(listing_name_7z(&[0x21], &[40]), "LZMA2:4294967295");
        assert_eq!(
            listing_name_7z(&[0x03, 0x01, 0x01], &[0x5D, 0, 0x80, 1, 0]),
            "LZMA:96k"
        );
        // lc0 lp2 pb2 (BCJ2's call and jump streams): 2 × 45 + 2 × 9.
        assert_eq!(
            listing_name_7z(&[0x03, 0x01, 0x01], &[108, 0, 0, 3, 0]),
            "LZMA:192k:lc0:lp2"
        );
        assert_eq!(
            listing_name_7z(&[0x03, 0x04, 0x01], &[6, 0, 0, 0, 1]),
            "PPMD:o6:mem24"
        );
        assert_eq!(
            listing_name_7z(&[0x03, 0x04, 0x01], &[4, 0, 0, 0x30, 0]),
            "PPMD:o4:mem3m"
        );
        assert_eq!(listing_name_7z(&[0x03], &[3]), "Delta:4");
        assert_eq!(listing_name_7z(&[0x03, 0x03, 0x01, 0x03], &[]), "BCJ");
        assert_eq!(listing_name_7z(&[0x03, 0x03, 0x07, 0x01], &[]), "ARMT");
        assert_eq!(
            listing_name_7z(&[0x06, 0xF1, 0x07, 0x01], &[0xD3, 0x0F]),
            "7zAES:19"
        );
        assert_eq!(listing_name_7z(&[0x06, 0xF1, 0x07, 0x01], &[]), "7zAES");
        assert_eq!(listing_name_7z(&[0x7F], &[]), "7F");
        assert_eq!(
            archive_listing_7z([
                (&[0x06, 0xF1, 0x07, 0x01][..], &[0xD3, 0x0F][..]),
                (&[0x21][..], &[8][..]),
                (&[0x03, 0x03, 0x01, 0x03][..], &[][..]),
                (&[0x21][..], &[16][..]),
            ]),
            "LZMA2:20 BCJ 7zAES"
        );
        assert_eq!(size_text(192 << 10), "192k");
        assert_eq!(size_text(3 << 20), "3m");
        assert_eq!(size_text(4095), "4095");
    }

    #[test]
    fn every_id_maps_back_to_its_method() {
        for r in TABLE {
            for id in r.sevenz {
                assert_eq!(Method::from_7z_id(id), Some(r.method), "{}", r.name);
            }
            if let Some(id) = r.xz {
                assert_eq!(Method::from_xz_id(id), Some(r.method));
            }
            if let Some(id) = r.zip {
                assert_eq!(Method::from_zip_id(id), Some(r.method));
            }
            assert_eq!(r.method.row().name, r.name, "one row per method");
        }
        for kind in FilterKind::ALL {
            assert!(Method::Filter(kind).xz_id().is_some(), "{kind}");
            assert!(Method::Filter(kind).sevenz_id().is_some(), "{kind}");
        }
    }

    #[test]
    fn ids_as_the_specs_give_them() {
        assert_eq!(
            Method::from_7z_id(&[0x03, 0x03, 0x01, 0x03]),
            Some(Method::Filter(FilterKind::X86))
        );
        assert_eq!(
            Method::from_7z_id(&[0x04]),
            Some(Method::Filter(FilterKind::X86))
        );
        assert_eq!(
            Method::Filter(FilterKind::Sparc).sevenz_id(),
            Some(&[0x03, 0x03, 0x08, 0x05][..])
        );
        let xz: Vec<_> = FilterKind::ALL
            .iter()
            .map(|k| Method::Filter(*k).xz_id())
            .collect();
        let want = [0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x09, 0x0A, 0x0B];
        assert_eq!(xz, want.map(Some));
        assert_eq!(
            Method::from_7z_id(&[0x03, 0x03, 0x01, 0x1B]),
            Some(Method::Bcj2)
        );
        assert_eq!(Method::from_7z_id(&[0x03, 0x01, 0x01]), Some(Method::Lzma));
        assert_eq!(Method::from_xz_id(0x21), Some(Method::Lzma2));
        assert_eq!(
            Method::from_xz_id(0x0B),
            Some(Method::Filter(FilterKind::RiscV))
        );
        assert_eq!(Method::from_xz_id(0x4000_0000_0000_0001), None);
        assert_eq!(Method::from_zip_id(8), Some(Method::Deflate));
        assert_eq!(Method::from_zip_id(14), Some(Method::Lzma));
        assert_eq!(Method::from_zip_id(95), Some(Method::Xz));
        assert_eq!(Method::from_zip_id(7), None);
        assert_eq!(describe_7z(&[0x03, 0x04, 0x01]), "030401 (PPMd)");
        assert_eq!(describe_7z(&[0x7F]), "7F");
        assert_eq!(describe_7z(&[]), "(empty ID)");
    }
}
