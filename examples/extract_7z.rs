//! Lists or extracts a 7z archive, encrypted or not.
//!
//! ```text
//! cargo run --example extract_7z -- ARCHIVE.7z OUT_DIR [--password PW]
//! cargo run --example extract_7z -- ARCHIVE.7z --list [--password PW]
//! cargo run --example extract_7z -- ARCHIVE.7z --async-list [--password PW]
//! ```
//!
//! Extraction refuses entries that would land outside OUT_DIR, verifies
//! every CRC and restores modification times and unix modes. A missing or
//! wrong password is reported as such, not as corrupt data.

use std::process::ExitCode;

use lzflow::sevenz::{Archive, ArchiveOptions, SevenZError};

fn usage() -> ExitCode {
    eprintln!("usage: extract_7z ARCHIVE.7z (OUT_DIR | --list | --async-list) [--password PW]");
    ExitCode::from(2)
}

fn main() -> ExitCode {
    let mut args = std::env::args().skip(1);
    let (mut archive, mut target, mut password) = (None, None, None);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--password" => password = args.next(),
            _ if archive.is_none() => archive = Some(a),
            _ if target.is_none() => target = Some(a),
            _ => return usage(),
        }
    }
    let (Some(archive), Some(target)) = (archive, target) else {
        return usage();
    };
    let mut options = ArchiveOptions::default();
    if let Some(p) = password {
        options = options.with_password(p);
    }
    let result = match target.as_str() {
        "--list" => list(&archive, options),
        "--async-list" => async_list(&archive, options),
        dir => extract(&archive, dir, options),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(SevenZError::PasswordRequired) => {
            eprintln!("{archive}: encrypted; pass --password");
            ExitCode::from(3)
        }
        Err(e) => {
            eprintln!("{archive}: {e}");
            ExitCode::FAILURE
        }
    }
}

fn list(path: &str, options: ArchiveOptions) -> Result<(), SevenZError> {
    let archive = Archive::open_with(std::fs::File::open(path)?, options)?;
    for e in archive.entries() {
        let kind = if e.is_dir { "dir " } else { "file" };
        let mode = e.unix_mode().map_or(String::new(), |m| format!("{m:o}"));
        println!("{kind} {:>12} {mode:>7} {}", e.size, e.name);
    }
    Ok(())
}

fn extract(path: &str, dir: &str, options: ArchiveOptions) -> Result<(), SevenZError> {
    let mut archive = Archive::open_with(std::fs::File::open(path)?, options)?;
    archive.extract_to(dir)?;
    println!("extracted {} entries to {dir}", archive.entries().len());
    Ok(())
}

/// Streams every entry through the tokio face, one decoder pass per folder.
#[cfg(feature = "tokio")]
fn async_list(path: &str, options: ArchiveOptions) -> Result<(), SevenZError> {
    use lzflow::sevenz::AsyncArchive;
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    rt.block_on(async {
        let file = tokio::fs::File::open(path).await?;
        let mut archive = AsyncArchive::open_with(file, options).await?;
        let mut entries = archive.entries_stream();
        while let Some(entry) = entries.next_entry().await? {
            let n = tokio::io::copy(&mut entries, &mut tokio::io::sink()).await?;
            println!("{n:>12} {}", entry.name);
        }
        Ok(())
    })
}

#[cfg(not(feature = "tokio"))]
fn async_list(_: &str, _: ArchiveOptions) -> Result<(), SevenZError> {
    eprintln!("built without the `tokio` feature");
    Ok(())
}
