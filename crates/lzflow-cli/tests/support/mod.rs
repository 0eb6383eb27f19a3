//! What several CLI test binaries share.

use std::process::{Command, Stdio};

/// Runs `cmd` with its stdout a pipe that nobody reads (closed at once)
/// and asserts that it ends quietly: status 0, nothing on stderr. The
/// command must write far more than a pipe buffer holds.
pub fn assert_quiet_into_a_closed_pipe(mut cmd: Command) {
    let mut child = cmd
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    let out = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{err}");
    assert!(err.is_empty(), "{err}");
}
