//! The std faces (read, bufread, write) give the same bytes and the same
//! errors however the I/O is split, driving the reference coders of
//! faces_support through lzflow's generic faces.

mod faces_support;

use std::io::{self, BufRead, BufReader, Read, Write};

use faces_support::*;
use lzflow_core::Decode;

/// Every way the std faces can be driven, for one fixture's bytes.
fn decode_every_std_way<D, F>(data: &[u8], make: F) -> Vec<(&'static str, io::Result<Vec<u8>>)>
where
    D: Decode,
    D::Error: Into<io::Error>,
    F: Fn() -> D,
{
    let mut results = Vec::new();
    let mut whole = Vec::new();
    let r = lzflow::read::Decoder::with_coder(data, make())
        .read_to_end(&mut whole)
        .map(|_| whole);
    results.push(("read whole", r));

    let mut one = Vec::new();
    let r = lzflow::read::Decoder::with_coder(SplitReader::new(data.to_vec(), 1, 1), make())
        .read_to_end(&mut one)
        .map(|_| one);
    results.push(("read, 1-byte inner reads", r));

    let mut dec = lzflow::read::Decoder::with_coder(data, make());
    let mut tiny = Vec::new();
    let r = loop {
        let mut b = [0u8; 1];
        match dec.read(&mut b) {
            Ok(0) => break Ok(tiny),
            Ok(_) => tiny.push(b[0]),
            Err(e) => break Err(e),
        }
    };
    results.push(("read, 1-byte output buffer", r));

    let mut split = Vec::new();
    let r = lzflow::bufread::Decoder::with_coder(SplitReader::new(data.to_vec(), 97, 2), make())
        .read_to_end(&mut split)
        .map(|_| split);
    results.push(("bufread, random fills", r));

    let mut w = lzflow::write::Decoder::with_coder(Vec::new(), make());
    let r = write_in_pieces(&mut w, data, 333, 3).and_then(|_| w.finish());
    results.push(("write, random writes", r));

    let mut w = lzflow::write::Decoder::with_coder(SplitWriter::new(5, 4), make());
    let r = write_in_pieces(&mut w, data, 1, 5)
        .and_then(|_| w.flush())
        .and_then(|_| w.finish())
        .map(|s| s.data);
    results.push(("write, 1-byte writes into a 5-byte sink", r));
    results
}

#[test]
fn xz_fixtures_decode_identically_through_every_std_face() {
    let mut checked = 0;
    for fx in fixtures("xz") {
        let data = fx.bytes();
        let results = decode_every_std_way(&data, RefDecoder::xz);
        if fx.ok {
            for (how, r) in results {
                let got = r.unwrap_or_else(|e| panic!("{}: {how}: {e}", fx.name));
                assert_content(&fx, &got, how);
            }
            checked += 1;
        } else {
            let kinds: Vec<_> = results
                .into_iter()
                .map(|(how, r)| (how, r.expect_err(&fx.name).kind()))
                .collect();
            for (how, kind) in &kinds {
                assert_eq!(*kind, kinds[0].1, "{}: {how} error kind", fx.name);
            }
        }
    }
    assert!(checked >= 30, "only {checked} good xz fixtures");
}

#[test]
fn lzma_fixtures_decode_identically_through_every_std_face() {
    for fx in fixtures("lzma_alone") {
        let data = fx.bytes();
        for (how, r) in decode_every_std_way(&data, RefDecoder::lzma) {
            let got = r.unwrap_or_else(|e| panic!("{}: {how}: {e}", fx.name));
            assert_content(&fx, &got, how);
        }
    }
}

#[test]
fn an_error_is_delivered_after_the_good_bytes_and_then_sticks() {
    // Corrupt the last block of a multi-block file: the first blocks decode.
    let fx = fixtures("xz")
        .into_iter()
        .find(|f| f.name == "xz/multiblock.xz")
        .unwrap();
    let mut data = fx.bytes();
    let n = data.len();
    data[n - 200] ^= 0x55;
    let mut dec = lzflow::read::Decoder::with_coder(&data[..], RefDecoder::xz());
    let mut got = Vec::new();
    let err = dec.read_to_end(&mut got).unwrap_err();
    assert_eq!(err.kind(), io::ErrorKind::InvalidData);
    assert!(
        got.len() >= 5 * 32 * 1024,
        "good blocks delivered: {}",
        got.len()
    );
    // The blocks before the damaged one are intact (the damaged block's
    // bytes may be delivered unverified, as by any streaming decoder).
    let good = 5 * 32 * 1024;
    let expected = ref_decode_prefix(&fx.bytes(), good);
    assert!(got[..good] == expected[..], "intact blocks differ");
    for _ in 0..3 {
        let again = dec.read(&mut [0u8; 64]).unwrap_err();
        assert_eq!(again.kind(), io::ErrorKind::InvalidData);
        assert!(again.get_ref().unwrap().is::<lzflow::StickyError>());
    }
}

fn ref_decode_prefix(data: &[u8], n: usize) -> Vec<u8> {
    let mut all = ref_decode_xz(data);
    all.truncate(n);
    all
}

#[test]
fn truncation_is_unexpected_eof_in_every_face() {
    let fx = fixtures("xz")
        .into_iter()
        .find(|f| f.name == "xz/preset-6.xz")
        .unwrap();
    let data = fx.bytes();
    for cut in [0, 1, 12, data.len() / 2, data.len() - 1] {
        for (how, r) in decode_every_std_way(&data[..cut], RefDecoder::xz) {
            let e = r.expect_err(how);
            assert_eq!(
                e.kind(),
                io::ErrorKind::UnexpectedEof,
                "cut {cut} via {how}: {e}"
            );
        }
    }
}

#[test]
fn bufread_decoder_consumes_exactly_the_stream() {
    // A single-stream reference decoder stops at the end of the first
    // stream; the face must leave the rest in the reader.
    let payload = sample_data(50_000, 9);
    let mut data = xz_of(&payload, 6);
    let compressed_len = data.len();
    data.extend_from_slice(b"TRAILER");
    let single = RefDecoder::xz_single;
    let mut dec =
        lzflow::bufread::Decoder::with_coder(BufReader::with_capacity(7, &data[..]), single());
    let mut got = Vec::new();
    dec.read_to_end(&mut got).unwrap();
    assert!(got == payload);
    let mut rest = dec.into_inner();
    let mut tail = Vec::new();
    rest.read_to_end(&mut tail).unwrap();
    assert_eq!(tail, b"TRAILER");
    assert_eq!(data.len() - compressed_len, 7);
    let _ = rest.fill_buf();
}

#[test]
fn write_encoder_output_does_not_depend_on_write_sizes() {
    let payload = sample_data(300_000, 11);
    let one_shot = {
        let mut w = lzflow::write::Encoder::with_coder(Vec::new(), RefEncoder::xz(6));
        w.write_all(&payload).unwrap();
        w.finish().unwrap()
    };
    // The named face type runs the same coder with its own buffering.
    let mut reference = Vec::new();
    lzflow::read::XzEncoder::new(&payload[..], 6)
        .read_to_end(&mut reference)
        .unwrap();
    assert!(one_shot == reference, "generic and named faces differ");
    for seed in 0..3 {
        let mut w = lzflow::write::Encoder::with_coder(
            SplitWriter::new(1 + 50 * seed as usize, seed),
            RefEncoder::xz(6),
        );
        write_in_pieces(&mut w, &payload, 1 + 4000 * seed as usize, seed).unwrap();
        w.try_finish().unwrap();
        w.try_finish().unwrap();
        assert!(w.finish().unwrap().data == one_shot, "seed {seed}");
    }
}

#[test]
fn write_encoder_flush_makes_everything_decodable_and_drop_finishes() {
    let payload = sample_data(100_000, 12);
    let mut out = Vec::new();
    {
        let mut w = lzflow::write::Encoder::with_coder(&mut out, RefEncoder::xz(3));
        w.write_all(&payload[..60_000]).unwrap();
        w.flush().unwrap();
        w.flush().unwrap();
        let so_far = w.get_ref().to_vec();
        let mut partial = Vec::new();
        let mut dec = lzflow::read::Decoder::with_coder(&so_far[..], RefDecoder::xz());
        let mut buf = [0u8; 4096];
        loop {
            match dec.read(&mut buf) {
                Ok(0) => break,
                Ok(n) => partial.extend_from_slice(&buf[..n]),
                Err(e) => {
                    assert_eq!(e.kind(), io::ErrorKind::UnexpectedEof);
                    break;
                }
            }
        }
        assert!(partial == payload[..60_000], "flushed prefix");
        w.write_all(&payload[60_000..]).unwrap();
        // Dropped unfinished: the drop finishes the stream.
    }
    assert!(ref_decode_xz(&out) == payload);
}

#[test]
fn read_encoders_round_trip() {
    let payload = sample_data(200_000, 13);
    let mut a = Vec::new();
    lzflow::read::Encoder::with_coder(
        SplitReader::new(payload.clone(), 1000, 1),
        RefEncoder::xz(6),
    )
    .read_to_end(&mut a)
    .unwrap();
    let mut b = Vec::new();
    let mut enc = lzflow::bufread::Encoder::with_coder(
        SplitReader::new(payload.clone(), 3, 2),
        RefEncoder::xz(6),
    );
    let mut buf = [0u8; 7];
    loop {
        let n = enc.read(&mut buf).unwrap();
        if n == 0 {
            break;
        }
        b.extend_from_slice(&buf[..n]);
    }
    assert!(a == b, "read and bufread encoders differ");
    assert!(ref_decode_xz(&a) == payload);
    assert_eq!(enc.read(&mut buf).unwrap(), 0);
}

#[test]
fn write_decoder_reports_truncation_on_finish() {
    let payload = sample_data(10_000, 14);
    let data = xz_of(&payload, 1);
    let mut w = lzflow::write::Decoder::with_coder(Vec::new(), RefDecoder::xz());
    w.write_all(&data[..data.len() - 3]).unwrap();
    let e = w.try_finish().unwrap_err();
    assert_eq!(e.kind(), io::ErrorKind::UnexpectedEof);
    assert_eq!(
        w.try_finish().unwrap_err().kind(),
        io::ErrorKind::UnexpectedEof
    );
}

/// lzflow's own decoders, as the named face types build them.
fn lzflow_xz() -> lzflow_xz::XzDecoder {
    <lzflow_xz::XzDecoder as lzflow::DecoderFormat>::from_options(&Default::default()).unwrap()
}

fn lzflow_lzma() -> lzflow_lzma::AloneDecoder {
    <lzflow_lzma::AloneDecoder as lzflow::DecoderFormat>::from_options(&Default::default()).unwrap()
}

#[test]
fn xz_fixtures_through_lzflow_decoders_match_the_manifest_and_the_reference() {
    for fx in fixtures("xz") {
        let data = fx.bytes();
        let results = decode_every_std_way(&data, lzflow_xz);
        if fx.ok {
            for (how, r) in results {
                let got = r.unwrap_or_else(|e| panic!("{}: {how}: {e}", fx.name));
                assert_content(&fx, &got, how);
            }
        } else {
            // Every face reports the same kind.
            let mut first_kind = None;
            for (how, r) in results {
                let got = r.expect_err(how);
                let want = *first_kind.get_or_insert(got.kind());
                assert_eq!(got.kind(), want, "{}: {how}: {got}", fx.name);
                // The typed error is the source of the first error.
                assert!(
                    got.get_ref().is_some_and(
                        |e| e.is::<lzflow_xz::XzError>() || e.is::<lzflow::StickyError>()
                    ) || got.kind() == io::ErrorKind::UnexpectedEof,
                    "{}: {how}: {got:?}",
                    fx.name
                );
            }
        }
    }
}

#[test]
fn lzma_fixtures_through_lzflow_decoders() {
    for fx in fixtures("lzma_alone") {
        for (how, r) in decode_every_std_way(&fx.bytes(), lzflow_lzma) {
            let got = r.unwrap_or_else(|e| panic!("{}: {how}: {e}", fx.name));
            assert_content(&fx, &got, how);
        }
    }
}

#[test]
fn raw_fixtures_through_the_named_raw_decoders() {
    let raw = fixtures("raw");
    let get = |name: &str| raw.iter().find(|f| f.name == name).unwrap().clone();
    let fx = get("raw/lzma2-dict1MiB.raw");
    let mut out = Vec::new();
    lzflow::read::Lzma2Decoder::builder()
        .dict_size(1 << 20)
        .build(SplitReader::new(fx.bytes(), 3, 1))
        .read_to_end(&mut out)
        .unwrap();
    assert_content(&fx, &out, "read::Lzma2Decoder");

    let fx = get("raw/lzma2-empty.raw");
    let mut out = Vec::new();
    lzflow::bufread::Lzma2Decoder::builder()
        .dict_size(4096)
        .build(&fx.bytes()[..])
        .read_to_end(&mut out)
        .unwrap();
    assert_content(&fx, &out, "bufread::Lzma2Decoder");

    let fx = get("raw/lzma1-lc3-lp0-pb2-dict1MiB.raw");
    let mut w = lzflow::write::RawLzmaDecoder::builder()
        .dict_size(1 << 20)
        .props(lzflow_lzma::LzmaProps::new(3, 0, 2).unwrap())
        .build(Vec::new());
    write_in_pieces(&mut w, &fx.bytes(), 100, 2).unwrap();
    let out = w.finish().unwrap();
    assert_content(&fx, &out, "write::RawLzmaDecoder");
}

#[test]
fn named_decoders_apply_builder_options() {
    let fx = fixtures("xz")
        .into_iter()
        .find(|f| f.name == "xz/preset-9e.xz")
        .unwrap();
    let data = fx.bytes();
    // 64 MiB dictionary against a 1 MiB memory limit: refused before
    // allocating, as an OutOfMemory error carrying the typed error.
    let mut dec = lzflow::read::XzDecoder::builder()
        .memlimit(1 << 20)
        .build(&data[..]);
    let e = dec.read(&mut [0u8; 100]).unwrap_err();
    assert_eq!(e.kind(), io::ErrorKind::OutOfMemory, "{e}");
    assert!(e.get_ref().unwrap().is::<lzflow_xz::XzError>(), "{e:?}");

    // Output limit: decoding stops with an error at the limit.
    let mut out = Vec::new();
    let e = lzflow::read::XzDecoder::builder()
        .output_limit(1000)
        .build(&data[..])
        .read_to_end(&mut out)
        .unwrap_err();
    assert_eq!(e.kind(), io::ErrorKind::OutOfMemory, "{e}");
    assert!(out.len() <= 1000);

    // Single stream: the second stream stays in the reader.
    let multi = fixtures("xz")
        .into_iter()
        .find(|f| f.name == "xz/multistream.xz")
        .unwrap()
        .bytes();
    let mut single = lzflow::bufread::XzDecoder::builder()
        .single_stream()
        .build(&multi[..]);
    let mut first = Vec::new();
    single.read_to_end(&mut first).unwrap();
    let rest = single.into_inner();
    assert!(!rest.is_empty() && rest.len() < multi.len());
    assert_eq!(
        &rest[..6],
        b"\xFD7zXZ\x00",
        "the next stream's header is left"
    );
    let mut all = Vec::new();
    lzflow::bufread::XzDecoder::new(&multi[..])
        .read_to_end(&mut all)
        .unwrap();
    assert!(all.len() > first.len() && all.starts_with(&first));

    // multiple_members(false) before the first read acts like single_stream.
    let mut dec = lzflow::read::XzDecoder::new(&multi[..]);
    dec.multiple_members(false);
    let mut again = Vec::new();
    dec.read_to_end(&mut again).unwrap();
    assert!(again == first);
}

#[test]
fn ignore_check_decodes_data_with_a_bad_check() {
    let fx = fixtures("xz")
        .into_iter()
        .find(|f| f.name == "xz/check-sha256.xz")
        .unwrap();
    let mut data = fx.bytes();
    // The SHA-256 of the only block sits right before the index; the index
    // starts after the block, 12 + 24 bytes of footer/index from the end
    // are not touched by flipping the first byte of the check.
    let pos = find_check_position(&data, 32);
    data[pos] ^= 0xFF;
    let mut out = Vec::new();
    let e = lzflow::read::XzDecoder::new(&data[..])
        .read_to_end(&mut out)
        .unwrap_err();
    assert_eq!(e.kind(), io::ErrorKind::InvalidData, "{e}");
    let mut out = Vec::new();
    lzflow::read::XzDecoder::builder()
        .ignore_check()
        .build(&data[..])
        .read_to_end(&mut out)
        .unwrap();
    assert_content(&fx, &out, "ignore_check");
}

/// Offset of the first byte of the single block's check: the index begins
/// with 0x00 after the check; the footer is 12 bytes, so scan backwards
/// from the index indicator for the check of `size` bytes.
fn find_check_position(data: &[u8], size: usize) -> usize {
    // Backward Size (footer bytes 4..8) gives the index size.
    let footer = &data[data.len() - 12..];
    let backward = (u32::from_le_bytes(footer[4..8].try_into().unwrap()) as usize + 1) * 4;
    let index_start = data.len() - 12 - backward;
    assert_eq!(data[index_start], 0, "index indicator");
    index_start - size
}

#[test]
fn multithreaded_xz_decoder_faces_match_the_single_threaded_ones() {
    for name in [
        "xz/multiblock-mt.xz",
        "xz/multiblock.xz",
        "xz/block-list.xz",
        "xz/bad-truncated.xz",
    ] {
        let fx = fixtures("xz").into_iter().find(|f| f.name == name).unwrap();
        let data = fx.bytes();
        let mut mt = Vec::new();
        let mt_result = lzflow::read::MtXzDecoder::builder()
            .threads(3)
            .build(SplitReader::new(data.clone(), 4000, 1))
            .read_to_end(&mut mt);
        let mut w = lzflow::write::MtXzDecoder::builder()
            .threads(2)
            .build(Vec::new());
        let w_result = write_in_pieces(&mut w, &data, 999, 2).and_then(|_| w.finish());
        if fx.ok {
            mt_result.unwrap();
            assert_content(&fx, &mt, "read::MtXzDecoder");
            assert_content(&fx, &w_result.unwrap(), "write::MtXzDecoder");
        } else {
            let mut st = Vec::new();
            let st_kind = lzflow::read::XzDecoder::new(&data[..])
                .read_to_end(&mut st)
                .unwrap_err()
                .kind();
            assert_eq!(mt_result.unwrap_err().kind(), st_kind, "{name}");
            assert_eq!(w_result.unwrap_err().kind(), st_kind, "{name}");
        }
    }
}

#[test]
fn write_decoder_takes_no_bytes_after_a_single_stream_ends() {
    let one = fixtures("xz")
        .into_iter()
        .find(|f| f.name == "xz/one-byte.xz")
        .unwrap();
    let mut data = one.bytes();
    let stream_len = data.len();
    data.extend_from_slice(b"not xz");
    let mut w = lzflow::write::XzDecoder::builder()
        .single_stream()
        .build(Vec::new());
    let mut taken = 0;
    loop {
        let n = w.write(&data[taken..]).unwrap();
        if n == 0 {
            break;
        }
        taken += n;
    }
    assert_eq!(taken, stream_len, "exactly the stream was taken");
    let e = w.write_all(b"more").unwrap_err();
    assert_eq!(e.kind(), io::ErrorKind::WriteZero);
    assert_content(&one, &w.finish().unwrap(), "single-stream write decoder");

    // Multi-stream (the default) rejects the same trailing bytes.
    let mut w = lzflow::write::XzDecoder::new(Vec::new());
    let r = w.write_all(&data).and_then(|_| w.try_finish());
    assert_eq!(r.unwrap_err().kind(), io::ErrorKind::InvalidData);
}
