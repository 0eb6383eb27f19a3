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

/// A file passed over as xz passes it over (a directory, a name that
/// already has the suffix): a warning, exit status 2, not an error.
#[derive(Debug)]
pub struct Skipped(pub String);

impl std::fmt::Display for Skipped {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl Error for Skipped {}

/// An error saying the file was skipped (see [`Skipped`]).
pub fn skipped(message: impl Into<String>) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidInput, Skipped(message.into()))
}

/// Whether `err` is a [`Skipped`] file.
pub fn is_skipped(err: &io::Error) -> bool {
    err.get_ref().is_some_and(|e| e.is::<Skipped>())
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
    if let Some(hint) = limit_hint(err) {
        text.push_str(hint);
    }
    if is_unsafe_path(err) {
        text.push_str(" (--skip-unsafe extracts the other entries)");
    }
    text
}

/// Whether an entry's path that would leave the target stopped `err`'s
/// extraction.
fn is_unsafe_path(err: &io::Error) -> bool {
    chain_has(err, |e| {
        matches!(
            e.downcast_ref(),
            Some(lzflow::extract::ExtractError::UnsafePath { .. })
        )
    })
}

/// Whether `is` holds for an error of `err`'s chain.
pub fn chain_has(err: &io::Error, mut is: impl FnMut(&(dyn Error + 'static)) -> bool) -> bool {
    in_chain(err, |e| is(e).then_some(())).is_some()
}

/// The first answer `find` gives for an error of `err`'s chain: its typed
/// error, then each cause below it.
pub fn in_chain<'a, T>(
    err: &'a io::Error,
    mut find: impl FnMut(&'a (dyn Error + 'static)) -> Option<T>,
) -> Option<T> {
    let mut source: Option<&(dyn Error + 'static)> = err.get_ref().map(|e| e as _);
    while let Some(e) = source {
        if let Some(found) = find(e) {
            return Some(found);
        }
        source = e.source();
    }
    None
}

const MEMLIMIT_HINT: &str = " (raise it with --memlimit, e.g. --memlimit 1GiB, or --memlimit max)";

/// The option that raises the limit `err` hit: the one named by the typed
/// limit in its chain, else `--memlimit` (the memory limit is the one
/// every command has).
fn limit_hint(err: &io::Error) -> Option<&'static str> {
    if err.kind() != io::ErrorKind::OutOfMemory {
        return None;
    }
    match in_chain(err, limit_in) {
        // No typed limit: memory that could not be had.
        None | Some(lzflow::LimitExceeded::Memory { .. }) => Some(MEMLIMIT_HINT),
        Some(lzflow::LimitExceeded::HeaderSize { .. }) => {
            Some(" (raise it with --max-header-size, e.g. --max-header-size 1GiB)")
        }
        Some(lzflow::LimitExceeded::Entries { .. }) => {
            Some(" (raise it with --max-entries, e.g. --max-entries 10000000)")
        }
        Some(lzflow::LimitExceeded::Ratio { .. }) => {
            Some(" (raise it with --max-ratio, e.g. --max-ratio 100000, or 0 for none)")
        }
        Some(_) => None,
    }
}

/// Whether `err` is a memory limit that was hit (or memory that could
/// not be had): 7-Zip's exit code 8.
pub fn is_memory_limit(err: &io::Error) -> bool {
    limit_hint(err) == Some(MEMLIMIT_HINT)
}

/// The limit `e` reports: its own (a transparent `Limit` variant of a
/// layer's error), or `e` itself.
fn limit_in<'a>(e: &'a (dyn Error + 'static)) -> Option<&'a lzflow::LimitExceeded> {
    if let Some(l) = e.downcast_ref::<lzflow::LimitExceeded>() {
        return Some(l);
    }
    match (
        e.downcast_ref::<lzflow::zip::ZipError>(),
        e.downcast_ref::<lzflow::XzError>(),
        e.downcast_ref::<lzflow::LzmaError>(),
        e.downcast_ref::<lzflow::sevenz::SevenZError>(),
    ) {
        (Some(lzflow::zip::ZipError::Limit(l)), ..)
        | (_, Some(lzflow::XzError::Limit(l)), ..)
        | (_, _, Some(lzflow::LzmaError::Limit(l)), _)
        | (.., Some(lzflow::sevenz::SevenZError::Limit(l))) => Some(l),
        _ => None,
    }
}

/// A message and every source below it, skipping sources whose text the
/// message already contains.
fn chain(err: &(dyn Error + Send + Sync + 'static)) -> String {
    lzflow_core::error_chain_text(err)
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

    fn into_io(e: lzflow::LimitExceeded) -> io::Error {
        io::Error::new(io::ErrorKind::OutOfMemory, e)
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
        let header = lzflow::LimitExceeded::HeaderSize {
            needed: 100 << 20,
            limit: 64 << 20,
        };
        assert_eq!(
            describe(&into_io(header)),
            "header size limit exceeded: the archive's header is 100 MiB (104857600 bytes), \
             64 MiB (67108864 bytes) allowed (raise it with --max-header-size, e.g. --max-header-size 1GiB)"
        );
        let entries = lzflow::LimitExceeded::Entries { count: 9, limit: 8 };
        assert!(describe(&into_io(entries)).ends_with(
            "9 entries, 8 allowed (raise it with --max-entries, e.g. --max-entries 10000000)"
        ));
        let output = lzflow::LimitExceeded::Output { limit: 8 };
        assert!(!describe(&into_io(output)).contains("raise"));
        let e = io::Error::from_raw_os_error(2);
        assert_eq!(describe(&e), "No such file or directory");
        let e = io::Error::from(io::ErrorKind::UnexpectedEof);
        assert!(describe(&e).contains("truncated"));
    }
}
