//! The HTTP examples, served on 127.0.0.1 inside the test and spoken to as
//! a client would: examples/axum_upload.rs lists uploads exactly and
//! refuses bad and oversized ones with the documented answers;
//! examples/hyper_proxy.rs hands out an upstream `.xz` file decoded.
// The upload example's features (its [[example]] entry's).
#![cfg(all(feature = "tokio", feature = "zip"))]

#[allow(dead_code)]
#[path = "../examples/axum_upload.rs"]
mod axum_upload;
#[allow(dead_code)]
#[path = "../examples/hyper_proxy.rs"]
mod hyper_proxy;

use std::convert::Infallible;
use std::io::Write;
use std::net::SocketAddr;

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::{Method, Request, Response, StatusCode};
use hyper_util::rt::TokioIo;
use lzflow::zip::{EntryOptions, WriteMethod, ZipWriter};
use tokio::net::{TcpListener, TcpStream};

/// An answer as the client got it; `body` is `Err` when it was cut short.
struct Answer {
    status: StatusCode,
    headers: hyper::HeaderMap,
    body: Result<Bytes, hyper::Error>,
}

impl Answer {
    fn text(&self) -> String {
        let body = self.body.as_ref().expect("a whole body");
        String::from_utf8(body.to_vec()).expect("a text body")
    }
}

/// One HTTP/1.1 request on a new connection.
async fn request(addr: SocketAddr, method: Method, path: &str, body: Vec<u8>) -> Answer {
    let socket = TcpStream::connect(addr).await.unwrap();
    let (mut sender, connection) = hyper::client::conn::http1::handshake(TokioIo::new(socket))
        .await
        .unwrap();
    tokio::spawn(connection);
    let request = Request::builder()
        .method(method)
        .uri(path)
        .header(hyper::header::HOST, addr.to_string())
        .body(Full::new(Bytes::from(body)))
        .unwrap();
    let response = sender.send_request(request).await.unwrap();
    let (parts, body) = response.into_parts();
    Answer {
        status: parts.status,
        headers: parts.headers,
        body: body.collect().await.map(|b| b.to_bytes()),
    }
}

/// Serves the upload example with `limits` on a free port.
async fn upload_server(limits: axum_upload::UploadLimits) -> SocketAddr {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move {
        axum::serve(listener, axum_upload::app(limits))
            .await
            .unwrap()
    });
    addr
}

fn small_limits() -> axum_upload::UploadLimits {
    axum_upload::UploadLimits {
        max_decoded: 100_000,
        max_entries: 4,
        memory: 16 << 20,
    }
}

/// Seeded, compressible bytes.
fn data(len: usize, seed: u8) -> Vec<u8> {
    (0..len)
        .map(|i| b"lzflow lists uploads\n"[(i + seed as usize) % 21])
        .collect()
}

/// A tar of `files` (a directory entry first), compressed by lzflow.
async fn tar_xz(files: &[(&str, Vec<u8>)]) -> Vec<u8> {
    let mut tar = tokio_tar::Builder::new(Vec::new());
    let mut dir = tokio_tar::Header::new_gnu();
    dir.set_entry_type(tokio_tar::EntryType::Directory);
    dir.set_size(0);
    dir.set_mode(0o755);
    dir.set_cksum();
    tar.append_data(&mut dir, "docs/", &[][..]).await.unwrap();
    for (name, content) in files {
        let mut header = tokio_tar::Header::new_gnu();
        header.set_size(content.len() as u64);
        header.set_mode(0o644);
        header.set_cksum();
        tar.append_data(&mut header, name, &content[..])
            .await
            .unwrap();
    }
    let tar = tar.into_inner().await.unwrap();
    let mut xz = lzflow::write::XzEncoder::new(Vec::new(), 6);
    xz.write_all(&tar).unwrap();
    xz.finish().unwrap()
}

/// A zip of `files` (a directory entry first) made by lzflow's streaming
/// writer: Deflate entries with data descriptors, as a pipe would get.
fn zip(files: &[(&str, Vec<u8>)]) -> Vec<u8> {
    let mut zip = ZipWriter::new_streaming(Vec::new()).unwrap();
    let options = EntryOptions::default().with_method(WriteMethod::Deflate, 6);
    zip.add_directory("docs", &options).unwrap();
    for (name, content) in files {
        zip.add_file(name, &content[..], &options).unwrap();
    }
    zip.finish().unwrap()
}

fn two_files() -> Vec<(&'static str, Vec<u8>)> {
    vec![
        ("docs/readme.txt", data(1234, 1)),
        ("docs/big.log", data(60_000, 2)),
    ]
}

#[tokio::test]
async fn a_tar_xz_upload_is_listed() {
    let addr = upload_server(small_limits()).await;
    let answer = request(addr, Method::POST, "/upload", tar_xz(&two_files()).await).await;
    assert_eq!(answer.status, StatusCode::OK);
    assert_eq!(
        answer.text(),
        "tar.xz: 3 entries, 61234 bytes\ndocs/\t0\ndocs/readme.txt\t1234\ndocs/big.log\t60000\n"
    );
    assert_eq!(
        answer.headers[hyper::header::CONTENT_TYPE],
        "text/plain; charset=utf-8"
    );
}

#[tokio::test]
async fn a_zip_upload_is_listed() {
    let addr = upload_server(small_limits()).await;
    let answer = request(addr, Method::POST, "/upload", zip(&two_files())).await;
    assert_eq!(answer.status, StatusCode::OK);
    assert_eq!(
        answer.text(),
        "zip: 3 entries, 61234 bytes\ndocs/\t0\ndocs/readme.txt\t1234\ndocs/big.log\t60000\n"
    );
}

#[tokio::test]
async fn a_truncated_upload_is_a_400() {
    let addr = upload_server(small_limits()).await;
    for body in [tar_xz(&two_files()).await, zip(&two_files())] {
        let cut = body[..body.len() / 2].to_vec();
        let answer = request(addr, Method::POST, "/upload", cut).await;
        assert_eq!(answer.status, StatusCode::BAD_REQUEST);
        assert_eq!(answer.text(), "truncated upload: the archive ends early\n");
    }
    // Cut in the .xz index, after the whole tar: found by reading the
    // stream to its end.
    let body = tar_xz(&two_files()).await;
    let cut = body[..body.len() - 20].to_vec();
    let answer = request(addr, Method::POST, "/upload", cut).await;
    assert_eq!(answer.status, StatusCode::BAD_REQUEST);
    assert_eq!(answer.text(), "truncated upload: the archive ends early\n");
}

#[tokio::test]
async fn a_corrupt_upload_is_a_400() {
    let addr = upload_server(small_limits()).await;
    // The last byte of the stream footer's magic.
    let mut body = tar_xz(&two_files()).await;
    let n = body.len();
    body[n - 1] ^= 0xFF;
    let answer = request(addr, Method::POST, "/upload", body).await;
    assert_eq!(answer.status, StatusCode::BAD_REQUEST);
    assert_eq!(
        answer.text(),
        "invalid upload: XZ stream footer is corrupt: it does not end with the magic bytes \"YZ\"\n"
    );
}

#[tokio::test]
async fn other_formats_are_a_415() {
    let addr = upload_server(small_limits()).await;
    for body in [b"plain text, not an archive".to_vec(), Vec::new()] {
        let answer = request(addr, Method::POST, "/upload", body).await;
        assert_eq!(answer.status, StatusCode::UNSUPPORTED_MEDIA_TYPE);
        assert_eq!(
            answer.text(),
            "unsupported upload: send a .tar.xz or a .zip\n"
        );
    }
}

#[tokio::test]
async fn more_decoded_bytes_than_the_cap_are_a_413() {
    let addr = upload_server(small_limits()).await;
    // 100,001 bytes: one past the cap, a few hundred compressed.
    let files = [("docs/a", data(60_000, 3)), ("docs/b", data(40_001, 4))];
    for body in [tar_xz(&files).await, zip(&files)] {
        let answer = request(addr, Method::POST, "/upload", body).await;
        assert_eq!(answer.status, StatusCode::PAYLOAD_TOO_LARGE);
        assert_eq!(
            answer.text(),
            "upload too large: more than 100000 decoded bytes\n"
        );
    }
    // Incompressible: the answer is known long before the server has read
    // the whole body.
    let mut state = 0x2545_f491_u32;
    let noise: Vec<u8> = (0..600_000)
        .map(|_| {
            state ^= state << 13;
            state ^= state >> 17;
            state ^= state << 5;
            state as u8
        })
        .collect();
    let body = zip(&[("docs/noise", noise)]);
    assert!(body.len() > 600_000);
    let answer = request(addr, Method::POST, "/upload", body).await;
    assert_eq!(answer.status, StatusCode::PAYLOAD_TOO_LARGE);
    assert_eq!(
        answer.text(),
        "upload too large: more than 100000 decoded bytes\n"
    );
    // Exactly at the cap is fine.
    let files = [("docs/a", data(60_000, 3)), ("docs/b", data(40_000, 4))];
    let answer = request(addr, Method::POST, "/upload", zip(&files)).await;
    assert_eq!(answer.status, StatusCode::OK);
    assert!(answer.text().starts_with("zip: 3 entries, 100000 bytes\n"));
}

#[tokio::test]
async fn more_entries_than_the_cap_are_a_413() {
    let addr = upload_server(small_limits()).await;
    // With the directory: 5 entries, one past the cap.
    let files: Vec<_> = ["docs/1", "docs/2", "docs/3", "docs/4"]
        .into_iter()
        .map(|name| (name, data(10, 5)))
        .collect();
    for body in [tar_xz(&files).await, zip(&files)] {
        let answer = request(addr, Method::POST, "/upload", body).await;
        assert_eq!(answer.status, StatusCode::PAYLOAD_TOO_LARGE);
        assert_eq!(answer.text(), "upload too large: more than 4 entries\n");
    }
}

#[tokio::test]
async fn a_dictionary_past_the_memory_limit_is_a_413() {
    let addr = upload_server(axum_upload::UploadLimits {
        memory: 1 << 20,
        ..small_limits()
    })
    .await;
    // Preset 6: an 8 MiB dictionary.
    let answer = request(addr, Method::POST, "/upload", tar_xz(&two_files()).await).await;
    assert_eq!(answer.status, StatusCode::PAYLOAD_TOO_LARGE);
    // The bytes needed are lzflow's estimate; the rest is the example's.
    let refused = |text: String| {
        assert!(
            text.starts_with("upload too large: memory limit exceeded: ")
                && text.ends_with(" bytes needed, 1 MiB (1048576 bytes) allowed\n"),
            "{text}"
        )
    };
    refused(answer.text());
    // A zip entry compressed as XZ at preset 6 meets the same limit.
    let mut zip = ZipWriter::new_streaming(Vec::new()).unwrap();
    let options = EntryOptions::default().with_method(WriteMethod::Xz, 6);
    zip.add_file("docs/a", &data(1000, 8)[..], &options)
        .unwrap();
    let answer = request(addr, Method::POST, "/upload", zip.finish().unwrap()).await;
    assert_eq!(answer.status, StatusCode::PAYLOAD_TOO_LARGE);
    refused(answer.text());
}

/// An upstream serving `files` (path, body), 404 for anything else.
async fn upstream_server(files: Vec<(&'static str, Vec<u8>)>) -> SocketAddr {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let files = std::sync::Arc::new(files);
    tokio::spawn(async move {
        loop {
            let (socket, _) = listener.accept().await.unwrap();
            let files = files.clone();
            tokio::spawn(async move {
                let service = hyper::service::service_fn(move |req: Request<_>| {
                    let found = files
                        .iter()
                        .find(|(path, _)| *path == req.uri().path())
                        .map(|(_, body)| body.clone());
                    async move {
                        let response = match found {
                            Some(body) => Response::new(Full::new(Bytes::from(body))),
                            None => Response::builder()
                                .status(StatusCode::NOT_FOUND)
                                .body(Full::new(Bytes::from_static(b"no such file\n")))
                                .unwrap(),
                        };
                        Ok::<_, Infallible>(response)
                    }
                });
                let _ = hyper::server::conn::http1::Builder::new()
                    .serve_connection(TokioIo::new(socket), service)
                    .await;
            });
        }
    });
    addr
}

/// The proxy in front of `upstream`'s `/files`.
async fn proxy_server(upstream: SocketAddr) -> SocketAddr {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let upstream = hyper_proxy::Upstream::new(&format!("http://{upstream}/files/")).unwrap();
    tokio::spawn(hyper_proxy::serve(listener, upstream));
    addr
}

fn xz(data: &[u8]) -> Vec<u8> {
    let mut w = lzflow::write::XzEncoder::new(Vec::new(), 6);
    w.write_all(data).unwrap();
    w.finish().unwrap()
}

#[tokio::test]
async fn the_proxy_hands_out_xz_files_decoded() {
    // Larger than a decoder chunk, so the body arrives in several.
    let plain = data(300_000, 6);
    let fixture = std::fs::read(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/fixtures/generated/xz/multistream.xz"
    ))
    .unwrap();
    let mut fixture_plain = Vec::new();
    std::io::Read::read_to_end(
        &mut lzflow::read::XzDecoder::new(&fixture[..]),
        &mut fixture_plain,
    )
    .unwrap();
    let upstream = upstream_server(vec![
        ("/files/notes.txt.xz", xz(&plain)),
        ("/files/multistream.xz", fixture.clone()),
        ("/files/notes.txt", plain.clone()),
    ])
    .await;
    let proxy = proxy_server(upstream).await;

    let answer = request(proxy, Method::GET, "/notes.txt.xz", Vec::new()).await;
    assert_eq!(answer.status, StatusCode::OK);
    assert_eq!(answer.headers["x-decoded-from"], "xz");
    assert_eq!(
        answer.headers[hyper::header::CONTENT_TYPE],
        "application/octet-stream"
    );
    assert!(answer.headers.get(hyper::header::CONTENT_LENGTH).is_none());
    assert!(answer.body.unwrap() == plain);

    let answer = request(proxy, Method::GET, "/multistream.xz", Vec::new()).await;
    assert_eq!(answer.status, StatusCode::OK);
    assert!(answer.body.unwrap() == fixture_plain);

    // Not .xz: passed on as it is.
    let answer = request(proxy, Method::GET, "/notes.txt", Vec::new()).await;
    assert_eq!(answer.status, StatusCode::OK);
    assert!(answer.headers.get("x-decoded-from").is_none());
    assert_eq!(answer.headers[hyper::header::CONTENT_LENGTH], "300000");
    assert!(answer.body.unwrap() == plain);
}

#[tokio::test]
async fn the_proxy_passes_errors_on_and_refuses_bad_xz() {
    // Damaged at the very end (the footer's magic): found after every
    // decoded byte has been sent.
    let mut damaged = xz(&data(300_000, 7));
    let n = damaged.len();
    damaged[n - 1] ^= 0xFF;
    let upstream = upstream_server(vec![
        ("/files/damaged.xz", damaged),
        ("/files/text.xz", b"plain text, not xz".to_vec()),
    ])
    .await;
    let proxy = proxy_server(upstream).await;

    let answer = request(proxy, Method::GET, "/missing.xz", Vec::new()).await;
    assert_eq!(answer.status, StatusCode::NOT_FOUND);
    assert_eq!(answer.text(), "no such file\n");

    let answer = request(proxy, Method::POST, "/damaged.xz", Vec::new()).await;
    assert_eq!(answer.status, StatusCode::METHOD_NOT_ALLOWED);
    assert_eq!(answer.text(), "only GET is proxied\n");

    let answer = request(proxy, Method::GET, "/text.xz", Vec::new()).await;
    assert_eq!(answer.status, StatusCode::BAD_GATEWAY);
    assert_eq!(answer.text(), "upstream sent a bad .xz file: not an XZ file: the input does not start with the XZ magic bytes\n");

    // The head has gone out before the damage is met: the body fails.
    let answer = request(proxy, Method::GET, "/damaged.xz", Vec::new()).await;
    assert_eq!(answer.status, StatusCode::OK);
    assert!(
        answer.body.is_err(),
        "a damaged stream must not end cleanly"
    );
}

#[tokio::test]
async fn the_proxy_answers_502_when_the_upstream_is_down() {
    // A port that was free a moment ago: nothing listens there.
    let gone = TcpListener::bind("127.0.0.1:0")
        .await
        .unwrap()
        .local_addr()
        .unwrap();
    let proxy = proxy_server(gone).await;
    let answer = request(proxy, Method::GET, "/a.xz", Vec::new()).await;
    assert_eq!(answer.status, StatusCode::BAD_GATEWAY);
    assert!(answer.text().starts_with("upstream: "), "{}", answer.text());
}
