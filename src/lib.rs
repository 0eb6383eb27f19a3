//! lzflow
#![forbid(unsafe_code)]
