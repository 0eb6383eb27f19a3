//! Asking for an archive's password on the terminal, as 7-Zip and unzip
//! do, when the archive needs one and `-p` did not give it. Typed there,
//! the password is not echoed, and other users cannot read it in the
//! process list as they can read `-p PASSWORD`.

use std::io::{self, IsTerminal};

/// What the password would be used for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Use {
    /// Decoding entries (`x`, `e`, `t`): needed for encrypted data or
    /// an encrypted 7z header.
    Data,
    /// Listing (`l`): needed only for an encrypted 7z header.
    Listing,
}

/// The password for `archive`: `given`, or, when the archive needs one
/// for `purpose` and standard input is a terminal, one read from the
/// terminal; otherwise none (commands then say to pass `-p`). An archive
/// on standard input is never asked about: that input is not a terminal.
pub fn for_archive(archive: &str, given: Option<&str>, purpose: Use) -> io::Result<Option<String>> {
    if let Some(password) = given {
        return Ok(Some(password.to_string()));
    }
    if archive == "-" || !io::stdin().is_terminal() || !needs_password(archive, purpose) {
        return Ok(None);
    }
    rpassword::prompt_password(format!("Enter password for {archive}: ")).map(Some)
}

/// Whether `archive` (a 7z or zip file) needs a password for `purpose`.
/// An archive that cannot be opened needs none here: the command that
/// opens it next reports why.
fn needs_password(archive: &str, purpose: Use) -> bool {
    if super::cmd::zip::is_zip(archive) {
        purpose == Use::Data && super::cmd::zip::has_encrypted_entries(archive)
    } else if super::cmd::extract::is_7z(archive) {
        super::cmd::extract::needs_password(archive, purpose == Use::Listing)
    } else {
        false
    }
}
