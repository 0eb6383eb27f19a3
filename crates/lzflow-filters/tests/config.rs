//! Filter IDs, properties and errors.

use std::io;

use lzflow_core::{CoderError, Culprit};
use lzflow_filters::{try_new_filter, Direction, FilterConfig, FilterError, FilterKind};

#[test]
fn unsupported_filter_errors_name_the_id() {
    let e = FilterError::UnsupportedFilter(0x4000_0000_0000_0001);
    assert_eq!(e.culprit(), Culprit::Unsupported);
    assert_eq!(e.to_string(), "unsupported filter ID 0x4000000000000001");
    assert_eq!(io::Error::from(e).kind(), io::ErrorKind::Unsupported);
}

#[test]
fn props_parse_and_serialize() {
    let d = FilterConfig::from_xz_props(FilterKind::Delta, &[0xFF]).unwrap();
    assert_eq!(d.distance, 256);
    assert_eq!(d.xz_props(), [0xFF]);
    let d = FilterConfig::from_7z_props(FilterKind::Delta, &[3]).unwrap();
    assert_eq!(d.distance, 4);

    let x = FilterConfig::from_xz_props(FilterKind::X86, &[]).unwrap();
    assert_eq!(x, FilterConfig::new(FilterKind::X86));
    assert!(x.xz_props().is_empty());
    // x86 has alignment 1: any offset.
    let x = FilterConfig::from_xz_props(FilterKind::X86, &[3, 0, 0, 0]).unwrap();
    assert_eq!(x.start_offset, 3);
    assert_eq!(x.xz_props(), [3, 0, 0, 0]);
    let a = FilterConfig::from_7z_props(FilterKind::Arm64, &[0, 0x10, 0, 0]).unwrap();
    assert_eq!(a.start_offset, 4096);
    assert_eq!(a.sevenz_props(), [0, 0x10, 0, 0]);
    // An explicit zero offset parses; it is written back as no properties.
    let z = FilterConfig::from_xz_props(FilterKind::Sparc, &[0, 0, 0, 0]).unwrap();
    assert!(z.xz_props().is_empty());
}

#[test]
fn malformed_props_are_corrupt() {
    for props in [&[][..], &[0, 0][..]] {
        let e = FilterConfig::from_xz_props(FilterKind::Delta, props).unwrap_err();
        assert!(matches!(
            e,
            FilterError::InvalidProperties {
                kind: FilterKind::Delta,
                ..
            }
        ));
        assert_eq!(e.culprit(), Culprit::Corrupt);
    }
    for props in [&[1][..], &[1, 2, 3][..], &[0, 0, 0, 0, 0][..]] {
        let e = FilterConfig::from_xz_props(FilterKind::Arm, props).unwrap_err();
        assert!(matches!(
            e,
            FilterError::InvalidProperties {
                kind: FilterKind::Arm,
                ..
            }
        ));
    }
    let e = FilterConfig::from_xz_props(FilterKind::Arm, &[2, 0, 0, 0]).unwrap_err();
    assert_eq!(
        e,
        FilterError::UnalignedStartOffset {
            kind: FilterKind::Arm,
            offset: 2,
            alignment: 4
        }
    );
    assert_eq!(
        e.to_string(),
        "corrupt ARM filter properties: start offset 2 is not a multiple of 4"
    );
    let io = io::Error::from(e.clone());
    assert_eq!(io.kind(), io::ErrorKind::InvalidData);
    assert_eq!(
        io.get_ref().unwrap().downcast_ref::<FilterError>(),
        Some(&e)
    );

    let cases = [
        (FilterKind::Ia64, 8, 16),
        (FilterKind::ArmThumb, 1, 2),
        (FilterKind::RiscV, 3, 2),
        (FilterKind::PowerPc, 6, 4),
        (FilterKind::Sparc, 1, 4),
        (FilterKind::Arm64, 4098, 4),
    ];
    for (kind, offset, alignment) in cases {
        let e = FilterConfig::from_xz_props(kind, &u32::to_le_bytes(offset)).unwrap_err();
        assert_eq!(
            e,
            FilterError::UnalignedStartOffset {
                kind,
                offset,
                alignment
            }
        );
        // The aligned neighbour is fine.
        let ok = offset - offset % alignment;
        FilterConfig::from_xz_props(kind, &u32::to_le_bytes(ok)).unwrap();
    }
}

#[test]
fn out_of_range_configs_are_usage_errors() {
    for distance in [0, 257, u32::MAX] {
        let cfg = FilterConfig::new(FilterKind::Delta).with_distance(distance);
        let e = try_new_filter(&cfg, Direction::Decode).err().unwrap();
        assert!(matches!(
            e,
            FilterError::InvalidConfig {
                kind: FilterKind::Delta,
                ..
            }
        ));
        assert_eq!(e.culprit(), Culprit::Usage);
        assert_eq!(io::Error::from(e).kind(), io::ErrorKind::InvalidInput);
    }
    let cfg = FilterConfig::new(FilterKind::Ia64).with_start_offset(4);
    assert!(try_new_filter(&cfg, Direction::Encode).is_err());
    // The distance is ignored by BCJ filters and the offset by Delta.
    let cfg = FilterConfig::new(FilterKind::X86).with_distance(0);
    assert!(try_new_filter(&cfg, Direction::Encode).is_ok());
}

#[test]
#[should_panic(expected = "invalid Delta filter options")]
fn new_filter_panics_on_invalid_config() {
    let cfg = FilterConfig::new(FilterKind::Delta).with_distance(0);
    let _ = lzflow_filters::new_filter(&cfg, Direction::Decode);
}

#[test]
fn alignment_table_matches_the_spec() {
    let got: Vec<u32> = FilterKind::ALL.iter().map(|k| k.alignment()).collect();
    // Delta, x86, PowerPC, IA-64, ARM, ARM-Thumb, SPARC, ARM64, RISC-V
    assert_eq!(got, [1, 1, 4, 16, 4, 2, 4, 4, 2]);
}
