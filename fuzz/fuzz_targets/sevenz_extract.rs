//! Any input as a 7z archive, extracted to disk under each overwrite
//! policy, with or without a selection, into a target that holds a file
//! and links pointing out of it: nothing is ever written outside the
//! target, no link is followed, no setuid/setgid/sticky bit is applied,
//! no temporary file is left; and the extraction thread of the async
//! faces leaves exactly what the inline calls of the std face leave, with
//! the same result. The options come from the input's last byte.
#![no_main]

use std::io::Cursor;

use libfuzzer_sys::fuzz_target;
use lzflow_7z::{Archive, ArchiveOptions, Overwrite, PollArchive};
use lzflow_core::extract_thread::FsCalls;
use lzflow_core::source::Blocking;
use lzflow_fuzz::extract::{extract_and_check, options, park_on};
use lzflow_fuzz::LIMITS;

fuzz_target!(|data: &[u8]| {
    let opts = data.last().copied().unwrap_or(0);
    let options = options(opts);
    let overwrites = options.overwrite == Overwrite::Always;
    let archive_options = || {
        ArchiveOptions::default()
            .with_password("fixture-pass")
            .with_limits(LIMITS)
            .with_max_entries(1 << 10)
            .with_max_header_size(1 << 20)
    };
    let base = std::env::temp_dir().join(format!("lzflow-fuzz-7z-extract-{}", std::process::id()));
    let inline = extract_and_check(&base, overwrites, |target| {
        match Archive::open_with(Cursor::new(data), archive_options()) {
            Ok(mut a) => a.extract_to_with(target, &options),
            Err(_) => Ok(()),
        }
    });
    let thread = extract_and_check(&base, overwrites, |target| {
        let src = Blocking(Cursor::new(data));
        match park_on(PollArchive::open(src, archive_options())) {
            Ok(mut a) => park_on(a.extract_to_with(target, &options, FsCalls::Thread)),
            Err(_) => Ok(()),
        }
    });
    assert_eq!(inline, thread);
    let _ = std::fs::remove_dir_all(&base);
});
