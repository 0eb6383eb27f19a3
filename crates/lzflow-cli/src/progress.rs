//! A progress bar over the input, shown only where a person is watching;
//! and `xz -v`'s progress line and summary for `c`, `d` and xz's command
//! line.

use std::io::{self, IsTerminal, Read, Write};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Instant;

use indicatif::{ProgressBar, ProgressStyle};

/// Inputs smaller than this finish before a bar would be worth drawing.
const MIN_SIZE_FOR_BAR: u64 = 32 << 20;

/// Counts input bytes into a progress bar (or into nothing).
pub struct Progress<R> {
    inner: R,
    bar: Option<ProgressBar>,
}

impl<R: Read> Progress<R> {
    /// Wraps `inner`; draws a [`bar`] when the input size is known.
    pub fn new(inner: R, size: Option<u64>, label: &str, quiet: bool) -> Self {
        let bar = size.and_then(|len| bar(len, label, quiet));
        Progress { inner, bar }
    }
}

/// A bar over `len` bytes, or none: only when stderr is a terminal, `len`
/// is large and `quiet` is off, so pipes, scripts and tests never see
/// control sequences.
pub fn bar(len: u64, label: &str, quiet: bool) -> Option<ProgressBar> {
    if quiet || len < MIN_SIZE_FOR_BAR || !io::stderr().is_terminal() {
        return None;
    }
    Some(styled(len, label))
}

/// A bar over `len` bytes labelled `label`, drawn wherever stderr goes.
pub fn styled(len: u64, label: &str) -> ProgressBar {
    let bar = ProgressBar::new(len);
    let style = ProgressStyle::with_template(
        "{msg} [{bar:30}] {bytes}/{total_bytes} {bytes_per_sec} eta {eta}",
    )
    .unwrap_or_else(|_| ProgressStyle::default_bar())
    .progress_chars("=> ");
    bar.set_style(style);
    bar.set_message(label.to_string());
    bar
}

impl<R: Read> Read for Progress<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        if let Some(bar) = &self.bar {
            bar.inc(n as u64);
        }
        Ok(n)
    }
}

impl<R> Drop for Progress<R> {
    fn drop(&mut self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }
}

/// `xz -v`'s report on one file: on a terminal a line redrawn every
/// second (percentage, sizes and ratio, rate, elapsed time, time left),
/// and at the end, wherever stderr goes, the summary line
/// `NAME: COMPRESSED / UNCOMPRESSED = RATIO, RATE, TIME`.
#[derive(Clone)]
pub struct Meter {
    state: Arc<MeterState>,
}

struct MeterState {
    name: String,
    /// "NAME (i/n)", printed above the redrawn line.
    heading: String,
    /// The input's size, when known (for the percentage and time left).
    expected: Option<u64>,
    /// Input is uncompressed (`c`) rather than compressed (`d`).
    compressing: bool,
    start: Instant,
    in_pos: AtomicU64,
    out_pos: AtomicU64,
    tty: bool,
    /// Milliseconds after `start` at which the line is next drawn.
    next_draw: AtomicU64,
    drawn: AtomicBool,
}

impl Meter {
    /// A meter over the `index`-th of `count` files; `expected` is its
    /// input's size when known.
    pub fn new(
        name: &str,
        index: usize,
        count: usize,
        expected: Option<u64>,
        compressing: bool,
    ) -> Self {
        Meter {
            state: Arc::new(MeterState {
                name: name.to_string(),
                heading: format!("{name} ({index}/{count})"),
                expected,
                compressing,
                start: Instant::now(),
                in_pos: AtomicU64::new(0),
                out_pos: AtomicU64::new(0),
                tty: io::stderr().is_terminal(),
                // xz waits a second before its first line.
                next_draw: AtomicU64::new(1000),
                drawn: AtomicBool::new(false),
            }),
        }
    }

    /// Counts `inner`'s bytes as the input.
    pub fn reader<R: Read>(&self, inner: R) -> Metered<R> {
        Metered {
            inner,
            meter: self.clone(),
            input: true,
        }
    }

    /// Counts the bytes written to `inner` as the output.
    pub fn writer<W: Write>(&self, inner: W) -> Metered<W> {
        Metered {
            inner,
            meter: self.clone(),
            input: false,
        }
    }

    fn add(&self, n: usize, input: bool) {
        let s = &self.state;
        let pos = if input { &s.in_pos } else { &s.out_pos };
        pos.fetch_add(n as u64, Ordering::Relaxed);
        if !s.tty {
            return;
        }
        let elapsed = s.start.elapsed().as_millis() as u64;
        if elapsed >= s.next_draw.load(Ordering::Relaxed) {
            s.next_draw.store(elapsed + 1000, Ordering::Relaxed);
            if !s.drawn.swap(true, Ordering::Relaxed) {
                eprintln!("{}", s.heading);
            }
            let line = self.line(elapsed, false);
            eprint!("\r{line}\r");
        }
    }

    /// (compressed, uncompressed) bytes so far.
    fn sizes(&self) -> (u64, u64) {
        let s = &self.state;
        let (i, o) = (
            s.in_pos.load(Ordering::Relaxed),
            s.out_pos.load(Ordering::Relaxed),
        );
        if s.compressing {
            (o, i)
        } else {
            (i, o)
        }
    }

    /// The redrawn line: ` PCT SIZES   RATE TIME   LEFT`, in xz's columns.
    fn line(&self, elapsed: u64, finished: bool) -> String {
        let s = &self.state;
        let in_pos = s.in_pos.load(Ordering::Relaxed);
        let (compressed, uncompressed) = self.sizes();
        let percent = if finished {
            "100 %".to_string()
        } else {
            percentage(in_pos, s.expected)
        };
        let left = if finished {
            String::new()
        } else {
            remaining(in_pos, s.expected, elapsed)
        };
        format!(
            " {percent:>6} {:>35}   {:>9} {:>10}   {left:>10}",
            sizes(compressed, uncompressed, finished),
            speed(uncompressed, elapsed),
            time(elapsed),
        )
    }

    /// Ends the report: the last line on a terminal, the summary line
    /// elsewhere (as xz: `NAME: SIZES, RATE, TIME`).
    pub fn finish(&self) {
        let s = &self.state;
        let elapsed = s.start.elapsed().as_millis() as u64;
        if s.tty {
            if !s.drawn.swap(true, Ordering::Relaxed) {
                eprintln!("{}", s.heading);
            }
            eprintln!("\r{}", self.line(elapsed, true));
            return;
        }
        let (compressed, uncompressed) = self.sizes();
        eprintln!("{}", summary(&s.name, compressed, uncompressed, elapsed));
    }
}

/// xz's summary line for a file that is not on a terminal.
pub fn summary(name: &str, compressed: u64, uncompressed: u64, elapsed_ms: u64) -> String {
    let mut line = format!("{name}: {}", sizes(compressed, uncompressed, true));
    for field in [speed(uncompressed, elapsed_ms), time(elapsed_ms)] {
        if !field.is_empty() {
            line.push_str(", ");
            line.push_str(&field);
        }
    }
    line
}

/// A reader or writer whose bytes a [`Meter`] counts.
pub struct Metered<T> {
    inner: T,
    meter: Meter,
    input: bool,
}

impl<T> Metered<T> {
    /// The reader or writer inside.
    pub fn into_inner(self) -> T {
        self.inner
    }
}

impl<R: Read> Read for Metered<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.meter.add(n, self.input);
        Ok(n)
    }
}

impl<W: Write> Write for Metered<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let n = self.inner.write(buf)?;
        self.meter.add(n, self.input);
        Ok(n)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
}

/// `12.3 %`, scaled to 99.9 so that 100 % is shown only when done; `--- %`
/// when the input's size is unknown or was passed.
fn percentage(in_pos: u64, expected: Option<u64>) -> String {
    match expected {
        Some(size) if size > 0 && in_pos <= size => {
            format!("{:.1} %", in_pos as f64 / size as f64 * 99.9)
        }
        _ => "--- %".to_string(),
    }
}

/// A size as xz shows it: bytes below 10000 when `bytes_ok` (the final
/// line), else one decimal in KiB, MiB (at least, while running), GiB or
/// TiB.
fn nice(value: u64, bytes_ok: bool) -> String {
    const UNITS: [&str; 5] = ["B", "KiB", "MiB", "GiB", "TiB"];
    if bytes_ok && value < 10000 {
        return format!("{value} B");
    }
    let min_unit = if bytes_ok { 1 } else { 2 };
    let mut d = value as f64;
    let mut unit = 0;
    while unit < min_unit || (d > 9999.9 && unit < UNITS.len() - 1) {
        d /= 1024.0;
        unit += 1;
    }
    format!("{d:.1} {}", UNITS[unit])
}

/// `COMPRESSED / UNCOMPRESSED = RATIO` (`> 9.999` when the ratio is
/// beyond that or unknown).
fn sizes(compressed: u64, uncompressed: u64, finished: bool) -> String {
    let ratio = if uncompressed > 0 {
        compressed as f64 / uncompressed as f64
    } else {
        16.0
    };
    let ratio = if ratio > 9.999 {
        "> 9.999".to_string()
    } else {
        format!("= {ratio:.3}")
    };
    format!(
        "{} / {} {ratio}",
        nice(compressed, finished),
        nice(uncompressed, finished)
    )
}

/// The uncompressed bytes per second, in KiB/s, MiB/s or GiB/s; nothing
/// in the first three seconds, whose figures jump about.
fn speed(uncompressed: u64, elapsed_ms: u64) -> String {
    if elapsed_ms < 3000 {
        return String::new();
    }
    const UNITS: [&str; 3] = ["KiB/s", "MiB/s", "GiB/s"];
    let mut speed = uncompressed as f64 / (elapsed_ms as f64 * (1024.0 / 1000.0));
    let mut unit = 0;
    while speed > 999.0 {
        speed /= 1024.0;
        unit += 1;
        if unit == UNITS.len() {
            return String::new();
        }
    }
    let decimals = if speed > 9.9 { 0 } else { 1 };
    format!("{speed:.decimals$} {}", UNITS[unit])
}

/// Elapsed time as `M:SS` or `H:MM:SS`; nothing below a second.
fn time(elapsed_ms: u64) -> String {
    let seconds = elapsed_ms / 1000;
    if seconds == 0 || seconds > 9999 * 3600 + 59 * 60 + 59 {
        return String::new();
    }
    let (minutes, seconds) = (seconds / 60, seconds % 60);
    if minutes >= 60 {
        format!("{}:{:02}:{seconds:02}", minutes / 60, minutes % 60)
    } else {
        format!("{minutes}:{seconds:02}")
    }
}

/// The time left, rounded as xz rounds it; nothing until it means
/// something: the input's size is known, 512 KiB of it and 8 seconds
/// have passed.
fn remaining(in_pos: u64, expected: Option<u64>, elapsed_ms: u64) -> String {
    let Some(size) = expected else {
        return String::new();
    };
    if in_pos > size || in_pos < (1 << 19) || elapsed_ms < 8000 {
        return String::new();
    }
    let left = ((size - in_pos) as f64 * (elapsed_ms as f64 / 1000.0) / in_pos as f64) as u64;
    let left = left.max(1);
    const HOUR: u64 = 3600;
    const DAY: u64 = 24 * HOUR;
    match left {
        0..=10 => format!("{left} s"),
        11..=50 => format!("{} s", left.div_ceil(5) * 5),
        51..=590 => {
            let l = left.div_ceil(10) * 10;
            format!("{} min {} s", l / 60, l % 60)
        }
        _ if left <= 59 * 60 => format!("{} min", left.div_ceil(60)),
        _ if left <= 9 * HOUR + 50 * 60 => {
            let l = left.div_ceil(600) * 10;
            format!("{} h {} min", l / 60, l % 60)
        }
        _ if left <= 23 * HOUR => format!("{} h", left.div_ceil(HOUR)),
        _ if left <= 9 * DAY + 23 * HOUR => {
            let h = left.div_ceil(HOUR);
            format!("{} d {} h", h / 24, h % 24)
        }
        _ if left <= 999 * DAY => format!("{} d", left.div_ceil(DAY)),
        _ => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_as_xz_shows_them() {
        assert_eq!(summary("f", 60, 3, 10), "f: 60 B / 3 B > 9.999");
        assert_eq!(
            summary("big", 3_144_704, 5_688_934, 3_400),
            "big: 3071.0 KiB / 5555.6 KiB = 0.553, 1.6 MiB/s, 0:03"
        );
        assert_eq!(summary("e", 32, 0, 0), "e: 32 B / 0 B > 9.999");
        assert_eq!(nice(10_000, true), "9.8 KiB");
        assert_eq!(nice(1 << 20, false), "1.0 MiB");
        assert_eq!(nice(5, false), "0.0 MiB");
        assert_eq!(percentage(50, Some(100)), "50.0 %");
        assert_eq!(percentage(100, Some(100)), "99.9 %");
        assert_eq!(percentage(1, None), "--- %");
        assert_eq!(speed(10 << 20, 2_999), "");
        assert_eq!(speed(30 << 10, 3_000), "10 KiB/s");
        assert_eq!(speed(29 << 10, 3_000), "9.7 KiB/s");
        assert_eq!(speed(300 << 20, 3_000), "100 MiB/s");
        assert_eq!(time(999), "");
        assert_eq!(time(61_000), "1:01");
        assert_eq!(time(3_725_000), "1:02:05");
    }

    #[test]
    fn time_left_waits_until_it_means_something() {
        let size = Some(100 << 20);
        // A fast start: no estimate before 8 s, nor before 512 KiB.
        assert_eq!(remaining(1 << 10, size, 1_000), "");
        assert_eq!(remaining(50 << 20, size, 7_999), "");
        assert_eq!(remaining((1 << 19) - 1, size, 60_000), "");
        assert_eq!(remaining(10 << 20, None, 60_000), "");
        // Half done in 8 s: 8 s left.
        assert_eq!(remaining(50 << 20, size, 8_000), "8 s");
        assert_eq!(remaining(25 << 20, size, 8_000), "25 s");
        assert_eq!(remaining(10 << 20, size, 10_000), "1 min 30 s");
        assert_eq!(remaining(5 << 20, size, 60_000), "19 min");
        assert_eq!(remaining(1 << 20, size, 60_000), "1 h 40 min");
        assert_eq!(remaining(1 << 20, size, 600_000), "17 h");
    }
}
