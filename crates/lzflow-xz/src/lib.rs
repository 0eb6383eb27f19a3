//! The `.xz` container for lzflow: streams, Blocks, Index and integrity
//! checks, as a sans-I/O decoder and encoder.
//!
//! # Organization
//! Files follow the sections of the XZ file format specification:
//! * [`vli`] — variable-length integers (1.2);
//! * `stream_flags` — Stream Header and Footer (2.1);
//! * `block_header` — Block Header and Filter Flags (3.1);
//! * `block_decoder` — Compressed Data, Block Padding and Check (3.2–3.4);
//! * `check` — [`Check`] and the running CRC32 / CRC64 / SHA-256;
//! * `error` — [`XzError`] (and `Check::from_id`, beside the errors it
//!   returns);
//! * `index` — the Index and its Records (4);
//! * `stream_decoder` — one stream, single-threaded; Blocks whose headers
//!   carry both sizes can be collected whole and handed to a
//!   `BlockDispatch` instead of being decoded inline;
//! * `mt_decoder` — the worker pool (`MtPool`, a `BlockDispatch`): such
//!   Blocks decoded on worker threads, their output handed out in order;
//! * `decoder` — the front: [`XzDecoder`] over concatenated streams with
//!   Stream Padding (2.2), and [`MtXzDecoder`], the same with the worker
//!   pool;
//! * `block_encoder`, `encoder` — [`XzEncoder`], Blocks buffered so that
//!   their headers carry both sizes;
//! * `mt_encoder` — [`MtXzEncoder`], Blocks compressed on worker threads,
//!   output identical to [`XzEncoder`]'s;
//! * [`info`] — reading the Index from the end of a seekable file, as
//!   `xz --list` does, without decoding any data ([`info::LayoutReader`]
//!   asks for byte ranges; [`info::read_info`] reads them);
//! * `block_details` — [`read_block_details`]: each Block's header and
//!   stored check at the offsets [`info`] gives, as `xz --list -vv` shows
//!   them;
//! * `seekable` — [`BlockMap`] and [`SeekableXzDecoder`]: random access,
//!   decoding from the Block that holds an offset;
//! * `poll_seekable` — [`PollSeekableXz`], the one poll-style core of
//!   random-access reading over a source that seeks, and
//!   `seekable_reader` — [`SeekableXzReader`], its std face.
//!
//! Dependencies go one way, from the bottom up: `vli`, `check`, `error`;
//! `stream_flags`, `block_header`, `index`; `block_decoder`,
//! `block_encoder`; `stream_decoder`, which knows nothing of threads (it
//! defines `BlockDispatch`); `mt_decoder`, which implements it over
//! `block_decoder`; `decoder`, on top of both; `encoder`, then
//! `mt_encoder` on top of it; `info`, then `block_details`; `seekable`, then `poll_seekable`
//! and `seekable_reader` over it (they use `decoder`'s options). No module uses one that comes later.
//!
//! ```no_run
//! use lzflow_core::{Decode, InBuf, OutBuf, Progress};
//! use lzflow_xz::XzDecoder;
//!
//! let file = std::fs::read("data.xz").unwrap();
//! let mut dec = XzDecoder::default();
//! let mut input = InBuf::last(&file);
//! let mut decoded = Vec::new();
//! let mut buf = vec![0; 64 << 10];
//! loop {
//!     let mut out = OutBuf::new(&mut buf);
//!     let progress = dec.decode(&mut input, &mut out).unwrap();
//!     decoded.extend_from_slice(out.written());
//!     if progress == Progress::StreamEnd {
//!         break;
//!     }
//! }
//! ```
#![forbid(unsafe_code)]

mod block_decoder;
mod block_details;
mod block_encoder;
mod block_header;
mod check;
mod decoder;
mod encoder;
mod error;
mod index;
pub mod info;
mod mt_decoder;
mod mt_encoder;
mod poll_seekable;
mod seekable;
mod seekable_reader;
mod stream_decoder;
mod stream_flags;
pub mod vli;

pub use block_details::{read_block_details, BlockDetails};
pub use check::{size_of_id as check_size_of_id, Check};
pub use decoder::{MtXzDecoder, MtXzDecoderOptions, XzDecoder, XzDecoderOptions};
pub use encoder::{XzEncoder, XzEncoderOptions};
pub use error::XzError;
pub use mt_encoder::{MtXzEncoder, MtXzEncoderOptions};
pub use poll_seekable::PollSeekableXz;
pub use seekable::{BlockMap, SeekableXzDecoder};
pub use seekable_reader::SeekableXzReader;
pub use stream_flags::{FOOTER_MAGIC, HEADER_MAGIC};
