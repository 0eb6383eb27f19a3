//! The async faces behind [`crate::tokio`] and [`crate::futures`], written
//! once: [`bufread`] (an `AsyncRead` over an `AsyncBufRead`) and
//! [`write`](mod@write) (an `AsyncWrite`). Each type is generic over the
//! inner reader or writer, the coder and the runtime `Rt`, [`Tokio`] or
//! [`Futures`]: `lzflow::tokio::bufread::XzDecoder<R>` is
//! `bufread::Decoder<R, lzflow_xz::XzDecoder, Tokio>`. Structs, accessors,
//! constructors and builders are here; each runtime module adds its
//! adapter of pump's source or sink and its runtime's traits (with tokio's
//! cooperative budget, or only the per-poll bound for futures-io). Use the
//! runtime modules' names; the runtimes' types stay distinct, so a face
//! implements only its own runtime's traits.

pub mod bufread;
mod mt;
pub mod write;

/// The runtime of the faces under [`crate::tokio`].
#[cfg(feature = "tokio")]
#[derive(Debug, Clone, Copy)]
pub struct Tokio;

/// The runtime of the faces under [`crate::futures`].
#[cfg(feature = "futures-io")]
#[derive(Debug, Clone, Copy)]
pub struct Futures;
