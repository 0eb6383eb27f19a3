//! futures-io faces (feature `futures-io`): [`bufread`] decoders/encoders
//! implement `AsyncRead` over an `AsyncBufRead`; [`write`](mod@write)
//! decoders/encoders implement `AsyncWrite`. Names and constructors follow
//! async-compression's `futures` module.
//!
//! Each poll does bounded work (see the crate docs, "Fairness and
//! cancellation"), but futures-io has no cooperative budget: a poll that
//! makes progress returns `Ready`, so a task draining a face from an
//! always-ready source does not yield until its reader or writer is
//! pending or the stream ends. Under tokio, the [`crate::tokio`] faces
//! take part in tokio's budget.
//!
//! ```
//! use futures::executor::block_on;
//! use futures::io::{AsyncReadExt, AsyncWriteExt};
//!
//! # fn main() -> std::io::Result<()> {
//! block_on(async {
//!     // write: an `AsyncWrite` encoder into any futures-io writer.
//!     let mut encoder = lzflow::futures::write::XzEncoder::new(Vec::new());
//!     encoder.write_all(b"futures-io, futures-io").await?;
//!     encoder.close().await?;
//!     let xz = encoder.into_inner();
//!
//!     // bufread: an `AsyncRead` decoder over any `AsyncBufRead`.
//!     let mut decoder = lzflow::futures::bufread::XzDecoder::new(&xz[..]);
//!     let mut text = String::new();
//!     decoder.read_to_string(&mut text).await?;
//!     assert_eq!(text, "futures-io, futures-io");
//!     Ok(())
//! })
//! # }
//! ```

pub mod bufread;
pub mod source;
pub mod write;
