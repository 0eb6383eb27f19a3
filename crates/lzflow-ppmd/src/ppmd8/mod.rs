//! PPMd var. I rev. 1 (7-Zip's Ppmd8), as zip stores it (method 98).

mod decoder;
mod encoder;
mod model;
mod props;
mod range;
mod symbol;

pub use decoder::Ppmd8Decoder;
pub use encoder::Ppmd8Encoder;
pub use model::RestoreMethod;
pub use props::{
    ppmd8_memory_usage, Ppmd8Props, PPMD8_MAX_MEM_MIB, PPMD8_MAX_ORDER, PPMD8_MIN_MEM_MIB,
    PPMD8_MIN_ORDER,
};
