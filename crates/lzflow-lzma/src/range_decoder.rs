//! The LZMA range decoder.
