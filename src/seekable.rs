//! Random access into `.xz` files: [`SeekableXzReader`] (std `Read +
//! Seek`), [`AsyncSeekableXzReader`] (tokio) and
//! [`futures::AsyncSeekableXzReader`] (futures-io).
//!
//! All three run one poll-style core ([`PollSeekableXz`], in lzflow-xz)
//! over a small source trait: it reads every stream's footer and Index
//! from the end of the file
//! ([`LayoutReader`](lzflow_xz::info::LayoutReader)), keeps one table of
//! Blocks ([`BlockMap`](lzflow_xz::BlockMap)), and on a seek decodes from
//! the start of the Block holding the target
//! ([`SeekableXzDecoder`](lzflow_xz::SeekableXzDecoder)). Reads ask the
//! source for no more than the rest of the current Block, so reading 4 KiB
//! in the middle of a large file costs one Block (plus, once, the Indexes)
//! — what a source over HTTP range requests wants. Reading on continues
//! into the next Block without seeking the source again. Every Block read
//! to its end has its check verified.
//!
//! ```
//! use std::io::{Read, Seek, SeekFrom, Write};
//! # fn main() -> std::io::Result<()> {
//! let data: Vec<u8> = (0..300_000u32).map(|i| (i % 251) as u8).collect();
//! let mut enc = lzflow::write::XzEncoder::builder()
//!     .preset(1)
//!     .block_size(64 << 10) // many Blocks: cheap seeks
//!     .build(Vec::new());
//! enc.write_all(&data)?;
//! let file = enc.finish()?;
//!
//! let mut xz = lzflow::seekable::SeekableXzReader::open(std::io::Cursor::new(file))?;
//! assert_eq!(xz.len(), data.len() as u64);
//! xz.seek(SeekFrom::Start(200_000))?;
//! let mut slice = [0u8; 4096];
//! xz.read_exact(&mut slice)?;
//! assert_eq!(slice[..], data[200_000..204_096]);
//! # Ok(()) }
//! ```

pub use lzflow_xz::{PollSeekableXz, SeekableXzReader};

#[cfg(any(feature = "tokio", feature = "futures-io"))]
pub mod face;
#[cfg(feature = "futures-io")]
pub mod futures;
#[cfg(feature = "tokio")]
mod tokio_face;

#[cfg(feature = "tokio")]
pub use tokio_face::AsyncSeekableXzReader;

/// Coder steps one async poll may take without output before it yields.
#[cfg(any(feature = "tokio", feature = "futures-io"))]
const STEPS_PER_POLL: usize = 32;
