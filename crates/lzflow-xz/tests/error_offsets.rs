//! Errors in a Block's data name the Block's input offset, the same from
//! the single-threaded, multi-threaded and seekable decoders, in the
//! first stream and in a later one.

mod common;

use common::{data, drive, encode_all, Split};
use lzflow_xz::{
    info::read_info, MtXzDecoder, MtXzDecoderOptions, XzDecoder, XzEncoder, XzEncoderOptions,
    XzError,
};

fn multi_block() -> Vec<u8> {
    let input = data("text", 200_000, 7);
    let opts = XzEncoderOptions::preset(0)
        .unwrap()
        .with_block_size(Some(20_000));
    encode_all(&mut XzEncoder::new(opts).unwrap(), &input, 1 << 20, 1 << 20).unwrap()
}

/// The input offset of every Block Header, from the Indexes.
fn block_offsets(xz: &[u8]) -> Vec<u64> {
    let info = read_info(std::io::Cursor::new(xz)).unwrap();
    let mut offsets = Vec::new();
    let mut at = 0;
    for stream in &info.streams {
        let mut b = at + 12;
        for block in &stream.blocks {
            offsets.push(b);
            b += block.total_size();
        }
        at += stream.compressed_size + stream.padding;
    }
    offsets
}

/// The offset the error names, and that the MT decoder's error is the
/// same.
fn error_offset(xz: &[u8]) -> u64 {
    let (_, res) = drive(
        &mut XzDecoder::default(),
        xz,
        Split::Random { seed: 3, max: 999 },
    );
    let e = res.unwrap_err();
    let mut mt = MtXzDecoder::new(MtXzDecoderOptions {
        threads: 2,
        ..MtXzDecoderOptions::default()
    });
    let (_, mt_res) = drive(&mut mt, xz, Split::Whole);
    assert_eq!(format!("{:?}", mt_res.unwrap_err()), format!("{e:?}"));
    let at = match e {
        XzError::Lzma {
            block_offset: Some(at),
            ..
        } => at,
        XzError::CheckMismatch { offset, .. } => offset,
        e => panic!("not a Block data error: {e:?}"),
    };
    assert!(
        e_display_has(&xz_error_text(xz), at),
        "the message names offset {at}"
    );
    at
}

fn xz_error_text(xz: &[u8]) -> String {
    let (_, res) = drive(&mut XzDecoder::default(), xz, Split::Whole);
    res.unwrap_err().to_string()
}

fn e_display_has(text: &str, at: u64) -> bool {
    text.contains(&format!("at input offset {at}"))
}

#[test]
fn damaged_block_data_names_the_blocks_offset() {
    let clean = multi_block();
    let blocks = block_offsets(&clean);
    assert!(blocks.len() >= 8, "{} blocks", blocks.len());
    for k in [0, 3, blocks.len() - 1] {
        // A byte well inside the Block's LZMA2 data.
        let mut xz = clean.clone();
        xz[blocks[k] as usize + 200] ^= 0x55;
        assert_eq!(error_offset(&xz), blocks[k], "block {k}");
    }
}

#[test]
fn a_wrong_check_names_the_blocks_offset() {
    let clean = multi_block();
    let blocks = block_offsets(&clean);
    // The last byte before the next Block is the end of this one's CRC64.
    let mut xz = clean.clone();
    xz[blocks[2] as usize - 1] ^= 1;
    let (_, res) = drive(&mut XzDecoder::default(), &xz, Split::Whole);
    match res.unwrap_err() {
        XzError::CheckMismatch { block, offset, .. } => {
            assert_eq!((block, offset), (2, blocks[1]));
        }
        e => panic!("{e:?}"),
    }
    assert_eq!(error_offset(&xz), blocks[1]);
}

#[test]
fn offsets_count_from_the_start_of_the_input_in_later_streams() {
    let one = multi_block();
    let mut two = one.clone();
    two.extend_from_slice(&[0; 8]); // Stream Padding
    two.extend_from_slice(&one);
    let blocks = block_offsets(&two);
    let k = blocks.len() - 2;
    assert!(blocks[k] > one.len() as u64 + 8);
    two[blocks[k] as usize + 300] ^= 0x55;
    assert_eq!(error_offset(&two), blocks[k]);
}
