//! The zip side of `lzflow l`, `t`, `x` and `a`: archives recognised by their
//! first record's signature. Files are read through their central
//! directory; standard input (`-`) forward-only, entry by entry.

use std::fs::File;
use std::io::{self, Cursor, Read};
use std::path::Path;
use std::time::SystemTime;

use lzflow::zip::{CentralDirectoryReader, ZipArchive, ZipOptions, ZipStreamReader};

use super::extract::{dos_letters, format_filetime, unix_mode_string};
use crate::output::Input;
use crate::select::Selection;

/// `PK\x03\x04` (a local file header) or `PK\x05\x06` (the end record of
/// an empty archive).
const SIGNATURES: [[u8; 4]; 2] = [*b"PK\x03\x04", *b"PK\x05\x06"];

/// True when `path` is a zip archive: it starts like one, or it ends with
/// a consistent end of central directory (a self-extracting archive, whose
/// stub comes first). Standard input is sniffed by [`sniff`] instead.
pub fn is_zip(path: &str) -> bool {
    if path == "-" {
        return false;
    }
    let Ok(mut file) = File::open(path) else {
        return false;
    };
    let mut head = [0u8; 4];
    if file.read_exact(&mut head).is_ok() && SIGNATURES.contains(&head) {
        return true;
    }
    has_directory(&mut file).unwrap_or(false)
}

/// Whether the zip directory locator finds an end record in `file`.
fn has_directory(file: &mut File) -> io::Result<bool> {
    use std::io::{Seek, SeekFrom};
    let len = file.seek(SeekFrom::End(0))?;
    let mut locator = lzflow::zip::DirectoryLocator::new(len);
    while let Some((at, n)) = locator.request() {
        let mut bytes = vec![0u8; n];
        file.seek(SeekFrom::Start(at))?;
        file.read_exact(&mut bytes)?;
        if locator.feed(&bytes).is_err() {
            return Ok(false);
        }
    }
    Ok(locator.finish().is_ok())
}

/// Reads the first bytes of `input` and puts them back in front of the
/// rest: whether they start a zip archive, and the input, whole.
pub fn sniff(mut input: Input) -> io::Result<(bool, Input)> {
    let mut head = Vec::with_capacity(4);
    (&mut input.reader).take(4).read_to_end(&mut head)?;
    let zip = SIGNATURES.iter().any(|s| head == s);
    input.reader = Box::new(Cursor::new(head).chain(input.reader));
    Ok((zip, input))
}

/// The archive in `path`, or, for `-`, standard input read forward-only.
enum Source {
    File(ZipArchive<File>),
    Stream(Box<ZipStreamReader<Box<dyn Read>>>),
}

/// Standard input, read forward-only.
fn stdin_stream(options: ZipOptions) -> io::Result<Box<ZipStreamReader<Box<dyn Read>>>> {
    let input = Input::open_compressed("-")?;
    Ok(Box::new(ZipStreamReader::with_options(
        input.reader,
        options,
    )))
}

/// Whether the zip file at `path` has an encrypted entry (false when it
/// cannot be opened: reading it says why).
pub fn has_encrypted_entries(path: &str) -> bool {
    matches!(
        open(path, ZipOptions::new()),
        Ok(Source::File(a)) if a.directory().iter().any(|e| e.is_encrypted())
    )
}

fn open(path: &str, options: ZipOptions) -> io::Result<Source> {
    if path == "-" {
        return Ok(Source::Stream(stdin_stream(options)?));
    }
    Ok(Source::File(ZipArchive::open_with(
        File::open(path)?,
        options,
    )?))
}

/// What `list` reads: a file's central directory, streamed, or standard
/// input forward-only.
enum Listing {
    File(CentralDirectoryReader<File>),
    Stream(Box<ZipStreamReader<Box<dyn Read>>>),
}

fn open_listing(path: &str, options: ZipOptions) -> io::Result<Listing> {
    if path == "-" {
        return Ok(Listing::Stream(stdin_stream(options)?));
    }
    let file = File::open(path)?;
    Ok(Listing::File(CentralDirectoryReader::open_with(
        file, &options,
    )?))
}

/// One listing row.
struct Row<'a> {
    mtime: Option<SystemTime>,
    mode: String,
    size: u64,
    packed: Option<u64>,
    method: u16,
    encrypted: bool,
    name: &'a str,
}

fn header() {
    outln!(
        "{:<19} {:<10} {:>12} {:>12} {:<10} {:<3} Name",
        "Modified (UTC)",
        "Mode",
        "Size",
        "Packed",
        "Method",
        "Enc"
    );
}

fn row(r: &Row<'_>) {
    outln!(
        "{:<19} {:<10} {:>12} {:>12} {:<10} {:<3} {}",
        listing_time(r.mtime),
        r.mode,
        r.size,
        r.packed.map_or_else(|| "-".to_string(), |p| p.to_string()),
        method_name(r.method),
        if r.encrypted { "+" } else { "" },
        r.name
    );
}

/// Lists the entries `selection` selects: date, mode, size, packed size,
/// method, `+` when encrypted, name. From standard input, the local
/// headers say no mode, and an entry's size is counted by reading it.
/// Gives the number of entries listed.
pub fn list(path: &str, options: ZipOptions, selection: &Selection) -> io::Result<usize> {
    header();
    let (mut files, mut dirs, mut total) = (0u64, 0u64, 0u64);
    let mut count = |is_dir: bool, size: u64| {
        if is_dir {
            dirs += 1;
        } else {
            files += 1;
        }
        total += size;
    };
    match open_listing(path, options)? {
        Listing::File(mut directory) => {
            // Streamed: one window of the directory in memory, whatever
            // the number of entries.
            while let Some(e) = directory.next_entry()? {
                if !selection.selects(&e.name()) {
                    continue;
                }
                let is_dir = e.is_dir();
                let mode = e
                    .unix_mode()
                    .map(|m| unix_mode_string(m, is_dir))
                    .unwrap_or_else(|| if is_dir { "D".into() } else { String::new() });
                row(&Row {
                    mtime: e.mtime(),
                    mode,
                    size: e.uncompressed_size(),
                    packed: Some(e.compressed_size()),
                    method: e.aes().map_or(e.method(), |aes| aes.method),
                    encrypted: e.is_encrypted(),
                    name: &e.name(),
                });
                count(is_dir, e.uncompressed_size());
            }
        }
        Listing::Stream(mut z) => {
            while let Some(mut e) = z.next_entry()? {
                if !selection.selects(&e.name()) {
                    continue;
                }
                let size = io::copy(&mut e, &mut io::sink())?;
                let local = e.local();
                row(&Row {
                    mtime: local.mtime(),
                    mode: if local.is_dir() {
                        "D".into()
                    } else {
                        String::new()
                    },
                    size,
                    packed: (!local.header().has_data_descriptor())
                        .then_some(local.header().compressed_size),
                    method: local.method(),
                    encrypted: local.is_encrypted(),
                    name: &local.name(),
                });
                count(local.is_dir(), size);
            }
        }
    }
    outln!("{files} files, {dirs} folders, {total} bytes");
    Ok((files + dirs) as usize)
}

/// 7-Zip's technical listing (`7zz l -slt`) of the entries `selection`
/// selects: the archive's properties, then a `Key = Value` block per
/// entry with 7-Zip's keys (times in UTC). Read forward-only (`-`), an
/// entry's sizes and CRC are those its local header and data give.
pub fn list_technical(path: &str, options: ZipOptions, selection: &Selection) -> io::Result<usize> {
    outln!("--");
    outln!("Path = {path}");
    outln!("Type = zip");
    if let Some(m) = std::fs::metadata(path).ok().filter(|_| path != "-") {
        outln!("Physical Size = {}", m.len());
    }
    outln!();
    outln!("----------");
    let mut listed = 0;
    let mut block = |b: &Block<'_>| {
        // A directory's name without its trailing slash, as 7-Zip shows it.
        outln!("Path = {}", b.name.strip_suffix('/').unwrap_or(b.name));
        outln!("Folder = {}", if b.is_dir { "+" } else { "-" });
        outln!("Size = {}", b.size);
        outln!("Packed Size = {}", b.packed);
        outln!("Modified = {}", b.modified);
        outln!("Attributes = {}", b.attributes);
        outln!("Encrypted = {}", if b.encrypted { "+" } else { "-" });
        outln!("Comment = {}", b.comment);
        outln!(
            "CRC = {}",
            b.crc.map(|c| format!("{c:08X}")).unwrap_or_default()
        );
        outln!("Method = {}", b.method);
        outln!("Host OS = {}", b.host);
        outln!("Offset = {}", b.offset);
        outln!();
        listed += 1;
    };
    match open_listing(path, options)? {
        Listing::File(mut directory) => {
            while let Some(e) = directory.next_entry()? {
                let name = e.name();
                if !selection.selects(&name) {
                    continue;
                }
                let (is_dir, aes) = (e.is_dir(), e.aes());
                block(&Block {
                    name: &name,
                    is_dir,
                    size: e.uncompressed_size(),
                    packed: e.compressed_size().to_string(),
                    modified: listing_time(e.mtime()),
                    attributes: zip_attributes(e.external_attributes(), e.unix_mode(), is_dir),
                    encrypted: e.is_encrypted(),
                    comment: &e.comment(),
                    // A directory has no data to check, an AE-2 entry no
                    // CRC (its MAC authenticates the data).
                    crc: (!is_dir && !is_ae2(aes)).then(|| e.crc32()),
                    method: sevenzip_method(e.method(), e.flags(), aes),
                    host: host_os(e.version_made_by() >> 8),
                    offset: e.local_header_offset(),
                });
            }
        }
        Listing::Stream(mut z) => {
            while let Some(mut e) = z.next_entry()? {
                let name = e.name().into_owned();
                if !selection.selects(&name) {
                    continue;
                }
                let size = io::copy(&mut e, &mut io::sink())?;
                let local = e.local();
                let (is_dir, aes) = (local.is_dir(), local.aes());
                let header = local.header();
                block(&Block {
                    name: &name,
                    is_dir,
                    size,
                    // Unknown until the descriptor after the data.
                    packed: if header.has_data_descriptor() {
                        String::new()
                    } else {
                        header.compressed_size.to_string()
                    },
                    modified: listing_time(local.mtime()),
                    attributes: if is_dir { "D".into() } else { String::new() },
                    encrypted: local.is_encrypted(),
                    comment: "",
                    // In the local header unless a descriptor follows.
                    crc: (!is_dir && !header.has_data_descriptor() && !is_ae2(aes))
                        .then_some(header.crc32),
                    method: sevenzip_method(header.method, header.flags, aes),
                    host: String::new(),
                    offset: local.offset(),
                });
            }
        }
    }
    Ok(listed)
}

/// A modification time as the listings show it (UTC, to the second);
/// empty when there is none.
fn listing_time(t: Option<SystemTime>) -> String {
    t.map(|t| format_filetime(lzflow::sevenz_writer::system_time_to_filetime(t)))
        .unwrap_or_default()
}

/// One entry of the technical listing.
struct Block<'a> {
    name: &'a str,
    is_dir: bool,
    size: u64,
    packed: String,
    modified: String,
    attributes: String,
    encrypted: bool,
    comment: &'a str,
    crc: Option<u32>,
    /// As 7-Zip shows it ([`sevenzip_method`]).
    method: String,
    host: String,
    offset: u64,
}

/// 7-Zip's attribute string of a zip entry: the MS-DOS flags (`R`ead-only,
/// `H`idden, `S`ystem, `D`irectory, `A`rchive, in the order of their
/// bits), then, after a space, the Unix mode when the entry has one.
fn zip_attributes(external: u32, unix_mode: Option<u32>, is_dir: bool) -> String {
    let mut s = dos_letters(external, is_dir);
    if let Some(mode) = unix_mode {
        s.push(' ');
        s.push_str(&unix_mode_string(mode, is_dir));
    }
    s
}

/// The name of the system an entry was made on (APPNOTE 4.4.2.2).
fn host_os(id: u16) -> String {
    match id {
        0 => "FAT".into(),
        3 => "Unix".into(),
        7 => "Macintosh".into(),
        10 => "NTFS".into(),
        11 => "MVS".into(),
        19 => "OS X".into(),
        n => n.to_string(),
    }
}

/// Whether WinZip AES `aes` is AE-2, whose entries store no CRC-32.
fn is_ae2(aes: Option<lzflow::zip::AesExtra>) -> bool {
    aes.is_some_and(|a| a.version == lzflow::zip::AesVendorVersion::Ae2)
}

/// An entry's method as 7-Zip's technical listing writes it: the
/// encryption first (`AES-256 `, `ZipCrypto `), then the method's name in
/// 7-Zip's zip table (its number when it has none), then what the general
/// purpose flags' bits 1 and 2 say: for Deflate the compression option
/// (`:Maximum`, `:Fast`, `:Fastest`), for LZMA the end marker (`:eos`),
/// for any other value `:vN`.
fn sevenzip_method(stored: u16, flags: u16, aes: Option<lzflow::zip::AesExtra>) -> String {
    // APPNOTE 4.4.5's methods under 7-Zip's names.
    const NAMES: [(u16, &str); 15] = [
        (0, "Store"),
        (1, "Shrink"),
        (2, "Reduce1"),
        (3, "Reduce2"),
        (4, "Reduce3"),
        (5, "Reduce4"),
        (6, "Implode"),
        (8, "Deflate"),
        (9, "Deflate64"),
        (10, "PKImploding"),
        (12, "BZip2"),
        (14, "LZMA"),
        (95, "xz"),
        (98, "PPMd"),
        (99, "WzAES"),
    ];
    let mut text = String::new();
    let mut method = stored;
    if flags & 1 != 0 {
        match aes {
            Some(aes) if stored == 99 => {
                text += &format!("AES-{} ", (u32::from(aes.strength) + 1) * 64);
                method = aes.method;
            }
            _ if stored == 99 => text += "AES ",
            _ => text += "ZipCrypto ",
        }
    }
    match NAMES.iter().find(|(id, _)| *id == method) {
        Some((_, name)) => text += name,
        None => text += &method.to_string(),
    }
    let mut option = (flags >> 1) & 3;
    if method == 14 && option & 1 != 0 {
        text += ":eos";
        option &= !1;
    }
    if method == 8 && option != 0 {
        text += [":Maximum", ":Fast", ":Fastest"][usize::from(option) - 1];
    } else if option != 0 {
        text += &format!(":v{option}");
    }
    text
}

/// The method's name (the registry's), or its number when unknown.
fn method_name(method: u16) -> String {
    lzflow_methods::Method::from_zip_id(method)
        .map_or_else(|| method.to_string(), |m| m.name().to_string())
}

/// Decodes the entries `selection` selects, verifying their CRC-32,
/// authentication code and data descriptor; gives their count and the
/// bytes decoded.
pub fn test(path: &str, options: ZipOptions, selection: &Selection) -> io::Result<(usize, u64)> {
    match open(path, options)? {
        Source::File(mut archive) => {
            let (mut n, mut total) = (0, 0);
            for i in 0..archive.len() {
                let selected = archive
                    .directory()
                    .get(i)
                    .is_some_and(|e| selection.selects(&e.name()));
                if selected {
                    total += io::copy(&mut archive.reader(i)?, &mut io::sink())?;
                    n += 1;
                }
            }
            Ok((n, total))
        }
        Source::Stream(z) => test_stream(*z, selection),
    }
}

/// [`test()`] of an archive read forward-only.
pub fn test_stream<R: Read>(
    mut z: ZipStreamReader<R>,
    selection: &Selection,
) -> io::Result<(usize, u64)> {
    let (mut n, mut total) = (0, 0);
    while let Some(mut e) = z.next_entry()? {
        if selection.selects(&e.name()) {
            total += io::copy(&mut e, &mut io::sink())?;
            n += 1;
        }
    }
    Ok((n, total))
}

/// Whether `lzflow a` makes a zip archive: `-t zip`, or a `.zip` name.
pub fn is_zip_kind(args: &super::add::Args) -> Result<bool, String> {
    match args.kind.as_deref() {
        Some("zip") => Ok(true),
        Some("7z") => Ok(false),
        Some(other) => Err(format!("-t {other}: unknown archive type (known: 7z, zip)")),
        None => Ok(Path::new(&args.archive)
            .extension()
            .is_some_and(|e| e.eq_ignore_ascii_case("zip"))),
    }
}

/// What `lzflow a` writes into a zip archive.
#[derive(Debug, Clone)]
pub struct AddOptions {
    entry: lzflow::zip::EntryOptions,
    writer: lzflow::zip::ZipWriterOptions,
}

/// The zip options the switches ask for: `-mx` (level), `-mm` (method),
/// `-mmt` (threads), `-p` (AES-256).
pub fn add_options(args: &super::add::Args) -> Result<AddOptions, String> {
    use lzflow::zip::{EntryOptions, WriteMethod};
    let mut method = WriteMethod::Deflate;
    let mut level = args.level.unwrap_or(5);
    let mut writer = lzflow::zip::ZipWriterOptions::new();
    for switch in &args.method {
        let (key, value) = match switch.split_once('=') {
            Some((k, v)) => (k, v),
            None if switch.starts_with('x') => ("x", &switch[1..]),
            None => (switch.as_str(), ""),
        };
        match key {
            "x" => {
                level = value
                    .parse::<u32>()
                    .ok()
                    .filter(|l| *l <= 9)
                    .ok_or_else(|| format!("-m{switch}: the level must be 0-9"))?;
            }
            "m" => {
                method = match value.to_ascii_lowercase().as_str() {
                    "deflate" => WriteMethod::Deflate,
                    "bzip2" => WriteMethod::BZip2,
                    "lzma" => WriteMethod::Lzma,
                    "xz" => WriteMethod::Xz,
                    "ppmd" => WriteMethod::Ppmd,
                    "copy" | "store" => WriteMethod::Stored,
                    _ => {
                        return Err(format!(
                    "-m{switch}: unknown zip method (known: Deflate, BZip2, LZMA, XZ, PPMd, Copy)"
                ))
                    }
                }
            }
            "mt" => writer = writer.with_threads(super::add::threads(switch, value)?),
            _ => {
                return Err(format!(
                    "-m{switch}: unknown switch for zip (known: x, m, mt)"
                ))
            }
        }
    }
    if args.encrypt_headers {
        return Err("zip archives cannot encrypt their headers".into());
    }
    if level == 0 {
        method = WriteMethod::Stored;
    }
    // As Info-ZIP and 7-Zip do: what does not shrink is stored (Deflate
    // at -mx1 would make a photo 6 % larger).
    let mut entry = EntryOptions::default()
        .with_method(method, level)
        .with_store_if_larger(true);
    if let Some(p) = &args.password {
        entry = entry.with_password(p);
    }
    Ok(AddOptions { entry, writer })
}

/// Writes every input into the zip archive `file`; on error, the name to
/// blame and the error.
pub fn write_archive(
    file: File,
    args: &super::add::Args,
    opts: AddOptions,
) -> Result<(usize, u64), (String, io::Error)> {
    let meta = file.metadata().map_err(|e| (args.archive.clone(), e))?;
    let mut w = lzflow::zip::ZipWriter::new_with(io::BufWriter::new(file), opts.writer.clone())
        .map_err(|e| (args.archive.clone(), e.into()))?;
    // The archive is not added to itself, as zip leaves it out.
    w.skip_in_add_path(&meta);
    let (entries, size, file) = write_entries(w, args, &opts)?;
    super::add::sync_archive(file).map_err(|e| (args.archive.clone(), e))?;
    Ok((entries, size))
}

/// `a -so`: writes a streaming zip archive to standard output (entries
/// whose sizes are only known at their end get data descriptors).
pub fn write_stdout(
    args: &super::add::Args,
    opts: AddOptions,
) -> Result<(usize, u64), (String, io::Error)> {
    let sink = crate::output::Sink::stdout();
    let w = lzflow::zip::ZipWriter::new_streaming_with(sink, opts.writer.clone())
        .map_err(|e| ("(stdout)".to_string(), e.into()))?;
    let (entries, size, sink) = write_entries(w, args, &opts)?;
    sink.commit(None).map_err(|e| ("(stdout)".to_string(), e))?;
    Ok((entries, size))
}

/// Adds every input (and standard input, with `-si`) to `w` and finishes
/// the archive; gives the entry count, the bytes added and the sink.
fn write_entries<W: io::Write>(
    mut w: lzflow::zip::ZipWriter<W>,
    args: &super::add::Args,
    opts: &AddOptions,
) -> Result<(usize, u64, W), (String, io::Error)> {
    let archive = || args.archive.clone();
    let mut size: u64 = args
        .files
        .iter()
        .map(|f| super::add::disk_size(Path::new(f)))
        .sum();
    let bar = crate::progress::bar(size, "adding", args.quiet);
    if let Some(bar) = bar.clone() {
        w.on_progress(Box::new(move |n| bar.inc(n)));
    }
    for input in &args.files {
        let p = Path::new(input);
        let name = super::add::archive_name(p).ok_or_else(|| {
            (
                input.clone(),
                io::Error::new(io::ErrorKind::InvalidInput, "no name to store it under"),
            )
        })?;
        w.add_path(&name, p, &opts.entry)
            .map_err(|e| (input.clone(), e.into()))?;
    }
    if let Some(name) = super::add::stdin_entry_name(args) {
        let mut stdin = super::add::Counting::new(io::stdin().lock());
        let entry = opts.entry.clone().with_mtime(SystemTime::now());
        w.add_file(&name, &mut stdin, &entry)
            .map_err(|e| ("(stdin)".to_string(), e.into()))?;
        size += stdin.count;
    }
    let entries = w.len();
    let finished = w.finish();
    if let Some(bar) = bar {
        bar.finish_and_clear();
    }
    let sink = finished.map_err(|e| (archive(), e.into()))?;
    Ok((entries, size, sink))
}
