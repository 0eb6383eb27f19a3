//! Entry names and comments as text. APPNOTE appendix D: without general
//! purpose bit 11 the bytes are IBM code page 437, with it UTF-8; the
//! Info-ZIP Unicode Path extra field (0x7075) carries a UTF-8 name for a
//! raw name it vouches for by CRC-32.
//!
//! Writers on Unix (Info-ZIP among them) store UTF-8 names without bit 11,
//! so, like unzip 6.0 and 7-Zip on Unix, a name that is valid UTF-8 is read
//! as UTF-8 and only the rest as CP437. The names where both readings are
//! possible but differ need bytes 0x80 and up in UTF-8's strict patterns,
//! which CP437 text (accented letters next to ASCII) does not form.

use std::borrow::Cow;

use super::extra_field::{self, UnicodePath};

/// Code page 437's upper half, bytes 0x80 to 0xFF, from IBM's definition:
/// accented Latin letters, currency signs, box drawing, Greek letters and
/// mathematical symbols. The lower half is ASCII.
const CP437_HIGH: [char; 128] = [
    // 0x80
    'Ç', 'ü', 'é', 'â', 'ä', 'à', 'å', 'ç', 'ê', 'ë', 'è', 'ï', 'î', 'ì', 'Ä', 'Å',
    // 0x90
    'É', 'æ', 'Æ', 'ô', 'ö', 'ò', 'û', 'ù', 'ÿ', 'Ö', 'Ü', '¢', '£', '¥', '₧', 'ƒ',
    // 0xA0
    'á', 'í', 'ó', 'ú', 'ñ', 'Ñ', 'ª', 'º', '¿', '⌐', '¬', '½', '¼', '¡', '«', '»',
    // 0xB0
    '░', '▒', '▓', '│', '┤', '╡', '╢', '╖', '╕', '╣', '║', '╗', '╝', '╜', '╛', '┐',
    // 0xC0
    '└', '┴', '┬', '├', '─', '┼', '╞', '╟', '╚', '╔', '╩', '╦', '╠', '═', '╬', '╧',
    // 0xD0
    '╨', '╤', '╥', '╙', '╘', '╒', '╓', '╫', '╪', '┘', '┌', '█', '▄', '▌', '▐', '▀',
    // 0xE0
    'α', 'ß', 'Γ', 'π', 'Σ', 'σ', 'µ', 'τ', 'Φ', 'Θ', 'Ω', 'δ', '∞', 'φ', 'ε', '∩',
    // 0xF0
    '≡', '±', '≥', '≤', '⌠', '⌡', '÷', '≈', '°', '∙', '·', '√', 'ⁿ', '²', '■', '\u{A0}',
];

/// `raw` read as code page 437; borrowed when it is all ASCII.
pub fn decode_cp437(raw: &[u8]) -> Cow<'_, str> {
    if raw.is_ascii() {
        // ASCII bytes are valid UTF-8 as they are.
        return String::from_utf8_lossy(raw);
    }
    Cow::Owned(
        raw.iter()
            .map(|&b| match b.checked_sub(0x80) {
                Some(high) => CP437_HIGH
                    .get(usize::from(high))
                    .copied()
                    .unwrap_or('\u{FFFD}'),
                None => char::from(b),
            })
            .collect(),
    )
}

/// An entry's name as text, from its raw bytes, its general purpose bit 11
/// and its extra field: UTF-8 when bit 11 is set (invalid sequences become
/// U+FFFD), else the Unicode Path extra field's name when its CRC-32
/// matches `raw` (a stale one, left by a tool that renamed the entry, is
/// ignored), else `raw` itself when it is valid UTF-8, else CP437.
pub fn decode_name<'a>(raw: &'a [u8], utf8_flag: bool, extra: &'a [u8]) -> Cow<'a, str> {
    if !utf8_flag {
        let unicode_path = extra_field::find(extra, UnicodePath::ID)
            .and_then(|data| UnicodePath::parse(data).ok())
            .filter(|path| path.matches(raw));
        if let Some(path) = unicode_path {
            return String::from_utf8_lossy(path.name);
        }
    }
    decode_text(raw, utf8_flag)
}

/// A name or comment as text by general purpose bit 11 alone: UTF-8 when
/// it is set (invalid sequences become U+FFFD), else UTF-8 when `raw` is
/// valid UTF-8, else CP437.
pub fn decode_text(raw: &[u8], utf8_flag: bool) -> Cow<'_, str> {
    if utf8_flag {
        return String::from_utf8_lossy(raw);
    }
    match std::str::from_utf8(raw) {
        Ok(text) => Cow::Borrowed(text),
        Err(_) => decode_cp437(raw),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cp437_upper_half() {
        let all: Vec<u8> = (0x80..=0xFF).collect();
        let text = decode_cp437(&all);
        assert_eq!(text.chars().count(), 128);
        assert!(text.starts_with("ÇüéâäàåçêëèïîìÄÅÉæÆôöòûùÿÖÜ¢£¥₧ƒ"));
        assert!(text.contains("αßΓπΣσµτΦΘΩδ∞φε∩≡±≥≤⌠⌡÷≈°∙·√ⁿ²■"));
        assert_eq!(decode_cp437(b"r\x82sum\x82.txt"), "résumé.txt");
        assert_eq!(decode_cp437(b"\x9cprice-\xe1eta.txt"), "£price-ßeta.txt");
        assert!(matches!(decode_cp437(b"plain"), Cow::Borrowed("plain")));
    }

    #[test]
    fn name_rules() {
        // Not UTF-8 and no flag: CP437.
        assert_eq!(decode_name(b"r\x82sum\x82.txt", false, &[]), "résumé.txt");
        // UTF-8 without the flag (Info-ZIP on Unix): UTF-8.
        assert_eq!(decode_name("Grüße".as_bytes(), false, &[]), "Grüße");
        // Flag set: UTF-8, invalid bytes replaced.
        assert_eq!(decode_name(b"a\x82", true, &[]), "a\u{FFFD}");
    }

    fn unicode_path_extra(crc: u32, name: &str) -> Vec<u8> {
        let mut data = vec![1];
        data.extend_from_slice(&crc.to_le_bytes());
        data.extend_from_slice(name.as_bytes());
        let mut extra = UnicodePath::ID.to_le_bytes().to_vec();
        extra.extend_from_slice(&u16::try_from(data.len()).unwrap().to_le_bytes());
        extra.extend_from_slice(&data);
        extra
    }

    #[test]
    fn unicode_path_with_matching_crc_wins() {
        let raw = b"r\x82sum\x82.txt";
        let extra = unicode_path_extra(crc32fast::hash(raw), "résumé (unicode).txt");
        assert_eq!(decode_name(raw, false, &extra), "résumé (unicode).txt");
        // Bit 11 says the raw name is already UTF-8: the extra is not needed.
        assert_eq!(decode_name(b"plain", true, &extra), "plain");
    }

    #[test]
    fn unicode_path_with_wrong_crc_is_ignored() {
        let raw = b"r\x82sum\x82.txt";
        let extra = unicode_path_extra(crc32fast::hash(raw) ^ 1, "renamed.txt");
        assert_eq!(decode_name(raw, false, &extra), "résumé.txt");
        // A version other than 1 is ignored too.
        let mut extra = unicode_path_extra(crc32fast::hash(raw), "other.txt");
        extra[4] = 2;
        assert_eq!(decode_name(raw, false, &extra), "résumé.txt");
    }
}
