//! Hostile zip archives extracted to disk (central directory and
//! forward-only) under every overwrite and path policy, with or without a
//! selection, into a target that holds a file and links pointing out of
//! it: nothing is ever written outside the target, no link is followed,
//! no setuid/setgid/sticky bit is applied, no temporary file is left;
//! and the extraction thread the async faces use leaves exactly what the
//! inline calls leave, with the same result.
#![no_main]

use std::fs;
use std::io::Cursor;
use std::path::Path;

use libfuzzer_sys::fuzz_target;
use lzflow_core::extract_thread::FsCalls;
use lzflow_core::source::Blocking;
use lzflow_fuzz::extract::{extract_and_check, options, park_on, Outcome};
use lzflow_zip::{
    ExtractOptions, Overwrite, PollZipArchive, PollZipStream, ZipArchive, ZipOptions,
    ZipStreamReader,
};

/// Entries from the input: (name, is a directory, Unix mode, data).
fn entries(mut data: &[u8]) -> Vec<(Vec<u8>, bool, u32, Vec<u8>)> {
    let mut out = Vec::new();
    while out.len() < 16 {
        let Some((&len, rest)) = data.split_first() else {
            break;
        };
        let len = usize::from(len % 48);
        if rest.len() < len + 4 {
            break;
        }
        let name = rest[..len].to_vec();
        let flags = rest[len];
        let mode = u32::from(u16::from_le_bytes([rest[len + 1], rest[len + 2]]));
        let n = usize::from(rest[len + 3] % 32).min(rest.len() - len - 4);
        let body = rest[len + 4..len + 4 + n].to_vec();
        data = &rest[len + 4 + n..];
        let dir = flags & 1 != 0;
        let kind = if dir { 0o040_000 } else { 0o100_000 };
        out.push((
            name,
            dir,
            kind | (mode & 0o7777),
            if dir { Vec::new() } else { body },
        ));
    }
    out
}

/// A Stored zip of `entries`, made by Unix, byte by byte (APPNOTE 4.3).
fn stored_zip(entries: &[(Vec<u8>, bool, u32, Vec<u8>)]) -> Vec<u8> {
    let mut out = Vec::new();
    let mut central = Vec::new();
    for (name, dir, mode, data) in entries {
        let mut name = name.clone();
        if *dir && name.last() != Some(&b'/') {
            name.push(b'/');
        }
        let offset = out.len() as u32;
        let crc = crc32fast::hash(data);
        let fixed = |sig: u32, out: &mut Vec<u8>| {
            out.extend_from_slice(&sig.to_le_bytes());
            if sig == 0x0201_4b50 {
                out.extend_from_slice(&(3u16 << 8 | 20).to_le_bytes());
            }
            out.extend_from_slice(&20u16.to_le_bytes());
            out.extend_from_slice(&0u16.to_le_bytes());
            out.extend_from_slice(&0u16.to_le_bytes());
            out.extend_from_slice(&0x0021_0000u32.to_le_bytes());
            out.extend_from_slice(&crc.to_le_bytes());
            out.extend_from_slice(&(data.len() as u32).to_le_bytes());
            out.extend_from_slice(&(data.len() as u32).to_le_bytes());
            out.extend_from_slice(&(name.len() as u16).to_le_bytes());
            out.extend_from_slice(&0u16.to_le_bytes());
        };
        fixed(0x0403_4b50, &mut out);
        out.extend_from_slice(&name);
        out.extend_from_slice(data);
        fixed(0x0201_4b50, &mut central);
        central.extend_from_slice(&[0; 6]);
        central.extend_from_slice(&(mode << 16).to_le_bytes());
        central.extend_from_slice(&offset.to_le_bytes());
        central.extend_from_slice(&name);
    }
    let cd_offset = out.len() as u32;
    out.extend_from_slice(&central);
    out.extend_from_slice(&0x0605_4b50u32.to_le_bytes());
    out.extend_from_slice(&[0; 4]);
    let n = entries.len() as u16;
    out.extend_from_slice(&n.to_le_bytes());
    out.extend_from_slice(&n.to_le_bytes());
    out.extend_from_slice(&(central.len() as u32).to_le_bytes());
    out.extend_from_slice(&cd_offset.to_le_bytes());
    out.extend_from_slice(&0u16.to_le_bytes());
    out
}

/// Extracts `zip` below `base/t` (forward-only or not, the file-system
/// calls made as `calls` says) and says what was left.
fn extract(
    base: &Path,
    zip: &[u8],
    options: &ExtractOptions,
    forward: bool,
    calls: FsCalls,
) -> Outcome {
    let overwrites = options.overwrite == Overwrite::Always;
    extract_and_check(base, overwrites, |target| match (forward, calls) {
        (true, FsCalls::Inline) => ZipStreamReader::new(zip).extract_to_with(target, options),
        (false, FsCalls::Inline) => match ZipArchive::open(Cursor::new(zip)) {
            Ok(mut a) => a.extract_to_with(target, options),
            Err(_) => Ok(()),
        },
        (true, FsCalls::Thread) => park_on(
            PollZipStream::new(Blocking(zip), ZipOptions::new()).extract_to_with(
                target,
                options,
                FsCalls::Thread,
            ),
        ),
        (false, FsCalls::Thread) => {
            match park_on(PollZipArchive::open(
                Blocking(Cursor::new(zip)),
                ZipOptions::new(),
            )) {
                Ok(mut a) => park_on(a.extract_to_with(target, options, FsCalls::Thread)),
                Err(_) => Ok(()),
            }
        }
    })
}

fuzz_target!(|data: &[u8]| {
    let Some((&opts, rest)) = data.split_first() else {
        return;
    };
    let zip = stored_zip(&entries(rest));
    let options = options(opts);
    let base = std::env::temp_dir().join(format!("lzflow-fuzz-extract-{}", std::process::id()));
    for forward in [false, true] {
        // Through the extraction thread (the async faces' way) exactly as
        // inline: the same result, the same files.
        let inline = extract(&base, &zip, &options, forward, FsCalls::Inline);
        let thread = extract(&base, &zip, &options, forward, FsCalls::Thread);
        assert_eq!(inline, thread, "forward: {forward}");
    }
    let _ = fs::remove_dir_all(&base);
});
