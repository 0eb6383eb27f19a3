//! Entry names as the writer takes them: `/`-separated, trailing slashes
//! dropped, never empty and never holding a NUL (the separator between
//! names in the header's `kName` property).

use crate::SevenZError;

/// Checks `name` as the writer's `add_*` and `begin_file` calls do (not
/// empty, no NUL), so a caller that queues calls for later can refuse a
/// bad name at once.
pub fn check_entry_name(name: &str) -> Result<(), SevenZError> {
    clean_name(name).map(drop)
}

/// Checks a name: non-empty and without NUL (the name separator in the
/// header). Gives it back without trailing slashes.
pub(crate) fn clean_name(name: &str) -> Result<&str, SevenZError> {
    let clean = name.trim_end_matches('/');
    if clean.is_empty() || clean.contains('\0') {
        return Err(SevenZError::InvalidEntryName(name.to_string()));
    }
    Ok(clean)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_checked() {
        assert_eq!(clean_name("dir/").unwrap(), "dir");
        assert_eq!(clean_name("d/e//").unwrap(), "d/e");
        assert!(matches!(
            clean_name("/"),
            Err(SevenZError::InvalidEntryName(n)) if n == "/"
        ));
        assert!(matches!(
            clean_name("a\0b"),
            Err(SevenZError::InvalidEntryName(_))
        ));
    }
}
