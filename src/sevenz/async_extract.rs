//! Extraction for the async faces: the same [`Extraction`] steps as the
//! sync walk (`Archive::extract_to_with`), with the entries' data read
//! through the runtime-free core.

use std::future::poll_fn;
use std::io::Write;
use std::path::Path;

use lzflow_7z::{ExtractOptions, Extraction, SevenZError};

use super::async_core::{Core, PollSource};

/// Bytes moved from an entry to its file per write.
const COPY_BUFFER: usize = 64 << 10;

impl<S: PollSource> Core<S> {
    /// Extracts every entry below `dir` under `options`.
    pub(crate) async fn extract_to_with(
        &mut self,
        dir: &Path,
        options: &ExtractOptions,
    ) -> Result<(), SevenZError> {
        let mut x = Extraction::new(dir, options, self.index.entries())?;
        let result = walk(self, &mut x).await;
        x.finish(result)
    }
}

async fn walk<S: PollSource>(core: &mut Core<S>, x: &mut Extraction) -> Result<(), SevenZError> {
    let mut entries = core.entries_stream();
    let mut buf = vec![0u8; COPY_BUFFER];
    while let Some(entry) = entries.next_entry().await? {
        let Some(mut out) = x.begin(&entry)? else {
            continue;
        };
        loop {
            let read = poll_fn(|cx| entries.poll_read(cx, &mut buf)).await;
            let written = match read {
                Ok(0) => break,
                Ok(n) => out.write_all(&buf[..n]),
                Err(e) => Err(e),
            };
            if let Err(e) = written {
                x.discard(out)?;
                return Err(e.into());
            }
        }
        x.commit(out)?;
    }
    Ok(())
}
