//! LZMA1 and LZMA2 coders for lzflow: range coder, LZ window, the LZMA
//! decoder (fast path and resumable path), the LZMA2 chunk layer and the
//! .lzma (LZMA-alone) container.
//!
//! All decoders are sans-I/O [`lzflow_core::Decode`] implementations.
//!
//! # Organization
//! Shared by both directions:
//! * `model` — the LZMA model: the state machine (12 states and their
//!   literal/match/rep/short-rep transitions), position states, literal
//!   coder size, match lengths and length coder trees, distance slots,
//!   align bits and the end-marker distance; also [`MATCH_LEN_MIN`] and
//!   [`MATCH_LEN_MAX`];
//! * `range_coder` — the range coder's constants (probability bits,
//!   `PROB_INIT`, `MOVE_BITS`, `TOP`, the five start bytes);
//! * `props` — [`LzmaProps`] and the LZMA2 dictionary byte.
//!
//! Decoding: `range_decoder` (with its x86-64 bit trees), `window`,
//! `lzma_decoder` (the probability table, symbol loop and
//! [`LzmaDecoder`]), `lzma2_decoder`, `alone_decoder`, and
//! `mt_lzma2_decoder` ([`MtLzma2Decoder`]: a stream cut at its dictionary
//! resets, decoded by `lzma2_decoder`s on several threads).
//!
//! Encoding, from the bottom up:
//! * `range_encoder`, `price` (bit prices), `length_encoder`,
//!   `match_finder` (hash chains, binary trees, and in `thread.rs` the
//!   binary tree split into a hash stage on the encoder's thread and a
//!   tree stage on a thread of its own);
//! * `search_table` — the optimal parser's table: the cheapest known way
//!   to each position of a search;
//! * `encoder_state` — `LzmaCore`, the encoder state shared by LZMA1,
//!   LZMA2 and both parsers: probability model, price tables, match
//!   finder, range encoder, parsing buffers (and the LZMA2 chunk size its
//!   window is sized for);
//! * `greedy` (fast mode) and `optimum` (normal mode) — decide symbols on
//!   that state;
//! * `lzma_encoder` — codes the decided symbols (the run loop that calls
//!   `greedy` or `optimum`) and [`LzmaEncoder`] (raw LZMA1);
//! * `lzma2_encoder` — cuts the output into chunks ([`Lzma2Encoder`]);
//! * `mt_lzma2_encoder` ([`MtLzma2Encoder`]) over `lzma2_encoder`,
//!   `alone_encoder` over `lzma_encoder`.
//!
//! Dependencies go one way: a module uses only modules listed before it
//! (the shared ones and `error`, `decoder_options`, `encoder_options`
//! first; decoding and encoding never use each other). A directory module
//! (`match_finder`, `range_decoder`) is one unit: its private files hold
//! parts of its implementation.
//!
//! # Features
//! * `safe`: use only bounds-checked code (and turn on lzflow-core's
//!   `safe`). By default the encoder's binary-tree walk (one module,
//!   `match_finder/unchecked.rs`) reads without bounds checks, and on
//!   x86-64 the decoder's bit trees run as inline assembly (one module,
//!   `range_decoder/x86_64.rs`); each is tested against its Rust twin.
#![cfg_attr(feature = "safe", forbid(unsafe_code))]
#![cfg_attr(not(feature = "safe"), deny(unsafe_code))]

mod alone_decoder;
mod alone_encoder;
mod decoder_options;
mod encoder_options;
mod encoder_state;
mod error;
mod greedy;
mod length_encoder;
mod lzma2_decoder;
mod lzma2_encoder;
mod lzma_decoder;
mod lzma_encoder;
mod match_finder;
mod model;
mod mt_lzma2_decoder;
mod mt_lzma2_encoder;
mod optimum;
mod price;
mod props;
mod range_coder;
mod range_decoder;
mod range_encoder;
mod search_table;
mod window;

pub use alone_decoder::AloneDecoder;
pub use alone_encoder::AloneEncoder;
pub use decoder_options::DecoderOptions;
pub use encoder_options::{LzmaOptions, MatchFinder, Mode, DICT_SIZE_MAX, DICT_SIZE_MIN};
pub use error::LzmaError;
pub use lzma2_decoder::Lzma2Decoder;
pub use lzma2_encoder::Lzma2Encoder;
pub use lzma_decoder::LzmaDecoder;
pub use lzma_encoder::LzmaEncoder;
pub use model::{MATCH_LEN_MAX, MATCH_LEN_MIN};
pub use mt_lzma2_decoder::MtLzma2Decoder;
pub use mt_lzma2_encoder::MtLzma2Encoder;
pub use props::{lzma2_dict_size, lzma2_props_byte, LzmaProps};
pub use range_encoder::RangeEncoder;
