//! `ZipWriter`: what it writes reads back byte for byte through both of
//! lzflow's readers and through the reference tools (`unzip -t`, `7zz t`,
//! Python's `zipfile`), in a sink that seeks and in one that does not;
//! a sink that fails never leaves an archive that looks complete.
#![cfg(unix)]

use std::io::{self, Cursor, Read, Write};
use std::time::{Duration, UNIX_EPOCH};

use lzflow_zip::{
    AesStrength, Encryption, EntryOptions, WriteMethod, ZipArchive, ZipError, ZipOptions,
    ZipStreamReader, ZipWriter, ZipWriterOptions,
};

mod common;
use common::{have, run, tool, Rng, TempDir};

/// Entry sizes around what the writer holds in memory (64 KiB).
const SIZES: [usize; 5] = [0, 1, 5000, 65_536, 200_000];

fn mtime() -> std::time::SystemTime {
    UNIX_EPOCH + Duration::from_secs(1_683_356_890)
}

/// An entry to write and expect back.
struct Item {
    name: String,
    data: Vec<u8>,
    options: EntryOptions,
}

fn items(method: WriteMethod, encryption: &Encryption, seed: u64) -> Vec<Item> {
    let mut rng = Rng(seed);
    SIZES
        .iter()
        .enumerate()
        .map(|(i, &n)| Item {
            name: format!("dir/{i}-{n}.{}", if i % 2 == 0 { "txt" } else { "bin" }),
            data: if i % 2 == 0 {
                rng.text(n)
            } else {
                rng.bytes(n)
            },
            options: EntryOptions::default()
                .with_method(method, 6)
                .with_mtime(mtime())
                .with_unix_mode(0o640)
                .with_encryption(encryption.clone()),
        })
        .collect()
}

fn write_items(items: &[Item], seekable: bool) -> Vec<u8> {
    fn fill<W: Write>(mut w: ZipWriter<W>, items: &[Item]) -> W {
        w.add_directory("dir", &EntryOptions::default().with_mtime(mtime()))
            .unwrap();
        for item in items {
            w.add_file(&item.name, &item.data[..], &item.options)
                .unwrap();
        }
        w.add_symlink("link", "dir/0-0.txt", &EntryOptions::default())
            .unwrap();
        w.finish().unwrap()
    }
    if seekable {
        fill(ZipWriter::new(Cursor::new(Vec::new())).unwrap(), items).into_inner()
    } else {
        fill(ZipWriter::new_streaming(Vec::new()).unwrap(), items)
    }
}

/// Every entry's (name, data) through `ZipArchive`, and the same through
/// `ZipStreamReader`.
fn read_both(zip: &[u8], password: Option<&[u8]>) -> Vec<(String, Vec<u8>)> {
    let mut options = ZipOptions::new();
    if let Some(p) = password {
        options = options.with_password(p);
    }
    let mut a = ZipArchive::open_with(Cursor::new(zip), options.clone()).unwrap();
    let mut seekable = Vec::new();
    for i in 0..a.len() {
        let name = a.directory().get(i).unwrap().name().into_owned();
        let mut data = Vec::new();
        a.reader(i)
            .unwrap_or_else(|e| panic!("{name}: {e:?}"))
            .read_to_end(&mut data)
            .unwrap_or_else(|e| panic!("{name}: {e:?}"));
        seekable.push((name, data));
    }
    let mut z = ZipStreamReader::with_options(zip, options);
    let mut streamed = Vec::new();
    while let Some(mut e) = z.next_entry().unwrap() {
        let name = e.name().into_owned();
        let mut data = Vec::new();
        e.read_to_end(&mut data)
            .unwrap_or_else(|err| panic!("{name}: {err:?}"));
        streamed.push((name, data));
    }
    assert_eq!(streamed, seekable);
    seekable
}

fn expected(items: &[Item]) -> Vec<(String, Vec<u8>)> {
    let mut want = vec![("dir/".to_string(), Vec::new())];
    want.extend(items.iter().map(|i| (i.name.clone(), i.data.clone())));
    want.push(("link".to_string(), b"dir/0-0.txt".to_vec()));
    want
}

fn encryptions() -> Vec<(Encryption, Option<&'static [u8]>)> {
    let password = |p: &[u8]| zeroize::Zeroizing::new(p.to_vec());
    vec![
        (Encryption::None, None),
        (
            Encryption::Aes {
                strength: AesStrength::Aes256,
                ae1: false,
                password: password(b"secret"),
            },
            Some(b"secret"),
        ),
        (
            Encryption::Aes {
                strength: AesStrength::Aes128,
                ae1: true,
                password: password(b"secret"),
            },
            Some(b"secret"),
        ),
        (
            Encryption::ZipCryptoWeak {
                password: password(b"secret"),
            },
            Some(b"secret"),
        ),
    ]
}

#[test]
fn every_method_and_encryption_reads_back_from_either_kind_of_sink() {
    for method in WriteMethod::ALL {
        for (encryption, password) in encryptions() {
            let items = items(method, &encryption, 7);
            for seekable in [true, false] {
                let zip = write_items(&items, seekable);
                eprintln!("{method:?} {encryption:?} seekable {seekable}");
                let got = read_both(&zip, password);
                assert_eq!(
                    got,
                    expected(&items),
                    "{method:?} {encryption:?} seekable {seekable}"
                );
                // Metadata as given.
                let a = ZipArchive::open_with(
                    Cursor::new(&zip[..]),
                    ZipOptions::new().with_password("secret"),
                )
                .unwrap();
                let e = a.directory().get(1).unwrap();
                assert_eq!(e.unix_mode(), Some(0o100_640));
                assert_eq!(e.mtime(), Some(mtime()));
                assert!(a.directory().get(0).unwrap().is_dir());
                assert!(a.directory().get(a.len() - 1).unwrap().is_symlink());
                // A sink that seeks gets no data descriptors.
                for e in a.directory().iter() {
                    let zip_crypto = matches!(encryption, Encryption::ZipCryptoWeak { .. });
                    if seekable && !zip_crypto {
                        assert!(!e.has_data_descriptor(), "{}", e.name());
                    }
                }
            }
        }
    }
}

#[test]
fn small_entries_carry_their_sizes_even_when_streamed() {
    let items = items(WriteMethod::Deflate, &Encryption::None, 3);
    let zip = write_items(&items, false);
    let mut z = ZipStreamReader::new(&zip[..]);
    while let Some(e) = z.next_entry().unwrap() {
        let local = e.local();
        let held = local.size().is_some_and(|n| n <= 65_536);
        assert_eq!(
            !local.header().has_data_descriptor(),
            held,
            "{}",
            local.name()
        );
    }
}

#[test]
fn a_stored_entry_with_its_size_given_needs_no_descriptor() {
    let data = Rng(5).bytes(300_000);
    let crc = crc32fast::hash(&data);
    let mut w = ZipWriter::new_streaming(Vec::new()).unwrap();
    let opts = EntryOptions::default()
        .with_method(WriteMethod::Stored, 0)
        .with_size_and_crc(data.len() as u64, crc);
    w.add_file("big.bin", &data[..], &opts).unwrap();
    let zip = w.finish().unwrap();
    let mut z = ZipStreamReader::new(&zip[..]);
    let described = z
        .next_entry()
        .unwrap()
        .unwrap()
        .local()
        .header()
        .has_data_descriptor();
    assert!(!described);
    assert_eq!(read_both(&zip, None)[0].1, data);
    // Data that contradicts what was given is refused.
    let mut w = ZipWriter::new_streaming(Vec::new()).unwrap();
    let r = w.add_file("big.bin", &data[..1000], &opts);
    let r = r.and_then(|()| w.finish().map(drop));
    assert!(matches!(r, Err(ZipError::Usage(_))), "{r:?}");
}

#[test]
fn names_and_comments_are_checked() {
    let mut w = ZipWriter::new_streaming(Vec::new()).unwrap();
    let o = EntryOptions::default();
    w.add_file("a", &b"1"[..], &o).unwrap();
    assert!(matches!(
        w.add_file("a", &b"2"[..], &o),
        Err(ZipError::Usage(_))
    ));
    let long = ZipWriterOptions::new().with_comment("x".repeat(70_000));
    assert!(matches!(
        ZipWriter::new_streaming_with(Vec::new(), long),
        Err(ZipError::Usage(_))
    ));
}

/// A sink that takes `left` bytes, then fails.
struct Failing {
    left: usize,
    got: Vec<u8>,
}

impl Write for Failing {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        if self.left == 0 {
            return Err(io::Error::other("disk full"));
        }
        let n = buf.len().min(self.left);
        self.left -= n;
        self.got.extend_from_slice(&buf[..n]);
        Ok(n)
    }
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

#[test]
fn a_failing_sink_never_leaves_an_archive_that_looks_complete() {
    let items = items(WriteMethod::Deflate, &Encryption::None, 11);
    let whole = {
        let mut w = ZipWriter::new_streaming(Vec::new()).unwrap();
        for item in &items {
            w.add_file(&item.name, &item.data[..], &item.options)
                .unwrap();
        }
        w.finish().unwrap().len()
    };
    for left in (0..whole).step_by(997).chain([whole - 22, whole - 1]) {
        let mut sink = Failing {
            left,
            got: Vec::new(),
        };
        let result = (|| {
            let mut w = ZipWriter::new_streaming(&mut sink)?;
            for item in &items {
                w.add_file(&item.name, &item.data[..], &item.options)?;
            }
            w.finish().map(drop)
        })();
        assert!(result.is_err(), "{left}");
        assert!(
            ZipArchive::open(Cursor::new(&sink.got[..])).is_err(),
            "{left}: a cut archive opened"
        );
    }
}

#[test]
fn many_entries_get_zip64_end_records() {
    let mut w = ZipWriter::new(Cursor::new(Vec::new())).unwrap();
    let o = EntryOptions::default().with_method(WriteMethod::Stored, 0);
    for i in 0..70_000u32 {
        w.add_file(&format!("{i}"), &i.to_le_bytes()[..], &o)
            .unwrap();
    }
    let zip = w.finish().unwrap().into_inner();
    let mut a = ZipArchive::open(Cursor::new(&zip[..])).unwrap();
    assert_eq!(a.len(), 70_000);
    let mut data = Vec::new();
    a.reader(69_999).unwrap().read_to_end(&mut data).unwrap();
    assert_eq!(data, 69_999u32.to_le_bytes());
    if have("python3", "many_entries_get_zip64_end_records") {
        let dir = TempDir::new("write-zip64");
        let path = dir.0.join("many.zip");
        std::fs::write(&path, &zip).unwrap();
        let out = run(
            tool("python3")
                .args([
                    "-c",
                    "import sys, zipfile; z = zipfile.ZipFile(sys.argv[1]); \
                 assert z.testzip() is None; print(len(z.namelist()))",
                ])
                .arg(&path),
            "python3 zipfile",
        );
        assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), "70000");
    }
}

/// The reference tools accept what the writer makes.
#[test]
fn the_reference_tools_read_what_we_write() {
    let test = "the_reference_tools_read_what_we_write";
    let dir = TempDir::new("write-tools");
    for method in WriteMethod::ALL {
        for (encryption, password) in encryptions() {
            let items = items(method, &encryption, 13);
            for seekable in [true, false] {
                let zip = write_items(&items, seekable);
                let path = dir.0.join(format!(
                    "{method:?}-{}-{seekable}.zip",
                    match &encryption {
                        Encryption::None => "plain",
                        Encryption::Aes { ae1: false, .. } => "ae2",
                        Encryption::Aes { .. } => "ae1",
                        Encryption::ZipCryptoWeak { .. } => "zipcrypto",
                    }
                ));
                std::fs::write(&path, &zip).unwrap();
                let what = path.display().to_string();
                if have("7zz", test) {
                    let mut c = tool("7zz");
                    c.arg("t").arg(&path);
                    if let Some(p) = password {
                        c.arg(format!("-p{}", String::from_utf8_lossy(p)));
                    }
                    run(&mut c, &format!("7zz t {what}"));
                }
                // unzip knows Stored, Deflate and BZip2, and ZipCrypto.
                let unzip_knows = matches!(
                    method,
                    WriteMethod::Stored | WriteMethod::Deflate | WriteMethod::BZip2
                ) && !matches!(encryption, Encryption::Aes { .. });
                if unzip_knows && have("unzip", test) {
                    let mut c = tool("unzip");
                    c.arg("-tq");
                    if let Some(p) = password {
                        c.arg("-P").arg(String::from_utf8_lossy(p).as_ref());
                    }
                    run(c.arg(&path), &format!("unzip -t {what}"));
                }
                // Python: no AES, no ZipCrypto needed; Deflate, BZip2, LZMA.
                let python_knows = !matches!(method, WriteMethod::Xz | WriteMethod::Ppmd)
                    && matches!(encryption, Encryption::None);
                if python_knows && have("python3", test) {
                    run(
                        tool("python3")
                            .args([
                                "-c",
                                "import sys, zipfile; z = zipfile.ZipFile(sys.argv[1]); \
                                 bad = z.testzip(); assert bad is None, bad",
                            ])
                            .arg(&path),
                        &format!("python3 zipfile {what}"),
                    );
                }
            }
        }
    }
}

/// What a streaming writer sends down a pipe, `unzip` reads from the file
/// it lands in.
#[test]
fn unzip_reads_an_archive_written_into_a_pipe() {
    let test = "unzip_reads_an_archive_written_into_a_pipe";
    if !have("unzip", test) {
        return;
    }
    let dir = TempDir::new("write-pipe");
    let path = dir.0.join("piped.zip");
    let mut child = tool("sh")
        .arg("-c")
        .arg("cat > \"$1\"")
        .arg("sh")
        .arg(&path)
        .stdin(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let stdin = child.stdin.take().unwrap();
    let items = items(WriteMethod::Deflate, &Encryption::None, 17);
    let mut w = ZipWriter::new_streaming(stdin).unwrap();
    for item in &items {
        w.add_file(&item.name, &item.data[..], &item.options)
            .unwrap();
    }
    drop(w.finish().unwrap());
    assert!(child.wait().unwrap().success());
    run(tool("unzip").arg("-tq").arg(&path), "unzip -t piped.zip");
}

/// `store_if_larger` stores what Deflate cannot shrink, and an AES entry
/// names the method it chose inside its AES block.
#[test]
fn data_that_does_not_shrink_is_stored_when_asked() {
    let noise = Rng(23).bytes(50_000);
    let text = Rng(23).text(50_000);
    for (encryption, password) in encryptions().into_iter().take(2) {
        let mut w = ZipWriter::new(Cursor::new(Vec::new())).unwrap();
        let o = EntryOptions::default()
            .with_store_if_larger(true)
            .with_encryption(encryption);
        w.add_file("noise", &noise[..], &o).unwrap();
        w.add_file("text", &text[..], &o).unwrap();
        let zip = w.finish().unwrap().into_inner();
        let mut options = ZipOptions::new();
        if let Some(p) = password {
            options = options.with_password(p);
        }
        let a = ZipArchive::open_with(Cursor::new(&zip[..]), options).unwrap();
        let method = |i: usize| {
            let e = a.directory().get(i).unwrap();
            e.aes().map_or(e.method(), |aes| aes.method)
        };
        assert_eq!((method(0), method(1)), (0, 8), "{password:?}");
        assert_eq!(read_both(&zip, password)[0].1, noise);
    }
}

/// An entry too long to hold for `store_if_larger` (over 1 MiB) is judged
/// by its first 64 KiB: noise is stored (a seekable sink) or kept in
/// Deflate's stored blocks (a sink that cannot seek, where Stored would
/// need a descriptor), text is compressed. Without the option, Deflate at
/// level 1 (zlib-rs's fixed Huffman codes) makes noise 6 % larger.
#[test]
fn a_long_entry_that_does_not_shrink_is_stored_when_asked() {
    let noise = Rng(29).bytes(3 << 20);
    let text = Rng(29).text(3 << 20);
    let entry = |zip: &[u8], name: &str| {
        let a = ZipArchive::open(Cursor::new(zip)).unwrap();
        let e = a.directory().iter().find(|e| e.name() == name).unwrap();
        (e.method(), e.compressed_size(), e.uncompressed_size())
    };
    for level in [1, 6] {
        for seekable in [true, false] {
            let what = format!("level {level}, seekable {seekable}");
            let o = EntryOptions::default().with_method(WriteMethod::Deflate, level);
            let write = |o: &EntryOptions| {
                let fill = |w: &mut dyn FnMut(&str, &[u8])| {
                    w("noise", &noise);
                    w("text", &text);
                };
                if seekable {
                    let mut z = ZipWriter::new(Cursor::new(Vec::new())).unwrap();
                    fill(&mut |n, d| z.add_file(n, d, o).unwrap());
                    z.finish().unwrap().into_inner()
                } else {
                    let mut z = ZipWriter::new_streaming(Vec::new()).unwrap();
                    fill(&mut |n, d| z.add_file(n, d, o).unwrap());
                    z.finish().unwrap()
                }
            };
            let plain = write(&o);
            let (method, packed, size) = entry(&plain, "noise");
            assert_eq!((method, size), (8, noise.len() as u64), "{what}");
            if level == 1 {
                assert!(packed > size + size / 20, "{what}: {packed}");
            }

            let zip = write(&o.clone().with_store_if_larger(true));
            let (method, packed, _) = entry(&zip, "noise");
            if seekable {
                assert_eq!((method, packed), (0, noise.len() as u64), "{what}");
            } else {
                // 5 bytes of stored-block header per block (zlib-rs's hold
                // 32 KiB) and the end.
                assert_eq!(method, 8, "{what}");
                assert!(packed <= size + 5 * (size / 16_384 + 2), "{what}: {packed}");
            }
            let (method, packed, _) = entry(&zip, "text");
            assert_eq!(method, 8, "{what}");
            assert!(packed < text.len() as u64 / 2, "{what}: {packed}");
            let got = read_both(&zip, None);
            assert_eq!(got[0], ("noise".to_string(), noise.clone()), "{what}");
            assert_eq!(got[1], ("text".to_string(), text.clone()), "{what}");
        }
    }
    // Encrypted, the AES block names the method chosen.
    let (aes, password) = encryptions().swap_remove(1);
    let o = EntryOptions::default()
        .with_method(WriteMethod::Deflate, 1)
        .with_store_if_larger(true)
        .with_encryption(aes);
    let mut w = ZipWriter::new(Cursor::new(Vec::new())).unwrap();
    w.add_file("noise", &noise[..], &o).unwrap();
    let zip = w.finish().unwrap().into_inner();
    let options = ZipOptions::new().with_password(password.unwrap());
    let a = ZipArchive::open_with(Cursor::new(&zip[..]), options).unwrap();
    let e = a.directory().get(0).unwrap();
    assert_eq!(e.aes().map(|aes| aes.method), Some(0));
    assert_eq!(read_both(&zip, password)[0].1, noise);
}

/// A reader that gives `len` bytes of text, then fails.
struct FailingReader(usize);

impl Read for FailingReader {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if self.0 == 0 {
            return Err(io::Error::other("the disk went away"));
        }
        let n = self.0.min(buf.len());
        buf[..n].fill(b'a');
        self.0 -= n;
        Ok(n)
    }
}

/// A source that fails while its entry is held in memory loses only that
/// entry; one that fails after its entry reached the sink fails the
/// archive, and no end record follows.
#[test]
fn a_failing_source_drops_its_entry_or_fails_the_archive() {
    let mut w = ZipWriter::new_streaming(Vec::new()).unwrap();
    let opts = EntryOptions::default();
    w.add_file("a", &b"alpha"[..], &opts).unwrap();
    let r = w.add_file("broken", FailingReader(1000), &opts);
    assert!(matches!(r, Err(ZipError::Io(_))), "{r:?}");
    // The name is free again: the entry was dropped whole.
    w.add_file("broken", &b"mended"[..], &opts).unwrap();
    let zip = w.finish().unwrap();
    assert_eq!(
        read_both(&zip, None),
        vec![
            ("a".to_string(), b"alpha".to_vec()),
            ("broken".to_string(), b"mended".to_vec())
        ]
    );
    for threads in [1, 2] {
        let o = ZipWriterOptions::new().with_threads(threads);
        let mut w = ZipWriter::new_streaming_with(Vec::new(), o).unwrap();
        w.add_file("a", &b"alpha"[..], &opts).unwrap();
        let r = w.add_file("big", FailingReader(5 << 20), &opts);
        assert!(matches!(r, Err(ZipError::Io(_))), "{r:?}");
        let r = w.add_file("c", &b"c"[..], &opts).map(drop);
        assert!(matches!(r, Err(ZipError::Usage(_))), "{r:?}");
        match w.finish() {
            Err(ZipError::Usage(_)) => {}
            other => panic!("{threads} threads: {other:?}"),
        }
    }
}

/// Reads an archive both ways `java.util.zip` can: `ZipFile` (the central
/// directory) and `ZipInputStream` (local headers, forward only); prints
/// each entry's name, size and CRC-32 of the bytes read, per way.
const JAVA_READER: &str = r#"
import java.io.*;
import java.util.zip.*;

public class ReadZip {
    static String line(String name, InputStream in) throws IOException {
        CRC32 crc = new CRC32();
        byte[] buf = new byte[8192];
        long size = 0;
        for (int n; (n = in.read(buf)) > 0; size += n) crc.update(buf, 0, n);
        return name + " " + size + " " + Long.toHexString(crc.getValue());
    }
    public static void main(String[] args) throws IOException {
        try (ZipFile z = new ZipFile(args[0])) {
            var it = z.entries();
            while (it.hasMoreElements()) {
                ZipEntry e = it.nextElement();
                System.out.println("file " + line(e.getName(), z.getInputStream(e)));
            }
        }
        try (ZipInputStream z = new ZipInputStream(new FileInputStream(args[0]))) {
            for (ZipEntry e; (e = z.getNextEntry()) != null; )
                System.out.println("stream " + line(e.getName(), z));
        }
    }
}
"#;

/// Java reads what we write with Stored and Deflate (the methods it
/// knows), from a sink that seeks and from one that does not; `jar tf`
/// lists the names. (On several threads the bytes are the same:
/// tests/parallel.rs.)
#[test]
fn java_reads_what_we_write() {
    const TEST: &str = "java_reads_what_we_write";
    if !have("java", TEST) || !have("jar", TEST) {
        return;
    }
    let dir = TempDir::new("java");
    let program = dir.0.join("ReadZip.java");
    std::fs::write(&program, JAVA_READER).unwrap();
    for method in [WriteMethod::Stored, WriteMethod::Deflate] {
        let items = items(method, &Encryption::None, 21);
        for seekable in [true, false] {
            let zip = write_items(&items, seekable);
            let path = dir.0.join(format!("{method:?}-{seekable}.zip"));
            std::fs::write(&path, &zip).unwrap();
            let what = format!("java ReadZip {}", path.display());
            let out = run(tool("java").arg(&program).arg(&path), &what);
            let mut want = Vec::new();
            for way in ["file", "stream"] {
                for (name, data) in read_both(&zip, None) {
                    let crc = crc32fast::hash(&data);
                    want.push(format!("{way} {name} {} {crc:x}", data.len()));
                }
            }
            let got: Vec<String> = String::from_utf8(out.stdout)
                .unwrap()
                .lines()
                .map(String::from)
                .collect();
            assert_eq!(got, want, "{what}");
            let out = run(tool("jar").arg("tf").arg(&path), "jar tf");
            let names: Vec<String> = String::from_utf8(out.stdout)
                .unwrap()
                .lines()
                .map(String::from)
                .collect();
            let want: Vec<String> = read_both(&zip, None).into_iter().map(|(n, _)| n).collect();
            assert_eq!(names, want, "jar tf {}", path.display());
        }
    }
}

/// What a compressor of each method allocates, as `encoder_memory` says:
/// Deflate's state is small, XZ's preset-6 dictionary and match finder
/// are not.
#[test]
fn encoder_memory_follows_the_method_and_level() {
    let memory = |m, level| {
        EntryOptions::default()
            .with_method(m, level)
            .encoder_memory()
    };
    assert!(memory(WriteMethod::Deflate, 6) < 1 << 20);
    assert!(memory(WriteMethod::Xz, 6) > 8 << 20);
    assert!(memory(WriteMethod::Lzma, 1) < memory(WriteMethod::Lzma, 9));
    // PPMd: 7-Zip's 2^(level - 1) MiB model.
    assert!(memory(WriteMethod::Ppmd, 5) > 16 << 20);
    assert!(memory(WriteMethod::Ppmd, 1) < 2 << 20);
}
