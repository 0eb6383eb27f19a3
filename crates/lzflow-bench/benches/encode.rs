//! Criterion: XZ encoding through the std face at presets 0 and 6 on a few
//! MiB of seeded input, checked by decoding the result once.

mod support;

use std::io::{Read, Write};

use criterion::{criterion_group, criterion_main, Criterion, Throughput};

const LEN: usize = 2 << 20;

fn encode_xz(input: &[u8], preset: u32) -> Vec<u8> {
    let mut enc = lzflow::write::XzEncoder::builder()
        .preset(preset)
        .build(Vec::with_capacity(input.len() / 2));
    enc.write_all(input).expect("encodes");
    enc.finish().expect("finishes")
}

fn encode(c: &mut Criterion) {
    let inputs = [
        ("text", support::text(LEN)),
        ("mixed-x86", support::mixed_x86(LEN)),
    ];
    for (name, input) in &inputs {
        let mut g = c.benchmark_group(format!("encode/{name}"));
        g.throughput(Throughput::Bytes(input.len() as u64));
        g.sample_size(10);
        for preset in [0, 6] {
            // The output must decode back to the input, or the timing is
            // of something else.
            let xz = encode_xz(input, preset);
            let mut back = Vec::new();
            liblzma::read::XzDecoder::new(&xz[..])
                .read_to_end(&mut back)
                .expect("liblzma decodes lzflow's output");
            assert!(back == *input, "round trip at preset {preset}");
            g.bench_function(format!("preset-{preset}"), |b| {
                b.iter(|| encode_xz(input, preset))
            });
        }
        g.finish();
    }
}

criterion_group!(benches, encode);
criterion_main!(benches);
