//! Writes the files of a directory (not its subdirectories) into a 7z
//! archive from a tokio task, compressing several solid blocks at once.
//!
//! ```text
//! cargo run --release --example archive_7z -- OUT.7z DIR [--threads N] [--password PW]
//! ```
//!
//! Each file is its own solid block, so with N threads N files are
//! compressed in parallel; the archive is byte for byte the one a single
//! thread writes. The writer never blocks the runtime: with threads its
//! core runs on a thread of its own and the task only awaits.

use std::process::ExitCode;

use lzflow::sevenz_writer::{AsyncWriter, EntryMeta, SevenZError, Solid, WriterOptions};

fn usage() -> ExitCode {
    eprintln!("usage: archive_7z OUT.7z DIR [--threads N] [--password PW]");
    ExitCode::from(2)
}

#[tokio::main]
async fn main() -> ExitCode {
    let mut args = std::env::args().skip(1);
    let (mut out, mut dir, mut threads, mut password) = (None, None, 0, None);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--threads" => match args.next().and_then(|n| n.parse().ok()) {
                Some(n) => threads = n,
                None => return usage(),
            },
            "--password" => password = args.next(),
            _ if out.is_none() => out = Some(a),
            _ if dir.is_none() => dir = Some(a),
            _ => return usage(),
        }
    }
    let (Some(out), Some(dir)) = (out, dir) else {
        return usage();
    };
    // 0 threads: one per CPU.
    let mut opts = WriterOptions::default()
        .with_solid(Solid::Files(1))
        .with_threads(threads);
    if let Some(p) = password {
        opts = opts.with_password(p).with_encrypt_header(true);
    }
    match archive(&out, &dir, opts).await {
        Ok(n) => {
            println!("{out}: {n} files");
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("archive_7z: {e}");
            // Whatever was written is not a valid archive: remove it.
            let _ = std::fs::remove_file(&out);
            ExitCode::FAILURE
        }
    }
}

async fn archive(out: &str, dir: &str, opts: WriterOptions) -> Result<usize, SevenZError> {
    let mut names = Vec::new();
    let mut entries = tokio::fs::read_dir(dir).await?;
    while let Some(e) = entries.next_entry().await? {
        if e.file_type().await?.is_file() {
            names.push(e.file_name().to_string_lossy().into_owned());
        }
    }
    names.sort();
    let sink = tokio::fs::File::create(out).await?;
    let mut w = AsyncWriter::with_options(sink, opts).await?;
    for name in &names {
        let file = tokio::fs::File::open(std::path::Path::new(dir).join(name)).await?;
        w.add_file(name, file, EntryMeta::default()).await?;
    }
    w.finish().await?;
    Ok(names.len())
}
