//! `Archive::reader`: any entry, in any order, with its exact bytes; and
//! readers of a solid folder's entries taken in order decode (and read)
//! the folder once, each going on where the one before stopped.

mod common;

use std::cell::Cell;
use std::io::{self, Cursor, Read, Seek, SeekFrom};
use std::rc::Rc;

use common::{copy_archive, Rng};
use lzflow_7z::{Archive, EntryMeta, SevenZError, Writer};

/// A source that counts the bytes read from it.
struct Counting {
    inner: Cursor<Vec<u8>>,
    read: Rc<Cell<u64>>,
}

impl Read for Counting {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.read.set(self.read.get() + n as u64);
        Ok(n)
    }
}

impl Seek for Counting {
    fn seek(&mut self, pos: SeekFrom) -> io::Result<u64> {
        self.inner.seek(pos)
    }
}

/// 120 entries of 8 KiB of text in one solid LZMA2 folder.
fn solid() -> (Vec<Vec<u8>>, Vec<u8>) {
    let mut rng = Rng::new(5);
    let files: Vec<Vec<u8>> = (0..120).map(|_| common::text(&mut rng, 8 << 10)).collect();
    let mut w = Writer::new(Cursor::new(Vec::new())).unwrap();
    for (i, data) in files.iter().enumerate() {
        w.add_file(&format!("f{i:03}"), &data[..], EntryMeta::default())
            .unwrap();
    }
    (files, w.finish().unwrap().into_inner())
}

fn read(a: &mut Archive<Counting>, i: usize) -> Vec<u8> {
    let mut v = Vec::new();
    a.reader(i).unwrap().read_to_end(&mut v).unwrap();
    v
}

#[test]
fn readers_taken_in_order_decode_a_solid_folder_once() {
    let (files, archive) = solid();
    let counted = Rc::new(Cell::new(0));
    let source = Counting {
        inner: Cursor::new(archive.clone()),
        read: Rc::clone(&counted),
    };
    let mut a = Archive::open(source).unwrap();
    assert_eq!(a.index().folder_count(), 1);
    let packed = a.index().folder_packed_size(0);
    counted.set(0);
    for (i, want) in files.iter().enumerate() {
        assert_eq!(&read(&mut a, i), want, "entry {i}");
    }
    // Once through the packed stream (each read asks for what the
    // decoder's buffer holds, at most 64 KiB past the end); from the start
    // for each reader it would be about 60 times that.
    assert!(
        counted.get() <= packed + (64 << 10),
        "{} bytes read for a packed stream of {packed}",
        counted.get()
    );

    // Any order still gives each entry its bytes: back to the start, a
    // reader dropped halfway, a walk in between (which moves the source).
    assert_eq!(read(&mut a, 3), files[3]);
    let mut half = vec![0; 4096];
    a.reader(10).unwrap().read_exact(&mut half).unwrap();
    assert_eq!(half, files[10][..4096]);
    assert_eq!(read(&mut a, 11), files[11]);
    let mut walked = 0;
    a.for_each_entry(|_, _| {
        walked += 1;
        Ok(())
    })
    .unwrap();
    assert_eq!(walked, files.len());
    assert_eq!(read(&mut a, 12), files[12]);
    assert_eq!(read(&mut a, 12), files[12], "the same entry again");
    assert_eq!(read(&mut a, 119), files[119]);
    assert_eq!(read(&mut a, 0), files[0]);
}

#[test]
fn a_reader_that_failed_hands_nothing_on() {
    let archive = copy_archive(&[("one", b"first"), ("two", b"second"), ("three", b"third")]);
    let mut bad = archive;
    // "second" starts at 32 + 5.
    bad[32 + 6] ^= 0x01;
    let mut a = Archive::open(Cursor::new(bad)).unwrap();
    let mut v = Vec::new();
    let err = a.reader(1).unwrap().read_to_end(&mut v).unwrap_err();
    let err = err.into_inner().unwrap().downcast::<SevenZError>().unwrap();
    assert!(matches!(*err, SevenZError::DataCrc { .. }), "{err:?}");
    let mut v = Vec::new();
    a.reader(2).unwrap().read_to_end(&mut v).unwrap();
    assert_eq!(v, b"third");
    let mut v = Vec::new();
    a.reader(0).unwrap().read_to_end(&mut v).unwrap();
    assert_eq!(v, b"first");
}
