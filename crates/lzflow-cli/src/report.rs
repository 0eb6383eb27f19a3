//! Error messages in xz's shape: `lzflow: FILE: message`.

use std::error::Error;
use std::io;

/// Prints `lzflow: NAME: message` to stderr.
pub fn file_error(name: &str, err: &io::Error) {
    eprintln!("lzflow: {name}: {}", describe(err));
}

/// Prints a warning about one file, `lzflow: NAME: message`.
pub fn file_warning(name: &str, message: &str) {
    eprintln!("lzflow: {name}: {message}");
}

/// Prints `lzflow: message` to stderr (errors not tied to one file).
pub fn error(message: &str) {
    eprintln!("lzflow: {message}");
}

/// The text a user sees for `err`: the typed error's message with its
/// causes, plus a hint on what to do when there is an obvious one.
pub fn describe(err: &io::Error) -> String {
    let mut text = match err.get_ref() {
        Some(inner) => chain(inner),
        None => plain(err),
    };
    if err.kind() == io::ErrorKind::OutOfMemory {
        text.push_str(" (raise it with --memlimit, e.g. --memlimit 1GiB, or --memlimit max)");
    }
    text
}

/// A message and every source below it, skipping sources whose text the
/// message already contains (many layers repeat their cause).
fn chain(err: &(dyn Error + Send + Sync + 'static)) -> String {
    let mut text = err.to_string();
    let mut source = err.source();
    while let Some(cause) = source {
        let cause_text = cause.to_string();
        if !text.contains(&cause_text) {
            text.push_str(": ");
            text.push_str(&cause_text);
        }
        source = cause.source();
    }
    text
}

/// io::Error's Display adds "(os error N)"; keep the readable part and
/// describe bare kinds the way a user expects.
fn plain(err: &io::Error) -> String {
    match err.kind() {
        io::ErrorKind::UnexpectedEof => "unexpected end of input: the file is truncated".into(),
        _ if err.raw_os_error().is_some() => {
            let s = err.to_string();
            match s.find(" (os error") {
                Some(i) => s[..i].to_string(),
                None => s,
            }
        }
        _ => err.to_string(),
    }
}

/// Writes a report line to standard output (see `outln!`).
pub fn stdout(args: std::fmt::Arguments<'_>) {
    use std::io::Write;
    if let Err(e) = std::io::stdout().lock().write_fmt(args) {
        if e.kind() == std::io::ErrorKind::BrokenPipe {
            std::process::exit(0);
        }
        error(&format!("standard output: {e}"));
        std::process::exit(1);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fmt;

    #[derive(Debug)]
    struct Outer(io::Error);
    impl fmt::Display for Outer {
        fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("block 2 is corrupt")
        }
    }
    impl Error for Outer {
        fn source(&self) -> Option<&(dyn Error + 'static)> {
            Some(&self.0)
        }
    }

    #[test]
    fn includes_causes_and_hints() {
        let inner = io::Error::other("distance beyond dictionary");
        let e = io::Error::new(io::ErrorKind::InvalidData, Outer(inner));
        assert_eq!(
            describe(&e),
            "block 2 is corrupt: distance beyond dictionary"
        );
        let e = io::Error::new(io::ErrorKind::OutOfMemory, "memory limit exceeded");
        assert!(describe(&e).starts_with("memory limit exceeded (raise it with --memlimit"));
        let e = io::Error::from_raw_os_error(2);
        assert_eq!(describe(&e), "No such file or directory");
        let e = io::Error::from(io::ErrorKind::UnexpectedEof);
        assert!(describe(&e).contains("truncated"));
    }
}
