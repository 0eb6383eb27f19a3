//! Any bytes as zip entries written on one thread and on two: the same
//! archive bytes, or an error on both, in a sink that seeks and in one that
//! does not; and a written archive reads back, every entry's bytes, through
//! the central directory and (without it) forward only.
//!
//! Input: `[knobs, (control, control, data…) separated by 0xFF…]`. The
//! knobs choose the sink and the memory budget (so the job limit: entries
//! are held, compressed on a worker, or streamed on the calling thread);
//! each entry's two control bytes choose its kind, name, method, level,
//! store-if-larger, a given (maybe wrong) size and CRC-32, the size of the
//! writes and how many times its data repeats (up to about 256 KiB).
#![no_main]

use std::io::{Cursor, Read, Write};

use libfuzzer_sys::fuzz_target;
use lzflow_zip::{
    EntryOptions, WriteMethod, ZipArchive, ZipError, ZipStreamReader, ZipWriter, ZipWriterOptions,
};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    File,
    Dir,
    Symlink,
}

struct Entry {
    name: String,
    kind: Kind,
    data: Vec<u8>,
    opts: EntryOptions,
    /// Bytes per write.
    step: usize,
}

const TARGET: &str = "../target";

fn entries(data: &[u8]) -> Vec<Entry> {
    let mut out = Vec::new();
    for piece in data.split(|&b| b == 0xFF).take(10) {
        let [c, d, ref bytes @ ..] = *piece else {
            continue;
        };
        let kind = match d >> 5 {
            7 => Kind::Dir,
            6 => Kind::Symlink,
            _ => Kind::File,
        };
        // Few names, so that some repeat (an error on both sides).
        let name = format!("d{}/f{}", c % 3, (c >> 2) % 7);
        let mut body = bytes.to_vec();
        for _ in 0..(d >> 2) & 7 {
            if body.is_empty() || body.len() > 128 << 10 {
                break;
            }
            let copy = body.clone();
            body.extend(copy.iter().map(|b| b.wrapping_add(d)));
        }
        let level = 1 + u32::from(c >> 5 & 1);
        let mut opts = EntryOptions::default()
            .with_method(
                WriteMethod::ALL[usize::from(c >> 6) + usize::from(d & 3) % 3],
                level,
            )
            .with_store_if_larger(d & 0x10 != 0);
        if c & 0x20 != 0 && kind == Kind::File {
            let crc = crc32fast::hash(&body) ^ u32::from(d & 0x20 != 0);
            opts = opts.with_size_and_crc(body.len() as u64, crc);
        }
        let data = match kind {
            Kind::File => body,
            Kind::Symlink => TARGET.as_bytes().to_vec(),
            Kind::Dir => Vec::new(),
        };
        out.push(Entry {
            name,
            kind,
            data,
            opts,
            step: 1 + usize::from(d) * 211,
        });
    }
    out
}

fn add_all<W: Write>(w: &mut ZipWriter<W>, entries: &[Entry]) -> Result<(), ZipError> {
    for e in entries {
        match e.kind {
            Kind::Dir => w.add_directory(&e.name, &e.opts)?,
            Kind::Symlink => w.add_symlink(&e.name, TARGET, &e.opts)?,
            Kind::File => {
                w.start_entry(&e.name, &e.opts)?;
                for c in e.data.chunks(e.step) {
                    w.write_all(c)?;
                }
            }
        }
    }
    Ok(())
}

/// The archive, or the first error.
fn write(
    entries: &[Entry],
    seekable: bool,
    threads: usize,
    budget: usize,
) -> Result<Vec<u8>, ZipError> {
    let options = ZipWriterOptions::new()
        .with_threads(threads)
        .with_memory_budget(budget);
    Ok(if seekable {
        let mut w = ZipWriter::new_with(Cursor::new(Vec::new()), options)?;
        add_all(&mut w, entries)?;
        w.finish()?.into_inner()
    } else {
        let mut w = ZipWriter::new_streaming_with(Vec::new(), options)?;
        add_all(&mut w, entries)?;
        w.finish()?
    })
}

/// What each entry reads back as: its name (directories with a `/`) and
/// its bytes.
fn expected(entries: &[Entry]) -> Vec<(String, Vec<u8>)> {
    entries
        .iter()
        .map(|e| match e.kind {
            Kind::Dir => (format!("{}/", e.name), Vec::new()),
            _ => (e.name.clone(), e.data.clone()),
        })
        .collect()
}

fuzz_target!(|data: &[u8]| {
    let [knobs, ref rest @ ..] = *data else {
        return;
    };
    let seekable = knobs & 1 != 0;
    let budget = [64 << 10, 256 << 10, 1 << 20, 32 << 20][usize::from(knobs >> 1 & 3)];
    let entries = entries(rest);
    let one = write(&entries, seekable, 1, budget);
    let two = write(&entries, seekable, 2, budget);
    // Both fail, or both give the same bytes. Which error comes first may
    // differ: an entry's error on a worker (a wrong size or CRC-32 given
    // ahead) shows when the entry is written, so a later entry's name
    // already in the archive can be seen first.
    let (archive, other) = match (one, two) {
        (Ok(a), Ok(b)) => (a, b),
        (Err(_), Err(_)) => return,
        (one, two) => panic!(
            "one thread: {:?}; two: {:?}",
            one.map(|v| v.len()),
            two.map(|v| v.len())
        ),
    };
    assert!(archive == other, "the bytes differ");
    let want = expected(&entries);

    let mut zip = ZipArchive::open(Cursor::new(&archive[..])).expect("reads its own archive");
    assert_eq!(zip.len(), want.len());
    for (i, (name, bytes)) in want.iter().enumerate() {
        let got_name = zip.directory().get(i).expect("listed").name().into_owned();
        assert_eq!(&got_name, name);
        let mut got = Vec::new();
        zip.reader(i)
            .expect("opens its own entry")
            .read_to_end(&mut got)
            .expect("reads its own entry");
        assert!(
            got == *bytes,
            "entry {i}: {} bytes, want {}",
            got.len(),
            bytes.len()
        );
    }

    let mut stream = ZipStreamReader::new(&archive[..]);
    for (i, (name, bytes)) in want.iter().enumerate() {
        let mut e = stream
            .next_entry()
            .expect("streams its own archive")
            .expect("every entry");
        assert_eq!(&e.name(), name);
        let mut got = Vec::new();
        e.read_to_end(&mut got).expect("streams its own entry");
        assert!(
            got == *bytes,
            "streamed entry {i}: {} bytes, want {}",
            got.len(),
            bytes.len()
        );
    }
    assert!(stream.next_entry().expect("ends cleanly").is_none());
});
