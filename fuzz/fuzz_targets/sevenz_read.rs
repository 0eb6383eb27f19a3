//! Any input as a 7z archive, opened with a password, every entry read
//! to the end and one entry read by random access: an error or data,
//! never a panic, a hang or unbounded memory.
#![no_main]

use std::io::{self, Cursor, Read};

use libfuzzer_sys::fuzz_target;
use lzflow_7z::{Archive, ArchiveOptions};
use lzflow_fuzz::LIMITS;

fuzz_target!(|data: &[u8]| {
    let opts = ArchiveOptions::default()
        .with_password("fixture-pass")
        .with_limits(LIMITS)
        .with_max_entries(1 << 12)
        .with_max_header_size(1 << 20);
    let Ok(mut archive) = Archive::open_with(Cursor::new(data), opts) else {
        return;
    };
    let count = archive.entries().len();
    let _ = archive.for_each_entry(|_, r| io::copy(r, &mut io::sink()).map(drop));
    if count > 0 {
        // The last entry: in a solid folder, everything before it is
        // decoded and discarded first.
        if let Ok(mut r) = archive.reader(count - 1) {
            let mut sink = Vec::new();
            let _ = r.read_to_end(&mut sink);
        }
    }
});
