//! Multi-volume archives: `name.7z.001`, `name.7z.002`, … read as one
//! `Read + Seek` stream, the volumes simply concatenated (7-Zip splits the
//! archive's bytes without any per-volume header).

use std::fs::File;
use std::io::{self, Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};

/// The concatenation of a list of volumes as one seekable stream.
#[derive(Debug)]
pub struct MultiVolume<R> {
    volumes: Vec<R>,
    /// Where each volume starts in the joined stream; one more entry than
    /// `volumes`, the last being the total length.
    starts: Vec<u64>,
    pos: u64,
    /// Volume the inner position is known to match (`pos` within it).
    synced: Option<usize>,
}

impl<R: Read + Seek> MultiVolume<R> {
    /// Joins `volumes` in order, measuring each by seeking to its end.
    pub fn new(volumes: Vec<R>) -> io::Result<Self> {
        let mut volumes = volumes;
        let mut starts = Vec::with_capacity(volumes.len() + 1);
        let mut total = 0u64;
        for v in &mut volumes {
            starts.push(total);
            let len = v.seek(SeekFrom::End(0))?;
            total = total
                .checked_add(len)
                .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, "volumes too large"))?;
        }
        starts.push(total);
        Ok(MultiVolume {
            volumes,
            starts,
            pos: 0,
            synced: None,
        })
    }

    /// Total length of all volumes.
    pub fn len(&self) -> u64 {
        self.starts.last().copied().unwrap_or(0)
    }

    /// True when the volumes hold no bytes at all.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Number of volumes.
    pub fn volume_count(&self) -> usize {
        self.volumes.len()
    }

    /// Gives back the volumes.
    pub fn into_inner(self) -> Vec<R> {
        self.volumes
    }

    /// The volume holding byte `pos` (`None` at or past the end).
    fn volume_at(&self, pos: u64) -> Option<usize> {
        if pos >= self.len() {
            return None;
        }
        // Index of the last start <= pos, skipping empty volumes.
        let i = self.starts.partition_point(|&s| s <= pos) - 1;
        Some(i)
    }
}

impl<R: Read + Seek> Read for MultiVolume<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if buf.is_empty() {
            return Ok(0);
        }
        let Some(i) = self.volume_at(self.pos) else {
            return Ok(0);
        };
        let local = self.pos - self.starts[i];
        if self.synced != Some(i) {
            self.volumes[i].seek(SeekFrom::Start(local))?;
            self.synced = Some(i);
        }
        let room = self.starts[i + 1] - self.pos;
        let want = buf.len().min(usize::try_from(room).unwrap_or(usize::MAX));
        let n = match self.volumes[i].read(&mut buf[..want]) {
            Ok(n) => n,
            Err(e) => {
                self.synced = None;
                return Err(e);
            }
        };
        if n == 0 {
            // The volume shrank since it was measured.
            self.synced = None;
            return Err(io::Error::new(
                io::ErrorKind::UnexpectedEof,
                format!("volume {} ends before its measured length", i + 1),
            ));
        }
        self.pos += n as u64;
        Ok(n)
    }
}

impl<R: Read + Seek> Seek for MultiVolume<R> {
    fn seek(&mut self, to: SeekFrom) -> io::Result<u64> {
        let target = match to {
            SeekFrom::Start(p) => Some(p),
            SeekFrom::End(d) => self.len().checked_add_signed(d),
            SeekFrom::Current(d) => self.pos.checked_add_signed(d),
        }
        .ok_or_else(|| {
            io::Error::new(
                io::ErrorKind::InvalidInput,
                "seek before the start of the volumes",
            )
        })?;
        if target != self.pos {
            self.synced = None;
        }
        self.pos = target;
        Ok(target)
    }
}

/// The volume paths of a split archive given its first volume
/// (`….001`): `.002`, `.003`, … are taken while they exist. The number
/// of digits of the first suffix is kept (7-Zip writes three).
pub fn volume_paths(first: &Path) -> io::Result<Vec<PathBuf>> {
    let name = first
        .file_name()
        .and_then(|n| n.to_str())
        .ok_or_else(|| bad_first(first))?;
    let (stem, digits) = name.rsplit_once('.').ok_or_else(|| bad_first(first))?;
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return Err(bad_first(first));
    }
    let start: u64 = digits.parse().map_err(|_| bad_first(first))?;
    if start != 1 {
        return Err(bad_first(first));
    }
    let width = digits.len();
    let mut paths = vec![first.to_path_buf()];
    for n in 2u64.. {
        let next = first.with_file_name(format!("{stem}.{n:0width$}"));
        if !next.is_file() {
            break;
        }
        paths.push(next);
    }
    Ok(paths)
}

/// True when `path` names the first volume of a split archive
/// (ends in `.001`).
pub fn is_first_volume(path: &Path) -> bool {
    path.extension().and_then(|e| e.to_str()) == Some("001")
}

fn bad_first(path: &Path) -> io::Error {
    io::Error::new(
        io::ErrorKind::InvalidInput,
        format!(
            "{} is not the first volume of a split archive (expected a name ending in .001)",
            path.display()
        ),
    )
}

/// Opens every volume of the split archive starting at `first`.
pub fn open_volumes(first: &Path) -> io::Result<MultiVolume<File>> {
    let files = volume_paths(first)?
        .iter()
        .map(File::open)
        .collect::<io::Result<Vec<_>>>()?;
    MultiVolume::new(files)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Cursor;

    #[test]
    fn reads_and_seeks_across_volume_boundaries() {
        let whole: Vec<u8> = (0..=255u8).cycle().take(1000).collect();
        let parts = vec![
            Cursor::new(whole[..300].to_vec()),
            Cursor::new(Vec::new()),
            Cursor::new(whole[300..301].to_vec()),
            Cursor::new(whole[301..].to_vec()),
        ];
        let mut mv = MultiVolume::new(parts).unwrap();
        assert_eq!(mv.len(), 1000);
        let mut all = Vec::new();
        mv.read_to_end(&mut all).unwrap();
        assert_eq!(all, whole);
        assert_eq!(mv.seek(SeekFrom::End(-701)).unwrap(), 299);
        let mut buf = [0u8; 5];
        mv.read_exact(&mut buf).unwrap();
        assert_eq!(buf, whole[299..304]);
        mv.seek(SeekFrom::Current(-3)).unwrap();
        mv.read_exact(&mut buf).unwrap();
        assert_eq!(buf, whole[301..306]);
        assert!(mv.seek(SeekFrom::Current(-10_000)).is_err());
        mv.seek(SeekFrom::Start(5000)).unwrap();
        assert_eq!(mv.read(&mut buf).unwrap(), 0);
    }

    #[test]
    fn first_volume_names() {
        assert!(is_first_volume(Path::new("a.7z.001")));
        assert!(!is_first_volume(Path::new("a.7z.002")));
        assert!(volume_paths(Path::new("a.7z")).is_err());
        assert!(volume_paths(Path::new("a.7z.002")).is_err());
    }
}
