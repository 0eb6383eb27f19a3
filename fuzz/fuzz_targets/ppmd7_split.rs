//! PPMd var. H (7z's PPMd) decoding: any bytes give data or a typed error,
//! never a panic or hang, and the same output, error and consumed count
//! whole and in fuzzer-chosen input and output slices.
//!
//! Input layout: [order, mem (4 bytes LE), size (2 bytes LE), n_in,
//! n_out, n_in size bytes, n_out size bytes, PPMd stream]. The model is
//! capped at 1 MiB (`mem % 1 MiB`) to keep runs fast; the output size is
//! given, as 7z gives it (the decoder has no output limit of its own).
#![no_main]

use libfuzzer_sys::fuzz_target;
use lzflow_fuzz::assert_split_independent;
use lzflow_ppmd::{Ppmd7Decoder, Ppmd7Props, MIN_MEM_SIZE};

fuzz_target!(|data: &[u8]| {
    let [order, m0, m1, m2, m3, s0, s1, rest @ ..] = data else {
        return;
    };
    let mem = (u32::from_le_bytes([*m0, *m1, *m2, *m3]) % (1 << 20)).max(MIN_MEM_SIZE);
    let Ok(props) = Ppmd7Props::new(*order, mem) else {
        return;
    };
    let size = u64::from(u16::from_le_bytes([*s0, *s1]));
    assert_split_independent(
        || Ppmd7Decoder::with_props(props, Some(size), 64 << 20).expect("within the limit"),
        rest,
    );
});
