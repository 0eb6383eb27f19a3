//! The tokio example in README.md is this file's `main`, verbatim: one test
//! checks the README still shows exactly this code, another runs it.

// README example start
use lzflow::tokio::bufread::XzDecoder;
use tokio::io::{AsyncReadExt, BufReader};

#[tokio::main]
async fn main() -> std::io::Result<()> {
    let file = tokio::fs::File::open("fixtures/generated/xz/preset-6.xz").await?;
    // Each fill of a tokio File is a trip to the blocking pool: fill big.
    let reader = BufReader::with_capacity(256 << 10, file);
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
