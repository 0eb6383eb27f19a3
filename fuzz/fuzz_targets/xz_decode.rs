//! Any input through the XZ decoder: an error or data, never a panic, a
//! hang or unbounded memory. The same bytes as a file to list: its layout
//! (`read_info`) and, when that reads, every Block's header and check
//! (`read_block_details`, what `-lvv` shows): an error or the details.
#![no_main]

use std::io::Cursor;

use libfuzzer_sys::fuzz_target;
use lzflow_fuzz::{drive, LIMITS};
use lzflow_lzma::DecoderOptions;
use lzflow_xz::info::read_info;
use lzflow_xz::{read_block_details, XzDecoder, XzDecoderOptions};

fuzz_target!(|data: &[u8]| {
    let opts = XzDecoderOptions {
        lzma: DecoderOptions::default().with_limits(LIMITS),
        ..XzDecoderOptions::default()
    };
    let mut decoder = XzDecoder::new(opts);
    drive(&mut decoder, data, std::iter::empty(), std::iter::empty());

    if let Ok(info) = read_info(Cursor::new(data)) {
        if let Ok(details) = read_block_details(Cursor::new(data), &info) {
            assert_eq!(details.len(), info.block_count());
            for (d, b) in details.iter().zip(info.streams.iter().flat_map(|s| &s.blocks)) {
                // The parts the Index sums up.
                let check = d.check_value.len() as u64;
                assert_eq!(
                    u64::from(d.header_size) + d.compressed_size + check,
                    b.unpadded_size
                );
                assert_eq!(d.uncompressed_size, b.uncompressed_size);
            }
        }
    }
});
