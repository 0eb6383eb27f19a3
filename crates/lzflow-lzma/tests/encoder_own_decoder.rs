//! Our encoders' output through lzflow's own decoders, including LZMA1
//! properties liblzma cannot decode (lc + lp > 4).

use lzflow_core::{Decode, Encode, InBuf, OutBuf, Progress};
use lzflow_lzma::{
    AloneDecoder, AloneEncoder, DecoderOptions, Lzma2Decoder, Lzma2Encoder, LzmaError, LzmaOptions,
};

fn encode_all<E: Encode<Error = LzmaError>>(enc: &mut E, data: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    let mut buf = vec![0u8; 1 << 16];
    let mut input = InBuf::new(data);
    loop {
        let mut o = OutBuf::new(&mut buf);
        let p = enc.encode(&mut input, &mut o).unwrap();
        out.extend_from_slice(o.written());
        if p == Progress::NeedInput {
            break;
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

fn decode_all<D: Decode<Error = LzmaError>>(dec: &mut D, comp: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    let mut buf = vec![0u8; 1 << 16];
    let mut input = InBuf::last(comp);
    loop {
        let mut o = OutBuf::new(&mut buf);
        let p = dec.decode(&mut input, &mut o).unwrap();
        out.extend_from_slice(o.written());
        if p == Progress::StreamEnd {
            assert!(input.is_empty(), "decoder stopped early");
            return out;
        }
    }
}

fn sample(n: usize) -> Vec<u8> {
    let mut v = Vec::with_capacity(n);
    let mut x = 99u32;
    while v.len() < n {
        x = x.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
        match x >> 30 {
            0 => v.push((x >> 8) as u8),
            1 => v.extend_from_slice(b"abracadabra "),
            _ => v.extend_from_slice(format!("{} ", x >> 27).as_bytes()),
        }
    }
    v.truncate(n);
    v
}

#[test]
fn lzma2_output_decodes_with_lzflow() {
    let data = sample(300_000);
    for level in [0, 4, 6] {
        let mut o = LzmaOptions::preset(level).unwrap();
        o.dict_size = 1 << 20;
        let comp = encode_all(&mut Lzma2Encoder::new(&o).unwrap(), &data);
        let mut dec = Lzma2Decoder::new(o.dict_size, &DecoderOptions::default()).unwrap();
        assert_eq!(decode_all(&mut dec, &comp), data, "preset {level}");
    }
}

#[test]
fn lzma_alone_with_wide_literal_contexts_decodes_with_lzflow() {
    let data = sample(200_000);
    for (lc, lp, pb) in [(8, 4, 4), (3, 0, 2), (5, 2, 0)] {
        let mut o = LzmaOptions::preset(6).unwrap();
        o.dict_size = 1 << 20;
        (o.lc, o.lp, o.pb) = (lc, lp, pb);
        let comp = encode_all(&mut AloneEncoder::new(&o).unwrap(), &data);
        let mut dec = AloneDecoder::new(&DecoderOptions::default());
        assert_eq!(decode_all(&mut dec, &comp), data, "lc={lc} lp={lp} pb={pb}");
    }
}

/// A size hint fits the dictionary (the properties say so) and never makes
/// the output invalid: exact, generous, undershot (more data than the
/// hint, with matches reaching past the fitted dictionary) and zero hints
/// all decode to the same bytes with a decoder given only the fitted
/// dictionary.
#[test]
fn size_hints_fit_the_dictionary_and_always_round_trip() {
    let mut data = sample(20_000);
    // The same 20 KB again: matches 20 KB back, beyond a 4 KiB dictionary.
    data.extend_from_within(..);
    let len = data.len() as u64;
    for level in [1, 5] {
        let opts = LzmaOptions::preset(level).unwrap();
        for hint in [0, 100, 5000, len, len * 10, 1 << 40] {
            let fitted = opts.fitted_to(hint).dict_size;
            let mut enc = Lzma2Encoder::with_size_hint(&opts, hint).unwrap();
            assert_eq!(enc.dict_size(), fitted);
            assert_eq!(enc.props_byte(), lzflow_lzma::lzma2_props_byte(fitted));
            assert!(fitted >= 4096 && fitted <= opts.dict_size);
            let comp = encode_all(&mut enc, &data);
            let mut dec = Lzma2Decoder::new(fitted, &DecoderOptions::default()).unwrap();
            assert_eq!(
                decode_all(&mut dec, &comp),
                data,
                "LZMA2 level {level} hint {hint}"
            );
            // The hint changes nothing but the dictionary: same bytes as an
            // encoder made from the fitted options.
            let plain = encode_all(
                &mut Lzma2Encoder::new(&opts.fitted_to(hint)).unwrap(),
                &data,
            );
            assert_eq!(comp, plain, "level {level} hint {hint}");

            let mut enc = lzflow_lzma::LzmaEncoder::with_size_hint(&opts, true, hint).unwrap();
            assert_eq!(enc.dict_size(), fitted);
            let comp = encode_all(&mut enc, &data);
            let mut dec = lzflow_lzma::LzmaDecoder::new(
                opts.props(),
                fitted,
                None,
                &DecoderOptions::default(),
            )
            .unwrap();
            assert_eq!(
                decode_all(&mut dec, &comp),
                data,
                "LZMA level {level} hint {hint}"
            );
        }
        // Fitting to the real size shrinks the dictionary: 40,000 bytes
        // need 48 KiB.
        assert_eq!(opts.fitted_to(len).dict_size, 48 << 10);
    }
}
