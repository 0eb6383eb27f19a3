//! The lzip decoder and encoder: xz-utils' `.lz` test files with their
//! expected outcomes, files made by `lzip` at several levels, our files
//! checked by `lzip -t`, members, trailing data, and split independence.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use lzflow_core::{encode_to_end, Decode, Encode, InBuf, OutBuf, Progress};
use lzflow_lzip::{LzipDecoder, LzipEncoder, LzipError, LzipOptions};
use lzflow_lzma::{DecoderOptions, LzmaError};

fn xz_utils(name: &str) -> Vec<u8> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../fixtures/xz-utils/files")
        .join(name);
    std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Decodes `data` handed over in slices of `step` bytes (0: whole) into
/// an output buffer of `out_room` bytes at a time; returns the output, the
/// result and the bytes left unconsumed at the end.
fn decode_with(
    mut dec: LzipDecoder,
    data: &[u8],
    step: usize,
    out_room: usize,
) -> (Vec<u8>, Result<(), LzipError>, usize) {
    let mut out = Vec::new();
    let mut buf = vec![0u8; out_room];
    let mut pos = 0;
    loop {
        let end = if step == 0 {
            data.len()
        } else {
            (pos + step).min(data.len())
        };
        let mut input = InBuf::new(&data[pos..end]).with_last(end == data.len());
        let mut output = OutBuf::new(&mut buf);
        let r = dec.decode(&mut input, &mut output);
        out.extend_from_slice(output.written());
        pos += input.pos();
        match r {
            Err(e) => return (out, Err(e), data.len() - pos),
            Ok(Progress::StreamEnd) => return (out, Ok(()), data.len() - pos),
            Ok(Progress::OutputFull) => {}
            Ok(Progress::NeedInput) => {
                assert!(end < data.len(), "NeedInput with the last input");
                assert_eq!(input.len(), 0, "NeedInput leaves nothing unconsumed");
            }
        }
    }
}

fn decode(data: &[u8]) -> (Vec<u8>, Result<(), LzipError>, usize) {
    decode_with(
        LzipDecoder::new(&DecoderOptions::default()),
        data,
        0,
        1 << 16,
    )
}

fn encode(data: &[u8], options: &LzipOptions) -> Vec<u8> {
    let mut enc = LzipEncoder::new(options).unwrap();
    let mut out = Vec::new();
    encode_to_end(&mut enc, data, &mut out, &mut [0u8; 4096]).unwrap();
    out
}

/// The text the xz-utils .lz files hold (13 bytes).
const HELLO: &[u8] = b"Hello\nWorld!\n";

#[test]
fn xz_utils_good_files_decode_to_their_text() {
    for name in [
        "good-1-v0.lz",
        "good-1-v1.lz",
        "good-2-v0-v1.lz",
        "good-2-v1-v0.lz",
        "good-2-v1-v1.lz",
        "good-1-v0-trailing-1.lz",
        "good-1-v1-trailing-1.lz",
        "good-1-v1-trailing-2.lz",
    ] {
        let data = xz_utils(name);
        let (out, result, _) = decode(&data);
        assert_eq!(result, Ok(()), "{name}");
        assert_eq!(out, HELLO, "{name}");
    }
}

#[test]
fn xz_utils_bad_files_give_the_exact_error_after_the_data() {
    /// File, the error it must give, bytes of data before the error.
    type Case = (&'static str, fn(&LzipError) -> bool, usize);
    let cases: [Case; 10] = [
        (
            "bad-1-v0-uncomp-size.lz",
            |e| matches!(e, LzipError::DataSizeMismatch { .. }),
            13,
        ),
        (
            "bad-1-v1-crc32.lz",
            |e| matches!(e, LzipError::CrcMismatch { .. }),
            13,
        ),
        (
            "bad-1-v1-dict-1.lz",
            |e| matches!(e, LzipError::InvalidDictSize(_)),
            0,
        ),
        (
            "bad-1-v1-dict-2.lz",
            |e| matches!(e, LzipError::InvalidDictSize(_)),
            0,
        ),
        (
            "bad-1-v1-magic-1.lz",
            |e| matches!(e, LzipError::NotLzip),
            0,
        ),
        (
            "bad-1-v1-magic-2.lz",
            |e| matches!(e, LzipError::NotLzip),
            0,
        ),
        (
            "bad-1-v1-member-size.lz",
            |e| matches!(e, LzipError::MemberSizeMismatch { .. }),
            13,
        ),
        (
            "bad-1-v1-trailing-magic.lz",
            |e| matches!(e, LzipError::Truncated),
            13,
        ),
        (
            "bad-1-v1-uncomp-size.lz",
            |e| matches!(e, LzipError::DataSizeMismatch { .. }),
            13,
        ),
        (
            "unsupported-1-v234.lz",
            |e| matches!(e, LzipError::UnsupportedVersion(_)),
            0,
        ),
    ];
    for (name, want, partial) in cases {
        let data = xz_utils(name);
        for step in [0, 1, 7] {
            let dec = LzipDecoder::new(&DecoderOptions::default());
            let (out, result, _) = decode_with(dec, &data, step, 5);
            let err = result.expect_err(name);
            assert!(want(&err), "{name} step {step}: {err:?}");
            assert_eq!(
                out.len(),
                partial,
                "{name} step {step}: data before the error"
            );
        }
    }
}

#[test]
fn trailing_data_is_left_where_xz_utils_leaves_it() {
    let member = encode(b"data", &LzipOptions::preset(1).unwrap());
    // Not starting like the ID string: left unconsumed.
    let mut file = member.clone();
    file.extend_from_slice(b"junk");
    let (out, result, left) = decode(&file);
    assert_eq!((out.as_slice(), result, left), (&b"data"[..], Ok(()), 4));
    // Starting like it, then differing: the matching bytes are skipped.
    let mut file = member.clone();
    file.extend_from_slice(b"LZIx!");
    let (_, result, left) = decode(&file);
    assert_eq!((result, left), (Ok(()), 2));
    // A partial ID string at the very end: skipped.
    let mut file = member.clone();
    file.extend_from_slice(b"LZI");
    assert_eq!(decode(&file).1, Ok(()));
    // A whole ID string starts a member that must be valid.
    let mut file = member.clone();
    file.extend_from_slice(b"LZIP\x07");
    assert_eq!(decode(&file).1, Err(LzipError::UnsupportedVersion(7)));
    // Not even one member: not lzip.
    assert_eq!(decode(b"junk").1, Err(LzipError::NotLzip));
    assert_eq!(decode(b"LZ").1, Err(LzipError::Truncated));
    // single_member stops after the first member.
    let two = [member.clone(), member].concat();
    let dec = LzipDecoder::new(&DecoderOptions::default()).single_member(true);
    let (out, result, left) = decode_with(dec, &two, 0, 64);
    assert_eq!(
        (out.as_slice(), result, left),
        (&b"data"[..], Ok(()), two.len() / 2)
    );
}

/// Seeded text-like data.
fn text(n: usize, seed: u64) -> Vec<u8> {
    let words = [
        "lzip ",
        "member ",
        "trailer ",
        "crc ",
        "dictionary ",
        "\n",
        "range ",
        "coder ",
    ];
    let mut x = seed | 1;
    let mut out = Vec::with_capacity(n + 16);
    while out.len() < n {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        out.extend_from_slice(words[(x % 8) as usize].as_bytes());
        if x.is_multiple_of(97) {
            out.extend_from_slice(&x.to_le_bytes());
        }
    }
    out.truncate(n);
    out
}

#[test]
fn round_trips_at_every_level_and_in_members_whatever_the_split() {
    let data = text(300_000, 7);
    for level in [0, 1, 6, 9] {
        let file = encode(&data, &LzipOptions::preset(level).unwrap());
        assert_eq!(decode(&file).0, data, "level {level}");
    }
    let options = LzipOptions::preset(2).unwrap().with_member_size(100_000);
    let file = encode(&data, &options);
    let mut enc = LzipEncoder::new(&options).unwrap();
    encode_to_end(&mut enc, &data, &mut Vec::new(), &mut [0u8; 100]).unwrap();
    assert_eq!(enc.members(), 3);
    for (step, room) in [(1, 1), (3, 7), (1000, 64), (0, 1 << 20)] {
        let dec = LzipDecoder::new(&DecoderOptions::default());
        let (out, result, left) = decode_with(dec, &file, step, room);
        assert_eq!((result, left), (Ok(()), 0), "step {step}");
        assert_eq!(out, data, "step {step}");
    }
    // An empty input is one empty member.
    let empty = encode(b"", &LzipOptions::default());
    assert_eq!(&empty[..4], b"LZIP");
    assert_eq!(decode(&empty), (Vec::new(), Ok(()), 0));
}

#[test]
fn flush_ends_a_member_and_no_empty_member_follows() {
    let mut enc = LzipEncoder::new(&LzipOptions::preset(1).unwrap()).unwrap();
    let mut out = Vec::new();
    let mut buf = [0u8; 4096];
    lzflow_core::encode_input(&mut enc, b"first ", &mut out, &mut buf).unwrap();
    let mut o = OutBuf::new(&mut buf);
    assert_eq!(enc.flush(&mut o).unwrap(), Progress::NeedInput);
    out.extend_from_slice(o.written());
    // Everything so far decodes on its own.
    assert_eq!(decode(&out).0, b"first ");
    lzflow_core::encode_input(&mut enc, b"second", &mut out, &mut buf).unwrap();
    let mut o = OutBuf::new(&mut buf);
    assert_eq!(enc.flush(&mut o).unwrap(), Progress::NeedInput);
    out.extend_from_slice(o.written());
    let mut o = OutBuf::new(&mut buf);
    assert_eq!(enc.finish(&mut o).unwrap(), Progress::StreamEnd);
    assert!(
        o.written().is_empty(),
        "no empty member after the flushed ones"
    );
    assert_eq!(enc.members(), 2);
    assert_eq!(decode(&out).0, b"first second");
}

#[test]
fn the_memory_limit_is_checked_against_the_dictionary() {
    let file = encode(b"x", &LzipOptions::preset(9).unwrap());
    let opts =
        DecoderOptions::default().with_limits(lzflow_core::Limits::NONE.with_memory(1 << 20));
    let (_, result, _) = decode_with(LzipDecoder::new(&opts), &file, 0, 64);
    assert!(
        matches!(result, Err(LzipError::Lzma(LzmaError::Limit(_)))),
        "{result:?}"
    );
}

fn lzip_tool() -> Option<PathBuf> {
    let found = Command::new("lzip")
        .arg("--version")
        .stdout(Stdio::null())
        .status()
        .is_ok();
    if !found {
        eprintln!("SKIPPED: lzip is not installed");
    }
    found.then(|| PathBuf::from("lzip"))
}

fn run_tool(tool: &Path, args: &[&str], input: &[u8]) -> (bool, Vec<u8>, String) {
    use std::io::Write;
    let mut child = Command::new(tool)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let input = input.to_vec();
    let writer = std::thread::spawn(move || stdin.write_all(&input));
    let out = child.wait_with_output().unwrap();
    writer.join().unwrap().unwrap();
    (
        out.status.success(),
        out.stdout,
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn lzip_reads_what_we_write_and_we_read_what_it_writes() {
    let Some(tool) = lzip_tool() else { return };
    let data = text(400_000, 11);
    for level in [0u32, 1, 3, 6, 9] {
        let ours = encode(&data, &LzipOptions::preset(level).unwrap());
        let (ok, out, err) = run_tool(&tool, &["-dc"], &ours);
        assert!(ok, "lzip -dc of our level {level}: {err}");
        assert_eq!(out, data, "level {level}");
        let (ok, theirs, err) = run_tool(&tool, &[&format!("-{level}"), "-c"], &data);
        assert!(ok, "lzip -{level}: {err}");
        let (out, result, left) = decode(&theirs);
        assert_eq!((result, left), (Ok(()), 0), "lzip -{level}");
        assert_eq!(out, data, "lzip -{level}");
    }
    let empty = encode(b"", &LzipOptions::default());
    let (ok, out, err) = run_tool(&tool, &["-dc"], &empty);
    assert!(ok && out.is_empty(), "lzip -dc of an empty member: {err}");
    // Multi-member files both ways.
    let ours = encode(
        &data,
        &LzipOptions::preset(1).unwrap().with_member_size(65_536),
    );
    let (ok, _, err) = run_tool(&tool, &["-t"], &ours);
    assert!(ok, "lzip -t: {err}");
    let (ok, theirs, err) = run_tool(&tool, &["-1", "-c", "-b", "100000"], &data);
    assert!(ok, "{err}");
    assert_eq!(decode(&theirs).0, data);
}

#[test]
fn members_are_listed_from_the_end_past_trailing_data() {
    use lzflow_lzip::list_members;
    use std::io::Cursor;
    let data = text(250_000, 3);
    let options = LzipOptions::preset(1).unwrap().with_member_size(100_000);
    let mut file = encode(&data, &options);
    let list = list_members(&mut Cursor::new(&file)).unwrap();
    let sizes: Vec<u64> = list.members.iter().map(|m| m.data_size).collect();
    assert_eq!(sizes, [100_000, 100_000, 50_000]);
    assert_eq!(list.members[0].offset, 0);
    assert_eq!(
        list.members.iter().map(|m| m.member_size).sum::<u64>(),
        file.len() as u64
    );
    assert_eq!(list.members[2].dict_size, 1 << 20);
    assert_eq!((list.trailing, list.data_size()), (0, 250_000));
    assert_eq!(
        list.members[1].crc32,
        crc32fast::hash(&data[100_000..200_000])
    );
    file.extend_from_slice(b"trailing junk");
    let list = list_members(&mut Cursor::new(&file)).unwrap();
    assert_eq!((list.members.len(), list.trailing), (3, 13));
    // A version-0 file cannot be listed backwards; damage is reported.
    let v0 = xz_utils("good-1-v0.lz");
    let err = list_members(&mut Cursor::new(&v0)).unwrap_err();
    assert_eq!(
        err.get_ref().unwrap().downcast_ref::<LzipError>(),
        Some(&LzipError::UnsupportedVersion(0))
    );
    // Damage in the last member makes it trailing data (the search cannot
    // tell them apart, nor can lzip's); damage before it is reported.
    let mut bad = encode(&data, &options);
    let n = bad.len();
    bad[n - 1] ^= 0x01; // the last member size's top byte
    let list = list_members(&mut Cursor::new(&bad)).unwrap();
    assert_eq!(list.members.len(), 2);
    assert_eq!(
        list.trailing,
        list_members(&mut Cursor::new(&file)).unwrap().members[2].member_size
    );
    let mut bad = encode(&data, &options);
    let second = list_members(&mut Cursor::new(&bad)).unwrap().members[1].offset as usize;
    bad[second] = b'X';
    let err = list_members(&mut Cursor::new(&bad)).unwrap_err();
    assert!(
        matches!(
            err.get_ref().unwrap().downcast_ref::<LzipError>(),
            Some(LzipError::NoMemberEndsAt(_))
        ),
        "{err}"
    );
}

#[test]
fn truncations_and_bit_flips_give_data_or_a_typed_error_however_split() {
    let data = text(20_000, 5);
    let options = LzipOptions::preset(1).unwrap().with_member_size(8_000);
    let file = encode(&data, &options);
    let limits = lzflow_core::Limits::NONE
        .with_memory(64 << 20)
        .with_output(1 << 20);
    let opts = DecoderOptions::default().with_limits(limits);
    let check = |bytes: &[u8], what: &str| {
        let whole = decode_with(LzipDecoder::new(&opts), bytes, 0, 1 << 16);
        let sliced = decode_with(LzipDecoder::new(&opts), bytes, 3, 7);
        assert_eq!(whole.1, sliced.1, "{what}: error depends on the split");
        assert!(whole.0 == sliced.0, "{what}: output depends on the split");
        assert!(
            whole.0.len() <= data.len() + 8_000,
            "{what}: too much output"
        );
        whole
    };
    for cut in 0..file.len() {
        let (out, result, _) = check(&file[..cut], "truncation");
        assert!(data.starts_with(&out), "cut {cut}: output is a prefix");
        // A cut between members (or inside the next ID string, which
        // counts as trailing data) leaves a valid file of fewer members.
        if result.is_ok() {
            assert!(
                !out.is_empty() && out.len() % 8_000 == 0,
                "cut {cut} accepted with {} bytes",
                out.len()
            );
        }
    }
    let mut x = 12345u64;
    for i in 0..3000 {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        let mut bad = file.clone();
        let at = (x as usize) % bad.len();
        bad[at] ^= 1 << (x >> 61);
        let (out, result, _) = check(&bad, &format!("flip {i} at {at}"));
        if result.is_ok() {
            // Accepted: either the flip hit nothing the format checks and
            // the data is right, or it broke a later member's ID string,
            // which then counts as trailing data after whole members.
            assert!(
                out == data || (data.starts_with(&out) && out.len() % 8_000 == 0),
                "flip {i} at {at} decoded to other data ({} bytes)",
                out.len()
            );
        }
    }
}

#[test]
fn multi_threaded_members_are_the_single_threaded_bytes_whatever_the_threads() {
    use lzflow_lzip::MtLzipEncoder;
    let data = text(700_000, 21);
    let options = LzipOptions::preset(0).unwrap();
    let piece = options.parallel_member_size();
    assert_eq!(piece, 128 << 10, "twice lzip -0's 64 KiB dictionary");
    let single = encode(&data, &options.with_member_size(piece));
    for threads in [1, 2, 3] {
        let mut enc = MtLzipEncoder::new(&options, threads).unwrap();
        let mut out = Vec::new();
        encode_to_end(&mut enc, &data, &mut out, &mut [0u8; 1000]).unwrap();
        assert!(out == single, "{threads} threads: other bytes");
        assert_eq!(enc.members(), 6);
    }
    // Non-blocking: calls that would wait return without progress; the
    // caller waits on the readiness handle (here: spins) and calls again.
    let mut enc = MtLzipEncoder::new(&options, 2).unwrap();
    enc.set_nonblocking(true);
    let mut out = Vec::new();
    let mut buf = [0u8; 4096];
    let mut input = InBuf::new(&data);
    while !input.is_empty() {
        let mut o = OutBuf::new(&mut buf);
        enc.encode(&mut input, &mut o).unwrap();
        out.extend_from_slice(o.written());
    }
    loop {
        let mut o = OutBuf::new(&mut buf);
        let p = enc.finish(&mut o).unwrap();
        out.extend_from_slice(o.written());
        if p == Progress::StreamEnd {
            break;
        }
        std::thread::yield_now();
    }
    assert!(out == single, "non-blocking: other bytes");
    // An empty input is one empty member either way.
    let mut enc = MtLzipEncoder::new(&options, 2).unwrap();
    let mut out = Vec::new();
    encode_to_end(&mut enc, b"", &mut out, &mut buf).unwrap();
    assert_eq!(out, encode(b"", &options));
}

#[test]
fn errors_in_a_member_name_its_input_offset() {
    let opts = LzipOptions::preset(1).unwrap();
    let first = encode(&text(50_000, 3), &opts);
    let second = encode(&text(80_000, 4), &opts);
    let mut both = first.clone();
    both.extend_from_slice(&second);
    // A byte in the middle of the second member's LZMA data: corrupt data
    // or a wrong CRC, either way naming the second member.
    let mut bad = both.clone();
    bad[first.len() + second.len() / 2] ^= 0x10;
    let (_, res, _) = decode(&bad);
    let e = res.unwrap_err();
    let at = match &e {
        LzipError::MemberData { member_offset, .. } => *member_offset,
        LzipError::CrcMismatch { member_offset, .. } => *member_offset,
        e => panic!("{e:?}"),
    };
    assert_eq!(at, first.len() as u64);
    assert!(
        e.to_string()
            .contains(&format!("at input offset {}", first.len())),
        "{e}"
    );
    // The first member's own trailer: its CRC, at offset 0.
    let mut bad = both.clone();
    bad[first.len() - 20] ^= 1;
    let (_, res, _) = decode(&bad);
    assert!(
        matches!(
            res,
            Err(LzipError::CrcMismatch {
                member_offset: 0,
                ..
            })
        ),
        "{res:?}"
    );
}
