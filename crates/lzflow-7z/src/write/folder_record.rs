//! A written folder's record in the header model (7zFormat.txt's Folder,
//! with its Coders and bind pairs) and the coder records the writer makes:
//! the LZ coder, the filter, BCJ2 with its side coders, AES, and the
//! header's LZMA.

use lzflow_filters::FilterConfig;
use lzflow_lzma::LzmaOptions;
use lzflow_methods::{Method as Registry, Properties};

use crate::read::folder::{BindPair, Coder, Folder};
use crate::read::header::StreamsInfo;
use crate::write::aes_encoder::AesEncoder;
use crate::write::bcj2_encoder::{side_options, Bcj2Sizes};
use crate::write::folder_encoder::{FolderEncoder, Lz};
use crate::write::writer_options::Method;
use crate::SevenZError;

/// The filter in front of a folder's LZ coder.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum FolderFilter {
    /// None.
    None,
    /// A one-stream filter (BCJ, Delta).
    Simple(FilterConfig),
    /// BCJ2, with LZMA coders for its CALL and JUMP streams.
    Bcj2,
}

/// What the header records about a folder, besides its encoder's output.
pub(crate) struct FolderMeta {
    /// The LZ method.
    pub(crate) method: Method,
    /// The LZ options the engine was made with (the fitted dictionary).
    pub(crate) lz_opts: LzmaOptions,
    /// The filter before the LZ coder.
    pub(crate) filter: FolderFilter,
    /// The AES coder's properties (salt and IV) when encrypting.
    pub(crate) aes_props: Option<Vec<u8>>,
    /// With BCJ2 and encryption: the properties of the AES coders of the
    /// flag, CALL and JUMP streams.
    pub(crate) side_aes_props: Vec<Vec<u8>>,
    /// Uncompressed bytes in the folder.
    pub(crate) in_size: u64,
    /// Entries with data in the folder.
    pub(crate) files: usize,
}

/// Records a written folder in the header model and keeps its engine for
/// the next folder (at most `threads` engines are kept).
pub(crate) fn record_folder(
    main: &mut StreamsInfo,
    idle: &mut Vec<(Lz, LzmaOptions)>,
    threads: usize,
    f: FolderMeta,
    mut enc: Box<FolderEncoder>,
) -> Result<(), SevenZError> {
    if f.filter == FolderFilter::Bcj2 {
        let (sizes, side_packed) = enc
            .bcj2
            .ok_or(SevenZError::WriterUnusable("BCJ2 folder not finished"))?;
        let folder = bcj2_folder(&f, enc.lz_out, sizes, side_packed);
        let aes = f.aes_props.is_some();
        let pad = |n: u64| if aes { AesEncoder::padded_len(n) } else { n };
        main.pack.sizes.push(pad(enc.lz_out));
        main.pack.sizes.extend(side_packed.iter().map(|&n| pad(n)));
        main.pack.crcs.extend([None; 4]);
        main.folders.push(folder);
    } else {
        let mut coders = Vec::with_capacity(3);
        let mut unpack_sizes = Vec::with_capacity(3);
        let mut packed = enc.lz_out;
        if let Some(props) = f.aes_props {
            coders.push(coder(Registry::Aes7z, props));
            unpack_sizes.push(enc.lz_out);
            packed = AesEncoder::padded_len(enc.lz_out);
        }
        coders.push(lz_coder(f.method, &f.lz_opts));
        unpack_sizes.push(f.in_size);
        if let FolderFilter::Simple(cfg) = &f.filter {
            coders.push(coder(
                Registry::Filter(cfg.kind),
                Properties::Filter(cfg.clone()).to_7z(),
            ));
            unpack_sizes.push(f.in_size);
        }
        // Coder i decodes the output of coder i - 1; coder 0 reads the
        // packed stream (7-Zip's order).
        let bind_pairs = (1..coders.len())
            .map(|i| BindPair {
                in_index: i,
                out_index: i - 1,
            })
            .collect();
        main.pack.sizes.push(packed);
        main.pack.crcs.push(None);
        main.folders.push(Folder {
            coders,
            bind_pairs,
            packed_streams: vec![0],
            unpack_sizes,
            crc: None,
        });
    }
    main.substreams.per_folder.push(f.files);
    if let Some(stage) = enc.stage.take() {
        let mut lz = stage.into_lz();
        lz.reset();
        idle.push((lz, f.lz_opts));
        if idle.len() > threads.max(1) {
            idle.remove(0);
        }
    }
    Ok(())
}

/// A BCJ2 folder's record, laid out as 7-Zip lays it out (some readers
/// expect exactly that). Coders: 0 LZMA for JUMP, 1 LZMA for CALL, 2 the
/// main LZ coder, 3 BCJ2 (inputs 3-6: main, CALL, JUMP, flags). When
/// encrypting, four AES coders come first (JUMP, CALL, flags, main) and
/// the others move up by four. The packed streams are main, flags, CALL,
/// JUMP, in that order; `side_packed` has the packed sizes of the flag,
/// CALL and JUMP streams before encryption.
fn bcj2_folder(
    f: &FolderMeta,
    main_lz_out: u64,
    sizes: Bcj2Sizes,
    side_packed: [u64; 3],
) -> Folder {
    let [main_raw, call_raw, jump_raw] = sizes.raw;
    let [rc_len, call_lz_out, jump_lz_out] = side_packed;
    let side = |dict_size: u32| {
        let opts = LzmaOptions {
            dict_size,
            ..side_options()
        };
        coder(Registry::Lzma, lzma_props(&opts))
    };
    let bcj2 = Coder {
        method: Registry::Bcj2
            .sevenz_id()
            .expect("BCJ2 has a 7z ID")
            .to_vec(),
        num_in_streams: 4,
        num_out_streams: 1,
        properties: Vec::new(),
    };
    let mut coders = Vec::with_capacity(8);
    let mut unpack_sizes = Vec::with_capacity(8);
    let pair = |in_index, out_index| BindPair {
        in_index,
        out_index,
    };
    let (bind_pairs, packed_streams) = match &f.aes_props {
        None => (vec![pair(5, 0), pair(4, 1), pair(3, 2)], vec![2, 6, 1, 0]),
        Some(main_props) => {
            let [rc_props, call_props, jump_props] =
                [0, 1, 2].map(|i| f.side_aes_props.get(i).cloned().unwrap_or_default());
            for (props, lz_out) in [
                (jump_props, jump_lz_out),
                (call_props, call_lz_out),
                (rc_props, rc_len),
                (main_props.clone(), main_lz_out),
            ] {
                coders.push(coder(Registry::Aes7z, props));
                unpack_sizes.push(lz_out);
            }
            (
                vec![
                    pair(4, 0),
                    pair(5, 1),
                    pair(10, 2),
                    pair(6, 3),
                    pair(9, 4),
                    pair(8, 5),
                    pair(7, 6),
                ],
                vec![3, 2, 1, 0],
            )
        }
    };
    coders.extend([
        side(sizes.side_dicts[1]),
        side(sizes.side_dicts[0]),
        lz_coder(f.method, &f.lz_opts),
        bcj2,
    ]);
    unpack_sizes.extend([jump_raw, call_raw, main_raw, f.in_size]);
    Folder {
        coders,
        bind_pairs,
        packed_streams,
        unpack_sizes,
        crc: None,
    }
}

/// A simple coder (one stream in, one out) of the registry's `method`
/// with its `properties`.
pub(crate) fn coder(method: Registry, properties: Vec<u8>) -> Coder {
    Coder {
        method: method
            .sevenz_id()
            .expect("the writer writes only methods 7z has an ID for")
            .to_vec(),
        num_in_streams: 1,
        num_out_streams: 1,
        properties,
    }
}

/// LZMA coder properties: the lc/lp/pb byte and the dictionary size.
pub(crate) fn lzma_props(opts: &LzmaOptions) -> Vec<u8> {
    Properties::Lzma {
        props: opts.props(),
        dict_size: opts.dict_size,
    }
    .to_7z()
}

/// The coder record of a folder's LZ `method`, made with `opts`.
fn lz_coder(method: Method, opts: &LzmaOptions) -> Coder {
    match method {
        Method::Lzma2 => coder(
            Registry::Lzma2,
            Properties::Lzma2 {
                dict_size: opts.dict_size,
            }
            .to_7z(),
        ),
        Method::Lzma => coder(Registry::Lzma, lzma_props(opts)),
        Method::Copy => coder(Registry::Copy, Vec::new()),
        // Neither has properties in 7z (7-Zip writes none).
        Method::Deflate => coder(Registry::Deflate, Vec::new()),
        Method::BZip2 => coder(Registry::BZip2, Vec::new()),
        Method::Ppmd { order, mem_size } => {
            coder(Registry::Ppmd, Properties::Ppmd { order, mem_size }.to_7z())
        }
    }
}

#[cfg(test)]
mod tests {
    use lzflow_filters::FilterKind;

    use super::*;

    #[test]
    fn coder_ids_are_7zips() {
        let id = |m| coder(m, Vec::new()).method;
        assert_eq!(
            id(Registry::Filter(FilterKind::X86)),
            [0x03, 0x03, 0x01, 0x03]
        );
        assert_eq!(id(Registry::Filter(FilterKind::Delta)), [0x03]);
        assert_eq!(id(Registry::Filter(FilterKind::Arm64)), [0x0A]);
        assert_eq!(
            id(Registry::Filter(FilterKind::Sparc)),
            [0x03, 0x03, 0x08, 0x05]
        );
        assert_eq!(id(Registry::Lzma2), [0x21]);
        assert_eq!(id(Registry::Lzma), [0x03, 0x01, 0x01]);
        assert_eq!(id(Registry::Copy), [0x00]);
        assert_eq!(id(Registry::Aes7z), [0x06, 0xF1, 0x07, 0x01]);
        for kind in FilterKind::ALL {
            // Every filter the writer may put before the LZ coder.
            assert!(!id(Registry::Filter(kind)).is_empty());
        }
    }
}
