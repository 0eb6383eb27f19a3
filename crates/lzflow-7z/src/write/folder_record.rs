//! A written folder's record in the header model (7zFormat.txt's Folder,
//! with its Coders and bind pairs) and the coder records the writer makes:
//! the LZ coder, the filter, AES, and the header's LZMA.

use lzflow_filters::FilterConfig;
use lzflow_lzma::LzmaOptions;
use lzflow_methods::{Method as Registry, Properties};

use crate::read::folder::{BindPair, Coder, Folder};
use crate::read::header::StreamsInfo;
use crate::write::aes_encoder::AesEncoder;
use crate::write::folder_encoder::{FolderEncoder, Lz};
use crate::write::writer_options::Method;
use crate::SevenZError;

/// What the header records about a folder, besides its encoder's output.
pub(crate) struct FolderMeta {
    /// The LZ method.
    pub(crate) method: Method,
    /// The LZ options the engine was made with (the fitted dictionary).
    pub(crate) lz_opts: LzmaOptions,
    /// The filter before the LZ coder, if any.
    pub(crate) filter: Option<FilterConfig>,
    /// The AES coder's properties (salt and IV) when encrypting.
    pub(crate) aes_props: Option<Vec<u8>>,
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
    if let Some(cfg) = &f.filter {
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
