//! What a decoder of each method uses, and the one check of a coder chain
//! against the memory limit: every container checks here, once, before it
//! builds its coders (which are then built without a limit of their own).

use lzflow_core::Limits;
use lzflow_lzma::{Lzma2Decoder, LzmaDecoder};

use crate::decoders::FILTER_BUF;
use crate::{Method, MethodError, Properties};

/// The smallest window an LZMA decoder allocates.
const MIN_WINDOW: u32 = 4096;

/// Inflate's state (zlib-rs or miniz_oxide): a 32 KiB window and its
/// Huffman tables (about 11 KiB), rounded up.
const DEFLATE_STATE: u64 = 48 << 10;

/// The `deflate64` crate's inflater: a 128 KiB window, its Huffman trees
/// and code lists (about 9 KiB), rounded up.
const DEFLATE64_STATE: u64 = 144 << 10;

/// Zstandard's decoder apart from its window: the pending input (one block
/// of at most 128 KiB), ruzstd's copies of a block's content and literals
/// (128 KiB each), its sequences (at most 98047 of 12 bytes, in a vector
/// that may double to 1.5 MiB), its tables, and the window buffer's slack
/// of two blocks. An upper bound; a typical frame needs far less.
const ZSTD_STATE: u64 = 2304 << 10;

/// What decoding one Zstandard frame with a `window`-byte window uses: the
/// window buffer grows to the window's next power of two.
#[cfg(feature = "zstd")]
pub(crate) fn zstd_frame_memory(window: u64) -> u64 {
    let buffer = window.checked_next_power_of_two().unwrap_or(u64::MAX);
    ZSTD_STATE.saturating_add(buffer)
}

/// BZip2's decoder at the largest block size (900k): four bytes per block
/// byte for the inverse BWT, plus its tables (bzip2's own manual: 3600k),
/// and the adapter's 64 KiB of room.
const BZIP2_STATE: u64 = (3700 + 64) << 10;

/// PPMd's coder beside its model memory: lzflow-ppmd's tables and
/// buffers (its `memory_usage` counts 32 KiB), rounded up.
const PPMD_STATE: u64 = 32 << 10;

/// The window a decoder needs for a `dict`-byte dictionary when it will
/// produce at most `out_size` bytes: a window larger than everything the
/// coder produces is never read, so it is not allocated either.
pub fn window_size(dict: u32, out_size: Option<u64>) -> u32 {
    let cap = out_size.map_or(u64::from(u32::MAX), |n| {
        n.clamp(u64::from(MIN_WINDOW), u64::from(u32::MAX))
    });
    dict.min(cap as u32).max(MIN_WINDOW)
}

impl Properties {
    /// Bytes a decoder of this method uses when it produces at most
    /// `out_size` bytes (`None`: unknown).
    ///
    /// Zstandard's window is only known from each frame's header: this
    /// counts the rest of its decoder, which checks each frame's window
    /// against the memory limit it is built with (see
    /// [`new_decoder`](crate::new_decoder)).
    pub fn decoder_memory(&self, out_size: Option<u64>) -> u64 {
        match self {
            Properties::Lzma { props, dict_size } => {
                LzmaDecoder::memory_usage(*props, window_size(*dict_size, out_size))
            }
            Properties::Lzma2 { dict_size } => {
                Lzma2Decoder::memory_usage(window_size(*dict_size, out_size))
            }
            Properties::Filter(_) => FILTER_BUF as u64,
            // The model's memory and the coder's tables.
            Properties::Ppmd { mem_size, .. } => u64::from(*mem_size) + PPMD_STATE,
            Properties::Plain(Method::Deflate) => DEFLATE_STATE,
            Properties::Plain(Method::Deflate64) => DEFLATE64_STATE,
            Properties::Plain(Method::BZip2) => BZIP2_STATE,
            Properties::Plain(Method::Zstd) => ZSTD_STATE,
            // Copy, and the containers' own small coders (AES, BCJ2).
            Properties::Plain(_) => 0,
        }
    }
}

/// The one memory check: the decoders of a chain (each with the most it
/// will produce) together against `limits`. Returns the total.
pub fn check_decoder_memory<'a>(
    chain: impl IntoIterator<Item = (&'a Properties, Option<u64>)>,
    limits: &Limits,
) -> Result<u64, MethodError> {
    let total = chain
        .into_iter()
        .map(|(p, out)| p.decoder_memory(out))
        .fold(0u64, u64::saturating_add);
    limits.check_memory(total)?;
    Ok(total)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_window_is_cut_to_the_output() {
        assert_eq!(window_size(1 << 20, None), 1 << 20);
        assert_eq!(window_size(1 << 20, Some(5000)), 5000);
        assert_eq!(window_size(1 << 20, Some(10)), MIN_WINDOW);
        assert_eq!(window_size(100, Some(1 << 30)), MIN_WINDOW);
        assert_eq!(window_size(u32::MAX, Some(u64::MAX)), u32::MAX);
    }

    #[test]
    fn a_chain_is_checked_as_a_whole() {
        let lzma2 = Properties::Lzma2 { dict_size: 8 << 20 };
        let one = lzma2.decoder_memory(None);
        assert!(one > 8 << 20);
        let delta = Properties::Filter(lzflow_filters::FilterConfig::new(
            lzflow_filters::FilterKind::Delta,
        ));
        let both = [(&lzma2, None), (&delta, None)];
        let need = check_decoder_memory(both, &Limits::NONE).unwrap();
        assert_eq!(need, one + FILTER_BUF as u64);
        let tight = Limits::NONE.with_memory(need - 1);
        assert!(matches!(
            check_decoder_memory(both, &tight),
            Err(MethodError::Limit(_))
        ));
        // A small output needs only a small window.
        let small = [(&lzma2, Some(1000))];
        assert!(check_decoder_memory(small, &Limits::NONE.with_memory(1 << 20)).is_ok());
    }

    #[test]
    #[cfg(feature = "deflate64")]
    fn deflate64_state_covers_its_inflater() {
        let size = std::mem::size_of::<deflate64::InflaterManaged>() as u64;
        assert!(size <= DEFLATE64_STATE, "{size}");
        assert_eq!(
            Properties::Plain(Method::Deflate64).decoder_memory(None),
            DEFLATE64_STATE
        );
    }

    #[test]
    #[cfg(feature = "zstd")]
    fn a_zstd_frame_needs_its_window_rounded_up() {
        assert_eq!(zstd_frame_memory(1 << 20), ZSTD_STATE + (1 << 20));
        assert_eq!(zstd_frame_memory(3 << 20), ZSTD_STATE + (4 << 20));
        assert_eq!(zstd_frame_memory(0), ZSTD_STATE + 1);
        assert_eq!(zstd_frame_memory(u64::MAX), u64::MAX);
        assert_eq!(
            Properties::Plain(Method::Zstd).decoder_memory(Some(10)),
            ZSTD_STATE
        );
    }
}
