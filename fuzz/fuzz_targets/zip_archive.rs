//! Any input as a zip archive read through its central directory
//! (password `fixture-pass`, 256 MiB memory and 64 MiB output limits):
//! open, look at every entry's metadata, read every entry to its end.
//! An error or data, never a panic, a hang or unbounded memory; and an
//! entry read without error has the size and (unless it is WinZip AE-2,
//! which stores none) the CRC-32 the central directory gives it.
#![no_main]

use std::io::{self, Cursor, Read, Write};

use libfuzzer_sys::fuzz_target;
use lzflow_fuzz::zip_options;
use lzflow_zip::{AesVendorVersion, CentralEntry, ZipArchive};

/// Counts and checksums what is written to it.
struct Digest {
    len: u64,
    crc: crc32fast::Hasher,
}

impl Write for Digest {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.len += buf.len() as u64;
        self.crc.update(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// Whether the entry's data is checked against its CRC-32 field: all but
/// WinZip AE-2 entries.
fn has_crc(e: &CentralEntry<'_>) -> bool {
    !(e.is_encrypted()
        && e.method() == 99
        && e.aes().is_some_and(|a| a.version == AesVendorVersion::Ae2))
}

fuzz_target!(|data: &[u8]| {
    let Ok(mut archive) = ZipArchive::open_with(Cursor::new(data), zip_options()) else {
        return;
    };
    // The metadata accessors, on whatever the directory holds.
    for e in archive.directory().iter() {
        let _ = (e.name(), e.comment(), e.unix_mode(), e.is_symlink());
        let _ = (e.is_dir(), e.mtime(), e.aes(), e.local_header_offset());
    }
    for i in 0..archive.len() {
        let (size, crc, check_crc) = {
            let e = archive.directory().get(i).expect("index below len");
            (e.uncompressed_size(), e.crc32(), has_crc(&e))
        };
        let Ok(mut r) = archive.reader(i) else {
            continue;
        };
        let mut out = Digest {
            len: 0,
            crc: crc32fast::Hasher::new(),
        };
        // Odd-sized reads from the entry, not just io::copy's 8 KiB.
        let mut buf = vec![0u8; 1 + data.len() % 4093];
        let ok = loop {
            match r.read(&mut buf) {
                Ok(0) => break true,
                Ok(n) => out.write_all(&buf[..n]).expect("digest writes"),
                Err(_) => break false,
            }
        };
        if ok {
            assert_eq!(out.len, size, "entry {i} read in full with another size");
            if check_crc {
                let got = out.crc.finalize();
                assert_eq!(got, crc, "entry {i} read in full with another CRC-32");
            }
        }
        // After its end (or its error) the reader stays there.
        if ok {
            assert!(matches!(r.read(&mut buf), Ok(0)), "data after the end");
        }
    }
});
