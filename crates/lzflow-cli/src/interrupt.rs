//! Ending on a signal without litter: Ctrl+C (SIGINT), SIGTERM or SIGHUP
//! removes the output files not yet complete, then ends the process by
//! the same signal (as xz does), so a shell sees why it ended.
//!
//! Destructors do not run when a signal ends a process, so the outputs
//! that remove themselves on error ([`crate::output::PendingFile`], the
//! archive of `a`) are also listed here while they are written, and an
//! extraction's temporary files are lzflow-core's
//! ([`lzflow::extract::remove_partial_files`]).

use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard, PoisonError};

/// Outputs being written, removed if a signal ends the process.
static OUTPUTS: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());

fn outputs() -> MutexGuard<'static, Vec<PathBuf>> {
    OUTPUTS.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Starts the thread that waits for the signals. Without it (if the
/// signals cannot be caught) the process ends as it would anyway.
#[cfg(unix)]
pub fn install() {
    use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
    let Ok(mut signals) = signal_hook::iterator::Signals::new([SIGINT, SIGTERM, SIGHUP]) else {
        return;
    };
    std::thread::spawn(move || {
        if let Some(signal) = signals.forever().next() {
            // Held to the end: no output is created after the clean-up.
            let mut list = outputs();
            for path in list.drain(..) {
                let _ = std::fs::remove_file(path);
            }
            lzflow::extract::remove_partial_files();
            let _ = signal_hook::low_level::emulate_default_handler(signal);
            // A signal whose default is not to end the process (none of
            // these): end it the way a shell reports for it.
            std::process::exit(128 + signal);
        }
    });
}

/// Elsewhere a console interrupt ends the process as before.
#[cfg(not(unix))]
pub fn install() {}

/// Creates an output with `create` and lists `path` until the returned
/// guard is dropped (the output is then complete, or removed by its
/// owner). Creating under the lock means a signal either finds the file
/// listed or stops it being made.
pub fn create_listed<T, E>(
    path: &Path,
    create: impl FnOnce() -> Result<T, E>,
) -> Result<(T, Listed), E> {
    let mut list = outputs();
    let made = create()?;
    list.push(path.to_path_buf());
    Ok((
        made,
        Listed {
            path: path.to_path_buf(),
        },
    ))
}

/// An output listed for removal on a signal; dropping it takes it off.
#[derive(Debug)]
pub struct Listed {
    path: PathBuf,
}

impl Listed {
    /// The output's path.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

impl Drop for Listed {
    fn drop(&mut self) {
        let mut list = outputs();
        if let Some(i) = list.iter().position(|p| *p == self.path) {
            list.swap_remove(i);
        }
    }
}
