//! Any input as a 7z archive, opened with a password, every entry read
//! to the end and one entry read by random access: an error or data,
//! never a panic, a hang or unbounded memory. A selective walk over some
//! of the entries gives each of them the bytes the whole walk gave it
//! (where the whole walk got that far), and so do readers of the entries
//! taken one after the other.
#![no_main]

use std::io::{Cursor, Read};

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
    // Every entry's verified bytes, in order, up to the first failure.
    let mut whole: Vec<Vec<u8>> = Vec::new();
    let whole_ok = archive
        .for_each_entry(|_, r| {
            let mut v = Vec::new();
            r.read_to_end(&mut v)?;
            whole.push(v);
            Ok(())
        })
        .is_ok();
    // Some entries, picked by the input's last byte.
    let seed = data.last().copied().unwrap_or(0) as usize;
    let picked = |i: usize| (i * 7 + seed) % 3 != 0;
    let mut order = (0..count).filter(|&i| picked(i));
    let mut failed = false;
    let r = archive.for_each_entry_where(
        |i, _| picked(i),
        |_, r| {
            let i = order.next().expect("one call per picked entry");
            let mut v = Vec::new();
            let read = r.read_to_end(&mut v);
            if let Some(want) = whole.get(i) {
                assert!(
                    read.is_ok(),
                    "entry {i}: {read:?} where the whole walk read it"
                );
                assert!(&v == want, "entry {i}: other bytes than the whole walk's");
            }
            read.map(drop).inspect_err(|_| failed = true)
        },
    );
    if let Err(e) = r {
        // A failure between picked entries (a folder's end) is allowed
        // only where the whole walk failed too.
        assert!(
            failed || !whole_ok,
            "selective walk failed ({e:?}) where the whole walk did not"
        );
    }
    // One reader per entry, in order (each going on where the one before
    // stopped in a solid folder): the whole walk's bytes. Few entries
    // only, as a reader after a failure starts its folder again.
    if count <= 64 {
        for (i, want) in whole.iter().enumerate() {
            let mut v = Vec::new();
            let read = archive
                .reader(i)
                .and_then(|mut r| Ok(r.read_to_end(&mut v)?));
            assert!(
                read.is_ok(),
                "reader({i}): {read:?} where the whole walk read it"
            );
            assert!(&v == want, "reader({i}): other bytes than the whole walk's");
        }
    }
    if count > 0 {
        // The last entry: in a solid folder, everything before it is
        // decoded and discarded first.
        if let Ok(mut r) = archive.reader(count - 1) {
            let mut sink = Vec::new();
            let _ = r.read_to_end(&mut sink);
        }
    }
});
