//! Compile-time checks on the public async face types: each is `Send` over
//! a `Send` inner reader or writer (so it can live in a spawned task), and
//! `Sync` where that holds; and the tokio and futures-io faces stay
//! distinct types, each implementing only its own runtime's traits.
#![cfg(all(feature = "tokio", feature = "tokio-fs", feature = "futures-io"))]

use futures::io::{AllowStdIo, BufReader as FuturesBufReader};
use tokio::fs::File;
use tokio::io::BufReader;

fn _assert_send<T: Send>() {}
fn _assert_sync<T: Sync>() {}

/// `_assert_send` for each type.
macro_rules! send {
    ($($t:ty),* $(,)?) => { $(_assert_send::<$t>();)* };
}

/// `_assert_send` and `_assert_sync` for each type.
macro_rules! send_sync {
    ($($t:ty),* $(,)?) => { $(_assert_send::<$t>(); _assert_sync::<$t>();)* };
}

/// The futures-io reader and writer the checks use.
type FuturesFile = AllowStdIo<std::fs::File>;

/// Every codec face is `Send` over a `Send` inner reader or writer. The
/// LZMA, LZMA2 and lzip ones are `Sync` too; the XZ ones are not, because
/// an XZ coder holds its filter chain as `Box<dyn Filter>` (lzflow-filters'
/// trait objects are not `Sync`) and the multi-threaded encoders hold an
/// `mpsc::Receiver` from their workers. A face is only ever used through
/// `&mut` or `Pin<&mut>`, so `Send` is what a spawned task needs.
#[allow(dead_code)]
fn _codec_faces() {
    type TR = BufReader<File>;
    send_sync!(
        lzflow::tokio::bufread::LzmaDecoder<TR>,
        lzflow::tokio::bufread::LzipDecoder<TR>,
        lzflow::tokio::bufread::Lzma2Decoder<TR>,
        lzflow::tokio::bufread::RawLzmaDecoder<TR>,
        lzflow::tokio::bufread::LzmaEncoder<TR>,
        lzflow::tokio::bufread::LzipEncoder<TR>,
        lzflow::tokio::bufread::Lzma2Encoder<TR>,
        lzflow::tokio::bufread::RawLzmaEncoder<TR>,
        lzflow::tokio::bufread::LzmaDecoder<lzflow::tokio::fs::ReadAheadFile>,
    );
    send!(
        lzflow::tokio::bufread::XzDecoder<TR>,
        lzflow::tokio::bufread::XzEncoder<TR>,
        lzflow::tokio::bufread::MtXzDecoder<TR>,
        lzflow::tokio::bufread::MtLzma2Decoder<TR>,
        lzflow::tokio::bufread::XzDecoder<lzflow::tokio::fs::ReadAheadFile>,
    );

    type TW = File;
    send_sync!(
        lzflow::tokio::write::LzmaDecoder<TW>,
        lzflow::tokio::write::LzipDecoder<TW>,
        lzflow::tokio::write::Lzma2Decoder<TW>,
        lzflow::tokio::write::RawLzmaDecoder<TW>,
        lzflow::tokio::write::LzmaEncoder<TW>,
        lzflow::tokio::write::LzipEncoder<TW>,
        lzflow::tokio::write::Lzma2Encoder<TW>,
        lzflow::tokio::write::RawLzmaEncoder<TW>,
    );
    send!(
        lzflow::tokio::write::XzDecoder<TW>,
        lzflow::tokio::write::XzEncoder<TW>,
        lzflow::tokio::write::MtXzEncoder<TW>,
    );

    type FR = FuturesBufReader<FuturesFile>;
    send_sync!(
        lzflow::futures::bufread::LzmaDecoder<FR>,
        lzflow::futures::bufread::LzipDecoder<FR>,
        lzflow::futures::bufread::Lzma2Decoder<FR>,
        lzflow::futures::bufread::RawLzmaDecoder<FR>,
        lzflow::futures::bufread::LzmaEncoder<FR>,
        lzflow::futures::bufread::LzipEncoder<FR>,
        lzflow::futures::bufread::Lzma2Encoder<FR>,
        lzflow::futures::bufread::RawLzmaEncoder<FR>,
    );
    send!(
        lzflow::futures::bufread::XzDecoder<FR>,
        lzflow::futures::bufread::XzEncoder<FR>,
        lzflow::futures::bufread::MtXzDecoder<FR>,
        lzflow::futures::bufread::MtLzma2Decoder<FR>,
    );

    type FW = FuturesFile;
    send_sync!(
        lzflow::futures::write::LzmaDecoder<FW>,
        lzflow::futures::write::LzipDecoder<FW>,
        lzflow::futures::write::Lzma2Decoder<FW>,
        lzflow::futures::write::RawLzmaDecoder<FW>,
        lzflow::futures::write::LzmaEncoder<FW>,
        lzflow::futures::write::LzipEncoder<FW>,
        lzflow::futures::write::Lzma2Encoder<FW>,
        lzflow::futures::write::RawLzmaEncoder<FW>,
    );
    send!(
        lzflow::futures::write::XzDecoder<FW>,
        lzflow::futures::write::XzEncoder<FW>,
        lzflow::futures::write::MtXzEncoder<FW>,
    );
}

/// The container faces are `Send`. `Sync` too: the 7z archives (and
/// `AsyncSpooled`, `ReadAheadFile`); not the 7z entry readers (their
/// decoder chain is a `Box<dyn Decode + Send>`), the 7z writers (XZ-style
/// filters and the compressing thread's `mpsc::Receiver`) or the seekable
/// `.xz` readers (XZ filters).
#[allow(dead_code)]
fn _container_faces() {
    use lzflow::{seekable, sevenz, sevenz_writer};

    send_sync!(
        sevenz::AsyncArchive<File>,
        sevenz::futures::AsyncArchive<FuturesFile>,
        sevenz::AsyncSpooled,
        lzflow::tokio::fs::ReadAheadFile,
    );
    send!(
        sevenz::AsyncEntries<'static, File>,
        sevenz::AsyncEntryReader<'static, File>,
        sevenz::futures::AsyncEntries<'static, FuturesFile>,
        sevenz::futures::AsyncEntryReader<'static, FuturesFile>,
        sevenz::EntryStream<File>,
        sevenz::futures::EntryStream<FuturesFile>,
        lzflow::zip::ZipEntryStream<File>,
        lzflow::zip::futures::ZipEntryStream<FuturesFile>,
        sevenz_writer::AsyncWriter<File>,
        sevenz_writer::futures::AsyncWriter<FuturesFile>,
        seekable::AsyncSeekableXzReader<File>,
        seekable::futures::AsyncSeekableXzReader<FuturesFile>,
    );
}

/// `&[u8]` is both a tokio and a futures-io `AsyncBufRead`, and `Vec<u8>`
/// both runtimes' `AsyncWrite`: with both extension traits in scope, each
/// face still resolves to its own runtime's methods (they would be
/// ambiguous if one type implemented both runtimes' traits).
#[tokio::test]
async fn runtime_faces_stay_distinct() {
    use futures::io::{AsyncReadExt as _, AsyncWriteExt as _};
    use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};

    let text = b"one face per runtime, one face per runtime".repeat(20);

    let mut enc = lzflow::tokio::write::XzEncoder::new(Vec::new());
    enc.write_all(&text).await.unwrap();
    enc.shutdown().await.unwrap();
    let xz = enc.into_inner();

    let mut enc = lzflow::futures::write::XzEncoder::new(Vec::new());
    enc.write_all(&text).await.unwrap();
    enc.close().await.unwrap();
    assert_eq!(enc.into_inner(), xz);

    let mut out = Vec::new();
    lzflow::tokio::bufread::XzDecoder::new(&xz[..])
        .read_to_end(&mut out)
        .await
        .unwrap();
    assert_eq!(out, text);

    let mut out = Vec::new();
    lzflow::futures::bufread::XzDecoder::new(&xz[..])
        .read_to_end(&mut out)
        .await
        .unwrap();
    assert_eq!(out, text);
}

#[test]
fn zip_faces_are_send() {
    fn _assert_send<T: Send>() {}
    _assert_send::<lzflow::zip::AsyncZipArchive<tokio::fs::File>>();
    _assert_send::<lzflow::zip::AsyncZipEntryReader<'static, tokio::fs::File>>();
    _assert_send::<lzflow::zip::futures::AsyncZipArchive<futures::io::Cursor<Vec<u8>>>>();
    _assert_send::<lzflow::zip::ZipArchive<std::fs::File>>();
    _assert_send::<lzflow::zip::AsyncZipStreamReader<tokio::net::TcpStream>>();
    _assert_send::<lzflow::zip::AsyncZipStreamEntry<'static, tokio::net::TcpStream>>();
    _assert_send::<lzflow::zip::futures::AsyncZipStreamReader<futures::io::Cursor<Vec<u8>>>>();
    _assert_send::<lzflow::zip::ZipStreamReader<std::io::Stdin>>();
    _assert_send::<lzflow::zip::ZipStreamEntry<'static, std::io::Stdin>>();
}

#[tokio::test]
async fn the_stream_reader_future_is_send() {
    fn _assert_send<T: Send>(_: &T) {}
    let mut z = lzflow::zip::AsyncZipStreamReader::new(&b""[..]);
    let fut = z.next_entry();
    _assert_send(&fut);
    assert!(fut.await.is_err());
}

/// The extraction futures can be spawned: what they hold across awaits
/// (the archive, the extraction's thread handle) is `Send`. Type-checked
/// only.
#[allow(dead_code)]
fn extraction_futures_are_send(
    zip: &mut lzflow::zip::AsyncZipArchive<tokio::fs::File>,
    stream: &mut lzflow::zip::AsyncZipStreamReader<tokio::net::TcpStream>,
    sevenz: &mut lzflow::sevenz::AsyncArchive<tokio::fs::File>,
    futures_7z: &mut lzflow::sevenz::futures::AsyncArchive<futures::io::Cursor<Vec<u8>>>,
) {
    fn send<T: Send>(_: T) {}
    let (zo, so) = (
        lzflow::zip::ExtractOptions::default(),
        lzflow::sevenz::ExtractOptions::default(),
    );
    send(zip.extract_to_with("out", &zo));
    send(stream.extract_to_with("out", &zo));
    send(sevenz.extract_to_with("out", &so));
    send(futures_7z.extract_to_with("out", &so));
}
