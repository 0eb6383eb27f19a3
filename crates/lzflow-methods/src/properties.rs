//! A method's properties, parsed from the bytes a container stores.

use lzflow_filters::FilterConfig;
use lzflow_lzma::{lzma2_dict_size, LzmaProps};

use crate::{Method, MethodError};

/// A method with its parsed properties.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Properties {
    /// LZMA: lc/lp/pb and the dictionary size.
    Lzma {
        /// lc, lp and pb.
        props: LzmaProps,
        /// The declared dictionary size.
        dict_size: u32,
    },
    /// LZMA2: the dictionary size.
    Lzma2 {
        /// The declared dictionary size.
        dict_size: u32,
    },
    /// A BCJ filter or Delta.
    Filter(FilterConfig),
    /// PPMd var. H (7z's PPMd): the model's order and memory size.
    Ppmd {
        /// The model's order, 2–64.
        order: u8,
        /// The model's memory in bytes.
        mem_size: u32,
    },
    /// A method whose properties the registry does not interpret (none,
    /// or the container's own, such as 7z AES's salt and IV).
    Plain(Method),
}

impl Properties {
    /// Parses the properties of a 7z coder record of `method`. LZMA's are
    /// the lc/lp/pb byte and a 4-byte little-endian dictionary size,
    /// LZMA2's one dictionary byte, the filters' as in XZ.
    pub fn from_7z(method: Method, bytes: &[u8]) -> Result<Self, MethodError> {
        Ok(match method {
            Method::Lzma => {
                let &[p, d0, d1, d2, d3, ..] = bytes else {
                    return Err(MethodError::Properties {
                        method: "LZMA",
                        reason: "they are shorter than 5 bytes",
                    });
                };
                Properties::Lzma {
                    props: LzmaProps::from_byte(p)?,
                    dict_size: u32::from_le_bytes([d0, d1, d2, d3]),
                }
            }
            Method::Lzma2 => Self::lzma2(bytes)?,
            Method::Ppmd => {
                // 7-Zip's 5 bytes: the order, then the memory size.
                let &[order, m0, m1, m2, m3, ..] = bytes else {
                    return Err(MethodError::Properties {
                        method: "PPMd",
                        reason: "they are shorter than 5 bytes",
                    });
                };
                Properties::Ppmd {
                    order,
                    mem_size: u32::from_le_bytes([m0, m1, m2, m3]),
                }
            }
            Method::Filter(kind) => Properties::Filter(FilterConfig::from_7z_props(kind, bytes)?),
            other => Properties::Plain(other),
        })
    }

    /// Parses the Filter Properties of an XZ Filter Flags entry of
    /// `method` (LZMA2 or a filter; anything else is not an XZ filter).
    pub fn from_xz(method: Method, bytes: &[u8]) -> Result<Self, MethodError> {
        match method {
            Method::Lzma2 => Self::lzma2(bytes),
            Method::Filter(kind) => Ok(Properties::Filter(FilterConfig::from_xz_props(
                kind, bytes,
            )?)),
            other => Err(MethodError::Unsupported {
                method: format!("{other} in XZ"),
            }),
        }
    }

    fn lzma2(bytes: &[u8]) -> Result<Self, MethodError> {
        let &[b] = bytes else {
            return Err(MethodError::Properties {
                method: "LZMA2",
                reason: "they must be exactly one byte",
            });
        };
        Ok(Properties::Lzma2 {
            dict_size: lzma2_dict_size(b)?,
        })
    }

    /// The method.
    pub fn method(&self) -> Method {
        match self {
            Properties::Lzma { .. } => Method::Lzma,
            Properties::Lzma2 { .. } => Method::Lzma2,
            Properties::Filter(cfg) => Method::Filter(cfg.kind),
            Properties::Ppmd { .. } => Method::Ppmd,
            Properties::Plain(m) => *m,
        }
    }

    /// The properties as a 7z coder record stores them.
    pub fn to_7z(&self) -> Vec<u8> {
        match self {
            Properties::Lzma { props, dict_size } => {
                let mut p = vec![props.to_byte()];
                p.extend_from_slice(&dict_size.to_le_bytes());
                p
            }
            Properties::Lzma2 { dict_size } => vec![lzflow_lzma::lzma2_props_byte(*dict_size)],
            Properties::Filter(cfg) => cfg.sevenz_props(),
            Properties::Ppmd { order, mem_size } => {
                let mut p = vec![*order];
                p.extend_from_slice(&mem_size.to_le_bytes());
                p
            }
            Properties::Plain(_) => Vec::new(),
        }
    }

    /// The dictionary an LZMA or LZMA2 coder declares.
    pub fn dict_size(&self) -> Option<u32> {
        match self {
            Properties::Lzma { dict_size, .. } | Properties::Lzma2 { dict_size } => {
                Some(*dict_size)
            }
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use lzflow_filters::FilterKind;

    use super::*;

    #[test]
    fn parses_and_writes_back_7z_properties() {
        let lzma = [0x5D, 0, 0x80, 1, 0];
        let p = Properties::from_7z(Method::Lzma, &lzma).unwrap();
        assert_eq!(p.dict_size(), Some(0x18000));
        assert_eq!(p.to_7z(), lzma);
        let p = Properties::from_7z(Method::Lzma2, &[16]).unwrap();
        assert_eq!(p, Properties::Lzma2 { dict_size: 1 << 20 });
        assert_eq!(p.to_7z(), [16]);
        let p = Properties::from_7z(Method::Filter(FilterKind::Delta), &[3]).unwrap();
        assert_eq!(p.method(), Method::Filter(FilterKind::Delta));
        assert_eq!(p.to_7z(), [3]);
        assert!(matches!(
            Properties::from_7z(Method::Lzma, &[0x5D, 0]),
            Err(MethodError::Properties { .. })
        ));
        assert!(matches!(
            Properties::from_7z(Method::Lzma2, &[41]),
            Err(MethodError::Lzma(_))
        ));
        assert!(matches!(
            Properties::from_xz(Method::Deflate, &[]),
            Err(MethodError::Unsupported { .. })
        ));
        assert_eq!(
            Properties::from_7z(Method::Aes7z, &[1, 2]).unwrap(),
            Properties::Plain(Method::Aes7z)
        );
    }
}
