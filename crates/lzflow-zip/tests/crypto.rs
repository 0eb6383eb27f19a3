//! The decryption coders against the zip fixtures (shared/fixtures/zip):
//! every encrypted entry of the ZipCrypto and WinZip AES archives is found
//! by walking the local file headers, decrypted with input split every
//! which way, decompressed, and compared with MANIFEST.tsv's SHA-256. Also:
//! wrong passwords, altered ciphertext, truncation, and small AES-128/192
//! and AE-1 vectors made by 7-Zip and by the fixtures' own writer.

use std::collections::HashMap;
use std::io::Read;
use std::path::PathBuf;

use lzflow_core::{Decode, InBuf, OutBuf, Progress};
use lzflow_zip::{AesStrength, WinZipAesDecoder, ZipCryptoDecoder, ZipError};
use sha2::{Digest, Sha256};

const PASSWORD: &[u8] = b"fixture-pass";
const WRONG: &[u8] = b"wrong-pass";

fn fixtures() -> PathBuf {
    let manifest = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let candidates = [
        std::env::var_os("LZFLOW_ZIP_FIXTURES").map(PathBuf::from),
        Some(manifest.join("../../fixtures/zip")),
        Some(manifest.join("../../../shared/fixtures/zip")),
    ];
    candidates
        .into_iter()
        .flatten()
        .find(|p| p.join("MANIFEST.tsv").is_file())
        .expect("zip fixtures not found (set LZFLOW_ZIP_FIXTURES)")
}

fn read_fixture(name: &str) -> Vec<u8> {
    std::fs::read(fixtures().join(name)).unwrap_or_else(|e| panic!("{name}: {e}"))
}

/// MANIFEST.tsv: (file, entry_path) → (encryption, entry_sha256).
fn manifest() -> HashMap<(String, String), (String, String)> {
    let text = std::fs::read_to_string(fixtures().join("MANIFEST.tsv")).unwrap();
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().unwrap().split('\t').collect();
    let col = |name| header.iter().position(|h| *h == name).unwrap();
    let (file, enc, path, sha) = (
        col("file"),
        col("encryption"),
        col("entry_path"),
        col("entry_sha256"),
    );
    lines
        .map(|l| l.split('\t').collect::<Vec<_>>())
        .map(|f| {
            (
                (f[file].to_owned(), f[path].to_owned()),
                (f[enc].to_owned(), f[sha].to_owned()),
            )
        })
        .collect()
}

/// One local file header and the entry's stored bytes.
struct Local<'a> {
    name: String,
    flags: u16,
    method: u16,
    time: u16,
    crc: u32,
    size: u32,
    /// (vendor version, strength byte, real method) of a 0x9901 extra.
    aes: Option<(u16, u8, u16)>,
    data: &'a [u8],
}

fn u16_at(b: &[u8], at: usize) -> u16 {
    u16::from_le_bytes([b[at], b[at + 1]])
}

fn u32_at(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(b[at..at + 4].try_into().unwrap())
}

/// Walks the local file headers from offset 0 (sizes are in the local
/// headers of these fixtures; no Zip64).
fn locals(zip: &[u8]) -> Vec<Local<'_>> {
    let mut out = Vec::new();
    let mut at = 0;
    while zip.len() >= at + 30 && u32_at(zip, at) == 0x0403_4b50 {
        let flags = u16_at(zip, at + 6);
        let csize = u32_at(zip, at + 18) as usize;
        let name_len = usize::from(u16_at(zip, at + 26));
        let extra_len = usize::from(u16_at(zip, at + 28));
        let name_at = at + 30;
        let extra_at = name_at + name_len;
        let data_at = extra_at + extra_len;
        let extra = &zip[extra_at..data_at];
        let mut aes = None;
        let mut e = 0;
        while e + 4 <= extra.len() {
            let (id, len) = (u16_at(extra, e), usize::from(u16_at(extra, e + 2)));
            let body = &extra[e + 4..e + 4 + len];
            if id == 0x9901 {
                assert_eq!(len, 7);
                assert_eq!(&body[2..4], b"AE");
                aes = Some((u16_at(body, 0), body[4], u16_at(body, 5)));
            }
            e += 4 + len;
        }
        out.push(Local {
            name: String::from_utf8(zip[name_at..extra_at].to_vec()).unwrap(),
            flags,
            method: u16_at(zip, at + 8),
            time: u16_at(zip, at + 10),
            crc: u32_at(zip, at + 14),
            size: u32_at(zip, at + 22),
            aes,
            data: &zip[data_at..data_at + csize],
        });
        at = data_at + csize;
        if flags & 8 != 0 {
            // Data descriptor, with its optional signature.
            at += if u32_at(zip, at) == 0x0807_4b50 {
                16
            } else {
                12
            };
        }
    }
    assert!(!out.is_empty(), "no local headers");
    out
}

/// A small deterministic generator for split sizes.
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 % n as u64) as usize
    }
}

/// How input and output are cut.
#[derive(Clone, Copy, Debug)]
enum Split {
    Whole,
    Bytes,
    Random(u64),
}

/// Runs `dec` over `data` cut as `split` says, the last slice marked last;
/// checks the Decode contract's bookkeeping on the way.
fn drive<D: Decode<Error = ZipError>>(
    dec: &mut D,
    data: &[u8],
    split: Split,
) -> Result<Vec<u8>, ZipError> {
    let mut rng = match split {
        Split::Random(seed) => Some(Rng(seed | 1)),
        _ => None,
    };
    let mut out = Vec::new();
    let mut room = vec![0u8; 1 << 16];
    let mut pos = 0;
    let mut end = 0;
    let mut idle = 0;
    loop {
        if end == pos {
            end = match (split, &mut rng) {
                (Split::Whole, _) => data.len(),
                (Split::Bytes, _) => (pos + 1).min(data.len()),
                (_, Some(r)) => pos + 1 + r.below(40) + usize::from(r.below(8) == 0) * 4000,
                _ => unreachable!(),
            }
            .min(data.len());
        }
        let out_len = match (split, &mut rng) {
            (Split::Whole, _) => room.len(),
            (Split::Bytes, _) => 1,
            (_, Some(r)) => r.below(3000),
            _ => unreachable!(),
        };
        let mut input = InBuf::new(&data[pos..end]).with_last(end == data.len());
        let mut o = OutBuf::new(&mut room[..out_len]);
        let p = dec.decode(&mut input, &mut o)?;
        out.extend_from_slice(o.written());
        pos += input.pos();
        match p {
            Progress::StreamEnd => {
                assert_eq!(pos, data.len(), "input left over at the end");
                return Ok(out);
            }
            Progress::NeedInput => assert_eq!(pos, end, "NeedInput with input left"),
            Progress::OutputFull => {}
        }
        idle = if input.pos() == 0 && o.pos() == 0 && out_len > 0 {
            idle + 1
        } else {
            0
        };
        assert!(idle < 3, "no progress");
    }
}

const SPLITS: [Split; 4] = [
    Split::Whole,
    Split::Bytes,
    Split::Random(0x9e37_79b9),
    Split::Random(12345),
];

/// The entry's data from its (decrypted) method stream.
fn decompress(method: u16, data: Vec<u8>) -> std::io::Result<Vec<u8>> {
    match method {
        0 => Ok(data),
        8 => {
            let mut out = Vec::new();
            flate2::read::DeflateDecoder::new(&data[..]).read_to_end(&mut out)?;
            Ok(out)
        }
        m => panic!("method {m} not expected in these fixtures"),
    }
}

fn sha256_hex(data: &[u8]) -> String {
    Sha256::digest(data)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// ZipCrypto's check byte: the CRC's high byte, or the DOS time's when
/// flag bit 3 defers the CRC to a descriptor.
fn check_byte(e: &Local<'_>) -> u8 {
    if e.flags & 8 != 0 {
        (e.time >> 8) as u8
    } else {
        (e.crc >> 24) as u8
    }
}

fn aes_decoder(e: &Local<'_>, password: &[u8]) -> WinZipAesDecoder {
    let (_, strength, _) = e.aes.expect("0x9901 extra");
    let strength = AesStrength::from_byte(strength).expect("strength byte");
    WinZipAesDecoder::new(password, strength, e.data.len() as u64, e.name.clone()).unwrap()
}

/// Decrypts and decompresses entry `e` of fixture `file` every way and
/// checks it against the manifest.
fn verify_entry(file: &str, e: &Local<'_>, manifest: &HashMap<(String, String), (String, String)>) {
    let (encryption, sha) = &manifest[&(file.to_owned(), e.name.clone())];
    for split in SPLITS {
        let (plain_method, decrypted) = match e.method {
            99 => {
                let (vendor, strength, method) = e.aes.unwrap();
                let bits = [128, 192, 256][usize::from(strength) - 1];
                assert_eq!(*encryption, format!("aes{bits}-ae{vendor}"));
                if vendor == 2 {
                    assert_eq!(e.crc, 0, "AE-2 stores no CRC");
                }
                (method, drive(&mut aes_decoder(e, PASSWORD), e.data, split))
            }
            m => {
                assert_eq!(encryption, "zipcrypto");
                let mut dec = ZipCryptoDecoder::new(PASSWORD, check_byte(e));
                (m, drive(&mut dec, e.data, split))
            }
        };
        let decrypted = decrypted.unwrap_or_else(|err| panic!("{file} {}: {err}", e.name));
        let content = decompress(plain_method, decrypted).unwrap();
        assert_eq!(content.len(), e.size as usize);
        assert_eq!(sha256_hex(&content), *sha, "{file} {} {split:?}", e.name);
        if e.crc != 0 || e.aes.is_none() {
            assert_eq!(crc32fast::hash(&content), e.crc, "{file} {}", e.name);
        }
    }
    // Known length: same result, and bytes after the entry stay unread.
    if e.method != 99 {
        let mut dec = ZipCryptoDecoder::new(PASSWORD, check_byte(e)).with_len(e.data.len() as u64);
        let mut with_tail = e.data.to_vec();
        with_tail.extend_from_slice(b"PK\x07\x08");
        let mut input = InBuf::new(&with_tail);
        let mut room = vec![0u8; e.data.len()];
        let mut o = OutBuf::new(&mut room);
        assert_eq!(dec.decode(&mut input, &mut o).unwrap(), Progress::StreamEnd);
        assert_eq!(input.remaining(), b"PK\x07\x08");
    }
}

#[test]
fn fixtures_decrypt_to_the_manifest_content() {
    let manifest = manifest();
    let mut verified = 0;
    for (file, want) in [
        ("infozip/iz-zipcrypto.zip", 5),
        ("7zz/7z-zipcrypto.zip", 5),
        ("7zz/7z-aes256.zip", 5),
    ] {
        let zip = read_fixture(file);
        let mut n = 0;
        for e in locals(&zip).iter().filter(|e| e.flags & 1 != 0) {
            verify_entry(file, e, &manifest);
            n += 1;
        }
        assert_eq!(n, want, "{file}: encrypted entries");
        verified += n;
    }
    assert_eq!(verified, 15);
}

#[test]
fn aes_wrong_password_is_rejected_by_the_verifier() {
    let zip = read_fixture("bad/aes256-wrong-password.zip");
    let mut rejected = 0;
    for e in locals(&zip).iter().filter(|e| e.method == 99) {
        let mut dec = aes_decoder(e, WRONG);
        // Salt and verifier alone are enough to tell.
        let head = e.aes.map(|(_, s, _)| usize::from(s) * 4 + 4 + 2).unwrap();
        let mut input = InBuf::new(&e.data[..head]);
        match dec.decode(&mut input, &mut OutBuf::new(&mut [0u8; 64])) {
            Err(ZipError::WrongPassword) => {
                rejected += 1;
                // And it stays failed.
                let r = dec.decode(&mut InBuf::last(b""), &mut OutBuf::new(&mut [0u8; 8]));
                assert!(matches!(r, Err(ZipError::WrongPassword)));
            }
            // One wrong password in 65536 passes the verifier: then the
            // authentication code must catch it.
            Ok(Progress::NeedInput) => {
                assert!(matches!(
                    drive(&mut aes_decoder(e, WRONG), e.data, Split::Whole),
                    Err(ZipError::Authentication { .. })
                ));
            }
            other => panic!("{}: {other:?}", e.name),
        }
    }
    assert!(rejected >= 4, "{rejected} of 5 rejected by the verifier");
}

#[test]
fn zipcrypto_wrong_password_is_rejected() {
    let zip = read_fixture("bad/zipcrypto-wrong-password.zip");
    let mut by_check_byte = 0;
    let mut entries = 0;
    for e in locals(&zip).iter().filter(|e| e.flags & 1 != 0) {
        entries += 1;
        let mut dec = ZipCryptoDecoder::new(WRONG, check_byte(e));
        match drive(&mut dec, e.data, Split::Bytes) {
            Err(ZipError::WrongPassword) => by_check_byte += 1,
            Err(other) => panic!("{}: {other}", e.name),
            // The check byte matched by chance (1 in 256): the data must
            // then fail to decompress or fail its CRC.
            Ok(garbage) => match decompress(e.method, garbage) {
                Err(_) => {}
                Ok(content) => assert_ne!(crc32fast::hash(&content), e.crc, "{}", e.name),
            },
        }
    }
    assert_eq!(entries, 5);
    assert!(by_check_byte >= 4, "{by_check_byte} of 5 by the check byte");
}

#[test]
fn aes_altered_ciphertext_fails_authentication() {
    let zip = read_fixture("7zz/7z-aes256.zip");
    let entries = locals(&zip);
    let e = entries
        .iter()
        .find(|e| e.name == "data/random.bin")
        .unwrap();
    let head = 16 + 2;
    for at in [head, head + 5000, e.data.len() - 11, e.data.len() - 1] {
        let mut bad = e.data.to_vec();
        bad[at] ^= 0x01;
        for split in SPLITS {
            let mut dec = aes_decoder(e, PASSWORD);
            match drive(&mut dec, &bad, split) {
                Err(ZipError::Authentication { entry }) => assert_eq!(entry, "data/random.bin"),
                other => panic!("flip at {at}: {:?}", other.map(|v| v.len())),
            }
            let r = dec.decode(&mut InBuf::last(b""), &mut OutBuf::new(&mut [0u8; 8]));
            assert!(matches!(r, Err(ZipError::Authentication { .. })), "sticky");
        }
    }
}

#[test]
fn truncated_input_is_truncated() {
    let zip = read_fixture("7zz/7z-aes256.zip");
    for e in locals(&zip).iter().filter(|e| e.method == 99) {
        let len = e.data.len();
        for cut in [0, 7, 17, 18, len / 2, len - 10, len - 1] {
            for split in [Split::Whole, Split::Random(cut as u64 + 7)] {
                let mut dec = aes_decoder(e, PASSWORD);
                let r = drive(&mut dec, &e.data[..cut], split);
                assert!(
                    matches!(r, Err(ZipError::Truncated)),
                    "{} cut {cut}",
                    e.name
                );
                let r = dec.decode(&mut InBuf::last(b""), &mut OutBuf::new(&mut [0u8; 8]));
                assert!(matches!(r, Err(ZipError::Truncated)), "sticky");
            }
        }
    }
    let zip = read_fixture("7zz/7z-zipcrypto.zip");
    for e in locals(&zip).iter().filter(|e| e.flags & 1 != 0) {
        let len = e.data.len();
        // Without a length only the header can be cut short.
        for cut in [0, 1, 11] {
            let mut dec = ZipCryptoDecoder::new(PASSWORD, check_byte(e));
            let r = drive(&mut dec, &e.data[..cut], Split::Bytes);
            assert!(
                matches!(r, Err(ZipError::Truncated)),
                "{} cut {cut}",
                e.name
            );
        }
        // With the entry's length, anywhere.
        for cut in [0, 11, 12, len / 2, len - 1]
            .into_iter()
            .filter(|&c| c < len)
        {
            let mut dec = ZipCryptoDecoder::new(PASSWORD, check_byte(e)).with_len(len as u64);
            let r = drive(&mut dec, &e.data[..cut], Split::Random(cut as u64 + 3));
            assert!(
                matches!(r, Err(ZipError::Truncated)),
                "{} cut {cut}",
                e.name
            );
        }
    }
}

#[test]
fn aes_size_smaller_than_overhead_is_corrupt() {
    for (strength, overhead) in [
        (AesStrength::Aes128, 20),
        (AesStrength::Aes192, 24),
        (AesStrength::Aes256, 28),
    ] {
        let r = WinZipAesDecoder::new(PASSWORD, strength, overhead - 1, "x".into());
        assert!(matches!(r, Err(ZipError::Corrupt(_))));
        assert!(WinZipAesDecoder::new(PASSWORD, strength, overhead, "x".into()).is_ok());
    }
}

fn unhex(s: &str) -> Vec<u8> {
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
        .collect()
}

/// Entry data (salt .. authentication code) of stored entries that 7-Zip
/// 26.02 wrote (`7zz a -tzip -mm=Copy -mem=AES128|AES192`, AE-2), and
/// AE-1 data from the fixtures' writer (ziplib.py `aes_encrypt`, fixed
/// salts), all with the password `fixture-pass`.
#[test]
fn aes_128_192_and_ae1_vectors() {
    let sample_128 = b"The quick brown fox jumps over the lazy dog, 0123456789!\n".to_vec();
    let sample_192: Vec<u8> = (0..6)
        .flat_map(|i| format!("line {i:03} of the AES-192 sample\n").into_bytes())
        .collect();
    let ae1 = b"AE-1 keeps the CRC-32 of the plaintext; payload not a block multiple.".to_vec();
    let vectors: [(AesStrength, &str, &[u8]); 5] = [
        (
            AesStrength::Aes128,
            "4f7801329232a495f6a196a157b328bf1436c44423545887581222d72289d95cc95fe683a3b43d91\
             b5be68626749ff7c32d2d2fd7df716c0bd00014e87054f03812e2b90231cd67caf1fed0637",
            &sample_128,
        ),
        (
            AesStrength::Aes192,
            "78edaf652d57a107b7e586829f6465678880ec7012da34e589dfd2667c141443dd94c1ff47be43f3\
             5d4dc3e9d9476f5e81b03641a23be3b7fc335035218ffee42209ddc61aff29c1d311c8cb21a98d3e\
             a999a216a1ea93f44cd3fcd1e71022676f7953c188d7e1d726d7e35e46623a11ed5c579532a63b44\
             6a7e757569b81188b5f83649ee24c234eeca7e4f34bb0c03349fcd87d104b4ba3765dc44c33b76ab\
             d6463b1b98ce0b213c3fb56326b2a9f57e2122fa482eb1f3496056dfcf3fa62c491018c46aca3afa\
             7eddfcab1f7def61fffa",
            &sample_192,
        ),
        (
            AesStrength::Aes128,
            "0102030405060708a302b92bf161c6c0dc79fb4764684d875bb966aed511f8a8b0e8080b9b0dec6a\
             d8586d9e05ff2f02ea2ebce5d2fdb38efdeb95078d255ba2740198efa5b6cfee4bb1c02ba4ed33e7\
             25fa4c12c95a6437d5",
            &ae1,
        ),
        (
            AesStrength::Aes192,
            "101112131415161718191a1b2e18d630c9163e7308c8496243d3936ff8c3f5c123a9cc8a5f2a3d83\
             09e0e84788e27881228b0a127febc7c1c93e4073c4a155f6661a500eda154d64f644bc17cce9dc5e\
             9432109f6427c952af60b17684",
            &ae1,
        ),
        (
            AesStrength::Aes256,
            "202122232425262728292a2b2c2d2e2f4530ae86da1e7367a64efdea53c713855b1800f3f2c7be31\
             272d6d0707f3f51a88c64a4d7e0a25e1fff161688ad00d88c8ac5d55d23125ac8b16b6b770e8809b\
             a179db79c9de3d6e924c88ed4461995e58",
            &ae1,
        ),
    ];
    // AE-1 stores the CRC-32 of the plaintext.
    assert_eq!(crc32fast::hash(&ae1), 0x4e9d_f1aa);
    for (strength, hex, plain) in vectors {
        let data = unhex(hex);
        for split in SPLITS {
            let mut dec =
                WinZipAesDecoder::new(PASSWORD, strength, data.len() as u64, "v".into()).unwrap();
            assert_eq!(
                drive(&mut dec, &data, split).unwrap(),
                plain,
                "{strength:?}"
            );
        }
        let mut dec =
            WinZipAesDecoder::new(WRONG, strength, data.len() as u64, "v".into()).unwrap();
        assert!(matches!(
            drive(&mut dec, &data, Split::Bytes),
            Err(ZipError::WrongPassword)
        ));
    }
}

#[test]
fn coders_are_send() {
    // The entry reader boxes its coders as `dyn Decode + Send`.
    fn send<T: Send + 'static>() {}
    send::<ZipCryptoDecoder>();
    send::<WinZipAesDecoder>();
}
