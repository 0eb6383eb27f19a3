//! End to end on real files made by xz 5.4.1 and 7-Zip (the RISC-V one):
//! the filter chain is read from the block header with the crate's own
//! property parsers, liblzma undoes only LZMA2, and FilterDecoder (over
//! PassThrough) must give the content listed in MANIFEST.tsv.

use std::path::PathBuf;

use liblzma::stream::{Action, Filters, Status, Stream};
use lzflow_core::{Decode, InBuf, OutBuf, Progress};
use lzflow_filters::{decode_chain, FilterConfig, FilterDecoder, FilterKind, PassThrough};
use sha2::{Digest, Sha256};

fn fixtures() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/generated")
}

/// (file, size, sha256) rows of MANIFEST.tsv for filtered .xz/.raw files.
fn manifest() -> Vec<(String, usize, String)> {
    let text = std::fs::read_to_string(fixtures().join("MANIFEST.tsv")).unwrap();
    text.lines()
        .skip(1)
        .map(|l| l.split('\t').collect::<Vec<_>>())
        .filter(|c| {
            ["xz/bcj-", "xz/delta-", "xz/chain-", "raw/x86-"]
                .iter()
                .any(|p| c[0].starts_with(p))
        })
        .map(|c| (c[0].to_string(), c[6].parse().unwrap(), c[7].to_string()))
        .collect()
}

fn vli(b: &[u8], pos: &mut usize) -> u64 {
    let mut v = 0u64;
    for i in 0..9 {
        let byte = b[*pos];
        *pos += 1;
        v |= u64::from(byte & 0x7F) << (7 * i);
        if byte & 0x80 == 0 {
            break;
        }
    }
    v
}

/// The filters before LZMA2, the LZMA2 properties byte, and where the
/// compressed data of the first block starts.
fn block_header(file: &[u8]) -> (Vec<FilterConfig>, u8, usize) {
    assert_eq!(&file[..6], b"\xFD7zXZ\0");
    let start = 12;
    let size = (usize::from(file[start]) + 1) * 4;
    let flags = file[start + 1];
    let mut pos = start + 2;
    if flags & 0x40 != 0 {
        vli(file, &mut pos);
    }
    if flags & 0x80 != 0 {
        vli(file, &mut pos);
    }
    let mut cfgs = Vec::new();
    let mut lzma2 = None;
    for _ in 0..=(flags & 3) {
        let id = vli(file, &mut pos);
        let n = vli(file, &mut pos) as usize;
        let props = &file[pos..pos + n];
        pos += n;
        if id == 0x21 {
            lzma2 = Some(props[0]);
        } else {
            // XZ's filter IDs 0x03..=0x0B, in `FilterKind::ALL`'s order.
            let kind = FilterKind::ALL[(id - 3) as usize];
            cfgs.push(FilterConfig::from_xz_props(kind, props).unwrap());
        }
    }
    (cfgs, lzma2.unwrap(), start + size)
}

fn lzma2_only(props: u8, data: &[u8]) -> Vec<u8> {
    let mut f = Filters::new();
    f.lzma2_properties(&[props]).unwrap();
    let mut s = Stream::new_raw_decoder(&f).unwrap();
    let mut out = Vec::with_capacity(1 << 20);
    let mut pos = 0;
    loop {
        let before = s.total_in();
        let status = s.process_vec(&data[pos..], &mut out, Action::Run).unwrap();
        pos += (s.total_in() - before) as usize;
        if status == Status::StreamEnd {
            return out;
        }
        if out.len() == out.capacity() {
            out.reserve(out.capacity());
        }
    }
}

fn unfilter(cfgs: &[FilterConfig], data: &[u8], step: usize) -> Vec<u8> {
    let mut dec = FilterDecoder::new(PassThrough, decode_chain(cfgs).unwrap());
    let mut out = Vec::new();
    let mut space = vec![0u8; step];
    let mut pos = 0;
    loop {
        let end = (pos + step).min(data.len());
        let mut input = InBuf::new(&data[pos..end]).with_last(end == data.len());
        let mut output = OutBuf::new(&mut space);
        let p = dec.decode(&mut input, &mut output).unwrap();
        pos += input.pos();
        out.extend_from_slice(output.written());
        if p == Progress::StreamEnd {
            return out;
        }
    }
}

#[test]
fn filtered_fixtures_decode_to_their_manifest_content() {
    let rows = manifest();
    assert!(
        rows.len() >= 16,
        "expected the bcj/delta/chain fixtures, got {rows:?}"
    );
    for (name, size, sha) in rows {
        let file = std::fs::read(fixtures().join(&name)).unwrap();
        let (cfgs, props, at) = if name.ends_with(".raw") {
            // The raw fixture's chain is known from its name.
            let x86 = FilterConfig::new(lzflow_filters::FilterKind::X86);
            let dict_1mib = 0x10; // LZMA2 dictionary byte for 1 MiB
            (vec![x86], dict_1mib, 0)
        } else {
            block_header(&file)
        };
        assert!(!cfgs.is_empty(), "{name}");
        let filtered = lzma2_only(props, &file[at..]);
        for step in [1, 777, 1 << 20] {
            let plain = unfilter(&cfgs, &filtered, step);
            assert_eq!(plain.len(), size, "{name} step {step}");
            let got = format!("{:x}", Sha256::digest(&plain));
            assert_eq!(got, sha, "{name} step {step}");
        }
    }
}
