//! Contestants run in child processes of the bench binary, so that each one
//! starts with an empty heap and its peak RSS is its own.
//!
//! The parent runs `lzflow-bench run-one <job> <args…>`; the child does the
//! job once (a job named `<job>:warm` runs `<job>` once unmeasured first, so
//! the measured run finds pools and heap warm, as a long-lived process
//! would; a job may call [`measure_from_here`] to leave its preparation
//! out of the sample) and prints one line `SAMPLE <ns> <alloc bytes> <allocs>
//! <peak KiB> <output bytes> <external> <RSS before KiB>`. An in-process job measures itself (counting
//! allocator, `VmHWM` of the fresh process). The job `cmd <dir> <prog>
//! <args…>` runs an external program in `dir` with its stdout discarded,
//! timing only that program; its peak RSS is `getrusage(RUSAGE_CHILDREN)`,
//! which in this wrapper covers exactly that one program.

use std::io;
use std::process::{Command, Stdio};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use crate::measure::Sample;

/// What a child reported.
#[derive(Clone, Copy, Debug)]
pub struct ChildSample {
    /// Time, allocations (zero for external programs: C allocations are not
    /// seen) and peak RSS.
    pub sample: Sample,
    /// Bytes the job produced (decoded bytes, archive bytes), 0 if unknown.
    pub out_bytes: u64,
    /// True for external programs, whose allocations cannot be counted.
    pub external: bool,
    /// Resident set of the child just before the job ran, KiB (0 for
    /// external programs: their peak is all their own).
    pub base_rss_kib: u64,
}

/// An in-process job: runs on the child's arguments, returns output bytes.
pub type Job = fn(&[String]) -> io::Result<u64>;

/// Where the running job asked its measurement to start: the allocator's
/// counters and the time then.
static MARK: Mutex<Option<(stats_alloc::Stats, Instant)>> = Mutex::new(None);

/// Starts the running job's measurement here: time and allocations before
/// this call (preparing the input) are left out of its sample.
pub fn measure_from_here() {
    let now = (crate::GLOBAL.stats(), Instant::now());
    *MARK.lock().unwrap_or_else(|e| e.into_inner()) = Some(now);
}

/// The mark set by the running job, cleared.
fn take_mark() -> Option<(stats_alloc::Stats, Instant)> {
    MARK.lock().unwrap_or_else(|e| e.into_inner()).take()
}

/// Every in-process job, by name.
fn jobs() -> Vec<(&'static str, Job)> {
    let mut v = Vec::new();
    v.extend_from_slice(crate::sevenz::JOBS);
    v.extend_from_slice(crate::sevenz_write::JOBS);
    v.extend_from_slice(crate::zip::JOBS);
    v.extend_from_slice(crate::JOBS);
    v
}

/// Runs `job` with `args` in a fresh child process and returns its report.
pub fn run(job: &str, args: &[String]) -> io::Result<ChildSample> {
    let exe = std::env::current_exe()?;
    let out = Command::new(exe)
        .arg("run-one")
        .arg(job)
        .args(args)
        .stdin(Stdio::null())
        .stderr(Stdio::piped())
        .output()?;
    let stdout = String::from_utf8_lossy(&out.stdout);
    let line = stdout.lines().find(|l| l.starts_with("SAMPLE "));
    let (true, Some(line)) = (out.status.success(), line) else {
        let err = String::from_utf8_lossy(&out.stderr);
        let first = err
            .lines()
            .last()
            .unwrap_or("no message")
            .trim()
            .to_string();
        return Err(io::Error::other(format!("{job}: {} ({first})", out.status)));
    };
    let f: Vec<u64> = line
        .split_whitespace()
        .skip(1)
        .map(|x| x.parse().unwrap_or(0))
        .collect();
    if f.len() != 7 {
        return Err(io::Error::other(format!("{job}: bad report {line:?}")));
    }
    Ok(ChildSample {
        sample: Sample {
            time: Duration::from_nanos(f[0]),
            alloc_bytes: f[1],
            alloc_count: f[2],
            peak_rss_kib: f[3],
        },
        out_bytes: f[4],
        external: f[5] == 1,
        base_rss_kib: f[6],
    })
}

/// Runs an external program once (in `dir`) through a child wrapper.
pub fn run_cmd(dir: &str, prog: &str, args: &[&str]) -> io::Result<ChildSample> {
    let mut all = vec![dir.to_string(), prog.to_string()];
    all.extend(args.iter().map(|s| s.to_string()));
    run("cmd", &all)
}

fn report(s: &Sample, out_bytes: u64, external: bool, base_rss_kib: u64) {
    println!(
        "SAMPLE {} {} {} {} {} {} {}",
        s.time.as_nanos(),
        s.alloc_bytes,
        s.alloc_count,
        s.peak_rss_kib,
        out_bytes,
        u8::from(external),
        base_rss_kib
    );
}

/// The child side: `run-one <job> <args…>`.
pub fn child_main(args: &[String]) -> io::Result<()> {
    let Some((job, rest)) = args.split_first() else {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            "run-one: no job",
        ));
    };
    if job == "cmd" {
        let [dir, prog, cmd_args @ ..] = rest else {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                "run-one cmd <dir> <program> <args…>",
            ));
        };
        let start = Instant::now();
        let status = Command::new(prog)
            .args(cmd_args)
            .current_dir(dir)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .status()?;
        let time = start.elapsed();
        if !status.success() {
            return Err(io::Error::other(format!("{prog} exited with {status}")));
        }
        let usage = nix::sys::resource::getrusage(nix::sys::resource::UsageWho::RUSAGE_CHILDREN)
            .map_err(io::Error::other)?;
        let s = Sample {
            time,
            alloc_bytes: 0,
            alloc_count: 0,
            // Linux reports ru_maxrss in KiB.
            peak_rss_kib: usage.max_rss().max(0) as u64,
        };
        report(&s, 0, true, 0);
        return Ok(());
    }
    let (name, warm) = match job.strip_suffix(":warm") {
        Some(n) => (n, true),
        None => (job.as_str(), false),
    };
    let Some((_, f)) = jobs().into_iter().find(|(n, _)| *n == name) else {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("run-one: unknown job {job}"),
        ));
    };
    if warm {
        f(rest)?;
    }
    take_mark();
    let base_rss_kib = crate::measure::status_kib("VmRSS:");
    let region = stats_alloc::Region::new(crate::GLOBAL);
    let start = Instant::now();
    let out_bytes = f(rest)?;
    let (stats, time) = match take_mark() {
        Some((at, t)) => (crate::GLOBAL.stats() - at, t.elapsed()),
        None => (region.change(), start.elapsed()),
    };
    let s = Sample {
        time,
        // stats_alloc already adds a reallocation's growth to
        // bytes_allocated; bytes_reallocated is that growth again (net of
        // shrinking), so it is not added.
        alloc_bytes: stats.bytes_allocated as u64,
        alloc_count: (stats.allocations + stats.reallocations) as u64,
        peak_rss_kib: crate::measure::status_kib("VmHWM:"),
    };
    report(&s, out_bytes, false, base_rss_kib);
    Ok(())
}

/// Medians and maxima of a contestant's samples, for a table row.
#[derive(Clone, Copy, Debug)]
pub struct Summary {
    /// Median time.
    pub time: Duration,
    /// Median allocated bytes per run.
    pub alloc_bytes: u64,
    /// Median allocation count per run.
    pub alloc_count: u64,
    /// Largest peak RSS seen, KiB.
    pub peak_rss_kib: u64,
    /// Largest rise of the peak above the resident set before the job, KiB:
    /// what the job itself made resident, without the binary's own pages.
    pub rss_plus_kib: u64,
}

/// Summarises samples (at least one).
pub fn summarise(samples: &[ChildSample]) -> Summary {
    let mid = |mut v: Vec<u64>| {
        v.sort();
        v[v.len() / 2]
    };
    let mut times: Vec<Duration> = samples.iter().map(|s| s.sample.time).collect();
    Summary {
        time: crate::median(&mut times),
        alloc_bytes: mid(samples.iter().map(|s| s.sample.alloc_bytes).collect()),
        alloc_count: mid(samples.iter().map(|s| s.sample.alloc_count).collect()),
        peak_rss_kib: samples
            .iter()
            .map(|s| s.sample.peak_rss_kib)
            .max()
            .unwrap_or(0),
        rss_plus_kib: samples
            .iter()
            .map(|s| s.sample.peak_rss_kib.saturating_sub(s.base_rss_kib))
            .max()
            .unwrap_or(0),
    }
}

/// "12345" or "-" when allocations of an external program are unknown.
pub fn alloc_cell(v: u64, external: bool) -> String {
    if external {
        "-".to_string()
    } else {
        v.to_string()
    }
}

/// One contestant of a child-process table.
#[derive(Clone, Debug)]
pub enum Entrant {
    /// An in-process job of this binary and its arguments.
    Job(&'static str, Vec<String>),
    /// An external program: working directory, program, arguments.
    Cmd(String, String, Vec<String>),
}

impl Entrant {
    /// A short name for logs: the job, or the program and its arguments.
    pub fn label(&self) -> String {
        match self {
            Entrant::Job(job, args) => format!("{job} {}", args.last().map_or("", |a| a)),
            Entrant::Cmd(_, prog, args) => format!("{prog} {}", args.join(" ")),
        }
    }

    /// Runs it once in a child process.
    pub fn run(&self) -> io::Result<ChildSample> {
        match self {
            Entrant::Job(job, args) => run(job, args),
            Entrant::Cmd(dir, prog, args) => {
                let a: Vec<&str> = args.iter().map(String::as_str).collect();
                run_cmd(dir, prog, &a)
            }
        }
    }
}

/// A warm-up run of every entrant (checked by `check`, which may reject a
/// run with a reason), then `rounds` rounds round-robin with a rotating
/// start. `prepare(i)` runs before every run of entrant `i` (untimed).
/// Returns each entrant's samples or why it was dropped.
pub fn interleave(
    entrants: &[Entrant],
    rounds: usize,
    prepare: impl Fn(usize) -> io::Result<()>,
    check: impl Fn(usize, &ChildSample) -> Result<(), String>,
) -> io::Result<Vec<Result<Vec<ChildSample>, String>>> {
    let mut out: Vec<Result<Vec<ChildSample>, String>> = Vec::new();
    for (i, e) in entrants.iter().enumerate() {
        prepare(i)?;
        out.push(match e.run() {
            Ok(s) => check(i, &s).map(|()| Vec::new()),
            Err(err) => Err(err.to_string()),
        });
    }
    for r in 0..rounds {
        for k in 0..entrants.len() {
            let i = (k + r) % entrants.len();
            if out[i].is_err() {
                continue;
            }
            prepare(i)?;
            match entrants[i].run() {
                Ok(s) => {
                    // Every sample on stderr, so a median can be judged
                    // against its spread.
                    eprintln!(
                        "round {r} {}: {:.1} ms",
                        entrants[i].label(),
                        s.sample.time.as_secs_f64() * 1e3
                    );
                    if let Ok(v) = &mut out[i] {
                        v.push(s);
                    }
                }
                Err(err) => out[i] = Err(err.to_string()),
            }
        }
    }
    Ok(out)
}
