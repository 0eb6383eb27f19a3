//! Random access into `.xz` (std, tokio and futures-io faces over one
//! core): random reads equal the data, reading on needs no new seek, a read
//! in the middle of a large file reads one Block plus the Indexes, damage is
//! reported for Blocks read in full.

use std::io::{self, Cursor, Read, Seek, SeekFrom, Write};

use lzflow::seekable::SeekableXzReader;

/// Seeded text-like data with some incompressible stretches.
fn data(n: usize, seed: u64) -> Vec<u8> {
    let words = [
        "seek ", "block ", "index ", "stream ", "xz ", "\n", "offset ", "range ",
    ];
    let mut x = seed | 1;
    let mut out = Vec::with_capacity(n + 64);
    while out.len() < n {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        if x.is_multiple_of(50) {
            out.extend_from_slice(&x.to_le_bytes());
        } else {
            out.extend_from_slice(words[(x % 8) as usize].as_bytes());
        }
    }
    out.truncate(n);
    out
}

fn xz(data: &[u8], block_size: u64) -> Vec<u8> {
    let mut enc = lzflow::write::XzEncoder::builder()
        .preset(0)
        .block_size(block_size)
        .build(Vec::new());
    enc.write_all(data).unwrap();
    enc.finish().unwrap()
}

/// Two streams (the second with three Blocks) and Stream Padding between
/// and after them, and the data they hold.
fn two_streams() -> (Vec<u8>, Vec<u8>) {
    let (a, b) = (data(300_000, 1), data(200_000, 2));
    let mut file = xz(&a, 40_000);
    file.extend_from_slice(&[0; 8]);
    file.extend_from_slice(&xz(&b, 70_000));
    file.extend_from_slice(&[0; 4]);
    ([a, b].concat(), file)
}

/// A `Read + Seek` that counts seeks and bytes read.
struct Counting<R> {
    inner: R,
    seeks: usize,
    bytes: u64,
}

impl<R: Read> Read for Counting<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.bytes += n as u64;
        Ok(n)
    }
}

impl<R: Seek> Seek for Counting<R> {
    fn seek(&mut self, pos: SeekFrom) -> io::Result<u64> {
        self.seeks += 1;
        self.inner.seek(pos)
    }
}

/// Seeded (offset, length) pairs inside `len` bytes, some reaching past
/// the end.
fn spots(len: u64, n: usize) -> Vec<(u64, usize)> {
    let mut x = 0x9E37_79B9_7F4A_7C15u64;
    (0..n)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x % (len + 100), (x >> 40) as usize % 70_000)
        })
        .collect()
}

fn expected(data: &[u8], at: u64, len: usize) -> &[u8] {
    let start = (at as usize).min(data.len());
    &data[start..(start + len).min(data.len())]
}

#[test]
fn random_reads_equal_the_data_across_blocks_streams_and_padding() {
    let (data, file) = two_streams();
    let mut xz = SeekableXzReader::open(Cursor::new(file)).unwrap();
    assert_eq!(xz.len(), data.len() as u64);
    assert_eq!(xz.block_count(), 8 + 3);
    for (at, len) in spots(data.len() as u64, 200) {
        assert_eq!(xz.seek(SeekFrom::Start(at)).unwrap(), at);
        let mut got = Vec::new();
        (&mut xz).take(len as u64).read_to_end(&mut got).unwrap();
        assert_eq!(got, expected(&data, at, len), "at {at} len {len}");
    }
    // Relative seeks.
    xz.seek(SeekFrom::End(-10)).unwrap();
    let mut tail = Vec::new();
    xz.read_to_end(&mut tail).unwrap();
    assert_eq!(tail, data[data.len() - 10..]);
    xz.seek(SeekFrom::Start(1000)).unwrap();
    xz.seek(SeekFrom::Current(-500)).unwrap();
    assert_eq!(xz.stream_position().unwrap(), 500);
    assert!(xz.seek(SeekFrom::Current(-501)).is_err());
}

#[test]
fn reading_on_needs_no_new_seek_inside_a_stream() {
    let (data, file) = two_streams();
    let src = Counting {
        inner: Cursor::new(file.clone()),
        seeks: 0,
        bytes: 0,
    };
    let mut xz = SeekableXzReader::open(src).unwrap();
    let opened = xz.bytes_read();
    let mut all = Vec::new();
    xz.read_to_end(&mut all).unwrap();
    assert_eq!(all, data);
    let src = xz.into_inner();
    // Opening seeks a few times per stream; reading seeks once per stream.
    let mut again = SeekableXzReader::open(Cursor::new(file.clone())).unwrap();
    let mut buf = [0u8; 1000];
    again.read_exact(&mut buf).unwrap();
    assert_eq!(buf[..], data[..1000]);
    assert!(
        src.bytes - opened <= file.len() as u64,
        "each byte read once"
    );
    let open_seeks = {
        let mut c = Counting {
            inner: Cursor::new(file.clone()),
            seeks: 0,
            bytes: 0,
        };
        let _ = lzflow_xz::info::read_info(&mut c).unwrap();
        c.seeks
    };
    assert!(
        src.seeks <= open_seeks + 1 + 2,
        "{} seeks: reading on should not seek per Block",
        src.seeks
    );
}

#[test]
fn a_read_in_the_middle_reads_one_block_plus_the_indexes() {
    // 16 MiB in 1 MiB Blocks (fast to make; the bound does not depend on
    // the file's size).
    let data = data(16 << 20, 9);
    let file = xz(&data, 1 << 20);
    let info = lzflow_xz::info::read_info(Cursor::new(&file)).unwrap();
    let blocks = &info.streams[0].blocks;
    let largest = blocks.iter().map(|b| b.total_size()).max().unwrap();
    let index_and_ends = file.len() as u64 - blocks.iter().map(|b| b.total_size()).sum::<u64>();
    let src = Counting {
        inner: Cursor::new(file.clone()),
        seeks: 0,
        bytes: 0,
    };
    let mut xz = SeekableXzReader::open(src).unwrap();
    let mid = data.len() as u64 / 2 + 12_345;
    xz.seek(SeekFrom::Start(mid)).unwrap();
    let mut slice = [0u8; 4096];
    xz.read_exact(&mut slice).unwrap();
    assert_eq!(slice[..], data[mid as usize..mid as usize + 4096]);
    // The end is probed for Stream Padding in one read of up to 8 KiB,
    // which holds the footer and Index here.
    let bound = largest + index_and_ends + 8192;
    assert!(
        xz.bytes_read() <= bound,
        "read {} bytes, bound {bound}",
        xz.bytes_read()
    );
    assert!(xz.bytes_read() < file.len() as u64 / 4);
}

#[test]
fn damage_is_reported_for_the_block_read() {
    let (data, mut file) = two_streams();
    // A byte in the middle of the first Block's data.
    file[2_000] ^= 0x55;
    let mut xz = SeekableXzReader::open(Cursor::new(file)).unwrap();
    // A later Block reads fine.
    xz.seek(SeekFrom::Start(100_000)).unwrap();
    let mut ok = vec![0u8; 10_000];
    xz.read_exact(&mut ok).unwrap();
    assert_eq!(ok, data[100_000..110_000]);
    xz.seek(SeekFrom::Start(0)).unwrap();
    let err = io::copy(&mut xz, &mut io::sink()).unwrap_err();
    assert_eq!(err.kind(), io::ErrorKind::InvalidData, "{err}");
    // A seek clears the error.
    xz.seek(SeekFrom::Start(250_000)).unwrap();
    let mut more = vec![0u8; 100];
    xz.read_exact(&mut more).unwrap();
    assert_eq!(more, data[250_000..250_100]);
}

#[test]
fn not_xz_and_truncated_files_fail_to_open() {
    let err =
        SeekableXzReader::open(Cursor::new(b"not xz at all, padding...".to_vec())).unwrap_err();
    assert_eq!(err.kind(), io::ErrorKind::InvalidData);
    let (_, file) = two_streams();
    let err = SeekableXzReader::open(Cursor::new(file[..file.len() - 30].to_vec())).unwrap_err();
    assert!(
        matches!(
            err.kind(),
            io::ErrorKind::InvalidData | io::ErrorKind::UnexpectedEof
        ),
        "{err}"
    );
}

#[tokio::test]
async fn tokio_and_futures_faces_read_what_std_reads() {
    use tokio::io::{AsyncReadExt, AsyncSeekExt};
    let (data, file) = two_streams();
    let mut t = lzflow::seekable::AsyncSeekableXzReader::open(Cursor::new(file.clone()))
        .await
        .unwrap();
    let mut f =
        lzflow::seekable::futures::AsyncSeekableXzReader::open(futures::io::Cursor::new(file))
            .await
            .unwrap();
    assert_eq!((t.len(), f.len()), (data.len() as u64, data.len() as u64));
    for (at, len) in spots(data.len() as u64, 60) {
        let want = expected(&data, at, len);
        AsyncSeekExt::seek(&mut t, SeekFrom::Start(at))
            .await
            .unwrap();
        let mut got = vec![0u8; want.len()];
        AsyncReadExt::read_exact(&mut t, &mut got).await.unwrap();
        assert_eq!(got, want, "tokio at {at}");
        futures::AsyncSeekExt::seek(&mut f, SeekFrom::Start(at))
            .await
            .unwrap();
        let mut got = vec![0u8; want.len()];
        futures::AsyncReadExt::read_exact(&mut f, &mut got)
            .await
            .unwrap();
        assert_eq!(got, want, "futures at {at}");
    }
}

#[test]
fn reading_on_asks_for_each_stream_once_in_order() {
    // The sans-I/O decoder asks for input at a new position only where a
    // stream starts: never back to a Block it has begun.
    let (data, file) = two_streams();
    let info = lzflow_xz::info::read_info(Cursor::new(&file)).unwrap();
    let map = lzflow_xz::BlockMap::new(&info).unwrap();
    let mut dec = lzflow_xz::SeekableXzDecoder::new(map, Default::default());
    let mut out = vec![0u8; 7_000];
    let (mut got, mut restarts, mut expect_at) = (Vec::new(), 0, None);
    while let Some(at) = dec.input_offset() {
        if expect_at != Some(at) {
            restarts += 1;
        }
        let end = (at + dec.input_wanted().max(1)).min(file.len() as u64) as usize;
        let mut input = lzflow_core::InBuf::new(&file[at as usize..end]);
        let mut output = lzflow_core::OutBuf::new(&mut out);
        let p = dec.decode(&mut input, &mut output).unwrap();
        got.extend_from_slice(output.written());
        expect_at = Some(at + input.pos() as u64);
        if p == lzflow_core::Progress::StreamEnd {
            break;
        }
    }
    assert_eq!(got, data);
    assert_eq!(restarts, 2, "one input position per stream");
}
