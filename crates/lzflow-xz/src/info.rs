//! Stream and Block sizes read backwards from the end of a file (footer,
//! then Index), without decoding any data; what `xz --list` shows.
