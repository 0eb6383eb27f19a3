//! Which archive entries `x`, `e`, `l` and `t` work on: 7-Zip's wildcards
//! (`lzflow x a.7z '*.txt' -x!'docs/*'`), read as 7-Zip reads them with
//! `-r`.
//!
//! * `*` is any run of characters and `?` one character, never a `/`;
//!   nothing else is special (`[`, `{` and `\` are themselves, as in
//!   7-Zip, and the unnamed entry's `[no name]` matches itself).
//! * A pattern without `/` is tried on every part of an entry's path, so
//!   `*.txt` finds `a.txt` and `docs/b.txt`, and `docs` everything in any
//!   directory named `docs`.
//! * A pattern with `/` is tried on the whole path from the archive's root
//!   and on each directory on the way, so `docs/*` selects everything
//!   below `docs`.
//! * An entry is selected when an include matches (or none was given) and
//!   no exclude does: excludes win.

use std::cell::Cell;

use globset::{GlobBuilder, GlobMatcher};

/// One wildcard with what it is tried on.
#[derive(Debug)]
struct Pattern {
    text: String,
    glob: GlobMatcher,
    /// No `/`: matched against each name in the path.
    per_name: bool,
    /// Whether it selected anything yet (for the "no match" report).
    used: Cell<bool>,
}

impl Pattern {
    fn new(text: &str) -> Result<Self, String> {
        let trimmed = text.trim_start_matches("./").trim_end_matches('/');
        if trimmed.is_empty() {
            return Err(format!("'{text}': an empty wildcard matches nothing"));
        }
        let glob = GlobBuilder::new(&to_glob(trimmed))
            .literal_separator(true)
            .backslash_escape(true)
            .build()
            .map_err(|e| format!("'{text}': {e}"))?
            .compile_matcher();
        Ok(Pattern {
            text: text.to_string(),
            glob,
            per_name: !trimmed.contains('/'),
            used: Cell::new(false),
        })
    }

    /// Whether the pattern matches `path` or a directory above it.
    fn matches(&self, path: &str) -> bool {
        let path = path.trim_end_matches('/');
        let hit = if self.per_name {
            path.split('/').any(|name| self.glob.is_match(name))
        } else {
            // The path itself and each of its directories.
            path.match_indices('/')
                .map(|(i, _)| &path[..i])
                .chain(std::iter::once(path))
                .any(|prefix| self.glob.is_match(prefix))
        };
        if hit {
            self.used.set(true);
        }
        hit
    }
}

/// 7-Zip's wildcard as a glob: only `*` and `?` keep a meaning, and a run
/// of `*` is one `*` (globset would read `**` as "any directories").
fn to_glob(pattern: &str) -> String {
    let mut out = String::with_capacity(pattern.len() + 8);
    let mut literal = String::new();
    let mut last_star = false;
    for c in pattern.chars() {
        if c == '*' || c == '?' {
            out.push_str(&globset::escape(&std::mem::take(&mut literal)));
            if !(c == '*' && last_star) {
                out.push(c);
            }
            last_star = c == '*';
        } else {
            literal.push(c);
            last_star = false;
        }
    }
    out.push_str(&globset::escape(&literal));
    out
}

/// The include and exclude wildcards of one command.
#[derive(Debug, Default)]
pub struct Selection {
    include: Vec<Pattern>,
    exclude: Vec<Pattern>,
}

impl Selection {
    /// Compiles the wildcards; an error names the bad one.
    pub fn new(include: &[String], exclude: &[String]) -> Result<Self, String> {
        let compile = |list: &[String]| {
            list.iter()
                .map(|p| Pattern::new(p))
                .collect::<Result<Vec<_>, _>>()
        };
        Ok(Selection {
            include: compile(include)?,
            exclude: compile(exclude)?,
        })
    }

    /// True when no wildcard was given: every entry is selected.
    pub fn is_everything(&self) -> bool {
        self.include.is_empty() && self.exclude.is_empty()
    }

    /// Whether the entry stored as `path` is selected. Every include is
    /// tried, so that [`unused`](Self::unused) is exact.
    pub fn selects(&self, path: &str) -> bool {
        let included = self.include.is_empty()
            || self
                .include
                .iter()
                .fold(false, |any, p| p.matches(path) | any);
        included && !self.exclude.iter().any(|p| p.matches(path))
    }

    /// The include wildcards that matched no entry so far.
    pub fn unused(&self) -> Vec<&str> {
        self.include
            .iter()
            .filter(|p| !p.used.get())
            .map(|p| p.text.as_str())
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sel(include: &[&str], exclude: &[&str]) -> Selection {
        let own = |l: &[&str]| l.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        Selection::new(&own(include), &own(exclude)).unwrap()
    }

    const PATHS: [&str; 8] = [
        "b",
        "docs",
        "docs/sub",
        "a.txt",
        "b/a.txt",
        "b/e.bin",
        "docs/c.md",
        "docs/sub/d.txt",
    ];

    fn picked(s: &Selection) -> Vec<&'static str> {
        PATHS.iter().copied().filter(|p| s.selects(p)).collect()
    }

    #[test]
    fn wildcards_select_as_7zip_with_r() {
        assert_eq!(
            picked(&sel(&["*.txt"], &[])),
            ["a.txt", "b/a.txt", "docs/sub/d.txt"]
        );
        assert_eq!(
            picked(&sel(&["docs/*"], &[])),
            ["docs/sub", "docs/c.md", "docs/sub/d.txt"]
        );
        assert_eq!(picked(&sel(&["sub"], &[])), ["docs/sub", "docs/sub/d.txt"]);
        assert_eq!(picked(&sel(&["*/a.txt"], &[])), ["b/a.txt"]);
        assert_eq!(picked(&sel(&["?.md"], &[])), ["docs/c.md"]);
        assert_eq!(
            picked(&sel(&["*.txt"], &["b"])),
            ["a.txt", "docs/sub/d.txt"]
        );
        assert_eq!(
            picked(&sel(&[], &["*.txt", "docs/sub"])),
            ["b", "docs", "b/e.bin", "docs/c.md"]
        );
        assert_eq!(picked(&sel(&[], &[])).len(), PATHS.len());
    }

    #[test]
    fn only_star_and_question_mark_are_special() {
        let s = sel(&["[no name]", "x{a,b}", "**.bin"], &[]);
        assert!(s.selects("[no name]"));
        assert!(!s.selects("n"));
        assert!(s.selects("x{a,b}"));
        assert!(!s.selects("xa"));
        assert!(s.selects("b/e.bin"));
        assert!(!sel(&["a*"], &[]).selects("b/x/y"), "* never crosses /");
    }

    #[test]
    fn unused_includes_are_reported() {
        let s = sel(&["*.txt", "nothing*", "docs"], &[]);
        assert_eq!(picked(&s).len(), 6);
        assert_eq!(s.unused(), ["nothing*"]);
        assert!(Selection::new(&["".into()], &[]).is_err());
    }
}
