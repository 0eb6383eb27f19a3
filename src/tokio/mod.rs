//! tokio faces (feature `tokio`): [`bufread`] decoders/encoders implement
//! `AsyncRead` over an `AsyncBufRead`; [`write`](mod@write) decoders/encoders
//! implement `AsyncWrite`. Names and constructors follow
//! async-compression's `tokio` module.
//!
//! Every face here takes part in tokio's cooperative budget (see the
//! crate docs, "Fairness and cancellation"): a task decoding or encoding
//! from memory yields about every 256 µs of work, so timeouts fire and
//! other tasks run.
//!
//! Reading files: each read of a `tokio::fs::File` runs on tokio's blocking
//! pool, one thread hop per fill of the `BufReader` over it. With the
//! default 8 KiB buffer those hops cost a quarter more time than the
//! decoding itself (measured on a 40 MiB text `.xz`); with 256 KiB, 3-6 %
//! on files that decode to 32-40 MiB and 12-14 % on ones that decode to
//! 256 KiB. [`fs::ReadAheadFile`] (feature `tokio-fs`) reads the next
//! buffer while the decoder works on the current one, and opens a file and
//! reads its first buffer in one hop: 0.99-1.02x the time of the std face
//! over a file on the large files and 1.05-1.07x on the small ones
//! (`lzflow-bench compare decode`, rows `lzflow tokio file` and `tokio
//! ReadAheadFile` against `lzflow sync file`).

pub mod bufread;
pub(crate) mod coop;
#[cfg(feature = "tokio-fs")]
pub mod fs;
pub(crate) mod seek;
pub mod source;
pub mod write;
