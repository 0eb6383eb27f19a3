//! The method decoders on other crates (Deflate on zlib-rs, Deflate64 on
//! `deflate64`, BZip2 on `bzip2`, Zstandard on `ruzstd`) and Copy, as the
//! 7z and zip readers build them (`lzflow_methods::new_decoder`): any bytes
//! give data or a typed error, never a panic or hang, and the same output,
//! error and consumed count whole and in fuzzer-chosen input and output
//! slices. The adapters are where a crate's slices-in, counts-out API
//! meets the `Decode` contract, so that is what is checked; this target
//! found Deflate64's consumed count, the bytes before a fault and the
//! stickiness of faults depending on the pieces (Deflate64 and BZip2).
//!
//! Input layout: [method, n_in, n_out, n_in size bytes, n_out size bytes,
//! compressed data]; `method % 5` picks Copy, Deflate, Deflate64, BZip2 or
//! Zstandard. The containers cap an entry's output at its declared size;
//! here a wrapper stops at the drive's output limit with a limit error, so
//! a bomb ends the same way however it is split.
#![no_main]

use std::fmt;

use libfuzzer_sys::fuzz_target;
use lzflow_core::{CoderError, Culprit, Decode, InBuf, OutBuf, Progress};
use lzflow_fuzz::{assert_split_independent, LIMITS};
use lzflow_lzma::DecoderOptions;
use lzflow_methods::{new_decoder, BoxedDecoder, Method, MethodError, Properties};

const METHODS: [Method; 5] = [
    Method::Copy,
    Method::Deflate,
    Method::Deflate64,
    Method::BZip2,
    Method::Zstd,
];

/// A decoder whose output stops at `left` bytes: one byte more is a limit
/// error (the inner decoder writes it to a scratch byte, never to the
/// caller).
struct Capped {
    inner: BoxedDecoder,
    left: u64,
    failed: bool,
}

#[derive(Debug)]
enum CappedError {
    Inner(MethodError),
    Limit,
}

impl fmt::Display for CappedError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CappedError::Inner(_) => f.write_str("the method failed"),
            CappedError::Limit => f.write_str("output beyond the limit"),
        }
    }
}

impl std::error::Error for CappedError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            CappedError::Inner(e) => Some(e),
            CappedError::Limit => None,
        }
    }
}

impl CoderError for CappedError {
    fn culprit(&self) -> Culprit {
        match self {
            CappedError::Inner(e) => e.culprit(),
            CappedError::Limit => Culprit::Limit,
        }
    }
}

impl Decode for Capped {
    type Error = CappedError;

    fn decode(
        &mut self,
        input: &mut InBuf<'_>,
        output: &mut OutBuf<'_>,
    ) -> Result<Progress, CappedError> {
        if self.failed {
            return Err(CappedError::Limit);
        }
        if self.left == 0 {
            // Only the end may come now: a byte more is past the limit.
            let mut one = [0u8; 1];
            let mut probe = OutBuf::new(&mut one);
            let p = self
                .inner
                .decode(input, &mut probe)
                .map_err(CappedError::Inner)?;
            if probe.pos() > 0 {
                self.failed = true;
                return Err(CappedError::Limit);
            }
            return Ok(p);
        }
        let room = output.spare_mut().len().min(self.left as usize);
        let spare = &mut output.spare_mut()[..room];
        let mut out = OutBuf::new(spare);
        let r = self.inner.decode(input, &mut out);
        // What came before an error goes out with it.
        let n = out.pos();
        output.advance(n);
        self.left -= n as u64;
        let p = r.map_err(CappedError::Inner)?;
        if p == Progress::OutputFull && self.left == 0 {
            // Room cut by the cap is room the caller did not run out of.
            return self.decode(input, output);
        }
        Ok(p)
    }

    fn unused_after_end(&self) -> usize {
        self.inner.unused_after_end()
    }
}

fuzz_target!(|data: &[u8]| {
    let [m, rest @ ..] = data else {
        return;
    };
    let method = METHODS[usize::from(*m) % METHODS.len()];
    let opts = DecoderOptions {
        limits: LIMITS,
        ..DecoderOptions::default()
    };
    let make = || Capped {
        inner: new_decoder(&Properties::Plain(method), None, &opts)
            .expect("every method here is built in"),
        left: LIMITS.output,
        failed: false,
    };
    assert_split_independent(make, rest);
});
