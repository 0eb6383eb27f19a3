//! What [`Writer::finish`](crate::Writer::finish) writes after the data:
//! the header record (plain, or LZMA-compressed and perhaps AES-encrypted
//! into a packed stream that an encoded header describes) and the start
//! header pointing at it. The tail is built once, so that a retried
//! `finish` writes the same bytes (the header's AES IV is random).

use lzflow_core::{Encode, ErrInto};
use lzflow_lzma::{LzmaEncoder, LzmaOptions};

use crate::read::folder::{BindPair, Folder};
use crate::read::header::StreamsInfo;
use crate::read::pack_info::PackInfo;
use crate::secret_buf::SecretBuf;
use crate::write::aes_encoder::ArchiveKey;
use crate::write::file_table::FileTable;
use crate::write::folder_encoder::CHUNK;
use crate::write::folder_record::{coder, lzma_props};
use crate::write::header_writer::{
    header_bytes, header_size, start_header, write_encoded_header, write_header, Out,
};
use crate::write::writer_options::WriterOptions;
use crate::SevenZError;

/// Largest dictionary for the header's LZMA stream (7-Zip's choice too);
/// smaller headers get a dictionary fitted to their size.
const HEADER_DICT_MAX: u32 = 1 << 20;

/// What `finish` writes after the data: fixed once built so that a retry
/// produces the same archive (the header IV is random).
#[derive(Debug)]
pub(crate) struct Tail {
    /// Packed header stream and header record, the record's first byte
    /// zeroed.
    pub(crate) bytes: Vec<u8>,
    /// The start header that points at the header record.
    pub(crate) start: [u8; 32],
    /// Where the header record starts (after the start header) and its
    /// real first byte, written last.
    pub(crate) first_byte: Option<(u64, u8)>,
    /// `bytes` are queued on the sink (a retry must not queue them again).
    pub(crate) queued: bool,
}

impl Tail {
    /// The tail of `bytes` (written at `pack_pos`) whose header record
    /// starts at `record_at`: that byte is zeroed and kept aside.
    fn new(mut bytes: Vec<u8>, record_at: usize, start: [u8; 32], pack_pos: u64) -> Self {
        let first_byte = bytes.get_mut(record_at).map(|b| {
            let real = *b;
            *b = 0;
            (pack_pos + record_at as u64, real)
        });
        Tail {
            bytes,
            start,
            first_byte,
            queued: false,
        }
    }

    /// Serialises the header model and, as `opts` say, compresses and
    /// encrypts (with `key`) it into a packed stream described by an
    /// encoded header; the tail is written at `pack_pos` (counted from
    /// the end of the start header).
    pub(crate) fn build(
        pack_pos: u64,
        main: &StreamsInfo,
        files: &FileTable,
        key: Option<&ArchiveKey>,
        opts: &WriterOptions,
    ) -> Result<Tail, SevenZError> {
        if files.is_empty() {
            // An empty archive has no header at all, as 7-Zip writes it.
            return Ok(Tail::new(Vec::new(), 0, start_header(0, 0, 0), pack_pos));
        }
        if !opts.compress_header && !opts.encrypt_header {
            // The plain header is the archive's tail itself.
            let plain = header_bytes(main, files);
            let start = start_header(pack_pos, plain.len() as u64, crc32fast::hash(&plain));
            return Ok(Tail::new(plain, 0, start, pack_pos));
        }
        // Measured first (the encoder is fitted to the size, and the size
        // goes into the folder record), then written straight into the
        // encoder: the plain header is never held whole.
        let plain_len = header_size(main, files);
        let (packed, lzma_props, plain_crc) =
            compress_header(plain_len, |out| write_header(out, main, files))?;
        let lzma = coder(lzflow_methods::Method::Lzma, lzma_props);
        let (encrypted, folder) = match (key, opts.encrypt_header) {
            (Some(key), true) => {
                let (mut aes, props) = key.encoder()?;
                let mut out = Vec::with_capacity(packed.len() + 32);
                encode_all(&mut aes, &packed, &mut out)?;
                let folder = Folder {
                    coders: vec![coder(lzflow_methods::Method::Aes7z, props), lzma],
                    bind_pairs: vec![BindPair {
                        in_index: 1,
                        out_index: 0,
                    }],
                    packed_streams: vec![0],
                    unpack_sizes: vec![packed.len() as u64, plain_len],
                    crc: Some(plain_crc),
                };
                (Some(out), folder)
            }
            _ => {
                let folder = Folder {
                    coders: vec![lzma],
                    bind_pairs: Vec::new(),
                    packed_streams: vec![0],
                    unpack_sizes: vec![plain_len],
                    crc: Some(plain_crc),
                };
                (None, folder)
            }
        };
        let stream: &[u8] = encrypted.as_deref().unwrap_or(&packed);
        let streams = StreamsInfo {
            pack: PackInfo {
                pack_pos,
                sizes: vec![stream.len() as u64],
                crcs: vec![None],
            },
            folders: vec![folder],
            substreams: Default::default(),
        };
        let block = write_encoded_header(&streams);
        let start = start_header(
            pack_pos + stream.len() as u64,
            block.len() as u64,
            crc32fast::hash(&block),
        );
        let mut bytes = Vec::with_capacity(stream.len() + block.len());
        bytes.extend_from_slice(stream);
        bytes.extend_from_slice(&block);
        Ok(Tail::new(bytes, stream.len(), start, pack_pos))
    }
}

/// Compresses the `len` bytes of plain header that `write` produces into
/// the header's LZMA stream; gives back the stream, its coder properties
/// and the plain header's CRC. The dictionary is fitted to the header's
/// size (at least 4 KiB, at most 1 MiB), so the encoder and readers
/// allocate little.
fn compress_header(
    len: u64,
    write: impl FnOnce(&mut dyn Out),
) -> Result<(SecretBuf, Vec<u8>, u32), SevenZError> {
    let mut opts = LzmaOptions::preset(5).expect("preset 5 exists");
    opts.dict_size = HEADER_DICT_MAX;
    let mut enc = LzmaEncoder::with_size_hint(&opts, false, len)?;
    opts.dict_size = enc.dict_size();
    let mut sink = Compressing::new(ErrInto::<_, SevenZError>::new(&mut enc));
    write(&mut sink);
    let (out, crc, written) = sink.finish()?;
    debug_assert_eq!(written, len, "measured and written header sizes differ");
    Ok((out, lzma_props(&opts), crc))
}

/// Header bytes on their way into an encoder: gathered into pieces of
/// [`CHUNK`] bytes, each checksummed and compressed as it fills. `Out`
/// cannot fail, so the first encoder error is kept for
/// [`finish`](Self::finish) and later bytes are dropped.
struct Compressing<E> {
    enc: E,
    /// The piece being gathered (plain header: zeroized).
    piece: SecretBuf,
    /// Encoder output space.
    scratch: SecretBuf,
    /// The compressed stream so far.
    out: SecretBuf,
    crc: crc32fast::Hasher,
    len: u64,
    error: Option<SevenZError>,
}

impl<E: Encode<Error = SevenZError>> Compressing<E> {
    fn new(enc: E) -> Self {
        Compressing {
            enc,
            piece: SecretBuf::with_capacity(CHUNK),
            scratch: SecretBuf::with_len(CHUNK),
            out: SecretBuf::with_capacity(CHUNK),
            crc: crc32fast::Hasher::new(),
            len: 0,
            error: None,
        }
    }

    /// Checksums and compresses the gathered piece, and empties it.
    fn drain(&mut self) {
        if self.error.is_none() {
            self.crc.update(&self.piece);
            self.len += self.piece.len() as u64;
            let sent = lzflow_core::encode_input(
                &mut self.enc,
                &self.piece,
                &mut self.out,
                &mut self.scratch,
            );
            self.error = sent.err();
        }
        self.piece.clear();
    }

    /// Compresses what is left and ends the stream; gives back the stream,
    /// the CRC and the size of the input.
    fn finish(mut self) -> Result<(SecretBuf, u32, u64), SevenZError> {
        self.drain();
        if let Some(e) = self.error.take() {
            return Err(e);
        }
        lzflow_core::finish_output(&mut self.enc, &mut self.out, &mut self.scratch)?;
        Ok((self.out, self.crc.finalize(), self.len))
    }
}

impl<E: Encode<Error = SevenZError>> Out for Compressing<E> {
    fn push(&mut self, b: u8) {
        self.piece.push(b);
        if self.piece.len() == CHUNK {
            self.drain();
        }
    }

    fn extend_from_slice(&mut self, mut b: &[u8]) {
        while !b.is_empty() {
            let n = (CHUNK - self.piece.len()).min(b.len());
            self.piece.extend_from_slice(&b[..n]);
            b = &b[n..];
            if self.piece.len() == CHUNK {
                self.drain();
            }
        }
    }
}

/// Runs `enc` over all of `data` and finishes it, appending to `out`.
fn encode_all<E: Encode<Error = SevenZError>>(
    enc: &mut E,
    data: &[u8],
    out: &mut Vec<u8>,
) -> Result<(), SevenZError> {
    let mut space = SecretBuf::with_len(CHUNK);
    lzflow_core::encode_to_end(enc, data, out, &mut space)
}
