//! A warm encode with the match finder on its own thread allocates almost
//! nothing: the second window and the tables come from the global pools,
//! the batches of hash records, results and window bytes that go between
//! the threads from pools of their own. (Its own binary: allocations are
//! counted for the whole process.)

use lzflow_core::{Encode, InBuf, OutBuf, Progress};
use lzflow_lzma::{Lzma2Encoder, LzmaOptions};
use stats_alloc::{Region, StatsAlloc, INSTRUMENTED_SYSTEM};

#[global_allocator]
static GLOBAL: &StatsAlloc<std::alloc::System> = &INSTRUMENTED_SYSTEM;

/// Text-like bytes: words from a small vocabulary (xorshift64).
fn text(n: usize) -> Vec<u8> {
    const WORDS: [&[u8]; 8] = [
        b"window ",
        b"match ",
        b"literal ",
        b"chunk\n",
        b"stream ",
        b"tree ",
        b"hash ",
        b"rep ",
    ];
    let mut x = 0x9E37_79B9_7F4A_7C15u64;
    let mut out = Vec::with_capacity(n + 8);
    while out.len() < n {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        out.extend_from_slice(WORDS[(x % 8) as usize]);
        if x.is_multiple_of(5) {
            out.extend_from_slice(&x.to_le_bytes()[..3]);
        }
    }
    out.truncate(n);
    out
}

/// Encodes `data` in 64 KiB input pieces into `out` (allocated by the
/// caller, large enough); the bytes written.
fn encode(opts: &LzmaOptions, data: &[u8], out: &mut [u8]) -> usize {
    let mut enc = Lzma2Encoder::new(opts).unwrap();
    let mut o = OutBuf::new(out);
    for piece in data.chunks(64 << 10) {
        let mut input = InBuf::new(piece);
        while !input.is_empty() {
            enc.encode(&mut input, &mut o).unwrap();
        }
    }
    while enc.finish(&mut o).unwrap() != Progress::StreamEnd {}
    o.pos()
}

#[test]
fn a_warm_threaded_encode_allocates_almost_nothing() {
    let data = text(4 << 20);
    let mut opts = LzmaOptions::preset(6).unwrap();
    opts.dict_size = 1 << 20;
    opts.match_finder_thread = true;
    let mut out = vec![0u8; 3 << 20];
    // How many batches are in flight at once depends on how the threads
    // run, so the pools are warmed twice and the least of three warm
    // encodes counts.
    let cold = encode(&opts, &data, &mut out);
    assert_eq!(encode(&opts, &data, &mut out), cold);
    let least = (0..3)
        .map(|_| {
            let region = Region::new(GLOBAL);
            assert_eq!(encode(&opts, &data, &mut out), cold);
            region.change().bytes_allocated
        })
        .min()
        .unwrap();
    // Left: the thread's start, and the command channel's blocks (one per
    // 31 messages, about 1,100 messages here: 50 KB). Batches allocated
    // afresh would be several MiB.
    assert!(least < 512 << 10, "{least} bytes allocated");
}
