//! The optional codecs (features `deflate`, `deflate64`, `bzip2`, `zstd`,
//! `ppmd`):
//! built in, each decodes or encodes; left out, its method is still in the
//! table and every use of it is the typed `MethodError::Disabled` naming
//! the method and the feature. CI runs this file with the default features
//! and with `--no-default-features`.

use lzflow_core::{CoderError, Culprit};
use lzflow_lzma::DecoderOptions;
use lzflow_methods::{
    encoder_memory, encoder_properties, new_decoder, new_encoder, Method, MethodError, Properties,
};

/// An optional method: its name, zip method, feature, whether this build
/// has the feature and whether the method has an encoder when built.
struct Optional {
    method: Method,
    name: &'static str,
    zip: u16,
    feature: &'static str,
    built: bool,
    has_encoder: bool,
}

const OPTIONAL: [Optional; 4] = [
    Optional {
        method: Method::Deflate,
        name: "Deflate",
        zip: 8,
        feature: "deflate",
        built: cfg!(feature = "deflate"),
        has_encoder: true,
    },
    Optional {
        method: Method::Deflate64,
        name: "Deflate64",
        zip: 9,
        feature: "deflate64",
        built: cfg!(feature = "deflate64"),
        has_encoder: false,
    },
    Optional {
        method: Method::BZip2,
        name: "BZip2",
        zip: 12,
        feature: "bzip2",
        built: cfg!(feature = "bzip2"),
        has_encoder: true,
    },
    Optional {
        method: Method::Zstd,
        name: "Zstandard",
        zip: 93,
        feature: "zstd",
        built: cfg!(feature = "zstd"),
        has_encoder: false,
    },
];

/// Checks `err` is `Disabled` for `name` and `feature`, with its message
/// and kind.
fn assert_disabled(err: MethodError, name: &str, feature: &str) {
    match &err {
        MethodError::Disabled {
            method: m,
            feature: f,
        } => assert_eq!((*m, *f), (name, feature)),
        other => panic!("{name}: {other:?}"),
    }
    assert_eq!(
        err.to_string(),
        format!(
            "compression method {name} is not built in: lzflow-methods' `{feature}` feature is off"
        )
    );
    assert_eq!(err.culprit(), Culprit::Unsupported);
    assert_eq!(
        std::io::Error::from(err).kind(),
        std::io::ErrorKind::Unsupported
    );
}

#[test]
fn optional_methods_are_known_and_built_or_disabled() {
    let opts = DecoderOptions::default();
    for o in OPTIONAL {
        let feature = o.feature;
        // The table knows the method either way.
        assert_eq!(o.method.name(), o.name);
        assert_eq!(Method::from_zip_id(o.zip), Some(o.method), "{feature}");
        let props = Properties::Plain(o.method);
        assert!(props.decoder_memory(None) > 0, "{feature}");
        let decoder = new_decoder(&props, None, &opts);
        let encoder = new_encoder(o.method, 6);
        if o.built {
            assert!(decoder.is_ok(), "{feature}");
            assert_eq!(encoder.is_ok(), o.has_encoder, "{feature}");
        } else {
            assert_disabled(decoder.err().unwrap(), o.name, feature);
            assert_disabled(encoder.err().unwrap(), o.name, feature);
            let props = encoder_properties(o.method, 6, None).unwrap_err();
            assert_disabled(props, o.name, feature);
            assert_eq!(encoder_memory(o.method, 6, None), 0, "{feature}");
        }
    }
}

#[test]
fn ppmd_is_built_or_disabled() {
    let props = Properties::Ppmd {
        order: 6,
        mem_size: 16 << 20,
    };
    assert_eq!(
        Properties::from_7z(Method::Ppmd, &props.to_7z()).unwrap(),
        props
    );
    assert!(props.decoder_memory(None) > 16 << 20);
    let decoder = new_decoder(&props, Some(10), &DecoderOptions::default());
    let encoder = new_encoder(Method::Ppmd, 5);
    if cfg!(feature = "ppmd") {
        assert!(decoder.is_ok());
        assert!(encoder.is_ok());
        assert_eq!(encoder_properties(Method::Ppmd, 5, None).unwrap(), props);
        assert!(encoder_memory(Method::Ppmd, 5, None) > 16 << 20);
    } else {
        assert_disabled(decoder.err().unwrap(), "PPMd", "ppmd");
        assert_disabled(encoder.err().unwrap(), "PPMd", "ppmd");
        let err = encoder_properties(Method::Ppmd, 5, None).unwrap_err();
        assert_disabled(err, "PPMd", "ppmd");
        assert_eq!(encoder_memory(Method::Ppmd, 5, None), 0);
    }
}

#[test]
fn xz_methods_are_always_built() {
    let opts = DecoderOptions::default();
    for props in [
        Properties::Lzma2 { dict_size: 1 << 20 },
        Properties::Plain(Method::Copy),
    ] {
        assert!(new_decoder(&props, None, &opts).is_ok(), "{props:?}");
    }
    assert!(new_encoder(Method::Lzma, 1).is_ok());
}
