//! One timed run: wall time, bytes and count allocated, peak RSS.

use std::io;
use std::time::{Duration, Instant};

/// What one run cost.
#[derive(Clone, Copy, Debug)]
pub struct Sample {
    /// Wall-clock time.
    pub time: Duration,
    /// Bytes allocated during the run (not net: every allocation counts).
    pub alloc_bytes: u64,
    /// Number of allocations during the run.
    pub alloc_count: u64,
    /// Peak resident set during the run above the resident set before it
    /// (the workloads themselves), in KiB (Linux; 0 elsewhere).
    pub peak_rss_kib: u64,
}

/// Resets the kernel's peak-RSS mark so VmHWM measures only what follows.
fn reset_peak_rss() {
    let _ = std::fs::write("/proc/self/clear_refs", "5");
}

pub(crate) fn status_kib(field: &str) -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with(field))
                .and_then(|l| l.split_whitespace().nth(1))
                .and_then(|n| n.parse().ok())
        })
        .unwrap_or(0)
}

/// Runs `f` once and measures it.
pub fn measure(
    alloc: &'static stats_alloc::StatsAlloc<std::alloc::System>,
    f: impl FnOnce() -> io::Result<()>,
) -> io::Result<Sample> {
    reset_peak_rss();
    let rss_before = status_kib("VmRSS:");
    let region = stats_alloc::Region::new(alloc);
    let start = Instant::now();
    f()?;
    let time = start.elapsed();
    let stats = region.change();
    Ok(Sample {
        time,
        // Includes each reallocation's growth once (stats_alloc counts it
        // in bytes_allocated; bytes_reallocated would count it twice).
        alloc_bytes: stats.bytes_allocated as u64,
        alloc_count: (stats.allocations + stats.reallocations) as u64,
        peak_rss_kib: status_kib("VmHWM:").saturating_sub(rss_before),
    })
}
