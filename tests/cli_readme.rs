//! The tokio example in README.md is this file's `main`, verbatim: one test
//! checks the README still shows exactly this code, another runs it.

// README example start
use lzflow::tokio::{bufread::XzDecoder, fs::ReadAheadFile};
use tokio::io::AsyncReadExt;

#[tokio::main]
async fn main() -> std::io::Result<()> {
    // Reads 256 KiB at a time on tokio's blocking pool, the next buffer
    // while the decoder works on this one.
    let reader = ReadAheadFile::open("fixtures/generated/xz/preset-6.xz").await?;
    let mut xz = XzDecoder::builder().memlimit(64 << 20).build(reader);
    let mut data = Vec::new();
    xz.read_to_end(&mut data).await?;
    println!("decoded {} bytes", data.len());
    Ok(())
}
// README example end

#[test]
fn readme_shows_this_example_verbatim() {
    let me = include_str!("cli_readme.rs");
    let start = me.find("// README example start\n").unwrap() + "// README example start\n".len();
    let end = me.find("// README example end").unwrap();
    let code = &me[start..end];
    let readme = include_str!("../README.md");
    assert!(
        readme.contains(&format!("```rust\n{code}```\n")),
        "README.md's tokio example differs from tests/cli_readme.rs"
    );
    assert!(code.lines().count() <= 14, "the example stays short");
}

#[test]
fn readme_example_runs() {
    // Integration tests run in the package root, where the path resolves.
    main().expect("the README example decodes the fixture");
}
