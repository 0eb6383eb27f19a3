//! Interop with the xz tool: our .lzma and raw LZMA2 output decoded by
//! `xz -dc` (skipped with a message when /usr/bin/xz is missing).

use std::io::Write;
use std::process::{Command, Stdio};

use lzflow_core::{Encode, InBuf, OutBuf, Progress};
use lzflow_lzma::{AloneEncoder, Lzma2Encoder, LzmaError, LzmaOptions};

const XZ: &str = "/usr/bin/xz";

fn encode_all<E: Encode<Error = LzmaError>>(enc: &mut E, data: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    let mut buf = vec![0u8; 4096];
    for piece in data.chunks(10_000) {
        let mut input = InBuf::new(piece);
        loop {
            let mut o = OutBuf::new(&mut buf);
            let p = enc.encode(&mut input, &mut o).unwrap();
            out.extend_from_slice(o.written());
            if p == Progress::NeedInput {
                break;
            }
        }
    }
    loop {
        let mut o = OutBuf::new(&mut buf);
        let p = enc.finish(&mut o).unwrap();
        out.extend_from_slice(o.written());
        if p == Progress::StreamEnd {
            return out;
        }
    }
}

fn xz_decode(args: &[&str], input: &[u8]) -> Vec<u8> {
    let mut child = Command::new(XZ)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run xz");
    let mut stdin = child.stdin.take().unwrap();
    let data = input.to_vec();
    let writer = std::thread::spawn(move || stdin.write_all(&data));
    let out = child.wait_with_output().unwrap();
    writer.join().unwrap().unwrap();
    assert!(
        out.status.success(),
        "xz {args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out.stdout
}

fn sample() -> Vec<u8> {
    let mut v = Vec::new();
    let mut x = 7u32;
    for i in 0..50_000u32 {
        x = x.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
        if x >> 29 == 0 {
            v.push((x >> 8) as u8);
        } else {
            v.extend_from_slice(format!("line {} value {}\n", i % 1000, x >> 26).as_bytes());
        }
    }
    v
}

#[test]
fn xz_tool_decodes_our_lzma_alone_files() {
    if !std::path::Path::new(XZ).exists() {
        eprintln!("skipped: {XZ} not installed");
        return;
    }
    let data = sample();
    for (level, extreme) in [(0, false), (3, false), (6, false), (6, true)] {
        let mut o = if extreme {
            LzmaOptions::preset_extreme(level).unwrap()
        } else {
            LzmaOptions::preset(level).unwrap()
        };
        o.dict_size = o.dict_size.min(1 << 22);
        let file = encode_all(&mut AloneEncoder::new(&o).unwrap(), &data);
        assert_eq!(file[0], 0x5D);
        assert_eq!(&file[1..5], &o.dict_size.to_le_bytes());
        assert_eq!(&file[5..13], &[0xFF; 8]);
        assert_eq!(
            xz_decode(&["-dc", "--format=lzma"], &file),
            data,
            "preset {level}"
        );
    }
}

#[test]
fn xz_tool_decodes_our_raw_lzma2() {
    if !std::path::Path::new(XZ).exists() {
        eprintln!("skipped: {XZ} not installed");
        return;
    }
    let data = sample();
    for level in [1, 7] {
        let mut o = LzmaOptions::preset(level).unwrap();
        o.dict_size = 1 << 20;
        let raw = encode_all(&mut Lzma2Encoder::new(&o).unwrap(), &data);
        let out = xz_decode(&["-dc", "--format=raw", "--lzma2=dict=1MiB"], &raw);
        assert_eq!(out, data, "preset {level}");
    }
}
