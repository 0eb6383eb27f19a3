//! A test-side 7z writer from explicit parts: packed bytes and a raw header,
//! wrapped in a signature header with correct CRCs, so a test can write any
//! header, malformed ones included, that still passes the CRC checks.

/// Property IDs as 7zFormat.txt numbers them.
pub mod id {
    pub const END: u8 = 0x00;
    pub const HEADER: u8 = 0x01;
    pub const MAIN_STREAMS_INFO: u8 = 0x04;
    pub const FILES_INFO: u8 = 0x05;
    pub const PACK_INFO: u8 = 0x06;
    pub const UNPACK_INFO: u8 = 0x07;
    pub const SUBSTREAMS_INFO: u8 = 0x08;
    pub const SIZE: u8 = 0x09;
    pub const CRC: u8 = 0x0A;
    pub const FOLDER: u8 = 0x0B;
    pub const CODERS_UNPACK_SIZE: u8 = 0x0C;
    pub const NUM_UNPACK_STREAM: u8 = 0x0D;
    pub const EMPTY_STREAM: u8 = 0x0E;
    pub const NAME: u8 = 0x11;
    pub const MTIME: u8 = 0x14;
    pub const WIN_ATTRIBUTES: u8 = 0x15;
    pub const ENCODED_HEADER: u8 = 0x17;
    pub const DUMMY: u8 = 0x19;
}

/// Method IDs used by the tests.
pub mod method {
    pub const COPY: &[u8] = &[0x00];
    pub const LZMA2: &[u8] = &[0x21];
    pub const LZMA: &[u8] = &[0x03, 0x01, 0x01];
}

/// The 7z NUMBER encoding, shortest form.
pub fn number(v: u64) -> Vec<u8> {
    let extra = (1..=8)
        .find(|&n| n == 8 || v < 1u64 << (7 * (n + 1)))
        .unwrap_or(8);
    let extra = if v < 0x80 { 0 } else { extra };
    let mut out = Vec::with_capacity(extra + 1);
    if extra == 8 {
        out.push(0xFF);
    } else {
        let mask = !(0xFFu8 >> extra);
        out.push(mask | (v >> (8 * extra)) as u8);
    }
    out.extend_from_slice(&v.to_le_bytes()[..extra]);
    out
}

/// An archive of `packed` (the packed streams, back to back) and `header`
/// (written as is), with a start header whose sizes and CRCs are right.
pub fn assemble(packed: &[u8], header: &[u8]) -> Vec<u8> {
    let mut start = Vec::with_capacity(20);
    start.extend_from_slice(&(packed.len() as u64).to_le_bytes());
    start.extend_from_slice(&(header.len() as u64).to_le_bytes());
    start.extend_from_slice(&crc32fast::hash(header).to_le_bytes());
    let mut out = vec![b'7', b'z', 0xBC, 0xAF, 0x27, 0x1C, 0, 4];
    out.extend_from_slice(&crc32fast::hash(&start).to_le_bytes());
    out.extend_from_slice(&start);
    out.extend_from_slice(packed);
    out.extend_from_slice(header);
    out
}

/// The packed area and the header bytes of a well-formed archive; patch
/// the header and [`assemble`] them again for valid CRCs.
pub fn split(archive: &[u8]) -> (&[u8], &[u8]) {
    let off = u64::from_le_bytes(archive[12..20].try_into().unwrap()) as usize;
    let size = u64::from_le_bytes(archive[20..28].try_into().unwrap()) as usize;
    (&archive[32..32 + off], &archive[32 + off..32 + off + size])
}

/// A kName payload: the "not external" byte, then each name in UTF-16LE
/// with its terminating NUL.
pub fn names(names: &[&str]) -> Vec<u8> {
    names_utf16(
        &names
            .iter()
            .map(|n| n.encode_utf16().chain([0]).collect::<Vec<_>>())
            .collect::<Vec<_>>()
            .concat(),
    )
}

/// A kName payload from raw UTF-16 units (terminators included).
pub fn names_utf16(units: &[u16]) -> Vec<u8> {
    let mut out = vec![0u8];
    for u in units {
        out.extend_from_slice(&u.to_le_bytes());
    }
    out
}

/// One FilesInfo property: ID, size, payload.
pub fn property(id: u8, payload: &[u8]) -> Vec<u8> {
    let mut out = vec![id];
    out.extend(number(payload.len() as u64));
    out.extend_from_slice(payload);
    out
}

/// A plain header with one folder of one coder, every file a substream of
/// it (sizes and CRCs from the file data), and files named in kName. The
/// fields are public so that a test can spoil one of them.
#[derive(Clone, Debug)]
pub struct OneFolder {
    /// The coder's method ID.
    pub method: Vec<u8>,
    /// The coder's properties.
    pub props: Vec<u8>,
    /// The packed stream.
    pub packed: Vec<u8>,
    /// The folder's declared unpack size.
    pub unpack_size: u64,
    /// Substream sizes, one per file.
    pub sizes: Vec<u64>,
    /// Substream CRCs, one per file.
    pub crcs: Vec<u32>,
    /// The kName payload.
    pub names: Vec<u8>,
    /// FilesInfo properties written after kName.
    pub file_props: Vec<u8>,
    /// A raw folder record (coders, bind pairs) and the unpack size of
    /// each coder, written instead of the one coder.
    pub folder: Option<(Vec<u8>, Vec<u64>)>,
}

impl OneFolder {
    /// A Copy folder holding `files`.
    pub fn copy(files: &[(&str, &[u8])]) -> Self {
        let packed = files.iter().flat_map(|(_, d)| d.iter().copied()).collect();
        Self::coded(method::COPY, &[], packed, files)
    }

    /// A folder whose coder `method` (with `props`) decodes `packed` to
    /// the concatenated `files`.
    pub fn coded(method: &[u8], props: &[u8], packed: Vec<u8>, files: &[(&str, &[u8])]) -> Self {
        OneFolder {
            method: method.to_vec(),
            props: props.to_vec(),
            packed,
            unpack_size: files.iter().map(|(_, d)| d.len() as u64).sum(),
            sizes: files.iter().map(|(_, d)| d.len() as u64).collect(),
            crcs: files.iter().map(|(_, d)| crc32fast::hash(d)).collect(),
            names: names(&files.iter().map(|(n, _)| *n).collect::<Vec<_>>()),
            file_props: Vec::new(),
            folder: None,
        }
    }

    /// The header bytes, from kHeader to the final kEnd.
    pub fn header(&self) -> Vec<u8> {
        let mut h = vec![id::HEADER, id::MAIN_STREAMS_INFO];
        h.extend([id::PACK_INFO, 0x00, 0x01, id::SIZE]);
        h.extend(number(self.packed.len() as u64));
        h.push(id::END);
        h.extend([id::UNPACK_INFO, id::FOLDER, 0x01, 0x00]);
        if let Some((record, sizes)) = &self.folder {
            h.extend_from_slice(record);
            h.push(id::CODERS_UNPACK_SIZE);
            for &s in sizes {
                h.extend(number(s));
            }
        } else {
            h.push(0x01);
            let flags = self.method.len() as u8 | if self.props.is_empty() { 0 } else { 0x20 };
            h.push(flags);
            h.extend_from_slice(&self.method);
            if !self.props.is_empty() {
                h.extend(number(self.props.len() as u64));
                h.extend_from_slice(&self.props);
            }
            h.push(id::CODERS_UNPACK_SIZE);
            h.extend(number(self.unpack_size));
        }
        h.push(id::END);
        h.extend([id::SUBSTREAMS_INFO, id::NUM_UNPACK_STREAM]);
        h.extend(number(self.sizes.len() as u64));
        if self.sizes.len() > 1 {
            h.push(id::SIZE);
            for &s in &self.sizes[..self.sizes.len() - 1] {
                h.extend(number(s));
            }
        }
        h.extend([id::CRC, 0x01]);
        for c in &self.crcs {
            h.extend_from_slice(&c.to_le_bytes());
        }
        h.extend([id::END, id::END]);
        h.push(id::FILES_INFO);
        h.extend(number(self.sizes.len() as u64));
        h.extend(property(id::NAME, &self.names));
        h.extend_from_slice(&self.file_props);
        h.extend([id::END, id::END]);
        h
    }

    /// The whole archive.
    pub fn archive(&self) -> Vec<u8> {
        assemble(&self.packed, &self.header())
    }
}

/// `7zz t`'s verdict on `archive`: `Some(true)` when it tests clean
/// (warnings, such as an unknown property, included), `Some(false)` on
/// any error, `None` when `7zz` is not installed. Runs multi-threaded
/// (`-mmt=2`, as on any multi-core machine): single-threaded, 7-Zip rejects
/// an LZMA2 stream without its end byte that it otherwise accepts.
pub fn seven_zip_accepts(archive: &[u8], password: &str) -> Option<bool> {
    use std::process::{Command, Stdio};
    use std::sync::atomic::{AtomicUsize, Ordering};
    static NEXT: AtomicUsize = AtomicUsize::new(0);
    let path = std::env::temp_dir().join(format!(
        "lzflow-7z-verdict-{}-{}.7z",
        std::process::id(),
        NEXT.fetch_add(1, Ordering::Relaxed)
    ));
    std::fs::write(&path, archive).unwrap();
    let status = Command::new("7zz")
        .args(["t", "-bd", "-mmt=2", &format!("-p{password}")])
        .arg(&path)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status();
    let _ = std::fs::remove_file(&path);
    status.ok().map(|s| s.success())
}
