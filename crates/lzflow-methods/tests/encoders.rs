//! The registry's encoders through `new_encoder`: round trips through the
//! registry's decoders for empty to MiB inputs at several levels, the same
//! bytes however input and output are split (down to one byte each),
//! flushes, `finish` after the end, Deflate read by `flate2` and
//! miniz_oxide, levels that shrink text, deflaters recycled without
//! allocating, and `encoder_memory` against what the encoders allocate.
//!
//! Allocations are counted for the whole binary, so every test holds
//! `SERIAL`.
// The codecs under test are optional features (all on by default).
#![cfg(all(
    feature = "deflate",
    feature = "deflate64",
    feature = "bzip2",
    feature = "zstd"
))]

use std::io::Read;
use std::sync::{Mutex, MutexGuard};

use lzflow_core::{Encode, InBuf, OutBuf, Progress};
use lzflow_lzma::DecoderOptions;
use lzflow_methods::{
    encoder_memory, encoder_properties, new_decoder, new_encoder, new_encoder_sized,
    set_idle_compressors, BoxedEncoder, Method, MethodError, Properties, DEFAULT_IDLE_COMPRESSORS,
};
use stats_alloc::{Region, StatsAlloc, INSTRUMENTED_SYSTEM};

#[global_allocator]
static GLOBAL: &StatsAlloc<std::alloc::System> = &INSTRUMENTED_SYSTEM;

static SERIAL: Mutex<()> = Mutex::new(());

fn serial() -> MutexGuard<'static, ()> {
    SERIAL.lock().unwrap_or_else(|e| e.into_inner())
}

/// xorshift32.
struct Rng(u32);

impl Rng {
    fn next(&mut self) -> u32 {
        let mut x = self.0;
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        self.0 = x;
        x
    }

    /// A number in `1..=max`.
    fn upto(&mut self, max: usize) -> usize {
        1 + self.next() as usize % max
    }

    /// `n` bytes of words from a 16-word vocabulary.
    fn text(&mut self, n: usize) -> Vec<u8> {
        const WORDS: [&str; 16] = [
            "stream", "window", "match", "literal", "block", "frame", "entry", "archive",
            "deflate", "bzip2", "huffman", "offset", "length", "checksum", "header", "table",
        ];
        let mut out = Vec::with_capacity(n + 16);
        while out.len() < n {
            let v = self.next();
            out.extend_from_slice(WORDS[(v % 16) as usize].as_bytes());
            out.push(if (v >> 8).is_multiple_of(11) {
                b'\n'
            } else {
                b' '
            });
        }
        out.truncate(n);
        out
    }
}

/// `n` bytes of text, zeros, noise and repeats of earlier parts.
fn mixed(n: usize, seed: u32) -> Vec<u8> {
    let mut rng = Rng(seed);
    let mut out = Vec::with_capacity(n + 8192);
    while out.len() < n {
        match rng.next() % 4 {
            0 => {
                let len = rng.upto(4000);
                let t = rng.text(len);
                out.extend(t);
            }
            1 => out.resize(out.len() + rng.upto(3000), 0),
            2 => {
                let len = rng.upto(1500);
                out.extend((0..len).map(|_| (rng.next() >> 24) as u8));
            }
            _ if !out.is_empty() => {
                let from = rng.next() as usize % out.len();
                let len = rng.upto(2000).min(out.len() - from);
                out.extend_from_within(from..from + len);
            }
            _ => {}
        }
    }
    out.truncate(n);
    out
}

/// Input and output slice sizes for a run: fixed, or drawn from `1..=max`.
#[derive(Clone, Copy, Debug)]
enum Split {
    Fixed(usize, usize),
    Random(u32, usize, usize),
}

/// Encodes `data` with the input cut and the output room as `split` says,
/// then finishes; checks the `Encode` contract on the way and that a
/// finished encoder stays finished.
fn encode_split(enc: &mut BoxedEncoder, data: &[u8], split: Split) -> Vec<u8> {
    let (mut rng, in_max, out_max, random) = match split {
        Split::Fixed(i, o) => (Rng(1), i, o, false),
        Split::Random(seed, i, o) => (Rng(seed), i, o, true),
    };
    let mut sizes = move || {
        if random {
            (rng.upto(in_max), rng.upto(out_max))
        } else {
            (in_max, out_max)
        }
    };
    let mut out = Vec::new();
    let mut space = vec![0u8; out_max];
    let mut pos = 0;
    let mut idle = 0;
    while pos < data.len() {
        let (in_size, out_size) = sizes();
        let end = data.len().min(pos + in_size);
        let mut input = InBuf::new(&data[pos..end]);
        let mut o = OutBuf::new(&mut space[..out_size]);
        let p = enc.encode(&mut input, &mut o).unwrap();
        match p {
            Progress::NeedInput => assert!(input.is_empty(), "NeedInput with input left"),
            Progress::OutputFull => {}
            Progress::StreamEnd => panic!("encode reported the end"),
        }
        idle = if input.pos() == 0 && o.pos() == 0 {
            idle + 1
        } else {
            0
        };
        assert!(idle < 100, "no progress at {pos}");
        pos += input.pos();
        out.extend_from_slice(o.written());
    }
    loop {
        let (_, out_size) = sizes();
        let mut o = OutBuf::new(&mut space[..out_size]);
        let p = enc.finish(&mut o).unwrap();
        out.extend_from_slice(o.written());
        match p {
            Progress::StreamEnd => break,
            Progress::OutputFull => {}
            Progress::NeedInput => panic!("finish asked for input"),
        }
        idle = if o.pos() == 0 { idle + 1 } else { 0 };
        assert!(idle < 100, "finish makes no progress");
    }
    // Finished: again makes nothing, and more data is refused.
    let mut o = OutBuf::new(&mut space);
    assert_eq!(enc.finish(&mut o).unwrap(), Progress::StreamEnd);
    assert_eq!(o.pos(), 0, "a second finish wrote bytes");
    assert!(enc.encode(&mut InBuf::new(b"x"), &mut o).is_err());
    out
}

/// Decodes `data` whole with the registry's decoder of `props`, told the
/// size or not.
fn decode(props: &Properties, data: &[u8], size: Option<u64>) -> Vec<u8> {
    let mut dec = new_decoder(props, size, &DecoderOptions::default()).unwrap();
    let mut out = Vec::new();
    let mut space = vec![0u8; 64 << 10];
    let mut input = InBuf::last(data);
    for _ in 0..100_000 {
        let mut o = OutBuf::new(&mut space);
        let p = dec.decode(&mut input, &mut o).unwrap();
        out.extend_from_slice(o.written());
        if p == Progress::StreamEnd {
            assert!(input.is_empty(), "bytes after the end");
            return out;
        }
    }
    panic!("no end");
}

/// The methods with an encoder and the levels tried.
const CASES: &[(Method, &[u32])] = &[
    (Method::Copy, &[0]),
    (Method::Deflate, &[0, 1, 4, 6, 9]),
    (Method::BZip2, &[0, 1, 9]),
    (Method::Lzma, &[0, 1, 6, 9]),
];

/// LZMA's large presets get the size (a 64 MiB dictionary's tables are
/// slow to make); the small ones and everything else do not.
fn hint(method: Method, level: u32, len: usize) -> Option<u64> {
    (method == Method::Lzma && level >= 2).then_some(len as u64)
}

fn encoder(method: Method, level: u32, len: usize) -> BoxedEncoder {
    new_encoder_sized(method, level, hint(method, level, len)).unwrap()
}

#[test]
fn every_encoder_round_trips_under_any_split() {
    let _s = serial();
    for &(method, levels) in CASES {
        for &level in levels {
            for (i, len) in [0usize, 1, 1000, 1 << 20].into_iter().enumerate() {
                let data = mixed(len, 7 + i as u32);
                let what = format!("{method} level {level}, {len} bytes");
                let packed = encode_split(
                    &mut encoder(method, level, len),
                    &data,
                    Split::Fixed(64 << 10, 64 << 10),
                );
                let props = encoder_properties(method, level, hint(method, level, len)).unwrap();
                assert!(
                    decode(&props, &packed, Some(len as u64)) == data,
                    "{what}: other bytes"
                );
                if method == Method::Lzma {
                    // The end marker ends a stream of unknown size.
                    assert!(decode(&props, &packed, None) == data, "{what}: no end");
                }
                let splits: &[Split] = if len <= 1000 {
                    &[
                        Split::Fixed(1, 1),
                        Split::Fixed(1, 1 << 16),
                        Split::Fixed(1 << 16, 1),
                    ]
                } else {
                    &[
                        Split::Random(level + 3, 20_000, 3000),
                        Split::Fixed(4093, 7),
                    ]
                };
                for &split in splits {
                    let again = encode_split(&mut encoder(method, level, len), &data, split);
                    let first = again.iter().zip(&packed).position(|(a, b)| a != b);
                    assert!(
                        again == packed,
                        "{what}: other bytes with {split:?}: {} vs {} first diff {first:?}",
                        again.len(),
                        packed.len()
                    );
                }
            }
        }
    }
}

#[test]
fn lzma_properties_state_the_preset_and_the_fitted_dictionary() {
    let _s = serial();
    let p = encoder_properties(Method::Lzma, 6, None).unwrap();
    assert_eq!(p.to_7z(), [0x5D, 0, 0, 0x80, 0]); // lc=3 lp=0 pb=2, 8 MiB
    let p = encoder_properties(Method::Lzma, 0, None).unwrap();
    assert_eq!(p.to_7z(), [0x5D, 0, 0, 4, 0]); // 256 KiB
    let p = encoder_properties(Method::Lzma, 9, Some(100_000)).unwrap();
    assert_eq!(p.dict_size(), Some(128 << 10));
    let p = encoder_properties(Method::Lzma, 9, Some(0)).unwrap();
    assert_eq!(p.dict_size(), Some(4096));
    assert_eq!(
        encoder_properties(Method::Deflate, 6, None).unwrap(),
        Properties::Plain(Method::Deflate)
    );
}

#[test]
fn deflate_is_read_by_flate2_and_miniz_oxide() {
    let _s = serial();
    let data = mixed(1 << 20, 99);
    for level in 0..=9 {
        let packed = encode_split(
            &mut new_encoder(Method::Deflate, level).unwrap(),
            &data,
            Split::Fixed(1 << 16, 1 << 16),
        );
        let mut got = Vec::new();
        flate2::read::DeflateDecoder::new(&packed[..])
            .read_to_end(&mut got)
            .unwrap();
        assert!(got == data, "flate2, level {level}");
        let got = miniz_oxide::inflate::decompress_to_vec(&packed).unwrap();
        assert!(got == data, "miniz_oxide, level {level}");
    }
}

#[test]
fn higher_levels_shrink_text() {
    let _s = serial();
    let text = Rng(5).text(1 << 20);
    let size = |method, level| {
        let mut enc = new_encoder_sized(method, level, Some(text.len() as u64)).unwrap();
        encode_split(&mut enc, &text, Split::Fixed(1 << 16, 1 << 16)).len()
    };
    for method in [Method::Deflate, Method::BZip2, Method::Lzma] {
        let (fast, best) = (size(method, 1), size(method, 9));
        assert!(best <= fast, "{method}: level 9 {best} > level 1 {fast}");
        assert!(fast < text.len() / 2, "{method}: level 1 {fast}");
    }
    // Deflate's level 0 stores.
    let stored = size(Method::Deflate, 0);
    assert!(stored >= text.len() && stored < text.len() + text.len() / 100);
}

/// Encodes all of `data` through `room` bytes of output at a time.
fn feed(enc: &mut BoxedEncoder, data: &[u8], room: usize, out: &mut Vec<u8>) {
    let mut space = vec![0u8; room];
    let mut input = InBuf::new(data);
    loop {
        let mut o = OutBuf::new(&mut space);
        let p = enc.encode(&mut input, &mut o).unwrap();
        out.extend_from_slice(o.written());
        if p == Progress::NeedInput {
            return;
        }
    }
}

/// Calls `step` (a flush or a finish) through `room` bytes of output at a
/// time until it reports `done`.
fn drive(
    enc: &mut BoxedEncoder,
    room: usize,
    out: &mut Vec<u8>,
    done: Progress,
    step: fn(&mut BoxedEncoder, &mut OutBuf<'_>) -> Result<Progress, MethodError>,
) {
    let mut space = vec![0u8; room];
    loop {
        let mut o = OutBuf::new(&mut space);
        let p = step(enc, &mut o).unwrap();
        out.extend_from_slice(o.written());
        if p == done {
            return;
        }
        assert_eq!(p, Progress::OutputFull);
    }
}

/// Encodes `a`, flushes `flushes` times, encodes `b` and finishes, through
/// `room` bytes of output at a time; returns the output and its length
/// after the flushes.
fn with_flushes(
    method: Method,
    a: &[u8],
    b: &[u8],
    flushes: usize,
    room: usize,
) -> (Vec<u8>, usize) {
    let mut enc = new_encoder(method, 1).unwrap();
    let mut out = Vec::new();
    feed(&mut enc, a, room, &mut out);
    for _ in 0..flushes {
        drive(&mut enc, room, &mut out, Progress::NeedInput, |e, o| {
            e.flush(o)
        });
    }
    let flushed = out.len();
    feed(&mut enc, b, room, &mut out);
    drive(&mut enc, room, &mut out, Progress::StreamEnd, |e, o| {
        e.finish(o)
    });
    (out, flushed)
}

#[test]
fn flushes_keep_the_stream_whole() {
    let _s = serial();
    let a = mixed(50_000, 3);
    let b = mixed(30_000, 4);
    let whole = [&a[..], &b[..]].concat();
    for method in [Method::Copy, Method::Deflate, Method::BZip2, Method::Lzma] {
        let props = encoder_properties(method, 1, None).unwrap();
        let (once, _) = with_flushes(method, &a, &b, 1, 1 << 16);
        assert!(
            decode(&props, &once, Some(whole.len() as u64)) == whole,
            "{method}"
        );
        // A flush is the same whatever the room, and a second one right
        // after adds nothing.
        let (tiny, _) = with_flushes(method, &a, &b, 1, 1);
        assert!(tiny == once, "{method}: a flush into 1-byte room differs");
        let (twice, _) = with_flushes(method, &a, &b, 2, 1 << 16);
        assert!(twice == once, "{method}: a second flush changed the output");
    }
    // Deflate's flush makes everything so far decodable.
    let (out, flushed) = with_flushes(Method::Deflate, &a, &b, 1, 1 << 16);
    let props = Properties::Plain(Method::Deflate);
    let mut dec = new_decoder(&props, None, &DecoderOptions::default()).unwrap();
    let mut space = vec![0u8; 1 << 17];
    let mut o = OutBuf::new(&mut space);
    let mut input = InBuf::new(&out[..flushed]);
    while dec.decode(&mut input, &mut o).unwrap() == Progress::OutputFull {}
    assert!(
        o.written() == a,
        "the flushed prefix does not decode to the input so far"
    );
}

#[test]
fn recycled_deflaters_write_the_same_and_allocate_nothing() {
    let _s = serial();
    let a = mixed(200_000, 11);
    let b = mixed(150_000, 12);
    let split = Split::Fixed(1 << 16, 1 << 16);
    set_idle_compressors(0);
    let fresh = encode_split(&mut new_encoder(Method::Deflate, 3).unwrap(), &b, split);
    set_idle_compressors(DEFAULT_IDLE_COMPRESSORS);
    // A deflater left mid-stream at another level, then one finished.
    let mut left = new_encoder(Method::Deflate, 9).unwrap();
    let mut space = vec![0u8; 100];
    left.encode(&mut InBuf::new(&a), &mut OutBuf::new(&mut space))
        .unwrap();
    drop(left);
    encode_split(&mut new_encoder(Method::Deflate, 0).unwrap(), &a, split);
    for _ in 0..2 {
        let region = Region::new(GLOBAL);
        let mut enc = new_encoder(Method::Deflate, 3).unwrap();
        let made = region.change().bytes_allocated;
        assert!(made < 1024, "a recycled deflater allocated {made} bytes");
        assert!(
            encode_split(&mut enc, &b, split) == fresh,
            "a recycled deflater differs"
        );
    }
}

#[test]
fn encoder_memory_covers_what_encoders_allocate() {
    let _s = serial();
    let data = mixed(1 << 20, 21);
    set_idle_compressors(0);
    let cases = [
        (Method::Copy, 0, None),
        (Method::Deflate, 1, None),
        (Method::Deflate, 9, None),
        (Method::BZip2, 1, None),
        (Method::BZip2, 9, None),
        (Method::Lzma, 1, None),
        (Method::Lzma, 6, Some(data.len() as u64)),
        (Method::Lzma, 9, Some(5000)),
    ];
    for (method, level, size) in cases {
        let est = encoder_memory(method, level, size);
        // The count is process-wide: the test harness may allocate beside
        // a measurement (it spawns the next test's thread when one ends),
        // so a count over the bound is taken again, up to three times.
        let mut attempts = 0;
        let (live, enc) = loop {
            attempts += 1;
            let mut out = Vec::with_capacity(2 << 20);
            let mut scratch = vec![0u8; 1 << 16];
            // From empty pools: what the encoder itself allocates, whatever
            // the tests before this one left idle.
            lzflow_core::Pool::<u8>::global().release_idle();
            lzflow_core::Pool::<u16>::global().release_idle();
            lzflow_core::Pool::<u32>::global().release_idle();
            let region = Region::new(GLOBAL);
            let mut enc = new_encoder_sized(method, level, size).unwrap();
            lzflow_core::encode_input(&mut enc, &data, &mut out, &mut scratch).unwrap();
            let s = region.change();
            // stats_alloc counts a reallocation's growth in
            // `bytes_allocated` (and its shrinking in `bytes_deallocated`)
            // already.
            let live = (s.bytes_allocated as i64 - s.bytes_deallocated as i64).max(0) as u64;
            if live <= est + 1024 || attempts == 3 {
                break (live, enc);
            }
        };
        // The boxes of the coders themselves are not counted.
        assert!(
            live <= est + 1024,
            "{method} level {level} {size:?}: {live} allocated, {est} estimated"
        );
        // Deflate and BZip2 allocate what they need at once.
        if matches!(method, Method::Deflate | Method::BZip2) {
            assert!(
                est <= live + live / 4 + (16 << 10),
                "{method} level {level}: {est} estimated for {live}"
            );
        }
        drop(enc);
    }
    set_idle_compressors(DEFAULT_IDLE_COMPRESSORS);
}

#[test]
fn methods_without_an_encoder_are_refused() {
    let _s = serial();
    for method in [
        Method::Zstd,
        Method::Xz,
        Method::Deflate64,
        Method::Lzma2,
        Method::Bcj2,
        Method::Aes7z,
        Method::WinZipAes,
    ] {
        assert!(
            matches!(new_encoder(method, 6), Err(MethodError::Unsupported { .. })),
            "{method}"
        );
        assert!(matches!(
            encoder_properties(method, 6, None),
            Err(MethodError::Unsupported { .. })
        ));
        assert_eq!(encoder_memory(method, 6, None), 0);
    }
    let e = new_encoder(Method::Zstd, 3).err().unwrap();
    assert_eq!(
        e.to_string(),
        "compression method Zstandard (writing) is not supported"
    );
}
