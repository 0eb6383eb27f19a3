//! The in-place filter interface and the constructor that picks an
//! implementation for a [`FilterConfig`].

use crate::{bcj, delta::Delta, FilterConfig, FilterError, FilterKind};

/// Which way a filter converts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Direction {
    /// Undo the filter (turn stored bytes back into the original data).
    Decode,
    /// Apply the filter (turn original data into the bytes to compress).
    Encode,
}

/// A stateful in-place byte converter, such as a BCJ branch converter or
/// Delta.
///
/// Each call transforms as many leading bytes of `buf` as can be decided now
/// and returns how many. The rest (a tail shorter than [`MAX_TAIL`] bytes)
/// must be offered again, followed by more data, on the next call. At the end
/// of the stream the caller passes the remaining tail through unchanged. The
/// filter tracks the stream position (start offset plus bytes returned) and
/// any other state itself, so the result does not depend on how the data is
/// split between calls.
///
/// The adapters guard against implementations that break this contract: a
/// filter that holds back [`MAX_TAIL`] bytes or more has the excess passed
/// through as if decided, so the adapters never stall or grow a buffer.
pub trait Filter: Send {
    /// Transforms the decidable prefix of `buf` in place; returns its length.
    fn filter(&mut self, buf: &mut [u8]) -> usize;
}

/// The most bytes any filter leaves undecided at the end of a call.
pub const MAX_TAIL: usize = 16;

/// Builds the filter described by `cfg`.
///
/// # Panics
/// If `cfg` fails [`FilterConfig::validate`] (a caller-built configuration
/// out of range). Configurations parsed from files are always valid; use
/// [`try_new_filter`] for configurations from elsewhere.
pub fn new_filter(cfg: &FilterConfig, dir: Direction) -> Box<dyn Filter> {
    match try_new_filter(cfg, dir) {
        Ok(f) => f,
        Err(e) => panic!("new_filter: {e}"),
    }
}

/// Builds the filter described by `cfg`, or says why the options are out of
/// range.
pub fn try_new_filter(cfg: &FilterConfig, dir: Direction) -> Result<Box<dyn Filter>, FilterError> {
    cfg.validate()?;
    let enc = dir == Direction::Encode;
    let pos = cfg.start_offset;
    Ok(match cfg.kind {
        FilterKind::Delta => Box::new(Delta::new(cfg.distance as usize, enc)),
        FilterKind::X86 => Box::new(bcj::x86::X86::new(pos, enc)),
        FilterKind::PowerPc => Box::new(bcj::powerpc::PowerPc::new(pos, enc)),
        FilterKind::Ia64 => Box::new(bcj::ia64::Ia64::new(pos, enc)),
        FilterKind::Arm => Box::new(bcj::arm::Arm::new(pos, enc)),
        FilterKind::ArmThumb => Box::new(bcj::armthumb::ArmThumb::new(pos, enc)),
        FilterKind::Sparc => Box::new(bcj::sparc::Sparc::new(pos, enc)),
        FilterKind::Arm64 => Box::new(bcj::arm64::Arm64::new(pos, enc)),
        FilterKind::RiscV => Box::new(bcj::riscv::RiscV::new(pos, enc)),
    })
}

/// Builds a whole chain, in the order given.
pub fn new_chain(
    cfgs: &[FilterConfig],
    dir: Direction,
) -> Result<Vec<Box<dyn Filter>>, FilterError> {
    cfgs.iter().map(|c| try_new_filter(c, dir)).collect()
}

/// The filters for a [`FilterDecoder`](crate::FilterDecoder), from
/// configurations in the order they were applied when encoding (the XZ
/// Filter Flags order, without the final LZMA2): they are undone last
/// first.
pub fn decode_chain(cfgs: &[FilterConfig]) -> Result<Vec<Box<dyn Filter>>, FilterError> {
    cfgs.iter()
        .rev()
        .map(|c| try_new_filter(c, Direction::Decode))
        .collect()
}

/// The filters for a [`FilterEncoder`](crate::FilterEncoder), from
/// configurations in the order they are applied (the XZ Filter Flags order,
/// without the final LZMA2).
pub fn encode_chain(cfgs: &[FilterConfig]) -> Result<Vec<Box<dyn Filter>>, FilterError> {
    new_chain(cfgs, Direction::Encode)
}
