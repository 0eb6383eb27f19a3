//! Independent folders compressed on several threads: the archive is the
//! very archive one thread writes, whatever the thread count, method,
//! filter mix or folder sizes (held-back small folders and large ones fed
//! piece by piece); encrypted ones read back; errors and drops in the
//! middle of a folder end cleanly.

mod writer_support;

use std::io::{self, Cursor, Read};

use lzflow_7z::{EntryMeta, Method, SevenZError, Solid, Writer, WriterOptions};
use writer_support::{data, expected, read_archive, write_archive, Item, Kind};

/// Text-like data that compresses well (so folders are cheap to make).
fn text(seed: u64, n: usize) -> Vec<u8> {
    let words = data(seed, 4096);
    let mut out = Vec::with_capacity(n);
    let mut i = 0usize;
    while out.len() < n {
        let w = &words[i % 4000..i % 4000 + 3 + i % 7];
        out.extend(w.iter().map(|b| b'a' + b % 26));
        out.push(if i.is_multiple_of(11) { b'\n' } else { b' ' });
        i = i.wrapping_mul(31).wrapping_add(17) % 100_003;
    }
    out.truncate(n);
    out
}

/// Folders of every size: over the 1 MiB hold-back (fed to a worker in
/// pieces), under it (handed over whole), empty files and directories in
/// between, and an executable that automatic BCJ puts in its own folder.
fn tree() -> Vec<Item> {
    let mut elf = b"\x7fELF\x02\x01\x01".to_vec();
    elf.extend(data(9, 300_000));
    vec![
        Item::file("big/a.txt", text(1, 2_600_000)),
        Item::file("big/b.bin", data(2, 1_300_000)),
        Item::dir("big"),
        Item::file("small/1.txt", text(3, 40_000)),
        Item::file("small/2.bin", data(4, 70_000)),
        Item {
            name: "small/empty".to_string(),
            kind: Kind::Empty,
            mtime: None,
        },
        Item::file("small/3.txt", text(5, 1_500_000)),
        Item::file("tool", elf),
        Item::file("small/4.txt", text(6, 9_000)),
        Item::file("z.txt", text(7, 1_100_000)),
    ]
}

fn fast() -> WriterOptions {
    WriterOptions::default().with_level(1).with_auto_bcj(true)
}

#[test]
fn parallel_folders_write_the_single_threaded_archive() {
    let items = tree();
    let cases = [
        (Solid::Files(2), Method::Lzma2),
        (Solid::None, Method::Lzma),
        (Solid::Bytes(1 << 20), Method::Lzma2),
    ];
    for (solid, method) in cases {
        let opts = fast().with_solid(solid).with_method(method);
        let one = write_archive(&items, opts.clone());
        for threads in [2, 3, 4] {
            let many = write_archive(&items, opts.clone().with_threads(threads));
            assert!(
                many == one,
                "{solid:?} {method:?} on {threads} threads: another archive"
            );
        }
        assert_eq!(read_archive(&one, None).unwrap(), expected(&items));
    }
}

/// One solid LZMA folder cannot be split: two threads run its match
/// finder beside its encoder, and write the one-thread archive.
#[test]
fn one_lzma_folder_on_two_threads_is_the_single_threaded_archive() {
    let items = tree();
    let opts = WriterOptions::default()
        .with_level(5)
        .with_solid(Solid::All)
        .with_method(Method::Lzma);
    let one = write_archive(&items, opts.clone());
    let two = write_archive(&items, opts.with_threads(2));
    assert!(two == one, "another archive on two threads");
    assert_eq!(read_archive(&two, None).unwrap(), expected(&items));
}

#[test]
fn encrypted_parallel_folders_read_back() {
    let items = tree();
    let opts = fast()
        .with_solid(Solid::Files(1))
        .with_threads(3)
        .with_password("pw")
        .with_encrypt_header(true)
        .with_aes_cycles_power(4);
    let bytes = write_archive(&items, opts);
    assert_eq!(read_archive(&bytes, Some("pw")).unwrap(), expected(&items));
    assert!(matches!(
        read_archive(&bytes, Some("wrong")),
        Err(SevenZError::WrongPassword)
    ));
}

/// A source that gives `ok` bytes and then fails.
struct Failing {
    left: usize,
}

impl Read for Failing {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if self.left == 0 {
            return Err(io::Error::other("source broke (injected)"));
        }
        let n = buf.len().min(self.left);
        buf[..n].fill(b'x');
        self.left -= n;
        Ok(n)
    }
}

#[test]
fn a_source_error_while_workers_compress_is_reported() {
    let opts = fast().with_solid(Solid::Files(1)).with_threads(2);
    let mut w = Writer::with_options(Cursor::new(Vec::new()), opts).unwrap();
    let meta = EntryMeta::default;
    w.add_file("first", &text(1, 1_500_000)[..], meta())
        .unwrap();
    let e = w
        .add_file("second", Failing { left: 3_000_000 }, meta())
        .unwrap_err();
    assert!(matches!(&e, SevenZError::Io(io) if io.to_string().contains("injected")));
    assert!(matches!(w.finish(), Err(SevenZError::WriterUnusable(_))));
}

#[test]
fn dropping_a_writer_with_folders_in_flight_ends_its_workers() {
    for _ in 0..3 {
        let opts = fast().with_solid(Solid::Files(1)).with_threads(3);
        let mut w = Writer::with_options(Cursor::new(Vec::new()), opts).unwrap();
        w.add_file("a", &text(1, 1_200_000)[..], EntryMeta::default())
            .unwrap();
        w.begin_file("b", EntryMeta::default()).unwrap();
        w.write_data(&data(2, 2_000_000)).unwrap();
        drop(w);
    }
    // The test ends: no worker kept the process waiting on a folder.
}
