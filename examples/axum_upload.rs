//! An axum upload endpoint that lists a `.tar.xz` or a `.zip` as it
//! arrives, with limits for untrusted input.
//!
//! ```text
//! cargo run --example axum_upload                   # listens on 127.0.0.1:3000
//! cargo run --example axum_upload -- 0.0.0.0:8080   # or where you say
//! curl --data-binary @site.tar.xz http://127.0.0.1:3000/upload
//! ```
//!
//! `POST /upload` streams the request body through lzflow: the first bytes
//! pick the format ([`lzflow::detect`]); a `.tar.xz` goes through
//! `lzflow::tokio::bufread::XzDecoder` into an async tar reader, a `.zip`
//! through lzflow's forward-only `AsyncZipStreamReader`. Nothing is
//! buffered beyond a few chunks, and every entry's data is read (so a
//! damaged entry is found) but kept nowhere. Answers, all `text/plain`:
//!
//! * `200`: `<format>: <n> entries, <bytes> bytes`, then one
//!   `<name>\t<size>` line per entry (sizes as decoded);
//! * `400 invalid upload: ...` / `400 truncated upload: ...` for a damaged
//!   or cut archive (a tar whose `.xz` ends early or fails its check
//!   included: the stream is read to its end after the last entry);
//! * `413 upload too large: ...` past [`UploadLimits`] (decoded bytes,
//!   entries, or the decoders' memory limit);
//! * `415 unsupported upload: ...` for anything but `.tar.xz` and `.zip`,
//!   or a zip method or xz filter lzflow does not have.

use std::io;

use axum::body::{Body, BodyDataStream};
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use axum::Router;
use futures::{StreamExt, TryStreamExt};
use lzflow::zip::{AsyncZipStreamReader, ZipOptions};
use lzflow::{CoderError, Culprit, Format, Limits};
use tokio::io::{AsyncRead, AsyncReadExt, BufReader};
use tokio_util::io::StreamReader;

/// What one upload may cost.
#[derive(Debug, Clone, Copy)]
pub struct UploadLimits {
    /// Most bytes of entry data, summed over the entries.
    pub max_decoded: u64,
    /// Most entries (directories count).
    pub max_entries: u64,
    /// Most bytes a decoder may allocate (the xz dictionary of a
    /// `.tar.xz`; a zip entry's LZMA/XZ/BZip2 state).
    pub memory: u64,
}

impl Default for UploadLimits {
    fn default() -> Self {
        UploadLimits {
            max_decoded: 1 << 30,
            max_entries: 10_000,
            memory: 64 << 20,
        }
    }
}

/// Decoded tar bytes allowed beyond `max_decoded`: headers, padding, and
/// the long names and pax records the tar reader keeps in memory while
/// it reads an entry's header.
const TAR_OVERHEAD: u64 = 1 << 20;

/// Bytes of the body still read (and dropped) after the answer is known:
/// a refused upload's rest, a zip's central directory. Closing a socket
/// with unread data sends a reset, which may make the client's kernel
/// drop the answer before the client has read it.
const DRAIN_LIMIT: u64 = 4 << 20;

/// The router: `POST /upload`.
pub fn app(limits: UploadLimits) -> Router {
    Router::new()
        .route("/upload", post(upload))
        .with_state(limits)
}

/// Why an upload was refused.
#[derive(Debug)]
enum Rejection {
    Unsupported(String),
    TooLarge(String),
    Truncated,
    Invalid(String),
}

impl Rejection {
    /// Sorts an error by who is to blame: lzflow's errors carry it as
    /// their `io::ErrorKind` (and the tar reader passes them on).
    fn from_io(e: io::Error) -> Self {
        match e.kind() {
            io::ErrorKind::UnexpectedEof => Rejection::Truncated,
            io::ErrorKind::OutOfMemory => Rejection::TooLarge(e.to_string()),
            io::ErrorKind::Unsupported => Rejection::Unsupported(e.to_string()),
            _ => Rejection::Invalid(e.to_string()),
        }
    }

    fn from_zip(e: lzflow::zip::ZipError) -> Self {
        match e.culprit() {
            Culprit::Io => Rejection::from_io(e.into()),
            Culprit::Truncated => Rejection::Truncated,
            Culprit::Limit => Rejection::TooLarge(e.to_string()),
            Culprit::Unsupported => Rejection::Unsupported(e.to_string()),
            _ => Rejection::Invalid(e.to_string()),
        }
    }
}

impl IntoResponse for Rejection {
    fn into_response(self) -> Response {
        let (status, what, why) = match self {
            Rejection::Unsupported(why) => (
                StatusCode::UNSUPPORTED_MEDIA_TYPE,
                "unsupported upload",
                why,
            ),
            Rejection::TooLarge(why) => (StatusCode::PAYLOAD_TOO_LARGE, "upload too large", why),
            Rejection::Truncated => (
                StatusCode::BAD_REQUEST,
                "truncated upload",
                "the archive ends early".to_string(),
            ),
            Rejection::Invalid(why) => (StatusCode::BAD_REQUEST, "invalid upload", why),
        };
        (status, format!("{what}: {why}\n")).into_response()
    }
}

/// The listing being made, and the limits it is held to.
struct Listing {
    limits: UploadLimits,
    lines: String,
    entries: u64,
    decoded: u64,
}

impl Listing {
    fn new(limits: UploadLimits) -> Self {
        Listing {
            limits,
            lines: String::new(),
            entries: 0,
            decoded: 0,
        }
    }

    /// Counts one more entry, refusing the one past the cap.
    fn enter(&mut self) -> Result<(), Rejection> {
        self.entries += 1;
        if self.entries > self.limits.max_entries {
            return Err(Rejection::TooLarge(format!(
                "more than {} entries",
                self.limits.max_entries
            )));
        }
        Ok(())
    }

    /// Reads one entry's data to its end, counting it against the cap,
    /// and lists it.
    async fn read_entry(
        &mut self,
        name: &str,
        mut data: impl AsyncRead + Unpin,
    ) -> Result<(), Rejection> {
        let mut buf = vec![0u8; 16 << 10];
        let mut size = 0u64;
        loop {
            let n = data.read(&mut buf).await.map_err(Rejection::from_io)?;
            if n == 0 {
                break;
            }
            size += n as u64;
            self.decoded += n as u64;
            if self.decoded > self.limits.max_decoded {
                return Err(Rejection::TooLarge(format!(
                    "more than {} decoded bytes",
                    self.limits.max_decoded
                )));
            }
        }
        self.lines.push_str(&format!("{name}\t{size}\n"));
        Ok(())
    }

    fn finish(self, format: &str) -> String {
        format!(
            "{format}: {} entries, {} bytes\n{}",
            self.entries, self.decoded, self.lines
        )
    }
}

/// `POST /upload`.
async fn upload(State(limits): State<UploadLimits>, body: Body) -> Response {
    let mut stream = body.into_data_stream();
    let result = list(limits, &mut stream).await;
    drain(&mut stream).await;
    match result {
        Ok(listing) => listing.into_response(),
        Err(rejection) => rejection.into_response(),
    }
}

/// Reads and drops up to [`DRAIN_LIMIT`] more bytes of the body.
async fn drain(stream: &mut BodyDataStream) {
    let mut left = DRAIN_LIMIT;
    while let Some(Ok(chunk)) = stream.next().await {
        left = left.saturating_sub(chunk.len() as u64);
        if left == 0 {
            return;
        }
    }
}

/// Lists the upload in `stream`, whichever format it is.
async fn list(limits: UploadLimits, stream: &mut BodyDataStream) -> Result<String, Rejection> {
    let mut body = StreamReader::new(stream.map_err(io::Error::other));
    // The bytes `detect` needs, then the body again from its start.
    let mut head = Vec::with_capacity(lzflow::detect::DETECT_LEN);
    (&mut body)
        .take(lzflow::detect::DETECT_LEN as u64)
        .read_to_end(&mut head)
        .await
        .map_err(Rejection::from_io)?;
    let format = lzflow::detect(&head);
    let whole = io::Cursor::new(head).chain(body);
    let mut listing = Listing::new(limits);
    match format {
        Some(Format::Xz) => {
            list_tar_xz(whole, &mut listing).await?;
            Ok(listing.finish("tar.xz"))
        }
        Some(Format::Zip) => {
            list_zip(whole, &mut listing).await?;
            Ok(listing.finish("zip"))
        }
        _ => Err(Rejection::Unsupported(
            "send a .tar.xz or a .zip".to_string(),
        )),
    }
}

async fn list_tar_xz(
    body: impl AsyncRead + Unpin + Send,
    listing: &mut Listing,
) -> Result<(), Rejection> {
    let decoder = lzflow::tokio::bufread::XzDecoder::builder()
        .memlimit(listing.limits.memory)
        .output_limit(listing.limits.max_decoded.saturating_add(TAR_OVERHEAD))
        .build(BufReader::new(body));
    let mut archive = tokio_tar::Archive::new(decoder);
    let mut entries = archive.entries().map_err(Rejection::from_io)?;
    while let Some(entry) = entries.next().await {
        let entry = entry.map_err(Rejection::from_io)?;
        listing.enter()?;
        let name =
            String::from_utf8_lossy(&entry.path_bytes().map_err(Rejection::from_io)?).into_owned();
        listing.read_entry(&name, entry).await?;
    }
    drop(entries);
    // The tar ends before the .xz stream does (its index and check): read
    // the rest, so a cut or damaged end is refused too.
    let Ok(mut decoder) = archive.into_inner() else {
        unreachable!("the entries, the archive's only other user, are gone")
    };
    tokio::io::copy(&mut decoder, &mut tokio::io::sink())
        .await
        .map_err(Rejection::from_io)?;
    Ok(())
}

async fn list_zip(
    body: impl AsyncRead + Unpin + Send,
    listing: &mut Listing,
) -> Result<(), Rejection> {
    let options =
        ZipOptions::new().with_limits(Limits::default().with_memory(listing.limits.memory));
    let mut zip = AsyncZipStreamReader::with_options(body, options);
    while let Some(entry) = zip.next_entry().await.map_err(Rejection::from_zip)? {
        listing.enter()?;
        let name = entry.name().into_owned();
        listing.read_entry(&name, entry).await?;
    }
    Ok(())
}

#[tokio::main]
async fn main() -> io::Result<()> {
    let addr = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "127.0.0.1:3000".to_string());
    let listener = tokio::net::TcpListener::bind(&addr).await?;
    println!("POST uploads to http://{}/upload", listener.local_addr()?);
    axum::serve(listener, app(UploadLimits::default())).await
}
