//! zip's PPMd (var. I rev. 1) decoding: any bytes give data or a typed
//! error, never a panic or hang, and the same output, error and consumed
//! count whole and in fuzzer-chosen input and output slices.
//!
//! Input layout: [size (2 bytes LE), n_in, n_out, n_in size bytes, n_out
//! size bytes, zip PPMd data (its 2 property bytes first)]. The memory
//! limit (16 MiB) refuses larger models before they are allocated; the
//! output size is given, as a zip header gives it.
#![no_main]

use libfuzzer_sys::fuzz_target;
use lzflow_fuzz::assert_split_independent;
use lzflow_ppmd::Ppmd8Decoder;

fuzz_target!(|data: &[u8]| {
    let [s0, s1, rest @ ..] = data else {
        return;
    };
    let size = u64::from(u16::from_le_bytes([*s0, *s1]));
    assert_split_independent(|| Ppmd8Decoder::new(Some(size), 16 << 20), rest);
});
