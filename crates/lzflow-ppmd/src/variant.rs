//! What the resumable coders (`decoder`, `encoder`) need of a PPMd
//! variant: its model, the two halves of its range coder, and the coding
//! of one symbol. Var. H implements it in `symbol`, var. I in
//! `ppmd8::symbol`.

use crate::range::Source;

/// What one decode step yields.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Decoded {
    Byte(u8),
    /// The end marker (an escape from the order-0 context).
    End,
    /// A count outside the context's total: the data is corrupt.
    Error,
}

/// A PPMd variant, as the resumable coders drive it.
pub(crate) trait Variant {
    /// The model, in its arena.
    type Model;
    /// The range decoder.
    type RangeDecoder;
    /// The range encoder; its bytes go to a buffer the coder drains.
    type RangeEncoder;

    /// Decodes one symbol and updates the model. Reads a bounded number of
    /// bytes from `src` (the decoder's `symbol_bytes`); past its end `src`
    /// reads zeros and sets its `overrun` flag.
    fn decode(m: &mut Self::Model, rc: &mut Self::RangeDecoder, src: &mut Source<'_>) -> Decoded;

    /// The range decoder's code: 0 where a stream may end.
    fn code(rc: &Self::RangeDecoder) -> u32;

    /// Encodes one symbol (`None`: the end marker) and updates the model.
    fn encode(m: &mut Self::Model, rc: &mut Self::RangeEncoder, symbol: Option<u8>);

    /// The range encoder's bytes not yet drained.
    fn pending(rc: &mut Self::RangeEncoder) -> &mut Vec<u8>;

    /// The range encoder's last bytes, after the last symbol.
    fn flush(rc: &mut Self::RangeEncoder);
}
