//! A decompressing copy from an async reader to an async writer.
//!
//! ```text
//! cargo run --example proxy -- IN.xz OUT        # decode IN.xz into OUT
//! cargo run --example proxy -- IN.xz            # decode to stdout
//! cargo run --example proxy                     # decode a bundled fixture, print a summary
//! ```
//! The reader side (`tokio::bufread::XzDecoder`) pulls compressed bytes as
//! `tokio::io::copy` asks for decoded ones; memory stays at a couple of
//! buffers whatever the file size. The same copy works the other way round
//! with the write-side decoder, shown when no output is given.

use std::io;

use lzflow::tokio::fs::ReadAheadFile;
use tokio::io::AsyncWriteExt;

#[tokio::main]
async fn main() -> io::Result<()> {
    let mut args = std::env::args().skip(1);
    let input = args.next().unwrap_or_else(|| {
        concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/fixtures/generated/xz/multistream.xz"
        )
        .to_string()
    });
    let output = args.next();

    // Read side: a decoder that is an AsyncRead, over a file read ahead on
    // tokio's blocking pool (one trip there per 256 KiB, not per 8 KiB).
    let file = ReadAheadFile::open(&input).await?;
    let mut decoder = lzflow::tokio::bufread::XzDecoder::builder()
        .memlimit(256 << 20)
        .build(file);
    let copied = match &output {
        Some(path) => {
            let mut out = tokio::fs::File::create(path).await?;
            let n = tokio::io::copy(&mut decoder, &mut out).await?;
            out.flush().await?;
            n
        }
        None => tokio::io::copy(&mut decoder, &mut tokio::io::sink()).await?,
    };

    if output.is_none() {
        // Write side: a decoder that is an AsyncWrite; the compressed file is
        // copied into it and it writes decoded bytes to stdout.
        let mut file = tokio::fs::File::open(&input).await?;
        let mut stdout_decoder = lzflow::tokio::write::XzDecoder::new(tokio::io::stdout());
        let compressed = tokio::io::copy(&mut file, &mut stdout_decoder).await?;
        stdout_decoder.shutdown().await?;
        eprintln!("{input}: {compressed} compressed bytes -> {copied} decoded bytes");
    }
    Ok(())
}
