//! The one method registry of lzflow, shared by every container (XZ, 7z
//! and zip).
//!
//! # Organization
//! * `method.rs`: [`Method`], every coding method lzflow knows, and the one
//!   table that maps it to its IDs in each container (XZ filter IDs, 7z
//!   method IDs, zip compression methods) and to its human name.
//! * `properties.rs`: [`Properties`], a method's parsed properties, from a
//!   7z coder record or an XZ Filter Flags entry.
//! * `memory.rs`: what a decoder of a method will use
//!   ([`Properties::decoder_memory`]) and the one check of a coder chain
//!   against [`Limits`](lzflow_core::Limits) ([`check_decoder_memory`]):
//!   containers check memory here, once, and build their coders unlimited
//!   (but for Zstandard's window, which only its frames declare).
//! * `decoders.rs`: [`new_decoder`], the single-input decoders a container
//!   can chain: Copy, LZMA, LZMA2, the BCJ filters and Delta, Deflate
//!   (zlib-rs through `flate2`; miniz_oxide with the `safe` feature),
//!   Deflate64 (`deflate64`), BZip2 (`bzip2`) and PPMd var. H
//!   (`lzflow-ppmd`); zip's PPMd var. I (`new_zip_ppmd_decoder`), whose
//!   properties are inside its data.
//! * `encoders.rs`: [`new_encoder`], the encoders a container writes with:
//!   Copy, Deflate (same backends as the decoder), BZip2, LZMA with an
//!   end marker and PPMd var. H (levels as 7-Zip's, [`ppmd_level`]), and
//!   zip's PPMd var. I; their properties and memory use.
//! * `zstd.rs`: the Zstandard decoder (`ruzstd`), fed whole frame headers
//!   and blocks, checking each frame's window against the memory limit.
//! * `error.rs`: [`MethodError`].
//!
//! # Features
//! The codecs that come from other crates are features, all on by default:
//!
//! | Feature | What it builds |
//! |---|---|
//! | `deflate` | Deflate's decoder and encoder, on `miniz_oxide` |
//! | `zlib-rs` | Deflate on zlib-rs through `flate2` instead (faster; turns on `deflate`) |
//! | `deflate64` | Deflate64's decoder (`deflate64`) |
//! | `bzip2` | BZip2's decoder and encoder (`bzip2`) |
//! | `zstd` | Zstandard's decoder (`ruzstd`) |
//! | `ppmd` | PPMd var. H (7z's PPMd) and var. I (zip's) decoders and encoders (`lzflow-ppmd`, lzflow's own) |
//! | `safe` (off) | No `unsafe` where a safe twin exists: Deflate on `miniz_oxide` even with `zlib-rs`, lzflow-lzma's checked code |
//!
//! Without one of them the method is still in the table (IDs, name,
//! properties, memory use): a container lists it and names it in errors,
//! and [`new_decoder`] and [`new_encoder`] return
//! [`MethodError::Disabled`] naming the method and the feature. XZ needs
//! none of them (LZMA2, the BCJ filters and Delta are always built).
//!
//! Multi-input and keyed coders (7z's BCJ2 and AES) are built by their
//! container, which has the streams and the keys; their IDs, names and
//! properties are here like every other method's.
#![forbid(unsafe_code)]

mod decoders;
mod encoders;
mod error;
mod memory;
mod method;
mod properties;
#[cfg(feature = "zstd")]
mod zstd;

#[cfg(feature = "ppmd")]
pub use decoders::new_zip_ppmd_decoder;
pub use decoders::{
    new_decoder, set_idle_decompressors, BoxedDecoder, DEFAULT_IDLE_DECOMPRESSORS,
    MAX_UNUSED_AFTER_END,
};
pub use encoders::{
    encoder_memory, encoder_properties, new_encoder, new_encoder_sized, ppmd_fitted_memory,
    ppmd_level, set_idle_compressors, BoxedEncoder, DEFAULT_IDLE_COMPRESSORS, MAX_LEVEL,
};
#[cfg(feature = "ppmd")]
pub use encoders::{new_ppmd_encoder, new_zip_ppmd_encoder, zip_ppmd_encoder_memory};
pub use error::MethodError;
pub use memory::{check_decoder_memory, window_size};
pub use method::{archive_listing_7z, describe_7z, listing_name_7z, size_text, Method};
pub use properties::Properties;
