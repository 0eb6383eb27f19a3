//! PPMd variant H (PPMd7) with 7z's range coder, the 7z method 030401, and
//! PPMd variant I rev. 1 (PPMd8), the zip method 98, for lzflow: resumable
//! sans-I/O decoders and encoders, bit-exact with 7-Zip.
//!
//! PPMd predicts each byte from the bytes before it (the context, up to
//! `order` bytes) with a model of variable-order contexts kept in a fixed
//! amount of memory; when that memory is full the model starts over. The
//! model's memory size and order are the stream's properties
//! ([`Ppmd7Props`], 5 bytes in a 7z header). Decoder and encoder must use
//! the same model memory to stay in step: a decoder allocates what the
//! stream says, so [`Ppmd7Decoder::new`] checks [`memory_usage`] against a
//! limit first.
//!
//! # Ends and sizes
//! 7-Zip writes no end marker: the 7z header has the size, and the decoder
//! stops there and checks that the range decoder ends at code 0, as 7-Zip
//! does. [`Ppmd7Encoder::with_end_marker`] writes one for streams of
//! unknown size, which [`Ppmd7Decoder`] then decodes with no size given.
//!
//! Near the end of a stream the decoder needs either a symbol's worth of
//! bytes (`2 * (order + 2)`) or input marked last: see [`Ppmd7Decoder`].
//!
//! # PPMd var. I (zip)
//! [`Ppmd8Decoder`] and [`Ppmd8Encoder`] code a zip entry's data as 7-Zip
//! does: 2 property bytes ([`Ppmd8Props`]: order, memory in MiB and the
//! [`RestoreMethod`] used when the model memory is full), the symbols with
//! Subbotin's carryless range coder, and always the end marker. The decoder
//! reads the properties from the stream and checks [`ppmd8_memory_usage`]
//! against its limit before allocating; it wants the end marker (and the
//! code at 0) also when the size is known, as 7-Zip does.
//!
//! # Organization
//! * `arena`: the model's memory, one byte arena, with the records both
//!   variants lay out alike (states, the shared context fields) and the
//!   walks over a context's states, masked or not.
//! * `variant`: what the resumable coders need of a variant (its model,
//!   its range coder's halves, coding one symbol).
//! * `decoder`, `encoder`: the resumable coders' one driver each
//!   (`SymbolDecoder`: held input, bounded bytes per symbol, end checks,
//!   sticky errors; `SymbolEncoder`: bounded batches, draining, finish),
//!   and var. H's [`Ppmd7Decoder`] and [`Ppmd7Encoder`] over them.
//! * `model`: the var. H model in its arena, its unit allocator and the
//!   updates (successors, rescaling, restart).
//! * `symbol`: coding one var. H symbol, decoder and encoder side, with
//!   the binary contexts and the secondary escape estimation.
//! * `range`: 7z's range coder (the one LZMA uses), and the range
//!   decoders' input reader both variants share.
//! * [`Ppmd7Props`]: the 7z properties; [`PpmdError`]: the errors (shared
//!   by both variants).
//! * `ppmd8`: var. I. Its `model` has its own allocator (free blocks with
//!   32-bit stamps, per-class counts, a different glue, cut-off and
//!   text-area expansion) and its context's flags byte, and shares the
//!   arena, the size classes and the SEE context type with var. H;
//!   `symbol` codes a symbol; `range` is the carryless coder; `props` the
//!   zip header; [`Ppmd8Decoder`] and [`Ppmd8Encoder`] read and write the
//!   header around the shared drivers.
#![forbid(unsafe_code)]

mod arena;
mod decoder;
mod encoder;
mod error;
mod model;
mod ppmd8;
mod props;
mod range;
mod symbol;
mod variant;

pub use decoder::Ppmd7Decoder;
pub use encoder::Ppmd7Encoder;
pub use error::PpmdError;
pub use ppmd8::{
    ppmd8_memory_usage, Ppmd8Decoder, Ppmd8Encoder, Ppmd8Props, RestoreMethod, PPMD8_MAX_MEM_MIB,
    PPMD8_MAX_ORDER, PPMD8_MIN_MEM_MIB, PPMD8_MIN_ORDER,
};
pub use props::{memory_usage, Ppmd7Props, MAX_MEM_SIZE, MAX_ORDER, MIN_MEM_SIZE, MIN_ORDER};
