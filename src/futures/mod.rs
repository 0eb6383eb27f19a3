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

pub mod bufread;
pub mod source;
pub mod write;
