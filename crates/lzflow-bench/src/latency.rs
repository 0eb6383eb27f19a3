//! `compare latency`: time to first byte when the compressed input
//! trickles in at 64 KiB/s (4 KiB every 62.5 ms, as from a slow upload
//! through a proxy). lzflow waits for a whole LZMA2 chunk (up to 64 KiB)
//! by default; with `low_latency()` it decodes what has arrived.
//! async-compression (liblzma, decoding as bytes come) is the reference.

use std::io;
use std::time::{Duration, Instant};

use tokio::io::{AsyncRead, AsyncReadExt, AsyncWriteExt, BufReader};

use crate::workloads::{text_files, xz_one_block};

const PIECE: usize = 4096;
const PERIOD: Duration = Duration::from_micros(62_500);

/// Feeds `data` into a pipe at 64 KiB/s; returns the reading end.
fn trickle(data: Vec<u8>) -> impl AsyncRead + Unpin {
    let (mut tx, rx) = tokio::io::duplex(1 << 20);
    tokio::spawn(async move {
        let mut next = tokio::time::Instant::now();
        for piece in data.chunks(PIECE) {
            tokio::time::sleep_until(next).await;
            if tx.write_all(piece).await.is_err() {
                return;
            }
            next += PERIOD;
        }
    });
    rx
}

/// Time to the first decoded byte and to the end, reading `decoder`.
async fn timed(
    mut decoder: impl AsyncRead + Unpin,
    start: Instant,
) -> io::Result<(Duration, Duration, usize)> {
    let mut buf = vec![0u8; 64 << 10];
    let mut first = None;
    let mut total = 0;
    loop {
        let n = decoder.read(&mut buf).await?;
        if n == 0 {
            break;
        }
        first.get_or_insert_with(|| start.elapsed());
        total += n;
    }
    Ok((first.unwrap_or_default(), start.elapsed(), total))
}

/// Runs the comparison and prints its table.
pub fn compare_latency(rounds: usize) -> io::Result<()> {
    // Text, so that LZMA2 chunks are compressed ones of up to 64 KiB (a
    // random start would go out as stored chunks, which any decoder
    // passes on at once).
    let mut data: Vec<u8> = text_files(1 << 20)
        .into_iter()
        .flat_map(|(_, b)| b)
        .collect();
    data.truncate(1 << 20);
    let xz = xz_one_block(&data, 6, None, false);
    println!(
        "{} KiB of .xz ({} KiB of data) trickled in at 64 KiB/s; medians of {rounds} rounds",
        xz.len() >> 10,
        data.len() >> 10
    );
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    let mut rows: Vec<(&str, Vec<Duration>, Vec<Duration>)> = vec![
        ("lzflow tokio XzDecoder", Vec::new(), Vec::new()),
        ("lzflow tokio XzDecoder low_latency", Vec::new(), Vec::new()),
        ("async-compression XzDecoder", Vec::new(), Vec::new()),
    ];
    for _ in 0..rounds {
        for (i, row) in rows.iter_mut().enumerate() {
            let xz = xz.clone();
            let (first, all, n) = rt.block_on(async move {
                let src = BufReader::new(trickle(xz));
                let start = Instant::now();
                match i {
                    0 => timed(lzflow::tokio::bufread::XzDecoder::new(src), start).await,
                    1 => {
                        let d = lzflow::tokio::bufread::XzDecoder::builder()
                            .low_latency()
                            .build(src);
                        timed(d, start).await
                    }
                    _ => {
                        let d = async_compression::tokio::bufread::XzDecoder::new(src);
                        timed(d, start).await
                    }
                }
            })?;
            assert_eq!(n, data.len(), "{}", row.0);
            row.1.push(first);
            row.2.push(all);
        }
    }
    let median = |v: &mut Vec<Duration>| {
        v.sort();
        v[v.len() / 2]
    };
    println!(
        "{:<38} {:>14} {:>12}",
        "contestant", "first byte", "all bytes"
    );
    for (name, mut first, mut all) in rows {
        println!(
            "{name:<38} {:>11.1} ms {:>9.1} ms",
            median(&mut first).as_secs_f64() * 1e3,
            median(&mut all).as_secs_f64() * 1e3
        );
    }
    Ok(())
}
