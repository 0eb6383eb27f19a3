//! Encode comparison: lzflow's XZ encoder beside liblzma's, from one run.

use std::io::{self, Write};
use std::time::Duration;

use liblzma::stream::{Check, Filters, LzmaOptions, Stream};
use lzflow_filters::{FilterConfig, FilterKind};

use crate::measure::{measure, Sample};
use crate::{median, GLOBAL};

/// A preset as xz names it.
#[derive(Clone, Copy)]
struct Preset {
    level: u32,
    extreme: bool,
}

impl Preset {
    fn name(self) -> String {
        format!("{}{}", self.level, if self.extreme { "e" } else { "" })
    }
}

struct Input {
    name: &'static str,
    data: Vec<u8>,
    x86: bool,
}

fn lzflow_encode(input: &Input, p: Preset, threads: u32, block: Option<u64>) -> io::Result<usize> {
    let mut b = lzflow::write::XzEncoder::builder().preset(p.level);
    if p.extreme {
        b = b.extreme();
    }
    if input.x86 {
        b = b.filter(FilterConfig::new(FilterKind::X86));
    }
    if let Some(bs) = block {
        b = b.block_size(bs);
    }
    if threads > 1 {
        // The facade's builder has no thread count: drive lzflow-xz's
        // threaded encoder through the generic std face.
        let mut base = if p.extreme {
            lzflow_xz::XzEncoderOptions::preset_extreme(p.level)
        } else {
            lzflow_xz::XzEncoderOptions::preset(p.level)
        }?;
        if input.x86 {
            base = base.with_filters(vec![FilterConfig::new(FilterKind::X86)]);
        }
        base.block_size = block;
        let coder = lzflow_xz::MtXzEncoder::new(lzflow_xz::MtXzEncoderOptions {
            base,
            threads: threads as usize,
        })?;
        let mut enc =
            lzflow::write::Encoder::with_coder(Vec::with_capacity(input.data.len() / 3), coder);
        enc.write_all(&input.data)?;
        return Ok(enc.finish()?.len());
    }
    let mut enc = b.build(Vec::with_capacity(input.data.len() / 3));
    enc.write_all(&input.data)?;
    Ok(enc.finish()?.len())
}

/// One XZ stream (one Block) with the match finder on its own thread.
fn lzflow_mf_thread_encode(
    input: &Input,
    p: Preset,
    _threads: u32,
    _block: Option<u64>,
) -> io::Result<usize> {
    let mut b = lzflow::write::XzEncoder::builder()
        .preset(p.level)
        .match_finder_thread(true);
    if p.extreme {
        b = b.extreme();
    }
    if input.x86 {
        b = b.filter(FilterConfig::new(FilterKind::X86));
    }
    let mut enc = b.build(Vec::with_capacity(input.data.len() / 3));
    enc.write_all(&input.data)?;
    Ok(enc.finish()?.len())
}

fn liblzma_encode(input: &Input, p: Preset, threads: u32, block: Option<u64>) -> io::Result<usize> {
    let level = p.level
        | if p.extreme {
            liblzma::stream::PRESET_EXTREME
        } else {
            0
        };
    let mut f = Filters::new();
    if input.x86 {
        f.x86();
    }
    f.lzma2(&LzmaOptions::new_preset(level).map_err(io::Error::other)?);
    let stream = if threads > 1 || block.is_some() {
        let mut b = liblzma::stream::MtStreamBuilder::new();
        b.threads(threads).filters(f).check(Check::Crc64);
        if let Some(bs) = block {
            b.block_size(bs);
        }
        b.encoder().map_err(io::Error::other)?
    } else {
        Stream::new_stream_encoder(&f, Check::Crc64).map_err(io::Error::other)?
    };
    let mut w =
        liblzma::write::XzEncoder::new_stream(Vec::with_capacity(input.data.len() / 3), stream);
    w.write_all(&input.data)?;
    Ok(w.finish()?.len())
}

type Encoder = fn(&Input, Preset, u32, Option<u64>) -> io::Result<usize>;

/// Preset 6, where the one-stream, two-thread rows are measured.
const P6: Preset = Preset {
    level: 6,
    extreme: false,
};

/// The encoders a fresh child process can run (`encode-rss`), by name.
const RSS_ENCODERS: [(&str, Encoder); 3] = [
    ("lzflow", lzflow_encode),
    ("lzflow-mf", lzflow_mf_thread_encode),
    ("liblzma", liblzma_encode),
];

/// `<encoder> <threads> <quick|full>`: loads the text input (at the
/// parent's scale), then encodes it once at preset 6 and returns the peak
/// RSS above the loaded input, in KiB, as the "output". A fresh process
/// has no pooled tables or freed heap to reuse, so this is what one encode
/// needs.
pub(crate) fn encode_rss(args: &[String]) -> io::Result<u64> {
    let bad = |what: &str| io::Error::new(io::ErrorKind::InvalidInput, what.to_string());
    let [who, threads, scale] = args else {
        return Err(bad("encode-rss <encoder> <threads> <quick|full>"));
    };
    crate::workloads::set_quick(scale == "quick");
    let threads = threads.parse().map_err(|_| bad("threads"))?;
    let (_, f) = RSS_ENCODERS
        .iter()
        .find(|(name, _)| name == who)
        .ok_or_else(|| bad("no such encoder"))?;
    let input = Input {
        name: "text",
        data: crate::workloads::text_input(),
        x86: false,
    };
    let s = measure(GLOBAL, || f(&input, P6, threads, None).map(|_| ()))?;
    Ok(s.peak_rss_kib)
}

/// Prints the encode table: presets 0, 6, 9, 9e on text and mixed-x86, then
/// 1- vs 2-thread encoding of the text in 4 MiB blocks, then one stream
/// with the match finder on its own thread (`--only mf-thread`).
pub fn compare_encode(rounds: usize, only: Option<&str>) -> io::Result<()> {
    eprintln!("building inputs…");
    let inputs = [
        Input {
            name: "text",
            data: crate::workloads::text_input(),
            x86: false,
        },
        Input {
            name: "mixed-x86",
            data: crate::workloads::mixed_x86_input(),
            x86: true,
        },
    ];
    println!(
        "{:<10} {:<7} {:<16} {:>10} {:>8} {:>11} {:>9} {:>13} {:>9} {:>17}",
        "input",
        "preset",
        "contestant",
        "median ms",
        "ratio",
        "size",
        "size ×",
        "alloc B/op",
        "allocs/op",
        "fresh RSS+ (×)"
    );
    let presets = [
        Preset {
            level: 0,
            extreme: false,
        },
        Preset {
            level: 6,
            extreme: false,
        },
        Preset {
            level: 9,
            extreme: false,
        },
        Preset {
            level: 9,
            extreme: true,
        },
    ];
    // Each run: input, preset, block size, and its contestants (label,
    // encoder, threads); the first is the baseline of the ratios. Then, for
    // a column of peak RSS in fresh processes (the one-stream rows only),
    // each contestant's `encode-rss` encoder and threads.
    type Run<'a> = (
        &'a Input,
        Preset,
        Option<u64>,
        Vec<(String, Encoder, u32)>,
        Option<Vec<(&'static str, u32)>>,
    );
    let mut runs: Vec<Run> = Vec::new();
    let pair = |block: Option<u64>, threads: u32| -> Vec<(String, Encoder, u32)> {
        let who = |name: &str| match block {
            Some(bs) if bs >= 1 << 20 => format!("{name} {threads}T/{}MiB", bs >> 20),
            Some(bs) => format!("{name} {threads}T/{}KiB", bs >> 10),
            None => name.to_string(),
        };
        vec![
            (who("liblzma"), liblzma_encode as Encoder, threads),
            (who("lzflow"), lzflow_encode as Encoder, threads),
        ]
    };
    for input in inputs
        .iter()
        .filter(|i| only.is_none_or(|o| i.name.contains(o)))
    {
        for p in presets {
            runs.push((input, p, None, pair(None, 1), None));
        }
    }
    if only.is_none_or(|o| "threads".contains(o)) {
        let block = crate::workloads::scaled(4 << 20) as u64;
        runs.push((&inputs[0], P6, Some(block), pair(Some(block), 1), None));
        runs.push((&inputs[0], P6, Some(block), pair(Some(block), 2), None));
    }
    if only.is_none_or(|o| "mf-thread".contains(o)) {
        // One stream on two cores (the match finder on its own thread)
        // against one thread, and against liblzma's two threads, which
        // split the text into Blocks of 3 × the dictionary.
        runs.push((
            &inputs[0],
            P6,
            None,
            vec![
                ("lzflow 1T".into(), lzflow_encode as Encoder, 1),
                ("lzflow mf-thread".into(), lzflow_mf_thread_encode, 1),
                ("liblzma 1T".into(), liblzma_encode, 1),
                ("liblzma 2T".into(), liblzma_encode, 2),
            ],
            Some(vec![
                ("lzflow", 1),
                ("lzflow-mf", 1),
                ("liblzma", 1),
                ("liblzma", 2),
            ]),
        ));
    }
    for (input, p, block, contestants, rss) in runs {
        let mut samples: Vec<Vec<Sample>> = vec![Vec::new(); contestants.len()];
        let mut sizes = vec![0usize; contestants.len()];
        let failed: Vec<Option<String>> = contestants
            .iter()
            .map(|(_, f, threads)| f(input, p, *threads, block).err().map(|e| e.to_string()))
            .collect();
        for r in 0..rounds {
            for k in 0..contestants.len() {
                let i = (k + r) % contestants.len();
                if failed[i].is_some() {
                    continue;
                }
                let (_, f, threads) = contestants[i];
                samples[i].push(measure(GLOBAL, || {
                    sizes[i] = f(input, p, threads, block)?;
                    Ok(())
                })?);
            }
        }
        if failed[0].is_some() {
            return Err(io::Error::other("the baseline failed"));
        }
        let times: Vec<Duration> = samples
            .iter()
            .map(|s| {
                let mut t: Vec<Duration> = s.iter().map(|x| x.time).collect();
                if t.is_empty() {
                    Duration::ZERO
                } else {
                    median(&mut t)
                }
            })
            .collect();
        // Peak RSS of one encode in a fresh process, KiB, and the ratio to
        // liblzma's on one thread.
        let scale = if crate::workloads::is_quick() {
            "quick"
        } else {
            "full"
        };
        let rss_kib: Vec<Option<u64>> = match &rss {
            Some(jobs) => jobs
                .iter()
                .map(|(who, threads)| {
                    let args = [who.to_string(), threads.to_string(), scale.to_string()];
                    crate::child::run("encode-rss", &args).map(|c| Some(c.out_bytes))
                })
                .collect::<io::Result<_>>()?,
            None => vec![None; contestants.len()],
        };
        let rss_base = rss
            .as_ref()
            .and_then(|jobs| jobs.iter().position(|j| *j == ("liblzma", 1)))
            .and_then(|k| rss_kib[k]);
        for (i, (who, _, _)) in contestants.iter().enumerate() {
            let rss_cell = match (rss_kib[i], rss_base) {
                (Some(k), Some(base)) => format!(
                    "{:.1}MiB ({:.3}×)",
                    k as f64 / 1024.0,
                    k as f64 / base.max(1) as f64
                ),
                _ => "-".to_string(),
            };
            let mut alloc: Vec<u64> = samples[i].iter().map(|s| s.alloc_bytes).collect();
            alloc.sort();
            let mut count: Vec<u64> = samples[i].iter().map(|s| s.alloc_count).collect();
            count.sort();
            if let Some(why) = &failed[i] {
                println!("{:<10} {:<7} {:<16} {why}", input.name, p.name(), who);
                continue;
            }
            println!(
                "{:<10} {:<7} {:<16} {:>10.1} {:>7.3}x {:>11} {:>8.4}x {:>13} {:>9} {:>17}",
                input.name,
                p.name(),
                who,
                times[i].as_secs_f64() * 1e3,
                times[i].as_secs_f64() / times[0].as_secs_f64(),
                sizes[i],
                sizes[i] as f64 / sizes[0] as f64,
                alloc[alloc.len() / 2],
                count[count.len() / 2],
                rss_cell,
            );
        }
    }
    Ok(())
}
