//! A hyper 1 reverse proxy that serves `.xz` files of an upstream server
//! decompressed, streaming.
//!
//! ```text
//! cargo run --example hyper_proxy -- http://127.0.0.1:8000/releases     # listens on 127.0.0.1:3001
//! cargo run --example hyper_proxy -- http://127.0.0.1:8000/ 0.0.0.0:8080
//! curl http://127.0.0.1:3001/notes.txt.xz                               # the decoded text
//! ```
//!
//! `GET /p` is forwarded to `GET <upstream>/p` over HTTP/1.1 (the request's
//! path and query only, no other headers). When `/p` ends in `.xz` and the
//! upstream answers `200`, the proxy answers `200` with the *decoded* bytes
//! (`content-type: application/octet-stream`, no length, a
//! `x-decoded-from: xz` header): the upstream body runs through
//! `lzflow::stream::XzDecoderStream` chunk by chunk, so memory stays at a
//! few chunks whatever the file's size, and the decoder's memory limit
//! refuses a dictionary past [`MEMORY_LIMIT`]. Any other answer (another
//! path, a `404`) is passed on unchanged; other methods get `405`, an
//! unreachable upstream `502`.
//!
//! The head of a decoded answer waits for its first decoded bytes, so a
//! file that is no `.xz` at all, or needs too much memory, gets
//! `502 upstream sent a bad .xz file: ...`. Damage found later, after the
//! head has gone out, can only be reported by cutting the answer short:
//! the client sees the body end in an error, never a complete-looking file.

use std::convert::Infallible;
use std::io;
use std::sync::Arc;

use bytes::Bytes;
use futures::{StreamExt, TryStreamExt};
use http_body_util::combinators::UnsyncBoxBody;
use http_body_util::{BodyExt, Full, StreamBody};
use hyper::body::{Frame, Incoming};
use hyper::header::{self, HeaderValue};
use hyper::service::service_fn;
use hyper::{Method, Request, Response, StatusCode, Uri};
use hyper_util::rt::TokioIo;
use tokio::net::{TcpListener, TcpStream};

/// Most bytes the xz decoder may allocate for one response (its
/// dictionary): `xz -9` needs 64 MiB.
pub const MEMORY_LIMIT: u64 = 128 << 20;

/// The answers' body: decoded, passed on, or made here.
pub type ProxyBody = UnsyncBoxBody<Bytes, io::Error>;

/// Where requests go: an `http://host:port/base` URL.
#[derive(Debug, Clone)]
pub struct Upstream {
    authority: String,
    base_path: String,
}

impl Upstream {
    /// Parses `url`; only plain `http` is spoken.
    pub fn new(url: &str) -> io::Result<Self> {
        let uri: Uri = url
            .parse()
            .map_err(|e| io::Error::new(io::ErrorKind::InvalidInput, e))?;
        let authority = match (uri.scheme_str(), uri.authority()) {
            (Some("http"), Some(a)) => a.to_string(),
            _ => {
                return Err(io::Error::new(
                    io::ErrorKind::InvalidInput,
                    format!("{url}: an http://host:port/ URL is needed"),
                ))
            }
        };
        Ok(Upstream {
            authority,
            base_path: uri.path().trim_end_matches('/').to_string(),
        })
    }
}

/// Serves the proxy on `listener` until it fails.
pub async fn serve(listener: TcpListener, upstream: Upstream) -> io::Result<()> {
    let upstream = Arc::new(upstream);
    loop {
        let (socket, _) = listener.accept().await?;
        let upstream = upstream.clone();
        tokio::spawn(async move {
            let service = service_fn(move |req| {
                let upstream = upstream.clone();
                async move { Ok::<_, Infallible>(handle(req, &upstream).await) }
            });
            // A client that goes away mid-answer is no error of the proxy.
            let _ = hyper::server::conn::http1::Builder::new()
                .serve_connection(TokioIo::new(socket), service)
                .await;
        });
    }
}

fn text(status: StatusCode, message: String) -> Response<ProxyBody> {
    let mut response = Response::new(
        Full::new(Bytes::from(message))
            .map_err(|e| match e {})
            .boxed_unsync(),
    );
    *response.status_mut() = status;
    response.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/plain; charset=utf-8"),
    );
    response
}

/// Answers one request.
async fn handle(req: Request<Incoming>, upstream: &Upstream) -> Response<ProxyBody> {
    if req.method() != Method::GET {
        return text(
            StatusCode::METHOD_NOT_ALLOWED,
            "only GET is proxied\n".into(),
        );
    }
    let path = req.uri().path_and_query().map_or("/", |p| p.as_str());
    let decode = req.uri().path().ends_with(".xz");
    let response = match fetch(upstream, path).await {
        Ok(response) => response,
        Err(e) => return text(StatusCode::BAD_GATEWAY, format!("upstream: {e}\n")),
    };
    let (mut parts, body) = response.into_parts();
    // Headers about the upstream connection, not the answer: hyper frames
    // each connection's messages itself.
    for name in [header::CONNECTION, header::TRANSFER_ENCODING] {
        parts.headers.remove(name);
    }
    parts.headers.remove("keep-alive");
    if !(decode && parts.status == StatusCode::OK) {
        let body = body.map_err(io::Error::other).boxed_unsync();
        return Response::from_parts(parts, body);
    }
    let mut decoded = lzflow::stream::XzDecoderStream::builder()
        .memlimit(MEMORY_LIMIT)
        .build(body.into_data_stream());
    // Wait for the first decoded bytes before answering: a file that is
    // no .xz, or whose dictionary is past the limit, gets a 502 instead of
    // a 200 with a body that breaks off at once.
    let first = match decoded.try_next().await {
        Ok(first) => first,
        Err(e) => {
            return text(
                StatusCode::BAD_GATEWAY,
                format!("upstream sent a bad .xz file: {e}\n"),
            )
        }
    };
    let decoded = futures::stream::iter(first.map(Ok)).chain(decoded);
    let body = StreamBody::new(decoded.map_ok(Frame::data));
    let headers = &mut parts.headers;
    headers.remove(header::CONTENT_LENGTH);
    headers.remove(header::CONTENT_ENCODING);
    headers.remove(header::ETAG);
    headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/octet-stream"),
    );
    headers.insert("x-decoded-from", HeaderValue::from_static("xz"));
    Response::from_parts(parts, body.boxed_unsync())
}

/// `GET <upstream><path>` on a new connection.
async fn fetch(
    upstream: &Upstream,
    path: &str,
) -> Result<Response<Incoming>, Box<dyn std::error::Error + Send + Sync>> {
    let socket = TcpStream::connect(&upstream.authority).await?;
    let (mut sender, connection) =
        hyper::client::conn::http1::handshake(TokioIo::new(socket)).await?;
    // The connection runs until the response body has been read.
    tokio::spawn(connection);
    let request = Request::get(format!("{}{path}", upstream.base_path))
        .header(header::HOST, &upstream.authority)
        .body(http_body_util::Empty::<Bytes>::new())?;
    Ok(sender.send_request(request).await?)
}

#[tokio::main]
async fn main() -> io::Result<()> {
    let mut args = std::env::args().skip(1);
    let upstream = args.next().ok_or_else(|| {
        io::Error::new(
            io::ErrorKind::InvalidInput,
            "usage: hyper_proxy http://UPSTREAM[:PORT][/BASE] [LISTEN_ADDR]",
        )
    })?;
    let upstream = Upstream::new(&upstream)?;
    let addr = args.next().unwrap_or_else(|| "127.0.0.1:3001".to_string());
    let listener = TcpListener::bind(&addr).await?;
    println!("proxying http://{} to {upstream:?}", listener.local_addr()?);
    serve(listener, upstream).await
}
