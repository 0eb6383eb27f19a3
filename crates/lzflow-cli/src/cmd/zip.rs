//! The zip side of `lzflow l`, `t` and `x`: archives recognised by their
//! first record's signature, read through their central directory.

use std::fs::File;
use std::io::{self, Read};
use std::path::Path;

use lzflow::extract::ExtractOptions;
use lzflow::zip::{ZipArchive, ZipOptions};
use lzflow::Limits;

use super::extract::{format_filetime, unix_mode_string};

/// `PK\x03\x04` (a local file header) or `PK\x05\x06` (the end record of
/// an empty archive).
const SIGNATURES: [[u8; 4]; 2] = [*b"PK\x03\x04", *b"PK\x05\x06"];

/// True when `path` starts like a zip archive.
pub fn is_zip(path: &str) -> bool {
    if path == "-" {
        return false;
    }
    let mut head = [0u8; 4];
    File::open(path)
        .and_then(|mut f| f.read_exact(&mut head))
        .is_ok_and(|()| SIGNATURES.contains(&head))
}

fn open(path: &str, password: Option<&str>, memlimit: u64) -> io::Result<ZipArchive<File>> {
    let mut options = ZipOptions::new().with_limits(Limits::NONE.with_memory(memlimit));
    if let Some(pw) = password {
        options = options.with_password(pw);
    }
    Ok(ZipArchive::open_with(File::open(path)?, options)?)
}

/// Lists the entries: date, mode, size, packed size, method, `+` when
/// encrypted, name.
pub fn list(path: &str, password: Option<&str>, memlimit: u64) -> io::Result<()> {
    let archive = open(path, password, memlimit)?;
    outln!(
        "{:<19} {:<10} {:>12} {:>12} {:<10} {:<3} Name",
        "Modified (UTC)",
        "Mode",
        "Size",
        "Packed",
        "Method",
        "Enc"
    );
    let (mut files, mut dirs, mut total) = (0u64, 0u64, 0u64);
    for e in archive.directory().iter() {
        let method = match e.aes() {
            Some(aes) => aes.method,
            None => e.method(),
        };
        let name = method_name(method);
        outln!(
            "{:<19} {:<10} {:>12} {:>12} {:<10} {:<3} {}",
            e.mtime()
                .map(|t| format_filetime(lzflow::sevenz_writer::system_time_to_filetime(t)))
                .unwrap_or_default(),
            e.unix_mode()
                .map(|m| unix_mode_string(m, e.is_dir()))
                .unwrap_or_else(|| if e.is_dir() {
                    "D".into()
                } else {
                    String::new()
                }),
            e.uncompressed_size(),
            e.compressed_size(),
            name,
            if e.is_encrypted() { "+" } else { "" },
            e.name()
        );
        if e.is_dir() {
            dirs += 1;
        } else {
            files += 1;
        }
        total += e.uncompressed_size();
    }
    outln!("{files} files, {dirs} folders, {total} bytes");
    Ok(())
}

/// The method's name (the registry's), or its number when unknown.
fn method_name(method: u16) -> String {
    lzflow_methods::Method::from_zip_id(method)
        .map_or_else(|| method.to_string(), |m| m.name().to_string())
}

/// Decodes every entry, verifying its CRC-32 or authentication code;
/// gives the entry count and the bytes decoded.
pub fn test(path: &str, password: Option<&str>, memlimit: u64) -> io::Result<(usize, u64)> {
    let mut archive = open(path, password, memlimit)?;
    let mut total = 0;
    for i in 0..archive.len() {
        total += io::copy(&mut archive.reader(i)?, &mut io::sink())?;
    }
    Ok((archive.len(), total))
}

/// Extracts every entry below `dir` under `options`.
pub fn extract(
    path: &str,
    dir: &Path,
    options: &ExtractOptions,
    password: Option<&str>,
    memlimit: u64,
) -> io::Result<()> {
    open(path, password, memlimit)?.extract_to_with(dir, options)?;
    Ok(())
}
