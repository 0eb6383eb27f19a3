//! Files made by liblzma (presets, checks, every filter, multi-block,
//! concatenated streams) decode with XzDecoder, however they are split.

mod common;

use common::{data, decode, Split};
use liblzma::stream::{Action, Check, Filters, LzmaOptions, Status, Stream};

/// Runs a liblzma encoder; with `block` set, ends a Block (full flush)
/// every `block` bytes.
fn lib_encode(mut stream: Stream, input: &[u8], block: Option<usize>) -> Vec<u8> {
    let mut out = Vec::with_capacity(input.len() + 4096);
    let parts: Vec<&[u8]> = match block {
        Some(n) => input.chunks(n).collect(),
        None => vec![input],
    };
    for part in parts {
        let mut rest = part;
        while !rest.is_empty() {
            out.reserve(64 << 10);
            let before = stream.total_in();
            stream.process_vec(rest, &mut out, Action::Run).unwrap();
            rest = &rest[(stream.total_in() - before) as usize..];
        }
        if block.is_some() {
            loop {
                out.reserve(64 << 10);
                if stream
                    .process_vec(&[], &mut out, Action::FullFlush)
                    .unwrap()
                    == Status::StreamEnd
                {
                    break;
                }
            }
        }
    }
    loop {
        out.reserve(64 << 10);
        if stream.process_vec(&[], &mut out, Action::Finish).unwrap() == Status::StreamEnd {
            return out;
        }
    }
}

fn check_decodes(xz: &[u8], want: &[u8], what: &str) {
    for split in [Split::Whole, Split::Random { seed: 5, max: 3000 }] {
        let (out, res) = decode(xz, split);
        res.unwrap_or_else(|e| panic!("{what} {split:?}: {e}"));
        assert!(out == want, "{what} {split:?}: output differs");
    }
}

#[test]
fn presets() {
    let input = data("text", 200_000, 21);
    for preset in [0, 1, 3, 6, 6 | liblzma::stream::PRESET_EXTREME] {
        let xz = lib_encode(
            Stream::new_easy_encoder(preset, Check::Crc64).unwrap(),
            &input,
            None,
        );
        check_decodes(&xz, &input, &format!("preset {preset:#x}"));
    }
}

#[test]
fn checks() {
    let input = data("text", 40_000, 22);
    for check in [Check::None, Check::Crc32, Check::Crc64, Check::Sha256] {
        let xz = lib_encode(Stream::new_easy_encoder(1, check).unwrap(), &input, None);
        check_decodes(&xz, &input, &format!("{check:?}"));
    }
}

#[test]
fn every_filter() {
    let input = [data("random", 30_000, 23), data("text", 30_000, 24)].concat();
    let lzma = LzmaOptions::new_preset(1).unwrap();
    type AddFilter = fn(&mut Filters) -> &mut Filters;
    let filters: [(&str, AddFilter); 10] = [
        ("x86", Filters::x86),
        ("powerpc", Filters::powerpc),
        ("ia64", Filters::ia64),
        ("arm", Filters::arm),
        ("armthumb", Filters::arm_thumb),
        ("sparc", Filters::sparc),
        ("arm64", Filters::arm64),
        ("riscv", Filters::riscv),
        // liblzma needs Delta's options, so they go in as properties.
        ("delta", |f| f.delta_properties(&[0]).unwrap()),
        ("x86+delta(2)", |f| f.x86().delta_properties(&[1]).unwrap()),
    ];
    for (name, add) in filters {
        let mut chain = Filters::new();
        add(&mut chain);
        chain.lzma2(&lzma);
        let stream = Stream::new_stream_encoder(&chain, Check::Crc32)
            .unwrap_or_else(|e| panic!("liblzma refuses {name}: {e:?}"));
        let xz = lib_encode(stream, &input, None);
        check_decodes(&xz, &input, name);
    }
    // Delta with a distance and a BCJ start offset from properties.
    let mut chain = Filters::new();
    chain.delta_properties(&[3]).unwrap();
    chain.x86_properties(&4096u32.to_le_bytes()).unwrap();
    chain.lzma2(&lzma);
    let xz = lib_encode(
        Stream::new_stream_encoder(&chain, Check::Crc64).unwrap(),
        &input,
        None,
    );
    check_decodes(&xz, &input, "delta(4)+x86(start 4096)");
}

#[test]
fn lc_lp_pb_and_dictionary_sizes() {
    let input = data("text", 50_000, 25);
    for (lc, lp, pb, dict) in [
        (0, 0, 0, 4096),
        (4, 0, 4, 1 << 16),
        (0, 4, 2, 1 << 20),
        (1, 3, 0, 12345),
    ] {
        let mut lzma = LzmaOptions::new_preset(2).unwrap();
        lzma.literal_context_bits(lc)
            .literal_position_bits(lp)
            .position_bits(pb)
            .dict_size(dict);
        let mut chain = Filters::new();
        chain.lzma2(&lzma);
        let xz = lib_encode(
            Stream::new_stream_encoder(&chain, Check::Crc64).unwrap(),
            &input,
            None,
        );
        check_decodes(&xz, &input, &format!("lc={lc} lp={lp} pb={pb} dict={dict}"));
    }
}

#[test]
fn multi_block_and_concatenated_streams() {
    let input = data("text", 120_000, 26);
    let xz = lib_encode(
        Stream::new_easy_encoder(2, Check::Crc64).unwrap(),
        &input,
        Some(10_000),
    );
    check_decodes(&xz, &input, "12 blocks");
    let info = lzflow_xz::info::read_info(std::io::Cursor::new(&xz)).unwrap();
    assert_eq!(info.block_count(), 12);

    // Two streams with eight bytes of Stream Padding between and after.
    let a = lib_encode(
        Stream::new_easy_encoder(0, Check::Crc32).unwrap(),
        &input[..5000],
        None,
    );
    let b = lib_encode(
        Stream::new_easy_encoder(0, Check::Sha256).unwrap(),
        &input[5000..],
        None,
    );
    let joined = [a.as_slice(), &[0; 8], &b, &[0; 8]].concat();
    check_decodes(&joined, &input, "two streams");
}
