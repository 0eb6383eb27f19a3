//! Property IDs (NIDs) that tag every record of a 7z header.

/// End of a record list.
pub const END: u8 = 0x00;
/// A plain header follows.
pub const HEADER: u8 = 0x01;
/// Archive properties (skipped: 7-Zip writes none).
pub const ARCHIVE_PROPERTIES: u8 = 0x02;
/// Streams used by the header itself (external data).
pub const ADDITIONAL_STREAMS_INFO: u8 = 0x03;
/// The streams holding the file data.
pub const MAIN_STREAMS_INFO: u8 = 0x04;
/// Per-file records.
pub const FILES_INFO: u8 = 0x05;
/// Packed stream positions and sizes.
pub const PACK_INFO: u8 = 0x06;
/// Folders (coder graphs) and their unpack sizes.
pub const UNPACK_INFO: u8 = 0x07;
/// How each folder's output splits into files.
pub const SUBSTREAMS_INFO: u8 = 0x08;
/// A list of sizes.
pub const SIZE: u8 = 0x09;
/// A list of CRC32 digests.
pub const CRC: u8 = 0x0A;
/// The folder list.
pub const FOLDER: u8 = 0x0B;
/// Unpack size of every coder output.
pub const CODERS_UNPACK_SIZE: u8 = 0x0C;
/// Number of files per folder.
pub const NUM_UNPACK_STREAM: u8 = 0x0D;
/// Files without data (directories, empty files).
pub const EMPTY_STREAM: u8 = 0x0E;
/// Which empty-stream files are files rather than directories.
pub const EMPTY_FILE: u8 = 0x0F;
/// Anti-items (deletions in update archives).
pub const ANTI: u8 = 0x10;
/// UTF-16LE file names.
pub const NAME: u8 = 0x11;
/// Creation times.
pub const CTIME: u8 = 0x12;
/// Access times.
pub const ATIME: u8 = 0x13;
/// Modification times.
pub const MTIME: u8 = 0x14;
/// Windows attributes (unix mode in the high 16 bits).
pub const WIN_ATTRIBUTES: u8 = 0x15;
/// The header is packed: a streams info describing it follows.
pub const ENCODED_HEADER: u8 = 0x17;
/// Start positions of files (multi-volume leftovers).
pub const START_POS: u8 = 0x18;
/// Padding record.
pub const DUMMY: u8 = 0x19;
