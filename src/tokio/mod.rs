//! tokio faces (feature `tokio`): [`bufread`] decoders/encoders implement
//! `AsyncRead` over an `AsyncBufRead`; [`write`](mod@write) decoders/encoders
//! implement `AsyncWrite`. Names and constructors follow
//! async-compression's `tokio` module.

pub mod bufread;
mod mt;
pub mod write;
