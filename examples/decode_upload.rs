//! A tokio service that accepts `.xz` uploads over TCP and decodes them
//! with limits, the way an upload endpoint should treat untrusted input.
//!
//! ```text
//! cargo run --example decode_upload                 # demo: uploads two bodies to itself
//! cargo run --example decode_upload -- FILE.xz      # upload FILE.xz instead
//! ```
//! Each connection sends one `.xz` body and half-closes; the server replies
//! with one line: `ok <bytes> <checksum>` or `error <kind>: <message>`.

use std::io;
use std::net::SocketAddr;

use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::net::{TcpListener, TcpStream};

/// Dictionaries above this are refused before anything is allocated.
const MEMORY_LIMIT: u64 = 64 << 20;
/// Decoded bodies above this are cut off (decompression-bomb guard).
const OUTPUT_LIMIT: u64 = 256 << 20;

/// Decodes one upload and says how it went.
async fn handle(stream: TcpStream) -> io::Result<()> {
    let (read_half, mut write_half) = stream.into_split();
    let mut decoder = lzflow::tokio::bufread::XzDecoder::builder()
        .memlimit(MEMORY_LIMIT)
        .output_limit(OUTPUT_LIMIT)
        .build(BufReader::new(read_half));
    // Stream the body through in batches; nothing is held beyond one buffer.
    let mut buf = vec![0u8; 64 << 10];
    // FNV-1a over the decoded bytes, so the client can compare.
    let (mut total, mut checksum) = (0u64, 0xcbf2_9ce4_8422_2325u64);
    let reply = loop {
        match decoder.read(&mut buf).await {
            Ok(0) => break format!("ok {total} {checksum:016x}\n"),
            Ok(n) => {
                total += n as u64;
                checksum = buf[..n].iter().fold(checksum, |h, &b| {
                    (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
                });
            }
            // The kind says who is to blame; the message says what to fix.
            Err(e) => break format!("error {:?}: {e}\n", e.kind()),
        }
    };
    write_half.write_all(reply.as_bytes()).await?;
    write_half.shutdown().await
}

/// Sends `body` as one upload and returns the server's reply.
async fn upload(addr: SocketAddr, body: &[u8]) -> io::Result<String> {
    let mut stream = TcpStream::connect(addr).await?;
    stream.write_all(body).await?;
    stream.shutdown().await?;
    let mut reply = String::new();
    BufReader::new(stream).read_line(&mut reply).await?;
    Ok(reply)
}

#[tokio::main]
async fn main() -> io::Result<()> {
    let listener = TcpListener::bind("127.0.0.1:0").await?;
    let addr = listener.local_addr()?;
    tokio::spawn(async move {
        loop {
            let Ok((stream, peer)) = listener.accept().await else {
                return;
            };
            tokio::spawn(async move {
                if let Err(e) = handle(stream).await {
                    eprintln!("{peer}: {e}");
                }
            });
        }
    });

    let bodies: Vec<(String, Vec<u8>)> = match std::env::args().nth(1) {
        Some(path) => vec![(path.clone(), tokio::fs::read(&path).await?)],
        None => {
            // A valid body made with lzflow's encoder, and the same body cut
            // short, which the server must reject as truncated.
            let text = "lzflow decodes uploads as they arrive.\n".repeat(10_000);
            let mut encoder = lzflow::tokio::write::XzEncoder::new(Vec::new());
            encoder.write_all(text.as_bytes()).await?;
            encoder.shutdown().await?;
            let xz = encoder.into_inner();
            let cut = xz[..xz.len() / 2].to_vec();
            vec![("good.xz".into(), xz), ("truncated.xz".into(), cut)]
        }
    };
    for (name, body) in bodies {
        print!(
            "{name} ({} bytes): {}",
            body.len(),
            upload(addr, &body).await?
        );
    }
    Ok(())
}
