//! Sans-I/O building blocks shared by every lzflow layer.
//!
//! Every codec in lzflow is a state machine that is handed byte slices and
//! reports how far it got: [`InBuf`] and [`OutBuf`] are the cursors, [`Decode`]
//! and [`Encode`] the two object-safe traits, [`Progress`] the status. No coder
//! owns a reader, a writer or a runtime; the facade crate drives them.
//!
//! Errors are one enum per layer; each implements [`CoderError`], which sorts
//! it by [`Culprit`] and so decides the [`std::io::ErrorKind`] it becomes.
//!
//! [`Limits`] are what a caller allows hostile input (memory, output);
//! [`Pool`] lends coders their buffers and tables, so that steady-state
//! coding allocates nothing; [`parallel`] is the one worker pool the
//! multi-threaded coders share ([`parallel::OrderedPool`], pieces handed
//! back in order); [`Readiness`] lets async faces wait on those threads
//! without blocking.
//!
//! [`source`] holds the poll-style byte source and sink traits that every
//! container's one core is written against, with [`source::Blocking`] and
//! [`source::block_on`] for the std faces.
//!
//! [`extract`] holds the one set of rules every archive format's extraction
//! follows ([`extract::ExtractOptions`], [`extract::Extractor`]): the only
//! part of this crate that writes to the file system.
//! [`extract_thread::ExtractThread`] drives an extractor from the
//! containers' one extraction walk, its calls made on a thread of their
//! own for the async faces. Its reading twin,
//! [`input_file::open_regular`], is how every writer's `add_path` opens a
//! file: without following a link or waiting on a FIFO.
//!
//! # Features
//! * `safe`: no `unsafe` at all. By default, on Linux,
//!   [`advise_huge_pages`] asks for transparent huge pages for an encoder's
//!   large tables and window (one system call in `huge_pages.rs`), which
//!   speeds up encoders with large dictionaries; and on x86-64
//!   [`prefetch`] hints the cache (one instruction in `prefetch.rs`), which
//!   speeds up the PPMd decoders' walks through their model.
#![cfg_attr(feature = "safe", forbid(unsafe_code))]
#![cfg_attr(not(feature = "safe"), deny(unsafe_code))]

mod buf;
mod coder;
mod error;
pub mod extract;
pub mod extract_thread;
#[cfg_attr(not(feature = "safe"), allow(unsafe_code))]
mod huge_pages;
pub mod input_file;
mod limits;
pub mod parallel;
mod pool;
#[cfg_attr(not(feature = "safe"), allow(unsafe_code))]
mod prefetch;
mod ready;
pub mod source;

pub use buf::{InBuf, OutBuf};
pub use coder::{
    encode_input, encode_to_end, finish_output, Decode, Encode, ErrInto, Progress, Sticky,
};
pub use error::{error_chain_text, into_io_error, CoderError, Culprit, LimitExceeded};
pub use huge_pages::advise_huge_pages;
pub use limits::Limits;
pub use pool::{
    Lease, Pool, Recycled, Recycler, DEFAULT_MAX_IDLE_BYTES, DEFAULT_MAX_IDLE_TABLE_BYTES,
    PROBE_MIN_BYTES,
};
pub use prefetch::prefetch;
pub use ready::Readiness;
