//! The LZ window (dictionary).
