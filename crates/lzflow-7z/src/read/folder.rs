//! Folders: a graph of coders, how their streams bind, which inputs come
//! from packed streams, and the size of every coder output.

use crate::read::byte_reader::ByteReader;
use crate::read::property_id as id;
use crate::SevenZError;

/// Most coders in a folder, and most coder inputs in all (7-Zip's limits;
/// its own folders have at most 4 coders of at most 4 inputs).
const MAX_CODERS: u64 = 64;
const MAX_IN_STREAMS: u64 = 64;

/// Marks `index` used; `None` when it is out of range or was already used.
fn take_unused(used: &mut [bool], index: u64) -> Option<usize> {
    let slot = used.get_mut(usize::try_from(index).ok()?)?;
    if std::mem::replace(slot, true) {
        return None;
    }
    Some(index as usize)
}

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
    /// Parses one folder record (coders, bind pairs, packed streams) with
    /// 7-Zip's checks: every coder has one output and no input or output
    /// is bound twice, so one coder output is left over as the folder's.
    pub(crate) fn parse(r: &mut ByteReader<'_>) -> Result<Self, SevenZError> {
        let num_coders = r.small(MAX_CODERS, "number of coders")?;
        if num_coders == 0 {
            return Err(SevenZError::corrupt("folder without coders"));
        }
        let mut coders = Vec::with_capacity(num_coders);
        let mut total_in = 0usize;
        for _ in 0..num_coders {
            let flags = r.byte()?;
            if flags & 0x80 != 0 {
                return Err(SevenZError::UnsupportedFeature("alternative coder methods"));
            }
            if flags & 0x40 != 0 {
                return Err(SevenZError::corrupt("a coder sets the reserved flag 0x40"));
            }
            let id_len = flags & 0x0F;
            if id_len > 8 {
                return Err(SevenZError::UnsupportedFeature(
                    "method IDs longer than 8 bytes",
                ));
            }
            let method = r.bytes(u64::from(id_len))?.to_vec();
            let num_in = if flags & 0x10 != 0 {
                let num_in = r.small(MAX_IN_STREAMS, "coder input count")?;
                if r.number()? != 1 {
                    return Err(SevenZError::UnsupportedFeature(
                        "coders with several outputs",
                    ));
                }
                num_in
            } else {
                1
            };
            let properties = if flags & 0x20 != 0 {
                let n = r.number()?;
                r.bytes(n)?.to_vec()
            } else {
                Vec::new()
            };
            total_in += num_in;
            if total_in as u64 > MAX_IN_STREAMS {
                return Err(SevenZError::corrupt("folder has too many coder inputs"));
            }
            coders.push(Coder {
                method,
                num_in_streams: num_in,
                num_out_streams: 1,
                properties,
            });
        }
        // One output per coder: every coder but the folder's last one
        // feeds another.
        let num_bind_pairs = num_coders - 1;
        if total_in < num_bind_pairs {
            return Err(SevenZError::corrupt("more bind pairs than coder inputs"));
        }
        let mut in_used = vec![false; total_in];
        let mut out_used = vec![false; num_coders];
        let mut bind_pairs = Vec::with_capacity(num_bind_pairs);
        for _ in 0..num_bind_pairs {
            let in_index = r.number()?;
            let out_index = r.number()?;
            let (Some(i), Some(o)) = (
                take_unused(&mut in_used, in_index),
                take_unused(&mut out_used, out_index),
            ) else {
                return Err(SevenZError::corrupt("bind pair out of range or repeated"));
            };
            bind_pairs.push(BindPair {
                in_index: i,
                out_index: o,
            });
        }
        let num_packed = total_in - num_bind_pairs;
        let packed_streams = if num_packed == 1 {
            let free = in_used
                .iter()
                .position(|used| !used)
                .ok_or_else(|| SevenZError::corrupt("no unbound coder input"))?;
            vec![free]
        } else {
            (0..num_packed)
                .map(|_| {
                    let index = r.number()?;
                    take_unused(&mut in_used, index).ok_or_else(|| {
                        SevenZError::corrupt("packed stream index out of range or repeated")
                    })
                })
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
        self.coders.iter().any(|c| {
            lzflow_methods::Method::from_7z_id(&c.method) == Some(lzflow_methods::Method::Aes7z)
        })
    }
}

/// Parses the CodersInfo record (after `kUnPackInfo`). Unknown properties
/// before `kFolder`, before `kCodersUnPackSize` and after the sizes are
/// skipped, as 7-Zip does.
pub(crate) fn parse_unpack_info(r: &mut ByteReader<'_>) -> Result<Vec<Folder>, SevenZError> {
    r.wait_id(id::FOLDER, "kFolder")?;
    let n = r.count("folder")?;
    if r.byte()? != 0 {
        return Err(SevenZError::UnsupportedFeature("external folder records"));
    }
    let mut folders = Vec::with_capacity(n);
    for _ in 0..n {
        folders.push(Folder::parse(r)?);
    }
    r.wait_id(id::CODERS_UNPACK_SIZE, "kCodersUnPackSize")?;
    for f in folders.iter_mut() {
        f.unpack_sizes = (0..f.num_out_streams())
            .map(|_| r.number())
            .collect::<Result<_, _>>()?;
    }
    loop {
        match r.id()? {
            id::END => break,
            id::CRC => {
                let crcs = r.digests(n)?;
                for (f, c) in folders.iter_mut().zip(crcs) {
                    f.crc = c;
                }
            }
            _ => r.skip_data()?,
        }
    }
    Ok(folders)
}
