//! Folders: a graph of coders, how their streams bind, which inputs come
//! from packed streams, and the size of every coder output.

use crate::byte_reader::ByteReader;
use crate::property_id as id;
use crate::SevenZError;

/// Most streams a folder may have in total (7-Zip uses at most 4 coders of
/// at most 4 inputs).
const MAX_FOLDER_STREAMS: u64 = 64;

/// One coder of a folder.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Coder {
    /// The method ID bytes (e.g. `[0x21]` for LZMA2).
    pub method: Vec<u8>,
    /// Inputs on the packed side.
    pub num_in_streams: usize,
    /// Outputs on the unpacked side.
    pub num_out_streams: usize,
    /// Method properties (dictionary size, AES salt and IV, ...).
    pub properties: Vec<u8>,
}

/// A coder input fed by another coder's output.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BindPair {
    /// Folder-wide index of the coder input.
    pub in_index: usize,
    /// Folder-wide index of the coder output feeding it.
    pub out_index: usize,
}

/// A coder graph and the sizes it produces.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Folder {
    /// The coders.
    pub coders: Vec<Coder>,
    /// Bindings between coder outputs and inputs.
    pub bind_pairs: Vec<BindPair>,
    /// Folder-wide input indices fed by this folder's packed streams, in
    /// packed-stream order.
    pub packed_streams: Vec<usize>,
    /// Size of every coder output (folder-wide output index order).
    pub unpack_sizes: Vec<u64>,
    /// CRC32 of the folder's final output, when stored.
    pub crc: Option<u32>,
}

impl Folder {
    /// Parses one folder record (coders, bind pairs, packed streams).
    pub(crate) fn parse(r: &mut ByteReader<'_>) -> Result<Self, SevenZError> {
        let num_coders = r.small(MAX_FOLDER_STREAMS, "number of coders")?;
        if num_coders == 0 {
            return Err(SevenZError::corrupt("folder without coders"));
        }
        let mut coders = Vec::with_capacity(num_coders);
        let (mut total_in, mut total_out) = (0usize, 0usize);
        for _ in 0..num_coders {
            let flags = r.byte()?;
            if flags & 0x80 != 0 {
                return Err(SevenZError::UnsupportedFeature("alternative coder methods"));
            }
            let method = r.bytes(u64::from(flags & 0x0F))?.to_vec();
            let (num_in, num_out) = if flags & 0x10 != 0 {
                (
                    r.small(MAX_FOLDER_STREAMS, "coder input count")?,
                    r.small(MAX_FOLDER_STREAMS, "coder output count")?,
                )
            } else {
                (1, 1)
            };
            let properties = if flags & 0x20 != 0 {
                let n = r.number()?;
                r.bytes(n)?.to_vec()
            } else {
                Vec::new()
            };
            total_in += num_in;
            total_out += num_out;
            coders.push(Coder {
                method,
                num_in_streams: num_in,
                num_out_streams: num_out,
                properties,
            });
        }
        if total_in == 0 || total_out == 0 || (total_in + total_out) as u64 > MAX_FOLDER_STREAMS {
            return Err(SevenZError::corrupt("folder stream counts out of range"));
        }
        let num_bind_pairs = total_out - 1;
        let mut bind_pairs = Vec::with_capacity(num_bind_pairs);
        for _ in 0..num_bind_pairs {
            let in_index = r.small(total_in as u64 - 1, "bind pair input")?;
            let out_index = r.small(total_out as u64 - 1, "bind pair output")?;
            bind_pairs.push(BindPair {
                in_index,
                out_index,
            });
        }
        if total_in < num_bind_pairs {
            return Err(SevenZError::corrupt("more bind pairs than coder inputs"));
        }
        let num_packed = total_in - num_bind_pairs;
        let packed_streams = if num_packed == 1 {
            let free = (0..total_in)
                .find(|i| !bind_pairs.iter().any(|b| b.in_index == *i))
                .ok_or_else(|| SevenZError::corrupt("no unbound coder input"))?;
            vec![free]
        } else {
            (0..num_packed)
                .map(|_| r.small(total_in as u64 - 1, "packed stream index"))
                .collect::<Result<_, _>>()?
        };
        Ok(Folder {
            coders,
            bind_pairs,
            packed_streams,
            unpack_sizes: Vec::new(),
            crc: None,
        })
    }

    /// Total number of coder outputs.
    pub fn num_out_streams(&self) -> usize {
        self.coders.iter().map(|c| c.num_out_streams).sum()
    }

    /// The folder-wide output index that no bind pair consumes: the folder's
    /// final output.
    pub fn main_out_index(&self) -> Option<usize> {
        (0..self.num_out_streams()).find(|o| !self.bind_pairs.iter().any(|b| b.out_index == *o))
    }

    /// Size of the folder's final output.
    pub fn unpack_size(&self) -> u64 {
        self.main_out_index()
            .and_then(|o| self.unpack_sizes.get(o).copied())
            .unwrap_or(0)
    }

    /// True when a coder of this folder is AES.
    pub fn is_encrypted(&self) -> bool {
        self.coders
            .iter()
            .any(|c| c.method == crate::method_id::AES)
    }
}

/// Parses the CodersInfo record (after `kUnPackInfo`).
pub(crate) fn parse_unpack_info(r: &mut ByteReader<'_>) -> Result<Vec<Folder>, SevenZError> {
    r.expect(id::FOLDER, "kFolder")?;
    let n = r.count("folder")?;
    if r.byte()? != 0 {
        return Err(SevenZError::UnsupportedFeature("external folder records"));
    }
    let mut folders = Vec::with_capacity(n);
    for _ in 0..n {
        folders.push(Folder::parse(r)?);
    }
    r.expect(id::CODERS_UNPACK_SIZE, "kCodersUnPackSize")?;
    for f in folders.iter_mut() {
        f.unpack_sizes = (0..f.num_out_streams())
            .map(|_| r.number())
            .collect::<Result<_, _>>()?;
    }
    loop {
        match r.byte()? {
            id::END => break,
            id::CRC => {
                let crcs = r.digests(n)?;
                for (f, c) in folders.iter_mut().zip(crcs) {
                    f.crc = c;
                }
            }
            other => {
                return Err(SevenZError::corrupt(format!(
                    "unexpected property 0x{other:02x} in coders info"
                )))
            }
        }
    }
    Ok(folders)
}
