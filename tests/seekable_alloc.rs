//! A `.xz` file of a million Blocks opens for random access with a few
//! dozen allocations (one table of Blocks, grown by doubling), not one per
//! Block; and reads from its middle. Its own test binary: it counts the
//! process's allocations.

use std::io::{Cursor, Read, Seek, SeekFrom, Write};

use stats_alloc::{Region, StatsAlloc, INSTRUMENTED_SYSTEM};

#[global_allocator]
static GLOBAL: &StatsAlloc<std::alloc::System> = &INSTRUMENTED_SYSTEM;

fn vli(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push(v as u8 | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

/// A stream whose one Block (`b"x"`) is repeated `n` times, with the Index
/// listing all of them.
fn many_blocks(n: usize) -> Vec<u8> {
    let mut enc = lzflow::write::XzEncoder::builder()
        .preset(0)
        .build(Vec::new());
    enc.write_all(b"x").unwrap();
    let one = enc.finish().unwrap();
    let info = lzflow_xz::info::read_info(Cursor::new(&one)).unwrap();
    let block = info.streams[0].blocks[0];
    let block_bytes = &one[12..12 + block.total_size() as usize];
    let mut out = one[..12].to_vec();
    for _ in 0..n {
        out.extend_from_slice(block_bytes);
    }
    let mut index = vec![0u8];
    vli(&mut index, n as u64);
    for _ in 0..n {
        vli(&mut index, block.unpadded_size);
        vli(&mut index, block.uncompressed_size);
    }
    while index.len() % 4 != 0 {
        index.push(0);
    }
    let crc = crc32(&index);
    index.extend_from_slice(&crc.to_le_bytes());
    out.extend_from_slice(&index);
    let mut footer_body = ((index.len() / 4 - 1) as u32).to_le_bytes().to_vec();
    footer_body.extend_from_slice(&one[6..8]);
    out.extend_from_slice(&crc32(&footer_body).to_le_bytes());
    out.extend_from_slice(&footer_body);
    out.extend_from_slice(b"YZ");
    out
}

fn crc32(data: &[u8]) -> u32 {
    // Bitwise CRC-32 (IEEE), enough for a test's few megabytes.
    let mut crc = !0u32;
    for &b in data {
        crc ^= u32::from(b);
        for _ in 0..8 {
            crc = (crc >> 1) ^ (0xEDB8_8320 & (crc & 1).wrapping_neg());
        }
    }
    !crc
}

#[test]
fn a_million_blocks_open_without_an_allocation_per_block() {
    const N: usize = 1_000_000;
    let file = many_blocks(N);
    let region = Region::new(GLOBAL);
    let mut xz = lzflow::seekable::SeekableXzReader::open(Cursor::new(&file[..])).unwrap();
    let stats = region.change();
    let allocations = stats.allocations + stats.reallocations;
    assert_eq!((xz.len(), xz.block_count()), (N as u64, N));
    assert!(
        allocations < 200,
        "{allocations} allocations to open {N} Blocks"
    );
    xz.seek(SeekFrom::Start(N as u64 / 2)).unwrap();
    let mut three = [0u8; 3];
    xz.read_exact(&mut three).unwrap();
    assert_eq!(&three, b"xxx");
    xz.seek(SeekFrom::End(-1)).unwrap();
    let mut rest = Vec::new();
    xz.read_to_end(&mut rest).unwrap();
    assert_eq!(rest, b"x");
}
