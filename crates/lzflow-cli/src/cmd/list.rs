//! `lzflow l`: streams, blocks, checks and sizes of .xz files, laid out like
//! `xz -l` / `xz -lv`, reading only the stream footers and indexes; the
//! members of .lz files, read from their trailers as `lzip -l` does.

use std::fs::File;
use std::io::{self, BufReader, Read};

use lzflow_xz::info::{read_info, XzInfo};

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
    /// Also list every stream and block.
    #[arg(short, long)]
    pub verbose: bool,
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
            match load(file) {
                Ok((info, size)) => {
                    let sum = summarize(&info, size);
                    print_robot(file, &info, &sum, args.verbose);
                    totals.add(&sum);
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
            if let Err(e) = list_lzip(file, args.verbose) {
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
        let info = match load(file) {
            Ok(v) => v,
            Err(e) => {
                report::file_error(file, &e);
                status.fail();
                continue;
            }
        };
        let (info, file_size) = info;
        let sum = summarize(&info, file_size);
        if args.verbose {
            if listed > 0 {
                outln!();
            }
            print_verbose(file, i + 1, files.len(), &info, &sum);
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
        outln!(
            "totals\t{}\t{listed}",
            robot_fields(&totals, &check_names(totals.checks, ","))
        );
        return status;
    }
    if listed > 1 && args.verbose {
        outln!();
        outln!("Totals:");
        outln!("  Number of files:   {listed}");
        print_sums(&totals);
    }
    if listed > 1 && !args.verbose {
        outln!("{}", "-".repeat(79));
        print_row(&totals, &format!("{listed} files"));
    }
    status
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

fn print_verbose(name: &str, index: usize, count: usize, info: &XzInfo, sum: &Summary) {
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
    if blocks.is_empty() {
        return;
    }
    outln!("  Blocks:");
    outln!(
        "    Stream     Block      CompOffset    UncompOffset       TotalSize      UncompSize  Ratio  Check"
    );
    for b in &blocks {
        // The number in the file is for robots only.
        let [s, n, _, co, uo, t, u, r, check] = b.fields();
        outln!("    {s:>6} {n:>9} {co:>15} {uo:>15} {t:>15} {u:>15} {r:>6}  {check}");
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
fn print_robot(name: &str, info: &XzInfo, sum: &Summary, verbose: bool) {
    outln!("name\t{name}");
    outln!("file\t{}", robot_fields(sum, &check_names(sum.checks, ",")));
    if !verbose {
        return;
    }
    let (streams, blocks) = layout(info);
    for s in &streams {
        outln!("stream\t{}", s.fields().join("\t"));
    }
    for b in &blocks {
        outln!("block\t{}", b.fields().join("\t"));
    }
}
