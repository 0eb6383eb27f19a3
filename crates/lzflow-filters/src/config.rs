//! Filter options and their encoding as XZ and 7z properties.

use crate::{FilterError, FilterKind};

/// How one filter in a chain is set up.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FilterConfig {
    /// Which filter.
    pub kind: FilterKind,
    /// BCJ only: the address the first byte is taken to sit at. Must be a
    /// multiple of [`FilterKind::alignment`].
    pub start_offset: u32,
    /// Delta only: the distance in bytes, `1..=256`.
    pub distance: u32,
}

impl FilterConfig {
    /// Default options: start offset 0, distance 1.
    pub fn new(kind: FilterKind) -> Self {
        FilterConfig {
            kind,
            start_offset: 0,
            distance: 1,
        }
    }

    /// A BCJ filter with a start offset.
    pub fn with_start_offset(mut self, start_offset: u32) -> Self {
        self.start_offset = start_offset;
        self
    }

    /// A Delta filter with a distance.
    pub fn with_distance(mut self, distance: u32) -> Self {
        self.distance = distance;
        self
    }

    /// Checks that the options are in range for the filter.
    pub fn validate(&self) -> Result<(), FilterError> {
        if self.kind == FilterKind::Delta {
            if !(1..=256).contains(&self.distance) {
                return Err(FilterError::InvalidConfig {
                    kind: self.kind,
                    reason: "the Delta distance must be between 1 and 256",
                });
            }
        } else if !self.start_offset.is_multiple_of(self.kind.alignment()) {
            return Err(FilterError::InvalidConfig {
                kind: self.kind,
                reason: "the start offset must be a multiple of the filter's alignment",
            });
        }
        Ok(())
    }

    /// Parses the Filter Properties of an XZ Filter Flags entry.
    ///
    /// BCJ filters take no properties or a 4-byte little-endian start offset
    /// that must be a multiple of the filter's alignment; Delta takes one
    /// byte, the distance minus one.
    pub fn from_xz_props(kind: FilterKind, props: &[u8]) -> Result<Self, FilterError> {
        if kind == FilterKind::Delta {
            return match props {
                [d] => Ok(FilterConfig::new(kind).with_distance(u32::from(*d) + 1)),
                _ => Err(FilterError::InvalidProperties {
                    kind,
                    reason: "Delta properties must be exactly one byte",
                }),
            };
        }
        Self::bcj_from_props(kind, props)
    }

    /// Parses the properties of a 7z coder. They are laid out as in XZ:
    /// Delta one byte (distance minus one), BCJ none or a 4-byte
    /// little-endian start offset.
    pub fn from_7z_props(kind: FilterKind, props: &[u8]) -> Result<Self, FilterError> {
        Self::from_xz_props(kind, props)
    }

    /// The Filter Properties to store in an XZ Filter Flags entry (also
    /// valid as 7z coder properties).
    pub fn xz_props(&self) -> Vec<u8> {
        match self.kind {
            FilterKind::Delta => vec![(self.distance.clamp(1, 256) - 1) as u8],
            _ if self.start_offset == 0 => Vec::new(),
            _ => self.start_offset.to_le_bytes().to_vec(),
        }
    }

    /// The properties to store with a 7z coder (same as
    /// [`xz_props`](Self::xz_props)).
    pub fn sevenz_props(&self) -> Vec<u8> {
        self.xz_props()
    }

    fn bcj_from_props(kind: FilterKind, props: &[u8]) -> Result<Self, FilterError> {
        let start_offset = match props {
            [] => 0,
            [a, b, c, d] => u32::from_le_bytes([*a, *b, *c, *d]),
            _ => {
                return Err(FilterError::InvalidProperties {
                    kind,
                    reason: "BCJ properties must be empty or a 4-byte start offset",
                })
            }
        };
        let alignment = kind.alignment();
        if start_offset % alignment != 0 {
            return Err(FilterError::UnalignedStartOffset {
                kind,
                offset: start_offset,
                alignment,
            });
        }
        Ok(FilterConfig::new(kind).with_start_offset(start_offset))
    }
}
