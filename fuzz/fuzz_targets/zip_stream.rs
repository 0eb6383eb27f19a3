//! Any input as a zip archive read forward-only ([`ZipStreamReader`],
//! password `fixture-pass`, 256 MiB memory and 64 MiB output limits):
//! every entry read to its end. An error or data, never a panic, a hang or
//! unbounded memory; and split independence: the entries read to their end
//! (names, sizes and hashes of their data), the bytes used, and where and
//! with which error reading stopped are the same whether the input arrives
//! whole or in odd pieces, and whether the entries are read into a large
//! buffer or in odd small reads.
//!
//! One exception, for errors only: when one of the two errors is
//! `Truncated`, a WinZip AES authentication failure, an entry's data
//! being longer or shorter than its size, or the compression-ratio limit,
//! the other may be another error at the same entry. Which of two faults
//! of one entry is met first depends on the split: the size and ratio
//! checks run on what each decoder call made (the ratio against the stored
//! bytes taken so far, which Deflate64 takes in 64 KiB pieces), the end of
//! the input is seen before the decoder has given what
//! it holds, and the AES stage checks the authentication code when it has
//! decrypted ahead to the end, before or after the decompressor fails on
//! the altered data (see the ignored `fuzz_zip_stream_*` tests in
//! `crates/lzflow-zip/tests/mutation.rs`).
//! Set `LZFLOW_FUZZ_STRICT_ERRORS=1` to compare those errors' text too.
//!
//! Input layout: `[pattern, zip bytes]`; the low nibble of `pattern`
//! picks the input piece sizes, the high nibble the entry read sizes.
#![no_main]

use std::hash::Hasher;
use std::io::{self, Cursor, Read};

use libfuzzer_sys::fuzz_target;
use lzflow_fuzz::zip_options;
use lzflow_zip::{LimitExceeded, ZipError, ZipStreamReader};

/// Piece sizes the input arrives in, cycled.
const INPUT_SPLITS: [&[usize]; 16] = [
    &[1],
    &[2, 3, 5, 7],
    &[13, 1, 4096],
    &[4095, 1],
    &[31],
    &[1, 1, 1, 64],
    &[511, 3],
    &[7, 65536],
    &[29, 30, 31],
    &[46, 1, 22],
    &[4, 26, 2],
    &[12, 16],
    &[8191, 2, 9],
    &[3],
    &[65537, 1],
    &[100, 200, 300, 1],
];

/// Entry read sizes, cycled.
const OUTPUT_SPLITS: [&[usize]; 16] = [
    &[1],
    &[7],
    &[4096],
    &[3, 1000],
    &[65536],
    &[1, 2, 3, 4, 5],
    &[32767, 1],
    &[17, 8192],
    &[2],
    &[511],
    &[13, 13, 300],
    &[1 << 20],
    &[9, 1],
    &[255, 256, 257],
    &[5000],
    &[64, 1],
];

/// A reader that gives at most the next piece size per call.
struct Pieces<'a> {
    data: &'a [u8],
    sizes: std::iter::Cycle<std::slice::Iter<'static, usize>>,
}

impl Read for Pieces<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.sizes.next().copied().unwrap_or(1);
        let n = n.min(buf.len()).min(self.data.len());
        buf[..n].copy_from_slice(&self.data[..n]);
        self.data = &self.data[n..];
        Ok(n)
    }
}

/// How reading stopped on an error.
#[derive(Debug)]
struct Stop {
    /// The entry being read (none between entries).
    entry: Option<String>,
    /// The error's text.
    text: String,
    /// Whether the error is one that may pre-empt another fault of the
    /// same entry, depending on the split.
    racing: bool,
}

impl Stop {
    fn new(entry: Option<String>, e: ZipError) -> Self {
        let racing = match &e {
            ZipError::Truncated | ZipError::Authentication { .. } => true,
            ZipError::Corrupt(what) => what.starts_with("entry data is"),
            // Checked once per call on what it made, against the stored
            // bytes taken so far (Deflate64's decoder takes 64 KiB pieces):
            // where a damaged entry is also a bomb, which shows first
            // depends on the pieces.
            ZipError::Limit(LimitExceeded::Ratio { .. }) => true,
            _ => false,
        };
        Stop {
            entry,
            text: e.to_string(),
            racing,
        }
    }
}

impl PartialEq for Stop {
    fn eq(&self, other: &Self) -> bool {
        if self.entry != other.entry {
            return false;
        }
        self.text == other.text
            || (self.racing || other.racing)
                && std::env::var_os("LZFLOW_FUZZ_STRICT_ERRORS").is_none()
    }
}

/// What reading an archive gave, to compare.
#[derive(Debug, PartialEq)]
struct Outcome {
    /// Entries read to their end: name, size and hash of the data.
    entries: Vec<(String, u64, u64)>,
    /// How reading ended: the bytes used, or where and with what error.
    end: Result<u64, Stop>,
}

/// Reads every entry of `src` with read sizes cycling through `reads`.
fn read_all<R: Read>(src: R, reads: &'static [usize]) -> Outcome {
    let mut zip = ZipStreamReader::with_options(src, zip_options());
    let mut entries = Vec::new();
    let mut buf = vec![0u8; reads.iter().copied().max().unwrap_or(1)];
    let mut sizes = reads.iter().cycle();
    loop {
        let mut entry = match zip.next_entry() {
            Ok(Some(entry)) => entry,
            Ok(None) => break,
            Err(e) => {
                return Outcome {
                    entries,
                    end: Err(Stop::new(None, e)),
                }
            }
        };
        let name = entry.name().into_owned();
        let mut hash = std::hash::DefaultHasher::new();
        let mut len = 0u64;
        loop {
            let n = *sizes.next().expect("cycled");
            match entry.read(&mut buf[..n]) {
                Ok(0) => break,
                Ok(k) => {
                    hash.write(&buf[..k]);
                    len += k as u64;
                }
                Err(e) => {
                    return Outcome {
                        entries,
                        end: Err(Stop::new(Some(name), ZipError::from(e))),
                    }
                }
            }
        }
        entries.push((name, len, hash.finish()));
    }
    Outcome {
        entries,
        end: Ok(zip.offset()),
    }
}

fuzz_target!(|data: &[u8]| {
    let [pattern, zip @ ..] = data else {
        return;
    };
    let whole = read_all(Cursor::new(zip), &[1 << 20]);
    let pieces = Pieces {
        data: zip,
        sizes: INPUT_SPLITS[usize::from(pattern & 15)].iter().cycle(),
    };
    let split = read_all(pieces, OUTPUT_SPLITS[usize::from(pattern >> 4)]);
    assert_eq!(whole, split, "the outcome depends on the split");
});
