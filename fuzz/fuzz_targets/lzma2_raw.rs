//! Raw LZMA2 streams: the first byte picks the dictionary size (as an XZ
//! LZMA2 properties byte), the rest is the stream.
#![no_main]

use libfuzzer_sys::fuzz_target;
use lzflow_fuzz::{drive, LIMITS};
use lzflow_lzma::{lzma2_dict_size, DecoderOptions, Lzma2Decoder};

fuzz_target!(|data: &[u8]| {
    let Some((&props, stream)) = data.split_first() else {
        return;
    };
    let Ok(dict_size) = lzma2_dict_size(props % 41) else {
        return;
    };
    let opts = DecoderOptions::default().with_limits(LIMITS);
    // A dictionary over the memory limit must be refused up front.
    let Ok(mut decoder) = Lzma2Decoder::new(dict_size, &opts) else {
        return;
    };
    drive(&mut decoder, stream, std::iter::empty(), std::iter::empty());
});
