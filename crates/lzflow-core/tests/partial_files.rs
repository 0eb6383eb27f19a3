//! `extract::remove_partial_files`, what a program ending on a signal
//! calls: the temporary file of every entry being written goes, complete
//! files stay, and no extractor starts another file afterwards. Its own
//! test binary: the stop is process-wide.

use std::fs;
use std::io::{self, Write};
use std::path::Path;

use lzflow_core::extract::{
    remove_partial_files, EntryAttrs, ExtractError, ExtractOptions, Extractor,
};

fn names(dir: &Path) -> Vec<String> {
    let mut v: Vec<_> = fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

#[test]
fn partial_files_are_removed_and_no_more_are_made() {
    let root = std::env::temp_dir().join(format!("lzflow-core-partials-{}", std::process::id()));
    let _ = fs::remove_dir_all(&root);
    let mut x = Extractor::new(&root, ExtractOptions::default()).unwrap();

    let mut done = x
        .create_file(Path::new("done.txt"), EntryAttrs::default())
        .unwrap()
        .unwrap();
    done.write_all(b"complete").unwrap();
    x.commit(done).unwrap();
    // Dropped unfinished: its own destructor removes it, as before.
    let dropped = x
        .create_file(Path::new("dropped.txt"), EntryAttrs::default())
        .unwrap();
    drop(dropped);
    let mut a = x
        .create_file(Path::new("a.txt"), EntryAttrs::default())
        .unwrap()
        .unwrap();
    a.write_all(b"half of a").unwrap();
    let mut other = Extractor::new(root.join("sub"), ExtractOptions::default()).unwrap();
    let b = other
        .create_file(Path::new("b.txt"), EntryAttrs::default())
        .unwrap()
        .unwrap();
    assert_eq!(
        names(&root).len(),
        3,
        "done.txt, sub and a's temporary file: {:?}",
        names(&root)
    );
    assert_eq!(names(&root.join("sub")).len(), 1);

    remove_partial_files();
    assert_eq!(names(&root), ["done.txt", "sub"]);
    assert!(names(&root.join("sub")).is_empty());
    assert_eq!(fs::read(root.join("done.txt")).unwrap(), b"complete");

    match x.create_file(Path::new("c.txt"), EntryAttrs::default()) {
        Err(ExtractError::Io { source, .. }) => {
            assert_eq!(source.kind(), io::ErrorKind::Other);
            assert!(
                source.to_string().contains("extraction stopped"),
                "{source}"
            );
        }
        other => panic!("a file started after the stop: {other:?}"),
    }
    // The files removed under them fail to commit; nothing appears.
    assert!(x.commit(a).is_err());
    assert!(other.commit(b).is_err());
    assert_eq!(names(&root), ["done.txt", "sub"]);
    assert!(names(&root.join("sub")).is_empty());
    let _ = fs::remove_dir_all(&root);
}
