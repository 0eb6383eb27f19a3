//! SubStreamsInfo: how each folder's output divides into files.

use crate::read::byte_reader::ByteReader;
use crate::read::folder::Folder;
use crate::read::property_id as id;
use crate::SevenZError;

/// The files (substreams) of every folder, in archive order.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SubStreams {
    /// Number of substreams in each folder.
    pub per_folder: Vec<usize>,
    /// Size of every substream, folder by folder.
    pub sizes: Vec<u64>,
    /// CRC32 of every substream, when known.
    pub crcs: Vec<Option<u32>>,
}

impl SubStreams {
    /// The default when no SubStreamsInfo is stored: one file per folder.
    pub(crate) fn one_per_folder(folders: &[Folder]) -> Self {
        SubStreams {
            per_folder: vec![1; folders.len()],
            sizes: folders.iter().map(Folder::unpack_size).collect(),
            crcs: folders.iter().map(|f| f.crc).collect(),
        }
    }

    /// Parses the record after its `kSubStreamsInfo` ID; unknown
    /// properties are skipped, as 7-Zip does.
    pub(crate) fn parse(r: &mut ByteReader<'_>, folders: &[Folder]) -> Result<Self, SevenZError> {
        let mut per_folder = vec![1usize; folders.len()];
        let mut t = loop {
            match r.id()? {
                id::NUM_UNPACK_STREAM => {
                    let mut total = 0usize;
                    for n in per_folder.iter_mut() {
                        // Every substream needs a header byte somewhere (a
                        // size or a file record), which bounds the total.
                        *n = r.count("substream")?;
                        total = total.saturating_add(*n);
                    }
                    if total > r.remaining() + folders.len() {
                        return Err(SevenZError::corrupt("substream count exceeds the header"));
                    }
                }
                t @ (id::SIZE | id::CRC | id::END) => break t,
                _ => r.skip_data()?,
            }
        };
        let mut sizes = Vec::new();
        let have_sizes = t == id::SIZE;
        for (f, &n) in folders.iter().zip(&per_folder) {
            if n == 0 {
                continue;
            }
            if n > 1 && !have_sizes {
                return Err(SevenZError::corrupt("substream sizes missing"));
            }
            let mut sum = 0u64;
            for _ in 1..n {
                let s = r.number()?;
                sum = sum
                    .checked_add(s)
                    .ok_or_else(|| SevenZError::corrupt("substream sizes overflow"))?;
                sizes.push(s);
            }
            let total = f.unpack_size();
            if sum > total {
                return Err(SevenZError::corrupt(
                    "substream sizes exceed the folder size",
                ));
            }
            sizes.push(total - sum);
        }
        if have_sizes {
            t = r.id()?;
        }
        // CRCs are stored only for substreams whose CRC the folder does not
        // already give (a folder of exactly one file with a folder CRC).
        let mut crcs = Vec::with_capacity(sizes.len());
        let mut unknown = 0usize;
        for (f, &n) in folders.iter().zip(&per_folder) {
            if n == 1 && f.crc.is_some() {
                crcs.push(f.crc);
            } else {
                for _ in 0..n {
                    crcs.push(None);
                }
                unknown += n;
            }
        }
        loop {
            match t {
                id::END => break,
                id::CRC => {
                    let digests = r.digests(unknown)?;
                    let mut it = digests.into_iter();
                    let mut k = 0;
                    for (f, &n) in folders.iter().zip(&per_folder) {
                        if n == 1 && f.crc.is_some() {
                            k += 1;
                        } else {
                            for _ in 0..n {
                                crcs[k] = it.next().flatten();
                                k += 1;
                            }
                        }
                    }
                }
                _ => r.skip_data()?,
            }
            t = r.id()?;
        }
        Ok(SubStreams {
            per_folder,
            sizes,
            crcs,
        })
    }
}
