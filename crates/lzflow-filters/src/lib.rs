//! BCJ branch converters and the Delta filter, for XZ and 7z.
//!
//! Filters are the stages between a container and LZMA2 that make data more
//! compressible: BCJ converters turn relative branch targets in machine code
//! into absolute ones, Delta stores byte differences. All of them share one
//! in-place interface, [`Filter`], so a chain is a `Vec<Box<dyn Filter>>`.
//!
//! # Organization
//! * [`FilterKind`] names the filters (their XZ filter IDs and 7z method
//!   IDs are lzflow-methods' registry); [`FilterConfig`] holds their
//!   options and reads and writes their properties.
//! * `bcj/` holds one converter per architecture, `delta.rs` the Delta
//!   filter; [`FilterError`] (`error.rs`) is what building one can fail
//!   with.
//! * [`new_filter`] builds a [`Filter`] for a configuration and a
//!   [`Direction`] ([`try_new_filter`] for options not checked yet),
//!   [`new_chain`] a list of them.
//! * [`FilterDecoder`] and [`FilterEncoder`] put a chain in front of (or
//!   behind) any [`lzflow_core::Decode`] / [`lzflow_core::Encode`], such as
//!   the LZMA2 coders, keeping their sans-I/O contract: results do not depend
//!   on how input and output are split. [`decode_chain`] and
//!   [`encode_chain`] build their filter lists from configurations in XZ
//!   order; [`PassThrough`] makes a `FilterDecoder` that filters raw bytes
//!   (a 7z BCJ coder fed by a Copy coder, for instance). The chain both
//!   adapters run (`chain.rs`) keeps the bytes a filter cannot convert
//!   yet.
//!
//! ```
//! use lzflow_filters::{new_filter, Direction, FilterConfig, FilterKind};
//!
//! let cfg = FilterConfig::from_xz_props(FilterKind::Delta, &[0]).unwrap();
//! let mut data = *b"abcd";
//! let mut enc = new_filter(&cfg, Direction::Encode);
//! assert_eq!(enc.filter(&mut data), 4);
//! assert_eq!(data, [b'a', 1, 1, 1]);
//! let mut dec = new_filter(&cfg, Direction::Decode);
//! dec.filter(&mut data);
//! assert_eq!(&data, b"abcd");
//! ```
#![forbid(unsafe_code)]

mod bcj;
mod chain;
mod config;
mod delta;
mod error;
mod filter;
mod filter_decoder;
mod filter_encoder;
mod kind;
mod pass_through;

pub use config::FilterConfig;
pub use error::FilterError;
pub use filter::{
    decode_chain, encode_chain, new_chain, new_filter, try_new_filter, Direction, Filter, MAX_TAIL,
};
pub use filter_decoder::FilterDecoder;
pub use filter_encoder::FilterEncoder;
pub use kind::FilterKind;
pub use pass_through::PassThrough;
