//! Block decoding (spec section 3): Compressed Data through the filter chain,
//! Block Padding, and the Check, with the header's sizes enforced.

use lzflow_core::{Decode, InBuf, LimitExceeded, Limits, OutBuf, Progress};
use lzflow_filters::{new_chain, Direction, FilterDecoder};
use lzflow_lzma::{lzma2_dict_size, DecoderOptions, Lzma2Decoder, LzmaError};
use lzflow_methods::{check_decoder_memory, Properties};

use crate::block_header::{BlockHeader, UNPADDED_SIZE_MAX};
use crate::check::{CheckValue, Checker};
use crate::index::IndexRecord;
use crate::vli::VLI_MAX;
use crate::{Check, XzError};

/// The LZMA2 decoder with its (possibly empty) filter chain, kept across
/// Blocks and streams so that the dictionary and tables are reused.
pub(crate) struct Coder {
    inner: FilterDecoder<Lzma2Decoder>,
    /// False when the Block has no filters: LZMA2 then writes straight into
    /// the caller's buffer without the filter adapter.
    filtered: bool,
}

impl Coder {
    fn decode(
        &mut self,
        input: &mut InBuf<'_>,
        output: &mut OutBuf<'_>,
    ) -> Result<Progress, LzmaError> {
        if self.filtered {
            self.inner.decode(input, output)
        } else {
            self.inner.get_mut().decode(input, output)
        }
    }
}

/// Sets up `coder` for a Block: checks the memory limit against the
/// chain (the method registry's one check), then creates or resets the
/// decoder.
pub(crate) fn prepare_coder(
    coder: &mut Option<Coder>,
    header: &BlockHeader,
    opts: &DecoderOptions,
) -> Result<(), XzError> {
    let dict = lzma2_dict_size(header.lzma2_props)?;
    let lzma2 = Properties::Lzma2 { dict_size: dict };
    let filters: Vec<_> = header
        .filters
        .iter()
        .cloned()
        .map(Properties::Filter)
        .collect();
    let chain = std::iter::once(&lzma2).chain(&filters).map(|p| (p, None));
    check_decoder_memory(chain, &opts.limits)?;
    // Memory was checked above, once; the XZ layer enforces the output
    // limit itself, across Blocks.
    let lzma_opts = DecoderOptions {
        limits: Limits::NONE,
        ..opts.clone()
    };
    // Filters apply to LZMA2's output, so the XZ list is run backwards.
    let filters: Vec<_> = header.filters.iter().rev().cloned().collect();
    let chain = new_chain(&filters, Direction::Decode)?;
    match coder {
        Some(c) => {
            c.inner.get_mut().reset(dict)?;
            c.inner.reset(chain);
            c.filtered = !header.filters.is_empty();
        }
        None => {
            let lzma = Lzma2Decoder::new(dict, &lzma_opts)?;
            *coder = Some(Coder {
                inner: FilterDecoder::new(lzma, chain),
                filtered: !header.filters.is_empty(),
            });
        }
    }
    let c = coder.as_mut().expect("set above");
    c.inner
        .get_mut()
        .set_uncompressed_size(header.uncompressed_size);
    Ok(())
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    Data,
    Padding,
    Check,
    Done,
}

/// State of the Block being decoded (the coder itself lives outside so that
/// it outlives the Block).
#[derive(Debug)]
pub(crate) struct BlockDecoder {
    phase: Phase,
    header_size: u64,
    compressed_size: Option<u64>,
    uncompressed_size: Option<u64>,
    compressed: u64,
    uncompressed: u64,
    padding: u64,
    check: Option<Check>,
    check_size: usize,
    checker: Checker,
    check_bytes: [u8; 64],
    check_hold: usize,
    /// Block number in the stream, from 1, for error messages.
    number: u64,
    /// Input offset of the Block Header, for error messages.
    offset: u64,
}

impl BlockDecoder {
    /// State for no Block yet; [`start`](Self::start) begins one.
    pub(crate) fn idle() -> Self {
        BlockDecoder {
            phase: Phase::Done,
            header_size: 0,
            compressed_size: None,
            uncompressed_size: None,
            compressed: 0,
            uncompressed: 0,
            padding: 0,
            check: None,
            check_size: 0,
            checker: Checker::Skip,
            check_bytes: [0; 64],
            check_hold: 0,
            number: 0,
            offset: 0,
        }
    }

    /// Begins a Block with this header, reusing the checker when the check
    /// is the same. `check` is the stream's check if lzflow can verify it
    /// and verification is on; `check_size` the size of its Check field;
    /// `number` and `offset` (of its header in the input) name the Block
    /// in errors.
    pub(crate) fn start(
        &mut self,
        header: &BlockHeader,
        check: Option<Check>,
        check_size: usize,
        number: u64,
        offset: u64,
    ) {
        if self.check != check {
            self.checker = check.map_or(Checker::Skip, Checker::new);
        } else {
            self.checker.reset();
        }
        self.phase = Phase::Data;
        self.header_size = header.header_size as u64;
        self.compressed_size = header.compressed_size;
        self.uncompressed_size = header.uncompressed_size;
        self.compressed = 0;
        self.uncompressed = 0;
        self.padding = 0;
        self.check = check;
        self.check_size = check_size;
        self.check_hold = 0;
        self.number = number;
        self.offset = offset;
    }

    /// The Index Record this Block should have; valid once
    /// [`decode`](Self::decode) returned `StreamEnd`.
    pub(crate) fn record(&self) -> IndexRecord {
        IndexRecord {
            unpadded_size: self.header_size + self.compressed + self.check_size as u64,
            uncompressed_size: self.uncompressed,
        }
    }

    /// Decodes the rest of the Block. `out_left` is how many more bytes the
    /// output limit allows (`limit` is that limit, for the error). Returns
    /// `StreamEnd` once the Check has been verified.
    pub(crate) fn decode(
        &mut self,
        coder: &mut Coder,
        input: &mut InBuf<'_>,
        output: &mut OutBuf<'_>,
        out_left: &mut u64,
        limit: u64,
    ) -> Result<Progress, XzError> {
        loop {
            match self.phase {
                Phase::Data => match self.decode_data(coder, input, output, out_left, limit)? {
                    Progress::StreamEnd => self.phase = Phase::Padding,
                    p => return Ok(p),
                },
                Phase::Padding => {
                    while !(self.compressed + self.padding).is_multiple_of(4) {
                        let Some(b) = input.take_byte() else {
                            return self.need_input(input, "block padding");
                        };
                        if b != 0 {
                            return Err(XzError::BlockPadding);
                        }
                        self.padding += 1;
                    }
                    self.phase = Phase::Check;
                }
                Phase::Check => {
                    let need = self.check_size - self.check_hold;
                    let got = input.take(need);
                    self.check_bytes[self.check_hold..self.check_hold + got.len()]
                        .copy_from_slice(got);
                    self.check_hold += got.len();
                    if self.check_hold < self.check_size {
                        return self.need_input(input, "block check");
                    }
                    let computed = self.checker.finish();
                    if let (Some(check), Some(value)) = (self.check, computed) {
                        if !same(&value, &self.check_bytes[..self.check_size]) {
                            return Err(XzError::CheckMismatch {
                                check,
                                block: self.number,
                                offset: self.offset,
                            });
                        }
                    }
                    self.phase = Phase::Done;
                }
                Phase::Done => return Ok(Progress::StreamEnd),
            }
        }
    }

    fn need_input(&self, input: &InBuf<'_>, during: &'static str) -> Result<Progress, XzError> {
        if input.is_last() {
            Err(XzError::Truncated { during })
        } else {
            Ok(Progress::NeedInput)
        }
    }

    fn decode_data(
        &mut self,
        coder: &mut Coder,
        input: &mut InBuf<'_>,
        output: &mut OutBuf<'_>,
        out_left: &mut u64,
        limit: u64,
    ) -> Result<Progress, XzError> {
        loop {
            // Never let LZMA2 read past the declared Compressed Size.
            let rem = input.remaining();
            let in_cap = match self.compressed_size {
                Some(cs) => rem.len().min(clamp(cs - self.compressed)),
                None => rem.len(),
            };
            let mut sub_in =
                InBuf::new(&rem[..in_cap]).with_last(input.is_last() && in_cap == rem.len());

            let declared_left = self
                .uncompressed_size
                .map_or(u64::MAX, |us| us - self.uncompressed);
            let cap = clamp(declared_left.min(*out_left)).min(output.available());
            let (res, produced) = if cap == 0 && output.available() > 0 {
                // Nothing more may be produced: any byte now is an error.
                let mut probe = [0u8; 1];
                let mut sub_out = OutBuf::new(&mut probe);
                let res = coder.decode(&mut sub_in, &mut sub_out);
                if sub_out.pos() > 0 {
                    return Err(if declared_left == 0 {
                        XzError::UncompressedSizeMismatch {
                            declared: self.uncompressed_size.unwrap_or(0),
                            actual: self.uncompressed + 1,
                        }
                    } else {
                        XzError::Limit(LimitExceeded::Output { limit })
                    });
                }
                (res, 0)
            } else {
                let spare = &mut output.spare_mut()[..cap];
                let mut sub_out = OutBuf::new(spare);
                let res = coder.decode(&mut sub_in, &mut sub_out);
                let n = sub_out.pos();
                self.checker.update(&output.spare_mut()[..n]);
                output.advance(n);
                (res, n)
            };
            let consumed = sub_in.pos();
            input.advance(consumed);
            self.compressed += consumed as u64;
            self.uncompressed += produced as u64;
            *out_left -= produced as u64;
            let progress = res.map_err(|e| match e {
                LzmaError::Truncated => XzError::Truncated {
                    during: "block data",
                },
                e => match XzError::from(e) {
                    XzError::Lzma { source, .. } => XzError::Lzma {
                        block_offset: Some(self.offset),
                        source,
                    },
                    e => e,
                },
            })?;
            if self.header_size + self.compressed + self.check_size as u64 > UNPADDED_SIZE_MAX {
                return Err(XzError::SizeOverflow { what: "block size" });
            }
            if self.uncompressed > VLI_MAX {
                return Err(XzError::SizeOverflow {
                    what: "block's uncompressed size",
                });
            }
            match progress {
                Progress::StreamEnd => {
                    if let Some(declared) = self.compressed_size {
                        if declared != self.compressed {
                            return Err(XzError::CompressedSizeMismatch { declared });
                        }
                    }
                    if let Some(declared) = self.uncompressed_size {
                        if declared != self.uncompressed {
                            return Err(XzError::UncompressedSizeMismatch {
                                declared,
                                actual: self.uncompressed,
                            });
                        }
                    }
                    return Ok(Progress::StreamEnd);
                }
                Progress::NeedInput => {
                    if let Some(declared) = self.compressed_size {
                        if declared == self.compressed {
                            return Err(XzError::CompressedSizeMismatch { declared });
                        }
                    }
                    if input.is_empty() {
                        return self.need_input(input, "block data");
                    }
                }
                Progress::OutputFull => return Ok(Progress::OutputFull),
            }
        }
    }
}

fn clamp(n: u64) -> usize {
    usize::try_from(n).unwrap_or(usize::MAX)
}

/// Compares a computed check with the stored one.
fn same(value: &CheckValue, stored: &[u8]) -> bool {
    value.as_bytes() == stored
}
