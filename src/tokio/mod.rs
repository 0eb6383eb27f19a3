//! tokio faces (feature `tokio`): [`bufread`] decoders/encoders implement
//! `AsyncRead` over an `AsyncBufRead`; [`write`](mod@write) decoders/encoders
//! implement `AsyncWrite`. Names and constructors follow
//! async-compression's `tokio` module.
//!
//! Reading a `tokio::fs::File`: each read of one runs on tokio's blocking
//! pool, one thread hop per fill of the `BufReader`. With the default 8 KiB
//! buffer those hops cost a quarter more time than the decoding itself
//! (measured on a 40 MiB text `.xz`); wrap the file in
//! `tokio::io::BufReader::with_capacity(256 << 10, file)`: with 64 KiB the
//! hops still cost 5-8 %, with 256 KiB about 5 % (`lzflow-bench compare
//! decode`, rows `lzflow tokio file` against `lzflow sync file`).
//! [`fs::ReadAheadFile`] (feature `tokio-fs`) does better: it reads the next
//! buffer while the decoder works on the current one, and opens a file and
//! reads its first buffer in one hop.

pub mod bufread;
#[cfg(feature = "tokio-fs")]
pub mod fs;
mod mt;
pub(crate) mod seek;
pub mod write;
