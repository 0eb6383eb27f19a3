//! `lzflow l`: streams, blocks, checks and sizes of .xz files, laid out like
//! `xz -l` / `xz -lv`, reading only the stream footers and indexes (and,
//! for `-lvv`, each Block's header and stored check); the
//! members of .lz files, read from their trailers as `lzip -l` does.

use std::fs::File;
use std::io::{self, BufReader, Read};

use lzflow_filters::FilterKind;
use lzflow_xz::info::{read_info, XzInfo};
use lzflow_xz::{read_block_details, BlockDetails};

use super::Status;
use crate::format::{detect, Detected, Format, SNIFF_LEN};
use crate::report;
use crate::size::{human, ratio};

/// Options of `lzflow l`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// .xz and .lz files to list; or one 7z or zip archive followed by
    /// wildcards choosing its entries (as for `x`).
    #[arg(value_name = "FILE", required = true)]
    pub files: Vec<String>,
    #[command(flatten)]
    pub filters: super::extract::FilterArgs,
    /// Also list every stream and block (`-vv`: also each block's header
    /// and stored check, the memory needed and the oldest xz that reads
    /// the file, as `xz -lvv`).
    #[arg(short, long, action = clap::ArgAction::Count)]
    pub verbose: u8,
    /// .xz files only: xz's machine-readable listing (`xz --robot -l`),
    /// tab-separated `name`, `file`, (with -v) `stream` and `block` lines
    /// per file, and a `totals` line.
    #[arg(long)]
    pub robot: bool,
    /// 7z and zip archives: 7-Zip's technical listing (`7zz l -slt`, which
    /// lzflow also takes), a `Key = Value` block per entry.
    #[arg(long)]
    pub technical: bool,
    /// Password of a 7z archive with encrypted headers.
    #[arg(short, long, value_name = "PASSWORD")]
    pub password: Option<String>,
    #[command(flatten)]
    pub limits: super::extract::ArchiveLimits,
}

/// Totals over one file.
struct Summary {
    streams: u64,
    blocks: u64,
    compressed: u64,
    uncompressed: u64,
    padding: u64,
    /// Check IDs present, as a bit set (like xz).
    checks: u16,
}

impl Summary {
    fn add(&mut self, other: &Summary) {
        self.streams += other.streams;
        self.blocks += other.blocks;
        self.compressed += other.compressed;
        self.uncompressed += other.uncompressed;
        self.padding += other.padding;
        self.checks |= other.checks;
    }
}

/// Runs `lzflow l`.
pub fn run(args: &Args) -> Status {
    let mut status = Status::default();
    let mut totals = Summary {
        streams: 0,
        blocks: 0,
        compressed: 0,
        uncompressed: 0,
        padding: 0,
        checks: 0,
    };
    let mut listed = 0usize;
    let mut header_printed = false;
    let mut headers_total = HeaderSummary::default();
    let (files, selection) = match super::split_archive_args(&args.files, &args.filters) {
        Ok(split) => split,
        Err(e) => {
            report::error(&e);
            status.use_archive_codes();
            status.usage();
            return status;
        }
    };
    for (i, file) in files.iter().enumerate() {
        if args.robot {
            match load_with_details(file, args.verbose) {
                Ok((info, size, details)) => {
                    let sum = summarize(&info, size);
                    print_robot(file, &info, &sum, args.verbose, details.as_ref());
                    totals.add(&sum);
                    if let Some(d) = &details {
                        headers_total.add(d);
                    }
                    listed += 1;
                }
                Err(e) => {
                    report::file_error(file, &e);
                    status.fail();
                }
            }
            continue;
        }
        if is_lzip(file) {
            if let Err(e) = list_lzip(file, args.verbose > 0) {
                report::file_error(file, &e);
                status.fail();
            }
            continue;
        }
        let listed_entries = if super::zip::is_zip(file) || file == "-" {
            let options = args.limits.zip_options(u64::MAX, args.password.as_deref());
            Some(match args.technical {
                true => super::zip::list_technical(file, options, &selection),
                false => super::zip::list(file, options, &selection),
            })
        } else if super::extract::is_7z(file) {
            let password = args.password.as_deref();
            Some(
                crate::password::for_archive(file, password, crate::password::Use::Listing)
                    .and_then(|pw| {
                        let options = args.limits.options(u64::MAX, pw.as_deref());
                        match args.technical {
                            true => super::extract::list_technical(file, options, &selection),
                            false => super::extract::list(file, options, &selection),
                        }
                    }),
            )
        } else {
            None
        };
        if let Some(listed_entries) = listed_entries {
            status.use_archive_codes();
            match listed_entries {
                Ok(n) => super::extract::report_selection(file, &selection, n),
                Err(e) => {
                    report::file_error(file, &e);
                    status.fail_with(&e);
                }
            }
            continue;
        }
        let (info, file_size, details) = match load_with_details(file, args.verbose) {
            Ok(v) => v,
            Err(e) => {
                report::file_error(file, &e);
                status.fail();
                continue;
            }
        };
        let sum = summarize(&info, file_size);
        if args.verbose > 0 {
            if listed > 0 {
                outln!();
            }
            print_verbose(file, i + 1, files.len(), &info, &sum, details.as_ref());
            if let Some(d) = &details {
                headers_total.add(d);
            }
        } else {
            if !header_printed {
                outln!("Strms  Blocks   Compressed Uncompressed  Ratio  Check   Filename");
                header_printed = true;
            }
            print_row(&sum, file);
        }
        totals.add(&sum);
        listed += 1;
    }
    if args.robot {
        // Always the last line, even when no file could be listed.
        let fields = robot_fields(&totals, &check_names(totals.checks, ","));
        if args.verbose >= 2 {
            outln!("totals\t{fields}\t{listed}\t{}", headers_total.robot());
        } else {
            outln!("totals\t{fields}\t{listed}");
        }
        return status;
    }
    if listed > 1 && args.verbose > 0 {
        outln!();
        outln!("Totals:");
        outln!("  Number of files:   {listed}");
        print_sums(&totals);
        if args.verbose >= 2 {
            headers_total.print();
        }
    }
    if listed > 1 && args.verbose == 0 {
        outln!("{}", "-".repeat(79));
        print_row(&totals, &format!("{listed} files"));
    }
    status
}

/// [`load`], and with `-vv` every Block's header and check.
fn load_with_details(
    file: &str,
    verbose: u8,
) -> io::Result<(XzInfo, u64, Option<Vec<BlockDetails>>)> {
    let (info, size) = load(file)?;
    if verbose < 2 {
        return Ok((info, size, None));
    }
    let details = read_block_details(BufReader::new(File::open(file)?), &info)?;
    Ok((info, size, Some(details)))
}

/// True when `file` starts with the lzip ID string.
fn is_lzip(file: &str) -> bool {
    let mut head = [0u8; 4];
    file != "-"
        && File::open(file)
            .and_then(|mut f| f.read_exact(&mut head))
            .is_ok_and(|()| head == lzflow_lzip::MAGIC)
}

/// Lists the members of an .lz file: a summary row, and with `-v` one row
/// per member.
fn list_lzip(file: &str, verbose: bool) -> io::Result<()> {
    let mut f = File::open(file)?;
    let size = f.metadata()?.len();
    let list = lzflow_lzip::list_members(&mut f)?;
    let data = list.data_size();
    outln!("Members   Compressed Uncompressed  Ratio  Check   Filename");
    outln!(
        "{:>7} {:>12} {:>12} {:>6}  {:<7} {}",
        list.members.len(),
        human(size),
        human(data),
        ratio(size, data),
        "CRC32",
        file
    );
    if verbose {
        outln!("  Members:");
        outln!("    Member      CompOffset    UncompOffset        CompSize      UncompSize  Ratio  Dictionary     CRC32");
        let mut uncomp_off = 0u64;
        for (n, m) in list.members.iter().enumerate() {
            outln!(
                "    {:>6} {:>15} {:>15} {:>15} {:>15} {:>6}  {:>10}  {:08x}",
                n + 1,
                m.offset,
                uncomp_off,
                m.member_size,
                m.data_size,
                ratio(m.member_size, m.data_size),
                human(u64::from(m.dict_size)),
                m.crc32
            );
            uncomp_off += m.data_size;
        }
        if list.trailing > 0 {
            outln!("  Trailing data:     {} B", list.trailing);
        }
    }
    Ok(())
}

fn load(file: &str) -> io::Result<(XzInfo, u64)> {
    if file == "-" {
        // The index sits at the end of the file: listing needs to seek.
        return Err(io::Error::new(
            io::ErrorKind::Unsupported,
            "listing needs a seekable file, not standard input",
        ));
    }
    let mut f = File::open(file)?;
    let size = f.metadata()?.len();
    let mut head = Vec::with_capacity(SNIFF_LEN);
    (&mut f).take(SNIFF_LEN as u64).read_to_end(&mut head)?;
    match detect(&head) {
        Detected::Known(Format::Xz) => {}
        Detected::Known(Format::Lzma) => {
            return Err(io::Error::new(
                io::ErrorKind::Unsupported,
                ".lzma files have no index to list; use `lzflow t -v` to get the decoded size",
            ))
        }
        _ => {
            return Err(io::Error::new(
                io::ErrorKind::InvalidData,
                "file format not recognized: only .xz files can be listed",
            ))
        }
    }
    let f = File::open(file)?;
    let info = read_info(BufReader::new(f))?;
    Ok((info, size))
}

fn summarize(info: &XzInfo, file_size: u64) -> Summary {
    let mut sum = Summary {
        streams: info.streams.len() as u64,
        blocks: 0,
        compressed: file_size,
        uncompressed: 0,
        padding: 0,
        checks: 0,
    };
    for s in &info.streams {
        sum.blocks += s.blocks.len() as u64;
        sum.uncompressed += s.uncompressed_size;
        sum.padding += s.padding;
        sum.checks |= 1 << (s.check_id & 15);
    }
    sum
}

fn check_name(id: u8) -> String {
    match id {
        0x00 => "None".into(),
        0x01 => "CRC32".into(),
        0x04 => "CRC64".into(),
        0x0A => "SHA-256".into(),
        other => format!("Unknown-{other}"),
    }
}

/// The names of the checks in `set`; "None" for an empty set, as xz
/// prints it for totals over no file.
fn check_names(set: u16, sep: &str) -> String {
    if set == 0 {
        return check_name(0);
    }
    (0..16u8)
        .filter(|id| set & (1 << id) != 0)
        .map(check_name)
        .collect::<Vec<_>>()
        .join(sep)
}

fn print_row(sum: &Summary, name: &str) {
    outln!(
        "{:>5} {:>7} {:>12} {:>12} {:>6}  {:<7} {}",
        sum.streams,
        sum.blocks,
        human(sum.compressed),
        human(sum.uncompressed),
        ratio(sum.compressed, sum.uncompressed),
        check_names(sum.checks, ","),
        name
    );
}

fn print_verbose(
    name: &str,
    index: usize,
    count: usize,
    info: &XzInfo,
    sum: &Summary,
    details: Option<&Vec<BlockDetails>>,
) {
    outln!("{name} ({index}/{count})");
    print_sums(sum);
    outln!("  Streams:");
    outln!(
        "    Stream    Blocks      CompOffset    UncompOffset        CompSize      UncompSize  Ratio  Check      Padding"
    );
    let (streams, blocks) = layout(info);
    for s in &streams {
        let [n, b, co, uo, c, u, r, check, pad] = s.fields();
        outln!("    {n:>6} {b:>9} {co:>15} {uo:>15} {c:>15} {u:>15} {r:>6}  {check:<10} {pad:>7}");
    }
    // As xz: no Blocks table for a file without blocks.
    if !blocks.is_empty() {
        print_blocks(info, &blocks, details);
    }
    if let Some(details) = details {
        let mut headers = HeaderSummary::default();
        headers.add(details);
        headers.print();
    }
}

/// The Blocks table of `-lv`, with `-lvv`'s columns when `details` are
/// given.
fn print_blocks(info: &XzInfo, blocks: &[BlockRow], details: Option<&Vec<BlockDetails>>) {
    const HEADING: &str =
        "    Stream     Block      CompOffset    UncompOffset       TotalSize      UncompSize  Ratio  Check";
    outln!("  Blocks:");
    let Some(details) = details else {
        outln!("{HEADING}");
        for b in blocks {
            // The number in the file is for robots only.
            let [s, n, _, co, uo, t, u, r, check] = b.fields();
            outln!("    {s:>6} {n:>9} {co:>15} {uo:>15} {t:>15} {u:>15} {r:>6}  {check}");
        }
        return;
    };
    // The CheckVal column fits the file's longest check, in hex.
    let width = info
        .streams
        .iter()
        .map(|s| 2 * lzflow_xz::check_size_of_id(s.check_id))
        .fold("CheckVal".len(), usize::max);
    outln!(
        "{HEADING}      {:<width$} {:>7}  {:<5} {:>15} {:>11}  Filters",
        "CheckVal",
        "Header",
        "Flags",
        "CompSize",
        "MemUsage"
    );
    for (b, d) in blocks.iter().zip(details) {
        let [s, n, _, co, uo, t, u, r, check] = b.fields();
        outln!(
            "    {s:>6} {n:>9} {co:>15} {uo:>15} {t:>15} {u:>15} {r:>6}  {check:<10} {:<width$} {:>7}  {:<5} {:>15} {:>11}  {}",
            check_value(d, b.check_id),
            d.header_size,
            size_flags(d),
            d.compressed_size,
            format!("{} MiB", mib_up(d.memory_usage)),
            filter_chain(d)
        );
    }
}

/// What `-lvv` adds up over Blocks (of a file, or of all files).
struct HeaderSummary {
    /// The most memory a Block's decoder needs.
    memory: u64,
    /// Some Block's header lacks a size field.
    lacks_sizes: bool,
    /// The oldest XZ Utils that reads every Block, as xz encodes versions.
    min_version: u32,
}

/// XZ Utils 5.0.0, stable, in xz's encoding (`major * 10^7 + minor * 10^4
/// + patch * 10 + 2`).
const XZ_5_0_0: u32 = 50_000_002;
/// XZ Utils 5.0.2, likewise.
const XZ_5_0_2: u32 = 50_000_022;

impl Default for HeaderSummary {
    /// No Block yet: every xz reads that.
    fn default() -> Self {
        HeaderSummary {
            memory: 0,
            lacks_sizes: false,
            min_version: XZ_5_0_0,
        }
    }
}

impl HeaderSummary {
    fn add(&mut self, details: &[BlockDetails]) {
        for d in details {
            self.memory = self.memory.max(d.memory_usage);
            if d.uncompressed_size == 0 {
                // Empty Blocks failed to decode before XZ Utils 5.0.2.
                self.min_version = self.min_version.max(XZ_5_0_2);
            }
            self.lacks_sizes |=
                d.compressed_size_field.is_none() || d.uncompressed_size_field.is_none();
            for f in &d.filters {
                // The first releases that decode these filters.
                let since = match f.kind {
                    FilterKind::Arm64 => 50_040_002,
                    FilterKind::RiscV => 50_060_002,
                    _ => XZ_5_0_0,
                };
                self.min_version = self.min_version.max(since);
            }
        }
    }

    /// `5.4.0` from xz's encoding.
    fn version(&self) -> String {
        let v = self.min_version;
        format!("{}.{}.{}", v / 10_000_000, v / 10_000 % 1000, v / 10 % 1000)
    }

    /// The three lines ending a file's (or the totals') `-lvv` listing.
    fn print(&self) {
        outln!("  Memory needed:     {} MiB", mib_up(self.memory));
        let sizes = if self.lacks_sizes { "No" } else { "Yes" };
        outln!("  Sizes in headers:  {sizes}");
        outln!("  Minimum XZ Utils version: {}", self.version());
    }

    /// The same for robots: bytes, `yes`/`no`, the encoded version.
    fn robot(&self) -> String {
        let sizes = if self.lacks_sizes { "no" } else { "yes" };
        format!("{}\t{sizes}\t{}", self.memory, self.min_version)
    }
}

/// Bytes rounded up to whole MiB, as xz shows memory.
fn mib_up(bytes: u64) -> u64 {
    bytes.div_ceil(1 << 20)
}

/// The stored check in hex as xz shows it (CRC32 and CRC64 as numbers,
/// their little-endian bytes reversed; others byte by byte), `---` for
/// none.
fn check_value(d: &BlockDetails, check_id: u8) -> String {
    if d.check_value.is_empty() {
        return "---".into();
    }
    let hex = |b: &u8| format!("{b:02x}");
    match check_id {
        1 | 4 => d.check_value.iter().rev().map(hex).collect(),
        _ => d.check_value.iter().map(hex).collect(),
    }
}

/// `c` and `u` for the size fields the header has, `-` for those it lacks.
fn size_flags(d: &BlockDetails) -> String {
    let c = if d.compressed_size_field.is_some() {
        'c'
    } else {
        '-'
    };
    let u = if d.uncompressed_size_field.is_some() {
        'u'
    } else {
        '-'
    };
    format!("{c}{u}")
}

/// The Block's filter chain in xz's option syntax, as `xz -lvv` prints it:
/// `--delta=dist=4 --x86=start=16 --lzma2=dict=1536KiB`.
fn filter_chain(d: &BlockDetails) -> String {
    let mut parts: Vec<String> = d
        .filters
        .iter()
        .map(|f| {
            let name = match f.kind {
                FilterKind::Delta => return format!("--delta=dist={}", f.distance),
                FilterKind::X86 => "x86",
                FilterKind::PowerPc => "powerpc",
                FilterKind::Ia64 => "ia64",
                FilterKind::Arm => "arm",
                FilterKind::ArmThumb => "armthumb",
                FilterKind::Sparc => "sparc",
                FilterKind::Arm64 => "arm64",
                FilterKind::RiscV => "riscv",
            };
            match f.start_offset {
                0 => format!("--{name}"),
                start => format!("--{name}=start={}", option_size(start)),
            }
        })
        .collect();
    parts.push(format!("--lzma2=dict={}", option_size(d.dict_size)));
    parts.join(" ")
}

/// A size in xz's option syntax: `8MiB`, `1536KiB`, or bytes.
fn option_size(n: u32) -> String {
    if n != 0 && n.is_multiple_of(1 << 20) {
        format!("{}MiB", n >> 20)
    } else if n != 0 && n.is_multiple_of(1 << 10) {
        format!("{}KiB", n >> 10)
    } else {
        n.to_string()
    }
}

/// The lines of `-lv` about a file's (or all files') totals.
fn print_sums(sum: &Summary) {
    outln!("  Streams:           {}", sum.streams);
    outln!("  Blocks:            {}", sum.blocks);
    outln!("  Compressed size:   {}", human_and_bytes(sum.compressed));
    outln!("  Uncompressed size: {}", human_and_bytes(sum.uncompressed));
    outln!(
        "  Ratio:             {}",
        ratio(sum.compressed, sum.uncompressed)
    );
    outln!("  Check:             {}", check_names(sum.checks, ", "));
    outln!("  Stream Padding:    {} B", sum.padding);
}

/// A size as xz's -lv gives it: `33.2 KiB (34032 B)`, and below 10 KiB
/// just `9948 B`.
fn human_and_bytes(bytes: u64) -> String {
    let short = human(bytes);
    if short.ends_with(" B") {
        short
    } else {
        format!("{short} ({bytes} B)")
    }
}

/// A stream's row of `-lv`.
struct StreamRow {
    number: usize,
    blocks: usize,
    comp_offset: u64,
    uncomp_offset: u64,
    compressed: u64,
    uncompressed: u64,
    check_id: u8,
    padding: u64,
}

/// A block's row of `-lv`.
struct BlockRow {
    stream: usize,
    /// In its stream, from 1.
    number: usize,
    /// In the file, from 1.
    in_file: usize,
    comp_offset: u64,
    uncomp_offset: u64,
    /// With its header, padding and check.
    total: u64,
    uncompressed: u64,
    check_id: u8,
}

impl StreamRow {
    /// The columns, in xz's order.
    fn fields(&self) -> [String; 9] {
        [
            self.number.to_string(),
            self.blocks.to_string(),
            self.comp_offset.to_string(),
            self.uncomp_offset.to_string(),
            self.compressed.to_string(),
            self.uncompressed.to_string(),
            ratio(self.compressed, self.uncompressed),
            check_name(self.check_id),
            self.padding.to_string(),
        ]
    }
}

impl BlockRow {
    /// The columns, in the order of xz's robot lines.
    fn fields(&self) -> [String; 9] {
        [
            self.stream.to_string(),
            self.number.to_string(),
            self.in_file.to_string(),
            self.comp_offset.to_string(),
            self.uncomp_offset.to_string(),
            self.total.to_string(),
            self.uncompressed.to_string(),
            ratio(self.total, self.uncompressed),
            check_name(self.check_id),
        ]
    }
}

/// Where every stream and block of `info` lies in the file and in the
/// decoded data.
fn layout(info: &XzInfo) -> (Vec<StreamRow>, Vec<BlockRow>) {
    let (mut streams, mut blocks) = (Vec::new(), Vec::new());
    let (mut comp_offset, mut uncomp_offset) = (0u64, 0u64);
    for (n, s) in info.streams.iter().enumerate() {
        streams.push(StreamRow {
            number: n + 1,
            blocks: s.blocks.len(),
            comp_offset,
            uncomp_offset,
            compressed: s.compressed_size,
            uncompressed: s.uncompressed_size,
            check_id: s.check_id,
            padding: s.padding,
        });
        // Blocks start after the 12-byte stream header.
        let mut block_offset = comp_offset + 12;
        let mut block_uncomp = uncomp_offset;
        for (b, block) in s.blocks.iter().enumerate() {
            // Block padding rounds each block up to a multiple of four.
            let total = block.unpadded_size.div_ceil(4) * 4;
            blocks.push(BlockRow {
                stream: n + 1,
                number: b + 1,
                in_file: blocks.len() + 1,
                comp_offset: block_offset,
                uncomp_offset: block_uncomp,
                total,
                uncompressed: block.uncompressed_size,
                check_id: s.check_id,
            });
            block_offset += total;
            block_uncomp += block.uncompressed_size;
        }
        comp_offset += s.compressed_size + s.padding;
        uncomp_offset += s.uncompressed_size;
    }
    (streams, blocks)
}

/// The columns `file` and `totals` lines share: streams, blocks, sizes,
/// ratio, checks, padding.
fn robot_fields(sum: &Summary, checks: &str) -> String {
    format!(
        "{}\t{}\t{}\t{}\t{}\t{checks}\t{}",
        sum.streams,
        sum.blocks,
        sum.compressed,
        sum.uncompressed,
        ratio(sum.compressed, sum.uncompressed),
        sum.padding
    )
}

/// One file as `xz --robot -l` (`-v`: `-lv`) prints it: the columns are
/// xz's, in its order, separated by tabs.
fn print_robot(
    name: &str,
    info: &XzInfo,
    sum: &Summary,
    verbose: u8,
    details: Option<&Vec<BlockDetails>>,
) {
    outln!("name\t{name}");
    outln!("file\t{}", robot_fields(sum, &check_names(sum.checks, ",")));
    if verbose == 0 {
        return;
    }
    let (streams, blocks) = layout(info);
    for s in &streams {
        outln!("stream\t{}", s.fields().join("\t"));
    }
    let Some(details) = details else {
        for b in &blocks {
            outln!("block\t{}", b.fields().join("\t"));
        }
        return;
    };
    for (b, d) in blocks.iter().zip(details) {
        outln!(
            "block\t{}\t{}\t{}\t{}\t{}\t{}\t{}",
            b.fields().join("\t"),
            check_value(d, b.check_id),
            d.header_size,
            size_flags(d),
            d.compressed_size,
            d.memory_usage,
            filter_chain(d)
        );
    }
    let mut headers = HeaderSummary::default();
    headers.add(details);
    outln!("summary\t{}", headers.robot());
}
