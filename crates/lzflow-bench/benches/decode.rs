//! Criterion: decoding through the std and tokio faces on small seeded
//! inputs (.xz text, .xz mixed x86 with BCJ, raw LZMA2 with a dictionary
//! reset every 4 KiB). `cargo run --release -p lzflow-bench -- compare`
//! prints the side-by-side table against the peers.

mod support;

use std::io::Read;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};

const LEN: usize = 4 << 20;
const PIECE: usize = 4096;
const RESET_LEN: usize = 64 * PIECE;

fn drain(mut r: impl Read) -> usize {
    let mut buf = vec![0u8; 64 << 10];
    let mut n = 0;
    loop {
        match r.read(&mut buf).expect("decodes") {
            0 => return n,
            k => n += k,
        }
    }
}

async fn drain_tokio(mut r: impl tokio::io::AsyncRead + Unpin) -> usize {
    use tokio::io::AsyncReadExt;
    let mut buf = vec![0u8; 64 << 10];
    let mut n = 0;
    loop {
        match r.read(&mut buf).await.expect("decodes") {
            0 => return n,
            k => n += k,
        }
    }
}

fn bench_xz(c: &mut Criterion, name: &str, plain: &[u8], xz: &[u8]) {
    let rt = tokio::runtime::Builder::new_current_thread()
        .build()
        .expect("runtime");
    let mut g = c.benchmark_group(name);
    g.throughput(Throughput::Bytes(plain.len() as u64));
    g.sample_size(20);
    g.bench_function("sync", |b| {
        b.iter(|| assert_eq!(drain(lzflow::bufread::XzDecoder::new(xz)), plain.len()))
    });
    g.bench_function("tokio", |b| {
        b.iter(|| {
            let n = rt.block_on(drain_tokio(lzflow::tokio::bufread::XzDecoder::new(xz)));
            assert_eq!(n, plain.len());
        })
    });
    g.finish();
}

fn decode(c: &mut Criterion) {
    let text = support::text(LEN);
    bench_xz(c, "decode/xz-text", &text, &support::xz(&text, false));
    let x86 = support::mixed_x86(LEN);
    bench_xz(c, "decode/xz-mixed-x86", &x86, &support::xz(&x86, true));

    let small = support::text(RESET_LEN);
    let dict = 1 << 20;
    let raw = support::raw_lzma2_resets(&small, PIECE, dict);
    let rt = tokio::runtime::Builder::new_current_thread()
        .build()
        .expect("runtime");
    let mut g = c.benchmark_group("decode/raw-lzma2-resets");
    g.throughput(Throughput::Bytes(small.len() as u64));
    g.bench_function("sync", |b| {
        b.iter(|| {
            let d = lzflow::bufread::Lzma2Decoder::builder()
                .dict_size(dict)
                .build(&raw[..]);
            assert_eq!(drain(d), small.len());
        })
    });
    g.bench_function("tokio", |b| {
        b.iter(|| {
            let d = lzflow::tokio::bufread::Lzma2Decoder::builder()
                .dict_size(dict)
                .build(&raw[..]);
            assert_eq!(rt.block_on(drain_tokio(d)), small.len());
        })
    });
    g.finish();
}

criterion_group!(benches, decode);
criterion_main!(benches);
