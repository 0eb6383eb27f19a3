//! Async-first streaming codecs for `.xz`, `.lzma`, `.lz` (lzip), raw
//! LZMA/LZMA2, `.7z` and `.zip`, in pure Rust.
//!
//! Every codec is a sans-I/O state machine (the `lzflow-*` crates); this
//! crate puts thin faces on them for `std::io`, tokio, futures-io and
//! streams of [`bytes::Bytes`]. All faces run the same driver, so they give
//! the same bytes and the same errors whether input arrives whole, a byte
//! at a time or with `Pending` between every poll, and a dropped future
//! loses nothing.
//!
//! # Features
//! | Feature | Default | Enables |
//! |---|---|---|
//! | `tokio` | yes | [`tokio`]: `AsyncRead`/`AsyncWrite` faces, taking part in tokio's cooperative budget; with `sevenz`, `zip`: the tokio container faces (`sevenz::AsyncArchive`, `sevenz_writer::AsyncWriter`, `zip::AsyncZipArchive`, `zip::AsyncZipWriter` …); `seekable::AsyncSeekableXzReader` |
//! | `tokio-fs` | yes | `tokio::fs::ReadAheadFile` (files read ahead on tokio's blocking pool) and the async writers' `add_path` (turns on `tokio`) |
//! | `futures-io` | yes | [`futures`]: the same faces for futures-io (`sevenz::futures`, `zip::futures`, `seekable::futures` with the archive features) |
//! | `sevenz` | yes | 7z archives: `sevenz` (reading), `sevenz_writer` (writing), 7z in [`open_archive`]. Brings AES-256 (`aes`, `cbc`), the Deflate, Deflate64, BZip2 and Zstandard codecs and `tempfile` |
//! | `zip` | yes | zip archives: `zip` (reading and writing), zip in [`open_archive`]. Brings WinZip AES (`aes`, `ctr`, `hmac`, `sha1`, `pbkdf2`) and the Deflate, Deflate64, BZip2 and Zstandard codecs |
//! | `zlib-rs` | yes | Deflate in 7z and zip archives on zlib-rs (through `flate2`; faster, has `unsafe`); without it, on miniz_oxide. Nothing without `sevenz` or `zip` |
//! | `safe` | no | no `unsafe` in any lzflow crate: bounds-checked code (about 5 % slower encoding, on x86-64 about 10 % slower decoding), Deflate on miniz_oxide even with `zlib-rs` |
//!
//! The std faces ([`read`], [`bufread`], [`write`](mod@write)), the
//! [`stream`] adapters, [`seekable::SeekableXzReader`] and [`detect()`] /
//! [`decoder`] are always built. An XZ-only build,
//! `default-features = false, features = ["tokio"]`, depends on no
//! cipher, no Deflate, BZip2 or Zstandard crate and no `tempfile`.
//!
//! # Organization
//! * [`read`], [`bufread`], [`write`](mod@write): `std::io` faces. Decoders:
//!   [`XzDecoder`](read::XzDecoder), [`LzmaDecoder`](read::LzmaDecoder)
//!   (`.lzma`), [`LzipDecoder`](read::LzipDecoder) (`.lz`),
//!   [`Lzma2Decoder`](read::Lzma2Decoder) and
//!   [`RawLzmaDecoder`](read::RawLzmaDecoder) (no container). Encoders:
//!   [`XzEncoder`](write::XzEncoder), [`LzmaEncoder`](write::LzmaEncoder),
//!   [`Lzma2Encoder`](write::Lzma2Encoder),
//!   [`RawLzmaEncoder`](write::RawLzmaEncoder). `new(inner)` /
//!   `new(inner, level)` like xz2 and flate2.
//!   [`MtXzDecoder`](read::MtXzDecoder) decodes multi-block `.xz` files on
//!   worker threads, [`MtXzEncoder`](write::MtXzEncoder) encodes on them,
//!   [`MtLzma2Decoder`](read::MtLzma2Decoder) decodes raw LZMA2 between its
//!   dictionary resets on them; `match_finder_thread(true)` on an
//!   encoder's builder compresses one stream on two threads.
//! * `tokio` (feature `tokio`) and `futures` (feature `futures-io`):
//!   the same types under `bufread` (`AsyncRead` over an `AsyncBufRead`)
//!   and `write` (`AsyncWrite`), named and constructed like
//!   async-compression's (`new`, `with_quality`, `get_ref`, `get_mut`,
//!   `get_pin_mut`, `into_inner`, `multiple_members`), so switching is a
//!   change of import. `tokio::fs::ReadAheadFile` (feature `tokio-fs`)
//!   reads files for them ahead of the decoder on tokio's blocking pool.
//! * [`stream`]: [`XzDecoderStream`](stream::XzDecoderStream), a
//!   `Stream<Item = io::Result<Bytes>>` over a stream of compressed
//!   `Bytes` (hyper, axum and reqwest bodies), and
//!   [`XzEncoderStream`](stream::XzEncoderStream) the other way.
//! * [`seekable`]: random access into `.xz` files
//!   ([`SeekableXzReader`](seekable::SeekableXzReader) and its tokio and
//!   futures-io twins over one poll core), decoding from the Block that
//!   holds an offset.
//! * [`extract`]: the extraction rules and options every archive format
//!   follows (no path outside the target, no writing through existing
//!   files, no setuid bits, the overwrite policy).
//! * `zip` (feature `zip`): reading zip archives, through the central
//!   directory (`ZipArchive` over `Read + Seek`, `AsyncZipArchive` for
//!   tokio and futures-io) or forward-only from a reader that cannot seek
//!   (`ZipStreamReader`, `AsyncZipStreamReader`), listing the central
//!   directory through one window (`CentralDirectoryReader`,
//!   `AsyncCentralDirectoryReader`), and writing them
//!   (`ZipWriter`, `AsyncZipWriter`, `body_stream` for HTTP bodies).
//! * [`detect`](mod@detect): the front door, a format from its first bytes
//!   ([`detect()`]), a reader of whichever stream it is ([`decoder`]), an
//!   archive of whichever kind (`open_archive`, with feature `sevenz` or
//!   `zip`).
//! * `sevenz` (feature `sevenz`): reading 7z archives (`Archive` over
//!   `Read + Seek`, `AsyncArchive` for tokio and futures-io), and
//!   `sevenz_writer`: writing them (`Writer` over `Write + Seek`,
//!   `AsyncWriter` for tokio and futures-io).
//! * Options: every face has a `builder()` ([`DecoderBuilder`],
//!   [`EncoderBuilder`]) for limits, batch size, single-stream mode, checks,
//!   presets, filters and block size. Invalid options are reported by the
//!   first read or write, so constructors never fail.
//! * Any lzflow coder runs in any face: the generic `Decoder<_, D>` /
//!   `Encoder<_, E>` types take a coder with `with_coder`.
//!
//! ## One shape for every container, one face per direction
//! The crates below this one are layered: `lzflow-core` (buffers, the
//! coder traits, limits, pools, the poll source/sink traits in
//! `lzflow_core::source`, the one worker pool `OrderedPool` in
//! `lzflow_core::parallel` that every multi-threaded coder's pieces go
//! through, the extraction rules and their reading twin
//! `lzflow_core::input_file`, how every writer's `add_path` opens a file),
//! the coders
//! (`lzflow-lzma`, `lzflow-filters`), the one method registry
//! (`lzflow-methods`: IDs in every container, properties, memory use,
//! decoders and encoders; Deflate, Deflate64, BZip2 and Zstandard are its
//! features, which only 7z and zip turn on), then the containers
//! (`lzflow-xz`, `lzflow-lzip`, `lzflow-7z`, `lzflow-zip`). A container is
//! sans-I/O parsers and a coder graph, then one poll-style core per way of
//! reading or writing in its own crate (7z: `PollArchive`, `PollWriter`;
//! random access into `.xz`: `PollSeekableXz`; zip: `PollZipArchive`,
//! `PollZipWriter`, `PollZipStream` for forward-only reading and
//! `PollCentralDirectoryReader` for listing) that its
//! std face drives over a `Blocking` source with `block_on`. This crate
//! adds only runtime adapters (`tokio::source`, `futures::source`:
//! `TokioSource`, `TokioSink`, `TokioWriter`, `FuturesSource`,
//! `FuturesSink`, `FuturesWriter`, each an `lzflow_core::source::Adapter`)
//! and one generic face per container (`sevenz::face`,
//! `sevenz_writer::face`, `seekable::face`, `zip::face`,
//! `zip::write_face`) whose tokio and futures-io names are type aliases
//! over the adapter. The codec faces follow the same rule: `async_face`
//! holds each `bufread`, `write` and multi-threaded face once, generic
//! over the runtime, and `tokio` and `futures` add only their traits;
//! `step_stream` turns a container's lending cursor into an owned
//! `Stream` of entries (7z's `into_entries`, the zip stream reader's). The
//! single-stream formats share one poll loop (`pump.rs`) for std, tokio
//! and futures-io (`std_io.rs` makes `std::io` readers and writers its
//! never-pending source and sink; `mt.rs` holds the loops of the
//! multi-threaded XZ faces, which wait on workers without blocking).
//! `tokio::coop` spends tokio's cooperative budget in the tokio faces, so
//! a task over an always-ready source still yields; `tokio::seek` puts
//! tokio's two-step seek behind one poll function; `sevenz::async_spooled`
//! spools a non-seekable async source for the 7z faces. A new container
//! follows the same recipe.
//!
//! # Errors
//! Faces return `io::Error`s whose kind says who is to blame
//! (`InvalidData` corrupt, `UnexpectedEof` truncated, `Unsupported`,
//! `OutOfMemory` for a [`Limits`] hit, `InvalidInput` for bad options) and
//! whose source is the typed error ([`XzError`], [`LzmaError`]):
//! `err.get_ref().and_then(|e| e.downcast_ref::<XzError>())`. Bytes
//! decoded before an error are returned first; after it every call fails
//! again (with a [`StickyError`] carrying the first message).
//!
//! # Memory
//! Dictionaries, chunk buffers and encoder tables come from process-wide
//! [`Pool`]s and go back to them on drop, so a second decode or encode
//! allocates almost nothing. The pools keep at most 128 MiB of idle byte
//! buffers (`Pool::<u8>::global()`) and 192 MiB of idle encoder tables
//! (`Pool::<u32>::global()`): what a 2-thread preset-6 encode uses at once. A service that prefers the memory back calls
//! [`Pool::set_max_idle_bytes`] (0 keeps nothing) or
//! [`Pool::release_idle`]; a decoder built with `no_pool()` uses no pool.
//!
//! # Fairness and cancellation
//! *Per poll*, every async face does bounded work: a read produces at most
//! one batch (16 KiB by default); a write into an encoder takes at most
//! 512 bytes of input per step (0.1-0.5 ms at xz preset 6); a poll takes
//! at most 32 coder steps (a read or write returns with the first step
//! that produces or takes data), then returns `Pending`, waking its task
//! first. Some single steps are longer: ending or flushing an encoder's
//! stream encodes the input held back for look-ahead (a few KiB), and the
//! 7z writer compresses a file's first 64 KiB piece whole (it decides
//! automatic BCJ) and the first MiB of a solid block in one go (to fit
//! the dictionary to small archives). The async multi-threaded faces
//! never block the executor: where the coder would wait for a worker they
//! return `Pending` and are woken when the worker is done (the std
//! `MtXzDecoder`, `MtLzma2Decoder` and `MtXzEncoder` block instead). An
//! encoder with `match_finder_thread(true)` waits within a step for its
//! finder thread's matches of the positions that step codes: the search
//! it would otherwise do itself, so the step stays as short.
//!
//! *Per task*, the tokio faces (everything under `tokio`, and the tokio
//! container faces, which run over `TokioSource`, `TokioSink` or
//! `TokioWriter`: 7z's `AsyncArchive` and `AsyncWriter`, zip's
//! `AsyncZipArchive`, `AsyncZipStreamReader` and `AsyncZipWriter`,
//! `AsyncSeekableXzReader`) take part in tokio's cooperative budget:
//! before each step they check that the task has budget left, else return
//! `Pending` and are woken once the scheduler has run the other tasks,
//! timers and I/O; after it they charge one unit per 2 µs of coding. So a
//! busy task yields after about 256 µs of work even when its reader or
//! writer is always ready (memory, a fast file), other tasks on its
//! thread keep running, and `tokio::time::timeout` or `select!` can cut a
//! long decode short. A face never returns `Pending` after producing or
//! taking data in the same poll. Inside
//! `tokio::task::coop::unconstrained` (or outside a tokio runtime) only
//! the per-poll bound applies.
//!
//! The futures-io faces and the [`stream`] adapters cannot see tokio's
//! budget (it is tokio's, and futures-io has none): they keep the per-poll
//! bound, but a poll that makes progress returns `Ready`, so a task
//! draining one from an always-ready source runs to the end before
//! anything else on its thread. Under tokio, use the tokio faces.
//!
//! Cancelling is safe: a dropped future loses nothing (input taken is the
//! coder's, output produced waits in the face), so after a timeout the
//! same face can be read or written on. Two writers' `add_file` are the
//! exceptions, as they read from a source the dropped future owned:
//! dropping a 7z `AsyncWriter::add_file` mid-file leaves the writer
//! unusable; dropping a zip `AsyncZipWriter::add_file` drops the
//! entry if none of it has reached the sink yet (the archive goes on
//! without it), else the writer fails, so no archive looks complete with
//! part of an entry. Both writers' `finish` can be called again after a
//! dropped call.
//!
//! # Examples
//! Compressing and decoding with std, through each std face:
//! ```
//! use std::io::{Read, Write};
//!
//! // write: an encoder is a `Write` into its sink.
//! let mut encoder = lzflow::write::XzEncoder::new(Vec::new(), 6);
//! encoder.write_all(b"hello, hello, hello\nsecond line\n")?;
//! let xz = encoder.finish()?;
//!
//! // read: a decoder over any `Read`.
//! let mut text = String::new();
//! lzflow::read::XzDecoder::new(&xz[..]).read_to_string(&mut text)?;
//! assert_eq!(text, "hello, hello, hello\nsecond line\n");
//!
//! // bufread: over a `BufRead`, reading no byte past the stream, so
//! // what follows it stays in the reader.
//! let input = [&xz[..], b"trailer"].concat();
//! let mut source = &input[..];
//! let mut decoder = lzflow::bufread::XzDecoder::builder()
//!     .single_stream()
//!     .build(&mut source);
//! let mut again = String::new();
//! decoder.read_to_string(&mut again)?;
//! assert_eq!(again, text);
//! drop(decoder);
//! assert_eq!(source, b"trailer");
//!
//! // write: a decoder can be a `Write` too (compressed bytes in).
//! let mut plain = lzflow::write::XzDecoder::new(Vec::new());
//! plain.write_all(&xz)?;
//! assert_eq!(plain.finish()?, text.as_bytes());
//! # Ok::<(), std::io::Error>(())
//! ```
//! Decoding an upload with limits in a tokio service (feature `tokio`; a
//! file would come through `tokio::fs::ReadAheadFile`):
//! ```
//! # #[cfg(feature = "tokio")]
//! # fn main() -> std::io::Result<()> {
//! use tokio::io::{AsyncReadExt, AsyncWriteExt};
//!
//! tokio::runtime::Builder::new_current_thread().build()?.block_on(async {
//!     let mut encoder = lzflow::tokio::write::XzEncoder::new(Vec::new());
//!     encoder.write_all(&b"upload ".repeat(1000)).await?;
//!     encoder.shutdown().await?;
//!     let upload = encoder.into_inner();
//!
//!     let mut decoder = lzflow::tokio::bufread::XzDecoder::builder()
//!         .memlimit(64 << 20) // refuse dictionaries above 64 MiB
//!         .output_limit(1 << 30) // and bombs beyond 1 GiB
//!         .build(&upload[..]);
//!     let mut body = Vec::new();
//!     decoder.read_to_end(&mut body).await?;
//!     assert_eq!(body, b"upload ".repeat(1000));
//!     Ok(())
//! })
//! # }
//! # #[cfg(not(feature = "tokio"))]
//! # fn main() {}
//! ```
#![forbid(unsafe_code)]
#![cfg_attr(docsrs, feature(doc_cfg))]

mod decode_options;
mod driver;
mod encode_options;
mod mt;
mod pump;
mod std_io;
#[cfg(all(
    any(feature = "tokio", feature = "futures-io"),
    any(feature = "sevenz", feature = "zip")
))]
mod step_stream;

#[cfg(any(feature = "tokio", feature = "futures-io"))]
#[cfg_attr(docsrs, doc(cfg(any(feature = "tokio", feature = "futures-io"))))]
pub mod async_face;
pub mod bufread;
pub mod detect;
#[cfg(feature = "futures-io")]
#[cfg_attr(docsrs, doc(cfg(feature = "futures-io")))]
pub mod futures;
pub mod read;
pub mod seekable;
#[cfg(feature = "sevenz")]
#[cfg_attr(docsrs, doc(cfg(feature = "sevenz")))]
pub mod sevenz;
#[cfg(feature = "sevenz")]
#[cfg_attr(docsrs, doc(cfg(feature = "sevenz")))]
pub mod sevenz_writer;
pub mod stream;
#[cfg(feature = "tokio")]
#[cfg_attr(docsrs, doc(cfg(feature = "tokio")))]
pub mod tokio;
pub mod write;
#[cfg(feature = "zip")]
#[cfg_attr(docsrs, doc(cfg(feature = "zip")))]
pub mod zip;

pub use decode_options::{BuildDecoder, DecodeOptions, DecoderBuilder, DecoderFormat};
pub use detect::{decoder, detect, AnyDecoder, Format};
#[cfg(any(feature = "sevenz", feature = "zip"))]
pub use detect::{open_archive, AnyArchive};
pub use driver::StickyError;
pub use encode_options::{BuildEncoder, EncodeOptions, EncoderBuilder, EncoderFormat, Level};
pub use mt::{BuildMtEncoder, MtDecoderFormat, MtEncodeOptions, MtEncoderBuilder};

/// Extraction rules and options shared by every archive format.
pub use lzflow_core::extract;
pub use lzflow_core::{CoderError, Culprit, Decode, Encode, LimitExceeded, Limits, Pool, Progress};
pub use lzflow_filters::{FilterConfig, FilterError, FilterKind};
pub use lzflow_lzip::LzipError;
pub use lzflow_lzma::{DecoderOptions, LzmaError, LzmaOptions, LzmaProps, MatchFinder, Mode};
pub use lzflow_xz::{Check, XzError};
